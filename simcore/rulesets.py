"""Game-independent ruleset helpers both games share: reading a ruleset TOML,
applying ``--set`` overrides with their provenance, walking the leaves of a
nested mapping, looking up provenance by longest dotted prefix, turning
pydantic errors into one ``dotted.path: problem`` line each, and hashing the
effective rules.

Each game keeps its own pydantic models and cross checks; this module only
holds the plumbing, so that the two games report problems the same way.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import json
import tomllib
from pathlib import Path

from pydantic import ValidationError

from .errors import InputError
from .inputs import check_depth, long_number, parse_toml, read_text_bounded, too_deep
from .overrides import apply_override, parse_assignment

PROVENANCE_PREFIXES = ("rulebook:", "assumed:", "override:")


def leaves(node, prefix=""):
    """Yield (dotted path, value) for every leaf of nested dicts/lists.

    A list of tables is walked item by item (``effects.0.op``); a list of
    scalars (or an empty list) is one leaf, because it is one value to a
    designer (``dice.red``)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list) and node and isinstance(node[0], dict):
        for i, v in enumerate(node):
            yield from leaves(v, f"{prefix}.{i}")
    else:
        yield prefix, node


def provenance_of(path, provenance):
    """The provenance text of ``path``: the entry of the longest dotted prefix."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if key in provenance:
            return provenance[key]
    return None


def effective_rows(rs):
    """(path, value, provenance) for every leaf of the effective ruleset
    ``rs`` (a game's pydantic Ruleset with a ``provenance`` map): the values
    the file sets and the defaults it leaves to the model, each with the
    provenance of its longest documented prefix. ``rules show`` prints these."""
    d = rs.model_dump(mode="json", exclude={"provenance"})
    return [(p, v, provenance_of(p, rs.provenance)) for p, v in leaves(d)]


def format_errors(err: ValidationError, drop_tags=frozenset(), messages=None):
    """One ``dotted.path: problem`` line per pydantic error.

    ``drop_tags`` are discriminator values of tagged unions: pydantic puts the
    tag into the location (``effects.0.draw_item.n``), which is not a key of
    the file, so a tag right after a list index is left out. ``messages`` maps
    a pydantic error type to a message replacing pydantic's own."""
    lines = []
    for e in err.errors():
        parts = []
        for x in e["loc"]:
            if str(x).startswith("function-"):
                continue
            if x in drop_tags and parts and isinstance(parts[-1], int):
                continue
            parts.append(x)
        loc = ".".join(str(x) for x in parts)
        msg = e["msg"].replace("Value error, ", "")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        elif e["type"] == "missing":
            msg = "missing"
        elif messages and e["type"] in messages:
            msg = messages[e["type"]](e)
        lines.append(f"{loc}: {msg}" if loc else msg)
    return lines


def read_toml(path, default_text):
    """The raw mapping of a ruleset file, or of ``default_text()`` when ``path``
    is None; a missing, unreadable, oversized, non-regular (a directory, a
    FIFO, a device), malformed or too deeply nested file is an InputError
    (simcore.inputs: the limits and why). The file is read every time; its
    parse is remembered by its text (a copy is returned, so callers may
    change it)."""
    if path is None:
        return _copy(_parsed(default_text(), None))
    return _copy(_parsed(read_text_bounded(path, "ruleset file"), path))


def _copy(node):
    """A copy of parsed TOML (tables, arrays and immutable values): several
    times faster than ``copy.deepcopy``, which handles any object."""
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy(v) for v in node]
    return node


@functools.lru_cache(maxsize=8)
def _parsed(text, where):
    # an experiment or a test prepares the same ruleset hundreds of times,
    # and parsing it was about half of each preparation; an error is not kept
    return tomllib.loads(text) if where is None else parse_toml(text, where)


def apply_overrides(raw, overrides):
    """A deep copy of ``raw`` with the ``"dotted.path=value"`` overrides applied,
    each overridden path given the provenance ``override: --set path=value``.

    An element of a scalar list (``dice.red.4``) is part of one leaf, the list,
    so the override provenance goes on the list's path."""
    raw = copy.deepcopy(raw)
    for item in overrides:
        p, v = _assignment(item)
        if p.startswith("provenance"):
            raise InputError(f"--set {p}: provenance cannot be overridden")
        apply_override(raw, p, v)
        key = p
        parts = p.split(".")
        if parts[-1].isdigit():
            parent = raw
            for part in parts[:-1]:
                parent = parent[int(part)] if isinstance(parent, list) else parent[part]
            if not (parent and isinstance(parent[0], dict)):
                key = ".".join(parts[:-1])
        raw.setdefault("provenance", {})[key] = f"override: --set {p}={json.dumps(v)}"
    return raw


def _assignment(item):
    """``parse_assignment(item)`` with its value bounded like a file's: nested
    at most MAX_DEPTH deep, an integer Python converts (simcore.inputs)."""
    where = f"--set {item.partition('=')[0].strip()}"
    try:
        p, v = parse_assignment(item)
    except RecursionError:
        raise too_deep(where) from None
    except InputError:
        raise
    except ValueError as e:     # an integer of more digits than Python converts
        raise InputError(f"{where}: {long_number(e)}") from None
    return p, check_depth(v, where)


def missing_provenance(raw, provenance):
    """Problem lines for every leaf of ``raw`` (outside [provenance]) that no
    provenance entry covers."""
    return [f"{p}: no provenance (add a [provenance] entry)"
            for p, _ in leaves({k: v for k, v in raw.items() if k != "provenance"})
            if provenance_of(p, provenance) is None]


# what a ruleset's hash leaves out: where each value comes from, and the
# names a person reads (they change no game)
NOT_RULES = ("provenance", "names")


def model_hash(model, exclude=NOT_RULES):
    """Short stable hash of a validated model's values (provenance and
    display names excluded); ``exclude`` is a set of top-level keys or a
    pydantic exclude mapping (nested keys)."""
    d = model.model_dump(mode="json", exclude=exclude if isinstance(exclude, dict) else set(exclude))
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def record_path(path):
    """A ruleset file as a run records it: absolute, so ``--resume`` finds it
    from any directory (None: the shipped ruleset)."""
    return str(Path(path).resolve()) if path else None


def resume_rules(run: dict, prepare):
    """The prepared ruleset of a recorded run (``prepare(path, overrides)``);
    a ruleset file that is gone is one line saying what to do. Runs recorded
    before paths were stored absolute hold the path as typed."""
    path = run.get("ruleset")
    if path and not Path(path).is_file():
        hint = ("it was given relative to the directory the run was started in: run --resume from there"
                if not Path(path).is_absolute() else "restore it")
        raise InputError(f"cannot resume: the run's ruleset file {path} is not found ({hint})")
    return prepare(path, tuple(run.get("overrides", ())))


def unknown_names(names: dict, ids, kinds: str) -> list:
    """Problem lines for every ``[names]`` key that is no id of the ruleset
    (``ids``: every key it defines of ``kinds``, said in the line)."""
    ids = set(ids)
    return [f"names.{k}: no such id in this ruleset (names are given to the keys of its {kinds})"
            for k in names if k not in ids]


def display_names(names: dict, ids) -> dict:
    """Every id of ``ids`` -> the name a person reads: the ruleset's
    ``[names]`` entry, else the id with spaces for underscores."""
    return {i: names.get(i, str(i).replace("_", " ")) for i in ids}
