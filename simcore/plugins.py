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
from .inputs import check_params


def import_plugin(spec, prefix):
    """Import ``spec``: a ``.py`` file (as module ``prefix_<hash>``) or an
    importable module name. Whatever the user's code does while it loads —
    raise, call ``sys.exit``, be interrupted — is one InputError line: loading
    a plug-in can never end the process."""
    path = Path(spec)
    if spec.endswith(".py") or path.exists():
        if not path.is_file():
            raise InputError(f"--plugin {spec}: no such file")
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


def _guarded(spec, fn, *args):
    """Run the user's module code; its exceptions become one InputError."""
    try:
        return fn(*args)
    except InputError:
        raise
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


def cache_root(env_var, app):
    """Where generated entry points live: ``$env_var`` or ``~/.cache/app``
    (an empty ``$env_var`` counts as unset, never as the current directory)."""
    return Path(os.environ.get(env_var) or Path.home() / ".cache" / app) / "engines"


def generated_package(root: Path, pkg: str, files: dict, module: str):
    """Write ``files`` (name → source) as package ``pkg`` under ``root``
    (once: the name carries a hash of the sources; each file written
    atomically, so workers starting together never read half a file) and
    import ``pkg.module``."""
    from . import atomic
    d = root / pkg
    if not all((d / f).exists() for f in files):
        try:
            atomic.make_dir(d)
            for f, src in files.items():
                atomic.write_text(d / f, src)
        except atomic.OutputError as e:
            raise InputError(f"{e} (a plug-in policy is compiled there: point "
                             "$MOURNESIM_CACHE / $QUESTSIM_CACHE at a writable directory)") from None
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(f"{pkg}.{module}")


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

    def __init__(self, prog, builtins, descriptions, ranges, arg_spec, sources, shipped=None, entries=None):
        self.prog, self.arg_spec, self.sources, self._shipped = prog, arg_spec, tuple(sources), shipped
        self.entries = entries
        self.ranges = ranges
        self._infos = {name: PolicyInfo(name, descriptions.get(name, ""), tuple(pn), tuple(d), builtin_id=pid,
                                        ranges={n: ranges[n] for n in pn})
                       for pid, name, pn, d in builtins}
        self._loaded = False
        self._shipped_names = ()
        self._addresses = {}

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
        plug-in's own."""
        if not name.isidentifier():
            raise InputError(f"policy name {name!r}: use letters, digits and underscores")
        if name in self._infos and self._infos[name].builtin_id >= 0:
            raise InputError(f"policy name {name!r} is a built-in policy")
        from numba import config
        if not hasattr(func, "py_func") and not config.DISABLE_JIT:
            raise InputError(f"policy {name!r}: the function must be decorated with numba's @njit")
        py = getattr(func, "py_func", func)   # the plain function when NUMBA_DISABLE_JIT=1
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
        if self._shipped:
            before = set(self._infos)
            self._shipped(self)
            self._shipped_names = tuple(set(self._infos) - before)
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
            self._addresses[info.name] = entry_address(
                info, self.arg_spec, cache_root(f"{self.prog.upper()}_CACHE", self.prog), f"{self.prog}_entry",
                sources_key(self.sources))
        return self._addresses[info.name]
