"""The C entry points of the built-in policies greedy and planner.

The engine holds no policy: ``decision.decide`` plays random and first
itself and calls every other policy through the address in the last element
of ``pp`` (simcore/fnptr.py), greedy and the planner as a plug-in is called.
A policy the rule kernels called directly was compiled into every kernel
that may ask it (numba links a callee's code into each caller and optimises
it again there: about 60% of the engine's compile), and every command
compiled every policy. Now each entry is compiled on its own, the first time
a run plays it (:func:`address`), and cached with the engine's kernels.

An entry passes ``pp`` without its last element (its own address), so the
policy reads exactly its parameters, as before.
"""
from numba import carray

from simcore.fnptr import builtin_address
from .policies import ARG_SPEC, POLICY_GREEDY, POLICY_PLANNER, greedy, planner


def greedy_entry(s_p, s_n, T_p, T_n, legal_p, legal_n, n, rng_p, rng_n, pp_p, pp_n, h):
    """greedy behind a C entry point."""
    return greedy(carray(s_p, (s_n,)), carray(T_p, (T_n,)), carray(legal_p, (legal_n,)), n,
                  carray(rng_p, (rng_n,)), carray(pp_p, (pp_n - 1,)), h)


def planner_entry(s_p, s_n, T_p, T_n, legal_p, legal_n, n, rng_p, rng_n, pp_p, pp_n, h):
    """The planner behind a C entry point."""
    return planner(carray(s_p, (s_n,)), carray(T_p, (T_n,)), carray(legal_p, (legal_n,)), n,
                   carray(rng_p, (rng_n,)), carray(pp_p, (pp_n - 1,)), h)


ENTRIES = {POLICY_GREEDY: (greedy_entry, greedy), POLICY_PLANNER: (planner_entry, planner)}
_ADDRESSES = {}


def address(policy_id):
    """The address of built-in policy ``policy_id``'s entry point (one of
    :data:`ENTRIES`), compiled or loaded from the cache on first use."""
    if policy_id not in _ADDRESSES:
        entry, policy = ENTRIES[policy_id]
        _ADDRESSES[policy_id] = builtin_address(entry, policy, ARG_SPEC)
    return _ADDRESSES[policy_id]
