"""What a user types, checked at the edge: every number bounded to what the
engine can hold, every float finite, policy parameters within their
documented ranges, cluster addresses parsed. Each problem is one InputError
line naming the option, before any game is played.

Every file read from a user (a ruleset, an experiment file, a run
description, a plug-in's module) goes through the readers at the end: a
regular file within a size limit, its parsed tables nested within a depth
limit; anything else is one line naming the file.

Both command lines, the experiment runner and the Python API call these, so a
value is judged the same way wherever it comes from.
"""
from __future__ import annotations

import json
import math
import os
import stat
import tomllib

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


# ---- files a user gives: regular, bounded, shallow -------------------------------

# A file the tools read from a user is read only if it is a regular file no
# larger than its limit (a directory, a FIFO or a device such as /dev/zero is
# refused before a byte is read), and its parsed tables and arrays nest at
# most MAX_DEPTH deep. Each limit is one line naming the file, exit 2.
#
# Rulesets and experiment files are written by hand: the shipped rulesets are
# 26 KB and 35 KB and the largest experiment file 2 KB, so 4 MiB is a hundred
# times any real one and still parses in well under a second.
MAX_TOML_BYTES = 4 << 20
# A run description (``_run.json``) is written by the tool: about 350 bytes a
# cell of the grid, so 64 MiB holds some 190,000 cells, far more than any run
# plays, and still parses in about a second.
MAX_RUN_BYTES = 64 << 20
# A plug-in's ``.py`` file: code, perhaps with a table of its own; 16 MiB is
# far beyond any policy and still compiles in seconds.
MAX_PLUGIN_BYTES = 16 << 20
# A results part (one batch as Parquet) is written by the tool: a batch holds
# at most MAX_BATCH games of a few hundred bytes each, so 4 GiB is beyond any.
MAX_PART_BYTES = 4 << 30
# Nesting of parsed TOML/JSON. The shipped rulesets nest 5 and 7 levels deep
# (tables in tables, lists of effect tables), experiment files and run
# descriptions 3 to 5. What reads them (copying, validation, hashing) recurses
# a few Python frames per level, so 64 levels keeps them far below Python's
# recursion limit (1,000) while allowing nine times the deepest real file.
MAX_DEPTH = 64

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _a(what) -> str:
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


def _size(n) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def _not_regular(path, st, what):
    kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a regular file")
    return InputError(f"{path}: is {kind}, not a regular file; give {_a(what)}")


def regular_file(path, what, limit):
    """Refuse ``path`` unless it is a regular file of at most ``limit``
    bytes (``what`` names it in the message: ``ruleset file``). Nothing is
    opened: for files another reader opens (a plug-in's module)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what}") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st, what)
    if st.st_size > limit:
        raise InputError(f"{path}: {_size(st.st_size)}, too large for {_a(what)} (the limit is {_size(limit)})")
    return st


def read_bytes_bounded(path, what, limit) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes;
    anything else — missing, unreadable, a directory, a FIFO, a device, too
    large, or grown past the limit while read — is one InputError line
    naming the file. A FIFO is opened without waiting for a writer, so it is
    refused at once rather than blocking."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what}") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st, what)
        if st.st_size > limit:
            raise InputError(f"{path}: {_size(st.st_size)}, too large for {_a(what)} (the limit is {_size(limit)})")
        chunks, got = [], 0
        while got <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)
    if got > limit:
        raise InputError(f"{path}: grew past {_size(limit)} while read, too large for {_a(what)}")
    return b"".join(chunks)


def decode_utf8(data: bytes, path, what) -> str:
    """``data`` as UTF-8 text; anything else is one line saying where."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start}); "
                         f"save the {what} as UTF-8") from None


def read_text_bounded(path, what, limit=MAX_TOML_BYTES) -> str:
    """The UTF-8 text of ``path``, read as :func:`read_bytes_bounded` does."""
    return decode_utf8(read_bytes_bounded(path, what, limit), path, what)


def too_deep(where, limit=MAX_DEPTH):
    """The InputError of a value nested deeper than ``limit``."""
    return InputError(f"{where}: tables or arrays nested more than {limit} levels deep (the limit; "
                      "real files nest fewer than 10)")


def long_number(e: ValueError) -> str:
    """What a ValueError of Python's integer conversion limit means, or its
    own first line for any other ValueError."""
    import sys
    if "integer string conversion" in str(e):
        return f"a number of more than {sys.get_int_max_str_digits()} digits"
    return str(e).splitlines()[0]


def check_depth(value, where, limit=MAX_DEPTH):
    """Refuse parsed TOML/JSON ``value`` whose dicts and lists nest more than
    ``limit`` levels deep (walked without recursion). Returns ``value``."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        x, depth = stack.pop()
        children = x.values() if isinstance(x, dict) else x
        if depth > limit:
            raise too_deep(where, limit)
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return value


def parse_toml(text, where):
    """Parse TOML ``text`` (from ``where``) into a checked-depth mapping; a
    syntax error, a number Python will not convert or nesting too deep for
    the parser is one line."""
    try:
        raw = tomllib.loads(text)
    except RecursionError:
        raise too_deep(where) from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{where}: not valid TOML ({e})") from None
    except ValueError as e:     # an integer of more digits than Python converts
        raise InputError(f"{where}: not valid TOML ({long_number(e)})") from None
    return check_depth(raw, where)


def load_toml(path, what, limit=MAX_TOML_BYTES) -> dict:
    """Read and parse a user's TOML file ``path`` (``what``: ``ruleset file``),
    bounded in size and depth; every problem is one InputError line."""
    return parse_toml(read_text_bounded(path, what, limit), path)


def parse_json(data, where):
    """Parse JSON ``data`` (bytes: UTF-8, or text) of a file ``where``,
    depth-checked. Nesting too deep for the parser is an InputError; a
    syntax error stays json's ValueError (and bad UTF-8 a
    UnicodeDecodeError) for the caller to word."""
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    try:
        value = json.loads(data)
    except RecursionError:
        raise too_deep(where) from None
    return check_depth(value, where)
