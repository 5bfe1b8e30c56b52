"""Quest Master grid runs: player counts × policy tables, played by
simcore.grid (in batches on every core or a Dask cluster, into memory or a
Parquet dataset, resumable; docs/common/results.md). This module parses Quest
Master's axes into cells.

A policy table is one policy for every seat (``greedy``) or one per seat
joined by ``+`` (``greedy+random+random+random``).
"""
from __future__ import annotations

from simcore import batch as driver
from simcore import grid
from simcore.errors import InputError
from . import plugins
from .gamedef import GAME
from .sim import Config, Rules, prepare

DEFAULT_BATCH = GAME.default_batch
play_batch = grid.play_batch   # the workers' entry point (simcore.grid)


def parse_players(text, rules: Rules):
    """``--players 4``, ``2,3,6`` or ``all`` → tuple of counts."""
    r = rules.ruleset.rules
    text = str(text).strip().lower()
    if text == "all":
        return tuple(range(r.min_players, r.max_players + 1))
    try:
        vals = tuple(dict.fromkeys(int(x) for x in text.split(",")))
    except ValueError:
        raise InputError(f"--players {text!r}: expected a count, a comma list like 2,4,6, or all") from None
    for p in vals:
        if not r.min_players <= p <= r.max_players:
            raise InputError(f"--players {p}: Quest Master takes {r.min_players} to {r.max_players} players")
    return vals


def parse_tables(text):
    """``--policy greedy,random`` (alternatives) with ``+`` for per-seat tables."""
    text = str(text).strip().lower()
    if text == "all":
        return (("random",), ("greedy",), ("planner",))
    tables = []
    for alt in text.split(","):
        seats = tuple(x.strip() for x in alt.split("+"))
        for name in seats:
            plugins.get(name)    # unknown: one clear line
        tables.append(seats)
    return tuple(dict.fromkeys(tables))


def replay(**kw):
    """``questsim.replay.replay(**kw)``; a table with a plug-in policy (user
    code that may never return) is played in a child process, so Ctrl-C
    stops it at once."""
    return grid.replay(GAME, tuple(kw.get("policies", ("greedy",))), kw)


def make_plan(games=10_000, seed=1, players=(4,), tables=(("greedy",),), characters=(), params=(),
              rules: Rules | None = None, ruleset=None, overrides=(), batch=None, target_ci=None,
              command=None, first=0) -> driver.Plan:
    """The cells of the grid, checked before anything runs; the games are
    ``first .. first+games-1`` of each cell."""
    rules = rules or prepare(ruleset, overrides)
    if characters and len(players) > 1:
        raise InputError("--characters with a fixed list needs a single --players value")
    if params and len(tables) > 1:
        raise InputError("--params sets one policy's parameters: give a single --policy")
    grid.check_target(target_ci)
    cells = []
    for tab in tables:
        for p in players:
            if len(tab) not in (1, p):
                raise InputError(f"--policy {'+'.join(tab)}: {len(tab)} seats given for {p} players")
            cfg = Config(players=p, characters=tuple(characters), policies=tab, params=tuple(params))
            cfg.resolved(rules)
            cells.append((cfg, dict(players=p, policy="+".join(tab), characters=list(characters) or "random",
                                    params=list(params)), batch or DEFAULT_BATCH))
    return grid.plan(GAME, rules, cells, games, seed, ruleset, overrides, target_ci, command, first)


def plan_from_run(run: dict) -> driver.Plan:
    """Rebuild the plan of a stored run (``--resume``); the ruleset must
    still hash the same."""
    return grid.plan_from_run(GAME, run)


def run_grid(out=None, workers=None, cluster=None, progress=None, note=None, **kw):
    """Plan (``make_plan`` keywords) and play a grid; returns ``(frame or
    None, cells)`` with ``cells`` a list of (label, games, games decided).
    ``note``: shows the user a line when the run seems stuck."""
    return grid.run(make_plan(**kw), out, workers, cluster, progress, note)


def resume(out, workers=None, cluster=None, progress=None, note=None):
    """Finish the interrupted run in ``out``."""
    return grid.resume(GAME, out, workers, cluster, progress, note)
