"""A first run that respects the user: the one-time engine compile
is announced with what it is and roughly how long it takes, a run's summary
counts only play, and a command imports only what it needs."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from types import SimpleNamespace

import pytest

from simcore import jitcache, warmup
from simcore.batch import Summary
from simcore.cli import compile_once, run_summary
from simcore.errors import InputError
from simcore.game import games, get
from simcore.jitcache import compiled


def fake_dispatcher(index_path):
    """An object shaped like a numba dispatcher whose cache index is ``index_path``."""
    def run_batch():
        pass
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index_path))),
                           py_func=run_batch)


FAKE_GAME = SimpleNamespace(package="mournesim", compile_estimate="about 4 minutes on one core")


@pytest.fixture
def plan_calls(monkeypatch):
    """The roots each compile on every core was asked for (none is run)."""
    calls = []
    def compile_parallel(plans, roots=(), workers=None, during=None):
        calls.append(roots)
        if during is not None:      # what the command's process does meanwhile: it still happens
            during()
    monkeypatch.setattr(warmup, "compile_parallel", compile_parallel)
    monkeypatch.setattr(warmup, "_TRIED", set())
    return calls


def test_a_cold_engine_is_announced_and_its_compile_kept_out_of_the_play_time(tmp_path, capsys, plan_calls):
    played = []
    seconds = compile_once(FAKE_GAME, fake_dispatcher(tmp_path / "absent.nbi"),
                           lambda: (time.sleep(0.05), played.append(1)))
    err = capsys.readouterr().err.splitlines()
    assert played == [1]
    assert seconds >= 0.05
    assert plan_calls == [[warmup.kernel_name(fake_dispatcher(""))]]    # the plan, for what the command runs
    assert err[0].startswith("mournesim: compiling the game engine with numba, once: about 4 minutes on one core")
    assert err[1].startswith("mournesim: engine compiled and cached in ")
    line = run_summary([("cell", 1000, 400)], 2.0, seconds)
    assert line.startswith("1,000 games played in 2.0s, 500 games/s")      # play only
    assert "the one-time engine compile before them took" in line


def test_the_worker_processes_start_is_said_and_not_counted_as_play():
    cells = Summary([("cell", 1000, 400)], seed=1, played_now=1000, startup=1.5)
    line = run_summary(cells, 2.0)
    assert line.startswith("1,000 games played in 0.5s, 2,000 games/s")
    assert line.endswith("the worker processes took 1.5s to start before them")
    assert "start" not in run_summary(Summary([("cell", 1000, 400)], 1, 1000), 2.0)     # one process: none


def test_a_pool_is_started_and_loads_the_engine_before_the_clock_of_play():
    """Two workers: both processes are up, with the engine loaded, before
    the first batch (a batch of no games loads it); the games are the same."""
    from mournesim import batch, sim
    kw = dict(games=40, levels=("easy",), players=(2,), batch=10)
    one, cells1 = batch.run_grid(**kw, workers=1)
    two, cells2 = batch.run_grid(**kw, workers=2)
    assert cells1.startup == 0.0 < cells2.startup
    assert one.equals(two)
    assert len(sim.simulate(games=0)) == 0


def test_a_cached_engine_is_loaded_silently(tmp_path, capsys, plan_calls):
    index = tmp_path / "run_batch-1.py311.nbi"
    index.write_bytes(b"")
    assert compiled(fake_dispatcher(index))
    assert compile_once(FAKE_GAME, fake_dispatcher(index), lambda: None) == 0.0
    assert capsys.readouterr().err == ""
    assert plan_calls == []
    assert "compile" not in run_summary([("cell", 10, 1)], 1.0, 0.0)


@pytest.mark.parametrize("package", ["mournesim", "questsim"])
def test_the_python_api_compiles_a_cold_engine_on_every_core_after_checking_its_input(package, monkeypatch, capsys,
                                                                                      plan_calls):
    """A notebook's first sim.simulate / replay / grid run on a cold engine is
    announced and compiled from the plan, once per entry point (here the
    engine is only made to look cold); a bad configuration is refused before
    any compile."""
    import importlib
    sim = importlib.import_module(package + ".sim")
    replay = importlib.import_module(package + ".replay").replay
    monkeypatch.setattr(jitcache, "compiled", lambda dispatcher: False)
    with pytest.raises(InputError):
        sim.simulate(games=2, params=(9.0, 9.0, 9.0, 9.0, 9.0))
    assert plan_calls == [] and capsys.readouterr().err == ""
    assert len(sim.simulate(games=2, players=2)) == 2
    assert replay(players=2).final_state is not None
    assert len(sim.simulate(games=2, players=2)) == 2                          # tried once: said once
    df, _ = importlib.import_module(package + ".batch").run_grid(games=2, workers=1)
    assert len(df) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{package}: compiling the game engine with numba, once: "
                   f"{importlib.import_module(package + '.gamedef').GAME.compile_estimate}; "
                   "later runs load it from the cache in about a second"] * 2
    assert [r[0].rsplit(".", 1)[1] for r in plan_calls] == ["run_batch", "play_logged"]


def test_the_engine_entry_points_have_a_cache_to_ask():
    """compile_once reads numba's own cache index; if numba's layout changed
    under us the check would silently say 'cached' (compiled() is True when
    it cannot ask), so make sure it can ask for both engines."""
    from mournesim.game import run_batch as mq
    from questsim.engine import run_batch as qm
    for d in (mq, qm):
        assert d._cache._cache_file._index_path.endswith(".nbi")


def test_no_import_cycle_and_no_scipy_stats_on_the_simulate_path():
    """Compiling a ruleset's tables imports no kernel (the cycle core -> tables
    -> odds -> core is gone), and the report a simulate prints does not import
    scipy.stats (about 2.7 s of every command's start before)."""
    code = ("import sys, mournesim.tables; "
            "bad = [m for m in ('mournesim.core', 'mournesim.odds') if m in sys.modules]; "
            "import mournesim.report, mournesim.cli, questsim.report, questsim.cli; "
            "print(bad + [m for m in ('scipy.stats',) if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("prog", ["mournesim", "questsim"])
def test_a_command_process_skips_the_final_garbage_collections(prog):
    """The installed command and ``python -m`` run the game's command through
    simcore.cli.script: the objects alive after the imports are frozen, and
    so is the rest at exit (a quarter of a second of every command's end),
    while what the command prints still arrives whole. A test calling
    ``main`` in-process freezes nothing."""
    from importlib.metadata import entry_points
    assert entry_points(group="console_scripts")[prog].value == f"{prog}.cli:run"
    code = textwrap.dedent(f"""\
        import atexit, gc, sys
        sys.argv = ["{prog}", "policies"]
        from {prog}.cli import run
        frozen, register, at_exit = gc.get_freeze_count(), atexit.register, []
        atexit.register = lambda f, *a: at_exit.append(f) or register(f, *a)
        try:
            run()
        except SystemExit:
            pass
        print("frozen", frozen == 0, gc.get_freeze_count() > 0, gc.freeze in at_exit)
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "greedy" in out and "random" in out                    # the command's own output
    assert out.strip().splitlines()[-1] == "frozen True True True"
    main_py = subprocess.run([sys.executable, "-m", prog, "policies"], capture_output=True, text=True, check=True)
    assert main_py.stdout == out[:out.rindex("frozen")]


QUICK_LOAD_OFF = "import simcore.jitcache as j; j._install_quick_load = lambda: False"
# a module numba's registry refresh imports and no engine kernel's cached code
# refers to (a cached kernel's environment imports the modules its code came
# from: Quest Master's planner brings numba.np.arraymath with np.argsort)
REFRESHED = "numba.np.polynomial.polynomial_functions"


@pytest.mark.parametrize("key", sorted(games()))
def test_a_warm_process_loads_the_engine_without_numbas_registry_refresh(key):
    """simcore.jitcache.load_without_refresh: a process that only loads the
    cached engine never runs numba's registry refresh (which imports about
    250 modules of its typing and lowering registries, :data:`REFRESHED`
    among them), plays the same games as a process that loads it numba's
    way, and still compiles new code afterwards (numba's compiler refreshes
    first)."""
    game = get(key)
    game.module("sim").run_games(game.module("sim").prepare(), game.sample_config(), 7, 0, 1)   # cached
    code = textwrap.dedent(f"""\
        import hashlib, sys
        {{setup}}
        from simcore.game import get
        g = get("{key}")
        sim = g.module("sim")
        rows = sim.run_games(sim.prepare(), g.sample_config(), 7, 0, 30)
        print(hashlib.sha256(rows.tobytes()).hexdigest(), "{REFRESHED}" in sys.modules)
        {{then}}
        """)
    compile_after = ('import numba, numpy as np; '
                     f'print(numba.njit(lambda a: np.sort(a)[0])(np.array([3, 1, 2])), "{REFRESHED}" in sys.modules)')
    quick = subprocess.run([sys.executable, "-c", code.format(setup="", then=compile_after)],
                           capture_output=True, text=True, check=True).stdout.split()
    numba_way = subprocess.run([sys.executable, "-c", code.format(setup=QUICK_LOAD_OFF, then="")],
                               capture_output=True, text=True, check=True).stdout.split()
    assert quick[1:] == ["False", "1", "True"]
    assert numba_way[1:] == ["True"]
    assert quick[0] == numba_way[0]                             # the same games


def test_other_cached_numba_code_still_loads_numbas_way(tmp_path):
    """Only the games' and simcore's kernels skip the refresh: a cached
    function of any other module, in a process that has imported a game,
    loads through numba's own ``load_overload``, refresh included."""
    (tmp_path / "elsewhere.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef one(x):\n    return x + 1\n")
    code = ("import sys, mournesim, elsewhere; from simcore import jitcache; "
            f"print(elsewhere.one(1), sorted(jitcache._QUICK_LOAD), '{REFRESHED}' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    for _ in range(2):          # the first compiles and caches, the second loads
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=env).stdout
        assert out.split() == ["2", "['mournesim',", "'simcore']", "True"]
    assert list(tmp_path.glob("__pycache__/elsewhere.one-*.nbi"))


def test_a_worker_process_ends_without_the_final_garbage_collections():
    """shutdown.worker_init, the initializer of every pool worker, freezes
    the objects alive and registers the same freeze at exit; and what the
    worker prints then, at Python's level or C's, goes to standard error
    (standard output is the command's own)."""
    code = ("import atexit, gc, os; from simcore import shutdown; at_exit = []; "
            "atexit.register = lambda f, *a: at_exit.append(f); "
            "shutdown.worker_init(os.getppid()); print(gc.get_freeze_count() > 0, gc.freeze in at_exit, flush=True); "
            "os.write(1, b'from C\\n')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout == ""
    assert r.stderr.split("\n")[-3:] == ["True True", "from C", ""]


def test_a_cache_save_waits_for_another_processs_save_of_the_same_kernel(tmp_path):
    """simcore.jitcache.keep_cache_consistent: numba's save of a compiled
    overload (read the index, pick a free data file, write both) holds the
    kernel's lock, so two savers never pick the same file. Here the test
    holds the lock (as another process would, mid-save): a save waits, and
    goes on once the lock is let go, its entry in the index."""
    import fcntl
    import threading
    from numba.core import caching
    jitcache.keep_cache_consistent()
    cache = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py311", source_stamp=("stamp", 1))
    with open(cache._index_path + ".lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        saver = threading.Thread(target=cache.save, args=(("sig", 7), b"code"))
        saver.start()
        saver.join(0.5)
        assert saver.is_alive() and not os.path.exists(cache._index_path)      # waiting for the lock
    saver.join(10)
    assert not saver.is_alive()
    assert cache.load(("sig", 7)) == b"code"


def test_a_cache_entry_holding_another_overloads_code_is_compiled_again(tmp_path):
    """A cache that two unlocked saves left wrong (the index names literal
    7's overload, the data file holds literal 1's code; made here by hand)
    gives numba's own load the wrong code: ``f(1, 7)`` returns 11. With
    keep_cache_consistent the load is refused, the kernel compiles again and
    the entry is written right."""
    (tmp_path / "kern.py").write_text("import numba\nfrom numba import literally\n\n@numba.njit(cache=True)\n"
                                      "def f(x, c):\n    return x * 10 + literally(c)\n")
    corrupt = ("import kern; kern.f(1, 1); kern.f(1, 7); cf = kern.f._cache._cache_file; index = cf._load_index(); "
               "k1, k7 = sorted(index, key=lambda k: str(k[0])); index[k7] = index[k1]; cf._save_index(index)")
    call = "import kern; {setup} print(kern.f(1, 7))"
    fix = "from simcore import jitcache; jitcache.keep_cache_consistent();"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.getcwd()])}

    def run(code):
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env=env).stdout.strip()
    run(corrupt)
    assert run(call.format(setup="")) == "11"            # numba's own load: the other overload's code
    assert run(call.format(setup=fix)) == "17"           # refused, compiled again
    assert run(call.format(setup="")) == "17"            # and saved right: numba's own load is right now
