"""Fault injection for output folders, plug-in processes and the install:

1. nothing in a folder is lost — a command writes only into a new or empty
   folder or one it can prove is its own (``_written.json``, simcore.outdir),
   never over a file of the user's, never deleting a user's file that merely
   looks like one of its temporary files;
2. plug-ins play only in worker processes, warm-up included — SIGTERM stops
   a plug-in that never returns, a plug-in that ends its process is one line
   (never a silent exit 0), and a dying replay child leaves no traceback;
3. a read-only install used by an account with no writable home works;
4. an experiment's dataset is never "resumed" as a simulate run.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from simcore import outdir
from simcore.errors import InputError

BIN = Path(sys.executable).parent
ROOT = Path(__file__).parents[2]
EXPERIMENT = ROOT / "experiments" / "snipe-strength.toml"


def run(prog, *args, env=None, **kw):
    e = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    e.update(env or {})
    return subprocess.run([str(BIN / prog), *map(str, args)], capture_output=True, text=True, env=e,
                          timeout=600, **kw)


def one_line(r, prog, *needles):
    """Exit 2 and exactly one line on stderr, ``prog: error: ...``, naming every needle."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    got = r.stderr.strip().splitlines()
    assert len(got) == 1 and got[0].startswith(f"{prog}: error: "), got
    for n in needles:
        assert n in got[0], (n, got)


def tree(d):
    """Every file under ``d`` with its bytes."""
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(Path(d).rglob("*")) if p.is_file()}


# ---- 1. output folders ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def experiment_out(tmp_path_factory):
    """A finished experiment (20 games a cell) in a folder of its own."""
    out = tmp_path_factory.mktemp("exp") / "out"
    r = run("mournesim", "experiment", EXPERIMENT, "--games", "20", "--workers", "1", "--quiet", "--out", out)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


@pytest.mark.parametrize("name", ["index.html", "report.md", "notes.txt", ".x.tmp", ".tmp-1"])
def test_an_experiment_never_writes_into_a_folder_holding_a_users_file(tmp_path, name):
    """``experiment --out DIR`` where DIR holds a file of the user's (even one
    named like the experiment's own page or like a temporary file) is refused
    before any game, and the file is left exactly as it was."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / name).write_text("<p>the user's own</p>")
    before = tree(out)
    r = run("mournesim", "experiment", EXPERIMENT, "--games", "20", "--workers", "1", "--quiet", "--out", out)
    one_line(r, "mournesim", str(out), name)
    assert tree(out) == before


def test_an_experiment_rewrites_its_own_folder_but_not_a_file_changed_or_added_since(experiment_out, tmp_path):
    """The same command again re-uses the folder it wrote (its record lists
    every file with its digest); a report the user edited since, or a file
    the user put there, is refused by name and kept byte for byte."""
    out = Path(shutil.copytree(experiment_out, tmp_path / "again"))
    record = json.loads((out / outdir.WRITTEN).read_text())
    assert {"report.md", "index.html", "comparisons.csv", "changes.png", "data/"} <= set(record["files"])
    args = ("experiment", EXPERIMENT, "--games", "20", "--workers", "1", "--quiet", "--out", out)
    r = run("mournesim", *args)
    assert r.returncode == 0, r.stderr[-2000:]
    (out / "report.md").write_text((out / "report.md").read_text() + "\nmy own notes\n")
    before = tree(out)
    one_line(run("mournesim", *args), "mournesim", "report.md changed since")
    assert tree(out) == before
    (out / "report.md").unlink()
    (out / "data" / "notes.txt").write_text("mine")
    before = tree(out)
    one_line(run("mournesim", *args), "mournesim", "data/notes.txt")
    assert tree(out) == before


def test_a_simulate_out_keeps_a_users_files_that_look_temporary(tmp_path):
    """A fresh ``simulate --out`` refuses a folder holding a user's hidden
    ``.x.tmp`` or ``.tmp-notes`` (it used to delete them as its own); the
    temporary name of its own run description, left by an attempt killed
    before its first batch, is still cleared."""
    out = tmp_path / "run"
    out.mkdir()
    for n in (".x.tmp", ".tmp-notes"):
        (out / n).write_text("mine")
    one_line(run("mournesim", "simulate", "--games", "20", "--quiet", "--workers", "1", "--out", out),
             "mournesim", ".tmp-notes", ".x.tmp")
    assert sorted(os.listdir(out)) == [".tmp-notes", ".x.tmp"]
    fresh = tmp_path / "cut-short"
    fresh.mkdir()
    (fresh / "._run.json.tmp").write_text("{")
    r = run("mournesim", "simulate", "--games", "20", "--quiet", "--workers", "1", "--out", fresh)
    assert r.returncode == 0, r.stderr
    assert "._run.json.tmp" not in os.listdir(fresh)
    (fresh / ".y.tmp").write_text("mine")
    one_line(run("mournesim", "simulate", "--resume", fresh, "--quiet"), "mournesim", ".y.tmp")
    assert (fresh / ".y.tmp").read_text() == "mine"


def test_plots_go_only_into_a_folder_of_their_own(experiment_out, tmp_path):
    """``report DIR --plots P``: P holding a user's PNG of the same name is
    refused before the report is printed and the PNG kept; a new folder
    works, and the same command into it again works."""
    data = tmp_path / "run"
    assert run("mournesim", "simulate", "--games", "20", "--quiet", "--workers", "1", "--out", data).returncode == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "dice_pool.png").write_bytes(b"my picture")
    r = run("mournesim", "report", data, "--plots", mine)
    one_line(r, "mournesim", "dice_pool.png")
    assert r.stdout == "" and (mine / "dice_pool.png").read_bytes() == b"my picture"
    plots = tmp_path / "plots"
    for _ in range(2):
        r = run("mournesim", "report", data, "--plots", plots)
        assert r.returncode == 0, r.stderr
    assert "dice_pool.png" in os.listdir(plots) and outdir.WRITTEN in os.listdir(plots)


def test_a_record_that_is_not_ours_is_refused(tmp_path):
    """A ``_written.json`` the tool did not write (corrupt, another shape,
    or too deeply nested to read) proves nothing: refused, untouched."""
    for text in ("{", "[]", '{"files": {}}', "[" * 100_000 + "]" * 100_000):
        d = tmp_path / str(len(text))
        d.mkdir()
        (d / outdir.WRITTEN).write_text(text)
        with pytest.raises(InputError, match="not a record this tool wrote"):
            with outdir.owned(d, "--out"):
                pass
        assert os.listdir(d) == [outdir.WRITTEN]


_NAMES = st.text(st.sampled_from("abcxyz._-~ 0tmpjsonrepot"), min_size=1, max_size=12).filter(
    lambda n: n not in (".", "..", "a.csv", outdir.WRITTEN))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_NAMES, min_size=1, max_size=4, unique=True), sub=st.booleans())
def test_any_file_of_the_users_in_a_folder_is_refused_and_kept(tmp_path_factory, names, sub):
    """Whatever a user's files are called (like the tool's own files, like
    its temporary files, hidden or not), in a folder the tool never wrote
    or beside its own files, or in a sub-folder of its own: the folder is
    refused and every file is kept byte for byte."""
    d = tmp_path_factory.mktemp("owned")
    if sub:                                  # a folder the tool wrote, then the user's files in it
        with outdir.owned(d, "--out") as o:
            o.write_text("report.md", "ours")
            o.write_text("tables/a.csv", "x")
    where = d / "tables" if sub else d
    for n in names:
        (where / n).write_bytes(n.encode() * 3)
    before = tree(d)
    with pytest.raises(InputError, match="did not write"):
        with outdir.owned(d, "--out"):
            pass
    assert tree(d) == before


def test_a_write_cut_short_leaves_a_folder_the_next_run_can_use(tmp_path):
    """A name is recorded before its file is written: a run killed between
    the two (its temporary file left behind) leaves a folder the next run
    still knows as its own, and the temporary file is cleared."""
    d = tmp_path / "out"
    with outdir.owned(d, "--out") as o:
        o.write_text("a.txt", "one")
        o._claim("b.txt")                       # killed here: b.txt recorded, not yet written
        (d / ".b.txt.tmp").write_text("half")
    with outdir.owned(d, "--out") as o:
        assert not (d / ".b.txt.tmp").exists()
        o.write_text("b.txt", "two")
    assert (d / "a.txt").read_text() == "one" and (d / "b.txt").read_text() == "two"


# ---- 2. plug-ins play only in worker processes ----------------------------------------------

LOOPER = '''
from numba import njit
from mournesim.plugins import register_policy
from mournesim.policies import greedy


@njit(cache=True)
def looper(s, T, legal, n, rng, pp, h):
    k = 1
    while k != 0:          # Park-Miller never reaches 0: never returns
        k = (k * 16807) % 2147483647
    return greedy(s, T, legal, n, rng, pp, h)


register_policy("looper", looper, params={"risk": 0.55, "charm_weight": 1.0, "talisman": 1.0})
'''

EXITER = '''
import os
from numba import njit, objmode
from mournesim.plugins import register_policy
from mournesim.policies import greedy


@njit(cache=True)
def exiter(s, T, legal, n, rng, pp, h):
    with objmode():
        os._exit(0)
    return greedy(s, T, legal, n, rng, pp, h)


register_policy("exiter", exiter, params={"risk": 0.55, "charm_weight": 1.0, "talisman": 1.0})
'''


@pytest.fixture(scope="module")
def plugs(tmp_path_factory):
    d = tmp_path_factory.mktemp("plugs")
    (d / "looper.py").write_text(LOOPER)
    (d / "exiter.py").write_text(EXITER)
    return d


def test_sigterm_stops_a_plug_in_that_never_returns_even_in_its_first_game(plugs):
    """The warm-up game of a plug-in plays in a child process: SIGTERM ends
    ``simulate`` of a policy that never returns with status 143 (it used to
    loop in the main process until killed), leaving no process behind."""
    import psutil
    p = subprocess.Popen([str(BIN / "mournesim"), "--plugin", str(plugs / "looper.py"), "simulate", "--policy",
                          "looper", "--games", "10", "--workers", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    me = psutil.Process(p.pid)
    deadline = time.time() + 300
    while time.time() < deadline and not me.children(recursive=True):    # the warm-up child has started
        time.sleep(0.5)
    time.sleep(3)
    kids = me.children(recursive=True)
    assert kids, "no child process played the plug-in's first game"
    p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail("SIGTERM did not stop the run")
    assert p.returncode == 143, err
    assert "Traceback" not in err and "terminated" in err
    time.sleep(1)
    assert not [k for k in kids if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]


def test_a_plug_in_that_ends_its_process_is_one_line_never_a_silent_exit_0(plugs):
    """``os._exit(0)`` inside a plug-in: ``simulate`` used to exit 0 with no
    output; now one line naming the policy, exit 2. ``replay`` the same, and
    never the pool's exit-time traceback (it came in about half the runs)."""
    r = run("mournesim", "--plugin", plugs / "exiter.py", "simulate", "--policy", "exiter", "--games", "10")
    one_line(r, "mournesim", "exiter", "ended before the game did")
    for _ in range(4):
        r = run("mournesim", "--plugin", plugs / "exiter.py", "replay", "--seed", "1", "--game", "0",
                "--policy", "exiter")
        one_line(r, "mournesim", "ended before the game did")
        assert r.stdout == ""


# ---- 3. a read-only install, no writable home ----------------------------------------------

def _can_unshare():
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    return subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs root and unshare for a private read-only mount")
def test_a_read_only_install_with_no_writable_home_works(tmp_path):
    """The checkout (the installed package) and the home mounted read-only
    in a private mount namespace: every command used to end at import in
    numba's "cannot cache function" traceback. Now numba's cache goes to a
    folder of the user's own in the temporary directory, and the commands
    run."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    script = f"""
set -e
mount --bind {ROOT} {ROOT} && mount -o remount,ro,bind {ROOT}
mount --bind {home} {home} && mount -o remount,ro,bind {home}
cd {home}
{BIN / 'mournesim'} rules show > /dev/null
{BIN / 'questsim'} policies > /dev/null
{sys.executable} -c 'import os, simcore; print(os.environ["NUMBA_CACHE_DIR"])'
"""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR")}
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "bash", "-c", script], capture_output=True,
                       text=True, env=dict(env, HOME=str(home), TMPDIR=str(tmp)), timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    assert r.stdout.strip().startswith(str(tmp)), r.stdout


# ---- 4. an experiment's games are the experiment's ----------------------------------------

def test_resuming_an_experiments_games_says_to_run_the_experiment_again(experiment_out):
    """``simulate --resume`` of an experiment's dataset used to blame the
    ruleset hash (the experiment records none); it now says whose games
    they are and the command that goes on with them."""
    r = run("mournesim", "simulate", "--resume", experiment_out / "data" / "data")
    one_line(r, "mournesim", "holds the games of experiment", "mournesim experiment")


@pytest.mark.parametrize("script, out, written, args", [
    ("ladder.py", "ladder.csv", ["ladder.csv"], []),
    ("ladder.py", "ladder.csv", ["ladder-heroes.csv"], ["--heroes"]),
    ("planner_parts.py", "parts.csv", ["parts.csv"], []),
    ("unused_rules.py", "unused", ["unused-decisions.csv", "unused-forced.csv"], []),
])
def test_an_example_script_never_writes_over_a_users_file(tmp_path, script, out, written, args):
    """The example scripts (the published ladders run them) write a table
    and a JSON sidecar holding its digest: a table of the user's by that
    name, or one changed since the script wrote it, is refused before any
    game and kept byte for byte (``outdir.check_files``)."""
    mine = tmp_path / written[0]
    mine.write_text("the user's own table\n")
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "mournequest" / "examples" / script), "--out",
                        str(tmp_path / out)] + args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr[-2000:]
    got = r.stderr.strip().splitlines()
    assert len(got) == 1 and got[0].startswith(f"{script}: error: ") and written[0] in got[0], got
    assert mine.read_text() == "the user's own table\n"
    assert sorted(os.listdir(tmp_path)) == [written[0]]


def test_the_quest_master_ladder_never_writes_over_a_users_character_table(tmp_path):
    """``qm_rollout.py --characters`` writes ``<out>-characters.csv`` beside
    its table: a file of the user's by that name is refused before any game
    and kept byte for byte."""
    mine = tmp_path / "ladder-characters.csv"
    mine.write_text("the user's own table\n")
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "questmaster" / "examples" / "qm_rollout.py"),
                        "--out", str(tmp_path / "ladder.csv"), "--characters", "--games", "2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr[-2000:]
    got = r.stderr.strip().splitlines()
    assert len(got) == 1 and got[0].startswith("qm_rollout.py: error: ") and mine.name in got[0], got
    assert mine.read_text() == "the user's own table\n"
    assert sorted(os.listdir(tmp_path)) == [mine.name]


def test_a_sidecar_proves_only_the_file_it_wrote(tmp_path):
    """``write_files`` records each file's digest in the sidecar; the same
    write again is allowed, a changed file or a sidecar that is not ours is
    refused, and a write cut short (names recorded, files not) is resumed."""
    table, stamp = tmp_path / "t.csv", tmp_path / "t.json"
    outdir.write_files(stamp, {table: lambda tmp: Path(tmp).write_text("a\n")}, {"games": 1}, "test")
    assert json.loads(stamp.read_text())["games"] == 1
    outdir.write_files(stamp, {table: lambda tmp: Path(tmp).write_text("b\n")}, {"games": 2}, "test")
    table.write_text("edited\n")
    with pytest.raises(InputError, match="changed since"):
        outdir.check_files(stamp, [table], "test")
    stamp.write_text('{"games": 3}')
    table.unlink()
    with pytest.raises(InputError, match="did not write"):
        outdir.check_files(stamp, [table], "test")
    stamp.write_text(json.dumps({"written": {"t.csv": None}}))      # cut short after naming it
    table.write_text("half")
    outdir.check_files(stamp, [table], "test")
