"""Fault injection: every bad input and fault gets one clear line
and exit status 2, nothing finished is lost, nothing foreign is mixed in.

One section per family of fault:

1. data loss — ``--out`` into a directory holding anything the tool did not
   write is refused before a game is played;
2. mixed results — a dataset is one unit: a part of another seed's run, of
   the other game, renamed or without a run description is refused on
   report and on resume, naming it;
3. tracebacks — outputs that cannot be written (a file in the way, the
   file-size limit on parts, plots and standard output, a closed pipe),
   numbers too large, a file that is not UTF-8, a bad cluster address, an
   edited ``_run.json``;
4. nonsense played — non-finite and out-of-range policy parameters, boards
   and rulesets that make the game unplayable, a tune aimed at a count;
6. processes — ``kill -9`` at random moments of a ``--out`` run and of an
   experiment leaves no worker behind, and resuming gives exactly the rows
   of an uninterrupted run; SIGTERM stops a run like Ctrl-C; two runs into
   one directory at once: one refuses;
7. quiet surprises — resume from another directory, the summary after
   ``--resume``, messages that say what to do, a tune range checked before
   any game, an experiment's arms never pooled.

Family 5 (plug-ins) is in tests/mournequest/test_plugins.py, next to the plug-in its
tests share (one engine compile); the property tests are in
tests/common/test_fuzz.py; every command against a corpus of bad inputs is at the
end of this file.
"""
from __future__ import annotations

import errno
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
from click.testing import CliRunner

from mournesim import batch as mq_batch, sim as mq_sim
from mournesim.cli import main as mq_main
from mournesim.ruleset import load_raw as mq_raw
from questsim import batch as qm_batch
from questsim.cli import main as qm_main
from simcore import atomic, store

BIN = Path(sys.executable).parent
MAINS = {"mournesim": mq_main, "questsim": qm_main}


def cli(prog, *args):
    return CliRunner().invoke(MAINS[prog], [str(a) for a in args])


def refused(res, prog, *needles, lines=1):
    """Exit 2, no traceback, ``lines`` stderr lines, each ``prog: error: ...``,
    naming every needle."""
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert "Traceback" not in res.output and "internal error" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    got = res.stderr.strip().splitlines()
    assert got and all(x.startswith(f"{prog}: error: ") for x in got), got
    if lines is not None:
        assert len(got) == lines, got
    for n in needles:
        assert n in res.stderr, (n, res.stderr)
    return got


def env():
    return {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}


def sub(prog, *args, fsize=None, **kw):
    """Run the installed command; ``fsize`` limits the size of every file it
    writes (``ulimit -f``: a full disk, for one file at a time)."""
    pre = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))) if fsize else None
    return subprocess.run([str(BIN / prog), *map(str, args)], capture_output=True, text=True, env=env(),
                          preexec_fn=pre, timeout=600, **kw)


def sub_refused(r, prog, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    got = r.stderr.strip().splitlines()
    assert len(got) == 1 and got[0].startswith(f"{prog}: error: "), got
    for n in needles:
        assert n in got[0], (n, got)


def snapshot(d):
    """Every file of a directory with its size and modification time."""
    return sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in Path(d).iterdir())


def rows(df):
    return df.sort_values(["policy", "level", "players", "game"], ignore_index=True)


GRID = dict(games=40, seed=1, policies=("random",), batch=20, workers=1)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """Three tiny finished datasets (random play: fast): MourneQuest seed 1
    and seed 2 (60 games), Quest Master seed 1."""
    root = tmp_path_factory.mktemp("faults")
    mq_batch.run_grid(**GRID, out=root / "s1")
    mq_batch.run_grid(**dict(GRID, seed=2, games=60), out=root / "s2")
    qm_batch.run_grid(games=40, seed=1, tables=(("random",),), batch=20, workers=1, out=root / "qm")
    return root


def copy(datasets, name, tmp_path):
    return Path(shutil.copytree(datasets / name, tmp_path / name))


def unfinish(d, drop=()):
    """Make ``d`` look interrupted: drop the given parts, no ``complete``."""
    for k in drop:
        store.parts(d)[k].unlink()
    run = store.read_run(d)
    run.pop("complete", None)
    run.pop("played", None)
    store.write_run(d, run)


# --------------------------------------------------------- 1. data loss --

@pytest.mark.parametrize("what", ["parts without _run.json", "a user's own file"])
def test_out_never_writes_into_a_directory_holding_what_it_did_not_write(datasets, tmp_path, what):
    """``simulate --out DIR`` into a directory holding Parquet parts but no
    ``_run.json`` (a run whose description was lost), or anything else the
    tool did not write: refused before a game, every file left as it was."""
    d = copy(datasets, "s1", tmp_path)
    if what == "a user's own file":
        for p in d.iterdir():
            p.unlink()
        (d / "notes.txt").write_text("mine")
    else:
        (d / "_run.json").unlink()
    before = snapshot(d)
    refused(cli("mournesim", "simulate", "--games", 40, "--batch", 20, "--out", d), "mournesim",
            "holds files this run did not write")
    assert snapshot(d) == before


def test_out_into_a_finished_run_points_to_resume(datasets, tmp_path):
    d = copy(datasets, "s1", tmp_path)
    before = snapshot(d)
    refused(cli("mournesim", "simulate", "--games", 40, "--out", d), "mournesim", "already holds a run",
            f"mournesim simulate --resume {d}")
    assert snapshot(d) == before


# ------------------------------------------------------ 2. mixed results --

def _forge(kind, d, datasets):
    """Put a part that does not belong into dataset ``d``; returns its name."""
    s2 = datasets / "s2"
    if kind == "another seed, same name":
        name = store.part_name(0, 20)
        shutil.copy(s2 / name, d / name)
    elif kind == "another seed, extra part":
        name = store.part_name(0, 40)
        shutil.copy(s2 / name, d / name)
    elif kind == "the other game":
        name = store.part_name(0, 20)
        shutil.copy(datasets / "qm" / name, d / name)
    elif kind == "renamed":
        name = store.part_name(0, 20)
        shutil.copy(d / store.part_name(0, 0), d / name)
    elif kind == "no run description":
        name = store.part_name(0, 20)
        pd.read_parquet(d / name).to_parquet(d / name)     # pandas drops the simcore.run key
    else:                                                  # a Parquet file a reader would count
        name = "extra.parquet"
        shutil.copy(s2 / store.part_name(0, 0), d / name)
    return name


FORGED = ["another seed, same name", "another seed, extra part", "the other game", "renamed", "no run description",
          "a stray Parquet file"]


@pytest.mark.parametrize("kind", FORGED)
def test_a_part_that_does_not_belong_is_refused_never_counted(datasets, tmp_path, kind):
    """A forged part is refused by report (and read_dataset) and by
    ``--resume``, with one line naming the file; it stays where it is."""
    d = copy(datasets, "s1", tmp_path)
    name = _forge(kind, d, datasets)
    refused(cli("mournesim", "report", d), "mournesim", name, "not a part of the run")
    unfinish(d)
    before = snapshot(d)
    refused(cli("mournesim", "simulate", "--resume", d), "mournesim", name)
    assert snapshot(d) == before


def test_a_dataset_of_the_other_game_is_refused_naming_the_command(datasets, tmp_path):
    refused(cli("questsim", "report", datasets / "s1"), "questsim", "mournesim games",
            f"use: mournesim report {datasets / 's1'}")
    refused(cli("mournesim", "report", datasets / "qm"), "mournesim", "questsim games")
    d = copy(datasets, "qm", tmp_path)
    unfinish(d)
    refused(cli("mournesim", "simulate", "--resume", d), "mournesim", "questsim games",
            f"use: questsim simulate --resume {d}")


# ------------------------------------------------------- 3. tracebacks --

@pytest.mark.parametrize("prog,args,needle", [
    ("mournesim", ["simulate", "--games", "99999999999999999999999"], "--games"),
    ("mournesim", ["simulate", "--games", 2, "--batch", "99999999999999999999"], "--batch"),
    ("mournesim", ["replay", "--game", "99999999999999999999"], "--game"),
    ("mournesim", ["odds", "--ability", "99999999999999999999", "--target", 3], "--ability"),
    ("mournesim", ["odds", "--ability", 3, "--target", "99999999999999999999"], "--target"),
    ("questsim", ["simulate", "--games", "99999999999999999999999"], "--games"),
    ("questsim", ["replay", "--game", "99999999999999999999"], "--game"),
    ("mournesim", ["simulate", "--games", 2, "--cluster", "nonsense"], "--cluster"),
    ("questsim", ["simulate", "--games", 2, "--cluster", "tcp://host:notaport"], "--cluster"),
])
def test_numbers_too_large_and_bad_addresses_are_one_line(prog, args, needle):
    refused(cli(prog, *args), prog, needle)


def test_a_file_that_is_not_utf8_is_one_line(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('title = "caf\xe9"\n'.encode("latin-1"))
    for prog in MAINS:
        refused(cli(prog, "rules", "check", bad), prog, "not UTF-8")
        refused(cli(prog, "simulate", "--games", 2, "--ruleset", bad), prog, "not UTF-8")
        refused(cli(prog, "experiment", bad), prog, "not UTF-8")


def test_out_under_a_file_is_one_line(tmp_path):
    (tmp_path / "f").write_text("x")
    refused(cli("mournesim", "simulate", "--games", 2, "--out", tmp_path / "f" / "run"), "mournesim",
            "cannot create directory", "in the way")
    refused(cli("mournesim", "report", tmp_path / "f"), "mournesim", "no such results directory")


@pytest.mark.parametrize("edit", [{"cells": []}, {"batch": [0]}, {"seed": -1}, {"games": "many"}])
def test_an_edited_run_description_is_one_line(datasets, tmp_path, edit):
    d = copy(datasets, "s1", tmp_path)
    run = json.loads((d / store.RUN_FILE).read_text())
    run.update(edit)
    run.pop("complete")
    (d / store.RUN_FILE).write_text(json.dumps(run))
    refused(cli("mournesim", "report", d), "mournesim", "corrupt run description", next(iter(edit)))
    refused(cli("mournesim", "simulate", "--resume", d), "mournesim", "corrupt run description")


def test_a_full_disk_keeps_every_finished_part_and_resume_finishes(datasets, tmp_path):
    """A part that cannot be written (the file-size limit; a full disk
    behaves alike): one line naming the part and the cause, exit 2, the
    finished part untouched, and ``--resume`` then gives exactly the rows
    of an uninterrupted run."""
    d = copy(datasets, "s1", tmp_path)
    unfinish(d, drop=[(0, 20)])
    kept = snapshot(d)
    r = sub("mournesim", "simulate", "--resume", d, "--quiet", fsize=8192)
    sub_refused(r, "mournesim", store.part_name(0, 20), "File too large", "1 of 2 batches kept",
                f"mournesim simulate --resume {d}")
    assert snapshot(d) == kept            # no temporary file left, nothing lost
    mq_batch.resume(d, workers=1)
    full = mq_sim.simulate(games=40, seed=1, policy="random")
    pd.testing.assert_frame_equal(store.read_dataset(d), full, check_categorical=False)


@pytest.mark.parametrize("err", [errno.EACCES, errno.EROFS, errno.ENOSPC, errno.EFBIG])
def test_a_failed_write_names_the_file_and_the_cause_and_leaves_nothing(tmp_path, err):
    """No permission, a read-only filesystem, a full disk, the file-size
    limit: one line naming the file and the cause; no half-written file."""
    def half_then_fail(tmp):
        Path(tmp).write_text("half")
        raise OSError(err, os.strerror(err))

    with pytest.raises(atomic.OutputError, match=f"cannot write {tmp_path / 'x.txt'}: {os.strerror(err)}$"):
        atomic.write_with(tmp_path / "x.txt", half_then_fail)
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_disk_mid_run_keeps_the_finished_parts(tmp_path, monkeypatch):
    """The second part of a run cannot be written (EROFS): the run stops with
    one line saying what is kept and how to finish; ``--resume`` then gives
    the rows of an uninterrupted run."""
    import pyarrow.parquet as pq
    write, calls = pq.write_table, []

    def second_fails(table, where, **kw):
        calls.append(where)
        if len(calls) == 2:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return write(table, where, **kw)

    monkeypatch.setattr(store.pq, "write_table", second_fails)
    with pytest.raises(atomic.OutputError, match="Read-only file system; 1 of 2 batches kept in .*"
                                                  "finish with: mournesim simulate --resume"):
        mq_batch.run_grid(**GRID, out=tmp_path / "run")
    monkeypatch.undo()
    assert len(store.parts(tmp_path / "run")) == 1 and [p.name for p in (tmp_path / "run").iterdir()
                                                         if p.name.startswith(".")] == []
    mq_batch.resume(tmp_path / "run", workers=1)
    full = mq_sim.simulate(games=40, seed=1, policy="random")
    pd.testing.assert_frame_equal(store.read_dataset(tmp_path / "run"), full, check_categorical=False)


def test_plots_and_standard_output_that_cannot_be_written(datasets, tmp_path):
    """``--plots`` past the file-size limit: one line naming the plot, no
    half-written file; ``rules show`` into a full file or a closed pipe:
    one line naming standard output."""
    r = sub("mournesim", "report", datasets / "s1", "--plots", tmp_path / "plots", fsize=16384)
    sub_refused(r, "mournesim", str(tmp_path / "plots"), ".png", "File too large")
    assert not [p for p in (tmp_path / "plots").iterdir() if p.name.startswith(".")]
    with open(tmp_path / "shown.txt", "w") as f:
        r = subprocess.run([str(BIN / "questsim"), "rules", "show"], stdout=f, stderr=subprocess.PIPE, text=True,
                           env=env(), timeout=300,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)))
    sub_refused(r, "questsim", "cannot write to standard output", "File too large")
    p = subprocess.Popen([str(BIN / "mournesim"), "rules", "show"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env())
    p.stdout.close()                       # the reader is gone before a line is written
    err = p.stderr.read()
    p.wait(timeout=300)
    sub_refused(subprocess.CompletedProcess(p.args, p.returncode, "", err), "mournesim",
                "cannot write to standard output", "Broken pipe")


# ----------------------------------------------------- 4. nonsense played --

@pytest.mark.parametrize("prog,args,needle", [
    ("mournesim", ["simulate", "--params", "nan,nan"], "nan"),
    ("mournesim", ["simulate", "--params", "inf,-inf"], "inf"),
    ("mournesim", ["simulate", "--params", "1.5,1"], "risk"),
    ("mournesim", ["simulate", "--policy", "planner", "--params", "0.5,1,7,1,1"], "assign"),
    ("mournesim", ["replay", "--params", "nan,1"], "nan"),
    ("questsim", ["simulate", "--params", "0,-5"], "castle_weight"),
    ("questsim", ["replay", "--params", "inf,3"], "inf"),
])
def test_policy_parameters_must_be_finite_and_in_range(prog, args, needle):
    res = cli(prog, *args, *(["--games", 2] if args[0] == "simulate" else []))
    refused(res, prog, "--params", needle)


def _rules_check(tmp_path, *overrides, raw=None):
    import tomli_w
    f = tmp_path / "r.toml"
    f.write_text(tomli_w.dumps(raw if raw is not None else mq_raw()))
    return cli("mournesim", "rules", "check", f, *[x for o in overrides for x in ("--set", o)])


def test_unplayable_rulesets_are_rejected_naming_the_key(tmp_path):
    """A board whose paths leave a key stone unreachable, four heroes set up
    on one start space, fewer heroes than seats, empty equipment decks that
    a solo game's set-up draws from: each is refused by ``rules check`` (and
    so by every command loading it), naming the key."""
    paths = [p for p in mq_raw()["board"]["paths"] if "keystone_n" not in p]
    refused(_rules_check(tmp_path, "board.paths=" + json.dumps(paths)), "mournesim", "paths",
            "keystone_n cannot be reached")
    refused(_rules_check(tmp_path, 'board.seat_starts=["start_n", "start_n", "start_n", "start_n"]'), "mournesim",
            "board.seat_starts", "rules.miniatures_per_space")
    raw = mq_raw()
    raw["heroes"] = {k: raw["heroes"][k] for k in ("jack", "cobs")}
    refused(_rules_check(tmp_path, raw=raw), "mournesim", "heroes", "a four-player game seats four")
    refused(_rules_check(tmp_path, "equipment.courage=[]", "equipment.strength=[]", "equipment.magic=[]"),
            "mournesim", "rules.solo_equipment_value")
    refused(_rules_check(tmp_path, *[f"relics.{k}.count=0" for k in mq_raw()["relics"]]), "mournesim",
            "relics", "Relic Deck is empty")
    # the same ruleset refused by a command that plays it
    refused(cli("mournesim", "simulate", "--games", 2, "--set", 'board.seat_starts=["start_n", "start_n", "start_n", '
                '"start_n"]'), "mournesim", "board.seat_starts")


TUNE = """title = "t"
game = "mournequest"
games = 20
[base]
policy = "random"
players = 1
[tune]
measure = "{measure}"
[[tune.target]]
param = "levels.easy.disc_clicks"
cell = {{ level = "easy" }}
rate = {rate}
range = {range}
"""


def test_a_tune_aimed_at_a_count_is_refused(tmp_path):
    f = tmp_path / "t.toml"
    f.write_text(TUNE.format(measure="rounds", rate=0.5, range="[6, 60]"))
    refused(cli("mournesim", "experiment", f), "mournesim", "tune.measure", "rounds", "count")


# ------------------------------------------------------- 6. processes --

def _start(args, **kw):
    return subprocess.Popen([str(BIN / "mournesim"), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env(), **kw)


def _kill_at_random_moment(args, out, rng, sig=signal.SIGKILL, parts_of=None):
    """Start ``mournesim ARGS``, kill it after a random number of finished
    parts (``parts_of(out)`` counts them) plus a random delay, and check that
    none of its processes outlives it by more than a few seconds."""
    parts_of = parts_of or (lambda d: len(store.parts(d)) if d.is_dir() else 0)
    p = _start(args)
    # SIGTERM is handled once the command is running: at least one part
    want = rng.randint(1 if sig == signal.SIGTERM else 0, 3)
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None and parts_of(out) < want:
        time.sleep(0.05)
    time.sleep(rng.uniform(0, 0.5))
    family = [psutil.Process(p.pid)] + psutil.Process(p.pid).children(recursive=True) if p.poll() is None else []
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    gone = time.time() + 10
    while time.time() < gone and any(_alive(q) for q in family):
        time.sleep(0.1)
    assert not [q.pid for q in family if _alive(q)], "a process outlived the run"
    assert "Traceback" not in err
    return p.returncode, err


def _alive(q):
    try:
        return q.is_running() and q.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_killed_at_random_moments_then_resumed_gives_the_uninterrupted_rows(tmp_path):
    """``simulate --out`` with two workers stopped by SIGTERM at a random
    moment (exit 143 and one line saying how to resume, as for Ctrl-C), its
    ``--resume`` killed with -9 at another: no process outlives either, and
    the final ``--resume`` gives exactly the rows of an uninterrupted run."""
    rng = random.Random(18)
    out = tmp_path / "run"
    # 100 batches: the run lasts a few seconds, so the signal (after 1 to 3
    # batches and up to half a second) comes while it plays, on any machine
    start = ["simulate", "--games", 2000, "--batch", 20, "--players", 2, "--seed", 7, "--workers", 2, "--quiet",
             "--out", out]
    code, err = _kill_at_random_moment(start, out, rng, sig=signal.SIGTERM)
    assert code == 143, err
    (line,) = err.strip().splitlines()
    m = re.fullmatch(rf"mournesim: terminated: (\d+) of 100 batches kept in {re.escape(str(out))}; "
                     rf"finish with: mournesim simulate --resume {re.escape(str(out))}", line)
    # (a part renamed into place just as the signal came is on disk, not yet counted)
    assert m and int(m.group(1)) <= len(store.parts(out)), line
    _kill_at_random_moment(["simulate", "--resume", out, "--workers", 2, "--quiet"], out, rng)
    mq_batch.resume(out, workers=1)
    full = mq_sim.simulate(games=2000, seed=7, players=2)
    pd.testing.assert_frame_equal(store.read_dataset(out), full, check_categorical=False)


EXPERIMENT = """title = "kill"
game = "mournequest"
games = 200
batch = 20
measures = ["win", "rounds"]
[base]
players = 1
[[variant]]
name = "four-actions"
set = ["rules.actions_per_turn=4"]
"""


def test_kill_9_of_an_experiment_then_the_same_command_finishes_it(tmp_path):
    """An experiment killed (-9) at a random moment leaves no process behind;
    running the same command again gives exactly the games of an
    uninterrupted experiment."""
    f = tmp_path / "e.toml"
    f.write_text(EXPERIMENT)
    out, ref = tmp_path / "out", tmp_path / "ref"
    data = out / "data" / "data"
    _kill_at_random_moment(["experiment", f, "--out", out, "--workers", 2, "--quiet"], data, random.Random(6),
                           parts_of=lambda d: len(store.parts(d)) if d.is_dir() else 0)
    for o in (out, ref):
        r = cli("mournesim", "experiment", f, "--out", o, "--workers", 1, "--quiet")
        assert r.exit_code == 0, r.output
    key = ["arm", "level", "players", "game"]
    got = store.read_dataset(data).sort_values(key, ignore_index=True)
    want = store.read_dataset(ref / "data" / "data").sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(got, want, check_categorical=False)


def test_two_runs_into_one_directory_at_once_one_refuses(tmp_path):
    out = tmp_path / "both"
    args = ["simulate", "--games", 200, "--batch", 20, "--players", 2, "--workers", 1, "--quiet", "--out", out]
    a, b = _start(args), _start(args)
    done = [(p.wait(timeout=600), p.stderr.read()) for p in (a, b)]
    assert sorted(c for c, _ in done) == [0, 2], done
    err = next(e for c, e in done if c == 2).strip().splitlines()
    assert len(err) == 1 and ("another run is writing" in err[0] or "already holds a run" in err[0]), err
    full = mq_sim.simulate(games=200, seed=1, players=2)
    pd.testing.assert_frame_equal(store.read_dataset(out), full, check_categorical=False)


# -------------------------------------------------- 7. quiet surprises --

def test_resume_from_another_directory_and_its_summary(tmp_path, monkeypatch):
    """A relative ``--ruleset`` is recorded absolute, so ``--resume`` works
    from anywhere; the summary after it names the run's seed and counts only
    the games it played. A run recorded with a relative path (older
    versions) says where to resume from."""
    start, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start.mkdir()
    elsewhere.mkdir()
    shutil.copy(Path(mq_sim.__file__).with_name("data") / "ruleset.toml", start / "mine.toml")
    monkeypatch.chdir(start)
    r = cli("mournesim", "simulate", "--games", 40, "--batch", 20, "--seed", 7, "--policy", "random",
            "--ruleset", "mine.toml", "--out", "run", "--workers", 1, "--quiet")
    assert r.exit_code == 0, r.output
    assert store.read_run(start / "run")["ruleset"] == str(start / "mine.toml")
    unfinish(start / "run", drop=[(0, 20)])
    monkeypatch.chdir(elsewhere)
    r = cli("mournesim", "simulate", "--resume", start / "run", "--quiet")
    assert r.exit_code == 0, r.output
    assert "seed=7" in r.stdout and "20 games played" in r.stdout and "20 of its 40 games kept from before" in r.stdout
    unfinish(start / "run", drop=[(0, 20)])
    run = store.read_run(start / "run")
    run["ruleset"] = "mine.toml"
    store.write_run(start / "run", run)
    refused(cli("mournesim", "simulate", "--resume", start / "run"), "mournesim", "mine.toml",
            "run --resume from there")


def test_a_tune_range_beyond_the_limit_is_refused_before_any_game(tmp_path):
    f = tmp_path / "t.toml"
    f.write_text(TUNE.format(measure="win", rate=0.5, range="[6, 99]"))
    refused(cli("mournesim", "experiment", f, "--out", tmp_path / "o"), "mournesim", "tune.target.0.range",
            "high end 99", "levels.easy.disc_clicks")
    assert not (tmp_path / "o" / "data").exists()


def test_an_unreachable_tune_target_says_what_to_do(tmp_path):
    f = tmp_path / "t.toml"
    f.write_text(TUNE.format(measure="win", rate=0.99, range="[6, 7]"))
    r = cli("mournesim", "experiment", f, "--workers", 1, "--quiet")
    assert r.exit_code == 0, r.output
    assert "not reached" in r.stdout and "widen the target's range" in r.stdout


def test_an_experiments_arms_are_never_pooled_by_report(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text(EXPERIMENT.replace("games = 200", "games = 20"))
    assert cli("mournesim", "experiment", f, "--out", tmp_path / "o", "--workers", 1, "--quiet").exit_code == 0
    data = tmp_path / "o" / "data" / "data"
    refused(cli("mournesim", "report", data), "mournesim", "2 arms", "--by arm")
    refused(cli("mournesim", "report", data, "--by", "arm", "--plots", tmp_path / "p"), "mournesim", "--plots")
    r = cli("mournesim", "report", data, "--by", "arm")
    assert r.exit_code == 0 and "baseline" in r.stdout and "four-actions" in r.stdout, r.output
    (tmp_path / "o" / "notes.txt").write_text("mine")
    refused(cli("mournesim", "experiment", f, "--out", tmp_path / "o"), "mournesim", "notes.txt")


def test_small_things():
    """``odds --format json`` for one roll is JSON; no help text shows '%%'."""
    r = cli("mournesim", "odds", "--ability", 5, "--target", 9, "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["tables"]["combat odds"][0]["p_win"] > 0
    for prog in MAINS:
        for cmd in ("simulate", "experiment", "report", "replay"):
            h = cli(prog, cmd, "--help")
            assert h.exit_code == 0 and "%%" not in h.stdout, (prog, cmd)


# ------------------------------------- every command, a corpus of bad input --

def _commands(group, prefix=()):
    import click
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + (name,))
        else:
            yield prefix + (name,), cmd


@pytest.mark.parametrize("prog", list(MAINS))
def test_no_command_shows_a_traceback_on_bad_input(prog, datasets, tmp_path, monkeypatch):
    """Every command of both command lines, every option and argument given
    each value of a corpus of bad input (empty, negative, a number too
    large, not a number, a file that is not UTF-8, a path that does not
    exist; for an output directory: empty, or a file in the way): exit 0 or
    2, never a traceback or an internal error, and every error line is
    ``prog: error: ...``."""
    import click
    monkeypatch.chdir(tmp_path)            # whatever a command writes stays here
    latin = tmp_path / "latin1.toml"
    latin.write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    corpus = ["", "-1", "99999999999999999999999", "nan", str(latin), str(tmp_path / "no" / "such")]
    outputs = ["", str(latin)]
    exp = tmp_path / "e.toml"
    exp.write_text(EXPERIMENT.replace("games = 200", "games = 4").replace("mournequest", {
        "mournesim": "mournequest", "questsim": "questmaster"}[prog]).replace(
        "rules.actions_per_turn=4", "rules.actions_per_turn=4" if prog == "mournesim" else "rules.win_hp_above=35")
        .replace('measures = ["win", "rounds"]', "" if prog == "questsim" else 'measures = ["win", "rounds"]'))
    good = {"report": [datasets / ("s1" if prog == "mournesim" else "qm")], "experiment": [exp],
            "check": [Path(__import__(prog).__file__).with_name("data") / "ruleset.toml"]}
    small = {"simulate": ["--games", "2", "--workers", "1", "--quiet"], "experiment": ["--games", "2", "--workers", "1"],
             "replay": [], "bench": ["--games", "100", "--scale-games", "0", "--search-games", "0"]}
    tried = 0
    for path, cmd in [((), None)] + list(_commands(MAINS[prog])):
        if path[-1:] == ("studio",):      # serves until stopped: its bad input is tests/common/test_studio.py's
            continue
        params = [p for p in (cmd.params if cmd else MAINS[prog].params)
                  if not (isinstance(p, click.Option) and (p.is_flag or p.name in ("help", "version")))]
        for param in params:
            is_dir = isinstance(param.type, click.Path) and not param.type.file_okay
            for bad in (outputs if is_dir else corpus):
                if isinstance(param, click.Argument):
                    args = [*path, *small.get(path[-1], []), bad]
                elif cmd is None:
                    args = [param.opts[0], bad, "policies"]
                else:
                    base = small.get(path[-1], [])
                    base = [x for i, x in enumerate(base) if x != param.opts[0] and base[i - 1] != param.opts[0]] \
                        if param.opts[0] in base else base
                    args = [*path, *good.get(path[-1], []), *base, param.opts[0], bad]
                res = cli(prog, *args)
                tried += 1
                where = (args, res.exit_code, res.output[-400:])
                assert res.exit_code in (0, 2), where
                assert "Traceback" not in res.output and "internal error" not in res.output, where
                assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception))
                if res.exit_code == 2:
                    lines = res.stderr.strip().splitlines()
                    assert lines and all(x.startswith(f"{prog}: error: ") for x in lines), where
    assert tried > 200


# ------------------------- 5. plug-ins (Quest Master; MourneQuest: test_plugins) --

class _FakeEngine:
    """Stands in for the engine (no compile): its one game ends
    with an illegal choice counted, or its policy raises."""

    def __init__(self, fault):
        self.fault = fault

    def play_logged(self, seed, game, players, chars, pids, pp, T, ev, snaps, final):
        from questsim import layout as QL
        if self.fault == "raise":
            raise ValueError("the policy broke on purpose")
        final[QL.G_ILLEGAL] = 1
        return 0


@pytest.mark.parametrize("fault, message", [("illegal", "returned an action that was not legal 1 time(s) in this game"),
                                            ("raise", "policy greedy failed while playing: ValueError")])
def test_quest_master_replay_refuses_an_illegal_or_broken_policy(monkeypatch, fault, message):
    """``questsim replay`` refuses a game in which the policy chose illegally
    (as simulate does), and a policy's exception is one line naming it."""
    from questsim import plugins as qm_plugins
    monkeypatch.setattr(qm_plugins, "engine_for", lambda info: _FakeEngine(fault))
    refused(cli("questsim", "replay", "--players", 3), "questsim", message)


def test_an_empty_plugin_cache_variable_means_the_default_not_the_current_directory(monkeypatch, tmp_path):
    """``MOURNESIM_CACHE=`` (set but empty, as ``export A=x B=$A`` leaves it)
    must not write generated entry points into whatever directory the user
    is in."""
    from pathlib import Path
    from simcore.generated import cache_root
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MOURNESIM_CACHE", "")
    assert cache_root("MOURNESIM_CACHE", "mournesim") == Path(tmp_path) / ".cache" / "mournesim" / "engines"
    monkeypatch.setenv("MOURNESIM_CACHE", str(tmp_path / "c"))
    assert cache_root("MOURNESIM_CACHE", "mournesim") == tmp_path / "c" / "engines"
