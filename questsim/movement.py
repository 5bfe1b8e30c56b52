"""Moving a pawn and landing (QM-MOVE-*, QM-SQUARE-*): steps along the
board with the mover's choice at forks, warps passed or landed on, a castle
landed on (the five-castle win, QM-END-04), and the landed square's effect
queued (a pawn there fought first under its toggle).
"""
import numpy as np

from simcore.jit import kernel
from . import layout as L
from . import tables as TB
from .blunders import castle_count
from .combat import count_target, duel_with
from .core import ask, declined, log, over, pb, push
from .life import declare_win


@kernel
def mark_castle(s, T, ev, seat, sq):
    """Record a landing on a castle; all of them wins at once (QM-END-04)."""
    c = T[TB.O_SQ_CASTLE + sq]
    b = pb(seat)
    s[b + L.S_CASTLES] |= 1 << c
    track_lead(s, T)
    if castle_count(T, s[b + L.S_CASTLES]) >= T[TB.P_CASTLES_TO_WIN]:
        declare_win(s, ev, seat, L.WIN_CASTLES)


@kernel
def track_lead(s, T):
    """After a castle is landed on: the living seat alone ahead in castles
    (a tie keeps the one before), each change of that leader counted, and
    every seat's deepest deficit behind the most castles a living seat
    holds. Counting only: no choice or roll reads them."""
    best = -1
    who = -1
    for p in range(s[L.G_NP]):
        if s[pb(p) + L.S_ALIVE]:
            k = castle_count(T, s[pb(p) + L.S_CASTLES])
            if k > best:
                best = k
                who = p
            elif k == best:
                who = -1
    for p in range(s[L.G_NP]):
        d = best - castle_count(T, s[pb(p) + L.S_CASTLES])
        if d > s[L.G_DEFICIT + p]:
            s[L.G_DEFICIT + p] = d
    if who >= 0 and who + 1 != s[L.G_LEADER]:
        if s[L.G_LEADER] > 0:
            s[L.G_LEAD_CHANGES] += 1
        s[L.G_LEADER] = who + 1


@kernel
def fork_step(s, T, rng, legal, pp, seat, pos, back):
    """One square forward (or back) from a fork: the mover chooses (QM-GAP-02)."""
    if back:
        n = T[TB.O_PRED_N + pos]
        base = TB.O_PRED + pos * TB.MAX_PRED
    else:
        n = T[TB.O_NEXT_N + pos]
        base = TB.O_NEXT + pos * TB.MAX_NEXT
    for k in range(n):
        legal[k] = L.code(L.A_STEP, T[base + k])
    c = ask(s, T, legal, n, rng, pp, seat, L.CTX_FORK, pos)
    if n > 1 and declined(s, T, legal, n, pp, seat, L.CTX_FORK, c):
        s[L.G_BL + L.BL_DECLINED_WIN] += 1
    return L.code_arg(c)


@kernel
def walk(s, T, ev, rng, legal, pp, seat, steps):
    """Move ``steps`` squares (negative: back). Passing a Warp square (and
    ending on one, toggle ``warp_on_landing``) offers a warp to another Warp,
    after which the pawn stops (QM-SQUARE-08, QM-GAP-22). Returns the square
    reached and whether it was reached by warping."""
    b = pb(seat)
    pos = s[b + L.S_POS]
    back = steps < 0
    k = -steps if back else steps
    for i in range(k):
        # most squares have one way on: take it here, without a call (a call
        # passes every array field by field, dearer than the step itself)
        if back and T[TB.O_PRED_N + pos] == 1:
            pos = T[TB.O_PRED + pos * TB.MAX_PRED]
        elif not back and T[TB.O_NEXT_N + pos] == 1:
            pos = T[TB.O_NEXT + pos * TB.MAX_NEXT]
        else:
            # what is left of the walk after this step: the blunder judge
            # weighs each way on by where the rest can end
            s[L.G_WALK_LEFT] = -(k - 1 - i) if back else k - 1 - i
            pos = fork_step(s, T, rng, legal, pp, seat, np.int64(pos), back)
        s[b + L.S_POS] = pos
        if T[TB.O_SQ_KIND + pos] == L.SQ_WARP and T[TB.O_WARP_N + pos] > 0 and \
                (i < k - 1 or T[TB.P_WARP_ON_LANDING]):
            n = 0
            legal[n] = L.code(L.A_NO_WARP, 0)
            n += 1
            for j in range(T[TB.O_WARP_N + pos]):
                legal[n] = L.code(L.A_WARP, T[TB.O_WARP + pos * TB.MAX_WARP + j])
                n += 1
            # what is left of the walk if it goes on: a policy weighs the
            # square it would reach against the warp
            s[L.G_WALK_LEFT] = -(k - 1 - i) if back else k - 1 - i
            c = ask(s, T, legal, n, rng, pp, seat, L.CTX_WARP, pos)
            if declined(s, T, legal, n, pp, seat, L.CTX_WARP, c):
                s[L.G_BL + L.BL_DECLINED_WIN] += 1
            if L.code_op(c) == L.A_WARP:
                s[L.G_DEC + L.DEC_WARP] += 1
                log(s, ev, L.EVT_WARP, seat, pos, L.code_arg(c), 0, 0)
                pos = L.code_arg(c)
                s[b + L.S_POS] = pos
                return pos, True
            s[L.G_DEC + L.DEC_NO_WARP] += 1
            log(s, ev, L.EVT_NO_WARP, seat, pos, 0, 0, 0)
    log(s, ev, L.EVT_MOVE, seat, steps, pos, 0, 0)
    return pos, False


@kernel
def land(s, T, ev, rng, legal, pp, seat, sq, by_card):
    """The landed square takes effect (QM-SQUARE-02..07): a castle's upper
    or lower ability by race (QM-CARD-15), or the kind's landing effects.
    Toggles: ``landing_on_player_fights`` — a pawn already there is fought
    first (QM-GAP-24); ``square_cards_optional`` — Item and Event squares
    may be declined (QM-GAP-23)."""
    b = pb(seat)
    kind = T[TB.O_SQ_KIND + sq]
    log(s, ev, L.EVT_LAND, seat, sq, kind, by_card, 0)
    if T[TB.P_LANDING_ON_PLAYER_FIGHTS]:
        n = 0
        for p in range(s[L.G_NP]):
            if p != seat and s[pb(p) + L.S_ALIVE] and s[pb(p) + L.S_POS] == sq:
                legal[n] = L.code(L.A_TARGET, p)
                n += 1
        if n > 0:
            dfn = L.code_arg(ask(s, T, legal, n, rng, pp, seat, L.CTX_TARGET, 0))
            count_target(s, T, legal, np.int64(n), seat, dfn)
            duel_with(s, T, ev, rng, legal, pp, seat, dfn)
            if over(s) or not s[b + L.S_ALIVE]:
                return
    if kind == L.SQ_CASTLE:
        c = T[TB.O_SQ_CASTLE + sq]
        if by_card == 0 or T[TB.P_CARD_MOVES_MARK_CASTLES]:
            mark_castle(s, T, ev, seat, np.int64(sq))
        if over(s):
            return
        if T[TB.O_CASTLE_RACE + c] == s[b + L.S_RACE]:
            push(s, T[TB.O_CASTLE_LOW + 2 * c], T[TB.O_CASTLE_LOW + 2 * c + 1])
        else:
            push(s, T[TB.O_CASTLE_UP + 2 * c], T[TB.O_CASTLE_UP + 2 * c + 1])
        log(s, ev, L.EVT_CASTLE, seat, c, int(T[TB.O_CASTLE_RACE + c] == s[b + L.S_RACE]), 0, 0)
    elif kind != L.SQ_WARP:
        if T[TB.P_SQUARE_CARDS_OPTIONAL] and (kind == L.SQ_ITEM or kind == L.SQ_EVENT):
            legal[0] = L.code(L.A_PLAY, kind)
            legal[1] = L.code(L.A_DONE, 0)
            if L.code_op(ask(s, T, legal, 2, rng, pp, seat, L.CTX_SQUARE, kind)) == L.A_DONE:
                s[L.G_DEC + L.DEC_DECLINE_SQUARE] += 1
                log(s, ev, L.EVT_DECLINE_SQUARE, seat, sq, kind, 0, 0)
                return
        push(s, T[TB.O_LAND + 2 * kind], T[TB.O_LAND + 2 * kind + 1])
