"""The Quest Master policy registry: the built-in policies and your own.

A plug-in policy is a numba function with the built-ins' signature

    @njit(cache=True)
    def choose(s, T, legal, n, rng, pp, seat):   # -> one of legal[:n]

registered under a name from a module of yours::

    from questsim.plugins import register_policy
    register_policy("bold", choose, params={"x": 1.0}, description="...")

and used with ``questsim --plugin my_policy.py simulate --policy bold`` (or
``QUESTSIM_PLUGINS=my_policy.py``), alone or mixed by seat
(``--policy bold+greedy+greedy``). As for MourneQuest, numba cannot cache a
kernel that calls a user's function, so your function is compiled on its own
behind a C entry point (seconds, cached in ``$QUESTSIM_CACHE``, default
``~/.cache/questsim``) and the engine, compiled once for every policy, calls
it through its address (simcore/fnptr.py).
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path

from simcore.errors import InputError
from simcore.fnptr import entry_address
from simcore.jitcache import engine_sources, sources_key
from simcore.plugins import cache_root, checked_ranges, import_plugin
from . import ENGINE_SOURCES
from .policies import BUILTIN_POLICIES, POLICY_PLUGIN

PLUGIN_ID = POLICY_PLUGIN   # the policy id the kernels give a plug-in (called through its address)

_HERE = Path(__file__).parent
_DESCRIPTIONS = {
    "random": "uniform over the legal choices",
    "greedy": "rules of thumb: new castles, Item cards, fights when stronger, aimed at the opponent nearest a win",
    "first": "always the first legal choice (a fixed player for tests)",
    "planner": "greedy plus the castle race looked ahead, the Shoe and warps weighed by it",
    "greedy_v2": "greedy as in behaviour v2 (issue 15's parameters at 0): the weakest target, no thrift",
    "planner_v2": "the planner as in behaviour v2 (issue 15's parameters at 0)",
}
# The valid range of every built-in parameter (docs/questmaster/policies.md): `--params`
# and experiment files outside them are refused before a game is played.
RANGES = {
    "aggression": (-100.0, 100.0),      # in Hp, subtracted from a fight's value
    "castle_weight": (0.0, 100.0),      # Item cards a new castle is worth
    "lookahead": (0.0, 100.0),
    "threat": (0.0, 100.0),
    # issue 15 (greedy and planner; 0 is behaviour v2's play)
    "aim": (0.0, 100.0),                # weight of a target's nearness to a win
    "kill": (0.0, 100.0),               # weight of the chance to knock the target out
    "shoe_keep": (0.0, 100.0),          # Item cards a Yellow Bird Shoe is worth kept
    "thrift": (0.0, 10.0),              # share of a card's worth held back from a defence
    "path": (0.0, 1.0),                 # a switch: warps weighed against where the walk ends
    # rollout
    "samples": (1.0, 1000.0),
    "confidence": (0.0, 100.0),
}


@dataclass
class PolicyInfo:
    """A registered policy."""
    name: str
    description: str
    param_names: tuple
    defaults: tuple
    builtin_id: int = -1
    func: object = None
    source: str = ""
    module: str = ""
    ranges: dict = field(default_factory=dict)   # parameter name -> (low, high); absent: any finite value


_REGISTRY = {name: PolicyInfo(name, _DESCRIPTIONS.get(name, ""), pn, d, builtin_id=pid,
                              ranges={n: RANGES[n] for n in pn})
             for pid, name, pn, d in BUILTIN_POLICIES}
_LOADED = False
_ENGINES = {}


def register_policy(name, func, params=None, description="", ranges=None):
    """Register numba function ``func`` as policy ``name`` with parameter
    defaults ``params`` (name → value, in ``pp`` order) and, optionally,
    their valid ``ranges`` (name → (low, high))."""
    if not name.isidentifier():
        raise InputError(f"policy name {name!r}: use letters, digits and underscores")
    if name in _REGISTRY and _REGISTRY[name].builtin_id >= 0:
        raise InputError(f"policy name {name!r} is a built-in policy")
    py = getattr(func, "py_func", func)
    params = dict(params or {})
    _REGISTRY[name] = PolicyInfo(name, description, tuple(params), tuple(float(v) for v in params.values()),
                                 func=func, source=inspect.getsourcefile(py) or "", module=py.__module__,
                                 ranges=checked_ranges(name, params, ranges))
    return func


def load_plugin(spec):
    """Import a plug-in module (a ``.py`` file or a module name)."""
    return import_plugin(spec, "questsim_plugin")


def load_configured():
    """Register the shipped search policy and the plug-ins in $QUESTSIM_PLUGINS (once)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from . import rollout
    register_policy("rollout", rollout.choose, rollout.PARAMS, rollout.DESCRIPTION,
                    ranges={k: RANGES[k] for k in rollout.PARAMS})
    for spec in filter(None, os.environ.get("QUESTSIM_PLUGINS", "").split(os.pathsep)):
        load_plugin(spec)


def policies():
    load_configured()
    return list(_REGISTRY.values())


def get(name) -> PolicyInfo:
    load_configured()
    if name not in _REGISTRY:
        raise InputError(f"--policy: unknown policy {name!r} (registered: {', '.join(_REGISTRY)}; "
                         "load your own with --plugin FILE)")
    return _REGISTRY[name]


# a plug-in's arguments, in the order decide() passes them to its entry point
ARG_SPEC = (("s", "int32"), ("T", "int32"), ("legal", "int32"), ("n", None), ("rng", "uint64"),
            ("pp", "float64"), ("seat", None))
_ADDRESSES = {}


def engine_for(info: PolicyInfo):
    """The engine module (``run_batch``, ``play_logged``): one compiled
    engine runs every policy, a plug-in through :func:`entry`'s address."""
    from . import engine
    return engine


def entry(info: PolicyInfo) -> int:
    """The address of plug-in ``info``'s entry point, compiled once and cached
    under ``$QUESTSIM_CACHE`` (default ``~/.cache/questsim``; simcore/fnptr.py).
    It goes in the last column of the seat's row of ``pp``."""
    if info.name not in _ADDRESSES:
        key = sources_key(engine_sources(_HERE, ENGINE_SOURCES))
        _ADDRESSES[info.name] = entry_address(info, ARG_SPEC, cache_root("QUESTSIM_CACHE", "questsim"),
                                              "qm_entry", key)
    return _ADDRESSES[info.name]
