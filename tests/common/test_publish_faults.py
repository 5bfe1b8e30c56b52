"""``python -m experiments.publish`` under bad input, interruption and
staleness: every bad argument is one ``publish: error:`` line and exit 2
before anything is written; ``--quick`` never writes into the repository's
published tree; Ctrl-C (130) and SIGTERM (143) end with one line and the
same command goes on; ``--check`` finds quick artefacts, a report.md and
index.html that disagree, and a step cut short before its stamp.

Cheap: one tiny real step (the quick MourneQuest grid, 1,440 games) shared
by the module, a few seconds of the full Quest Master grid for the signals
(interrupted long before it ends), and subprocesses that stop at their
arguments."""
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

from experiments import publish

ROOT = Path(__file__).parents[2]
GRID = "experiments/results/mq-grid"


def _publish(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "experiments.publish", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _one_error(r, *words):
    """Exit 2 and exactly one ``publish: error:`` line on stderr (no traceback)."""
    lines = r.stderr.splitlines()
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("publish: error: "), r.stderr[-2000:]
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def quick_root(tmp_path_factory):
    """A scratch root holding the quick MourneQuest grid (the tiny real step)."""
    root = tmp_path_factory.mktemp("pub") / "root"
    r = _publish("--quick", "--root", root, "--only", "mq-grid", "--workers", "1")
    assert r.returncode == 0, r.stderr[-3000:]
    return root


@pytest.fixture
def root_copy(quick_root, tmp_path):
    dst = tmp_path / "root"
    shutil.copytree(quick_root, dst)
    return dst


def _manifest(root):
    return json.loads((root / publish.MANIFEST).read_text())


# ---- bad input: one line, exit 2, nothing written -------------------------------------------------------

def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys):
    """Each refused before anything is written; the first and the parser's
    own refusal in a process of their own, the rest through ``main`` in this
    one (the same code, without a process's start-up each)."""
    (tmp_path / "afile").write_text("x")
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("this is [not toml\n")
    wrong = tmp_path / "wrong.toml"
    wrong.write_text("[meta]\nfoo = 1\n")
    new = tmp_path / "new"
    cases = [
        (["--ruleset", f"mournesim={tmp_path / 'missing.toml'}"], ["--ruleset mournesim=", "no such ruleset file"]),
        (["--ruleset", f"mournesim={bad_toml}"], ["not valid TOML"]),
        (["--ruleset", f"questsim={wrong}"], ["more problem(s)"]),
        (["--ruleset", "nosuchgame=x.toml"], ["no game 'nosuchgame'", "mournesim", "questsim"]),
        (["--ruleset", "mournesim"], ["expected PACKAGE=FILE"]),
        (["--root", tmp_path / "afile"], ["is a file, not a directory"]),
        (["--workers", "-3"], ["Invalid value for '--workers': -3 is not in the range 1<=x<=512."]),
        (["--workers", "0"], ["Invalid value for '--workers': 0 is not in the range 1<=x<=512."]),
        (["--workers", "many"], ["Invalid value for '--workers'"]),
        (["--cluster", "nonsense"], ["--cluster 'nonsense': expected local or a scheduler address"]),
        (["--only", "mq-grid,nosuchstep"], ["--only nosuchstep: no such step"]),
        (["--no-such-option"], ["unrecognized arguments: --no-such-option"]),
        (["--check", "--again"], ["--check plays nothing"]),
    ]
    for i, (args, words) in enumerate(cases):
        extra = [] if "--root" in args or "--check" in args else \
            ["--quick", "--root", new] + ([] if "--only" in args else ["--only", "tables"])
        if i == 0 or "--no-such-option" in args:
            r = _publish(*args, *extra)
        else:
            status = publish.main([str(a) for a in (*args, *extra)])
            r = subprocess.CompletedProcess(args, status, *capsys.readouterr())
        _one_error(r, *words)
        assert "Traceback" not in r.stderr
        assert not new.exists(), args          # refused before anything is written


def test_a_known_game_key_names_its_package_in_ruleset():
    r = _publish("--check", "--ruleset", f"mournequest={ROOT / 'mournesim' / 'data' / 'ruleset.toml'}")
    assert r.returncode == 0, r.stdout + r.stderr


def test_quick_never_writes_into_the_published_tree(capsys, monkeypatch):
    before = (ROOT / publish.MANIFEST).read_bytes()
    monkeypatch.chdir(ROOT)                      # "." is the repository, as for a reader at its root
    for root in (ROOT, ".", ROOT / "experiments" / "results" / "scratch", ROOT / "docs", ROOT / "notebooks" / "x"):
        status = publish.main(["--quick", "--root", str(root), "--only", "tables"])
        _one_error(subprocess.CompletedProcess(root, status, *capsys.readouterr()), "--root")
    assert not (ROOT / "experiments" / "results" / "scratch").exists()
    assert not (ROOT / "notebooks" / "x").exists()
    assert (ROOT / publish.MANIFEST).read_bytes() == before


def test_a_root_of_the_users_own_files_is_refused(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    r = _publish("--root", mine, "--only", "tables")
    _one_error(r, "holds files publish did not write", "notes.txt")
    assert os.listdir(mine) == ["notes.txt"]


# ---- --check: what defines a figure, and its own stamp ---------------------------------------------------

def test_quick_artefacts_read_as_stale_in_the_repository(quick_root, monkeypatch):
    """In its own root a quick artefact is current; where the published
    study lives (ROOT) it is not: 60 games per cell, the study uses 50,000."""
    assert publish.stale(quick_root) == []
    from experiments import manifest
    monkeypatch.setattr(manifest, "ROOT", quick_root)     # as if the quick run had written into the repository
    problems = publish.stale(quick_root)
    assert problems == [f"{GRID}/report.md: made with 60 games per cell (a --quick run), the study uses "
                        "50,000 games per cell"], problems


def test_small_counts_seed_and_policies_are_compared_with_the_study(root_copy):
    """An entry as the old pipeline wrote it for --quick into the repository
    (no quick mark), or with another seed or policies, is stale."""
    man = _manifest(root_copy)
    ladder = "experiments/results/qm-ladder/ladder.csv"
    man[ladder]["games"] = 100
    man["experiments/results/hero-courage/report.md"]["seed"] = 7
    man["notebooks/what-if.ipynb"]["games"] = "GAMES = 150"
    (root_copy / publish.MANIFEST).write_text(json.dumps(man))
    problems = publish.stale(root_copy)
    assert f"{ladder}: made with 100 games per cell, the study uses 100,000 games per cell" in problems
    assert "experiments/results/hero-courage/report.md: made with seed 7, the study uses 1" in problems
    assert any(p.startswith("notebooks/what-if.ipynb: made with games 'GAMES = 150'") for p in problems)
    assert any(p.startswith(f"{ladder.replace('.csv', '.json')}: says games 100000") for p in problems)


def test_an_experiment_is_played_again_only_when_its_files_settings_change(tmp_path, monkeypatch):
    """An experiment's artefacts record a digest of its file's settings: the
    published two-combat-dice artefacts are current, so publish would not
    play them again (with --again it would); the same file with a comment
    reworded is still current; with one more arm both artefacts, the
    study's seed and the independent one, are stale."""
    from experiments import artefacts, manifest
    rels = ["experiments/results/two-combat-dice/report.md", "experiments/results/two-combat-dice-again/report.md"]
    assert manifest.stale(ROOT, only=set(rels)) == []
    assert publish._current_artefact(publish.Ctx(ROOT, publish.FULL, 1, None, False, {}), rels[0])
    assert not publish._current_artefact(publish.Ctx(ROOT, publish.FULL, 1, None, False, {}, again=True), rels[0])
    text = (ROOT / "experiments" / "two-combat-dice.toml").read_text()
    f = tmp_path / "two-combat-dice.toml"
    real = manifest._study

    def study(n, exps):          # the study, with the file at f in place of the shipped one
        return {rel: dict(w, spec=artefacts.experiment_spec(f)) if rel in rels else w
                for rel, w in real(n, exps).items()}
    monkeypatch.setattr(manifest, "_study", study)
    f.write_text("# reworded\n" + text)
    assert manifest.stale(ROOT, only=set(rels)) == []
    f.write_text(text + '\n[[variant]]\nname = "more"\nset = ["rules.starting_dice=3"]\n')
    problems = manifest.stale(ROOT, only=set(rels))
    assert sorted(p.split(":")[0] for p in problems) == sorted(rels), problems
    assert all("made from other settings than experiments/two-combat-dice.toml holds now" in p for p in problems)


def test_report_and_index_that_disagree_read_as_stale(root_copy):
    """index.html of the published 50,000-game grid beside a 60-game
    report.md (a write cut short between the two): stale, and --check says so."""
    shutil.copy(ROOT / GRID / "index.html", root_copy / GRID / "index.html")
    r = _publish("--check", "--root", root_copy)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{GRID}/index.html: its '> Made by' line (50,000 games per cell) does not match" in r.stdout
    shutil.copy(ROOT / GRID / "report.md", root_copy / GRID / "report.md")      # and the other way round
    assert any(p.startswith(f"{GRID}/report.md: its '> Made by' line (50,000 games per cell)")
               for p in publish.stale(root_copy))


def test_a_step_cut_short_before_its_stamp_is_not_current(root_copy, monkeypatch, capsys):
    """A grid whose page is missing (so stale, its games still on disk) is
    written again; the step dies after rewriting report.md, before
    index.html and its stamp: the manifest no longer claims the artefact
    current; the same command then finishes it."""
    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("simcore.html_report.tables_page", boom)
    (root_copy / GRID / "index.html").unlink()
    report = root_copy / GRID / "report.md"
    stamp_before = _manifest(root_copy)[f"{GRID}/report.md"]
    os.utime(report, (0, 0))
    args = ["--quick", "--root", str(root_copy), "--only", "mq-grid", "--workers", "1"]
    assert publish.main(args) == 130
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("publish: interrupted:") and "run the same command again" in err
    assert report.stat().st_mtime > 0                     # rewritten ...
    entry = _manifest(root_copy)[f"{GRID}/report.md"]
    assert entry.get("pending") is True                   # ... and its old stamp no longer holds
    assert {k: v for k, v in entry.items() if k != "pending"} == stamp_before
    assert any("cut short" in p for p in publish.stale(root_copy))
    monkeypatch.undo()
    assert publish.main(args) == 0                        # the same command: played games re-used
    assert publish.stale(root_copy) == []
    assert "pending" not in _manifest(root_copy)[f"{GRID}/report.md"]


# ---- Ctrl-C and SIGTERM: one line, 130 / 143, and the run goes on -----------------------------------

def _parts(data):
    return {p.name: p.stat().st_mtime_ns for p in data.glob("part-*")} if data.is_dir() else {}


def _signalled(root, sig, more_than, rules):
    """Start the full Quest Master grid into ``root`` on ruleset file
    ``rules`` (not the shipped one, whose grid is current and would not be
    played again); once it holds more than ``more_than`` finished batches,
    send ``sig``. Returns (exit status, stderr, the batches on disk)."""
    data = root / "experiments" / "results" / "qm-grid" / "data"
    p = subprocess.Popen([sys.executable, "-m", "experiments.publish", "--root", str(root), "--only", "qm-grid",
                          "--workers", "1", "--ruleset", f"questsim={rules}"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        t = time.monotonic()
        while len(_parts(data)) <= more_than:
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() - t < 300, "no batch finished"
            time.sleep(0.05)
        p.send_signal(sig)
        err = p.communicate(timeout=120)[1]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, err, _parts(data)


def test_ctrl_c_and_sigterm_end_with_one_line_and_the_run_resumes(tmp_path):
    root = tmp_path / "full"
    rules = tmp_path / "my-ruleset.toml"
    rules.write_text((ROOT / "questsim" / "data" / "ruleset.toml").read_text().replace("hand_limit = 5", "hand_limit = 6", 1))
    rc, err, first = _signalled(root, signal.SIGINT, 0, rules)
    assert rc == 130, err
    assert "Traceback" not in err and err.splitlines()[-1] == (
        "publish: interrupted: every finished batch and artefact is kept; run the same command again to go on")
    assert sum(x.startswith("publish: interrupted") for x in err.splitlines()) == 1
    assert first
    rc, err, second = _signalled(root, signal.SIGTERM, len(first), rules)
    assert rc == 143, err
    assert "Traceback" not in err and err.splitlines()[-1].startswith("publish: terminated: ")
    assert {k: second[k] for k in first} == first         # the finished batches kept, not played again
    assert len(second) > len(first)                       # and the run went on
    assert "experiments/results/qm-grid/report.md" in _manifest(root)   # the copied stamp ...
    assert publish.stale(root) == []                      # ... of the untouched published report
