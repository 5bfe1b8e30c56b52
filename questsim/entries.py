"""The C entry points of the built-in policies greedy and planner (and their
behaviour-v2 versions, the same functions with other defaults).

The engine holds no policy: ``decision.decide`` plays random and first
itself and calls every other policy through the address in the last column
of the seat's row of ``pp`` (simcore/fnptr.py), greedy and the planner as a
plug-in is called. A policy the rule kernels called directly was compiled
into every kernel that may ask it (numba links a callee's code into each
caller and optimises it again there), and every command compiled every
policy. Now each entry is compiled on its own, the first time a run plays
it (:func:`address`), and cached with the engine's kernels.

An entry passes the row without its last element (its own address), so the
policy reads exactly what it read before.
"""
from numba import carray

from simcore.fnptr import builtin_address
from .policies import (ARG_SPEC, GREEDY_NEW, POLICY_GREEDY, POLICY_GREEDY_V2, POLICY_PLANNER, POLICY_PLANNER_V2,
                       greedy, planner)


def greedy_entry(s_p, s_n, T_p, T_n, legal_p, legal_n, n, rng_p, rng_n, pp_p, pp_n, seat):
    """greedy behind a C entry point."""
    return greedy(carray(s_p, (s_n,)), carray(T_p, (T_n,)), carray(legal_p, (legal_n,)), n,
                  carray(rng_p, (rng_n,)), carray(pp_p, (pp_n - 1,)), seat, GREEDY_NEW, None)


def planner_entry(s_p, s_n, T_p, T_n, legal_p, legal_n, n, rng_p, rng_n, pp_p, pp_n, seat):
    """The planner behind a C entry point."""
    return planner(carray(s_p, (s_n,)), carray(T_p, (T_n,)), carray(legal_p, (legal_n,)), n,
                   carray(rng_p, (rng_n,)), carray(pp_p, (pp_n - 1,)), seat)


def _greedy(s, T, legal, n, rng, pp, seat):
    """greedy with decide's arguments (NUMBA_DISABLE_JIT)."""
    return greedy(s, T, legal, n, rng, pp, seat, GREEDY_NEW, None)


ENTRIES = {POLICY_GREEDY: (greedy_entry, _greedy), POLICY_GREEDY_V2: (greedy_entry, _greedy),
           POLICY_PLANNER: (planner_entry, planner), POLICY_PLANNER_V2: (planner_entry, planner)}
_ADDRESSES = {}


def address(policy_id):
    """The address of built-in policy ``policy_id``'s entry point (one of
    :data:`ENTRIES`), compiled or loaded from the cache on first use."""
    entry, policy = ENTRIES[policy_id]
    if entry not in _ADDRESSES:
        _ADDRESSES[entry] = builtin_address(entry, policy, ARG_SPEC)
    return _ADDRESSES[entry]
