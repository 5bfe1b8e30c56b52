"""The compile plans (simcore.warmup): a cold engine compiled on every core
holds the same kernels as one compiled in one process, and each game's plan
lists every kernel its warm-up compiles."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core import types

from simcore import warmup
from simcore.game import games


@pytest.mark.parametrize("t", [types.Array(types.int32, 1, "C"), types.Array(types.float64, 2, "C"),
                               types.Array(types.uint64, 1, "C"), types.Array(types.int64, 1, "C", readonly=True),
                               types.int64, types.int32, types.uint64,
                               types.float64, types.boolean, types.literal(0), types.literal(-1),
                               types.literal(False), types.UniTuple(types.int64, 4), types.none])
def test_every_argument_type_of_the_engine_reads_back_from_its_text(t):
    assert warmup.parse_type(str(t)) == t


def test_a_type_it_cannot_read_is_refused_not_guessed():
    for text in ("array(int32, 1d, A, readonly)", "Tuple(int64, float64)", "UniTuple(none x 2)", "float", "class(int32)"):
        assert warmup.parse_type(text) is None


@pytest.mark.parametrize("key", sorted(games()))
def test_each_plan_names_kernels_of_the_engine_with_types_it_can_read(key):
    """Every task of the committed plan is a cached numba kernel of the game
    (or simcore), its argument types read back, its callees are tasks listed
    before it (callees compile first), and the engine's entry point is in it."""
    game = games()[key]
    tasks = warmup.load_plan(game)
    assert tasks, f"{key} has no compile plan: python -m simcore.warmup record {key}"
    names = set()
    for i, task in enumerate(tasks):
        kernel = warmup._resolve(task["kernel"])
        assert kernel._cache._cache_file._index_path.endswith(".nbi"), task["kernel"]
        assert None not in [warmup.parse_type(a) for a in task["args"]], task
        assert all(0 <= c < len(tasks) and c != i for c in task["calls"]), task
        names.add(task["kernel"])
    assert warmup.kernel_name(game.module("engine").run_batch) in names


def test_the_plans_hold_every_kernel_the_warm_up_compiled():
    """The session's warm-up (tests/conftest.py) ran each game's plan, then
    its Game.warm_up: on a cold cache, the warm-up must have found every
    engine kernel compiled already. A kernel listed here is missing from the
    plan (a new kernel, or new argument types): record the plan again."""
    import numba
    report = json.loads(Path(os.environ["SIMTEST_WARMUP"]).read_text())
    if not report["plans"]["compiled"]:
        pytest.skip("the engines were in numba's cache already: no cold compile to check")
    recorded = {json.loads(warmup.plan_path(g).read_text())["numba"] for g in games().values()}
    if recorded != {numba.__version__}:
        pytest.skip(f"the plans were recorded with numba {recorded}, this is {numba.__version__}: "
                    "another numba may type calls differently")
    assert report["left"] == {key: [] for key in report["left"]}, \
        "record the compile plans again: python -m simcore.warmup record GAME"


def test_kernels_compiled_by_workers_are_the_ones_a_later_process_loads(tmp_path):
    """A two-kernel plan compiled by two workers lands in numba's cache: a new
    process calling the caller compiles nothing. A task that cannot compile
    (an unknown kernel) is counted as failed and stops nothing else."""
    (tmp_path / "tinykernels.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def leaf(x):
            return x * 3 + 1

        @njit(cache=True)
        def top(x):
            return leaf(x) + leaf(x + 1)
    """))
    env = dict(os.environ, PYTHONPATH=str(tmp_path), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    plan = [{"kernel": "tinykernels.leaf", "args": ["int64"], "calls": [], "seconds": 0.1},
            {"kernel": "tinykernels.top", "args": ["int64"], "calls": [0], "seconds": 0.1},
            {"kernel": "tinykernels.absent", "args": ["int64"], "calls": [], "seconds": 0.1}]
    code = textwrap.dedent(f"""
        import json, os, sys
        from simcore import warmup
        print(json.dumps(warmup.compile_parallel([{plan!r}], workers=2)))
    """)
    stats = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True).stdout)
    assert (stats["compiled"], stats["failed"], stats["workers"]) == (2, 1, 2)
    assert [kernel for kernel, why in stats["errors"]] == ["tinykernels.absent"]     # and why is said
    assert "absent" in stats["errors"][0][1]
    later = textwrap.dedent("""
        from numba.core import event
        seen = []
        class L(event.Listener):
            def on_start(self, ev): seen.append(ev.data["dispatcher"].py_func.__name__)
            def on_end(self, ev): pass
        event.register("numba:compile", L())
        import tinykernels
        print(tinykernels.top(5), seen)
    """)
    out = subprocess.run([sys.executable, "-c", later], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["35", "[]"]        # leaf(5) + leaf(6) = 16 + 19, and nothing compiled


def test_ctrl_c_during_a_cold_compile_stops_its_workers_and_says_interrupted(tmp_path):
    """The first run's compile (workers of simcore.warmup) stops at Ctrl-C
    like any run: one line, exit status 130, no worker left behind."""
    import signal
    import time
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    command = [str(Path(sys.executable).parent / "mournesim"), "simulate", "--games", "10", "--workers", "2"]
    p = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def session():
        found = subprocess.run(["pgrep", "-s", str(p.pid), "-f", "simcore.warmup"], capture_output=True, text=True)
        return found.stdout.split()

    deadline = time.monotonic() + 60
    while len(session()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(session()) == 2, "the cold compile started no two workers"
    os.killpg(p.pid, signal.SIGINT)
    _out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err.splitlines()[-1] == "mournesim: interrupted"
    time.sleep(0.5)
    assert session() == []


def test_work_given_for_meanwhile_runs_once_while_the_workers_compile():
    """compile_parallel runs ``during`` (a command's policy entry points) in
    its own process while the workers compile, once, even with nothing left
    to compile."""
    ran = []
    stats = warmup.compile_parallel([[]], during=lambda: ran.append(1))
    assert ran == [1] and stats["compiled"] == 0


def test_importing_either_game_keeps_simcore_cached_kernels():
    """Each game's import guards numba's cache (simcore.jitcache): its own
    kernels against its engine sources and simcore's, simcore's kernels
    against simcore's sources alone. So importing one game, then the other,
    clears none of simcore's cached kernels (rng, search), which the session's
    warm-up compiled; before, each game stamped simcore's cache with its own
    sources and the two took turns clearing it."""
    import simcore
    cache = Path(simcore.__file__).parent / "__pycache__"
    before = sorted(p.name for p in cache.glob("*.nbi"))
    assert any(n.startswith("rng.") for n in before) and any(n.startswith("search.") for n in before), before
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    for first, then in (("mournesim", "questsim"), ("questsim", "mournesim")):
        subprocess.run([sys.executable, "-c", f"import {first}"], check=True, env=env)
        subprocess.run([sys.executable, "-c", f"import {then}"], check=True, env=env)
    assert sorted(p.name for p in cache.glob("*.nbi")) == before


def test_a_ctrl_c_that_lands_inside_an_llvm_callback_is_not_lost():
    """numba runs Python inside LLVM's callbacks (ctypes) while it compiles,
    and ctypes prints and drops an exception raised in one: a cold compile's
    Ctrl-C landed in ``_raw_object_cache_notify`` once (CI, fifteenth
    session) and the compile went on. Inside ``shutdown.interrupts_kept``
    (the compile's) the interruption is kept: raised again at the compile's
    next check, by numba's compiler at its next step (the function is left
    uncompiled), or on leaving the block; the handlers are restored after."""
    code = textwrap.dedent("""
        import ctypes, os, signal, time
        from simcore.shutdown import interrupts_kept, raise_kept

        signal.signal(signal.SIGINT, signal.default_int_handler)   # not inherited ignored (a background job)

        def callback():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)                 # the handler runs here, inside the callback

        call = ctypes.CFUNCTYPE(None)(callback)
        call()
        print("dropped")                    # what ctypes does
        try:
            with interrupts_kept():
                call()
                print("dropped inside")
                raise_kept()
                print("not raised")
        except KeyboardInterrupt:
            print("raised at the check")
        try:
            with interrupts_kept():
                call()
        except KeyboardInterrupt:
            print("raised on leaving")
        import numba
        one = numba.njit(lambda x: x + 1)
        try:
            with interrupts_kept():
                call()
                one(1)
                print("compiled")
        except KeyboardInterrupt:
            print("raised by the compile", len(one.overloads))
        print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:-1] == ["dropped", "dropped inside", "raised at the check", "raised on leaving",
                                         "raised by the compile 0", "True"]
