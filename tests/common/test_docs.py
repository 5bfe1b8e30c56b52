"""The docs hold together: every relative Markdown link (and its anchor) in
README.md, CHANGELOG.md, experiments/README.md and docs/**/*.md resolves;
every rulebook gap is answered in its own game's rulings file
(docs/mournequest/rulings.md: MQ-GAP, docs/questmaster/rulings.md: QM-GAP),
and nothing names a docs path that no longer exists. Plays no game.

    python tests/common/test_docs.py      # the same checks as a script, one line per problem
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def markdown_files():
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "experiments" / "README.md",
            *sorted((ROOT / "docs").rglob("*.md"))]


def anchors(path: Path) -> set:
    """GitHub's heading anchors of a Markdown file."""
    out, seen = set(), {}
    for h in re.findall(r"^#{1,6} +(.+?) *#*$", FENCE.sub("", path.read_text(encoding="utf-8")), re.M):
        a = re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else f"{a}-{n}")
    return out


def link_problems() -> list:
    out = []
    for md in markdown_files():
        text = FENCE.sub("", md.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
                continue                                    # http:, mailto:, data:
            path, _, anchor = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            where = f"{md.relative_to(ROOT)}: ({target})"
            if not dest.exists():
                out.append(f"{where} -> no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                out.append(f"{where} -> no heading #{anchor}")
    return out


def rulings_problems() -> list:
    out = []
    for game, prefix, other, n in (("mournequest", "MQ", "QM", 76), ("questmaster", "QM", "MQ", 51)):
        f = ROOT / "docs" / game / "rulings.md"
        text = f.read_text(encoding="utf-8")
        heads = re.findall(rf"^### ({prefix}-GAP-\d\d) ", text, re.M)
        want = [f"{prefix}-GAP-{i:02d}" for i in range(1, n + 1)]
        for base in (ROOT / "shared" / "rules", ROOT.parent / "shared" / "rules", Path("/work/shared/rules")):
            checklist = base / f"{game}-rules.md"
            if checklist.exists():
                want = sorted(set(re.findall(rf"{prefix}-GAP-\d\d", checklist.read_text(encoding="utf-8"))))
                break
        if heads != want:
            out.append(f"docs/{game}/rulings.md: rulings {heads[:3]}... do not answer {want[:3]}... "
                       f"(missing {sorted(set(want) - set(heads))}, extra {sorted(set(heads) - set(want))})")
        if re.search(rf"^### {other}-GAP-", text, re.M):
            out.append(f"docs/{game}/rulings.md: holds {other}-GAP rulings of the other game")
    return out


OLD = ("docs/rulings.md", "docs/ruleset.md", "docs/policies.md", "docs/replay.md", "docs/results.md",
       "docs/performance.md", "docs/balance.md", "docs/architecture.md", "docs/questsim-ruleset.md",
       "docs/questmaster-balance.md", "docs/examples/", "docs/images/")


def old_path_problems() -> list:
    """Paths of the docs before they were split per game (git grep; skipped outside a checkout)."""
    try:
        r = subprocess.run(["git", "grep", "-n", "-F", *sum((["-e", p] for p in OLD), []), "--", ".",
                            ":!tests/common/test_docs.py"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    return [f"old docs path: {line[:160]}" for line in r.stdout.splitlines()] if r.returncode in (0, 1) else []


def test_relative_links_resolve():
    assert link_problems() == []


def test_each_game_rulings_file_answers_its_own_gaps():
    assert rulings_problems() == []


def test_nothing_names_an_old_docs_path():
    assert old_path_problems() == []


if __name__ == "__main__":
    problems = link_problems() + rulings_problems() + old_path_problems()
    for p in problems:
        print(p)
    n = sum(len(LINK.findall(FENCE.sub("", f.read_text(encoding="utf-8")))) for f in markdown_files())
    print(f"{len(markdown_files())} Markdown files, {n} links: "
          + (f"{len(problems)} problem(s)" if problems else "every link resolves, every ruling in its game's file"))
    sys.exit(1 if problems else 0)
