"""The shape of the code: the imports run one way (no module imports, even
late inside a function, a module that imports it back; the rules import no
player), and each game's generated constants are what its declarations give
(simcore.shape)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simcore import game as games, shape

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("simcore", "mournesim", "questsim", "experiments")


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict:
    """Every module of the packages by dotted name -> its file."""
    out = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            if "__pycache__" not in f.parts:
                out[_module_of(f)] = f
    return out


def import_graph() -> dict:
    """module -> the modules of the packages it imports, anywhere in its file
    (a late import inside a function counts: it ties the two modules all the
    same)."""
    mods = _modules()
    graph = {}
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    root = ".".join(base + ([node.module] if node.module else []))
                else:
                    root = node.module or ""
                # `from pkg import mod` imports pkg.mod when that is a module, else a name of pkg
                targets = [f"{root}.{a.name}" if f"{root}.{a.name}" in mods else root for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:      # `import a.b.c` names a.b.c; its package if c is no module
                    t = t.rpartition(".")[0]
                if t and t != name:
                    edges.add(t)
        graph[name] = edges
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_planted_cycle():
    """The check itself: a cycle through three modules is found, a chain is not."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle_anywhere():
    """No module of simcore, the games or experiments imports, at the top or
    late inside a function, a module that imports it back."""
    graph = import_graph()
    assert graph["mournesim.replay"] >= {"mournesim.events", "mournesim.sim"}   # the graph is read at all
    assert cycles(graph) == []


@pytest.mark.parametrize("package", ["mournesim", "questsim"])
def test_the_rules_import_no_player(package):
    """Players beside the rules: no engine module that is not a player
    (the package's PLAYER_SOURCES) imports a player, directly or through
    another module; the rules ask through the decision port (decision.py)."""
    import importlib
    pkg = importlib.import_module(package)
    graph = import_graph()
    players = {f"{package}.{f[:-3]}" for f in pkg.PLAYER_SOURCES}
    assert players <= set(graph) and f"{package}.decision" in graph

    def reached(m):
        seen, todo = set(), [m]
        while todo:
            for n in graph.get(todo.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    rules = {f"{package}.{f[:-3]}" for f in pkg.ENGINE_SOURCES} - players
    wrong = {m: sorted(reached(m) & players) for m in sorted(rules)}
    assert {m: p for m, p in wrong.items() if p} == {}
    assert f"{package}.decision" in reached(f"{package}.game")


def test_simcore_names_no_game():
    """simcore is the floor both games stand on: it imports neither game nor
    the experiments (it reaches a game through simcore.game)."""
    graph = import_graph()
    wrong = {m: sorted(t for t in ts if t.split(".")[0] in ("mournesim", "questsim", "experiments"))
             for m, ts in graph.items() if m.startswith("simcore")}
    assert {m: ts for m, ts in wrong.items() if ts} == {}


@pytest.mark.parametrize("key", sorted(games.games()))
def test_generated_constants_are_current(key):
    """Each game's constants.py is exactly what its declarations give
    (`python -m simcore.shape` writes it), so a kernel reads the row its
    name says."""
    assert shape.write(games.get(key), check_only=True), f"run python -m simcore.shape {key}"


def test_rules_rows_keep_the_ruleset_names():
    """A rules-vector row is named as its ruleset field, from TOML to kernel:
    toggles.escape_knocks_back is the row P_ESCAPE_KNOCKS_BACK and holds that
    toggle's value, the shipped one and the other."""
    from mournesim import sim as mq, tables as mt
    from questsim import sim as qm, tables as qt
    for sim, tables, field in ((mq, mt, "escape_knocks_back"), (qm, qt, "shields_stack")):
        row = getattr(tables, "P_" + field.upper())
        assert tables.RULE_ROWS[row] == f"toggles.{field}"
        shipped = sim.prepare()
        value = bool(getattr(shipped.ruleset.toggles, field))
        other = sim.prepare(overrides=[f"toggles.{field}={'false' if value else 'true'}"])
        assert (int(shipped.T[row]), int(other.T[row])) == (int(value), int(not value))
