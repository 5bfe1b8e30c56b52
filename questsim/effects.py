"""Effects of squares, castles, Event and foot cards (QM-CARD-10..16):
opening an Event card, one effect row carried out, and the effect stack
resolved, so that a card that moves a pawn resolves the new square before
the rest of the card (QM-RULING-06) without recursion between kernels.
"""
import numpy as np

from simcore.jit import inlined, kernel
from simcore.rng import STREAM_SETUP, shuffle
from . import layout as L
from . import tables as TB
from .combat import duel
from .core import log, over, pb, push, race_ok, roll
from .hand import discard_choice, draw_item
from .life import check_standing, gain_hp, lose_hp
from .movement import land, walk


@kernel
def open_event(s, T, ev, rng, seat):
    """Open the top Event card (rebuilding an empty deck from its used pile)
    and queue its ability (QM-CARD-10, QM-HAND-04)."""
    if s[L.G_EVENT_N] == 0:
        m = s[L.G_EVENT_USED_N]
        if m == 0:
            return
        for i in range(m):
            s[L.G_EVENT_DECK + i] = s[L.G_EVENT_USED + i]
        s[L.G_EVENT_N] = m
        s[L.G_EVENT_USED_N] = 0
        shuffle(rng, STREAM_SETUP, s[L.G_EVENT_DECK:L.G_EVENT_DECK + m], m)
        log(s, ev, L.EVT_RESHUFFLE, seat, 1, m, 0, 0)
    s[L.G_EVENT_N] -= 1
    kind = s[L.G_EVENT_DECK + s[L.G_EVENT_N]]
    # it goes to the used pile once carried out; it is put there now, which
    # is the same unless the same chain empties the deck again
    s[L.G_EVENT_USED + s[L.G_EVENT_USED_N]] = kind
    s[L.G_EVENT_USED_N] += 1
    log(s, ev, L.EVT_EVENT, seat, kind, 0, 0, 0)
    o = TB.O_EVENT + kind * TB.EK
    push(s, T[o + TB.EC_EFF], T[o + TB.EC_EFF_N])


@inlined
def effect(s, T, ev, rng, legal, pp, seat, row):
    """Carry out one board effect row for ``seat`` (QM-CARD-10/11/12/16)."""
    b = pb(seat)
    op = T[row + L.E_OP]
    n = T[row + L.E_N]
    arg = T[row + L.E_ARG]
    np_ = s[L.G_NP]
    if op == L.EK_GAIN_HP or op == L.EK_LOSE_HP:
        # everyone hit by one effect falls together: decide the standing after
        s[L.G_DEFER_END] = 1
        for k in range(np_):
            p = (seat + k) % np_        # turn order from the active player (QM-GAP-43)
            if not s[pb(p) + L.S_ALIVE] or over(s):
                continue
            if (arg == L.ET_SELF and p != seat) or (arg == L.ET_OTHERS and p == seat):
                continue
            if op == L.EK_GAIN_HP:
                gain_hp(s, T, ev, p, n)
            else:
                lose_hp(s, T, ev, p, np.int64(n))
        s[L.G_DEFER_END] = 0
        if op == L.EK_LOSE_HP:
            check_standing(s, ev)
    elif op == L.EK_GAIN_HP_DIE or op == L.EK_LOSE_HP_DIE:
        # the face as rolled, and the value it counts (a symbol counts n)
        f = roll(T, rng, arg)
        v = f if f > 0 else n
        log(s, ev, L.EVT_DIE, seat, arg, f, v, 0)
        if op == L.EK_GAIN_HP_DIE:
            gain_hp(s, T, ev, seat, v)
        else:
            lose_hp(s, T, ev, seat, np.int64(v))
    elif op == L.EK_DRAW_ITEM:
        for _ in range(n):
            draw_item(s, T, ev, rng, legal, pp, seat)
    elif op == L.EK_DISCARD_ITEM:
        for _ in range(n):
            discard_choice(s, T, ev, rng, legal, pp, seat, L.CTX_DISCARD)
    elif op == L.EK_OPEN_EVENT:
        for _ in range(n):
            open_event(s, T, ev, rng, seat)
    elif op == L.EK_MOVE:
        if s[L.G_CHAIN] < T[TB.P_EVENT_CHAIN_LIMIT]:
            s[L.G_CHAIN] += 1
            s[L.G_WALK_CARD] = 1
            pos, warped = walk(s, T, ev, rng, legal, pp, seat, np.int64(n))
            s[L.G_WALK_CARD] = 0
            if not warped:
                land(s, T, ev, rng, legal, pp, seat, np.int64(pos), np.int64(1))
    elif op == L.EK_GO_HOME:
        # the home castle's own (lower) ability applies (QM-RULING-05, QM-GAP-47)
        if s[L.G_CHAIN] < T[TB.P_EVENT_CHAIN_LIMIT]:
            s[L.G_CHAIN] += 1
            home = T[TB.O_HOME + s[b + L.S_RACE]]
            s[b + L.S_POS] = home
            log(s, ev, L.EVT_GO_HOME, seat, home, 0, 0, 0)
            land(s, T, ev, rng, legal, pp, seat, np.int64(home), np.int64(1))
    elif op == L.EK_FIGHT:
        duel(s, T, ev, rng, legal, pp, seat)
    elif op == L.EK_ROLL:
        f = roll(T, rng, arg)
        log(s, ev, L.EVT_DIE, seat, arg, f, f if f > 0 else 0, 0)
        k = 0 if f > 0 else -f
        push(s, T[row + L.E_BR + 2 * k], T[row + L.E_BR + 2 * k + 1])


@inlined
def resolve(s, T, ev, rng, legal, pp, seat):
    """Run queued effect lists until none is left or the game is over."""
    while s[L.G_STK_N] > 0 and not over(s):
        if not s[pb(seat) + L.S_ALIVE]:
            break
        top = L.G_STK + 3 * (s[L.G_STK_N] - 1)
        start, count, i = s[top], s[top + 1], s[top + 2]
        if i >= count:
            s[L.G_STK_N] -= 1
            continue
        s[top + 2] = i + 1
        row = TB.O_EFF + (start + i) * L.EW
        if race_ok(T, row, s[pb(seat) + L.S_RACE]):
            effect(s, T, ev, rng, legal, pp, seat, row)
    s[L.G_STK_N] = 0
