"""Plug-in plumbing both games can use: import a user's module from a file
or by name (errors as one line), and write and import a generated package of
engine files (the engine copy a plug-in policy runs in, so numba can cache
kernels that call a user's function)."""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from contextlib import contextmanager
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
    """Where generated engines live: ``$env_var`` or ``~/.cache/app``."""
    return Path(os.environ.get(env_var, Path.home() / ".cache" / app)) / "engines"


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
            raise InputError(f"{e} (the engine copy of a plug-in policy is compiled there: point "
                             "$MOURNESIM_CACHE / $QUESTSIM_CACHE at a writable directory)") from None
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(f"{pkg}.{module}")
