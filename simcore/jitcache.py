"""Keep numba's on-disk cache honest across source edits.

numba re-validates a cached kernel only against the file that defines it, not
against the modules whose constants it froze in (here: the state layout and
table offsets). After an edit to ``layout.py`` a cached kernel in ``game.py``
would still use the old offsets. ``guard`` fingerprints every engine source
file and clears the package's cached kernels when the fingerprint changes.
"""
import hashlib
import os
import sys
import tempfile
from pathlib import Path

# simcore's files that every game's engine compiles in
CORE_SOURCES = ("rng.py", "jit.py", "fnptr.py", "decision.py", "search.py", "race.py")   # decision.py: compiled into every rule kernel that asks a player; search.py, race.py: into the search policies


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
    keep_cache_consistent()
    load_without_refresh(Path(package_dir).name, here.name)


_CONSISTENT = []      # [True] once keep_cache_consistent has patched numba


def keep_cache_consistent():
    """Make numba's on-disk cache safe for processes that compile the same
    kernel at once (the compile plan's workers, pytest's workers, two
    commands started together).

    numba saves a compiled overload by reading the kernel's index, picking
    the first free data-file number, writing the index and then the data,
    with no lock. Two processes that compile two overloads of one kernel
    together (``log_patch`` with a literal column 6 and 7) can both pick
    ``.1.nbc``: the index then names one overload and the file holds the
    other's code. Measured with eight processes compiling eight literal
    overloads of one small kernel at once: the index lost an entry in two
    of six trials, and in one a call ``f(1, 7)`` ran ``f(1, 1)``'s code and
    returned the wrong number (docs/common/performance.md). So a save holds
    an exclusive lock on a file beside the kernel's index (POSIX ``flock``;
    without ``fcntl``, numba's own save), and a load whose code was compiled
    for other argument types than those asked for is refused, so that the
    kernel compiles again and its entry is written right (a cache left wrong
    by an older version heals itself). Both wrap numba's internals; where they differ (another
    numba version) nothing is patched."""
    if _CONSISTENT:
        return
    _CONSISTENT.append(True)
    try:
        from numba.core import caching, sigutils
    except ImportError:
        return
    files, cache = caching.IndexDataCacheFile, caching.Cache
    if not (hasattr(files, "save") and hasattr(files, "_load_index") and hasattr(cache, "_load_overload")):
        return
    numba_save, numba_load = files.save, cache._load_overload

    def save(self, key, data):
        try:
            import fcntl
            lock = open(self._index_path + ".lock", "a")
        except (ImportError, OSError):
            return numba_save(self, key, data)
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)       # released when the file closes
            return numba_save(self, key, data)

    def _load_overload(self, sig, target_context):
        cres = numba_load(self, sig, target_context)
        if cres is not None and tuple(cres.signature.args) != tuple(sigutils.normalize_signature(sig)[0]):
            return None         # another overload's code under this one's key: compile it again
        return cres

    files.save, cache._load_overload = save, _load_overload


# packages whose cached kernels load without numba's registry refresh
_QUICK_LOAD = set()


def load_without_refresh(*packages):
    """Load the cached kernels of ``packages`` (top-level package names)
    without numba's registry refresh: about a fifth of a warm start.

    numba's ``Cache.load_overload`` calls ``target_context.refresh()`` before
    every load. The first call imports about 250 modules of numba's typing
    and lowering registries and, through its BLAS check, ``scipy.linalg``:
    0.20–0.25 s of a 0.9 s ``simulate --games 1`` (docs/common/performance.md,
    Start-up). A loaded kernel is machine code and uses none of them. What
    it does need from the refresh is the runtime's symbols (``NRT_*``,
    ``rtsys.initialize``), so that is done here; numba's helper, math and
    exception symbols are registered when numba is imported. Anything that
    compiles still refreshes first (numba's compiler does, in
    ``CompilerBase``), so a later compile in the same process is unchanged.

    Only the named packages' kernels (the games' and simcore's own, which
    the tests load this way on every run) take this path; a plug-in policy,
    or any other numba code in the process, loads as numba does it. A kernel
    that used a symbol only the refresh registers (numba's string hashing
    registers ``_numba_hashsecret_*`` when imported) would stop a warm
    start with ``LLVM ERROR: Symbol not found``, and the tests with it.
    Where numba's internals differ from these (another numba version), the
    quick path is not installed and numba's own is used."""
    if not _QUICK_LOAD and not _install_quick_load():
        return
    _QUICK_LOAD.update(packages)


def _install_quick_load():
    """Replace ``numba.core.caching.Cache.load_overload`` with one that skips
    the refresh for :data:`_QUICK_LOAD` packages. False (nothing replaced)
    where numba does not have the internals it relies on."""
    try:
        from numba.core import caching
        from numba.core.registry import cpu_target
        from numba.core.runtime import rtsys
    except ImportError:
        return False
    numba_load = caching.Cache.load_overload
    if not (hasattr(caching.Cache, "_load_overload") and hasattr(rtsys, "initialize")
            and hasattr(caching.Cache, "_guard_against_spurious_io_errors")):
        return False

    def load_overload(self, sig, target_context):
        py_func = getattr(self, "_py_func", None)
        package = getattr(py_func, "__module__", "").partition(".")[0]
        if package not in _QUICK_LOAD or target_context is not cpu_target.target_context:
            return numba_load(self, sig, target_context)
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    caching.Cache.load_overload = load_overload
    return True


APP = "mourne-balance"


def _writable(d: Path) -> bool:
    """Whether files can be created in directory ``d`` (made if missing)."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=d):
            return True
    except OSError:
        return False


def user_cache(app: str) -> Path:
    """A writable directory for ``app``'s compiled code: ``~/.cache/app``
    where the home can be written, else a folder of this user's own in the
    system's temporary directory (an account with no writable home)."""
    try:
        home = Path.home() / ".cache" / app
    except (RuntimeError, KeyError):       # no HOME and no password entry
        home = None
    if home is not None and _writable(home):
        return home
    tmp = Path(tempfile.gettempdir()) / f"{app}-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    try:
        tmp.mkdir(mode=0o700, exist_ok=True)
        st = tmp.lstat()
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or not tmp.is_dir() or tmp.is_symlink()):
            raise OSError(f"{tmp} belongs to another user")
    except OSError as e:
        raise RuntimeError(f"no writable place for compiled code ({e}); set NUMBA_CACHE_DIR to a directory "
                           "you can write") from None
    return tmp


def place_numba_cache():
    """Give numba a writable cache when the installed package's own
    ``__pycache__`` cannot be written (a read-only install): numba's
    fallback, ``~/.cache/numba``, fails too without a writable home, and then
    every command ended at import with numba's "cannot cache function".
    Sets ``NUMBA_CACHE_DIR`` (so worker processes inherit it) before any
    kernel is defined; a cache the user chose is kept."""
    if os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    here = Path(__file__).parent
    if _writable(here / "__pycache__"):
        return
    try:
        d = str(user_cache(APP) / "numba")
    except RuntimeError as e:      # nowhere to write: say so in one line, not numba's traceback
        print(f"{APP}: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    os.environ["NUMBA_CACHE_DIR"] = d
    config = sys.modules.get("numba.core.config")
    if config is not None:              # numba already imported: its config read the variable then
        config.CACHE_DIR = d


def cache_dir(package_dir) -> Path:
    """Where numba keeps the cached kernels of the files in ``package_dir``:
    its ``__pycache__``, or under ``$NUMBA_CACHE_DIR`` as numba names it
    there (numba.core.caching's ``get_suitable_cache_subpath``)."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if not root:
        return Path(package_dir) / "__pycache__"
    sub = os.path.abspath(str(package_dir))
    return Path(root) / f"{os.path.basename(sub)}_{hashlib.sha1(sub.encode()).hexdigest()}"


def guard(package_dirs, sources):
    """Clear ``*.nbi``/``*.nbc`` of each of ``package_dirs`` (its
    :func:`cache_dir`) when the combined hash of ``sources`` (file paths)
    differs from the stored stamp."""
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
        cache = cache_dir(d)
        stamp = cache / "engine-sources.sha256"
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            cache.mkdir(parents=True, exist_ok=True)
            for f in cache.iterdir():
                if f.suffix in (".nbi", ".nbc"):
                    f.unlink(missing_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass   # read-only install: numba falls back to compiling in memory
