"""MourneQuest balance simulator: ruleset data, numba engine, policies, reports."""
from pathlib import Path as _Path

from simcore import __version__  # noqa: F401  (one version for the whole distribution)
from simcore import jitcache as _jitcache

# Changes exactly when the games played change (rules, policies, random
# streams); guarded by tests/golden/mournesim.json (simcore.golden). History:
#   1  the first engine (2026-12-01)
#   2  the literal readings (MQ-GAP-21, -26, -27, -34, -36, -49, -60, a
#      fumble stands), the planner/greedy step off and back onto a Nexus
#   3  the planner plays the whole game (parts post, repair, trade,
#      talisman, skills, late; passes off) and greedy keeps Talismans for the
#      wall (its part talisman); all of them at 0 replay v2 exactly
#      (tests/golden/mournesim-v2.json, tests/mournequest/test_planner.py)
#   4  the planner's risk 0.45 (v3: 0.55, plan.PLANNER_V3), from the tuning
#      run experiments/mq-planner-tune.toml; with assign 0 its trade errand
#      buys what the team (not one Disc) misses
#   5  the literal readings of MQ-GAP-32 (the Shimnavore always uses its
#      strongest Ability) and MQ-GAP-50 (no tiles return to an exhausted
#      bag); a Nightmare waiting on its Disc in the Final Battle is in play
#      (MQ-FINAL-05) and, emerging late, only arrives that round (MQ-GAP-26)
#   6  greedy and the planner without the blunders the audit sees (audit.py):
#      no reaction on a roll nothing on offer can win, no charm found by a
#      Skill discarded that turn, no move straight back; the planner's Granite
#      carrier rebuilds a damaged section in reach before taking a post
#   7  the expert search player (expert.py); every other policy's games
#      unchanged (rollout's searches share its code now, same games)
#   8  the expert's default budget 0.5 (one won future keeps the planner's
#      answer); budgets from 1 up and every other policy's games unchanged
#   9  the expert compares a Final Battle decision at budget 16 at least (its
#      futures there are short); every other policy's games unchanged
BEHAVIOUR_VERSION = 9

# The engine's source files. numba checks a cached kernel only against its own
# file, so the guard clears every cached kernel when any of these (or simcore's
# kernels) changes, and a plug-in's entry point is keyed on them (plugins.py).
ENGINE_SOURCES = ("constants.py", "layout.py", "tables.py", "core.py", "audit.py", "odds.py", "decision.py",
                  "scores.py", "plan.py", "plan_parts.py", "policies.py", "entries.py", "effects.py", "combat.py",
                  "enemies.py", "final.py", "rules.py", "game.py", "rollout.py", "expert.py")
# the players among them: the rules ask a player only through the decision
# port (decision.py) and import none of these (tests/common/test_structure.py)
PLAYER_SOURCES = ("scores.py", "plan.py", "plan_parts.py", "policies.py", "entries.py", "rollout.py", "expert.py")

_here = _Path(__file__).parent
_jitcache.guard_engine(_here, ENGINE_SOURCES)
