"""Keep numba's on-disk cache honest across source edits.

numba re-validates a cached kernel only against the file that defines it, not
against the modules whose constants it froze in (here: the state layout and
table offsets). After an edit to ``layout.py`` a cached kernel in ``game.py``
would still use the old offsets. ``guard`` fingerprints every engine source
file and clears the package's cached kernels when the fingerprint changes.
"""
import hashlib
import os
from pathlib import Path

# simcore's files that every game's engine compiles in
CORE_SOURCES = ("rng.py", "jit.py", "fnptr.py", "search.py")   # search.py: compiled into rollout


def engine_sources(package_dir, names):
    """The paths of a game's engine sources ``names`` (files in ``package_dir``)
    and of simcore's :data:`CORE_SOURCES`: what :func:`guard` and a plug-in's
    cache key must fingerprint."""
    here = Path(__file__).parent
    return [Path(package_dir) / n for n in names] + [here / n for n in CORE_SOURCES]


def compiled(dispatcher):
    """Whether numba's cache holds compiled code of ``dispatcher`` (its index
    file exists), so that a first call loads rather than compiles it. True
    when there is no cache to ask (``NUMBA_DISABLE_JIT``)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return True


def sources_key(paths):
    """The bytes of every file in ``paths``, concatenated: a cache key."""
    return b"".join(Path(p).read_bytes() for p in paths)


def guard_engine(package_dir, names):
    """Guard a game's cached kernels and simcore's, each against its own
    sources: ``package_dir/__pycache__`` against the game's engine sources
    ``names`` and simcore's (:func:`engine_sources`), simcore's
    ``__pycache__`` against simcore's :data:`CORE_SOURCES` alone. simcore's
    kernels freeze in nothing of a game's, and a stamp made of one game's
    sources would clear them whenever the other game is imported (the two
    games took turns wiping them)."""
    here = Path(__file__).parent
    guard([package_dir], engine_sources(package_dir, names))
    guard([here], engine_sources(here, ()))     # simcore's own sources alone


def guard(package_dirs, sources):
    """Clear ``*.nbi``/``*.nbc`` under each ``package_dirs/__pycache__`` when the
    combined hash of ``sources`` (file paths) differs from the stored stamp."""
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    h = hashlib.sha256()
    for src in sorted(map(str, sources)):
        try:
            h.update(Path(src).read_bytes())
        except OSError:
            return
    digest = h.hexdigest()
    for d in package_dirs:
        cache = Path(d) / "__pycache__"
        stamp = cache / "engine-sources.sha256"
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            cache.mkdir(exist_ok=True)
            for f in cache.iterdir():
                if f.suffix in (".nbi", ".nbc"):
                    f.unlink(missing_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass   # read-only install: numba falls back to compiling in memory
