"""A MourneQuest decision explained: each legal choice in words, and the
scores greedy or the planner gave them (simcore.witness records the
decisions; the viewer lists them at their step).

The scores are the policies' own: ``policies.best_scored_mode`` scoring
every choice into an array, as rollout ranks them, on the state the
decision was made in. A policy that scores nothing (random, first, a
plug-in, the search policies, whose answers come from sampled futures)
has no scores to show.
"""
import numpy as np
from numba import njit

from simcore.rng import N_STREAMS
from . import layout as L
from .events import AB, CH, _Ctx, _action_text
from .layout import code_arg, code_op, loses_relic, lost_relic
from .policies import best_scored_mode, plan_goal
from .scores import goal_space

SCORED = {"greedy": False, "planner": True}   # the policies with scores: whether they plan


@njit(cache=True)
def policy_scores(s, T, legal, n, pp, h, planner, out):
    """Greedy's (``planner`` False) or the planner's score of each of
    ``legal[:n]`` for hero ``h`` in state ``s`` (a copy: scoring changes
    nothing, but never the game's own), into ``out``."""
    rng = np.zeros(N_STREAMS * 4, np.uint64)     # scoring draws nothing (ties are drawn only when choosing)
    turn = code_op(legal[0]) < L.R_ACCEPT
    if planner:
        goal = plan_goal(s, T, h, pp) if turn else np.int64(-1)
        best_scored_mode(s, T, legal, n, rng, pp, h, np.int64(goal), True, out)
    else:
        goal = goal_space(s, T, h) if turn else np.int64(-1)
        best_scored_mode(s, T, legal, n, rng, pp, h, np.int64(goal), None, out)


def scores(rp, d, pp):
    """The scores of decision ``d`` of Replay ``rp`` by its policy (parameters
    ``pp``, without the entry point), or None where the policy has none."""
    planner = SCORED.get(rp.config.policy)
    if planner is None:
        return None
    legal = np.array(d.legal, np.int32)
    out = np.zeros(len(legal))
    policy_scores(d.state.copy(), rp.rules.T, legal, len(legal), np.asarray(pp, np.float64), d.actor, planner, out)
    return [round(float(v), 3) for v in out]


class Labels:
    """Each legal code of a decision in words (``text``)."""

    def __init__(self, rp):
        self.ctx = _Ctx(rp)
        self.rp = rp

    def text(self, d, c):
        """Decision ``d``'s choice ``c`` in words."""
        ctx = self.ctx
        ctx.cur = d.actor
        ctx.seen(d.state)
        op, arg = code_op(c), code_arg(c)
        if op < L.R_ACCEPT:
            return _action_text(op, arg, ctx)
        if op == L.R_ACCEPT:
            return "accepts the roll"
        if op == L.R_TALISMAN:
            return "re-rolls with a Talisman"
        if op == L.R_RELIC:
            return f"uses the relic {ctx.relic(arg)}"
        if op == L.R_SKILL:
            whose = "the" if arg == d.actor else f"{ctx.hero(arg)}'s"
            return f"uses {whose} skill {ctx.effect(int(self.rp.rules.tables.hero_skill[ctx.hero_ids[arg]]))}"
        if op == L.A_EQUIP:
            return f"equips {ctx.card(arg)}"
        if op == L.A_DISCARD_CARD:
            return f"discards {ctx.card(arg)} to the Surplus"
        if op == L.A_LOSE_CHARM:
            return f"gives up 1 {CH[arg]}"
        if op == L.A_LOSE_CARD:
            return f"gives up the relic {ctx.relic(lost_relic(arg))}" if loses_relic(arg) else \
                f"gives up the {AB[arg]} card"
        if op == L.A_SOLO_PICK:
            return f"takes the {AB[arg]} card"
        if op == L.A_REWARD_EQUIPMENT:
            return "takes an Equipment card"
        if op == L.A_REWARD_RELIC:
            return "takes a relic"
        if op == L.A_REWARD_DECLINED:
            return "takes no reward"
        return L.OP_NAMES.get(op, str(op))
