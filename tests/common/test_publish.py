"""One command regenerates every published figure, and a check
that plays nothing says which published figures are stale.

The whole pipeline runs here in its --quick mode (small game counts) into a
scratch copy of the docs, results and notebooks; the committed artefacts are
checked against the installed engine and rulesets without playing a game."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from experiments import publish

ROOT = Path(__file__).parents[2]


def _publish(*args):
    return subprocess.run([sys.executable, "-m", "experiments.publish", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)


def test_quick_pipeline_regenerates_every_artefact(tmp_path):
    """Every step runs; each artefact it lists exists and carries its stamp;
    every shipped experiment file played on 20 games a cell (4 for a search
    player's; a tune on a budget of 4) and wrote its report; each expert
    budget curve played at its first two budgets; every notebook ran end to
    end on a few games and holds no error; afterwards nothing is stale. (The
    only test that plays each shipped experiment and runs each notebook.)"""
    from simcore import experiment as ex
    root = tmp_path / "pub"
    r = _publish("--quick", "--root", str(root), "--workers", "1")
    assert r.returncode == 0, r.stderr[-3000:]
    manifest = json.loads((root / publish.MANIFEST).read_text())
    assert {"experiments/results/mq-grid/report.md", "experiments/results/qm-grid/report.md",
            "experiments/results/mq-ladder/ladder.csv", "experiments/results/qm-ladder/ladder.csv",
            "experiments/results/mq-rollout/ladder.csv", "experiments/results/mq-planner/planner-parts.csv",
            "experiments/results/mq-grid-again/report.md", "experiments/results/qm-grid-again/report.md"} <= set(manifest)
    for name in publish.AGAIN_EXPERIMENTS:          # the study's headline experiments, again on another seed
        st = manifest[f"experiments/results/{name}-again/report.md"]
        first = manifest[f"experiments/results/{name}/report.md"]["games"]
        assert (st["seed"], st["games"]) == (publish.AGAIN_SEED, min(first, publish.QUICK["again_experiment"])), name
    for f in sorted((ROOT / "experiments").glob("*.toml")):
        assert f"experiments/results/{f.stem}/report.md" in manifest
        assert manifest[f"experiments/results/{f.stem}/report.md"]["games"] == publish._experiment_games(
            publish.QUICK, ex.load(f))
        report = (root / "experiments" / "results" / f.stem / "report.md").read_text()
        assert report.startswith(f"# {ex.load(f).title}"), f.stem
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.name}" in manifest
        done = nbformat.read(root / "notebooks" / nb.name, as_version=4)
        outs = [o for c in done.cells if c.cell_type == "code" for o in c.outputs]
        assert outs and not any(o.get("output_type") == "error" for o in outs), nb.name
    for path, st in manifest.items():
        assert (root / path).exists(), path
        assert {"engine", "behaviour_version", "engine_hash", "ruleset_hash", "seed", "games"} <= set(st), path
        if path.endswith("report.md"):
            assert f"behaviour v{st['behaviour_version']}" in (root / path).read_text(), path
    assert publish.stale(root) == []


def test_stale_check_fails_when_a_ruleset_value_changes_and_passes_after_regenerating(tmp_path, capsys):
    """(Through ``main`` in this process: the pipeline's own process is the test above.)"""
    root = tmp_path / "pub"
    rules = tmp_path / "my-ruleset.toml"
    shutil.copy(ROOT / "mournesim" / "data" / "ruleset.toml", rules)
    args = ["--quick", "--root", str(root), "--only", "mq-grid", "--workers", "1", "--ruleset", f"mournesim={rules}"]
    assert publish.main(args) == 0
    assert publish.main(["--check", "--root", str(root)]) == 0
    rules.write_text(rules.read_text().replace("disc_clicks = 12", "disc_clicks = 11", 1))
    capsys.readouterr()
    assert publish.main(["--check", "--root", str(root)]) == 1
    assert "experiments/results/mq-grid/report.md: made with ruleset" in capsys.readouterr().out
    assert publish.main(args) == 0
    assert publish.main(["--check", "--root", str(root)]) == 0


def test_committed_artefacts_are_current():
    """The published figures in the repository were made by the installed
    engine's behaviour version and the current rulesets (no game is played)."""
    assert publish.stale() == []
