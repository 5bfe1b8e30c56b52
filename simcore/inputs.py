"""What a user types, checked at the edge: every number bounded to what the
engine can hold, every float finite, policy parameters within their
documented ranges, cluster addresses parsed. Each problem is one InputError
line naming the option, before any game is played.

Both command lines, the experiment runner and the Python API call these, so a
value is judged the same way wherever it comes from.
"""
from __future__ import annotations

import math

import click

from .errors import InputError

# Games per cell (and so the largest game index + 1). The engine numbers games
# with 64-bit integers; this bound keeps every index, count and progress total
# far inside that while allowing more games than any machine plays (10^10
# games is about five days on a thousand cores).
MAX_GAMES = 10 ** 10
# Games per batch: one batch's rows are held in a worker's memory (about 200
# bytes a game), so a million is about 200 MB.
MAX_BATCH = 1_000_000
MAX_SEED = 2 ** 64 - 1
MAX_WORKERS = 512


def games_option(minimum=1, maximum=MAX_GAMES):
    """The click type of a game count (``--games``): an integer within bounds."""
    return click.IntRange(minimum, maximum)


def game_index_option():
    """The click type of a game index (``replay --game``)."""
    return click.IntRange(0, MAX_GAMES - 1)


def batch_option():
    """The click type of ``--batch``."""
    return click.IntRange(1, MAX_BATCH)


def finite(value, option):
    """``value`` as a float, or an InputError when it is not a finite number."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{option} {value!r}: expected a number") from None
    if not math.isfinite(x):
        raise InputError(f"{option} {value!r}: must be a finite number")
    return x


def parse_floats(text, option="--params"):
    """``"0.4,1.5"`` → ``(0.4, 1.5)``; empty → ``()``. Every value must be a
    finite number (``nan`` and ``inf`` parse as floats but mean nothing here)."""
    text = str(text).strip()
    if not text:
        return ()
    parts = [x.strip() for x in text.split(",")]
    try:
        values = tuple(float(x) for x in parts)
    except ValueError:
        raise InputError(f"{option} {text!r}: expected numbers separated by commas") from None
    bad = [p for p, v in zip(parts, values) if not math.isfinite(v)]
    if bad:
        raise InputError(f"{option} {text!r}: {bad[0]} is not a finite number")
    return values


def check_params(policy, names, values, ranges):
    """Refuse parameter ``values`` of ``policy`` (named ``names``) that are not
    finite or fall outside ``ranges`` (name → (low, high); a name without a
    range only has to be finite)."""
    for name, v in zip(names, values):
        v = float(v)
        if not math.isfinite(v):
            raise InputError(f"--params: {policy}'s {name} is {v}; it must be a finite number")
        lo, hi = ranges.get(name, (-math.inf, math.inf))
        if not lo <= v <= hi:
            raise InputError(f"--params: {policy}'s {name} is {v:g}, outside its range {lo:g} to {hi:g} "
                             "(docs/mournequest/policies.md, docs/questmaster/policies.md)")


def cluster_address(text):
    """``--cluster``: ``local``, or a Dask scheduler address such as
    ``tcp://host:8786`` (a bare ``host:port`` means tcp), parsed by Dask's own
    address parser. Returns the address; anything else is one InputError."""
    if text is None:
        return None
    t = str(text).strip()
    if t.lower() == "local":
        return "local"
    usage = f"--cluster {text!r}: expected local or a scheduler address like tcp://HOST:8786"
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import backends
    except ImportError:
        raise InputError("--cluster needs Dask distributed: pip install 'distributed'") from None
    try:
        scheme, loc = parse_address(t, strict=False)
        host, port = parse_host_port(loc)
    except ValueError:
        raise InputError(usage) from None
    if scheme not in backends or scheme == "inproc" or not host or not 0 < int(port) < 65536:
        raise InputError(usage)
    return f"{scheme}://{loc}"
