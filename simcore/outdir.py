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
    the temporary files of an attempt of its own cut short before its first
    batch: ``._run.json.tmp``)."""
    if (out / store.RUN_FILE).exists():
        raise InputError(f"{out}: already holds a run; finish it with: {package} simulate --resume {out} "
                         "(or choose another directory)")
    # parts without a run description are another run's (whose _run.json was
    # lost): never ours to overwrite; a user's own ``.x.tmp`` is theirs
    cut_short = atomic.tmp_name(out / store.RUN_FILE).name
    other = sorted(n for n in os.listdir(out) if n != cut_short)
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


# The record of what the tool wrote into an output directory (an
# experiment's --out, report --plots, the published study's folders): each
# file's SHA-256, each directory it made, each dataset it holds. A directory
# is written into only when it is new or empty, or holds this record and
# nothing that is not in it, each file as the tool left it.
WRITTEN = "_written.json"
# "dataset": one dataset (simcore.store answers for what is in it);
# "datasets": a directory of datasets, one directory each
_DIR, _DATASET, _DATASETS = "dir", "dataset", "datasets"
MAX_RECORD = 16 << 20                   # bytes: a record lists a few hundred files at most


def _json_of_ours(path: Path):
    """The JSON value of a record or stamp the tool wrote, or None for one it
    cannot have written (not a regular file, too large, too deep, not JSON)."""
    from .inputs import parse_json, read_bytes_bounded
    try:
        return parse_json(read_bytes_bounded(path, "record of written files", MAX_RECORD), path)
    except (InputError, ValueError):
        return None


def _sha(path: Path) -> str:
    import hashlib
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Owned:
    """An output directory proved to be the tool's own (:data:`WRITTEN`).

    Every write goes through it: the name is recorded as being written
    before the file is (so a write cut short leaves a name the next run
    knows), the file is written atomically, then its digest is recorded."""

    def __init__(self, path: Path, what: str):
        self.path, self.what = Path(path), what
        f = self.path / WRITTEN
        if f.exists():
            self.record = self._read(f)
            self._check()
        else:
            found = sorted(os.listdir(self.path))
            if found:
                raise InputError(f"{self.path}: holds files this tool did not write ({_few(found)}); "
                                 f"{what} writes only into a new or empty directory, or one it wrote before: "
                                 "choose another")
            self.record = {"written_by": "simcore", "files": {}}
            self._save()

    def _read(self, f: Path) -> dict:
        rec = _json_of_ours(f)
        if not (isinstance(rec, dict) and rec.get("written_by") == "simcore" and isinstance(rec.get("files"), dict)
                and all(isinstance(k, str) and isinstance(v, (str, type(None))) for k, v in rec["files"].items())):
            raise InputError(f"{f}: not a record this tool wrote (or corrupt); {self.what} will not write into "
                             f"{self.path}: choose another directory")
        return rec

    def _save(self):
        import json
        atomic.write_text(self.path / WRITTEN, json.dumps(self.record, indent=1, sort_keys=True) + "\n")

    def _check(self):
        """Everything here is in the record, and every file as written."""
        files = self.record["files"]
        foreign, changed, cut_short = [], [], []
        for dirpath, dirnames, filenames in os.walk(self.path):
            rel = Path(dirpath).relative_to(self.path).as_posix()
            rel = "" if rel == "." else rel + "/"
            if files.get(rel) == _DATASETS:
                dirnames.clear()                # each dataset answers for itself (simcore.store)
            for d in list(dirnames):
                kind = files.get(rel + d + "/")
                if kind == _DATASET:
                    dirnames.remove(d)
                elif kind not in (_DIR, _DATASETS):
                    foreign.append(rel + d + "/")
                    dirnames.remove(d)
            for n in filenames:
                name = rel + n
                if name == WRITTEN:
                    continue
                t = atomic.tmp_of(n)
                if t is not None and (rel + t) in files:
                    cut_short.append(self.path / name)      # a write of ours cut short
                    continue
                if name not in files or files[name] in (_DIR, _DATASET, _DATASETS):
                    foreign.append(name)
                elif files[name] is not None and _sha(self.path / name) != files[name]:
                    changed.append(name)
        if foreign:
            raise InputError(f"{self.path}: holds files this tool did not write ({_few(sorted(foreign))}); "
                             f"{self.what} will not write beside them: move them out or choose another directory")
        if changed:
            raise InputError(f"{self.path}: {_few(sorted(changed))} changed since this tool wrote it; "
                             f"{self.what} will not overwrite it: move it out or choose another directory")
        for f in cut_short:
            f.unlink(missing_ok=True)

    def _claim(self, name: str) -> Path:
        parts = Path(name).parts
        if Path(name).is_absolute() or ".." in parts or not parts:
            raise ValueError(f"not a name inside the directory: {name!r}")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i]) + "/"
            if self.record["files"].get(d) is None:
                self.record["files"][d] = _DIR
                atomic.make_dir(self.path / d)
        self.record["files"][name] = None       # being written
        self._save()
        return self.path / name

    def _done(self, name: str):
        self.record["files"][name] = _sha(self.path / name)
        self._save()

    def write_text(self, name: str, text: str) -> Path:
        """Write ``text`` to ``name`` (a path inside the directory)."""
        path = atomic.write_text(self._claim(name), text)
        self._done(name)
        return path

    def write_with(self, name: str, write) -> Path:
        """Write ``name`` with ``write(tmp)`` (simcore.atomic.write_with)."""
        path = atomic.write_with(self._claim(name), write)
        self._done(name)
        return path

    def save_figure(self, fig, name: str, **kw) -> Path:
        """Save a matplotlib figure as ``name``."""
        path = atomic.save_figure(fig, self._claim(name), **kw)
        self._done(name)
        return path

    def dataset(self, name: str) -> Path:
        """The directory ``name`` for one dataset (simcore.store checks what
        is inside it), recorded; created by the run that writes it."""
        return self._record_dir(name, _DATASET)

    def datasets(self, name: str) -> Path:
        """The directory ``name`` for datasets, one directory each (simcore.store
        checks what is inside each), recorded; created by the runs."""
        return self._record_dir(name, _DATASETS)

    def _record_dir(self, name, kind) -> Path:
        key = name.rstrip("/") + "/"
        if self.record["files"].get(key) != kind:
            self.record["files"][key] = kind
            self._save()
        return self.path / key


@contextmanager
def owned(out, what: str):
    """Hold output directory ``out`` (created if missing) as :class:`Owned`
    for ``what`` (the option or command, for the messages)."""
    out = atomic.make_dir(out)
    with held(out):
        yield Owned(out, what)


def _few(names, k=3):
    return ", ".join(names[:k]) + (f" and {len(names) - k} more" if len(names) > k else "")


def _stamp_record(stamp: Path, what: str) -> dict:
    """The written files a stamp lists (``{name: digest or None}``); an
    absent stamp lists none, one the tool did not write proves nothing."""
    if not (stamp.exists() or stamp.is_symlink()):
        return {}
    rec = _json_of_ours(stamp)
    written = rec.get("written") if isinstance(rec, dict) else None
    if not isinstance(written, dict):
        raise InputError(f"{stamp}: exists and this tool did not write it; {what} will not overwrite it: "
                         "move it or choose another --out")
    return written


def check_files(stamp, paths, what: str):
    """Before any work: output files ``paths`` and their ``stamp`` (a JSON
    file written last, saying what made them) may be written only where
    each is absent or is the very file the stamp says the tool wrote."""
    stamp = Path(stamp)
    written = _stamp_record(stamp, what)
    for p in map(Path, paths):
        if p.exists():
            d = written.get(p.name, "")
            if not p.is_file() or d == "" or (d is not None and _sha(p) != d):
                raise InputError(f"{p}: exists and this tool did not write it (or it changed since); {what} "
                                 "will not overwrite it: move it or choose another --out")


def check_files_or_exit(stamp, paths, prog: str):
    """:func:`check_files` for a script ``prog``: a refusal is one
    ``prog: error:`` line on stderr and exit status 2."""
    try:
        check_files(stamp, paths, prog)
    except InputError as e:
        import sys
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(2)


def write_files(stamp, writes: dict, record: dict, what: str):
    """Write each ``{path: write(tmp)}`` of ``writes`` atomically, then
    ``stamp``: ``record`` plus the digest of every file (``written``). The
    names are recorded in the stamp before their files are written, so a
    run cut short leaves files the next run knows as its own."""
    import json
    stamp = Path(stamp)
    check_files(stamp, writes, what)
    written = dict(_stamp_record(stamp, what))
    written.update({Path(p).name: None for p in writes})
    old = _json_of_ours(stamp) if stamp.exists() else {}
    atomic.write_text(stamp, json.dumps(dict(old, written=written), indent=1) + "\n")
    for p, write in writes.items():
        atomic.write_with(p, write)
        written[Path(p).name] = _sha(Path(p))
    atomic.write_text(stamp, json.dumps(dict(record, written=written), indent=1) + "\n")
