"""The decision port: how the rule kernels ask a seat's player for a choice.

A rule kernel lists the legal codes and calls :func:`decide`; the engine
plays ``random`` and ``first`` itself and calls every other policy (greedy,
the planner, their v2 versions, a plug-in) through the address of its entry
point, the last element of the seat's row of ``pp`` (simcore.fnptr; the
built-ins' entry points are ``entries.py``). What the rules need to know of
a seat's player (whether it takes sure wins) is here too. So the rules
import this module and no player: the heuristics (``policies``,
``scores``) stand beside the rules, not under them
(tests/common/test_structure.py).
"""
from simcore.decision import (POLICY_FIRST, POLICY_GREEDY, POLICY_PLANNER, POLICY_PLUGIN,  # noqa: F401
                              POLICY_RANDOM, arg_spec, ask_entry, random_choice)
from simcore.jit import inlined
from . import layout as L

# greedy and the planner with the defaults they had in behaviour v2
POLICY_GREEDY_V2, POLICY_PLANNER_V2 = 4, 5
# a policy's arguments, in the order decide() passes them to an entry point
ARG_SPEC = arg_spec("seat")


@inlined
def plays_sure(s, seat):
    """Whether ``seat``'s player takes sure wins and spares sure blocks:
    greedy, the planner and the players built on them, but not the v2
    players (kept exactly as behaviour v2 played)."""
    pid = s[L.G_P + seat * L.PS + L.S_POLICY]
    return pid != POLICY_GREEDY_V2 and pid != POLICY_PLANNER_V2


@inlined
def takes_sure_wins(s, seat):
    """Whether ``seat``'s player is greedy or the planner as built in, which
    choose a win at once whenever one is on offer (``winning_choice`` before
    anything else): a choice of theirs never declines one, so the rules'
    blunder judge need not look (a plug-in built on them is still judged)."""
    pid = s[L.G_P + seat * L.PS + L.S_POLICY]
    return pid == POLICY_GREEDY or pid == POLICY_PLANNER


@inlined
def decide(s, T, legal, n, rng, pp, seat):
    """Dispatch to seat's policy by its id in the state (``greedy_v2`` and
    ``planner_v2`` are greedy and the planner with their own defaults);
    ``pp`` is the seat's row of parameters."""
    policy = s[L.G_P + seat * L.PS + L.S_POLICY]
    if policy == POLICY_FIRST:
        return legal[0]
    if (policy == POLICY_GREEDY or policy == POLICY_GREEDY_V2 or policy == POLICY_PLANNER
            or policy == POLICY_PLANNER_V2 or policy == POLICY_PLUGIN):
        # compiled on its own (greedy and the planner: questsim/entries.py),
        # not into every rule kernel that asks; the address of its entry
        # point is the row's last element
        return ask_entry(s, T, legal, n, rng, pp, seat, L.G_ILLEGAL)
    return random_choice(legal, n, rng)
