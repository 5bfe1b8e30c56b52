"""Every file the tools write goes through here: it is written under a hidden
temporary name in its own directory and renamed into place, so a file on
disk is always whole (or absent), whatever stops the process; and a failure
to write — no permission, a read-only filesystem, a full disk, the file-size
limit (``ulimit -f``), a closed standard output — becomes one InputError line
naming the path and the cause (exit status 2), not a traceback.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

from .errors import InputError


class OutputError(InputError):
    """A file or directory could not be written; finished results are intact."""


def cause(e: OSError) -> str:
    """The readable cause of an OSError (``No space left on device``)."""
    if e.errno:
        return os.strerror(e.errno)
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def tmp_name(path) -> Path:
    """The hidden temporary name ``path`` is written under before the rename."""
    path = Path(path)
    return path.with_name(f".{path.name}.tmp")


def tmp_of(name: str):
    """The file whose temporary name ``name`` is (``.x.tmp`` → ``x``), or
    None. Only the temporary name of a file the tool itself writes there is
    safe to delete: a user's own ``.x.tmp`` looks the same."""
    if name.startswith(".") and name.endswith(".tmp") and len(name) > len("..tmp"):
        return name[1:-len(".tmp")]
    return None


def write_with(path, write):
    """Call ``write(tmp)`` to write ``path``'s content to a temporary file,
    then rename it to ``path``. Returns ``path``."""
    path = Path(path)
    tmp = tmp_name(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise OutputError(f"cannot write {path}: {cause(e)}") from None
    return path


def write_text(path, text: str):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return write_with(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def save_figure(fig, path, **kw):
    """Save a matplotlib figure to ``path`` atomically (format from the suffix)."""
    path = Path(path)
    return write_with(path, lambda tmp: fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", **kw))


def make_dir(path) -> Path:
    """Create directory ``path`` (and its parents); a file in the way or a
    directory that cannot be created is one line naming it."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"cannot create directory {path}: a file of that name is in the way") from None
    except OSError as e:
        if e.errno == errno.ENOTDIR:
            raise OutputError(f"cannot create directory {path}: a file is in the way of its path") from None
        raise OutputError(f"cannot create directory {path}: {cause(e)}") from None
    return path
