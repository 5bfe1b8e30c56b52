"""Dotted-path overrides (``--set heroes.jack.courage=8``) applied to the raw
ruleset mapping before validation.

A value is parsed as a TOML value (``8``, ``true``, ``[8, 9, 7]``, ``"gold"``);
anything that is not valid TOML is taken as a bare string. A path must name an
existing key: an unknown key is an error, not a silent new setting.
"""
import tomllib

from .errors import InputError


def parse_value(text):
    """Parse the right-hand side of an override as a TOML value."""
    try:
        return tomllib.loads("v = " + text)["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_assignment(item):
    """Split ``"a.b.c=value"`` into (path, parsed value)."""
    if "=" not in item:
        raise InputError(f"--set {item!r}: expected dotted.path=value")
    path, _, value = item.partition("=")
    path = path.strip()
    if not path:
        raise InputError(f"--set {item!r}: empty path")
    return path, parse_value(value.strip())


def apply_override(data, path, value):
    """Set ``value`` at dotted ``path`` inside nested dicts/lists ``data``."""
    parts = path.split(".")
    node = data
    for i, key in enumerate(parts):
        last = i == len(parts) - 1
        where = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                raise InputError(f"--set {path}: {where} is not an index of a list of {len(node)}")
            key = int(key)
        elif isinstance(node, dict):
            if key not in node:
                raise InputError(f"--set {path}: unknown key {where}")
        else:
            raise InputError(f"--set {path}: {'.'.join(parts[:i])} is a value, not a table")
        if last:
            node[key] = value
        else:
            node = node[key]
