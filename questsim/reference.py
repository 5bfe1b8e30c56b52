"""Quest Master reference games for the golden test (``simcore.golden``).

Every built-in policy at every player count, a mixed table, cells with every
ruleset toggle flipped, and the rollout and expert searches: if any of these games
changes, play has changed, and ``BEHAVIOUR_VERSION`` must say so.
"""
from __future__ import annotations

from . import layout as L
from .policies import BUILTIN_POLICIES
from .sim import Config, prepare, run_games

GAMES = 40
SEED = 20261201


def games():
    """``(result columns, {reference name: int rows})`` of the reference games."""
    rules = prepare()
    out = {}
    r = rules.ruleset.rules
    for _pid, pol, _n, _d in BUILTIN_POLICIES:
        for p in range(r.min_players, r.max_players + 1):
            out[f"{pol}/{p}p"] = run_games(rules, Config(p, (), (pol,)), SEED, 0, GAMES)
    out["mixed/4p"] = run_games(rules, Config(4, (), ("planner", "greedy", "random", "planner")), SEED, 0, GAMES)
    flipped = prepare(overrides=tuple(f"toggles.{k}={'false' if v else 'true'}"
                                      for k, v in rules.ruleset.toggles.model_dump().items()))
    for pol in ("greedy", "planner"):
        for p in (2, 6):
            out[f"{pol}/{p}p/toggles-flipped"] = run_games(flipped, Config(p, (), (pol,)), SEED, 0, GAMES)
    for pol in ("rollout", "expert"):
        out[f"{pol}/4p"] = run_games(rules, Config(4, (), (pol, "greedy", "greedy", "greedy")), SEED, 0, 2)
    return L.RESULT_COLUMNS, out
