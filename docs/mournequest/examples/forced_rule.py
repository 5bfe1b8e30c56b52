"""A measuring plug-in: greedy or the planner, but one kind of choice is
taken whenever the engine offers it. A paired run of ``forced`` against its
base policy on the same games measures what a rule a policy leaves unused
would be worth to it (docs/mournequest/policies.md, "What the players use").

    mournesim --plugin docs/mournequest/examples/forced_rule.py policies
    python docs/mournequest/examples/unused_rules.py      # the table in docs/mournequest/policies.md

Parameters: the planner's, then ``base`` (0 greedy, 1 planner) and ``force``
(the operation code of ``mournesim.layout`` to take whenever it is legal,
e.g. 5 ``A_PASS``, 62 ``A_REWARD_DECLINED``; 0 forces nothing). When several choices
of that kind are legal the base policy's scores pick among them.
"""
import numpy as np
from numba import njit

from mournesim import layout as L
from mournesim.plugins import register_policy
from mournesim.policies import NP_PLANNER, PLANNER_DEFAULTS, PLANNER_PARAMS, greedy, planner


@njit(cache=True)
def forced(s, T, legal, n, rng, pp, h):
    """The base policy (``pp[NP_PLANNER]``), restricted to choices of
    operation ``pp[NP_PLANNER + 1]`` whenever one is legal."""
    base = int(pp[NP_PLANNER])
    op = int(pp[NP_PLANNER + 1])
    k = 0
    if op > 0:
        for i in range(n):
            if L.code_op(legal[i]) == op:
                k += 1
    if k > 0 and k < n:
        sub = np.empty(k, legal.dtype)
        j = 0
        for i in range(n):
            if L.code_op(legal[i]) == op:
                sub[j] = legal[i]
                j += 1
        if k == 1:
            return sub[0]
        return planner(s, T, sub, k, rng, pp, h) if base == 1 else greedy(s, T, sub, k, rng, pp, h)
    return planner(s, T, legal, n, rng, pp, h) if base == 1 else greedy(s, T, legal, n, rng, pp, h)


register_policy("forced", forced, params=dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)) | {"base": 1.0, "force": 0.0},
                description="greedy or the planner, taking one kind of choice whenever it is legal (for measuring)")
