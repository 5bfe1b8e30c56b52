"""Machinery both games share: seeded random streams, statistics, dotted-path
overrides and the error type that the command lines turn into exit status 2."""

from importlib.metadata import PackageNotFoundError as _NotInstalled, version as _version

try:   # the one source of the version is pyproject.toml, read from the installed package
    __version__ = _version("mourne-balance")
except _NotInstalled:   # imported from a source tree that was never installed
    __version__ = "0+unknown"

# before any kernel is defined: a read-only install caches its kernels elsewhere
from . import jitcache as _jitcache  # noqa: E402

_jitcache.place_numba_cache()
