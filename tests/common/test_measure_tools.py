"""The measuring tools: the yardstick ``bench`` divides by (a fixed
workload, so a ratio compares across machines and days) and the kernel
profiler's reading of numba's symbol names. Speed itself is never asserted."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from simcore import profile, yardstick


def test_the_yardstick_workload_never_changes():
    """Its checksum for a fixed seed is pinned: a change to the workload would
    make every ratio measured before it incomparable."""
    state = np.arange(64, dtype=np.int32)
    assert yardstick._steps(state, 100_000, 1) == yardstick._steps(np.arange(64, dtype=np.int32), 100_000, 1)
    assert yardstick._steps(np.arange(64, dtype=np.int32), 100_000, 1) == 12678878
    assert yardstick.steps_per_second(steps=100_000, repeats=1) > 0


def test_numba_symbol_names_read_as_module_and_function():
    mangled = "_ZN8questsim6scores11fight_valueB4v230B40c8tJTIeFIjxB2IKSgI4CrvSCKg1MMVC_2fAwA_3dE5ArrayIiLi1E1C7m"
    assert profile._demangle(mangled) == "questsim.scores.fight_value"
    assert profile._demangle("cfunc." + mangled) == "cfunc questsim.scores.fight_value"
    assert profile._demangle("NRT_decref") == "NRT_decref"


def test_an_unknown_game_is_one_line_and_exit_2():
    r = subprocess.run([sys.executable, "-m", "simcore.profile", "chess", "greedy"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["profile: error: unknown game 'chess' (one of mournequest, questmaster)"]
