"""Designer what-if experiments, for both games (format: experiments/README.md).

An experiment file (TOML) names a game, a base configuration and one of:

- ``[[variant]]`` tables: named lists of ``--set`` overrides;
- ``[sweep]``: one parameter (or two) over a list or range of values;
- ``[sensitivity]``: numeric parameters and families of them, each nudged
  down and up;
- ``[tune]``: parameters to solve for so that a rate hits a target in a cell;
- ``[policy_tune]``: the base policy's parameters searched (NTBEA,
  simcore.ntbea) for the best win rate, then checked on fresh paired games.

Every arm is played on the same ``(seed, game)`` pairs as the baseline (the
ruleset as given, plus the base overrides), so each change is measured game
by game (simcore.paired). Arms are cells of one batch-driver plan, so they
run on every core or a Dask cluster and, with ``--out``, land on disk as
they finish: running the same command again re-uses every finished batch.

A game plugs in through an adapter module (``mournesim.experiment``,
``questsim.experiment``) with: ``GAME``, ``PROG``, ``BASE`` (the base keys and
their defaults), ``CELL`` (the columns that tell cells apart), ``MEASURES``
(name -> (is 0/1, description, function of the rows)), ``DEFAULT_MEASURES``,
``load_raw(path)``, ``plan(base, overrides, games, seed, first, batch)``,
``play_batch`` and ``policy_info(base)`` (the tuned policy's name, parameter
names and defaults).
"""
from __future__ import annotations

import hashlib
import json
import math
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from . import batch as driver
from . import identity, paired, store
from .errors import InputError
from .inputs import MAX_BATCH, load_toml, parse_floats
from .rulesets import format_errors

BASELINE = "baseline"
FIRST_ROUND = 2_000          # games per cell in the first round under target_ci


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Variant(_Strict):
    """A named what-if: overrides applied on top of the base."""
    name: str = Field(min_length=1)
    set: list[str] = Field(min_length=1)
    description: str = ""


class Sweep(_Strict):
    """One parameter (``param``) over ``values`` or an inclusive
    ``range = [start, stop, step]``; optionally a second one for a grid."""
    param: str
    values: list[int | float] | None = None
    range: list[int | float] | None = None
    param2: str | None = None
    values2: list[int | float] | None = None
    range2: list[int | float] | None = None

    @model_validator(mode="after")
    def _one_source(self):
        self.values = _values(self.values, self.range, "sweep")
        if self.param2 is not None:
            self.values2 = _values(self.values2, self.range2, "sweep", "2")
        elif self.values2 is not None or self.range2 is not None:
            raise ValueError("values2/range2 need param2")
        return self


class Family(_Strict):
    """Several numbers nudged together, as a designer thinks of them ("every
    Bogbean strength"): ``params`` are dotted paths in which ``*`` stands for
    any one key or list position, each matching number moved by the screen's
    step; or, for what a step cannot say (a die's faces), ``down`` and ``up``
    give the two arms' ``--set`` overrides outright."""
    name: str = Field(min_length=1)
    params: list[str] = []
    down: list[str] = []
    up: list[str] = []
    description: str = ""

    @model_validator(mode="after")
    def _one_way(self):
        given = bool(self.down or self.up)
        if bool(self.params) == given or (given and not (self.down and self.up)):
            raise ValueError(f"family {self.name!r}: give params, or both down and up")
        return self


class Sensitivity(_Strict):
    """Numeric parameters (``params``) and families of them (``family``),
    each played at its value - step and + step (``step``, absolute) or times
    (1 ∓ relative) (``relative``)."""
    params: list[str] = []
    family: list[Family] = []
    step: float | None = Field(None, gt=0)
    relative: float | None = Field(None, gt=0, lt=1)

    @model_validator(mode="after")
    def _one_step(self):
        if not self.params and not self.family:
            raise ValueError("give params or [[sensitivity.family]] (or both)")
        if (self.step is None) == (self.relative is None):
            raise ValueError("give exactly one of step (absolute) or relative (a fraction)")
        names = list(self.params) + [f.name for f in self.family]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"{dup[0]!r} named twice in the screen")
        return self


class Target(_Strict):
    """Solve ``param`` within ``range = [low, high]`` so that the measure's
    rate in the cell ``cell`` (base keys, e.g. ``{level = "easy"}``) is ``rate``."""
    param: str
    rate: float = Field(gt=0, lt=1)
    range: list[int | float] = Field(min_length=2, max_length=2)
    cell: dict = {}
    name: str = ""

    @model_validator(mode="after")
    def _range(self):
        if not self.range[0] < self.range[1]:
            raise ValueError(f"range {self.range}: low must be below high")
        return self


class Tune(_Strict):
    """Targets solved one by one by bisection on paired seeds."""
    measure: str = "win"
    target: list[Target] = Field(min_length=1)
    tolerance: float | None = Field(None, gt=0)   # for a real-valued parameter


class PolicyTune(_Strict):
    """Search the base policy's parameters for the best ``measure`` with
    NTBEA: ``params`` maps each tuned parameter to its candidate values; each
    evaluation plays ``games_per_eval`` games per cell, ``batch`` points at a
    time on the same games (a step's points are paired; steps use fresh
    games); ``budget`` evaluations in all. The recommendation and the
    starting parameters then play the experiment's ``games`` fresh games per
    cell, paired, for the reported change (``--games`` sets those and caps
    ``games_per_eval``)."""
    measure: str = "win"
    params: dict[str, list[float]] = Field(min_length=1)
    budget: int = Field(120, ge=2, le=100_000)
    games_per_eval: int = Field(1_000, ge=2, le=10_000_000)
    batch: int = Field(4, ge=1, le=64)
    k: float = Field(0.5, gt=0, le=100)
    neighbours: int = Field(50, ge=1, le=10_000)

    @model_validator(mode="after")
    def _grids(self):
        for name, vals in self.params.items():
            if len(vals) < 2 or len(set(vals)) != len(vals):
                raise ValueError(f"params.{name}: need at least two distinct values")
            if any(not math.isfinite(v) for v in vals):
                raise ValueError(f"params.{name}: values must be finite numbers")
        return self


class Experiment(_Strict):
    """A whole experiment file."""
    title: str = Field(min_length=1)
    question: str = ""
    game: str            # an installed game's key (simcore.game): mournequest, questmaster
    seed: int = Field(1, ge=0, lt=2 ** 63)
    games: int = Field(10_000, ge=2, le=100_000_000)
    target_ci: float | None = Field(None, gt=0, lt=0.5)
    batch: int | None = Field(None, ge=1, le=MAX_BATCH)
    measures: list[str] = []
    base: dict = {}
    variant: list[Variant] | None = None
    sweep: Sweep | None = None
    sensitivity: Sensitivity | None = None
    tune: Tune | None = None
    policy_tune: PolicyTune | None = None

    @field_validator("game")
    @classmethod
    def _known_game(cls, key):
        from . import game
        if key not in game.games():
            raise ValueError(f"{key!r} is no installed game: expected one of {', '.join(map(repr, game.games()))}")
        return key

    @model_validator(mode="after")
    def _one_kind(self):
        kinds = [k for k in KINDS if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("give exactly one of [[variant]], [sweep], [sensitivity], [tune] or [policy_tune]"
                             + (f" (found {', '.join(kinds)})" if kinds else ""))
        if self.variant is not None:
            names = [v.name for v in self.variant]
            dup = {n for n in names if names.count(n) > 1} | ({BASELINE} & set(names))
            if dup:
                raise ValueError(f"variant name {sorted(dup)[0]!r} used twice (or reserved)")
        if (self.tune is not None or self.policy_tune is not None) and self.target_ci is not None:
            raise ValueError("a tune plays a fixed number of games per try: set games, not target_ci")
        return self

    @property
    def kind(self):
        return next(k for k in KINDS if getattr(self, k) is not None)


KINDS = ("variant", "sweep", "sensitivity", "tune", "policy_tune")


def _values(values, rng, where, suffix=""):
    if (values is None) == (rng is None):
        raise ValueError(f"give exactly one of values{suffix} or range{suffix}")
    if rng is not None:
        if len(rng) != 3 or rng[2] <= 0 or rng[1] < rng[0]:
            raise ValueError(f"range{suffix} {rng}: expected [start, stop, step] with step > 0 and stop ≥ start")
        n = int(math.floor((rng[1] - rng[0]) / rng[2] + 1e-9)) + 1
        values = [rng[0] + i * rng[2] for i in range(n)]
        if all(isinstance(x, int) for x in rng):
            values = [int(v) for v in values]
        else:
            values = [round(v, 10) for v in values]
    if len(values) < 2 or len(set(values)) != len(values):
        raise ValueError(f"values{suffix}: need at least two distinct values")
    return values


def load(path) -> Experiment:
    """Read and validate an experiment file (problems: one line each, exit 2)."""
    p = Path(path)
    try:
        raw = load_toml(path, "experiment file")   # a regular file, bounded in size and depth (simcore.inputs)
    except FileNotFoundError:
        raise InputError(f"{path}: no such experiment file") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: not valid TOML ({e})") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start}); "
                         "save the experiment file as UTF-8") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        exp = Experiment.model_validate(raw)
    except ValidationError as e:
        raise InputError("\n".join(f"{path}: {line}" for line in format_errors(e))) from None
    ruleset = exp.base.get("ruleset")
    if ruleset:   # relative to the experiment file, so experiments travel with their rulesets
        exp.base["ruleset"] = str((p.parent / ruleset).resolve()) if not Path(ruleset).is_absolute() else ruleset
    return exp


def adapter(exp: Experiment, prog: str):
    """The game's experiment module (its part ``experiment``, simcore.game);
    the file must be for the command's game."""
    from . import game
    mod = game.get(exp.game).module("experiment")
    if mod.PROG != prog:
        raise InputError(f"this is a {exp.game} experiment: run it with `{mod.PROG} experiment`")
    return mod


# ------------------------------------------------- helpers for adapters --

def base_text(v):
    """A base value as the command line writes it: a TOML list becomes ``a,b``."""
    return ",".join(str(x) for x in v) if isinstance(v, list) else str(v)


def check_base(base: dict, defaults: dict, game: str) -> dict:
    """The base keys with ``defaults`` filled in; an unknown key is bad input."""
    bad = [k for k in base if k not in defaults]
    if bad:
        raise InputError(f"base.{bad[0]}: unknown key ({game} takes {', '.join(defaults)})")
    return {**defaults, **base}


def base_params(base: dict) -> tuple:
    """The ``params`` base key as finite numbers (their ranges are checked
    with the policy's, when the plan is made)."""
    return parse_floats(base_text(base.get("params", "")), "base.params")


# ---------------------------------------------------------------- arms --

@dataclass
class Arm:
    """One what-if: a name, its overrides and the parameter values it sets;
    ``params``, when given, replaces the base policy's parameters."""
    name: str
    overrides: tuple = ()
    values: dict = field(default_factory=dict)
    params: tuple = ()


def lookup(raw, path):
    """The value at dotted ``path`` of a raw ruleset mapping."""
    node = raw
    for key in path.split("."):
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            raise InputError(f"{path}: no such ruleset value")
    return node


def _fmt(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def _short(path):
    return ".".join(path.split(".")[-2:])


def _set(path, v):
    return f"{path}={json.dumps(v)}"


def base_raw(exp, game):
    """The raw ruleset the baseline plays (file plus base overrides)."""
    from .rulesets import apply_overrides
    return apply_overrides(game.load_raw(exp.base.get("ruleset")), exp.base.get("set", []))


def arms(exp: Experiment, game) -> list[Arm]:
    """The arms of a variant, sweep or sensitivity experiment, baseline first."""
    if exp.kind == "variant":
        return [Arm(BASELINE)] + [Arm(v.name, tuple(v.set)) for v in exp.variant]
    raw = base_raw(exp, game)
    if exp.kind == "sweep":
        sw = exp.sweep
        params = [sw.param] + ([sw.param2] if sw.param2 else [])
        grids = [sw.values] + ([sw.values2] if sw.param2 else [])
        current = tuple(lookup(raw, p) for p in params)
        out, seen_base = [], False
        for combo in _product(grids):
            vals = dict(zip(params, combo))
            is_base = all(_same(a, b) for a, b in zip(combo, current))
            name = BASELINE if is_base else ", ".join(f"{_short(p)}={_fmt(v)}" for p, v in vals.items())
            seen_base |= is_base
            out.append(Arm(name, () if is_base else tuple(_set(p, v) for p, v in vals.items()), vals))
        if not seen_base:
            out.append(Arm(BASELINE, (), dict(zip(params, current))))
        return sorted(out, key=lambda a: a.name != BASELINE)
    sens = exp.sensitivity
    out = [Arm(BASELINE)]
    for p in sens.params:
        v = lookup(raw, p)
        if not _number(v):
            raise InputError(f"sensitivity: {p} is {json.dumps(v)}, not a number")
        for sign, tag in ((-1, "down"), (1, "up")):
            nv = _nudge(v, sign, sens)
            out.append(Arm(f"{p} {tag}", (_set(p, nv),), {p: nv, "param": p, "direction": tag, "from": v}))
    for fam in sens.family:
        if not fam.params:
            for tag, sets in (("down", fam.down), ("up", fam.up)):
                out.append(Arm(f"{fam.name} {tag}", tuple(sets),
                               {fam.name: "; ".join(sets), "param": fam.name, "direction": tag, "from": "as given"}))
            continue
        paths = [q for pat in fam.params for q in expand(raw, pat)]
        if not paths:
            raise InputError(f"sensitivity: family {fam.name!r} matches no number in the ruleset")
        for sign, tag in ((-1, "down"), (1, "up")):
            out.append(Arm(f"{fam.name} {tag}", tuple(_set(q, _nudge(lookup(raw, q), sign, sens)) for q in paths),
                           {fam.name: f"each {'−' if sign < 0 else '+'}"
                                      + (_fmt(sens.step) if sens.step is not None else f"{sens.relative:.0%}"),
                            "param": fam.name, "direction": tag, "from": f"{len(paths)} numbers"}))
    return out


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _nudge(v, sign, sens):
    """``v`` one step down (sign -1) or up: by ``step``, or by ``relative`` of
    itself; an integer moves by the step rounded half up, at least 1."""
    step = sens.step if sens.step is not None else abs(v) * sens.relative
    if isinstance(v, int):
        step = max(1, int(step + 0.5))
    return v + sign * step


def expand(raw, pattern):
    """The dotted paths of the numbers ``pattern`` matches in a raw ruleset
    (``*`` is any one key or list position), in the file's order."""
    found = []

    def walk(node, parts, at):
        if not parts:
            if _number(node):
                found.append(".".join(at))
            return
        head, rest = parts[0], parts[1:]
        items = (enumerate(node) if isinstance(node, list) else node.items() if isinstance(node, dict) else ())
        for key, child in items:
            if head == "*" or head == str(key):
                walk(child, rest, at + [str(key)])

    walk(raw, pattern.split("."), [])
    return found


def _same(a, b):
    return isinstance(b, (int, float)) and not isinstance(b, bool) and abs(a - b) < 1e-12


def _product(grids):
    if len(grids) == 1:
        return [(v,) for v in grids[0]]
    return [(a, b) for a in grids[0] for b in grids[1]]


# ------------------------------------------------------------- playing --

def play_arm(payload, seed, first, n):
    """Batch-driver entry point: one batch of one arm's cell, tagged with the arm."""
    arm, play, inner = payload
    df = play(inner, seed, first, n)
    df.insert(0, "arm", arm)
    return df


@dataclass
class Runner:
    """Plays arms of an experiment on paired seeds; keeps every round's games
    on disk under ``out/data`` when ``out`` is given.

    Every round plays on the same worker processes (or Dask client), started
    by the first round that needs them and stopped by :meth:`close`: a tune
    plays tens of rounds, and starting the workers (each loading the engine)
    took about two seconds of every round. A round of one batch plays in
    this process, as any one-batch run does."""
    exp: Experiment
    game: object
    out: Path | None = None
    workers: int | None = None
    cluster: str | None = None
    progress: bool = False
    games: int | None = None          # the --games override
    command: str = ""
    note: object = None               # shows the user a line when the run seems stuck (simcore.batch.run)
    backend: object = field(default=None, init=False)   # the rounds' workers, from the first round on

    @property
    def n_games(self):
        return self.games or self.exp.games

    def plan(self, arm_list, games, first=0, base=None) -> driver.Plan:
        """One driver plan holding every arm's cells."""
        base = dict(self.exp.base if base is None else base)
        payloads, labels, batches, meta, isolate = [], [], [], {}, False
        for arm in arm_list:
            overrides = tuple(base.get("set", [])) + arm.overrides
            b = dict(base, params=",".join(repr(float(x)) for x in arm.params)) if arm.params else base
            try:
                p = self.game.plan(b, overrides, games, self.exp.seed, first, self.exp.batch)
            except InputError as e:
                raise InputError(f"arm {arm.name!r}: {e}") from None
            payloads += [(arm.name, self.game.play_batch, pl) for pl in p.payloads]
            labels += [dict(arm=arm.name, overrides=list(overrides), ruleset_hash=p.meta["ruleset_hash"], **lab)
                       for lab in p.labels]
            batches += p.batch
            meta = p.meta
            isolate |= p.isolate
        meta = dict(meta, experiment=self.exp.title, kind=self.exp.kind, command=self.command or " ".join(sys.argv))
        meta.pop("ruleset_hash", None)
        meta.pop("overrides", None)
        return driver.Plan(payloads, labels, self.exp.seed, games, batches, None, meta, first,
                           resume_hint="run the same experiment command again", isolate=isolate)

    def play(self, arm_list, games, first=0, tag="data", base=None) -> pd.DataFrame:
        """Play (or re-use from disk) games ``first .. first+games-1`` of every arm."""
        plan = self.plan(arm_list, games, first, base)
        if self.backend is None:
            self.backend = driver.backend(self.workers, self.cluster, plan.isolate)
        bar = self._bar(plan)
        try:
            if self.out is None:
                df, _ = driver.run(plan, play_arm, None, self.workers, self.cluster, bar, note=self.note,
                                   shared=self.backend)
                return df
            where = self.out / "data" / tag
            key = _plan_key(plan)
            resume = False
            if (where / store.RUN_FILE).exists():
                run = store.read_run(where)
                identity.check_same(run, plan.meta["package"], where, "re-use the games in")
                if run.get("key") != key:
                    raise InputError(f"{where}: holds games of another experiment (or other --games, or another ruleset); "
                                     "choose another --out (or delete that directory)")
                resume = True
                if run.get("complete"):
                    return store.read_dataset(where)
            plan.meta["key"] = key
            driver.run(plan, play_arm, where, self.workers, self.cluster, bar, resume=resume, note=self.note,
                       shared=self.backend)
            return store.read_dataset(where)
        finally:
            if bar is not None:
                bar.close()

    def close(self, cancel=False):
        """Stop the rounds' workers (``cancel``: at once, dropping any work)."""
        if self.backend is not None:
            self.backend.close(cancel)

    def _bar(self, plan):
        if not self.progress:
            return None
        from tqdm import tqdm
        return tqdm(total=0, unit="game", unit_scale=True, dynamic_ncols=True, file=sys.stderr,
                    desc=f"{len(plan.payloads)} cells", smoothing=0.1)


def _plan_key(plan):
    # the exact build does not matter, the behaviour version does (identity.check_same)
    rec = {k: v for k, v in plan.run_record().items() if k not in ("command", "engine_hash")}
    return hashlib.sha256(json.dumps(rec, sort_keys=True, default=str).encode()).hexdigest()[:16]


def measures_frame(df, game, names, keys) -> pd.DataFrame:
    """The rows reduced to arm, cell keys, game and one column per measure."""
    out = df[["arm", *keys, "game"]].copy()
    for n in names:
        out[n] = np.asarray(game.MEASURES[n][2](df), float)
    return out


def measure_names(exp, game):
    """The measures the report shows (the first is the primary one)."""
    names = exp.measures or list(game.DEFAULT_MEASURES)
    bad = [n for n in names if n not in game.MEASURES]
    if bad:
        raise InputError(f"measures: unknown measure {bad[0]!r} (choose from {', '.join(game.MEASURES)})")
    for kind in ("tune", "policy_tune"):
        m = getattr(exp, kind).measure if exp.kind == kind else None
        if m is not None and m not in game.MEASURES:
            raise InputError(f"{kind}.measure: unknown measure {m!r} (choose from {', '.join(game.MEASURES)})")
        if m is not None and not game.MEASURES[m][0]:
            rates = [n for n, v in game.MEASURES.items() if v[0]]
            raise InputError(f"{kind}.measure: {m!r} is a count per game, not a 0/1 outcome, so it has "
                             f"no rate to aim at (use one of {', '.join(rates)})")
    return names


@dataclass
class Result:
    """What an experiment produced: its games (as measures), the paired
    comparison table, and for a tune the solutions."""
    exp: Experiment
    arms: list
    frame: pd.DataFrame
    keys: list
    measures: list
    comparisons: pd.DataFrame
    rounds: list = field(default_factory=list)     # (games per cell, max half-width) under target_ci
    tune: list = field(default_factory=list)       # per target: dict with tries, solution
    dataset: Path | None = None


def run(exp: Experiment, game, out=None, workers=None, cluster=None, progress=False, games=None,
        command="", note=None) -> Result:
    """Play the experiment and compare every arm with the baseline. With
    ``out`` (a path, or a directory already held as the tool's own:
    simcore.outdir) the games land in ``out/data``."""
    from .outdir import Owned, owned
    if out is not None and not isinstance(out, Owned):
        with owned(out, "experiment --out") as held:
            return run(exp, game, held, workers, cluster, progress, games, command, note)
    names = measure_names(exp, game)
    if out is not None:
        out.datasets("data")            # the arms' games, one dataset per round
    runner = Runner(exp, game, out.path if out else None, workers, cluster, progress, games, command, note)
    try:
        result = _run(exp, game, runner, names)
    except BaseException:
        runner.close(cancel=True)       # Ctrl-C or a failure between rounds: stop the workers at once
        raise
    runner.close()
    return result


def _run(exp, game, runner, names) -> Result:
    """:func:`run` with its runner."""
    keys = list(game.CELL)
    binary = {n: game.MEASURES[n][0] for n in names}
    if exp.kind == "tune":
        return _run_tune(exp, game, runner, names, keys, binary)
    if exp.kind == "policy_tune":
        return _run_policy_tune(exp, game, runner, names, keys, binary)
    arm_list = arms(exp, game)
    frames, rounds = [], []
    total, cap = 0, runner.n_games
    size = cap if exp.target_ci is None else min(cap, max(FIRST_ROUND, exp.batch or 0))
    k = 0
    while total < cap:
        k += 1
        tag = "data" if exp.target_ci is None else f"round-{k:02d}"
        frames.append(measures_frame(runner.play(arm_list, size, total, tag), game, names, keys))
        total += size
        if exp.target_ci is None:
            break
        frame = pd.concat(frames, ignore_index=True)
        comp = paired.table(frame, {names[0]: binary[names[0]]}, keys, pooled=False)
        worst = float(comp["half_width"].max())
        rounds.append((total, worst))
        if worst <= exp.target_ci:
            break
        size = min(total, cap - total)       # double the games each round
    frame = pd.concat(frames, ignore_index=True)
    comp = paired.table(frame, binary, keys)
    return Result(exp, arm_list, frame, keys, names, comp, rounds,
                  dataset=runner.out / "data" if runner.out else None)


def _run_tune(exp, game, runner, names, keys, binary) -> Result:
    """Bisection on each target's parameter; every try plays the same games."""
    measure = exp.tune.measure
    raw = base_raw(exp, game)
    check_tune(exp, runner, raw)
    solutions, frames = [], []
    for i, t in enumerate(exp.tune.target):
        cur = lookup(raw, t.param)
        integer = isinstance(cur, int) and all(isinstance(x, int) for x in t.range)
        base = dict(exp.base, **t.cell)
        tries = {}

        def rate_at(v, i=i, t=t, base=base, tries=tries):
            if v not in tries:
                arm = Arm(f"{t.param}={_fmt(v)}", (_set(t.param, v),), {t.param: v})
                df = runner.play([arm], runner.n_games, 0, f"tune-{i + 1:02d}-{_fmt(v)}", base)
                m = measures_frame(df, game, names, keys)
                m["target"] = t.name or t.param
                frames.append(m)
                r, lo, hi = paired.mean_interval(m[measure], binary.get(measure, True))
                tries[v] = (r, lo, hi, len(m))
            return tries[v][0]

        lo, hi = t.range
        r_lo, r_hi = rate_at(lo), rate_at(hi)
        up = r_hi >= r_lo                      # the rate rises with the parameter
        tol = 1 if integer else (exp.tune.tolerance or (hi - lo) / 64)
        reachable = min(r_lo, r_hi) <= t.rate <= max(r_lo, r_hi)
        if reachable:
            while hi - lo > tol:
                mid = (lo + hi) // 2 if integer else (lo + hi) / 2
                if (rate_at(mid) < t.rate) == up:
                    lo = mid
                else:
                    hi = mid
        best = min(tries, key=lambda v: (abs(tries[v][0] - t.rate), v))
        solutions.append(dict(name=t.name or t.param, param=t.param, cell=t.cell, target=t.rate, current=cur,
                              value=best, rate=tries[best][0], ci95_low=tries[best][1], ci95_high=tries[best][2],
                              games=tries[best][3], reachable=reachable,
                              tries=sorted((v, *x) for v, x in tries.items())))
    frame = pd.concat(frames, ignore_index=True)
    return Result(exp, [], frame, keys, names, pd.DataFrame(), [], solutions,
                  runner.out / "data" if runner.out else None)


def check_tune(exp, runner, raw):
    """Every tune target checked before any game is played: its parameter is
    a number of the ruleset, its cell is made of base keys, and the ruleset
    is valid at both ends of its range (so no try is refused half-way)."""
    for i, t in enumerate(exp.tune.target):
        where = f"tune.target.{i}"
        cur = lookup(raw, t.param)
        if isinstance(cur, bool) or not isinstance(cur, (int, float)):
            raise InputError(f"{where}.param: {t.param} is {json.dumps(cur)}, not a number")
        base = dict(exp.base, **t.cell)
        for end, v in zip(("low", "high"), t.range):
            try:
                runner.plan([Arm(f"{t.param}={_fmt(v)}", (_set(t.param, v),))], 2, 0, base)
            except InputError as e:
                raise InputError(f"{where}.range: the {end} end {_fmt(v)} is not a valid {t.param} "
                                 f"({str(e).splitlines()[0]})") from None


def policy_grid(exp: Experiment, game):
    """(policy name, parameter names, starting values, tuned indices, grids)
    of a policy_tune, checked before any game is played."""
    pt = exp.policy_tune
    policy, names, defaults, ranges = game.policy_info(exp.base)
    given = base_params(exp.base)
    if given and len(given) != len(names):
        raise InputError(f"base.params: policy {policy} takes {len(names)} parameter(s) ({', '.join(names)})")
    start = list(given or defaults)
    unknown = [p for p in pt.params if p not in names]
    if unknown:
        raise InputError(f"policy_tune.params.{unknown[0]}: policy {policy} has no such parameter "
                         f"(it takes {', '.join(names) or 'none'})")
    for p, vals in pt.params.items():
        lo, hi = ranges.get(p, (-math.inf, math.inf))
        bad = [v for v in vals if not lo <= v <= hi]
        if bad:
            raise InputError(f"policy_tune.params.{p}: {bad[0]:g} is outside the parameter's range {lo:g} – {hi:g}")
    idx = [names.index(p) for p in pt.params]
    grids = [list(pt.params[p]) for p in pt.params]
    return policy, list(names), start, idx, grids


def _run_policy_tune(exp, game, runner, names, keys, binary) -> Result:
    """NTBEA over the policy's parameter grid, then the recommendation and the
    starting parameters on fresh paired games."""
    from .ntbea import NTBEA
    pt = exp.policy_tune
    policy, pnames, start, idx, grids = policy_grid(exp, game)
    measure = pt.measure
    per_eval = min(pt.games_per_eval, runner.n_games)    # --games caps the search's games too

    def params_of(point):
        v = list(start)
        for k, (i, j) in enumerate(zip(idx, point)):
            v[i] = grids[k][j]
        return tuple(v)

    # start the search at the grid point nearest the starting parameters
    first_point = tuple(min(range(len(g)), key=lambda j, g=g, i=i: abs(g[j] - start[i])) for g, i in zip(grids, idx))
    search = NTBEA([len(g) for g in grids], seed=exp.seed, k=pt.k, neighbours=pt.neighbours, start=first_point)
    trace = []
    step = 0
    while search.n < pt.budget:
        points = search.propose(min(pt.batch, pt.budget - search.n))
        arm_list = [Arm(f"try-{search.n + j + 1:04d}", params=params_of(x)) for j, x in enumerate(points)]
        df = runner.play(arm_list, per_eval, step * per_eval, f"search-{step + 1:04d}")
        m = measures_frame(df, game, [measure], keys)
        for arm, x in zip(arm_list, points):
            f = float(m.loc[m["arm"] == arm.name, measure].mean())
            search.update(x, f)
            trace.append(dict(eval=len(trace) + 1, step=step + 1, fitness=f, games=int((m["arm"] == arm.name).sum()),
                              **{pnames[i]: v for i, v in enumerate(arm.params) if i in idx}))
        step += 1
    best = search.recommend()
    tuned = params_of(best)
    est, _ = search.estimate(best)
    # the check: fresh games after every game the search played, paired
    base_arm = Arm(BASELINE, params=tuple(start))
    check = [base_arm] + ([Arm("tuned", params=tuned)] if tuned != tuple(start) else [])
    first = step * per_eval
    df = runner.play(check, runner.n_games, first, "check")
    frame = measures_frame(df, game, names, keys)
    comp = paired.table(frame, binary, keys) if len(check) > 1 else pd.DataFrame()
    info = dict(policy=policy, names=pnames, start=list(start), tuned=list(tuned), tuned_names=[pnames[i] for i in idx],
                games_per_eval=per_eval,
                estimate=est, evaluations=search.n, check_first=first, trace=trace,
                grids={pnames[i]: g for i, g in zip(idx, grids)})
    return Result(exp, check, frame, keys, names, comp, [], [info],
                  runner.out / "data" if runner.out else None)
