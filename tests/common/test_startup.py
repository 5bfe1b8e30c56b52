"""A first run that respects the user (issue 17): the one-time engine compile
is announced with what it is and roughly how long it takes, a run's summary
counts only play, and a command imports only what it needs."""
from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace

from simcore.cli import compile_once, run_summary
from simcore.jitcache import compiled


def fake_dispatcher(index_path):
    """An object shaped like a numba dispatcher whose cache index is ``index_path``."""
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index_path))))


def test_a_cold_engine_is_announced_and_its_compile_kept_out_of_the_play_time(tmp_path, capsys):
    played = []
    seconds = compile_once("mournesim", fake_dispatcher(tmp_path / "absent.nbi"),
                           lambda: (time.sleep(0.05), played.append(1)), "about 4 minutes on one core")
    err = capsys.readouterr().err.splitlines()
    assert played == [1]
    assert seconds >= 0.05
    assert err[0].startswith("mournesim: compiling the game engine with numba, once: about 4 minutes on one core")
    assert err[1].startswith("mournesim: engine compiled and cached in ")
    line = run_summary([("cell", 1000, 400)], 2.0, seconds)
    assert line.startswith("1,000 games played in 2.0s, 500 games/s")      # play only
    assert "the one-time engine compile before them took" in line


def test_a_cached_engine_is_loaded_silently(tmp_path, capsys):
    index = tmp_path / "run_batch-1.py311.nbi"
    index.write_bytes(b"")
    assert compiled(fake_dispatcher(index))
    assert compile_once("questsim", fake_dispatcher(index), lambda: None, "x") == 0.0
    assert capsys.readouterr().err == ""
    assert "compile" not in run_summary([("cell", 10, 1)], 1.0, 0.0)


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
