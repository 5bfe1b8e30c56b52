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
from pathlib import Path

from .errors import InputError


def import_plugin(spec, prefix):
    """Import ``spec``: a ``.py`` file (as module ``prefix_<hash>``) or an
    importable module name. The user's exceptions become one InputError."""
    path = Path(spec)
    if spec.endswith(".py") or path.exists():
        if not path.is_file():
            raise InputError(f"--plugin {spec}: no such file")
        name = f"{prefix}_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
        if name in sys.modules:
            return sys.modules[name]
        sp = importlib.util.spec_from_file_location(name, path.resolve())
        mod = importlib.util.module_from_spec(sp)
        sys.modules[name] = mod
        try:
            sp.loader.exec_module(mod)
        except InputError:
            raise
        except Exception as e:   # the user's code: one line, not a traceback
            del sys.modules[name]
            raise InputError(f"--plugin {spec}: {type(e).__name__}: {e}") from None
        return mod
    try:
        return importlib.import_module(spec)
    except ImportError as e:
        raise InputError(f"--plugin {spec}: cannot import ({e})") from None


def cache_root(env_var, app):
    """Where generated engines live: ``$env_var`` or ``~/.cache/app``."""
    return Path(os.environ.get(env_var, Path.home() / ".cache" / app)) / "engines"


def generated_package(root: Path, pkg: str, files: dict, module: str):
    """Write ``files`` (name → source) as package ``pkg`` under ``root``
    (once: the name carries a hash of the sources) and import ``pkg.module``."""
    d = root / pkg
    if not all((d / f).exists() for f in files):
        d.mkdir(parents=True, exist_ok=True)
        for f, src in files.items():
            tmp = d / (f + ".tmp")
            tmp.write_text(src)
            os.replace(tmp, d / f)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(f"{pkg}.{module}")
