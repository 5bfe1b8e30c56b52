"""Output directories a run writes into: held by one run at a time, and never
one holding anything the tool did not write there.

A run holds its directory with an advisory lock on the directory itself
(``flock``), taken before anything is written and released by the operating
system however the process ends — Ctrl-C, SIGTERM or ``kill -9`` — so a
second run into the same directory at the same time is refused with one
line, and a killed run never leaves a stale lock behind.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from . import atomic, store
from .errors import InputError

try:
    import fcntl
except ImportError:     # not POSIX: no lock (the contents checks still apply)
    fcntl = None


@contextmanager
def held(path):
    """Hold directory ``path`` (which exists) for the duration of the block."""
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        raise InputError(f"{path}: cannot open ({atomic.cause(e)})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"{path}: another run is writing there right now; wait for it to finish "
                             "or choose another directory") from None
        except OSError:
            pass   # a filesystem without locks: the contents checks still apply
        yield
    finally:
        os.close(fd)


def check_new_dataset(out: Path, package: str):
    """A fresh run may write only into an empty directory (or one holding
    temporary files of an attempt cut short before its first batch)."""
    if (out / store.RUN_FILE).exists():
        raise InputError(f"{out}: already holds a run; finish it with: {package} simulate --resume {out} "
                         "(or choose another directory)")
    # parts without a run description are another run's (whose _run.json was
    # lost): never ours to overwrite
    other = sorted(n for n in os.listdir(out) if not atomic.is_tmp(n))
    if other:
        raise InputError(f"{out}: holds files this run did not write ({_few(other)}); a new run writes only "
                         "into a new or empty directory: choose another")
    store.clean_tmp(out)


def check_resumed_dataset(out: Path):
    """A run continues only in a directory holding nothing but its own files."""
    other = store.foreign(out)
    if other:
        raise InputError(f"{out}: holds files this tool did not write there ({_few(other)}); move them out "
                         "and resume again")
    store.clean_tmp(out)


# what an experiment writes into its --out directory (simcore.experiment_report)
EXPERIMENT_FILES = frozenset({"report.md", "index.html", "comparisons.csv", "changes.png", "sweep.png",
                              "tornado.png", "tune.png", "tune.csv", "search.png"})   # search.png: a policy_tune's search trace


@contextmanager
def experiment_dir(out):
    """Hold an experiment's ``--out`` directory: created if missing, refused
    when it holds anything an experiment does not write."""
    out = atomic.make_dir(out)
    with held(out):
        other = [n for n in os.listdir(out)
                 if n not in EXPERIMENT_FILES and n != "data" and not atomic.is_tmp(n)]
        data = out / "data"
        if data.exists() and not data.is_dir():
            other.append("data")
        elif data.is_dir():
            other += [f"data/{n}" for n in os.listdir(data) if not (data / n).is_dir()]
        if other:
            raise InputError(f"{out}: holds files an experiment does not write ({_few(sorted(other))}); "
                             "choose a new or empty --out directory")
        for n in os.listdir(out):
            if atomic.is_tmp(n):
                (out / n).unlink(missing_ok=True)
        yield out


def _few(names, k=3):
    return ", ".join(names[:k]) + (f" and {len(names) - k} more" if len(names) > k else "")
