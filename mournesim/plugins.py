"""The policy registry: the built-in policies and your own, by name.

A plug-in policy is a numba function with the built-ins' signature

    @njit(cache=True)
    def choose(s, T, legal, n, rng, pp, h):   # -> one of legal[:n]

registered under a name from any module of yours::

    from mournesim.plugins import register_policy
    register_policy("cautious", choose, params={"risk": 0.8}, description="...")

and used with ``mournesim --plugin my_policy.py simulate --policy cautious``
(or ``MOURNESIM_PLUGINS=my_policy.py``, or an entry point in the group
``mournesim.policies``), without editing the package.

How it runs at numba speed: your function is compiled on its own behind a
C entry point, cached under ``$MOURNESIM_CACHE`` (default
``~/.cache/mournesim``) and recompiled when your file or an engine source
changes; the
engine, compiled once for every policy, calls it through its address
(simcore/fnptr.py). A plug-in's first run takes seconds, not an engine
compile.
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

from simcore.errors import InputError
from simcore.fnptr import entry_address
from simcore.jitcache import engine_sources, sources_key
from simcore.plugins import cache_root, checked_ranges, import_plugin, load_entry_point
from . import ENGINE_SOURCES
from .policies import BUILTIN_POLICIES, POLICY_PLUGIN

PLUGIN_ID = POLICY_PLUGIN   # the policy id the kernels give a plug-in (called through its address)

_DESCRIPTIONS = {
    "random": "uniform over the legal choices (end turn included): the floor of the skill ladder",
    "greedy": "local rules of thumb: fetch and deliver charms, gear up, fight at good exact odds",
    "planner": "a coordinated team: discs split by urgency, ready for the Shimnavore, one hero per key stone",
}
# The valid range of every built-in parameter (docs/mournequest/policies.md): `--params`
# and experiment files outside them are refused before a game is played.
RANGES = {
    "risk": (0.0, 1.0),                 # a win probability threshold
    "charm_weight": (0.0, 100.0),
    "assign": (0.0, 2.0),               # 0 greedy's targeting, 1 by urgency, 2 nearest to complete
    "talisman_reserve": (0.0, 1.0),     # a switch
    "prepare": (0.0, 100.0),            # rounds before the Final Battle
    # the planner's parts of issue 15 (0 switches a part off, mournesim.policies)
    "post": (0.0, 1.0),                 # a switch: Key Stone posts assigned as a team
    "repair": (0.0, 100.0),             # a hero's last turns before the Final Battle spent on Granite
    "trade": (0.0, 1.0),                # a switch: Trading Post exchanges
    "passes": (0.0, 100.0),             # a switch whose value scales the team-strength gain a pass must bring
    "talisman": (0.0, 1.0),             # a switch: Talismans weighed by what each re-roll saves
    "skills": (0.0, 1.0),               # a switch: extra-action Skills and Relics only when they buy something
    "late": (0.0, 100.0),               # ability points a blind Equipment draw must be expected to add
    # rollout
    "width": (1.0, 50.0),
    "samples": (1.0, 1000.0),
    "horizon": (0.0, 1000.0),
    "progress": (0.0, 1.0),
    "confidence": (0.0, 100.0),
}


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


_REGISTRY: dict[str, PolicyInfo] = {
    name: PolicyInfo(name, _DESCRIPTIONS.get(name, ""), pnames, defaults, builtin_id=pid,
                     ranges={n: RANGES[n] for n in pnames})
    for pid, name, pnames, defaults in BUILTIN_POLICIES
}
_LOADED_ENV = False


def register_policy(name, func, params=None, description="", batch=None, ranges=None):
    """Register numba function ``func`` as policy ``name``; ``params`` maps
    parameter names to default values (the ``pp`` vector, in that order).
    ``batch``: games per batch in grid runs, for a slow (search) policy, so
    an interrupted run loses little and the progress bar moves. ``ranges``
    maps parameter names to their valid ``(low, high)``; a value outside is
    refused before any game (without a range a value need only be finite)."""
    if not name.isidentifier():
        raise InputError(f"policy name {name!r}: use letters, digits and underscores")
    if name in _REGISTRY and _REGISTRY[name].builtin_id >= 0:
        raise InputError(f"policy name {name!r} is a built-in policy")
    from numba import config
    if not hasattr(func, "py_func") and not config.DISABLE_JIT:
        raise InputError(f"policy {name!r}: the function must be decorated with numba's @njit")
    py = getattr(func, "py_func", func)   # the plain function when NUMBA_DISABLE_JIT=1
    params = dict(params or {})
    ranges = checked_ranges(name, params, ranges)
    _REGISTRY[name] = PolicyInfo(name, description, tuple(params), tuple(float(v) for v in params.values()),
                                 func=func, source=inspect.getsourcefile(py) or "", module=py.__module__,
                                 meta={"batch": int(batch)} if batch else {}, ranges=ranges)
    return func


def load_plugin(spec):
    """Import a plug-in module given as a ``.py`` file path or a module name."""
    return import_plugin(spec, "mournesim_plugin")


def load_configured():
    """Register the shipped search policy, then load plug-ins named in
    $MOURNESIM_PLUGINS (os.pathsep separated) and installed entry points of
    the group ``mournesim.policies`` (once)."""
    global _LOADED_ENV
    if _LOADED_ENV:
        return
    _LOADED_ENV = True
    from . import rollout   # runs in a plug-in engine: see rollout.py
    register_policy("rollout", rollout.choose, rollout.PARAMS, rollout.DESCRIPTION, batch=50,
                    ranges={k: RANGES[k] for k in rollout.PARAMS})
    for spec in filter(None, os.environ.get("MOURNESIM_PLUGINS", "").split(os.pathsep)):
        load_plugin(spec)
    for ep in metadata.entry_points(group="mournesim.policies"):
        load_entry_point(ep)


def policies():
    """Every registered policy, built-ins first."""
    load_configured()
    return list(_REGISTRY.values())


def get(name) -> PolicyInfo:
    load_configured()
    if name not in _REGISTRY:
        raise InputError(f"--policy: unknown policy {name!r} (registered: {', '.join(_REGISTRY)}; "
                         "load your own with --plugin FILE)")
    return _REGISTRY[name]

# ---- plug-in entry points ---------------------------------------------------------

_ADDRESSES = {}
_HERE = Path(__file__).parent
# a plug-in's arguments, in the order decide() passes them to its entry point
ARG_SPEC = (("s", "int32"), ("T", "int32"), ("legal", "int32"), ("n", None), ("rng", "uint64"),
            ("pp", "float64"), ("h", None))


def engine_for(info: PolicyInfo):
    """The module with ``run_batch`` / ``play_logged``: one compiled engine
    runs every policy, a plug-in through the address in :func:`policy_vector`."""
    from . import game
    return game


def policy_vector(info: PolicyInfo, params) -> np.ndarray:
    """The kernels' ``pp``: the parameters, then for a plug-in the address of
    its entry point (compiled once and cached under ``$MOURNESIM_CACHE``,
    default ``~/.cache/mournesim``; simcore/fnptr.py)."""
    pp = [float(v) for v in params]
    if info.builtin_id < 0:
        if info.name not in _ADDRESSES:
            _ADDRESSES[info.name] = entry_address(info, ARG_SPEC, cache_root("MOURNESIM_CACHE", "mournesim"),
                                                  "mq_entry",
                                                  sources_key(engine_sources(_HERE, ENGINE_SOURCES)))
        pp.append(float(_ADDRESSES[info.name]))
    return np.array(pp, np.float64)
