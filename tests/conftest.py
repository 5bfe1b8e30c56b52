"""pytest set-up for the whole suite: both engines compiled once, side by
side, before any test; the session's plug-in cache; shared fixtures. The
MourneQuest position helpers are in ``mq_game.py`` and ``positions.py``."""
from __future__ import annotations

import pytest

from mq_game import Game, get_rules


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


@pytest.fixture(scope="session")
def R():
    return get_rules()


@pytest.fixture
def g():
    """A fresh 4-player Medium game (Jack, Cobs, Iur, Beith), scripted policy."""
    return Game()


# ---- plug-ins shared by the test files -----------------------------------------

FAULTY_PLUGIN = '''"""A test plug-in: greedy, or a fault on request (parameter `fault`):
1 returns an illegal choice, 2 raises inside the policy, 3 never returns."""
from numba import njit

from mournesim.plugins import register_policy
from mournesim.policies import greedy


@njit(cache=True)
def greedy_copy(s, T, legal, n, rng, pp, h):
    fault = pp[3]
    if fault == 1.0:
        return legal[0] + 1000000
    if fault == 2.0:
        raise ValueError("the policy broke on purpose")
    if fault == 3.0:
        k = 1
        while k != 0:          # Park-Miller never reaches 0: an endless loop
            k = (k * 16807) % 2147483647
        return legal[k]
    return greedy(s, T, legal, n, rng, pp, h)


register_policy("greedy_copy", greedy_copy, params={"risk": 0.55, "charm_weight": 1.0, "talisman": 1.0,
                                                   "fault": 0.0},
                ranges={"fault": (0.0, 3.0)})
'''


@pytest.fixture(scope="session")
def plugin_cache():
    """The session's plug-in cache directory (set up in pytest_sessionstart):
    each plug-in's entry point compiles once per session, in seconds."""
    import os
    from pathlib import Path
    return Path(os.environ["MOURNESIM_CACHE"])


@pytest.fixture(scope="session")
def faulty_plugin(plugin_cache):
    """The path of FAULTY_PLUGIN: one module (so one compile per session)
    for every test of a plug-in that plays, misplays or breaks. Written
    atomically: the xdist workers write the same file side by side."""
    import os
    f = plugin_cache / "faulty_greedy.py"
    tmp = plugin_cache / f"faulty_greedy.{os.getpid()}.tmp"
    tmp.write_text(FAULTY_PLUGIN)
    os.replace(tmp, f)
    return f
