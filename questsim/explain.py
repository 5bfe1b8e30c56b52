"""A Quest Master decision explained: each legal choice in words
(simcore.witness records the decisions; the viewer lists them at their
step).

Greedy and the planner compare values computed inside their own loops and
keep no score per choice, so no Quest Master policy has scores to show:
the viewer lists the choices, the one played and the player's own.
"""
from . import layout as L
from .replay import SYMBOL_CHOICE


def scores(rp, d, pp):
    """No Quest Master policy keeps a score per choice (see the module docstring)."""
    return None


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
