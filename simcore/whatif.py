"""What-ifs on paired games, for the studio: the ruleset as a form, a change
played against the base game by game, its interval narrowing round by round.

A what-if is a one-variant experiment (simcore.experiment): the base
configuration (a game's ``BASE`` keys: level, players, policy ...), and the
``--set`` overrides of the values the designer changed. Its games are played
in rounds of growing size on the same ``(seed, game)`` pairs for both arms
(games 0 .. N-1, whatever the rounds), so after each round the paired
comparison (simcore.paired) of every default measure is current, and the
what-if stops when the first measure's interval is narrow enough, at the
game cap, or on demand. Each round lands in the what-if's own folder under
the cache (``key``: the game, its behaviour version, the ruleset, the base,
the overrides and the seed), so the same what-if asked again, or after the
server was killed, re-uses every finished round. :func:`files` writes the
ruleset and the experiment file that reproduce it from the CLI.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import paired
from .errors import InputError
from .experiment import BASELINE, Experiment, arms
from .experiment_play import Runner, measure_names, measures_frame
from .rulesets import effective_rows
from .witness import Script

FIRST_ROUND = 500            # games per arm in the first round: a first answer within seconds
MAX_ROUND = 20_000           # rounds grow with the games so far, up to this
SEED = 1
ARM = "what_if"              # the variant's arm (the other is the experiment's baseline)
EXAMPLES = 3                 # example games shown each way (turned lost, turned won)


def rounds(cap):
    """The round sizes of a what-if capped at ``cap`` games: the same for
    every what-if, so a finished round is found again after a restart."""
    out, total = [], 0
    while total < cap:
        size = min(max(FIRST_ROUND, total // 2), MAX_ROUND, cap - total)
        out.append(size)
        total += size
    return out


# --------------------------------------------------------------- the form --

def _bounds(model_cls, path):
    """(low, high) of the field at dotted ``path`` of a pydantic model
    class, from its declared constraints (None where there is none)."""
    import types
    import typing

    import annotated_types as at
    from pydantic import BaseModel
    tp, info = model_cls, None
    for part in path.split("."):
        if typing.get_origin(tp) in (typing.Union, types.UnionType):      # X | None
            tp = next(a for a in typing.get_args(tp) if a is not type(None))
        if typing.get_origin(tp) in (dict, list):        # a key or an index: into the value's type
            tp, info = typing.get_args(tp)[-1], None
        elif isinstance(tp, type) and issubclass(tp, BaseModel) and part in tp.model_fields:
            info = tp.model_fields[part]
            tp = info.annotation
        else:
            return None, None
    low = high = None
    for m in (info.metadata if info is not None else ()):
        if isinstance(m, (at.Ge, at.Gt)):
            low = m.ge if isinstance(m, at.Ge) else m.gt
        elif isinstance(m, (at.Le, at.Lt)):
            high = m.le if isinstance(m, at.Le) else m.lt
    return low, high


def form(game) -> dict:
    """The what-if form of ``game`` (a simcore.game.Game): its base keys with
    their defaults, and every value of the shipped ruleset with its
    provenance and allowed range, grouped by section."""
    from .rulesets import leaves
    adapter = game.module("experiment")
    rs = game.prepare(None, ()).ruleset
    in_file = {p for p, _ in leaves(adapter.load_raw(None))}
    rows = []
    for path, value, prov in effective_rows(rs):
        if path not in in_file:         # a default the file leaves to the model: --set cannot reach it
            continue
        if isinstance(value, (dict, list)) and not (isinstance(value, list) and all(
                isinstance(x, (int, float, str, bool)) for x in value)):
            continue
        low, high = _bounds(type(rs), path)
        rows.append(dict(path=path, value=value, kind=_kind(value), provenance=prov or "", low=low, high=high))
    return dict(game=game.key, title=game.title, base=form_base(game), measures=list(adapter.DEFAULT_MEASURES),
                descriptions={m: adapter.MEASURES[m][1] for m in adapter.DEFAULT_MEASURES}, rows=rows)


def form_base(game) -> dict:
    """The base settings a what-if takes, with their defaults: an experiment
    file's ``base`` keys less the ruleset file, overrides and policy
    parameters (the form's values are the overrides)."""
    return {k: v for k, v in game.module("experiment").BASE.items() if k not in ("ruleset", "set", "params")}


def _kind(v):
    return ("toggle" if isinstance(v, bool) else "number" if isinstance(v, (int, float))
            else "list" if isinstance(v, list) else "text")


def overrides(game, changed: dict) -> tuple:
    """``--set`` overrides for the ``changed`` values (path -> value as the
    form sends it), each checked against the shipped ruleset: unknown paths,
    wrong kinds and values out of range are one InputError line, and so is a
    ruleset the changes make invalid (nothing runs)."""
    known = {r["path"]: r for r in form_rows(game)}
    out = []
    for path, value in sorted(changed.items()):
        if path not in known:
            raise InputError(f"{path}: not a value of the {game.title} ruleset")
        row = known[path]
        value = _parse(path, value, row)
        if value == row["value"]:
            continue
        out.append(f"{path}={json.dumps(value)}")
    game.prepare(None, tuple(out))       # the game's own validation, cross checks included
    return tuple(out)


def form_rows(game):
    """The form's rows of ``game`` (cached: the shipped ruleset does not change)."""
    if game.key not in _FORMS:
        _FORMS[game.key] = form(game)
    return _FORMS[game.key]["rows"]


_FORMS = {}


def _parse(path, value, row):
    """``value`` from the form as the type of the ruleset's value at ``path``."""
    kind = row["kind"]
    try:
        if kind == "toggle":
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "false"):
                return str(value).lower() == "true"
            raise ValueError
        if kind == "number":
            v = float(value)
            if v != v or abs(v) == float("inf"):
                raise ValueError
            if isinstance(row["value"], int) and not isinstance(row["value"], bool):
                if v != int(v):
                    raise ValueError
                v = int(v)
        elif kind == "list":
            v = value if isinstance(value, list) else json.loads(value)
            if not isinstance(v, list):
                raise ValueError
            return v
        else:
            return str(value)
    except (TypeError, ValueError, json.JSONDecodeError):
        raise InputError(f"{path}: {value!r} is not a {'true/false' if kind == 'toggle' else kind}") from None
    if row["low"] is not None and v < row["low"] or row["high"] is not None and v > row["high"]:
        raise InputError(f"{path}: {v} is outside its allowed range {row['low']}..{row['high']}")
    return v


# ---------------------------------------------------------- the what-if --

@dataclass
class WhatIf:
    """One what-if: its request, where its games are kept, and its answer so far."""
    game: object
    base: dict
    set: tuple
    target: float                 # stop when the first measure's half-width is at most this
    cap: int                      # ... or after this many games per arm
    folder: Path
    key: str = ""
    state: str = "queued"         # queued, running, done, stopped, failed
    why: str = ""                 # why it ended (or failed)
    played: int = 0
    started: float = 0.0
    history: list = field(default_factory=list)     # per round: games, then change and interval of the first measure
    table: list = field(default_factory=list)       # the latest comparison, one dict per measure
    examples: dict = field(default_factory=dict)     # games the change turned: "won", "lost" -> game numbers
    stop_asked: bool = False
    done_rounds: int = 0
    frames: list = field(default_factory=list)

    def experiment(self, games=None) -> Experiment:
        """The experiment that plays this what-if (and, saved, reproduces it)."""
        return Experiment(title=f"What-if: {', '.join(self.set) or 'no change'}", game=self.game.key, seed=SEED,
                          games=games or self.cap, base=dict(self.base),
                          variant=[dict(name=ARM, set=list(self.set))])

    def replay_page(self, arm: str, game: int, script: Script = Script()) -> str:
        """The replay viewer page of game ``game`` as arm ``arm`` (``baseline``
        or ``what_if``) played it, the same game the comparison counted, with
        its decisions (branched and seated by ``script``, :func:`game_page`)."""
        if arm not in (BASELINE, ARM) or not 0 <= game < self.played:
            raise InputError(f"no game {game} of arm {arm!r} in this what-if ({self.played:,} played)")
        return game_page(self.game, self.base, self.set if arm == ARM else (), game, script,
                         f"/game/{self.key}/{arm}/{game}")

    def status(self) -> dict:
        """JSON-ready state for the page."""
        return dict(key=self.key, state=self.state, why=self.why, played=self.played, cap=self.cap,
                    target=self.target, set=list(self.set), base=self.base, history=self.history,
                    table=self.table, examples=self.examples,
                    seconds=round(time.monotonic() - self.started, 2) if self.started else 0)


def checked_base(game, base: dict) -> dict:
    """``base`` settings (an experiment's ``base`` keys, :func:`form_base`)
    checked, less those equal to the defaults (one InputError line for an
    unknown key; the values are checked as the CLI checks them, where
    played)."""
    adapter = game.module("experiment")
    allowed = form_base(game)
    unknown = sorted(set(base) - set(allowed))
    if unknown:
        raise InputError(f"{unknown[0]}: not a base setting (choose from {', '.join(allowed)})")
    return {k: str(v) for k, v in base.items() if str(v) != str(adapter.BASE[k])}


def game_page(game, base: dict, sets, number: int, script: Script, address: str, seed: int = SEED) -> str:
    """The replay viewer page of game ``number`` of ``seed`` of the one
    game setting ``base`` with overrides ``sets`` (the game the CLI plays), its decisions
    recorded (simcore.witness) and ``script`` played: each option not played
    links to the game played on with it, and a person's seat is offered its
    decision. ``address``: this game's page in the studio."""
    if not 0 <= number < 1_000_000_000:
        raise InputError(f"game {number}: must be between 0 and 999,999,999")
    if not 0 <= seed < 2 ** 63:
        raise InputError(f"seed {seed}: must be a whole number from 0")
    plan = game.module("experiment").plan(base, tuple(sets), 1, seed, number, None)
    if len(plan.payloads) != 1:
        raise InputError("the base must be one game setting (one level, player count and policy)")
    _, rules, cfg, _ = plan.payloads[0]
    rp = game.replay_cell(rules, cfg, seed, number, script)
    return game.module("viewer").html(rp, play=dict(base=address, choices=[list(p) for p in script.choices],
                                                    seat=script.seat))


def key_of(game, base, sets, cap) -> str:
    """A what-if's identity: what decides its games (and its rounds)."""
    rec = dict(game=game.key, behaviour=game.behaviour_version, base=base, set=list(sets), seed=SEED, cap=cap,
               ruleset=game.prepare(None, ()).hash)
    return hashlib.sha256(json.dumps(rec, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Studio:
    """The what-ifs of one server: asked from request handlers, played one
    round at a time, in turn, by one thread on one pool of workers (so four
    what-ifs at once share the cores and never each other's games)."""

    def __init__(self, game, cache: Path, workers=None):
        self.game, self.cache, self.workers = game, Path(cache), workers
        self.jobs: dict[str, WhatIf] = {}
        self.lock = threading.Condition()
        self.backend = None
        self.closed = False
        self.thread = threading.Thread(target=self._loop, name="what-ifs", daemon=True)
        self.thread.start()

    def ask(self, base: dict, changed: dict, target: float, cap: int) -> WhatIf:
        """Start (or find) the what-if of ``changed`` values on ``base``."""
        adapter = self.game.module("experiment")
        base = checked_base(self.game, base)
        if not 0 < target < 0.5:
            raise InputError(f"target: {target} must be between 0 and 0.5 (a half-width, 0.01 = 1 point)")
        if not 100 <= cap <= 10_000_000:
            raise InputError(f"games: {cap} must be between 100 and 10,000,000")
        sets = overrides(self.game, changed)
        if not sets:
            raise InputError("no value differs from the ruleset's: change at least one")
        plan = adapter.plan(base, sets, 1, SEED, 0, None)       # the base checked as the CLI checks it
        if len(plan.payloads) != 1:
            raise InputError("the base must be one game setting (one level, player count and policy)")
        key = key_of(self.game, base, sets, cap)
        with self.lock:
            if key in self.jobs and self.jobs[key].state in ("queued", "running"):
                return self.jobs[key]
            old = self.jobs.get(key)
            if old is not None and old.state == "done" and old.target <= target:
                return old
            w = WhatIf(self.game, base, sets, target, cap, self.cache / key, key)
            self.jobs[key] = w
            self.lock.notify_all()
        return w

    def get(self, key) -> WhatIf:
        if key not in self.jobs:
            raise InputError(f"no what-if {key!r} (the server may have been restarted: ask it again)")
        return self.jobs[key]

    def stop(self, key):
        """Stop a what-if after its current round (its games are kept)."""
        self.get(key).stop_asked = True

    def close(self):
        """Stop playing (between rounds) and the workers."""
        with self.lock:
            self.closed = True
            self.lock.notify_all()
        self.thread.join(timeout=30)
        if self.backend is not None:
            self.backend.close(cancel=True)

    # ---- the playing thread --------------------------------------------------
    def _loop(self):
        while True:
            with self.lock:
                while not self.closed and not self._active():
                    self.lock.wait()
                if self.closed:
                    return
                todo = self._active()
            for w in todo:          # one round each, in turn
                if self.closed:
                    return
                self._round(w)

    def _active(self):
        return [w for w in self.jobs.values() if w.state in ("queued", "running")]

    def _round(self, w: WhatIf):
        if w.stop_asked:
            w.state, w.why = "stopped", "stopped on demand"
            return
        sizes = rounds(w.cap)
        if w.state == "queued":
            w.state, w.started = "running", time.monotonic()
        try:
            size = sizes[w.done_rounds]
            first = sum(sizes[:w.done_rounds])
            df = self._play(w, size, first, f"round-{w.done_rounds + 1:03d}")
        except InputError as e:
            w.state, w.why = "failed", str(e)
            return
        except Exception as e:                         # never silent: the page shows it
            w.state, w.why = "failed", f"{type(e).__name__}: {e}"
            return
        w.done_rounds += 1
        w.played = first + size
        self._compare(w, df)
        first_m = w.table[0]
        w.history.append(dict(games=w.played, change=first_m["change"], low=first_m["ci95_low"],
                              high=first_m["ci95_high"], half_width=first_m["half_width"],
                              seconds=round(time.monotonic() - w.started, 2)))
        if first_m["half_width"] <= w.target:
            w.state, w.why = "done", f"the interval of {first_m['measure']} is within ±{w.target * 100:g} points"
        elif w.done_rounds == len(sizes):
            w.state, w.why = "done", f"all {w.cap:,} games played"

    def _play(self, w, size, first, tag):
        from .outdir import owned
        exp = w.experiment()
        adapter = self.game.module("experiment")
        with owned(w.folder, "the studio") as held:
            held.datasets("data")
            runner = Runner(exp, adapter, held.path, self.workers, None, False, None, "studio")
            if self.backend is None:
                from .batch import backend
                self.backend = backend(self.workers)
            runner.backend = self.backend
            return runner.play(arms(exp, adapter), size, first, tag)

    def _compare(self, w, df):
        adapter = self.game.module("experiment")
        names = measure_names(w.experiment(), adapter)
        w.frames.append(measures_frame(df, adapter, names, list(adapter.CELL)))
        frame = pd.concat(w.frames, ignore_index=True)
        binary = {n: adapter.MEASURES[n][0] for n in names}
        comp = paired.table(frame, binary, list(adapter.CELL), baseline=BASELINE, pooled=False)
        first = names[0]
        if binary[first]:         # example games whose first measure the change turned, each way
            w.examples = paired.turned(frame, first, ARM, BASELINE, EXAMPLES)
        w.table = [dict(measure=r["measure"], description=adapter.MEASURES[r["measure"]][1], binary=binary[r["measure"]],
                        n=int(r["n"]), baseline=r["baseline"], value=r["value"], change=r["change"],
                        ci95_low=r["ci95_low"], ci95_high=r["ci95_high"], half_width=r["half_width"],
                        p_value=r["p_value"]) for r in comp.to_dict("records")]


# ------------------------------------------------------------- saving --

def files(w: WhatIf, name: str) -> dict:
    """The files that reproduce what-if ``w`` from the CLI, by file name:
    the changed ruleset (TOML) and an experiment file with the games it
    played (``PROG experiment FILE`` gives the same comparison)."""
    import tomli_w

    from .rulesets import apply_overrides
    exp = w.experiment(games=max(w.played, 2))
    raw = w.game.module("experiment").load_raw(None)
    d = exp.model_dump(exclude_none=True)
    d = {k: v for k, v in d.items() if v not in ([], "")}
    d["variant"] = [dict(name=v["name"], set=v["set"]) for v in d["variant"]]
    return {f"{name}.ruleset.toml": tomli_w.dumps(apply_overrides(raw, w.set)),
            f"{name}.experiment.toml": tomli_w.dumps(d)}
