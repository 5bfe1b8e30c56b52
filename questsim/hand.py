"""Item cards in hand (QM-HAND-*): taking one out, the used pile, a chosen
discard, drawing (the deck rebuilt from the used pile when empty) and the
hand limit.
"""
from simcore.jit import kernel
from simcore.rng import STREAM_SETUP, shuffle
from . import layout as L
from . import tables as TB
from .core import add_legal, ask, log, pb


@kernel
def remove_card(s, seat, kind):
    """Take one card of ``kind`` out of the hand (returns False if none)."""
    b = pb(seat)
    n = s[b + L.S_HAND_N]
    for i in range(n):
        if s[b + L.S_HAND + i] == kind:
            s[b + L.S_HAND + i] = s[b + L.S_HAND + n - 1]
            s[b + L.S_HAND_N] = n - 1
            return True
    return False


@kernel
def to_used(s, kind):
    """A used or discarded Item card goes to the used Item pile (QM-HAND-03)."""
    s[L.G_ITEM_USED + s[L.G_ITEM_USED_N]] = kind
    s[L.G_ITEM_USED_N] += 1


@kernel
def discard_choice(s, T, ev, rng, legal, pp, seat, ctx):
    """The holder chooses one card to discard (QM-GAP-28, QM-RULING-03)."""
    b = pb(seat)
    n = 0
    for i in range(s[b + L.S_HAND_N]):
        n = add_legal(legal, n, L.code(L.A_DISCARD, s[b + L.S_HAND + i]))
    if n == 0:
        return
    kind = L.code_arg(ask(s, T, legal, n, rng, pp, seat, ctx, 0))
    remove_card(s, seat, kind)
    to_used(s, kind)
    log(s, ev, L.EVT_DISCARD, seat, kind, 0, 0, 0)


@kernel
def draw_item(s, T, ev, rng, legal, pp, seat):
    """Draw one Item card; an empty deck is rebuilt from the used pile
    (QM-HAND-05, QM-GAP-29); then the hand limit (QM-HAND-02)."""
    if s[L.G_ITEM_N] == 0:
        m = s[L.G_ITEM_USED_N]
        if m == 0:
            return
        for i in range(m):
            s[L.G_ITEM_DECK + i] = s[L.G_ITEM_USED + i]
        s[L.G_ITEM_N] = m
        s[L.G_ITEM_USED_N] = 0
        shuffle(rng, STREAM_SETUP, s[L.G_ITEM_DECK:L.G_ITEM_DECK + m], m)
        log(s, ev, L.EVT_RESHUFFLE, seat, 0, m, 0, 0)
    s[L.G_ITEM_N] -= 1
    kind = s[L.G_ITEM_DECK + s[L.G_ITEM_N]]
    b = pb(seat)
    s[b + L.S_HAND + s[b + L.S_HAND_N]] = kind
    s[b + L.S_HAND_N] += 1
    log(s, ev, L.EVT_DRAW_ITEM, seat, kind, 0, 0, 0)
    while s[b + L.S_HAND_N] > T[TB.P_HAND_LIMIT]:
        s[L.G_DEC + L.DEC_HAND_DISCARDS] += 1
        discard_choice(s, T, ev, rng, legal, pp, seat, L.CTX_DISCARD)
