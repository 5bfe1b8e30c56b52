"""The decision port: how the rule kernels ask a player for a choice.

A rule kernel lists the legal action codes and calls :func:`decide`; the
engine plays ``random`` and ``first`` itself and calls every other policy
(greedy, the planner, a plug-in) through the address of its entry point,
the last element of ``pp`` (simcore.fnptr; the built-ins' entry points are
``entries.py``). So the rules import this module and no player: the
heuristics (``policies``, ``scores``, ``plan``, ``plan_parts``) stand beside
the rules, not under them (tests/common/test_structure.py).
"""
import numpy as np

from simcore.decision import (POLICY_FIRST, POLICY_GREEDY, POLICY_PLANNER, POLICY_PLUGIN,  # noqa: F401
                              POLICY_RANDOM, arg_spec, ask_entry, random_choice)
from simcore.jit import inlined, kernel
from . import layout as L

# a policy's arguments, in the order decide() passes them to an entry point
ARG_SPEC = arg_spec("h")


@inlined
def decide(s, T, legal, n, rng, pp, h):
    """Ask the active policy to choose one of ``legal[:n]`` for hero ``h``."""
    # one type for the counts: the rule kernels pass them as int32 (read from
    # the state) or int64 (loop counters, literals), and numba compiles a
    # callee once per argument types, so without this every policy below
    # was compiled up to four times over (measured: most of the engine's compile)
    return _decide(s, T, legal, np.int64(n), rng, pp, np.int64(h))


@kernel
def _decide(s, T, legal, n, rng, pp, h):
    """``decide`` with ``n`` and ``h`` as int64."""
    if n == 1:
        return legal[0]
    pid = s[L.G_POLICY]
    if pid == POLICY_FIRST:
        ch = legal[0]
    elif pid == POLICY_GREEDY or pid == POLICY_PLANNER or pid == POLICY_PLUGIN:
        # compiled on its own (greedy and planner: mournesim/entries.py), not
        # into every rule kernel that asks; the address of its entry point is
        # pp's last element (if it raised: the first legal choice, which
        # checked() passes)
        ch = ask_entry(s, T, legal, n, rng, pp, h, L.G_ILLEGAL)
    else:
        ch = random_choice(legal, n, rng)
    return checked(s, legal, n, ch)


@kernel
def checked(s, legal, n, ch):
    """``ch`` if it is one of ``legal[:n]``; else count it in G_ILLEGAL and
    play the first legal choice (the engine never applies an illegal one)."""
    for i in range(n):
        if legal[i] == ch:
            return ch
    s[L.G_ILLEGAL] += 1
    return legal[0]


