"""Runs know which engine made them (shared/design.md, "Per-game results").

- The golden test: reference games of every policy of both games match the
  digests stored for the current behaviour version (simcore.golden). It fails
  when any game changes and ``BEHAVIOUR_VERSION`` was not bumped.
- Datasets and experiment directories record the behaviour version and the
  source hash; ``--resume`` and experiment re-use refuse games of another
  behaviour version with one line and exit 2, deleting nothing; a different
  build with the same behaviour version is accepted.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mournesim
import questsim
from simcore import golden, identity, store

EXE = Path(sys.executable).parent


@pytest.mark.parametrize("package", ["mournesim", "questsim"])
def test_reference_games_match_the_behaviour_version(package):
    assert golden.problems(package) == []


def test_golden_check_notices_a_changed_game(tmp_path, monkeypatch):
    """A changed digest with an unchanged version is reported by name."""
    stored = json.loads(golden.path_of("questsim").read_text())
    name = sorted(stored["digests"])[0]
    stored["digests"][name] = "0" * 64
    monkeypatch.setattr(golden, "GOLDEN_DIR", tmp_path)
    (tmp_path / "questsim.json").write_text(json.dumps(stored))
    (msg,) = golden.problems("questsim")
    assert name in msg and "bump questsim.BEHAVIOUR_VERSION" in msg
    stored["behaviour_version"] += 1
    (tmp_path / "questsim.json").write_text(json.dumps(stored))
    (msg,) = golden.problems("questsim")
    assert "regenerate" in msg


def test_identity_names_version_and_sources():
    e = identity.engine("mournesim")
    assert e["behaviour_version"] == mournesim.BEHAVIOUR_VERSION
    assert len(e["engine_hash"]) == 12
    assert identity.engine("questsim")["behaviour_version"] == questsim.BEHAVIOUR_VERSION


def _run(*args):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    return subprocess.run([str(EXE / args[0]), *args[1:]], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.parametrize("prog", ["mournesim", "questsim"])
def test_resume_refuses_games_of_another_engine(tmp_path, prog):
    """``--resume`` on a dataset written by another behaviour version: one
    line, exit 2, and every file left as it was."""
    out = tmp_path / "run"
    r = _run(prog, "simulate", "--games", "40", "--batch", "20", "--workers", "1", "--quiet", "--out", str(out))
    assert r.returncode == 0, r.stderr
    meta = store.read_run(out)
    assert meta["behaviour_version"] == identity.engine(prog)["behaviour_version"]
    assert meta["engine_hash"] == identity.engine(prog)["engine_hash"]
    # an older engine's unfinished run: one part lost, the version recorded is older
    part = sorted(store.parts(out).values())[-1]
    part.unlink()
    meta.pop("complete")
    meta["behaviour_version"] -= 1
    store.write_run(out, meta)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir())
    r = _run(prog, "simulate", "--resume", str(out), "--quiet")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "behaviour v" in lines[0] and "Traceback" not in r.stderr
    assert sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir()) == before
    # the same behaviour version from another build (a refactor) finishes the run
    meta["behaviour_version"] += 1
    meta["engine_hash"] = "000000000000"
    store.write_run(out, meta)
    r = _run(prog, "simulate", "--resume", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert store.read_run(out)["complete"]


def test_resume_refuses_the_other_games_dataset(tmp_path):
    out = tmp_path / "qm"
    assert _run("questsim", "simulate", "--games", "20", "--workers", "1", "--quiet", "--out", str(out)).returncode == 0
    r = _run("mournesim", "simulate", "--resume", str(out), "--quiet")
    assert r.returncode == 2 and "questsim games" in r.stderr and "Traceback" not in r.stderr


def test_experiment_reuse_refuses_another_engine(tmp_path):
    """Re-running an experiment into its directory re-uses finished games only
    when they come from the same behaviour version."""
    exp = tmp_path / "e.toml"
    exp.write_text('game = "mournequest"\ntitle = "t"\ngames = 20\n[base]\nplayers = "2"\n'
                   '[[variant]]\nname = "more"\nset = ["rules.actions_per_turn=4"]\n')
    out = tmp_path / "x"
    r = _run("mournesim", "experiment", str(exp), "--out", str(out), "--quiet", "--workers", "1")
    assert r.returncode == 0, r.stderr
    run_file = next((out / "data").rglob(store.RUN_FILE))
    run = json.loads(run_file.read_text())
    run["behaviour_version"] -= 1
    run_file.write_text(json.dumps(run))
    r = _run("mournesim", "experiment", str(exp), "--out", str(out), "--quiet", "--workers", "1")
    assert r.returncode == 2 and "behaviour v" in r.stderr and "Traceback" not in r.stderr
