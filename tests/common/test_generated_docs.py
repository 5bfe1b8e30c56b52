"""Figures in the docs that come from committed experiment results are
generated (experiments/tables.py), never typed by hand: every generated block
matches what its results give now."""
from experiments import tables


def test_generated_blocks_are_up_to_date():
    assert tables.main(["--check"]) == 0
