"""pytest set-up for the whole suite: both engines compiled once, side by
side, before any test; the session's plug-in cache. The tests are in
``common/`` (contracts over both games, the shared machinery, simcore),
``mournequest/`` and ``questmaster/``; each game's fixtures are in its
folder's ``conftest.py`` and its position helpers in ``mq_game.py`` /
``mq_positions.py`` and ``qm_game.py``."""
from __future__ import annotations

import pytest


# ---- one compile of each engine, both at once ---------------------------------

_WARM = {
    "mournesim": "from mournesim import sim; sim.simulate(games=1, players=2); sim.replay(players=2); "
                 "sim.simulate(games=1, players=2, policy='rollout')",
    "questsim": "from questsim import sim, replay; sim.simulate(games=1, players=2); replay.replay(players=2); "
                "sim.simulate(games=1, players=2, policies=('rollout',)); "
                # the rule tests call these inlined kernels from Python, which
                # compiles each on its own (about 30 s for take_turn): done here,
                # in the time the Quest Master engine finishes before MourneQuest's
                "from numba import types as t; from questsim import engine as E; "
                "A = lambda d, n=1: t.Array(d, n, 'C'); "
                "sig = (A(t.int32), A(t.int32), A(t.int32, 2), A(t.uint64), A(t.int32), A(t.float64, 2), t.int64); "
                "[f.compile(sig) for f in (E.take_turn, E.duel, E.resolve)]",
}


def pytest_sessionstart(session):
    """Compile (or load from numba's cache) both games' engines in two
    processes side by side before any test runs: on a clean checkout each
    engine compiles once, on its own core, and every test process (xdist
    workers included) then loads it from the cache instead of compiling the
    same kernels again."""
    import subprocess
    import sys
    import time
    if hasattr(session.config, "workerinput"):      # an xdist worker: the controller did it
        return
    import os
    import tempfile
    # plug-ins (rollout included) compile into one directory for the whole
    # session, workers included, never into the user's ~/.cache
    root = tempfile.mkdtemp(prefix="simtest-plugins-")
    for var in ("MOURNESIM_CACHE", "QUESTSIM_CACHE"):
        os.environ.setdefault(var, root)
    t = time.perf_counter()
    procs = {name: subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True) for name, code in _WARM.items()}
    for name, p in procs.items():
        err = p.communicate()[1]
        if p.returncode:
            raise pytest.UsageError(f"compiling the {name} engine failed:\n{err}")
    print(f"\nengines compiled or loaded from numba's cache in {time.perf_counter() - t:.0f}s")


# ---- the plug-in cache ------------------------------------------------------

@pytest.fixture(scope="session")
def plugin_cache():
    """The session's plug-in cache directory (set up in pytest_sessionstart):
    each plug-in's entry point compiles once per session, in seconds."""
    import os
    from pathlib import Path
    return Path(os.environ["MOURNESIM_CACHE"])
