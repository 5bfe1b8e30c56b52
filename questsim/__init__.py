"""Quest Master balance simulator: the game's ruleset data (designer-editable
TOML with provenance), its strict validation and the ``questsim`` command line.

The engine, policies and reports are built on top of ``questsim.ruleset``;
rule IDs QM-* refer to shared/rules/questmaster-rules.md and the QM-GAP
rulings to docs/rulings.md (section "Quest Master").
"""

__version__ = "0.1.0"
