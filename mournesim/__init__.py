"""MourneQuest balance simulator: ruleset data, numba engine, policies, reports."""
from pathlib import Path as _Path

from simcore import jitcache as _jitcache

__version__ = "0.1.0"

_here = _Path(__file__).parent
_core = _Path(_jitcache.__file__).parent
_jitcache.guard([_here, _core],
                [_here / f for f in ("layout.py", "tables.py", "core.py", "odds.py", "policies.py", "effects.py",
                                     "combat.py", "enemies.py", "final.py", "rules.py", "game.py")]
                + [_core / "rng.py"])
