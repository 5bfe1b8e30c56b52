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

from pathlib import Path

import numpy as np

from simcore.jitcache import engine_sources
from simcore.plugins import PolicyInfo, PolicyRegistry
from . import ENGINE_SOURCES, entries, policies
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
    # the planner's parts added in behaviour v3 (0 switches a part off, mournesim.policies)
    "post": (0.0, 1.0),                 # a switch: Key Stone posts assigned as a team
    "repair": (0.0, 100.0),             # a hero's last turns before the Final Battle spent on Granite
    "trade": (0.0, 1.0),                # a switch: Trading Post exchanges
    "passes": (0.0, 100.0),             # a switch whose value scales the team-strength gain a pass must bring
    "talisman": (0.0, 1.0),             # a switch: Talismans weighed by what each re-roll saves
    "skills": (0.0, 1.0),               # a switch: extra-action Skills and Relics only when they buy something
    "late": (0.0, 100.0),               # ability points a blind Equipment draw must be expected to add
    "blunders": (0.0, 1.0),             # a switch (greedy and planner): none of the audit's blunders
    # rollout
    "width": (1.0, 50.0),
    "samples": (1.0, 1000.0),
    "horizon": (0.0, 1000.0),
    "progress": (0.0, 1.0),
    "confidence": (0.0, 100.0),
    "deep": (0.0, 1.0),                 # a switch: search decisions inside a turn too, by replay
    # expert
    "budget": (0.5, 64.0),              # futures per decision: 2x budget first, at most 8x budget
}



ARG_SPEC = policies.ARG_SPEC   # a plug-in's arguments, in the order decide() passes them to its entry point


def _shipped(registry):
    """The search policies ship as plug-ins: they run the engine on sampled
    futures, so they cannot be compiled into the engine they call (rollout.py,
    expert.py)."""
    from . import rollout
    registry.register("rollout", rollout.choose, rollout.PARAMS, rollout.DESCRIPTION, batch=50,
                      ranges={k: RANGES[k] for k in rollout.PARAMS}, scratch=rollout.SCRATCH, uses=("planner",))
    from . import expert
    registry.register("expert", expert.choose, expert.PARAMS, expert.DESCRIPTION, batch=20,
                      ranges={k: RANGES[k] for k in expert.PARAMS}, scratch=expert.SCRATCH, uses=("planner",))


REGISTRY = PolicyRegistry("mournesim", BUILTIN_POLICIES, _DESCRIPTIONS, RANGES, ARG_SPEC,
                          engine_sources(Path(__file__).parent, ENGINE_SOURCES), _shipped, entries)
register_policy = REGISTRY.register
load_plugin = REGISTRY.load_plugin
load_configured = REGISTRY.load_configured
policies = REGISTRY.policies
get = REGISTRY.get
builtin_entry = REGISTRY.builtin_entry     # greedy's and the planner's (entries.py)
compile_entries = REGISTRY.compile_entries
__all__ = ["PolicyInfo", "REGISTRY", "register_policy", "load_plugin", "load_configured", "policies", "get",
           "policy_vector", "compile_entries", "engine_for", "RANGES", "PLUGIN_ID", "ARG_SPEC"]


def engine_for(info: PolicyInfo):
    """The module with ``run_batch`` / ``play_logged``: one compiled engine
    runs every policy, a plug-in through the address in :func:`policy_vector`."""
    from . import game
    return game


def policy_vector(info: PolicyInfo, params) -> np.ndarray:
    """The kernels' ``pp``: the parameters, then for a plug-in its working
    memory (``scratch`` slots, zeroed), the addresses of the built-in entry
    points it ``uses`` and last the address of its own entry point
    (compiled once and cached under ``$MOURNESIM_CACHE``, default
    ``~/.cache/mournesim``; simcore/fnptr.py); for greedy and the planner
    the address of theirs (entries.py); random's parameters alone."""
    pp = [float(v) for v in params]
    if info.builtin_id < 0:
        pp += [0.0] * info.meta.get("scratch", 0)
        pp += REGISTRY.used_addresses(info)
        pp.append(float(REGISTRY.address(info)))
    elif builtin_entry(info.name):
        pp.append(float(builtin_entry(info.name)))
    return np.array(pp, np.float64)
