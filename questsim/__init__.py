"""Quest Master balance simulator: the game's ruleset data (designer-editable
TOML with provenance), its strict validation and the ``questsim`` command line.

The engine, policies and reports are built on top of ``questsim.ruleset``;
rule IDs QM-* refer to shared/rules/questmaster-rules.md and the QM-GAP
rulings to docs/questmaster/rulings.md.
"""
from pathlib import Path as _Path

from simcore import __version__  # noqa: F401  (one version for the whole distribution)
from simcore import jitcache as _jitcache

# Changes exactly when the games played change (rules, policies, random
# streams); guarded by tests/golden/questsim.json (simcore.golden). History:
#   1  the first engine (2026-12-01)
#   2  the duel ends when the side due cannot pay, the Yellow Bird Shoe as
#      ruled (any player), character kits on one budget, policies that weigh
#      declining
#   3  greedy and the planner aim their fights (leader, near an Hp win,
#      killable), choose the Shoe with the move, pay for no shield that
#      cannot matter, (planner) weigh a warp by where the walk ends; defaults
#      tuned by NTBEA; the v2 players kept as greedy_v2 / planner_v2
#   4  the literal reading of the Yellow Bird Shoe (QM-GAP-49 with
#      QM-GAP-18): only the roller plays one, on their own roll
#   5  greedy and the planner take a win the rules make certain at once
#      (they turned down a sure fifth castle about twice in 100 games) and
#      add no At-only attack card into a sure block (the Ghost's Vanish with
#      Mp of no other use); the v2 players unchanged
#   6  the expert search player (expert.py); every other policy's games
#      unchanged (rollout's searches share its code now, same games)
#   7  the expert searches the endgame only (a seat still playing within 80%
#      of a win), each movement choice there at 16 times the budget; every
#      other policy's games unchanged
BEHAVIOUR_VERSION = 7

# The engine's source files. numba checks a cached kernel only against its own
# file, so the guard clears every cached kernel when any of these (or simcore's
# kernels) changes, and a plug-in's entry point is keyed on them (plugins.py).
# (engine.py only gathers names from the rule modules: it holds no kernel.)
ENGINE_SOURCES = ("constants.py", "layout.py", "tables.py", "blunders.py", "decision.py", "scores.py", "policies.py",
                  "entries.py", "core.py", "hand.py", "life.py", "combat.py", "movement.py", "effects.py", "turn.py",
                  "game.py", "rollout.py", "expert.py")
# the players among them: the rules ask a player only through the decision
# port (decision.py) and import none of these (tests/common/test_structure.py)
PLAYER_SOURCES = ("scores.py", "policies.py", "entries.py", "rollout.py", "expert.py")

_here = _Path(__file__).parent
_jitcache.guard_engine(_here, ENGINE_SOURCES)
