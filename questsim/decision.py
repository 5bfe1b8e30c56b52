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


# where greedy's and the planner's parameter ``sure`` sits in a seat's row
# (policies.GREEDY_PARAMS, PLANNER_PARAMS; checked there)
SURE_GREEDY, SURE_PLANNER = 7, 9


@inlined
def takes_sure_wins(s, pp, seat):
    """Whether ``seat``'s player is greedy or the planner as built in with
    ``sure`` on, which choose a win at once whenever one is on offer
    (``winning_choice`` before anything else): a choice of theirs never
    declines one, so the rules' blunder judge need not look (a plug-in built
    on them, and a v2 player, are still judged). ``pp`` holds every seat's
    row."""
    pid = s[L.G_P + seat * L.PS + L.S_POLICY]
    if pid == POLICY_GREEDY:
        return pp[seat, SURE_GREEDY] > 0
    if pid == POLICY_PLANNER:
        return pp[seat, SURE_PLANNER] > 0
    return False


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
