"""Grid runs (simcore.batch + mournesim.batch): a grid against single runs,
datasets on disk and their metadata, an interruption kept and resumed, early
stopping at a target interval width, bad grids; the interval maths.

The determinism contract (shared/design.md, "Determinism": the same games
whatever the workers, batch size or backend, and after a resume) is checked
for every game in tests/common/test_contract.py.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from mournesim import batch, sim
from simcore import store
from simcore.batch import half_width
from simcore.errors import InputError
from simcore.stats import wilson, wilson_arrays

GRID = dict(games=120, seed=11, levels=("easy", "hard"), players=(1, 4), policies=("random", "greedy"))


def rows(df):
    """Rows in a canonical order, for comparing two runs."""
    return df.sort_values(["policy", "level", "players", "game"], ignore_index=True)


@pytest.fixture(scope="module")
def reference():
    """The grid played in this process, one batch per cell."""
    df, cells = batch.run_grid(**GRID, workers=1, batch=1000)
    return df, cells


def test_grid_covers_the_product_and_matches_single_runs(reference):
    """Every (policy, level, players) cell has its games, numbered 0..N-1, and
    each cell's rows are the rows sim.simulate gives for that configuration."""
    df, cells = reference
    assert len(cells) == 8 and len(df) == 8 * 120
    for (pol, lv, p), g in df.groupby(["policy", "level", "players"]):
        assert list(g["game"]) == list(range(120))
        one = sim.simulate(games=120, seed=11, level=lv, players=p, policy=pol)
        pd.testing.assert_frame_equal(g.reset_index(drop=True), one, check_categorical=False)


def test_dataset_metadata(tmp_path, reference):
    """The dataset records versions, ruleset hash, seed, cells with policy
    parameters and the command line, in _run.json and in every part file."""
    out = tmp_path / "m"
    batch.run_grid(**GRID, workers=1, batch=60, out=out, command="mournesim simulate test")
    run = store.read_run(out)
    rules = sim.prepare()
    assert run["ruleset_hash"] == rules.hash and run["seed"] == 11 and run["complete"]
    assert run["command"] == "mournesim simulate test"
    assert {c["policy"] for c in run["cells"]} == {"random", "greedy"}
    greedy = next(c for c in run["cells"] if c["policy"] == "greedy")
    assert greedy["param_names"] == ["risk", "charm_weight", "talisman", "blunders"] and len(greedy["params"]) == 4
    assert len(store.parts(out)) == 16
    import json
    import pyarrow.parquet as pq
    f = sorted(store.parts(out).values())[0]
    meta = json.loads(pq.read_schema(f).metadata[store.META_KEY])
    assert meta["ruleset_hash"] == rules.hash and meta["first"] == 0 and meta["n"] == 60
    pd.testing.assert_frame_equal(rows(store.read_dataset(out)), rows(reference[0]), check_categorical=False)


def test_interrupt_keeps_finished_batches_and_resume_completes(tmp_path):
    """A real Ctrl-C (SIGINT) to ``mournesim simulate --out``: exit 130 and a
    one-line note saying how to resume; the finished parts stay; ``--resume``
    then gives exactly the rows of an uninterrupted run."""
    exe = Path(sys.executable).with_name("mournesim")
    out = tmp_path / "int"
    args = ["simulate", "--games", "6000", "--batch", "100", "--players", "2", "--seed", "5", "--workers", "1",
            "--quiet"]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    # a CI runner started in the background may ignore SIGINT, and children
    # inherit that: give the run the default handler, as a terminal would
    p = subprocess.Popen([str(exe), *args, "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300
    while time.time() < deadline and (not out.is_dir() or len(store.parts(out)) < 2):
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "interrupted" in err and f"--resume {out}" in err and "Traceback" not in err
    kept = len(store.parts(out))
    assert 2 <= kept < 60 and not store.read_run(out).get("complete")
    r = subprocess.run([str(exe), "simulate", "--resume", str(out), "--quiet"], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    full = sim.simulate(games=6000, seed=5, players=2)
    pd.testing.assert_frame_equal(store.read_dataset(out).reset_index(drop=True), full, check_categorical=False)


def test_target_ci_stops_each_cell_at_the_first_batch_that_meets_it(tmp_path):
    """--target-ci: each cell stops after the first whole batch at which its
    win-rate half-width is <= X (not one batch earlier), whatever the number
    of workers; the games kept are that cell's first games."""
    kw = dict(games=4000, seed=3, levels=("easy", "hard"), players=(4,), policies=("random", "greedy"),
              batch=250, target_ci=0.03)
    one, cells1 = batch.run_grid(**kw, workers=1)
    two, cells2 = batch.run_grid(**kw, workers=2)
    pd.testing.assert_frame_equal(rows(two), rows(one), check_categorical=False)
    assert [c[1:] for c in cells1] == [c[1:] for c in cells2]
    for lab, n, w in cells1:
        g = one[(one.policy == lab["policy"]) & (one.level == lab["level"])]
        assert len(g) == n and list(g["game"]) == list(range(n)) and int(g["win"].sum()) == w
        assert half_width(w, n) <= 0.03 or n == 4000
        if n > 250:
            prev = g[g["game"] < n - 250]
            assert half_width(int(prev["win"].sum()), len(prev)) > 0.03
    # random players never win: their cells stop at the first batch
    assert all(n == 250 for lab, n, _ in cells1 if lab["policy"] == "random")


def test_wilson_matches_statsmodels():
    """Our Wilson interval equals statsmodels' proportion_confint(method='wilson')."""
    from statsmodels.stats.proportion import proportion_confint
    for k, n in [(0, 10), (1, 10), (5, 10), (10, 10), (884, 3000), (3, 100_000), (12345, 54321)]:
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert wilson(k, n) == pytest.approx((lo, hi), abs=1e-12)
        alo, ahi = wilson_arrays([k], [n])
        assert (alo[0], ahi[0]) == pytest.approx((lo, hi), abs=1e-12)
    assert wilson(0, 0) == (0.0, 1.0)


def test_corrupt_part_is_one_clear_error(tmp_path):
    """A damaged part file is bad input naming the file, and nothing is deleted."""
    out = tmp_path / "c"
    batch.run_grid(games=40, seed=1, policies=("random",), batch=20, out=out, workers=1)
    f = sorted(store.parts(out).values())[1]
    f.write_bytes(f.read_bytes()[:100])
    with pytest.raises(InputError, match=f.name):
        store.read_dataset(out)
    with pytest.raises(InputError, match="corrupt results file"):
        batch.resume(out, workers=1)
    assert f.exists() and len(store.parts(out)) == 2


def test_grid_rejects_impossible_combinations():
    """Fixed heroes with several player counts, --params with several
    policies, a target width out of range, a second run into the same --out."""
    with pytest.raises(InputError, match="--heroes"):
        batch.make_plan(players=(2, 3), heroes=("jack", "cobs"))
    with pytest.raises(InputError, match="--params"):
        batch.make_plan(policies=("greedy", "planner"), params=(0.5, 1.0))
    with pytest.raises(InputError, match="--target-ci"):
        batch.make_plan(target_ci=0.7)


def test_parse_list():
    """--level/--players/--policy lists and 'all'."""
    assert batch.parse_list("all", "level") == ("easy", "medium", "hard")
    assert batch.parse_list("difficult,easy", "level") == ("hard", "easy")
    assert batch.parse_list("all", "players") == (1, 2, 3, 4)
    assert batch.parse_list("4,1,4", "players") == (4, 1)
    assert batch.parse_list("all", "policy") == ("random", "greedy", "planner")
    for text, kind in [("5", "players"), ("x", "players"), ("1,", "players"), ("bad", "level"), ("nope", "policy")]:
        with pytest.raises(InputError):
            batch.parse_list(text, kind)
