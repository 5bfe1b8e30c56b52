"""The designer's studio: a local web application for a game's what-ifs
(``mournesim studio``, ``questsim studio``).

Built on Tornado, the server library Jupyter and Dask's dashboard run on: it
is already installed with Dask's ``distributed`` (nothing more from the
network), serves a page and a small JSON API from one process with no
framework around it, and its event loop answers requests while the what-ifs
play on every core in worker processes (simcore.whatif).

The page (``templates/studio.html``) is built from the game's ruleset: every
value with its provenance and allowed range; the designer changes some, and
the what-if is played against the base on paired games, its interval drawn
as each round arrives. Every value a user gave reaches the page as JSON that
the script shows as text (``textContent``), never as markup. It listens on
127.0.0.1 unless another host is asked for.

API (JSON): ``GET /api/form``; ``POST /api/whatif`` {base, changed, target,
games} -> the what-if's status (400 with one line for bad input, and nothing
runs); ``GET /api/whatif/KEY``; ``POST /api/whatif/KEY/stop``; ``POST
/api/whatif/KEY/save`` {name} -> the files written; ``GET /api/whatifs``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .errors import InputError

TEMPLATE = Path(__file__).parent / "templates" / "studio.html"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def _json_for_script(data) -> str:
    from .viewer import _json_for_script as safe
    return safe(data)


def page(form: dict) -> str:
    """The studio page of a game's ``form`` (simcore.whatif.form)."""
    import html
    text = TEMPLATE.read_text(encoding="utf-8")
    return (text.replace("{{title}}", html.escape(form["title"]))
            .replace("{{form}}", _json_for_script(form)))


def make_app(game, cache: Path, saves: Path, workers=None):
    """The Tornado application of ``game``'s studio, and its :class:`Studio`
    (what-ifs cached under ``cache``, saved files written into ``saves``)."""
    import tornado.web

    from . import whatif
    studio = whatif.Studio(game, cache, workers)
    form = whatif.form(game)
    body = page(form)

    class Base(tornado.web.RequestHandler):
        def set_default_headers(self):
            self.set_header("Cache-Control", "no-store")
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Content-Security-Policy",
                            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                            "img-src 'self' data:")

        def answer(self, data, status=200):
            self.set_status(status)
            self.set_header("Content-Type", "application/json; charset=utf-8")
            self.finish(json.dumps(data, default=_plain, allow_nan=False))

        def refuse(self, message, status=400):
            self.answer({"error": str(message)}, status)

        def body_json(self) -> dict:
            try:
                d = json.loads(self.request.body or b"{}")
            except (ValueError, UnicodeDecodeError):
                raise InputError("the request is not JSON") from None
            if not isinstance(d, dict):
                raise InputError("the request must be a JSON object")
            return d

        def check_xsrf_cookie(self):       # a local tool: no cookies; POSTs must be JSON (no simple form posts)
            pass

        def prepare(self):
            if self.request.method == "POST" and not self.request.headers.get(
                    "Content-Type", "").startswith("application/json"):
                self.refuse("requests must be sent as application/json", 415)

    class Page(Base):
        def get(self):
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(body)

    class Form(Base):
        def get(self):
            self.answer(form)

    class Ask(Base):
        def post(self):
            try:
                d = self.body_json()
                base = d.get("base") or {}
                changed = d.get("changed") or {}
                if not isinstance(base, dict) or not isinstance(changed, dict):
                    raise InputError("base and changed must be objects")
                target = _number(d.get("target", 0.01), "target")
                games = int(_number(d.get("games", 100_000), "games"))
                w = studio.ask(base, changed, target, games)
            except InputError as e:
                return self.refuse(e)
            self.answer(_clean(w.status()))

    class One(Base):
        def get(self, key):
            try:
                self.answer(_clean(studio.get(key).status()))
            except InputError as e:
                self.refuse(e, 404)

    class Stop(Base):
        def post(self, key):
            try:
                studio.stop(key)
                self.answer(_clean(studio.get(key).status()))
            except InputError as e:
                self.refuse(e, 404)

    class Save(Base):
        def post(self, key):
            try:
                w = studio.get(key)
                name = str(self.body_json().get("name", ""))
                if not NAME.match(name):
                    raise InputError(f"name {name!r}: letters, digits, - and _ only (at most 64)")
                if w.played < 2:
                    raise InputError("nothing played yet: save once the first round is in")
                written = save(w, name, saves)
            except InputError as e:
                return self.refuse(e)
            prog = game.package
            exp = [p for p in written if p.endswith(".experiment.toml")][0]
            self.answer({"files": written, "command": f"{prog} experiment {exp}", "games": w.played})

    class All(Base):
        def get(self):
            self.answer([_clean(w.status()) for w in studio.jobs.values()])

    app = tornado.web.Application([
        (r"/", Page), (r"/api/form", Form), (r"/api/whatif", Ask), (r"/api/whatifs", All),
        (r"/api/whatif/([0-9a-f]{16})", One), (r"/api/whatif/([0-9a-f]{16})/stop", Stop),
        (r"/api/whatif/([0-9a-f]{16})/save", Save)])
    return app, studio


def save(w, name: str, saves: Path) -> list:
    """Write what-if ``w``'s files (simcore.whatif.files) into ``saves``, a
    folder the tool owns (nothing of a user's is overwritten); their paths."""
    from . import whatif
    from .outdir import owned
    out = []
    with owned(saves, "studio --saves") as held:
        for fname, text in whatif.files(w, name).items():
            out.append(str(held.write_text(fname, text)))
    return out


def _number(v, what):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError(f"{what}: {v!r} is not a number") from None
    if x != x or x in (float("inf"), float("-inf")):
        raise InputError(f"{what}: {v!r} is not a number")
    return x


def _plain(v):
    """numpy scalars as JSON numbers."""
    try:
        return v.item()
    except AttributeError:
        raise TypeError(f"{type(v).__name__} is not JSON") from None


def _clean(d):
    """NaN (a change with no spread yet) as null, for JSON."""
    if isinstance(d, dict):
        return {k: _clean(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_clean(v) for v in d]
    if isinstance(d, float) and d != d:
        return None
    return d


def serve(game, host="127.0.0.1", port=8765, workers=None, saves="studio-saves", cache=None, ready=None):
    """Run ``game``'s studio until interrupted. ``ready(url)`` is called once
    it listens (the CLI prints the address)."""
    import asyncio

    import tornado.httpserver
    from .jitcache import user_cache
    cache = Path(cache) if cache else user_cache(game.package) / "studio"
    cache.mkdir(parents=True, exist_ok=True)
    app, studio = make_app(game, cache, Path(saves), workers)

    async def main():
        server = tornado.httpserver.HTTPServer(app)
        server.listen(port, address=host)
        if ready is not None:
            ready(f"http://{host}:{port}/")
        try:
            await asyncio.Event().wait()
        finally:
            server.stop()

    try:
        asyncio.run(main())
    finally:
        studio.close()
