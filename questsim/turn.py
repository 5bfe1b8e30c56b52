"""One turn (QM-TURN-*): foot cards before the roll, the roll and the
legal movement choices, Yellow Bird Shoes after the roll (any player's,
QM-RULING-07), the move, cards after moving, the square or the symbol.
``turn_to_choice`` and ``after_choice`` split the turn at its movement
choice (the rollout search plays each option from there).
"""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .core import add_legal, ask, declined, log, over, pb, push, race_ok, roll
from .effects import resolve
from .hand import remove_card, to_used
from .movement import land, walk


@inlined
def holds_foot_card(s, T, seat, when):
    """Whether ``seat`` holds a foot card played at ``when``: most windows
    open with none, and this check is cheaper than calling foot_window."""
    b = pb(seat)
    for i in range(s[b + L.S_HAND_N]):
        if T[TB.O_ITEM + s[b + L.S_HAND + i] * TB.IK + TB.IK_WHEN] == when:
            return True
    return False


@kernel
def foot_window(s, T, ev, rng, legal, pp, seat, when, ctx):
    """Play foot cards whose moment is ``when`` (QM-TURN-02/03) until done
    (callers skip it when holds_foot_card says there is nothing to play)."""
    b = pb(seat)
    while not over(s) and s[b + L.S_ALIVE]:
        n = 0
        legal[n] = L.code(L.A_DONE, 0)
        n += 1
        for i in range(s[b + L.S_HAND_N]):
            kind = s[b + L.S_HAND + i]
            if T[TB.O_ITEM + kind * TB.IK + TB.IK_WHEN] == when:
                n = add_legal(legal, n, L.code(L.A_PLAY, kind))
        if n == 1:
            return
        c = ask(s, T, legal, n, rng, pp, seat, ctx, 0)
        if declined(s, T, legal, n, pp, seat, ctx, c):
            s[L.G_BL + L.BL_DECLINED_WIN] += 1
        if L.code_op(c) == L.A_DONE:
            return
        kind = L.code_arg(c)
        o = TB.O_ITEM + kind * TB.IK
        remove_card(s, seat, kind)
        to_used(s, kind)
        log(s, ev, L.EVT_PLAY_ITEM, seat, kind, 0, 0, 0)
        if when == L.W_AFTER_ROLL:
            s[L.G_DEC + (L.DEC_SHOE_OWN if seat == s[L.G_ACTIVE] else L.DEC_SHOE_OTHER)] += 1
        else:
            s[L.G_DEC + L.DEC_FOOT_CARDS] += 1
        if when == L.W_AFTER_ROLL:
            for i in range(T[o + TB.IK_EFF_N]):
                row = TB.O_EFF + (T[o + TB.IK_EFF] + i) * L.EW
                if T[row + L.E_OP] == L.EK_EXTRA_MOVE and race_ok(T, row, s[b + L.S_RACE]):
                    s[L.G_EXTRA] += T[row + L.E_N]
        else:
            push(s, T[o + TB.IK_EFF], T[o + TB.IK_EFF_N])
            resolve(s, T, ev, rng, legal, pp, seat)


@inlined
def movement_choices(s, T, legal, r, bl):
    """The legal results of a movement roll (QM-MOVE-04..08): two numbers
    move their sum; a number and a symbol, either; two symbols, one of them
    (or neither with toggle ``two_symbols_may_pass``, QM-GAP-26). A Yellow
    Bird Shoe is played after this choice and transforms it (shoe_move)."""
    n = 0
    if r > 0 and bl > 0:
        legal[0] = L.code(L.A_MOVE, r + bl)
        return 1
    if r > 0 or bl > 0:
        num = r if r > 0 else bl
        sym = -bl if r > 0 else -r
        n = add_legal(legal, n, L.code(L.A_MOVE, num))
        n = add_legal(legal, n, L.code(L.A_SYMBOL, sym))
        return n
    n = add_legal(legal, n, L.code(L.A_SYMBOL, -r))
    n = add_legal(legal, n, L.code(L.A_SYMBOL, -bl))
    if T[TB.P_TWO_SYMBOLS_MAY_PASS]:
        n = add_legal(legal, n, L.code(L.A_STAY, 0))
    return n


@kernel
def shoe_move(c, extra):
    """The movement choice ``c`` once Yellow Bird Shoes have added ``extra``
    squares (QM-RULING-07..09, QM-GAP-49): a move of k squares becomes k +
    extra; a symbol taken (or staying) becomes a move of ``extra`` squares
    instead, so the symbol is not carried out. No other result is left."""
    if extra <= 0:
        return c
    if L.code_op(c) == L.A_MOVE:
        return c + extra
    return L.code(L.A_MOVE, extra)


@inlined
def shoe_windows(s, T, ev, rng, legal, pp, seat):
    """After the roller's movement choice, "when any player has finished
    rolling the dice" (QM-RULING-07, QM-GAP-49): the roller may play Yellow
    Bird Shoes, then (toggle ``shoe_any_player``) every other player holding
    one, in turn order from the roller; each adds 1 square to this roll's
    movement (``G_EXTRA``)."""
    if holds_foot_card(s, T, seat, L.W_AFTER_ROLL):
        foot_window(s, T, ev, rng, legal, pp, seat, L.W_AFTER_ROLL, L.CTX_AFTER_ROLL)
    if T[TB.P_SHOE_ANY_PLAYER]:
        np_ = s[L.G_NP]
        for k in range(1, np_):
            p = (seat + k) % np_
            if s[pb(p) + L.S_ALIVE] and not over(s) and holds_foot_card(s, T, p, L.W_AFTER_ROLL):
                foot_window(s, T, ev, rng, legal, pp, p, L.W_AFTER_ROLL, L.CTX_AFTER_ROLL)


@inlined
def turn_to_choice(s, T, ev, rng, legal, pp, seat):
    """A turn up to its movement choice (QM-TURN-01/02): cards before the
    roll, then the roll. Returns the number of legal movement choices in
    ``legal``, or 0 if the game or the player's turn is over."""
    b = pb(seat)
    s[L.G_ACTIVE] = seat
    s[L.G_TURNS] += 1
    s[L.G_CHAIN] = 0
    s[L.G_EXTRA] = 0
    s[L.G_STK_N] = 0
    s[L.G_MOVE_CHOICE] = 0
    log(s, ev, L.EVT_TURN, seat, s[b + L.S_HP], s[b + L.S_POS], s[L.G_NSNAP] - 1, 0)
    if holds_foot_card(s, T, seat, L.W_BEFORE_ROLL):
        foot_window(s, T, ev, rng, legal, pp, seat, L.W_BEFORE_ROLL, L.CTX_BEFORE_ROLL)
    if over(s) or not s[b + L.S_ALIVE]:
        return 0
    r = roll(T, rng, L.DIE_RED)
    bl = roll(T, rng, L.DIE_BLUE)
    s[L.G_DIE_RED] = r
    s[L.G_DIE_BLUE] = bl
    log(s, ev, L.EVT_ROLL, seat, r, bl, 0, 0)
    return movement_choices(s, T, legal, r, bl)


@inlined
def after_choice(s, T, ev, rng, legal, pp, seat, c):
    """The rest of a turn once movement choice ``c`` is made: Yellow Bird
    Shoes (shoe_windows, shoe_move), the move, cards after moving, the square
    (QM-TURN-01/03/04); or the symbol taken."""
    b = pb(seat)
    log(s, ev, L.EVT_CHOICE, seat, L.code_op(c), L.code_arg(c), 0, 0)
    s[L.G_MOVE_CHOICE] = c
    shoe_windows(s, T, ev, rng, legal, pp, seat)
    if s[L.G_EXTRA] > 0:
        c = shoe_move(c, s[L.G_EXTRA])
        log(s, ev, L.EVT_EXTRA_MOVE, seat, s[L.G_EXTRA], L.code_arg(c), 0, 0)
    kind = L.code_op(c)
    if kind == L.A_STAY:
        s[L.G_DEC + L.DEC_STAY] += 1
    elif kind == L.A_SYMBOL and (s[L.G_DIE_RED] > 0 or s[L.G_DIE_BLUE] > 0):
        s[L.G_DEC + L.DEC_SYMBOL] += 1
    if kind == L.A_MOVE:
        _pos, warped = walk(s, T, ev, rng, legal, pp, seat, np.int64(L.code_arg(c)))
        s[L.G_CHAIN] = 0    # the chain guard counts card moves from here on
        if holds_foot_card(s, T, seat, L.W_AFTER_MOVE):
            foot_window(s, T, ev, rng, legal, pp, seat, L.W_AFTER_MOVE, L.CTX_AFTER_MOVE)
        if over(s) or not s[b + L.S_ALIVE]:
            return
        # an after-move card that moved the pawn has already resolved the
        # square it reached; otherwise the square the dice reached takes effect
        if not warped and s[L.G_CHAIN] == 0:
            land(s, T, ev, rng, legal, pp, seat, np.int64(s[b + L.S_POS]), np.int64(0))
    elif kind == L.A_SYMBOL:
        sym = L.code_arg(c)
        push(s, T[TB.O_SYMBOL + 2 * sym], T[TB.O_SYMBOL + 2 * sym + 1])
    resolve(s, T, ev, rng, legal, pp, seat)


@inlined
def take_turn(s, T, ev, rng, legal, pp, seat):
    """One turn (QM-TURN-01): cards before the roll, the roll and its
    choice, Shoes after the roll, cards after moving, the square."""
    n = turn_to_choice(s, T, ev, rng, legal, pp, seat)
    if n == 0:
        return
    c = ask(s, T, legal, n, rng, pp, seat, L.CTX_MOVE, 0)
    if n > 1 and declined(s, T, legal, n, pp, seat, L.CTX_MOVE, c):
        s[L.G_BL + L.BL_DECLINED_WIN] += 1
    after_choice(s, T, ev, rng, legal, pp, seat, c)
