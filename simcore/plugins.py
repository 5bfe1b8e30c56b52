"""Plug-in plumbing both games use: each game's policy registry
(:class:`PolicyRegistry`), importing a user's module from a file or by name
(errors as one line), and writing and importing a generated package of files
(a plug-in policy's C entry point, simcore/fnptr.py)."""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from .errors import InputError
from .generated import cache_root
from .inputs import MAX_BATCH, MAX_PLUGIN_BYTES, check_params, regular_file

# What a plug-in may ask of the registry (checked when it registers, so a
# mistake is one line naming the policy before any game):
# - its name is part of a directory and a file name (the compiled entry
#   point) and of every report's policy column: 64 characters is plenty;
MAX_NAME = 64
# - names the command lines give a meaning of their own (``--policy all``
#   plays every built-in heuristic);
RESERVED = frozenset({"all"})
# - its working memory (``scratch``) rides in the policy's parameter vector,
#   one float64 a slot, zeroed every batch in every worker (for Quest Master
#   once a seat): the shipped search uses about 6,500 slots, so 2^20 (8 MiB a
#   vector) allows a search 150 times larger, and a request of 10^12 (8 TB)
#   is refused rather than tried;
MAX_SCRATCH = 1 << 20
# - its parameters are tuned by hand, by --params and by NTBEA, a handful
#   each (Quest Master's planner has 10, its rollout 13): 64 unless the game holds fewer
#   (Quest Master's table has 16 slots a seat).
MAX_PARAMS = 64


def import_plugin(spec, prefix):
    """Import ``spec``: a ``.py`` file (as module ``prefix_<hash>``) or an
    importable module name. Whatever the user's code does while it loads —
    raise, call ``sys.exit``, be interrupted — is one InputError line: loading
    a plug-in can never end the process."""
    path = Path(spec)
    if spec.endswith(".py") or path.exists():
        if not path.exists():
            raise InputError(f"--plugin {spec}: no such file")
        try:   # a regular file of a sane size (a FIFO or /dev/zero would hang the import)
            regular_file(path, "plug-in file (.py)", MAX_PLUGIN_BYTES)
        except InputError as e:
            raise InputError(f"--plugin {e}") from None
        name = f"{prefix}_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
        if name in sys.modules:
            return sys.modules[name]
        sp = importlib.util.spec_from_file_location(name, path.resolve())
        if sp is None or path.suffix != ".py":
            raise InputError(f"--plugin {spec}: not a Python file (a plug-in is a .py file or a module name)")
        mod = importlib.util.module_from_spec(sp)
        sys.modules[name] = mod
        try:
            _guarded(spec, sp.loader.exec_module, mod)
        except BaseException:
            del sys.modules[name]
            raise
        return mod
    return _guarded(spec, importlib.import_module, spec)


@contextmanager
def output_to_stderr():
    """While a plug-in's code runs, what it prints goes to standard error:
    standard output carries only the command's own output (a replay's JSON
    lines). Both levels: ``sys.stdout`` (Python's ``print`` and numba's,
    which writes through it) and file descriptor 1 (C code, ``os.write``);
    both restored after."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (AttributeError, OSError, ValueError):
            pass
    saved = None
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:       # no standard output or error to move
        if saved is not None:
            os.close(saved)
            saved = None
    before, sys.stdout = sys.stdout, sys.stderr
    try:
        yield
    finally:
        try:
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass
        sys.stdout = before
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _guarded(spec, fn, *args):
    """Run the user's module code (its output to standard error); its
    exceptions become one InputError."""
    try:
        with output_to_stderr():
            return fn(*args)
    except InputError as e:     # a policy it registers is refused: say which file registers it
        if str(e).startswith("--plugin "):
            raise
        raise InputError(f"--plugin {spec}: {e}") from None
    except ImportError as e:
        raise InputError(f"--plugin {spec}: cannot import ({e})") from None
    except SystemExit as e:
        raise InputError(f"--plugin {spec}: called sys.exit({e.code!r}) while loading; a plug-in must "
                         "only register policies") from None
    except KeyboardInterrupt:
        raise
    except BaseException as e:   # the user's code: one line, not a traceback
        detail = str(e).splitlines()[0] if str(e) else ""
        raise InputError(f"--plugin {spec}: {type(e).__name__}: {detail}") from None


def load_entry_point(ep):
    """Load an installed plug-in entry point under the same guard."""
    return _guarded(f"entry point {ep.name} ({ep.value})", ep.load)


@contextmanager
def policy_guard(policy):
    """Around a kernel call: an exception raised inside a policy (a plug-in's
    ``raise`` compiles to one) becomes one InputError naming the policy."""
    try:
        yield
    except (InputError, KeyboardInterrupt):
        raise
    except Exception as e:
        detail = str(e).splitlines()[0] if str(e) else ""
        raise InputError(f"policy {policy} failed while playing: {type(e).__name__}: {detail}") from None


def checked_ranges(name, params, ranges):
    """A policy's parameter ranges as registered, checked: each names one of
    its parameters, low <= high, and every default lies inside."""
    ranges = {k: (float(lo), float(hi)) for k, (lo, hi) in dict(ranges or {}).items()}
    for k, (lo, hi) in ranges.items():
        if k not in params or not lo <= hi:
            raise InputError(f"policy {name!r}: range of {k!r}: name a parameter, low <= high")
    try:
        check_params(name, tuple(params), tuple(float(v) for v in params.values()), ranges)
    except InputError as e:
        raise InputError(f"policy {name!r}: a default parameter is invalid ({e})") from None
    return ranges


# ---- the policy registry, one per game ------------------------------------------

@dataclass
class PolicyInfo:
    """A registered policy: its name, parameters and where it runs."""
    name: str
    description: str
    param_names: tuple
    defaults: tuple
    builtin_id: int = -1          # id in the built-in engine, or -1 for a plug-in
    func: object = None           # the plug-in's numba function
    source: str = ""              # the plug-in's file
    module: str = ""              # the plug-in's module name
    meta: dict = field(default_factory=dict)
    ranges: dict = field(default_factory=dict)   # parameter name -> (low, high); absent: any finite value


class PolicyRegistry:
    """A game's policies by name: the built-ins the engine compiles, and
    plug-ins (a user's numba function, compiled alone behind a C entry point
    and called by the engine through its address, simcore/fnptr.py).

    ``builtins``: ``(id, name, parameter names, defaults)`` rows of the game's
    kernels; ``descriptions`` and ``ranges`` (parameter → (low, high)) cover
    them. ``prog`` names the game's command (``$PROG_PLUGINS``,
    ``$PROG_CACHE``, the entry-point group ``prog.policies``); ``arg_spec`` is
    a plug-in's arguments in the order the engine passes them; ``sources``
    the engine files a compiled entry point depends on; ``shipped`` registers
    the policies the game ships as plug-ins (the rollout search);
    ``entries`` the game's module of built-in entry points (``ENTRIES``, its
    policy ids, and ``address(id)``: greedy's and the planner's)."""

    def __init__(self, prog, builtins, descriptions, ranges, arg_spec, sources, shipped=None, entries=None,
                 max_params=MAX_PARAMS):
        self.prog, self.arg_spec, self.sources, self._shipped = prog, arg_spec, tuple(sources), shipped
        self.max_params = max_params
        self._shipping = False
        self._shipped_done = False
        self.entries = entries
        self.ranges = ranges
        self._infos = {name: PolicyInfo(name, descriptions.get(name, ""), tuple(pn), tuple(d), builtin_id=pid,
                                        ranges={n: ranges[n] for n in pn})
                       for pid, name, pn, d in builtins}
        self._loaded = False
        self._shipped_names = ()
        self._addresses = {}

    def _ship(self):
        """Register the policies the game ships as plug-ins (once)."""
        if self._shipped_done:
            return
        self._shipped_done = True
        if self._shipped:
            before = set(self._infos)
            self._shipping = True
            try:
                self._shipped(self)
            finally:
                self._shipping = False
            self._shipped_names = tuple(set(self._infos) - before)

    def _checked(self, name, func, params, batch, scratch, uses):
        """Refuse, one line naming the policy, a registration the commands
        could not play: a name that is taken, reserved or unusable, a
        function that is not numba's or cannot take the engine's arguments,
        parameters that are not numbers, more memory, games per batch or
        parameters than the bounds above. Returns the plain function."""
        if not isinstance(name, str) or not name.isidentifier() or len(name) > MAX_NAME:
            raise InputError(f"policy name {name!r}: use letters, digits and underscores "
                             f"(at most {MAX_NAME} characters)")
        if name != name.lower():
            raise InputError(f"policy name {name!r}: use lower-case letters (--policy reads names in lower case)")
        if name in RESERVED:
            raise InputError(f"policy name {name!r} is reserved (--policy {name} means every built-in "
                             "heuristic): choose another name")
        if name in self._infos and self._infos[name].builtin_id >= 0:
            raise InputError(f"policy name {name!r} is a built-in policy")
        if name in self._shipped_names and not self._shipping:
            raise InputError(f"policy name {name!r} is a policy shipped with {self.prog}: choose another name")
        what = f"plug-in policy {name!r}"
        from numba import config
        if not hasattr(func, "py_func") and not config.DISABLE_JIT:
            raise InputError(f"policy {name!r}: the function must be decorated with numba's @njit")
        py = getattr(func, "py_func", func)   # the plain function when NUMBA_DISABLE_JIT=1
        try:
            sig = inspect.signature(py)
            sig.bind(*(n for n, _ in self.arg_spec))
        except TypeError:
            raise InputError(f"{what}: {self._contract()}; {getattr(py, '__name__', 'it')} takes "
                             f"{_params_of(py)}") from None
        except ValueError:    # no signature to inspect (a builtin): numba will say
            pass
        try:
            params = dict(params or {})
            for v in params.values():
                float(v)
        except (TypeError, ValueError):
            raise InputError(f"{what}: params must map parameter names to numbers, "
                             f"e.g. params={{'risk': 0.8}}") from None
        if len(params) > self.max_params:
            raise InputError(f"{what}: {len(params)} parameters, more than the {self.max_params} a policy "
                             "may have")
        if not _whole(scratch, 0, MAX_SCRATCH):
            raise InputError(f"{what}: scratch={scratch!r}: working memory is a whole number of slots from 0 to "
                             f"{MAX_SCRATCH:,} (8 bytes each)")
        if batch is not None and not _whole(batch, 1, MAX_BATCH):
            raise InputError(f"{what}: batch={batch!r}: games per batch is a whole number from 1 to {MAX_BATCH:,}")
        if isinstance(uses, str) or not all(isinstance(u, str) for u in uses):
            raise InputError(f"{what}: uses={uses!r}: give a tuple of built-in policy names, e.g. uses=('planner',)")
        for u in uses:
            if u not in self._infos or self._infos[u].builtin_id < 0:
                raise InputError(f"{what}: uses {u!r}, which is not a built-in policy")
        return py

    def _contract(self):
        """What a plug-in's function must be, in words."""
        return f"its decide function must take ({', '.join(n for n, _ in self.arg_spec)}) and return an int"

    def register(self, name, func, params=None, description="", batch=None, ranges=None, scratch=0, uses=()):
        """Register numba function ``func`` as policy ``name``; ``params`` maps
        parameter names to default values (the ``pp`` vector, in that order).
        ``batch``: games per batch in grid runs, for a slow (search) policy,
        so an interrupted run loses little and the progress bar moves.
        ``ranges`` maps parameter names to their valid ``(low, high)``; a
        value outside is refused before any game (without a range a value
        need only be finite). ``scratch``: slots of working memory after the
        parameters. ``uses``: built-in policies whose entry points the
        plug-in's own copies of the game call (a search playing them on):
        their addresses follow the memory, in that order, before the
        plug-in's own.

        Refused, one line naming the policy: a name that is reserved
        (``all``), a built-in's or a shipped plug-in's, not lower case or
        longer than MAX_NAME; a function that cannot take the engine's
        arguments; more than MAX_SCRATCH slots, MAX_BATCH games a batch or
        the game's parameter slots. What numba cannot compile, or a function
        that does not return an integer, is refused when it first compiles
        (:meth:`address`)."""
        if not self._shipping:
            self._ship()           # the shipped plug-ins' names are taken too
        py = self._checked(name, func, params, batch, scratch, uses)
        params = dict(params or {})
        self._infos[name] = PolicyInfo(name, description, tuple(params), tuple(float(v) for v in params.values()),
                                       func=func, source=inspect.getsourcefile(py) or "", module=py.__module__,
                                       meta=({"batch": int(batch)} if batch else {})
                                       | ({"scratch": int(scratch)} if scratch else {})
                                       | ({"uses": tuple(uses)} if uses else {}),
                                       ranges=checked_ranges(name, params, ranges))
        return func

    def load_plugin(self, spec):
        """Import a plug-in module given as a ``.py`` file path or a module name."""
        return import_plugin(spec, f"{self.prog}_plugin")

    def load_configured(self):
        """Register the shipped plug-ins, then load those named in
        ``$PROG_PLUGINS`` (os.pathsep separated) and installed entry points
        of the group ``prog.policies`` (once)."""
        if self._loaded:
            return
        self._loaded = True
        self._ship()
        for spec in filter(None, os.environ.get(f"{self.prog.upper()}_PLUGINS", "").split(os.pathsep)):
            self.load_plugin(spec)
        for ep in metadata.entry_points(group=f"{self.prog}.policies"):
            load_entry_point(ep)

    def policies(self):
        """Every registered policy, built-ins first."""
        self.load_configured()
        return list(self._infos.values())

    def get(self, name) -> PolicyInfo:
        """Policy ``name``; an unknown name is bad input."""
        self.load_configured()
        if name not in self._infos:
            raise InputError(f"--policy: unknown policy {name!r} (registered: {', '.join(self._infos)}; "
                             "load your own with --plugin FILE)")
        return self._infos[name]

    def plugs_in(self, names):
        """Whether any of policies ``names`` is a plug-in (user code, or the
        shipped search), so its games play in a child process."""
        return any(self.get(n).builtin_id < 0 for n in names)

    def specs(self):
        """Files/modules a worker process must load to know the registered
        plug-ins (the shipped ones register themselves)."""
        return tuple(sorted({p.source if Path(p.source).is_file() else p.module
                             for p in self.policies() if p.builtin_id < 0 and p.name not in self._shipped_names}))

    def builtin_entry(self, name) -> int:
        """The address of built-in policy ``name``'s entry point (compiled or
        loaded from the cache on first use), 0 for one the engine plays
        itself (random, first)."""
        pid = self.get(name).builtin_id
        return self.entries.address(pid) if self.entries and pid in self.entries.ENTRIES else 0

    def compile_entries(self, names):
        """Compile (or load) the entry points of the built-in policies among
        ``names``; a plug-in's compiles when it is first played, since it may
        call the engine."""
        for name in names:
            if self.get(name).builtin_id >= 0:
                self.builtin_entry(name)

    def used_addresses(self, info: PolicyInfo) -> list:
        """The addresses of the built-in entry points plug-in ``info``
        ``uses``, in order; one InputError line for a policy without one."""
        out = []
        for name in info.meta.get("uses", ()):
            addr = self.builtin_entry(name)
            if not addr:
                raise InputError(f"policy {info.name} uses {name}, which has no entry point (greedy or planner)")
            out.append(float(addr))
        return out

    def address(self, info: PolicyInfo) -> int:
        """The address of plug-in ``info``'s entry point, compiled once and
        cached under ``$PROG_CACHE`` (default ``~/.cache/prog``) and recompiled
        when its file or an engine source changes (simcore/fnptr.py)."""
        from .fnptr import entry_address
        from .jitcache import sources_key
        if info.name not in self._addresses:
            from numba.core.errors import NumbaError
            prefix = f"{self.prog}_entry"
            try:
                addr = entry_address(info, self.arg_spec, cache_root(f"{self.prog.upper()}_CACHE", self.prog),
                                     prefix, sources_key(self.sources))
            except NumbaError as e:     # the plug-in does not compile for the engine's arguments
                raise InputError(f"plug-in policy {info.name!r}: {self._diagnosis(info, e)}") from None
            wrong = self._return_type(info)
            if wrong:
                _forget_entry(prefix, info.name, addr)    # so the next run compiles and checks it again
                raise InputError(f"plug-in policy {info.name!r}: {self._contract()}; it returns {wrong}")
            self._addresses[info.name] = addr
        return self._addresses[info.name]

    def _arg_types(self):
        """The numba types the entry point passes the plug-in (simcore/fnptr.py)."""
        from numba import types
        return tuple(types.int64 if dtype is None else types.Array(getattr(types, dtype), 1, "C")
                     for _, dtype in self.arg_spec)

    def _return_type(self, info):
        """The type plug-in ``info`` returns for the engine's arguments when
        it is not an integer (None when it is, or when the entry point came
        from the cache: it was checked when it compiled)."""
        from numba import types
        overloads = getattr(info.func, "overloads", None) or {}
        cres = overloads.get(self._arg_types())
        rt = getattr(getattr(cres, "signature", None), "return_type", None)
        return None if rt is None or isinstance(rt, types.Integer) else str(rt)

    def _diagnosis(self, info, err):
        """What numba's error ``err`` (compiling the entry point) says about
        the plug-in itself: compiled alone for the engine's arguments it
        either fails with a message about its own code, or compiles and
        returns something that is not an integer."""
        from numba.core.errors import NumbaError
        args = ", ".join(n for n, _ in self.arg_spec)
        try:
            info.func.compile(self._arg_types())
        except NumbaError as e:
            return f"numba cannot compile it for the arguments the engine passes ({args}): {_numba_line(e)}"
        except Exception:      # noqa: BLE001 (the entry point's own error is said instead)
            pass
        else:
            wrong = self._return_type(info)
            if wrong:
                return f"{self._contract()}; it returns {wrong}"
        return f"{self._contract()}; numba says: {_numba_line(err)}"


def _whole(x, lo, hi) -> bool:
    """Whether ``x`` is an integer (not a bool) from ``lo`` to ``hi``."""
    import numbers
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and lo <= x <= hi


def _params_of(py) -> str:
    """``py``'s parameter list as written, ``(s, T, legal)``."""
    try:
        return str(inspect.signature(py))
    except (TypeError, ValueError):
        return "other arguments"


def _numba_line(err) -> str:
    """The line of a numba error that says what is wrong (its first lines
    name the compiler pass, its last ones where)."""
    import re
    skip = ("Failed in ", "During:", "File ", "Return of:", "def ", "<source", "^", "No implementation",
            "There are ", "Resolution failure", "- ", "Of which")
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", x).strip() for x in str(err).splitlines()]
    said = [f"no {x[4:]} (no such operation for these types)" if x.startswith(">>> ") else x
            for x in lines if x and not x.startswith(skip)]
    line = (said or [x for x in lines if x] or [type(err).__name__])[0]
    return line if len(line) <= 300 else line[:297] + "..."


def _forget_entry(prefix, name, addr):
    """Delete the generated package of plug-in ``name``'s entry point at
    ``addr`` (a cache of ours), so that it is compiled, and checked, again."""
    import shutil
    for key, mod in list(sys.modules.items()):
        if key.startswith(f"{prefix}_{name}_") and key.endswith(".entry") \
                and getattr(getattr(mod, "entry", None), "address", None) == addr:
            shutil.rmtree(Path(mod.__file__).parent, ignore_errors=True)
