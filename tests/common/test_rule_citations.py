"""Every rule of both rule checklists (shared/rules/*-rules.md) is cited by
a test that checks it, and every rule a test cites exists.

A rule test names the IDs it checks in its docstring or comments, each in
full (``MQ-COMBAT-05``, not ``MQ-COMBAT-04..06``), so this reading finds
them; the gaps (``*-GAP-*``) are answered in each game's ``rulings.md``
(tests/questmaster/test_qm_ruleset.py, tests/mournequest/test_ruleset.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
CHECKLISTS = {"MQ": "mournequest-rules.md", "QM": "questmaster-rules.md"}


def _checklist(name):
    """A file of shared/rules/ (in the repository, beside it, or the
    workplace's), or None."""
    for base in (REPO / "shared" / "rules", REPO.parent / "shared" / "rules", Path("/work/shared/rules")):
        if (base / name).exists():
            return (base / name).read_text(encoding="utf-8")
    return None


def _cited(prefix) -> set:
    ids = set()
    for f in (REPO / "tests").rglob("*.py"):
        ids |= set(re.findall(rf"\b{prefix}-[A-Z]+-\d+\b", f.read_text(encoding="utf-8")))
    return {i for i in ids if "-GAP-" not in i}


@pytest.mark.parametrize("prefix", sorted(CHECKLISTS))
def test_every_rule_is_cited_by_a_test_and_every_citation_is_a_rule(prefix):
    text = _checklist(CHECKLISTS[prefix])
    if text is None:
        pytest.skip(f"shared/rules/{CHECKLISTS[prefix]} not found")
    rules = set(re.findall(rf"^- \*\*({prefix}-[A-Z]+-\d+)\*\*", text, re.M)) - \
        {i for i in re.findall(rf"{prefix}-GAP-\d+", text)}
    assert len(rules) > 50, "the checklist's format changed: no rules read"
    cited = _cited(prefix)
    assert sorted(rules - cited) == [], "rules no test cites"
    assert sorted(cited - rules) == [], "tests cite rules the checklist does not have"
