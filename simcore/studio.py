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
/api/whatif/KEY/save`` {name} -> the files written; ``GET /api/whatifs``;
``GET /game/KEY/ARM/N``: the replay viewer of game N as an arm played it,
with its decisions; ``GET /play?BASE=VALUE...&seed=S&game=N&set=PATH=VALUE...``: game N of
seed S of a base setting under the shipped ruleset with ``--set``
overrides, as the CLI plays it (both take ``o``, the choices a person
made, ``12:3004,40:1002``, and ``seat``, the hero or seat a person plays:
simcore.witness);
``GET /dice`` (the dice calculator, its inputs in the address) and ``GET
/api/dice?INPUT=VALUE...`` (the exact distribution: the game's
``odds.calculate``).
"""
from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import tornado.web
from urllib.parse import urlencode

from .errors import InputError
from .viewer import _json_for_script
from .witness import Script

TEMPLATE = Path(__file__).parent / "templates" / "studio.html"
PAGES_KEPT = 32            # game pages kept for a visit again (each a few hundred kB)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def page(form: dict) -> str:
    """The studio page of a game's ``form`` (simcore.whatif.form)."""
    import html
    text = TEMPLATE.read_text(encoding="utf-8")
    return (text.replace("{{title}}", html.escape(form["title"]))
            .replace("{{form}}", _json_for_script(form)))


class _Handler(tornado.web.RequestHandler):
    """What every request of the studio shares: its state (``self.s``: the
    :class:`Served`), no caching, a strict content policy, JSON answers and
    one-line refusals."""

    @property
    def s(self) -> "Served":
        return self.settings["served"]

    def set_default_headers(self):
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Content-Security-Policy",
                        "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                        "img-src 'self' data:")

    def prepare(self):
        # a local tool with no cookies: a POST must be JSON, which a page of
        # another site cannot send here without the browser asking first
        if self.request.method == "POST" and not self.request.headers.get(
                "Content-Type", "").startswith("application/json"):
            self.refuse("requests must be sent as application/json", 415)

    def check_xsrf_cookie(self):
        """No XSRF cookie to check: the studio sets no cookies, and prepare()
        accepts only JSON POSTs, which another site's page cannot send here
        without the browser asking this server first."""

    def answer(self, data, status=200):
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(_clean(data), default=_plain, allow_nan=False))

    def html(self, text):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(text)

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


class _Page(_Handler):
    def get(self):
        self.html(self.s.page)


class _Form(_Handler):
    def get(self):
        self.answer(self.s.form)


class _Ask(_Handler):
    def post(self):
        try:
            d = self.body_json()
            base, changed = d.get("base") or {}, d.get("changed") or {}
            if not isinstance(base, dict) or not isinstance(changed, dict):
                raise InputError("base and changed must be objects")
            w = self.s.studio.ask(base, changed, _number(d.get("target", 0.01), "target"),
                                  int(_number(d.get("games", 100_000), "games")))
        except InputError as e:
            return self.refuse(e)
        self.answer(w.status())


class _One(_Handler):
    def get(self, key):
        try:
            self.answer(self.s.studio.get(key).status())
        except InputError as e:
            self.refuse(e, 404)


class _Stop(_Handler):
    def post(self, key):
        try:
            self.s.studio.stop(key)
            self.answer(self.s.studio.get(key).status())
        except InputError as e:
            self.refuse(e, 404)


class _Save(_Handler):
    def post(self, key):
        try:
            w = self.s.studio.get(key)
            name = str(self.body_json().get("name", ""))
            if not NAME.match(name):
                raise InputError(f"name {name!r}: letters, digits, - and _ only (at most 64)")
            if w.played < 2:
                raise InputError("nothing played yet: save once the first round is in")
            written = save(w, name, self.s.saves)
        except InputError as e:
            return self.refuse(e)
        exp = next(p for p in written if p.endswith(".experiment.toml"))
        self.answer({"files": written, "command": f"{self.s.game.package} experiment {exp}", "games": w.played})


class _All(_Handler):
    def get(self):
        self.answer([w.status() for w in self.s.studio.jobs.values()])


class _Game(_Handler):
    def get(self, key, arm, number):
        try:
            w = self.s.studio.get(key)
            self.html(self.s.game_page(self.request.uri, lambda: w.replay_page(arm, int(number), self.script())))
        except InputError as e:
            self.refuse(e, 404)

    def script(self):
        """The choices (``o``) and the person's seat (``seat``) in the address."""
        return Script.parse(self.get_argument("o", ""), self.get_argument("seat", "-1"))


class _Play(_Game):
    def get(self):
        from . import whatif
        keys = ("game", "o", "seat", "seed", "set")
        try:
            base = whatif.checked_base(self.s.game, {k: self.get_argument(k) for k in self.request.arguments
                                                     if k not in keys})
            number = int(_number(self.get_argument("game", "0"), "game"))
            seed = int(_number(self.get_argument("seed", str(whatif.SEED)), "seed"))
            sets = tuple(self.get_arguments("set"))
            query = urlencode(dict(base, seed=seed, game=number, set=sets), doseq=True)
            self.html(self.s.game_page(self.request.uri, lambda: whatif.game_page(
                self.s.game, base, sets, number, self.script(), f"/play?{query}", seed)))
        except InputError as e:
            self.refuse(e)


class _NoIcon(_Handler):
    def get(self):
        # the viewer's pages name no icon (they are files of their own too): none, rather than a 404 in the console
        self.set_status(204)


class _DicePage(_Handler):
    def get(self):
        self.html(self.s.dice_page)


class _Dice(_Handler):
    def get(self):
        try:
            values = calculator_values(self.s.odds.CALCULATOR, {k: self.get_argument(k) for k in self.request.arguments})
            self.answer(self.s.odds.calculate(self.s.rules, values))
        except InputError as e:
            self.refuse(e)


ROUTES = [(r"/", _Page), (r"/api/form", _Form), (r"/api/whatif", _Ask), (r"/api/whatifs", _All),
          (r"/api/whatif/([0-9a-f]{16})", _One), (r"/api/whatif/([0-9a-f]{16})/stop", _Stop),
          (r"/api/whatif/([0-9a-f]{16})/save", _Save), (r"/dice", _DicePage), (r"/api/dice", _Dice),
          (r"/game/([0-9a-f]{16})/(baseline|what_if)/([0-9]{1,9})", _Game), (r"/play", _Play),
          (r"/favicon.ico", _NoIcon)]


@dataclass
class Served:
    """What one studio serves: its game, what-ifs, pages and save folder."""
    game: object
    studio: object
    saves: Path
    form: dict
    page: str
    odds: object
    rules: object
    dice_page: str
    pages: OrderedDict = field(default_factory=OrderedDict)     # the game pages served last, by address

    def game_page(self, address: str, make) -> str:
        """The game page at ``address``, made by ``make()`` or, when it was
        served lately, again: a game page depends only on its address (the
        what-if's key names its rulesets), and making one replays the game."""
        if address in self.pages:
            self.pages.move_to_end(address)
            return self.pages[address]
        page = self.pages[address] = make()
        while len(self.pages) > PAGES_KEPT:
            self.pages.popitem(last=False)
        return page


def make_app(game, cache: Path, saves: Path, workers=None):
    """The Tornado application of ``game``'s studio, and its what-ifs
    (simcore.whatif.Studio: cached under ``cache``; saved files written
    into ``saves``)."""
    from . import whatif
    form = whatif.form(game)
    odds = game.module("odds")
    served = Served(game, whatif.Studio(game, cache, workers), Path(saves), form, page(form), odds, game.prepare(),
                    dice_page(game.title, odds.CALCULATOR))
    return tornado.web.Application(ROUTES, served=served), served.studio


def dice_page(title: str, spec) -> str:
    """The dice calculator page of a game with calculator inputs ``spec``."""
    import html
    text = (Path(__file__).parent / "templates" / "dice.html").read_text(encoding="utf-8")
    return text.replace("{{title}}", html.escape(title)).replace("{{spec}}", _json_for_script(list(spec)))


def calculator_values(spec, given: dict) -> dict:
    """The calculator's inputs from a query (``given``: name -> text), each
    checked against its ``spec`` entry (one InputError line), defaults for
    the ones not given."""
    known = {d["name"]: d for d in spec}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(f"{unknown[0]}: not an input of the calculator (inputs: {', '.join(known)})")
    out = {}
    for name, d in known.items():
        v = given.get(name, d["default"])
        if d["kind"] == "number":
            try:
                v = int(v)
            except (TypeError, ValueError):
                raise InputError(f"{name}: {v!r} is not a whole number") from None
            if not d["low"] <= v <= d["high"]:
                raise InputError(f"{name}: {v} is outside {d['low']}..{d['high']}")
        elif d["kind"] == "toggle":
            if str(v).lower() not in ("true", "false", "1", "0", "on", "off"):
                raise InputError(f"{name}: {v!r} is not true or false")
            v = str(v).lower() in ("true", "1", "on")
        elif d["kind"] == "choice" and v not in d["choices"]:
            raise InputError(f"{name}: {v!r}: one of {', '.join(d['choices'])}")
        elif d["kind"] == "text" and len(str(v)) > 200:
            raise InputError(f"{name}: too long")
        out[name] = v
    return out


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
