"""The notebooks: the committed copies show their tables and
plots without running anything. Each notebook also runs end to end with a
few games (its parameters cell overridden, as papermill does) in the publish
pipeline's test (tests/common/test_publish.py), which executes every
notebook and fails on an error in any cell."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from experiments import publish

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))


def test_the_three_notebooks_are_there():
    """And the publish pipeline's --quick mode gives each its few games."""
    assert {p.stem for p in NOTEBOOKS} == {"mournequest-balance", "questmaster-balance", "what-if"} \
        == set(publish.QUICK["notebooks"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_notebook_shows_its_results(path):
    """Opened on GitHub, a notebook shows every output: each code cell ran,
    without errors, and the plots are embedded."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "one cell tagged 'parameters'"
    for c in code:
        if c is not params[0] and not c.source.startswith("import"):
            assert c.outputs, c.source[:60]
        assert not any(o.get("output_type") == "error" for o in c.outputs), c.source[:60]
    assert sum("image/png" in o.get("data", {}) for c in code for o in c.outputs) >= 2
    text = "\n".join(c.source for c in nb.cells)
    assert "FINDINGS_" not in text
    # the analysis uses the package's API and defines no rules (no functions of its own)
    source = "\n".join(c.source for c in code)
    assert "def " not in source and ("from mournesim" in source or "from questsim" in source)
