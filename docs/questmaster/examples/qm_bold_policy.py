"""A complete Quest Master plug-in policy: the planner, but it always takes
a fight when the dice offer one (the sword symbol) and never declines a paid
attack. Use it with

    questsim --plugin docs/questmaster/examples/qm_bold_policy.py simulate --policy bold+planner+planner+planner
"""
from numba import njit

from questsim import layout as L
from questsim.plugins import register_policy
from questsim.policies import PLANNER_DEFAULTS, PLANNER_PARAMS, planner


@njit(cache=True)
def bold(s, T, legal, n, rng, pp, seat):
    """Fight whenever the dice allow; otherwise play as the planner."""
    for i in range(n):
        c = legal[i]
        if s[L.G_CTX] == L.CTX_MOVE and c == L.code(L.A_SYMBOL, 1):   # the sword symbol
            return c
        if s[L.G_CTX] == L.CTX_ATTACK and L.code_op(c) == L.A_ATTACK:
            return c
    return planner(s, T, legal, n, rng, pp, seat)


# the planner's parameters and defaults: bold passes them on to it
register_policy("bold", bold, params=dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)),
                description="the planner, but fights whenever the dice offer it and never declines an attack")
