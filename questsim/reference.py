"""Quest Master reference games for the golden test (``simcore.golden``).

Every built-in policy at every player count, a mixed table, one cell with
every ruleset toggle flipped, the rollout search, and the final position of a
logged game: if any of these games changes, play has changed, and
``BEHAVIOUR_VERSION`` must say so. Only play is digested, not the wording of
the log, so a clearer replay text is not a change of play.
"""
from __future__ import annotations

from simcore.golden import digest_array
from . import layout as L
from .policies import BUILTIN_POLICIES
from .replay import replay
from .sim import Config, prepare, run_games

GAMES = 40
SEED = 20261201


def digests() -> dict:
    """``{reference name: sha256}`` of the reference games' rows and final positions."""
    rules = prepare()
    out = {}
    names = [name for _pid, name, _n, _d in BUILTIN_POLICIES]
    for pol in names:
        for p in range(rules.ruleset.rules.min_players, rules.ruleset.rules.max_players + 1):
            out[f"{pol}/{p}p"] = digest_array(run_games(rules, Config(p, (), (pol,)), SEED, 0, GAMES))
        rp = replay(seed=SEED, game=3, players=4, policies=(pol,), rules=rules)
        final = rp.final_state.copy()
        final[[L.G_LOG, L.G_LOGN]] = 0      # how much was logged is not play
        out[f"{pol}/replay-final-state"] = digest_array(final)
    mixed = ("planner", "greedy", "random", "planner")
    out["mixed/4p"] = digest_array(run_games(rules, Config(4, (), mixed), SEED, 0, GAMES))
    flipped = prepare(overrides=tuple(f"toggles.{k}={'false' if v else 'true'}"
                                      for k, v in rules.ruleset.toggles.model_dump().items()))
    for pol in ("greedy", "planner"):
        for p in (2, 6):
            out[f"{pol}/{p}p/toggles-flipped"] = digest_array(run_games(flipped, Config(p, (), (pol,)), SEED, 0, GAMES))
    out["rollout/4p"] = digest_array(run_games(rules, Config(4, (), ("rollout", "greedy", "greedy", "greedy")),
                                               SEED, 0, 2))
    return out
