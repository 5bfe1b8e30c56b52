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

This module reads a file into an :class:`Experiment` and its arms; playing
them and reading the result is ``simcore.experiment_play``.

A game plugs in through an adapter module (``mournesim.experiment``,
``questsim.experiment``) with: ``GAME``, ``PROG``, ``BASE`` (the base keys and
their defaults), ``CELL`` (the columns that tell cells apart), ``MEASURES``
(name -> (is 0/1, description, function of the rows)), ``DEFAULT_MEASURES``,
``load_raw(path)``, ``plan(base, overrides, games, seed, first, batch)``,
``play_batch`` and ``policy_info(base)`` (the tuned policy's name, parameter
names and defaults).
"""
from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import InputError
from .inputs import MAX_BATCH, load_toml, parse_floats
from .rulesets import format_errors

BASELINE = "baseline"


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


def value_text(v):
    """A swept or tuned value as an arm's name shows it (``2``, ``0.45``)."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def _short(path):
    return ".".join(path.split(".")[-2:])


def override(path, v):
    """The ``--set`` override putting value ``v`` at ``path``."""
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
            name = BASELINE if is_base else ", ".join(f"{_short(p)}={value_text(v)}" for p, v in vals.items())
            seen_base |= is_base
            out.append(Arm(name, () if is_base else tuple(override(p, v) for p, v in vals.items()), vals))
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
            out.append(Arm(f"{p} {tag}", (override(p, nv),), {p: nv, "param": p, "direction": tag, "from": v}))
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
            out.append(Arm(f"{fam.name} {tag}", tuple(override(q, _nudge(lookup(raw, q), sign, sens)) for q in paths),
                           {fam.name: f"each {'−' if sign < 0 else '+'}"
                                      + (value_text(sens.step) if sens.step is not None else f"{sens.relative:.0%}"),
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
