"""A Quest Master decision explained: each legal choice in words, and the
scores greedy or the planner (and their v2 versions) gave them
(simcore.witness records the decisions; the viewer lists them at their
step).

The scores are the policies' own: ``policies.greedy`` and
``policies.scored_planner`` scoring every choice into an array, on the
state the decision was made in. Both take a sure win before scoring (five
castles, Hp over 40) where they may: such a choice is played whatever the
scores say. Random, plug-in and search players have no scores to show.
"""
import numpy as np
from numba import njit

from simcore.rng import N_STREAMS

from . import layout as L
from .policies import GREEDY_NEW, greedy, scored_planner
from .replay import SYMBOL_CHOICE

SCORED = {"greedy": False, "greedy_v2": False, "planner": True, "planner_v2": True}


@njit(cache=True)
def policy_scores(s, T, legal, n, pp, seat, planner, out):
    """Greedy's (``planner`` False) or the planner's score of each of
    ``legal[:n]`` for ``seat`` in state ``s`` (a copy), into ``out``."""
    rng = np.zeros(N_STREAMS * 4, np.uint64)      # neither draws when scoring
    if planner:
        scored_planner(s, T, legal, n, rng, pp, seat, out)
    else:
        greedy(s, T, legal, n, rng, pp, seat, GREEDY_NEW, out)


def scores(rp, d, policies):
    """The scores of decision ``d`` of Replay ``rp`` by its seat's policy
    (``policies``: each seat's policy name), or None where it has none."""
    from . import plugins
    name = policies[d.actor]
    planner = SCORED.get(name)
    if planner is None:
        return None
    pp = np.zeros(L.MAX_PARAMS + 1)
    params = rp.config.params if rp.config.params and name == policies[0] else plugins.get(name).defaults
    pp[:len(params)] = params
    legal = np.array(d.legal, np.int32)
    out = np.zeros(len(legal))
    policy_scores(d.state.copy(), rp.rules.T, legal, len(legal), pp[:-1], d.actor, planner, out)
    return [round(float(v), 3) for v in out]


class Labels:
    """Each legal code of a decision in words (``text``)."""

    def __init__(self, rp):
        self.rp = rp
        self.shown = rp.rules.display_names()
        self.names = rp.rules.names
        self.who = rp.seat_names(self.shown)

    def _item(self, k):
        n = self.names.items[k]
        return self.shown.get(n, n)

    def _character(self, d):
        """The ruleset's character of the seat choosing ``d``."""
        ch = self.names.characters[int(d.state[L.G_P + d.actor * L.PS + L.S_CHAR])]
        return self.rp.rules.ruleset.characters[ch]

    def text(self, d, c):
        """Decision ``d``'s choice ``c`` in words."""
        op, arg = L.code_op(c), L.code_arg(c)
        ctx = int(d.state[L.G_CTX])
        if ctx == L.CTX_SQUARE:      # an optional Item or Event square (toggle square_cards_optional)
            return "takes the square's card" if op == L.A_PLAY else "declines the square"
        if op == L.A_MOVE:
            return f"moves {arg} square{'s' if arg != 1 else ''}"
        if op == L.A_SYMBOL:
            return f"takes the {SYMBOL_CHOICE.get(arg, arg)} symbol"
        if op == L.A_STAY:
            return "takes neither symbol"
        if op == L.A_PLAY:
            return f"plays {self._item(arg)}"
        if op == L.A_WARP:
            return f"warps to square {arg}"
        if op == L.A_NO_WARP:
            return "does not warp"
        if op == L.A_STEP:
            return f"steps to square {arg}"
        if op == L.A_TARGET:
            return f"fights seat {arg + 1} ({self.who.get(arg, arg)})"
        if op == L.A_ATTACK:
            if arg == L.FREE_ATTACK:
                return "makes the free attack"
            a = self._character(d).attacks[arg]
            return f"attacks: At {a.at} for {a.cost} Mp"
        if op == L.A_DECLINE:
            return "declines to attack"
        if op == L.A_ABILITY:
            return f"uses the ability {list(self._character(d).abilities.values())[arg].name}"
        if op == L.A_DISCARD:
            return f"discards {self._item(arg)}"
        if op == L.A_DONE:
            return {L.CTX_ATTACK_CARDS: "adds no more cards", L.CTX_DEFEND: "defends no further"}.get(
                ctx, "plays no card")
        return L.ACTION_NAMES[op] if 0 <= op < len(L.ACTION_NAMES) else str(c)
