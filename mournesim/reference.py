"""MourneQuest reference games for the golden test (``simcore.golden``).

Every built-in policy at every level and player count, one cell with every
ruleset toggle flipped, the rollout search, and byte-exact replays: if any
of these games changes, play has changed, and ``BEHAVIOUR_VERSION`` must say so.
"""
from __future__ import annotations

from simcore.golden import digest_array
from . import layout as L
from .sim import Config, prepare, replay, run_games

GAMES = 20          # per heuristic cell: enough to reach every rule, cheap to play
SEED = 20261201


def digests() -> dict:
    """``{reference name: sha256}`` of the reference games' rows and logs."""
    rules = prepare()
    out = {}
    for pol in ("random", "greedy", "planner"):
        for lv in L.LEVEL_NAMES:
            for p in (1, 2, 3, 4):
                rows = run_games(rules, Config(level=lv, players=p, policy=pol), SEED, 0, GAMES)
                out[f"{pol}/{lv}/{p}p"] = digest_array(rows)
        rp = replay(seed=SEED, game=3, level="hard", players=2, policy=pol, rules=rules)
        final = rp.final_state.copy()
        final[[L.G_LOG, L.G_LOGN, L.G_SNAPN]] = 0      # how much was logged is not play
        out[f"{pol}/replay-final-state"] = digest_array(final)
    flipped = prepare(overrides=tuple(f"toggles.{k}={'false' if v else 'true'}"
                                      for k, v in rules.ruleset.toggles.model_dump().items()))
    for pol in ("greedy", "planner"):
        for p in (1, 4):
            rows = run_games(flipped, Config(level="hard", players=p, policy=pol), SEED, 0, GAMES)
            out[f"{pol}/hard/{p}p/toggles-flipped"] = digest_array(rows)
    rows = run_games(rules, Config(level="medium", players=4, policy="rollout"), SEED, 0, 2)
    out["rollout/medium/4p"] = digest_array(rows)
    return out
