"""A game's named rows, written out once as a module a reader can grep.

A game declares the rows of its flat arrays as data, in the module that owns
them: the rules vector's rows (each a ruleset field), the sections of the
rules array, the decision counters, the result columns, the event types. The
kernels read every row through a module constant, because numba folds a
global int into the compiled code. Made at import with ``globals()`` those
constants would be defined nowhere a reader or grep can find them; instead
each game's checked-in ``constants.py`` holds them, written by this module
from the declarations (``python -m simcore.shape GAME``), and both the module
that declares a family (at import, :func:`require`) and a test (every game)
check that the file is what the declarations give.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import NamedTuple

# set while the constants are being written, so that importing a game whose
# file is out of date does not stop the command that brings it up to date
_WRITING = False


class Family(NamedTuple):
    """Constants ``PREFIX + NAME`` for consecutive rows of one flat array.

    ``names`` are the rows' names (upper-cased in the constant), ``first`` the
    first row's value; with ``sizes`` each row is that many ints long (the
    sections of an array), else one. ``notes`` (one per row, optional) is
    written beside each constant: where its value comes from."""
    prefix: str
    names: tuple
    first: int
    source: str          # where the names are declared, e.g. "layout.COUNTER_NAMES"
    what: str            # what a row is, one line
    sizes: tuple = ()
    notes: tuple = ()

    def values(self) -> dict:
        """Constant name -> value, in row order."""
        out, at = {}, self.first
        for k, name in enumerate(self.names):
            out[self.prefix + name.upper()] = at
            at += self.sizes[k] if self.sizes else 1
        return out


def row_name(path: str) -> str:
    """A rules-vector row's constant name (without its ``P_``) from its path
    in the ruleset file: the path after its section for ``rules``, ``toggles``
    and ``levels`` (``toggles.doubles_stack`` -> ``DOUBLES_STACK``), else the
    whole path (``n.spaces`` -> ``N_SPACES``); ``[k]`` becomes ``_k``."""
    head, _, rest = path.partition(".")
    name = rest if head in ("rules", "toggles", "levels") else path
    return name.replace("[", "_").replace("]", "").replace(".", "_").upper()


def rule_value(rs, path: str, counts: dict):
    """The value of rules-vector row ``path`` in ruleset ``rs``: a field
    reached attribute by attribute, or ``counts[what]`` for ``n.<what>`` (a
    count of what the ruleset lists, which the compiler works out)."""
    head, _, rest = path.partition(".")
    if head == "n":
        return counts[rest]
    value = rs
    for part in path.split("."):
        value = getattr(value, part)
    return value


def render(game_title: str, families) -> str:
    """The text of a game's ``constants.py`` for its declared families."""
    lines = [f'"""{game_title}\'s named rows, written by ``python -m simcore.shape`` from the',
             "declarations each family names (a test checks this file is current): do not edit",
             'it by hand; change the declaration and write it again."""', ""]
    for fam in families:
        lines += ["", f"# {fam.source}: {fam.what}"]
        for k, (name, value) in enumerate(fam.values().items()):
            note = f"  # {fam.notes[k]}" if fam.notes else ""
            lines.append(f"{name} = {value}{note}")
    return "\n".join(lines) + "\n"


def require(families, constants, path) -> None:
    """Stop at import if ``constants`` (the generated module) does not hold
    exactly the values ``families`` declare: a stale file would let the
    kernels read the wrong rows."""
    if _WRITING:
        return
    for fam in families:
        for name, value in fam.values().items():
            if getattr(constants, name, None) != value:
                raise ImportError(f"{path} is out of date ({name} should be {value}): "
                                  f"write it again with `python -m simcore.shape`")


def _families(game):
    """Every family the game's layout and tables declare (``CONSTANTS``)."""
    out = []
    for part in ("layout", "tables"):
        out += list(getattr(game.module(part), "CONSTANTS", ()))
    return out


def target(game) -> Path:
    """The game's generated module: ``<package>/constants.py``."""
    return Path(importlib.import_module(game.package).__file__).parent / "constants.py"


def write(game, check_only=False) -> bool:
    """Write (or with ``check_only`` compare) the game's ``constants.py``;
    True when the file already held what the declarations give."""
    global _WRITING
    _WRITING = True
    try:
        text = render(game.title, _families(game))
    finally:
        _WRITING = False
    path = target(game)
    current = path.read_text() if path.exists() else None
    if current == text or check_only:
        return current == text
    path.write_text(text)
    return False


def main(argv=None) -> int:
    """``python -m simcore.shape [--check] [GAME ...]`` (default: every game):
    write each game's ``constants.py`` (or list the ones out of date)."""
    from simcore import game as games
    from simcore import shape   # this module by its name, not __main__: the games import that one
    from simcore.errors import InputError
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    try:
        chosen = [games.get(key) for key in args if key != "--check"] or list(games.games().values())
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    changed = [g for g in chosen if not shape.write(g, check_only=check)]
    for g in changed:
        print(f"{target(g)}: {'out of date' if check else 'written'}")
    return 1 if (check and changed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
