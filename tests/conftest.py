"""pytest set-up for the whole suite: both engines compiled once, side by
side, before any test; the session's plug-in cache. The tests are in
``common/`` (contracts over both games, the shared machinery, simcore),
``mournequest/`` and ``questmaster/``; each game's fixtures are in its
folder's ``conftest.py`` and its position helpers in ``mq_game.py`` /
``mq_positions.py`` and ``qm_game.py``."""
from __future__ import annotations

import pytest


# ---- one compile of each engine, on both cores ----------------------------------

# after the compile plans, each game's Game.warm_up: it loads what the plans
# compiled, compiles what they lack (reported) and the rollout plug-in's entry;
# then one game of the expert, whose search compiles in this one process
# (about a minute): left to the tests, the publish pipeline and a test worker
# each compiled it at the same time, and a plan, compiling kernel by kernel,
# links its callees again for each (docs/common/performance.md)
_WARM = ("import json, sys; from simcore import warmup; from simcore.game import get; g = get(sys.argv[1]); "
         "warmup._RECORDING = True; "
         "left = [t['kernel'] for t in warmup.record(g.warm_up, {g.package, 'simcore'})]; "
         "g.module('sim').simulate(games=1, players=2, **g.expert_option); print(json.dumps(left))")


def pytest_sessionstart(session):
    """Compile (or load from numba's cache) both games' engines before any
    test runs, on every core: first the kernels of both compile plans
    (simcore.warmup), then each game's warm-up in a process of its own. On a
    clean checkout each kernel compiles once, and every test process (xdist
    workers included) then loads it from the cache instead of compiling the
    same kernels again. What the warm-ups still compiled after the plans is
    written to ``$SIMTEST_WARMUP`` (tests/common/test_warmup.py)."""
    import json
    import os
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path
    if hasattr(session.config, "workerinput"):      # an xdist worker: the controller did it
        return
    from simcore import warmup
    from simcore.game import games
    # plug-ins (rollout included) compile into one directory for the whole
    # session, workers included, never into the user's ~/.cache
    root = tempfile.mkdtemp(prefix="simtest-plugins-")
    for var in ("MOURNESIM_CACHE", "QUESTSIM_CACHE"):
        os.environ.setdefault(var, root)
    t = time.perf_counter()
    found = games()
    plans = [warmup.load_plan(g) for g in found.values()]
    planned = warmup.compile_parallel(plans)
    if planned["failed"]:
        # a kernel a worker failed on would be left to its first call in a
        # test process, each compiling its own copy: said, and tried once more
        # here (what is cached is skipped)
        for kernel, why in planned["errors"]:
            print(f"\ncompile plan: {kernel} failed in its worker: {why}")
        again = warmup.compile_parallel(plans)
        planned = dict(again, compiled=planned["compiled"] + again["compiled"],
                       errors=planned["errors"] + again["errors"])
    procs = {}
    for key in found:
        procs[key] = subprocess.Popen([sys.executable, "-c", _WARM, key], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
    left = {}
    for key, p in procs.items():
        out, err = p.communicate()
        if p.returncode:
            raise pytest.UsageError(f"compiling the {key} engine failed:\n{err}")
        left[key] = json.loads(out.strip().splitlines()[-1])
    report = Path(root) / "warmup.json"
    report.write_text(json.dumps({"plans": planned, "left": left}))
    os.environ["SIMTEST_WARMUP"] = str(report)
    print(f"\nengines compiled or loaded from numba's cache in {time.perf_counter() - t:.0f}s "
          f"(compile plans: {planned['compiled']} kernels on {planned['workers']} cores in {planned['seconds']:.0f}s)")


# ---- the plug-in cache ------------------------------------------------------

@pytest.fixture(scope="session")
def plugin_cache():
    """The session's plug-in cache directory (set up in pytest_sessionstart):
    each plug-in's entry point compiles once per session, in seconds."""
    import os
    from pathlib import Path
    return Path(os.environ["MOURNESIM_CACHE"])


# the longest test files start first (xdist deals whole files out in
# collection order with --dist loadfile --no-loadscope-reorder; by default
# it deals the files with most tests first): dealt late, the publish
# pipeline's three minutes ran alone on one core at the end of every CI run
SLOW_FIRST = ("tests/common/test_publish.py", "tests/mournequest/test_rollout.py", "tests/questmaster/test_qm_expert.py",
              "tests/common/test_studio.py")


def pytest_collection_modifyitems(session, config, items):
    """Put the files of :data:`SLOW_FIRST` first, in that order (the order
    within a file, and of every other file, is kept)."""
    rank = {f: i for i, f in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(SLOW_FIRST)))
