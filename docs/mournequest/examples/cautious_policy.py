"""A complete plug-in policy: greedy play, but it never attacks below a high
win chance and always heals first. Use it without touching the package:

    mournesim --plugin docs/mournequest/examples/cautious_policy.py simulate --policy cautious --games 2000
    mournesim --plugin docs/mournequest/examples/cautious_policy.py simulate --policy cautious --params 0.9
"""
from numba import njit

from mournesim import layout as L
from mournesim.plugins import register_policy
from mournesim.policies import greedy


@njit(cache=True)
def cautious(s, T, legal, n, rng, pp, h):
    """Regain life whenever it can; otherwise play greedy with risk = pp[0]."""
    for i in range(n):
        if L.code_op(legal[i]) == L.A_HEAL:
            return legal[i]
    return greedy(s, T, legal, n, rng, pp, h)


register_policy("cautious", cautious, params={"risk": 0.8, "charm_weight": 1.0},
                description="greedy, but heals at once and attacks only at high odds")
