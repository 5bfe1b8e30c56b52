"""MourneQuest grid runs: the product of levels × player counts × policies,
played by simcore.grid (in batches on every core or a Dask cluster, into
memory or a Parquet dataset, resumable; docs/common/results.md). This module parses
MourneQuest's axes into cells.

    >>> from mournesim import batch
    >>> df, cells = batch.run_grid(games=2000, levels=("easy", "hard"), players=(1, 4))
"""
from __future__ import annotations

from simcore import batch as driver
from simcore import grid
from simcore.errors import InputError
from . import plugins
from .gamedef import GAME
from .ruleset import normalise_level
from .sim import Config, Rules, prepare

LEVELS = ("easy", "medium", "hard")
HEURISTIC = ("random", "greedy", "planner")   # what ``--policy all`` means
DEFAULT_BATCH = GAME.default_batch
play_batch = grid.play_batch   # the workers' entry point (simcore.grid)


def parse_list(text, kind):
    """``"a,b"`` or ``"all"`` → tuple of values for ``--level/--players/--policy``."""
    text = str(text).strip().lower()
    if kind == "level":
        try:
            vals = LEVELS if text == "all" else tuple(dict.fromkeys(normalise_level(x.strip()) for x in text.split(",")))
        except InputError as e:
            raise InputError(f"--level: {e}") from None
    elif kind == "players":
        if text == "all":
            return (1, 2, 3, 4)
        try:
            vals = tuple(dict.fromkeys(int(x) for x in text.split(",")))
        except ValueError:
            raise InputError(f"--players {text!r}: expected 1-4, a comma list like 1,4, or all") from None
        bad = [p for p in vals if not 1 <= p <= 4]
        if bad:
            raise InputError(f"--players {bad[0]}: MourneQuest takes 1 to 4 players")
    else:
        vals = HEURISTIC if text == "all" else tuple(dict.fromkeys(x.strip() for x in text.split(",")))
        for v in vals:
            plugins.get(v)   # unknown policy: bad input
    if not vals or "" in vals:
        raise InputError(f"--{kind}: empty value")
    return vals


def replay(**kw):
    """``replay.replay(**kw)``; the game of a plug-in policy (user code that may
    never return) is played in a child process, so Ctrl-C stops it at once."""
    return grid.replay(GAME, (kw.get("policy", "greedy"),), kw)


def make_plan(games=10_000, seed=1, levels=("medium",), players=(4,), policies=("greedy",), heroes=(),
              params=(), rules: Rules | None = None, ruleset=None, overrides=(), batch=None,
              target_ci=None, command=None, first=0) -> driver.Plan:
    """The cells of the grid (checked before anything runs) and the run's
    metadata; the games are ``first .. first+games-1`` of each cell."""
    rules = rules or prepare(ruleset, overrides)
    if heroes and len(players) > 1:
        raise InputError("--heroes with a fixed list needs a single --players value")
    if params and len(policies) > 1:
        raise InputError("--params sets one policy's parameters: give a single --policy")
    grid.check_target(target_ci)
    cells = []
    for pol in policies:
        info = plugins.get(pol)
        for lv in levels:
            for p in players:
                cfg = Config(level=lv, players=p, heroes=tuple(heroes), policy=pol, params=tuple(params))
                cfg.resolved(rules)   # bad heroes/params fail here, before any game
                # the parameters (pp less a plug-in's memory and an entry point's address)
                cells.append((cfg, dict(level=lv, players=p, policy=pol,
                                        params=[float(x) for x in params or info.defaults],
                                        param_names=list(info.param_names), heroes=list(heroes) or "random"),
                              batch or info.meta.get("batch", DEFAULT_BATCH)))
    return grid.plan(GAME, rules, cells, games, seed, ruleset, overrides, target_ci, command, first)


def plan_from_run(run: dict, rules: Rules | None = None) -> driver.Plan:
    """Rebuild the plan of a stored run (for ``--resume``), checking that the
    ruleset and plug-ins still give the same games."""
    return grid.plan_from_run(GAME, run, rules)


def run_grid(games=10_000, seed=1, levels=("medium",), players=(4,), policies=("greedy",), heroes=(),
             params=(), rules=None, ruleset=None, overrides=(), batch=None, target_ci=None, out=None,
             workers=None, cluster=None, progress=None, command=None, note=None):
    """Plan and play a grid; returns ``(frame or None, cells)`` where
    ``cells`` is a list of (label dict, games, wins). ``note``: shows the
    user a line when the run seems stuck (simcore.batch.run)."""
    plan = make_plan(games, seed, levels, players, policies, heroes, params, rules, ruleset, overrides,
                     batch, target_ci, command)
    return grid.run(plan, out, workers, cluster, progress, note)


def resume(out, workers=None, cluster=None, progress=None, note=None):
    """Finish the interrupted run in ``out``; returns its cells like run_grid."""
    return grid.resume(GAME, out, workers, cluster, progress, note)
