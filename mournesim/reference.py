"""MourneQuest reference games for the golden test (``simcore.golden``).

Every built-in policy at every level and player count, cells with every
ruleset toggle flipped, and the rollout and expert searches: if any of these games
changes, play has changed, and ``BEHAVIOUR_VERSION`` must say so.
"""
from __future__ import annotations

from . import layout as L
from .sim import Config, prepare, run_games

GAMES = 20          # per heuristic cell: enough to reach every rule, cheap to play
SEED = 20261201
SEARCH_GAMES = 8    # the expert's: enough to reach a Final Battle race its answer loses


def games():
    """``(result columns, {reference name: int rows})`` of the reference games."""
    rules = prepare()
    out = {}
    for pol in ("random", "greedy", "planner"):
        for lv in L.LEVEL_NAMES:
            for p in (1, 2, 3, 4):
                out[f"{pol}/{lv}/{p}p"] = run_games(rules, Config(level=lv, players=p, policy=pol), SEED, 0, GAMES)
    flipped = prepare(overrides=tuple(f"toggles.{k}={'false' if v else 'true'}"
                                      for k, v in rules.ruleset.toggles.model_dump().items()))
    for pol in ("greedy", "planner"):
        for p in (1, 4):
            out[f"{pol}/hard/{p}p/toggles-flipped"] = run_games(flipped, Config(level="hard", players=p, policy=pol),
                                                                SEED, 0, GAMES)
    for pol, n in (("rollout", 2), ("expert", SEARCH_GAMES)):
        out[f"{pol}/medium/4p"] = run_games(rules, Config(level="medium", players=4, policy=pol), SEED, 0, n)
    return L.RESULT_COLUMNS, out
