"""The Quest Master rules as numba kernels over the flat state ``s`` and the
compiled rules ``T`` (questsim.tables). Rule IDs (QM-*) are those of
shared/rules/questmaster-rules.md; QM-GAP rulings are in docs/questmaster/rulings.md.

Every choice a player makes goes through ``decide`` with the legal codes the
engine generated (layout.A_*). Effects (squares, castles, events, foot cards)
run from a stack of effect lists in the state, so a card that moves a pawn
resolves the new square before the rest of the card (QM-RULING-06) without
recursion between kernels.
"""
import numpy as np
from numba import njit

from simcore.jit import inlined, kernel, needs_nrt
from simcore.rng import N_STREAMS, STREAM_DICE, STREAM_SETUP, randint, seed_streams, shuffle
from . import layout as L
from . import tables as TB
from .policies import decide

OPB = L.OPB


# ------------------------------------------------------------------ basics --

@kernel
def pb(seat):
    return L.G_P + seat * L.PS


@inlined
def log(s, kind, seat, a, b, c, d, ev):
    """Append one event when logging (replay only). Inlined: batch runs log
    nothing, and a call (which passes both arrays field by field) at each of
    the many logging points cost more than the test of the flag."""
    if s[L.G_LOG] == 0:
        return
    i = s[L.G_LOGN]
    if i < ev.shape[0]:
        ev[i, 0] = kind
        ev[i, 1] = s[L.G_ROUND]
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        ev[i, 6] = d
        s[L.G_LOGN] = i + 1


@kernel
def roll(T, rng, die):
    """One face of the red (0) or blue (1) die: 1..6, or a symbol < 0 (QM-MOVE-01/02)."""
    n = T[TB.P_NFACES_RED + die]
    return T[TB.O_FACES + die * TB.MAX_FACES + randint(rng, STREAM_DICE, n)]


@kernel
def over(s):
    return s[L.G_WIN] != L.WIN_NONE


@inlined
def ask(s, T, legal, n, rng, pp, seat, ctx, arg):
    """Ask ``seat``'s policy to pick one of ``legal[:n]``; an illegal answer
    is counted and replaced by the first legal code. A lone legal code is
    taken without asking; inlined, so that this common case costs no call."""
    s[L.G_CTX] = ctx
    s[L.G_CTX_ARG] = arg
    if n == 1:
        return legal[0]
    # one type for the count and the seat (read from the state as int32 or
    # computed as int64, or a literal): numba compiles a callee once per
    # argument types, and policy_choice carries the policies with it
    return policy_choice(s, T, legal, np.int64(n), rng, pp, np.int64(seat))


@kernel
def policy_choice(s, T, legal, n, rng, pp, seat):
    """The policy's pick for ask (two or more legal codes)."""
    c = decide(s, T, legal, n, rng, s[pb(seat) + L.P_POLICY], pp[seat], seat)
    for i in range(n):
        if legal[i] == c:
            return c
    s[L.G_ILLEGAL] += 1
    return legal[0]


@kernel
def add_legal(legal, n, code):
    """Append ``code`` unless present; returns the new count."""
    for i in range(n):
        if legal[i] == code:
            return n
    legal[n] = code
    return n + 1


@kernel
def race_ok(T, row, race):
    m = T[row + L.E_RACES]
    return m == 0 or (m >> race) & 1 == 1


# ----------------------------------------------------------- items and hand --

@kernel
def remove_card(s, seat, kind):
    """Take one card of ``kind`` out of the hand (returns False if none)."""
    b = pb(seat)
    n = s[b + L.P_HAND_N]
    for i in range(n):
        if s[b + L.P_HAND + i] == kind:
            s[b + L.P_HAND + i] = s[b + L.P_HAND + n - 1]
            s[b + L.P_HAND_N] = n - 1
            return True
    return False


@kernel
def to_used(s, kind):
    """A used or discarded Item card goes to the used Item pile (QM-HAND-03)."""
    s[L.G_ITEM_USED + s[L.G_ITEM_USED_N]] = kind
    s[L.G_ITEM_USED_N] += 1


@kernel
def discard_choice(s, T, ev, legal, rng, pp, seat, ctx):
    """The holder chooses one card to discard (QM-GAP-28, QM-RULING-03)."""
    b = pb(seat)
    n = 0
    for i in range(s[b + L.P_HAND_N]):
        n = add_legal(legal, n, L.A_DISCARD * OPB + s[b + L.P_HAND + i])
    if n == 0:
        return
    kind = ask(s, T, legal, n, rng, pp, seat, ctx, 0) % OPB
    remove_card(s, seat, kind)
    to_used(s, kind)
    log(s, L.EV_DISCARD, seat, kind, 0, 0, 0, ev)


@kernel
def draw_item(s, T, ev, legal, rng, pp, seat):
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
        log(s, L.EV_RESHUFFLE, seat, 0, m, 0, 0, ev)
    s[L.G_ITEM_N] -= 1
    kind = s[L.G_ITEM_DECK + s[L.G_ITEM_N]]
    b = pb(seat)
    s[b + L.P_HAND + s[b + L.P_HAND_N]] = kind
    s[b + L.P_HAND_N] += 1
    log(s, L.EV_DRAW_ITEM, seat, kind, 0, 0, 0, ev)
    while s[b + L.P_HAND_N] > T[TB.P_HAND_LIMIT]:
        s[L.G_DEC + L.DEC_HAND_DISCARDS] += 1
        discard_choice(s, T, ev, legal, rng, pp, seat, L.CTX_DISCARD)


# ------------------------------------------------------- life and the end --

@kernel
def declare_win(s, seat, how, ev):
    if not over(s):
        s[L.G_WINNER] = seat
        s[L.G_WIN] = how
        log(s, L.EV_WIN, seat, how, 0, 0, 0, ev)


@kernel
def gain_hp(s, T, ev, seat, n):
    """Hp up; above ``win_hp_above`` the player wins at once (QM-END-05)."""
    b = pb(seat)
    s[b + L.P_HP] += n
    if s[b + L.P_HP] > s[b + L.P_MAX_HP]:
        s[b + L.P_MAX_HP] = s[b + L.P_HP]
    log(s, L.EV_HP, seat, n, s[b + L.P_HP], 0, 0, ev)
    if s[b + L.P_HP] > T[TB.P_WIN_HP]:
        declare_win(s, seat, L.WIN_HP, ev)


@kernel
def eliminate(s, T, ev, seat):
    """Hp 0: out at once; pawn off the board, hand to the used pile, skipped
    in turn order (QM-END-02, QM-GAP-39/40); the last one left wins (QM-END-03)."""
    b = pb(seat)
    s[b + L.P_ALIVE] = 0
    s[b + L.P_HP] = 0
    s[b + L.P_POS] = -1
    s[b + L.P_ELIM_ROUND] = s[L.G_ROUND]
    for i in range(s[b + L.P_HAND_N]):
        to_used(s, s[b + L.P_HAND + i])
    s[b + L.P_HAND_N] = 0
    s[L.G_ELIMINATED] += 1
    log(s, L.EV_ELIMINATED, seat, 0, 0, 0, 0, ev)
    if s[L.G_DEFER_END] == 0:
        check_standing(s, ev)


@kernel
def check_standing(s, ev):
    """The last player left wins (QM-END-03); if the last players fell
    together, nobody does (QM-GAP-43)."""
    alive, last = 0, -1
    for p in range(s[L.G_NP]):
        if s[pb(p) + L.P_ALIVE]:
            alive += 1
            last = p
    if alive == 1:
        declare_win(s, last, L.WIN_LAST_STANDING, ev)
    elif alive == 0:
        declare_win(s, -1, L.WIN_NOBODY, ev)


@kernel
def lose_hp(s, T, ev, seat, n):
    """Hp down, never below 0; at 0 a held Phoenix (a foot card used
    ``hp_zero``) revives at once with no damage carried (QM-RULING-02,
    QM-GAP-45); otherwise the player is out."""
    b = pb(seat)
    if not s[b + L.P_ALIVE] or n <= 0:
        return
    hp = s[b + L.P_HP] - n
    if hp > 0:
        s[b + L.P_HP] = hp
        log(s, L.EV_HP, seat, -n, hp, 0, 0, ev)
        return
    # the killing blow is logged too: the Hp change down to 0 (never below)
    log(s, L.EV_HP, seat, -s[b + L.P_HP], 0, 0, 0, ev)
    s[b + L.P_HP] = 0
    for i in range(s[b + L.P_HAND_N]):
        kind = s[b + L.P_HAND + i]
        o = TB.O_ITEM + kind * TB.IK
        if T[o + 4] != L.W_HP_ZERO:
            continue
        for j in range(T[o + 6]):
            row = TB.O_EFF + (T[o + 5] + j) * L.EW
            if T[row + L.E_OP] == L.OP_REVIVE and race_ok(T, row, s[b + L.P_RACE]):
                # always played: it can only help (the card says "may")
                remove_card(s, seat, kind)
                to_used(s, kind)
                s[b + L.P_HP] = T[row + L.E_N]
                log(s, L.EV_REVIVE, seat, kind, s[b + L.P_HP], 0, 0, ev)
                return
    eliminate(s, T, ev, seat)


# ------------------------------------------------------------------ movement --

@kernel
def mark_castle(s, T, ev, seat, sq):
    """Record a landing on a castle; all of them wins at once (QM-END-04)."""
    c = T[TB.O_SQ_CASTLE + sq]
    b = pb(seat)
    s[b + L.P_CASTLES] |= 1 << c
    k = 0
    for i in range(T[TB.P_NCASTLES]):
        k += (s[b + L.P_CASTLES] >> i) & 1
    if k >= T[TB.P_CASTLES_TO_WIN]:
        declare_win(s, seat, L.WIN_CASTLES, ev)


@kernel
def fork_step(s, T, legal, rng, pp, seat, pos, back):
    """One square forward (or back) from a fork: the mover chooses (QM-GAP-02)."""
    if back:
        n = T[TB.O_PRED_N + pos]
        base = TB.O_PRED + pos * TB.MAX_PRED
    else:
        n = T[TB.O_NEXT_N + pos]
        base = TB.O_NEXT + pos * TB.MAX_NEXT
    for k in range(n):
        legal[k] = L.A_STEP * OPB + T[base + k]
    return ask(s, T, legal, n, rng, pp, seat, L.CTX_FORK, pos) % OPB


@kernel
def walk(s, T, ev, legal, rng, pp, seat, steps):
    """Move ``steps`` squares (negative: back). Passing a Warp square (and
    ending on one, toggle ``warp_on_landing``) offers a warp to another Warp,
    after which the pawn stops (QM-SQUARE-08, QM-GAP-22). Returns the square
    reached and whether it was reached by warping."""
    b = pb(seat)
    pos = s[b + L.P_POS]
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
            pos = fork_step(s, T, legal, rng, pp, seat, np.int64(pos), back)
        s[b + L.P_POS] = pos
        if T[TB.O_SQ_KIND + pos] == L.SQ_WARP and T[TB.O_WARP_N + pos] > 0 and \
                (i < k - 1 or T[TB.P_T_WARP_ON_LAND]):
            n = 0
            legal[n] = L.A_NO_WARP * OPB
            n += 1
            for j in range(T[TB.O_WARP_N + pos]):
                legal[n] = L.A_WARP * OPB + T[TB.O_WARP + pos * TB.MAX_WARP + j]
                n += 1
            # what is left of the walk if it goes on: a policy weighs the
            # square it would reach against the warp
            s[L.G_WALK_LEFT] = -(k - 1 - i) if back else k - 1 - i
            c = ask(s, T, legal, n, rng, pp, seat, L.CTX_WARP, pos)
            if c // OPB == L.A_WARP:
                s[L.G_DEC + L.DEC_WARP] += 1
                log(s, L.EV_WARP, seat, pos, c % OPB, 0, 0, ev)
                pos = c % OPB
                s[b + L.P_POS] = pos
                return pos, True
            s[L.G_DEC + L.DEC_NO_WARP] += 1
            log(s, L.EV_NO_WARP, seat, pos, 0, 0, 0, ev)
    log(s, L.EV_MOVE, seat, steps, pos, 0, 0, ev)
    return pos, False


# ------------------------------------------------------------------ effects --

@kernel
def push(s, start, count):
    """Queue an effect list to resolve before the rest of the current one."""
    if count <= 0:
        return
    i = s[L.G_STK_N]
    if i >= L.MAX_STACK:
        return   # unreachable with the chain limit; a guard, not a rule
    s[L.G_STK + 3 * i] = start
    s[L.G_STK + 3 * i + 1] = count
    s[L.G_STK + 3 * i + 2] = 0
    s[L.G_STK_N] = i + 1


@kernel
def land(s, T, ev, legal, rng, pp, seat, sq, by_card):
    """The landed square takes effect (QM-SQUARE-02..07): a castle's upper
    or lower ability by race (QM-CARD-15), or the kind's landing effects.
    Toggles: ``landing_on_player_fights`` — a pawn already there is fought
    first (QM-GAP-24); ``square_cards_optional`` — Item and Event squares
    may be declined (QM-GAP-23)."""
    b = pb(seat)
    kind = T[TB.O_SQ_KIND + sq]
    log(s, L.EV_LAND, seat, sq, kind, by_card, 0, ev)
    if T[TB.P_T_LAND_FIGHTS]:
        n = 0
        for p in range(s[L.G_NP]):
            if p != seat and s[pb(p) + L.P_ALIVE] and s[pb(p) + L.P_POS] == sq:
                legal[n] = L.A_TARGET * OPB + p
                n += 1
        if n > 0:
            dfn = ask(s, T, legal, n, rng, pp, seat, L.CTX_TARGET, 0) % OPB
            count_target(s, T, legal, np.int64(n), seat, dfn)
            duel_with(s, T, ev, legal, rng, pp, seat, dfn)
            if over(s) or not s[b + L.P_ALIVE]:
                return
    if kind == L.SQ_CASTLE:
        c = T[TB.O_SQ_CASTLE + sq]
        if by_card == 0 or T[TB.P_T_CARD_MOVES_MARK]:
            mark_castle(s, T, ev, seat, np.int64(sq))
        if over(s):
            return
        if T[TB.O_CASTLE_RACE + c] == s[b + L.P_RACE]:
            push(s, T[TB.O_CASTLE_LOW + 2 * c], T[TB.O_CASTLE_LOW + 2 * c + 1])
        else:
            push(s, T[TB.O_CASTLE_UP + 2 * c], T[TB.O_CASTLE_UP + 2 * c + 1])
        log(s, L.EV_CASTLE, seat, c, int(T[TB.O_CASTLE_RACE + c] == s[b + L.P_RACE]), 0, 0, ev)
    elif kind != L.SQ_WARP:
        if T[TB.P_T_SQUARE_OPTIONAL] and (kind == L.SQ_ITEM or kind == L.SQ_EVENT):
            legal[0] = L.A_PLAY * OPB + kind
            legal[1] = L.A_DONE * OPB
            if ask(s, T, legal, 2, rng, pp, seat, L.CTX_SQUARE, kind) // OPB == L.A_DONE:
                s[L.G_DEC + L.DEC_DECLINE_SQUARE] += 1
                log(s, L.EV_DECLINE_SQUARE, seat, sq, kind, 0, 0, ev)
                return
        push(s, T[TB.O_LAND + 2 * kind], T[TB.O_LAND + 2 * kind + 1])


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
        log(s, L.EV_RESHUFFLE, seat, 1, m, 0, 0, ev)
    s[L.G_EVENT_N] -= 1
    kind = s[L.G_EVENT_DECK + s[L.G_EVENT_N]]
    # it goes to the used pile once carried out; it is put there now, which
    # is the same unless the same chain empties the deck again
    s[L.G_EVENT_USED + s[L.G_EVENT_USED_N]] = kind
    s[L.G_EVENT_USED_N] += 1
    log(s, L.EV_EVENT, seat, kind, 0, 0, 0, ev)
    o = TB.O_EVENT + kind * TB.EK
    push(s, T[o + 1], T[o + 2])


@inlined
def effect(s, T, ev, legal, rng, pp, seat, row):
    """Carry out one board effect row for ``seat`` (QM-CARD-10/11/12/16)."""
    b = pb(seat)
    op = T[row + L.E_OP]
    n = T[row + L.E_N]
    arg = T[row + L.E_ARG]
    np_ = s[L.G_NP]
    if op == L.OP_GAIN_HP or op == L.OP_LOSE_HP:
        # everyone hit by one effect falls together: decide the standing after
        s[L.G_DEFER_END] = 1
        for k in range(np_):
            p = (seat + k) % np_        # turn order from the active player (QM-GAP-43)
            if not s[pb(p) + L.P_ALIVE] or over(s):
                continue
            if (arg == L.TGT_SELF and p != seat) or (arg == L.TGT_OTHERS and p == seat):
                continue
            if op == L.OP_GAIN_HP:
                gain_hp(s, T, ev, p, n)
            else:
                lose_hp(s, T, ev, p, np.int64(n))
        s[L.G_DEFER_END] = 0
        if op == L.OP_LOSE_HP:
            check_standing(s, ev)
    elif op == L.OP_GAIN_HP_DIE or op == L.OP_LOSE_HP_DIE:
        # the face as rolled, and the value it counts (a symbol counts n)
        f = roll(T, rng, arg)
        v = f if f > 0 else n
        log(s, L.EV_DIE, seat, arg, f, v, 0, ev)
        if op == L.OP_GAIN_HP_DIE:
            gain_hp(s, T, ev, seat, v)
        else:
            lose_hp(s, T, ev, seat, np.int64(v))
    elif op == L.OP_DRAW_ITEM:
        for _ in range(n):
            draw_item(s, T, ev, legal, rng, pp, seat)
    elif op == L.OP_DISCARD_ITEM:
        for _ in range(n):
            discard_choice(s, T, ev, legal, rng, pp, seat, L.CTX_DISCARD)
    elif op == L.OP_OPEN_EVENT:
        for _ in range(n):
            open_event(s, T, ev, rng, seat)
    elif op == L.OP_MOVE:
        if s[L.G_CHAIN] < T[TB.P_CHAIN_LIMIT]:
            s[L.G_CHAIN] += 1
            pos, warped = walk(s, T, ev, legal, rng, pp, seat, np.int64(n))
            if not warped:
                land(s, T, ev, legal, rng, pp, seat, np.int64(pos), np.int64(1))
    elif op == L.OP_GO_HOME:
        # the home castle's own (lower) ability applies (QM-RULING-05, QM-GAP-47)
        if s[L.G_CHAIN] < T[TB.P_CHAIN_LIMIT]:
            s[L.G_CHAIN] += 1
            home = T[TB.O_HOME + s[b + L.P_RACE]]
            s[b + L.P_POS] = home
            log(s, L.EV_GO_HOME, seat, home, 0, 0, 0, ev)
            land(s, T, ev, legal, rng, pp, seat, np.int64(home), np.int64(1))
    elif op == L.OP_FIGHT:
        duel(s, T, ev, legal, rng, pp, seat)
    elif op == L.OP_ROLL:
        f = roll(T, rng, arg)
        log(s, L.EV_DIE, seat, arg, f, f if f > 0 else 0, 0, ev)
        k = 0 if f > 0 else -f
        push(s, T[row + L.E_BR + 2 * k], T[row + L.E_BR + 2 * k + 1])


@inlined
def resolve(s, T, ev, legal, rng, pp, seat):
    """Run queued effect lists until none is left or the game is over."""
    while s[L.G_STK_N] > 0 and not over(s):
        if not s[pb(seat) + L.P_ALIVE]:
            break
        top = L.G_STK + 3 * (s[L.G_STK_N] - 1)
        start, count, i = s[top], s[top + 1], s[top + 2]
        if i >= count:
            s[L.G_STK_N] -= 1
            continue
        s[top + 2] = i + 1
        row = TB.O_EFF + (start + i) * L.EW
        if race_ok(T, row, s[pb(seat) + L.P_RACE]):
            effect(s, T, ev, legal, rng, pp, seat, row)
    s[L.G_STK_N] = 0


# --------------------------------------------------------------------- duel --

@kernel
def combat_card_ok(T, kind, attacking, mp):
    """A blue card usable now: sword/sword-and-shield when attacking, shield
    or sword-and-shield when defending, casting cost within Mp (QM-CARD-04..08)."""
    o = TB.O_ITEM + kind * TB.IK
    if T[o + 1] != 1 or T[o + 3] > mp:
        return False
    sym = T[o + 2]
    if sym == L.IS_SWORD_SHIELD:
        return True
    return sym == (L.IS_SWORD if attacking else L.IS_SHIELD)


@kernel
def combat_effects(s, T, ev, legal, rng, pp, seat, opp, start, count, attacking, card):
    """Apply the combat effects of a card (``card``) or ability: attack ops
    when attacking, defence ops when defending (a sword-and-shield card has
    both). Only a card's At bonus can last the combat (toggle)."""
    race = s[pb(seat) + L.P_RACE]
    for i in range(count):
        row = TB.O_EFF + (start + i) * L.EW
        if not race_ok(T, row, race):
            continue
        op = T[row + L.E_OP]
        n = T[row + L.E_N]
        if attacking and op == L.OP_ATTACK_BONUS:
            s[L.G_DUEL_AT] += n
            if T[TB.P_T_BONUS_LASTS] and card:
                s[pb(seat) + L.P_BONUS] += n
        elif attacking and op == L.OP_DESTROY_ITEMS:
            for _ in range(n):
                discard_choice(s, T, ev, legal, rng, pp, opp, L.CTX_DISCARD)
        elif not attacking and op == L.OP_SHIELD:
            if T[TB.P_T_SHIELDS_STACK]:
                s[L.G_DUEL_SHIELD] += n
            elif n > s[L.G_DUEL_SHIELD]:
                s[L.G_DUEL_SHIELD] = n
            if T[TB.P_T_SHIELD_LASTS]:
                s[pb(seat) + L.P_CARRY_SHIELD] = s[L.G_DUEL_SHIELD]
        elif not attacking and op == L.OP_ABSORB:
            s[L.G_DUEL_ABSORB] = T[row + L.E_ARG]
        elif op == L.OP_DRAW_ITEM:
            for _ in range(n):
                draw_item(s, T, ev, legal, rng, pp, seat)
        elif op == L.OP_GAIN_HP:
            gain_hp(s, T, ev, seat, n)


@kernel
def card_window(s, T, ev, legal, rng, pp, seat, opp, attacking):
    """The attacker adds attack cards and abilities, or the defender shield
    cards and abilities, each paid from Mp, until done (QM-DUEL-05/06, QM-GAP-20)."""
    b = pb(seat)
    ch = TB.O_CHAR + s[b + L.P_CHAR] * TB.CH
    items = 0
    while not over(s) and s[b + L.P_ALIVE]:
        mp = s[b + L.P_MP]
        n = 0
        legal[n] = L.A_DONE * OPB
        n += 1
        if items == 0 or not T[TB.P_T_ONE_ITEM]:   # the toggle limits Item cards, not abilities
            for i in range(s[b + L.P_HAND_N]):
                kind = s[b + L.P_HAND + i]
                if combat_card_ok(T, kind, attacking, mp):
                    n = add_legal(legal, n, L.A_PLAY * OPB + kind)
        if n == 1 and T[ch + TB.C_NAB] == 0:
            break
        for k in range(T[ch + TB.C_NAB]):
            o = ch + TB.C_AB + 5 * k
            if T[o] == (0 if attacking else 1) and T[o + 1] <= mp and s[b + L.P_ABIL + k] < T[o + 2]:
                legal[n] = L.A_ABILITY * OPB + k
                n += 1
        c = ask(s, T, legal, n, rng, pp, seat, L.CTX_ATTACK_CARDS if attacking else L.CTX_DEFEND,
                s[L.G_DUEL_AT])
        if c // OPB == L.A_DONE:
            break
        # the decision counters: which kind of option, and a shield or
        # absorb played when the attack is already stopped (absorbed, or its
        # At no more than the Shield), which cannot lessen the damage
        is_card = c // OPB == L.A_PLAY
        if is_card:
            o = TB.O_ITEM + (c % OPB) * TB.IK
            start, count = T[o + 5], T[o + 6]
            s[L.G_DEC + (L.DEC_ATTACK_CARDS if attacking else L.DEC_DEFEND_CARDS)] += 1
        else:
            o = ch + TB.C_AB + 5 * (c % OPB)
            start, count = T[o + 3], T[o + 4]
            s[L.G_DEC + (L.DEC_ATTACK_ABILITIES if attacking else L.DEC_DEFEND_ABILITIES)] += 1
        if not attacking and (s[L.G_DUEL_ABSORB] >= 0 or s[L.G_DUEL_AT] <= s[L.G_DUEL_SHIELD]) and \
                only_shields(T, start, count):
            s[L.G_DEC + L.DEC_DEFEND_WASTED] += 1
        if is_card:
            items += 1
            kind = c % OPB
            o = TB.O_ITEM + kind * TB.IK
            s[b + L.P_MP] -= T[o + 3]
            remove_card(s, seat, kind)
            to_used(s, kind)
            log(s, L.EV_PLAY_ITEM, seat, kind, T[o + 3], s[b + L.P_MP], 0, ev)
            combat_effects(s, T, ev, legal, rng, pp, seat, opp, T[o + 5], T[o + 6], np.bool_(attacking), np.bool_(True))
        else:
            k = c % OPB
            o = ch + TB.C_AB + 5 * k
            s[b + L.P_MP] -= T[o + 1]
            s[b + L.P_ABIL + k] += 1
            log(s, L.EV_PLAY_ITEM, seat, -1 - k, T[o + 1], s[b + L.P_MP], 0, ev)
            combat_effects(s, T, ev, legal, rng, pp, seat, opp, T[o + 3], T[o + 4], np.bool_(attacking), np.bool_(False))


@kernel
def only_shields(T, start, count):
    """Whether an effect list does nothing for a defender but shield or
    absorb the attack (a Shield card, Vanish; not Prayer's Hp): bookkeeping
    for the ``defend_wasted`` counter."""
    for i in range(count):
        op = T[TB.O_EFF + (start + i) * L.EW + L.E_OP]
        if op != L.OP_SHIELD and op != L.OP_ABSORB and op != L.OP_ATTACK_BONUS and op != L.OP_DESTROY_ITEMS:
            return False
    return True


@inlined
def one_attack(s, T, ev, legal, rng, pp, att, dfn, at, cost):
    """One attack at ``at`` (already paid: ``cost``): attack cards, then the
    defence, then damage = At - Shield, never below 0, or absorbed
    (QM-DUEL-05..07, QM-RULING-04). The attack counts, and is logged, as
    soon as it is declared: before its cards, so the log's Mp reads in order
    (Mp rolled, the attack's cost, each card's cost), and the result row's
    ``attacks`` agrees with the log even when the game ends in the defence."""
    s[L.G_DUEL_AT] = at + (s[pb(att) + L.P_BONUS] if T[TB.P_T_BONUS_LASTS] else 0)
    s[L.G_DUEL_SHIELD] = s[pb(dfn) + L.P_CARRY_SHIELD] if T[TB.P_T_SHIELD_LASTS] else 0
    s[L.G_DUEL_ABSORB] = -1
    s[L.G_ATTACKS] += 1
    log(s, L.EV_ATTACK, att, dfn, s[L.G_DUEL_AT], cost, s[pb(att) + L.P_MP], ev)
    card_window(s, T, ev, legal, rng, pp, att, dfn, np.bool_(True))
    if over(s) or not s[pb(dfn) + L.P_ALIVE] or not s[pb(att) + L.P_ALIVE]:
        return
    card_window(s, T, ev, legal, rng, pp, dfn, att, np.bool_(False))
    if over(s) or not s[pb(dfn) + L.P_ALIVE]:
        return
    a = s[L.G_DUEL_AT]
    if s[L.G_DUEL_ABSORB] >= 0:
        log(s, L.EV_ABSORB, dfn, a, s[L.G_DUEL_ABSORB], 0, 0, ev)
        if s[L.G_DUEL_ABSORB] == L.GAIN_HP:
            gain_hp(s, T, ev, dfn, a)
        elif s[L.G_DUEL_ABSORB] == L.GAIN_MP:
            s[pb(dfn) + L.P_MP] += a
        return
    dmg = a - s[L.G_DUEL_SHIELD]
    if dmg < 0:
        dmg = 0
    log(s, L.EV_DAMAGE, dfn, a, s[L.G_DUEL_SHIELD], dmg, 0, ev)
    s[pb(att) + L.P_DAMAGE] += dmg
    lose_hp(s, T, ev, dfn, np.int64(dmg))


@kernel
def count_target(s, T, legal, n, att, dfn):
    """Count a fight's target choice by what the target was among the
    ``n`` opponents on offer (``legal``): the castle leader, within 5 Hp of
    the Hp win, the lowest or highest Hp, within reach of the free attack's
    At. Only a real choice (two or more opponents) counts; this is
    bookkeeping, not a rule."""
    if n < 2:
        return
    s[L.G_DEC + L.DEC_TARGET_CHOICES] += 1
    db = pb(dfn)
    hp, cas = s[db + L.P_HP], castle_count(T, s[db + L.P_CASTLES])
    lowest, highest, leader = True, True, cas > 0
    for i in range(n):
        q = pb(legal[i] % OPB)
        if s[q + L.P_HP] < hp:
            lowest = False
        if s[q + L.P_HP] > hp:
            highest = False
        if castle_count(T, s[q + L.P_CASTLES]) > cas:
            leader = False
    s[L.G_DEC + L.DEC_TARGET_LEADER] += leader
    s[L.G_DEC + L.DEC_TARGET_NEAR_HP_WIN] += hp > T[TB.P_WIN_HP] - 6
    s[L.G_DEC + L.DEC_TARGET_LOWEST_HP] += lowest
    s[L.G_DEC + L.DEC_TARGET_HIGHEST_HP] += highest
    s[L.G_DEC + L.DEC_TARGET_KILLABLE] += hp <= T[TB.O_CHAR + s[pb(att) + L.P_CHAR] * TB.CH + TB.C_AT]


@kernel
def castle_count(T, mask):
    """Castles in a landed-castles bit mask."""
    k = 0
    for i in range(T[TB.P_NCASTLES]):
        k += (mask >> i) & 1
    return k


@inlined
def duel(s, T, ev, legal, rng, pp, att):
    """A combat started by ``att``, who chooses any other living player
    (QM-DUEL-01, QM-GAP-25); see duel_with."""
    n = 0
    for p in range(s[L.G_NP]):
        if p != att and s[pb(p) + L.P_ALIVE]:
            legal[n] = L.A_TARGET * OPB + p
            n += 1
    if n == 0 or not s[pb(att) + L.P_ALIVE]:
        return
    dfn = ask(s, T, legal, n, rng, pp, att, L.CTX_TARGET, 0) % OPB
    count_target(s, T, legal, np.int64(n), att, dfn)
    duel_with(s, T, ev, legal, rng, pp, att, dfn)


@kernel
def duel_with(s, T, ev, legal, rng, pp, att, dfn):
    """The combat of ``att`` against ``dfn`` (QM-DUEL-01..12): roll Mp
    (attacker red, defender blue; QM-GAP-30), the compulsory free first
    attack at At (QM-RULING-01), then the sides alternate paid attacks.

    When the side due to attack cannot pay for any attack, the combat ends
    for both (QM-DUEL-12, step 9: "when a player can no longer attack because
    they have no Mp left"); toggle ``lone_attacker_continues`` lets the other
    side keep attacking instead. A side that declines a paid attack makes no
    more attacks (QM-DUEL-11) and the other keeps attacking until it stops or
    cannot pay ("when both players have stopped attacking"); toggle
    ``attacker_continues_after_decline`` false ends the combat at the
    decline. Every stop and the end are logged (``decline``, ``cannot_pay``,
    ``duel_end``)."""
    s[L.G_DUELS] += 1
    s[L.G_DUEL_A] = att
    s[L.G_DUEL_D] = dfn
    fa, fd = 0, 0
    for p in (att, dfn):
        b = pb(p)
        f = roll(T, rng, L.DIE_RED if p == att else L.DIE_BLUE)
        if p == att:
            fa = f
        else:
            fd = f
        s[b + L.P_MP] = f if f > 0 else T[TB.P_MP_SYMBOL]
        s[b + L.P_OUT] = 0
        s[b + L.P_BONUS] = 0
        s[b + L.P_CARRY_SHIELD] = 0
        s[b + L.P_DUELS] += 1
        for k in range(4):
            s[b + L.P_ABIL + k] = 0
    log(s, L.EV_FIGHT, att, dfn, s[pb(att) + L.P_MP], s[pb(dfn) + L.P_MP], 0, ev)
    log(s, L.EV_DIE, att, L.DIE_RED, fa, s[pb(att) + L.P_MP], 0, ev)     # the Mp dice as rolled
    log(s, L.EV_DIE, dfn, L.DIE_BLUE, fd, s[pb(dfn) + L.P_MP], 0, ev)
    cur = att
    attacks = 0
    first = True
    why = L.END_BOTH_STOPPED
    while True:
        if not s[pb(att) + L.P_ALIVE] or not s[pb(dfn) + L.P_ALIVE]:
            why = L.END_ELIMINATED
            break
        if over(s):
            why = L.END_GAME_OVER
            break
        if T[TB.P_MAX_ATTACKS] > 0 and attacks >= T[TB.P_MAX_ATTACKS]:
            why = L.END_CAP
            break
        opp = dfn if cur == att else att
        b = pb(cur)
        if s[b + L.P_OUT]:
            # this side has stopped; the other attacks again (only reached
            # while the other has not stopped too)
            if s[pb(opp) + L.P_OUT]:
                why = L.END_BOTH_STOPPED
                break
            cur = opp
            continue
        ch = TB.O_CHAR + s[b + L.P_CHAR] * TB.CH
        mp = s[b + L.P_MP]
        cost = 0
        at = 0
        n = 0
        cheapest = 1 << 20
        if first:
            # the free first attack is compulsory (QM-RULING-01, QM-GAP-34);
            # only a ruleset that gives it a cost can make it unaffordable
            cheapest = T[TB.P_FREE_COST]
            if mp >= cheapest:
                cost = cheapest
                at = T[ch + TB.C_AT]
                n = 1
        else:
            for k in range(T[ch + TB.C_NATT]):
                c_k = T[ch + TB.C_ATT + 2 * k]
                if c_k < cheapest:
                    cheapest = c_k
                if c_k <= mp:
                    legal[n] = L.A_ATTACK * OPB + k
                    n += 1
        if n == 0:
            # cannot pay: step 9 ends the combat for both sides
            log(s, L.EV_CANNOT_PAY, cur, mp, cheapest, 0, 0, ev)
            first = False
            if not T[TB.P_T_LONE_CONTINUES]:
                why = L.END_CANNOT_PAY
                break
            s[b + L.P_OUT] = 1
            if s[pb(opp) + L.P_OUT]:
                why = L.END_BOTH_STOPPED
                break
            cur = opp
            continue
        if not first:
            legal[n] = L.A_DECLINE * OPB
            n += 1
            c = ask(s, T, legal, n, rng, pp, cur, L.CTX_ATTACK, 0)
            if c // OPB == L.A_DECLINE:
                s[L.G_DEC + L.DEC_DECLINE_ATTACK] += 1
                log(s, L.EV_DECLINE, cur, opp, mp, 0, 0, ev)
                s[b + L.P_OUT] = 1
                if not T[TB.P_T_AFTER_DECLINE]:
                    why = L.END_DECLINED
                    break
                if s[pb(opp) + L.P_OUT]:
                    why = L.END_BOTH_STOPPED
                    break
                cur = opp
                continue
            k = c % OPB
            cost = T[ch + TB.C_ATT + 2 * k]
            at = T[ch + TB.C_ATT + 2 * k + 1]
            s[L.G_DEC + L.DEC_PAID_ATTACKS] += 1
        s[b + L.P_MP] -= cost
        first = False
        attacks += 1
        one_attack(s, T, ev, legal, rng, pp, cur, opp, at, cost)
        if not s[pb(opp) + L.P_OUT]:
            cur = opp
    log(s, L.EV_DUEL_END, att, dfn, why, attacks, 0, ev)
    for p in (att, dfn):
        s[pb(p) + L.P_MP] = 0      # Mp exists only within a combat (QM-GAP-31)
    s[L.G_DUEL_A] = -1
    s[L.G_DUEL_D] = -1


# --------------------------------------------------------------------- turn --

@inlined
def holds_foot_card(s, T, seat, when):
    """Whether ``seat`` holds a foot card played at ``when``: most windows
    open with none, and this check is cheaper than calling foot_window."""
    b = pb(seat)
    for i in range(s[b + L.P_HAND_N]):
        if T[TB.O_ITEM + s[b + L.P_HAND + i] * TB.IK + 4] == when:
            return True
    return False


@kernel
def foot_window(s, T, ev, legal, rng, pp, seat, when, ctx):
    """Play foot cards whose moment is ``when`` (QM-TURN-02/03) until done
    (callers skip it when holds_foot_card says there is nothing to play)."""
    b = pb(seat)
    while not over(s) and s[b + L.P_ALIVE]:
        n = 0
        legal[n] = L.A_DONE * OPB
        n += 1
        for i in range(s[b + L.P_HAND_N]):
            kind = s[b + L.P_HAND + i]
            if T[TB.O_ITEM + kind * TB.IK + 4] == when:
                n = add_legal(legal, n, L.A_PLAY * OPB + kind)
        if n == 1:
            return
        c = ask(s, T, legal, n, rng, pp, seat, ctx, 0)
        if c // OPB == L.A_DONE:
            return
        kind = c % OPB
        o = TB.O_ITEM + kind * TB.IK
        remove_card(s, seat, kind)
        to_used(s, kind)
        log(s, L.EV_PLAY_ITEM, seat, kind, 0, 0, 0, ev)
        if when == L.W_AFTER_ROLL:
            s[L.G_DEC + (L.DEC_SHOE_OWN if seat == s[L.G_ACTIVE] else L.DEC_SHOE_OTHER)] += 1
        else:
            s[L.G_DEC + L.DEC_FOOT_CARDS] += 1
        if when == L.W_AFTER_ROLL:
            for i in range(T[o + 6]):
                row = TB.O_EFF + (T[o + 5] + i) * L.EW
                if T[row + L.E_OP] == L.OP_EXTRA_MOVE and race_ok(T, row, s[b + L.P_RACE]):
                    s[L.G_EXTRA] += T[row + L.E_N]
        else:
            push(s, T[o + 5], T[o + 6])
            resolve(s, T, ev, legal, rng, pp, seat)


@inlined
def movement_choices(s, T, legal, r, bl):
    """The legal results of a movement roll (QM-MOVE-04..08): two numbers
    move their sum; a number and a symbol, either; two symbols, one of them
    (or neither with toggle ``two_symbols_may_pass``, QM-GAP-26). A Yellow
    Bird Shoe is played after this choice and transforms it (shoe_move)."""
    n = 0
    if r > 0 and bl > 0:
        legal[0] = L.A_MOVE * OPB + r + bl
        return 1
    if r > 0 or bl > 0:
        num = r if r > 0 else bl
        sym = -bl if r > 0 else -r
        n = add_legal(legal, n, L.A_MOVE * OPB + num)
        n = add_legal(legal, n, L.A_SYMBOL * OPB + sym)
        return n
    n = add_legal(legal, n, L.A_SYMBOL * OPB - r)
    n = add_legal(legal, n, L.A_SYMBOL * OPB - bl)
    if T[TB.P_T_TWO_SYMBOLS_PASS]:
        n = add_legal(legal, n, L.A_STAY * OPB)
    return n


@kernel
def shoe_move(c, extra):
    """The movement choice ``c`` once Yellow Bird Shoes have added ``extra``
    squares (QM-RULING-07..09, QM-GAP-49): a move of k squares becomes k +
    extra; a symbol taken (or staying) becomes a move of ``extra`` squares
    instead, so the symbol is not carried out. No other result is left."""
    if extra <= 0:
        return c
    if c // OPB == L.A_MOVE:
        return c + extra
    return L.A_MOVE * OPB + extra


@inlined
def shoe_windows(s, T, ev, legal, rng, pp, seat):
    """After the roller's movement choice, "when any player has finished
    rolling the dice" (QM-RULING-07, QM-GAP-49): the roller may play Yellow
    Bird Shoes, then (toggle ``shoe_any_player``) every other player holding
    one, in turn order from the roller; each adds 1 square to this roll's
    movement (``G_EXTRA``)."""
    if holds_foot_card(s, T, seat, L.W_AFTER_ROLL):
        foot_window(s, T, ev, legal, rng, pp, seat, L.W_AFTER_ROLL, L.CTX_AFTER_ROLL)
    if T[TB.P_T_SHOE_ANY]:
        np_ = s[L.G_NP]
        for k in range(1, np_):
            p = (seat + k) % np_
            if s[pb(p) + L.P_ALIVE] and not over(s) and holds_foot_card(s, T, p, L.W_AFTER_ROLL):
                foot_window(s, T, ev, legal, rng, pp, p, L.W_AFTER_ROLL, L.CTX_AFTER_ROLL)


@inlined
def turn_to_choice(s, T, ev, legal, rng, pp, seat):
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
    log(s, L.EV_TURN, seat, s[b + L.P_HP], s[b + L.P_POS], s[L.G_NSNAP] - 1, 0, ev)
    if holds_foot_card(s, T, seat, L.W_BEFORE_ROLL):
        foot_window(s, T, ev, legal, rng, pp, seat, L.W_BEFORE_ROLL, L.CTX_BEFORE_ROLL)
    if over(s) or not s[b + L.P_ALIVE]:
        return 0
    r = roll(T, rng, L.DIE_RED)
    bl = roll(T, rng, L.DIE_BLUE)
    s[L.G_DIE_RED] = r
    s[L.G_DIE_BLUE] = bl
    log(s, L.EV_ROLL, seat, r, bl, 0, 0, ev)
    return movement_choices(s, T, legal, r, bl)


@inlined
def after_choice(s, T, ev, legal, rng, pp, seat, c):
    """The rest of a turn once movement choice ``c`` is made: Yellow Bird
    Shoes (shoe_windows, shoe_move), the move, cards after moving, the square
    (QM-TURN-01/03/04); or the symbol taken."""
    b = pb(seat)
    log(s, L.EV_CHOICE, seat, c // OPB, c % OPB, 0, 0, ev)
    s[L.G_MOVE_CHOICE] = c
    shoe_windows(s, T, ev, legal, rng, pp, seat)
    if s[L.G_EXTRA] > 0:
        c = shoe_move(c, s[L.G_EXTRA])
        log(s, L.EV_EXTRA_MOVE, seat, s[L.G_EXTRA], c % OPB, 0, 0, ev)
    kind = c // OPB
    if kind == L.A_STAY:
        s[L.G_DEC + L.DEC_STAY] += 1
    elif kind == L.A_SYMBOL and (s[L.G_DIE_RED] > 0 or s[L.G_DIE_BLUE] > 0):
        s[L.G_DEC + L.DEC_SYMBOL] += 1
    if kind == L.A_MOVE:
        _pos, warped = walk(s, T, ev, legal, rng, pp, seat, np.int64(c % OPB))
        s[L.G_CHAIN] = 0    # the chain guard counts card moves from here on
        if holds_foot_card(s, T, seat, L.W_AFTER_MOVE):
            foot_window(s, T, ev, legal, rng, pp, seat, L.W_AFTER_MOVE, L.CTX_AFTER_MOVE)
        if over(s) or not s[b + L.P_ALIVE]:
            return
        # an after-move card that moved the pawn has already resolved the
        # square it reached; otherwise the square the dice reached takes effect
        if not warped and s[L.G_CHAIN] == 0:
            land(s, T, ev, legal, rng, pp, seat, np.int64(s[b + L.P_POS]), np.int64(0))
    elif kind == L.A_SYMBOL:
        sym = c % OPB
        push(s, T[TB.O_SYMBOL + 2 * sym], T[TB.O_SYMBOL + 2 * sym + 1])
    resolve(s, T, ev, legal, rng, pp, seat)


@inlined
def take_turn(s, T, ev, legal, rng, pp, seat):
    """One turn (QM-TURN-01): cards before the roll, the roll and its
    choice, Shoes after the roll, cards after moving, the square."""
    n = turn_to_choice(s, T, ev, legal, rng, pp, seat)
    if n == 0:
        return
    c = ask(s, T, legal, n, rng, pp, seat, L.CTX_MOVE, 0)
    after_choice(s, T, ev, legal, rng, pp, seat, c)


# ------------------------------------------------------------ set-up, game --

@kernel
def build_deck(s, T, rng, deck, nk, o, width, maxn):
    n = 0
    for k in range(nk):
        for _ in range(T[o + k * width]):
            if n < maxn:
                s[deck + n] = k
                n += 1
    shuffle(rng, STREAM_SETUP, s[deck:deck + n], n)
    return n


@needs_nrt
def setup(s, T, ev, legal, rng, pp, players, chars, policies, logging):
    """Set up a game (QM-SETUP-01..09): characters (drawn at random where
    ``chars[i] < 0``, each at most once; QM-GAP-08), Hp, the home castle,
    one Item card each, the start roll (both dice, symbols 0, ties re-roll
    among the tied; QM-GAP-03) and seat order from the winner (QM-GAP-04)."""
    s[:] = 0
    s[L.G_LOG] = logging
    s[L.G_NP] = players
    s[L.G_WINNER] = -1
    s[L.G_DUEL_A] = -1
    s[L.G_DUEL_D] = -1
    nch = T[TB.P_NCH]
    taken = np.zeros(nch, np.int32)
    for p in range(players):
        if chars[p] >= 0:
            taken[chars[p]] = 1
    for p in range(players):
        c = chars[p]
        if c < 0:
            free = nch - int(taken.sum())
            k = randint(rng, STREAM_SETUP, free)
            for c2 in range(nch):
                if taken[c2] == 0:
                    if k == 0:
                        c = c2
                        break
                    k -= 1
            taken[c] = 1
        b = pb(p)
        ch = TB.O_CHAR + c * TB.CH
        s[b + L.P_CHAR] = c
        s[b + L.P_RACE] = T[ch + TB.C_RACE]
        s[b + L.P_HP] = T[ch + TB.C_HP]
        s[b + L.P_MAX_HP] = T[ch + TB.C_HP]
        s[b + L.P_ALIVE] = 1
        s[b + L.P_POS] = T[TB.O_HOME + s[b + L.P_RACE]]
        s[b + L.P_POLICY] = policies[p]
        s[b + L.P_ELIM_ROUND] = -1
        if T[TB.P_T_START_HOME]:
            s[b + L.P_CASTLES] = 1 << T[TB.O_SQ_CASTLE + s[b + L.P_POS]]
    s[L.G_ITEM_N] = build_deck(s, T, rng, L.G_ITEM_DECK, T[TB.P_NIK], TB.O_ITEM, TB.IK, L.MAX_ITEM_CARDS)
    s[L.G_EVENT_N] = build_deck(s, T, rng, L.G_EVENT_DECK, T[TB.P_NEK], TB.O_EVENT, TB.EK, L.MAX_EVENT_CARDS)
    log(s, L.EV_SETUP, -1, players, 0, 0, 0, ev)
    for _ in range(T[TB.P_START_ITEMS]):
        for p in range(players):
            draw_item(s, T, ev, legal, rng, pp, p)
    # start roll: highest total first; the tied re-roll among themselves
    tied = np.ones(players, np.int32)
    while True:
        best = -1
        score = np.full(players, -1, np.int32)
        for p in range(players):
            if tied[p]:
                t = 0
                f0, f1 = 0, 0      # the faces as rolled (0: that die is not rolled)
                for d in range(T[TB.P_START_DICE]):
                    f = roll(T, rng, d)
                    if d == 0:
                        f0 = f
                    else:
                        f1 = f
                    t += f if f > 0 else T[TB.P_START_SYMBOL]
                score[p] = t
                log(s, L.EV_START_ROLL, p, t, f0, f1, 0, ev)
                if t > best:
                    best = t
        k = 0
        for p in range(players):
            tied[p] = 1 if score[p] == best else 0
            k += tied[p]
        if k == 1:
            break
    for p in range(players):
        if tied[p]:
            s[L.G_FIRST] = p
    for p in range(players):
        s[pb(p) + L.P_TURNPOS] = (p - s[L.G_FIRST]) % players
    # a what-if compensation for the last player (0 in the rulebook's game)
    for _ in range(T[TB.P_LAST_EXTRA_ITEMS]):
        draw_item(s, T, ev, legal, rng, pp, (s[L.G_FIRST] + players - 1) % players)


@kernel
def finish_round(s, T, ev, legal, rng, pp, seat):
    """The turns of this round after ``seat``'s (for resuming a copied game)."""
    np_ = s[L.G_NP]
    k0 = (seat - s[L.G_FIRST]) % np_
    for k in range(k0 + 1, np_):
        p = (s[L.G_FIRST] + k) % np_
        if s[pb(p) + L.P_ALIVE] and not over(s):
            take_turn(s, T, ev, legal, rng, pp, p)


@kernel
def snapshot(s, snaps):
    """Replay only: keep a copy of the whole state (the position at the start
    of a turn) in the next row of ``snaps``; the turn's log record names it."""
    k = s[L.G_NSNAP]
    if k < snaps.shape[0]:
        s[L.G_NSNAP] = k + 1
        for i in range(s.shape[0]):      # an element loop: a slice copy would need NRT
            snaps[k, i] = s[i]


@kernel
def play(s, T, ev, legal, rng, pp, snaps):
    """Rounds of turns in seat order from the first player, skipping the
    eliminated, until a win or the safety cap (its own outcome). With
    logging on, each turn starts with a snapshot (replay)."""
    np_ = s[L.G_NP]
    while not over(s):
        if s[L.G_ROUND] >= T[TB.P_CAP_ROUNDS]:
            s[L.G_WIN] = L.WIN_CAP
            break
        s[L.G_ROUND] += 1
        for k in range(np_):
            p = (s[L.G_FIRST] + k) % np_
            if s[pb(p) + L.P_ALIVE] and not over(s):
                if s[L.G_LOG]:
                    snapshot(s, snaps)
                take_turn(s, T, ev, legal, rng, pp, p)


@kernel
def result_row(s, T, out):
    """The per-game result (layout.RESULT_COLUMNS), each column written by name (layout.RI_*)."""
    out[:] = -1
    out[L.RI_WIN_CONDITION] = s[L.G_WIN]
    w = s[L.G_WINNER]
    out[L.RI_WINNER_SEAT] = w
    out[L.RI_WINNER_POSITION] = s[pb(w) + L.P_TURNPOS] if w >= 0 else -1
    out[L.RI_WINNER_CHARACTER] = s[pb(w) + L.P_CHAR] if w >= 0 else -1
    out[L.RI_ROUNDS] = s[L.G_ROUND]
    out[L.RI_TURNS] = s[L.G_TURNS]
    out[L.RI_DUELS] = s[L.G_DUELS]
    out[L.RI_ATTACKS] = s[L.G_ATTACKS]
    out[L.RI_ELIMINATED] = s[L.G_ELIMINATED]
    out[L.RI_FIRST_SEAT] = s[L.G_FIRST]
    out[L.RI_ILLEGAL_CHOICES] = s[L.G_ILLEGAL]
    for p in range(s[L.G_NP]):
        b = pb(p)
        out[L.RI_CHAR1 + p] = s[b + L.P_CHAR]
        out[L.RI_HP1 + p] = s[b + L.P_HP]
        k = 0
        for i in range(T[TB.P_NCASTLES]):
            k += (s[b + L.P_CASTLES] >> i) & 1
        out[L.RI_CASTLES1 + p] = k
        out[L.RI_POS1 + p] = s[b + L.P_TURNPOS]
    for i in range(L.NDEC):
        out[L.RES_DEC + i] = s[L.G_DEC + i]


@njit(cache=True)
def run_batch(seed, first, n, players, chars, policies, pp, T, out):
    """Play games ``first .. first+n-1`` of ``seed`` into ``out`` rows."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    ev = np.zeros((1, L.EV_COLS), np.int32)
    snaps = np.zeros((1, L.STATE_SIZE), np.int32)     # never written: logging is off
    for j in range(n):
        seed_streams(seed, first + j, rng)
        setup(s, T, ev, legal, rng, pp, players, chars, policies, 0)
        play(s, T, ev, legal, rng, pp, snaps)
        result_row(s, T, out[j])


@njit(cache=True)
def play_logged(seed, game, players, chars, policies, pp, T, ev, snaps, final_state):
    """Play one game with its event log and a snapshot of the state at the
    start of every turn (``snaps`` rows); returns the number of events."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    seed_streams(seed, game, rng)
    setup(s, T, ev, legal, rng, pp, players, chars, policies, 1)
    play(s, T, ev, legal, rng, pp, snaps)
    final_state[:] = s
    return s[L.G_LOGN]
