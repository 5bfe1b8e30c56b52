"""Code this program writes and then imports: where it lives
(:func:`cache_root`) and how a package of it is written once and imported
(:func:`generated_package`). A plug-in policy's C entry point
(simcore.fnptr) is such a package."""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from .errors import InputError


def cache_root(env_var, app):
    """Where generated entry points live: ``$env_var``, or ``~/.cache/app``
    where the home can be written, else a folder of the user's own in the
    temporary directory (simcore.jitcache.user_cache); an empty ``$env_var``
    counts as unset, never as the current directory."""
    from .jitcache import user_cache
    given = os.environ.get(env_var)
    if given:
        return Path(given) / "engines"
    try:
        return user_cache(app) / "engines"
    except RuntimeError as e:
        raise InputError(f"{e} (or {env_var})") from None


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
