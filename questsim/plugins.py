"""The Quest Master policy registry: the built-in policies and your own.

A plug-in policy is a numba function with the built-ins' signature

    @njit(cache=True)
    def choose(s, T, legal, n, rng, pp, seat):   # -> one of legal[:n]

registered under a name from a module of yours::

    from questsim.plugins import register_policy
    register_policy("bold", choose, params={"x": 1.0}, description="...")

and used with ``questsim --plugin my_policy.py simulate --policy bold`` (or
``QUESTSIM_PLUGINS=my_policy.py``, or an entry point in the group
``questsim.policies``), alone or mixed by seat
(``--policy bold+greedy+greedy``). As for MourneQuest, numba cannot cache a
kernel that calls a user's function, so your function is compiled on its own
behind a C entry point (seconds, cached in ``$QUESTSIM_CACHE``, default
``~/.cache/questsim``) and the engine, compiled once for every policy, calls
it through its address (simcore/fnptr.py).

Each seat's row of ``pp`` holds its parameters (``MAX_PARAMS`` slots), then
the working memory of a plug-in registered with ``scratch=N``, the addresses
of the built-in entry points a plug-in ``uses`` (just before its own), and
last the address of the seat's policy: a plug-in's entry point, or greedy's
or the planner's (questsim/entries.py; 0 for random and first). The memory
is a copy of the table's rows (every seat's parameters and policy address,
``layout.TABLE_SLOTS``: a search needs them to replay the other seats,
rollout.py), then the plug-in's own ``N`` slots, zeroed each batch and kept
from call to call.
"""
from __future__ import annotations

from pathlib import Path

from simcore.jitcache import engine_sources
from simcore.plugins import PolicyInfo, PolicyRegistry
from . import ENGINE_SOURCES, entries, policies
from .layout import MAX_PARAMS
from .policies import BUILTIN_POLICIES, POLICY_PLUGIN

PLUGIN_ID = POLICY_PLUGIN   # the policy id the kernels give a plug-in (called through its address)

_DESCRIPTIONS = {
    "random": "uniform over the legal choices",
    "greedy": "rules of thumb: new castles, Item cards, fights when stronger, aimed at the opponent nearest a win",
    "first": "always the first legal choice (a fixed player for tests)",
    "planner": "greedy plus the castle race looked ahead, the Shoe and warps weighed by it",
    "greedy_v2": "greedy as in behaviour v2 (its newer parameters at 0): the weakest target, no thrift",
    "planner_v2": "the planner as in behaviour v2 (its newer parameters at 0)",
}
# The valid range of every built-in parameter (docs/questmaster/policies.md): `--params`
# and experiment files outside them are refused before a game is played.
RANGES = {
    "aggression": (-100.0, 100.0),      # in Hp, subtracted from a fight's value
    "castle_weight": (0.0, 100.0),      # Item cards a new castle is worth
    "lookahead": (0.0, 100.0),
    "threat": (0.0, 100.0),
    # added since behaviour v2 (greedy and planner; 0 is behaviour v2's play)
    "aim": (0.0, 100.0),                # weight of a target's nearness to a win
    "kill": (0.0, 100.0),               # weight of the chance to knock the target out
    "shoe_keep": (0.0, 100.0),          # Item cards a Yellow Bird Shoe is worth kept
    "thrift": (0.0, 10.0),              # share of a card's worth held back from a defence
    "path": (0.0, 1.0),                 # a switch: warps weighed against where the walk ends
    "sure": (0.0, 1.0),                 # a switch (behaviour v5): sure wins taken, no attack into a sure block
    # rollout
    "samples": (1.0, 1000.0),
    "confidence": (0.0, 100.0),
    "deep": (0.0, 1.0),                 # a switch: search the decisions other than movement too, by replay
    # expert
    "budget": (0.5, 64.0),              # futures per decision: 2x budget first, at most 8x budget
}



ARG_SPEC = policies.ARG_SPEC   # a plug-in's arguments, in the order decide() passes them to its entry point


def _shipped(registry):
    """The search policies ship as plug-ins: they run the engine on sampled
    futures, so they cannot be compiled into the engine they call (rollout.py,
    expert.py)."""
    from . import expert, rollout
    registry.register("rollout", rollout.choose, rollout.PARAMS, rollout.DESCRIPTION,
                      ranges={k: RANGES[k] for k in rollout.PARAMS}, scratch=rollout.SCRATCH, uses=("planner",))
    registry.register("expert", expert.choose, expert.PARAMS, expert.DESCRIPTION,
                      ranges={k: RANGES[k] for k in expert.PARAMS}, scratch=expert.SCRATCH, uses=("planner",))


REGISTRY = PolicyRegistry("questsim", BUILTIN_POLICIES, _DESCRIPTIONS, RANGES, ARG_SPEC,
                          engine_sources(Path(__file__).parent, ENGINE_SOURCES), _shipped, entries,
                          max_params=MAX_PARAMS)   # a seat's row holds this many parameters
register_policy = REGISTRY.register
load_plugin = REGISTRY.load_plugin
load_configured = REGISTRY.load_configured
policies = REGISTRY.policies
get = REGISTRY.get
builtin_entry = REGISTRY.builtin_entry     # greedy's and the planner's (entries.py), 0 for random and first
compile_entries = REGISTRY.compile_entries
__all__ = ["PolicyInfo", "REGISTRY", "register_policy", "load_plugin", "load_configured", "policies", "get",
           "entry", "builtin_entry", "compile_entries", "engine_for", "RANGES", "PLUGIN_ID", "ARG_SPEC"]


def engine_for(info: PolicyInfo):
    """The engine module (``run_batch``, ``play_logged``): one compiled
    engine runs every policy, a plug-in through :func:`entry`'s address."""
    from . import engine
    return engine


def entry(info: PolicyInfo) -> int:
    """The address of plug-in ``info``'s entry point, compiled once and cached
    under ``$QUESTSIM_CACHE`` (default ``~/.cache/questsim``; simcore/fnptr.py).
    It goes in the last column of the seat's row of ``pp``."""
    return REGISTRY.address(info)
