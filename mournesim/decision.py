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

from simcore.fnptr import FAILED, FAILED_BIT, call_address
from simcore.jit import inlined, kernel
from simcore.rng import STREAM_POLICY, randint
from . import layout as L

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_FIRST = 2   # always the first legal choice: scripted positions in tests, not offered on the CLI
POLICY_PLANNER = 3
POLICY_PLUGIN = 100   # a plug-in policy, called through its entry point's address (simcore/fnptr.py)
# a policy's arguments, in the order decide() passes them to an entry point
# (C types: simcore.fnptr.c_signature; an array is (pointer, length))
ARG_SPEC = (("s", "int32"), ("T", "int32"), ("legal", "int32"), ("n", None), ("rng", "uint64"),
            ("pp", "float64"), ("h", None))


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
        # pp's last element
        ch = call_address(np.int64(pp[pp.shape[0] - 1]), (s, T, legal, n, rng, pp, h))
        if ch == FAILED:
            s[L.G_ILLEGAL] |= FAILED_BIT
            return legal[0]
    else:
        ch = legal[randint(rng, STREAM_POLICY, n)]
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


