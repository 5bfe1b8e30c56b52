"""What a choice is worth on the rules alone: the judge behind the blunder
counters (layout.BLUNDERS, docs/questmaster/results.md).

- A choice *wins at once* when the rules make the win certain from what the
  chooser knows (the state of the table and its own hand), with no die left
  to roll and no other player's choice left to make: its pawn can end the
  move on the last castle it lacks (QM-END-04), or on a castle whose ability
  surely takes its Hp above ``win_hp_above`` (QM-END-05), by its own choices
  at forks, warps passed (declined) and its own Yellow Bird Shoes
  (QM-SQUARE-08, QM-RULING-07, QM-GAP-02, QM-GAP-49); or a card or ability
  it plays surely takes its Hp above ``win_hp_above`` (QM-END-05,
  QM-RULING-04).
- A defender *declines a free defence* when it ends its defence while a
  defend ability it can pay for would still lessen the damage or give Hp,
  its Mp being of no other use (the same test: it cannot attack after this
  attack); an ability, unlike a card, is not kept for later.
- An attack is *surely blocked* when the defender can absorb it with a
  character ability printed on its card (the Ghost's Vanish: QM-CHAR-05,
  QM-DUEL-06, QM-GAP-13) and the Mp the block costs is Mp the defender could
  not use anyway: it cannot pay for an attack of its own after this one, so
  the combat ends with this attack (QM-DUEL-12, QM-GAP-31, QM-GAP-35).

The rule kernels count a blunder as each decision is carried out (``turn``,
``movement``, ``combat``); greedy and the planner call the same judge, so
they take a sure win and keep their attack cards out of a sure block. It
reads the state only, and imports neither the rule kernels nor the
policies (both import it).
"""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB



@kernel
def _pb(seat):
    return L.G_P + seat * L.PS


@kernel
def _applies(T, row, race):
    m = T[row + L.E_RACES]
    return m == 0 or (m >> race) & 1 == 1


@kernel
def sure_gain(T, start, count, race):
    """The Hp an effect list surely gives (a die's least face; a symbol
    counting as the row says) before anything in it could cost Hp or move
    the pawn: gains, and draws, which cannot; it stops at any other row."""
    g = 0
    for i in range(count):
        row = TB.O_EFF + (start + i) * L.EW
        if not _applies(T, row, race):
            continue
        op = T[row + L.E_OP]
        if op == L.EK_GAIN_HP:
            if T[row + L.E_ARG] != L.ET_OTHERS:
                g += T[row + L.E_N]
        elif op == L.EK_GAIN_HP_DIE:
            die = T[row + L.E_ARG]
            lo = 1 << 20
            for j in range(T[TB.P_N_FACES_RED + die]):
                f = T[TB.O_FACES + die * TB.MAX_FACES + j]
                v = f if f > 0 else T[row + L.E_N]
                if v < lo:
                    lo = v
            g += lo
        elif op != L.EK_DRAW_ITEM:
            break
    return g


@kernel
def combat_gain(T, start, count, race):
    """The Hp a combat card or ability surely gives when played (its Hp
    rows: the only board effect combat applies at once, combat.combat_effects)."""
    g = 0
    for i in range(count):
        row = TB.O_EFF + (start + i) * L.EW
        if _applies(T, row, race) and T[row + L.E_OP] == L.EK_GAIN_HP:
            g += T[row + L.E_N]
    return g


@kernel
def castle_count(T, mask):
    """Castles in a landed-castles bit mask."""
    k = 0
    for i in range(T[TB.P_N_CASTLES]):
        k += (mask >> i) & 1
    return k


@kernel
def gain_bounds(s, T):
    """Store in ``G_BL_GAIN`` the most Hp any castle ability surely gives
    and (``+ 1``) the most any card or character ability surely gives, for
    the races at the table: upper bounds read at every decision, computed
    once a game when the characters are seated."""
    castle = 0
    card = 0
    seen = 0                # the races already weighed: the bounds depend on the race alone
    for p in range(s[L.G_NP]):
        race = s[_pb(p) + L.S_RACE]
        if (seen >> race) & 1:
            continue
        seen |= 1 << race
        for c in range(T[TB.P_N_CASTLES]):
            for o in (TB.O_CASTLE_LOW, TB.O_CASTLE_UP):
                castle = max(castle, sure_gain(T, T[o + 2 * c], T[o + 2 * c + 1], race))
        for k in range(T[TB.P_N_ITEM_KINDS]):
            o = TB.O_ITEM + k * TB.IK
            card = max(card, sure_gain(T, T[o + TB.IK_EFF], T[o + TB.IK_EFF_N], race), combat_gain(T, T[o + TB.IK_EFF], T[o + TB.IK_EFF_N], race))
        for ch in range(T[TB.P_N_CHARACTERS]):
            chb = TB.O_CHAR + ch * TB.CH
            for k in range(T[chb + TB.C_NAB]):
                o = chb + TB.C_AB + TB.AB * k
                card = max(card, combat_gain(T, T[o + TB.AB_EFF], T[o + TB.AB_EFF_N], race))
    s[L.G_BL_GAIN] = castle
    s[L.G_BL_GAIN + 1] = card


@inlined
def near_win(s, T, seat):
    """Whether any landing could win at once for ``seat``: it lacks one
    castle, or some castle ability could take its Hp above the win (a cheap
    test before the walk is searched)."""
    b = _pb(seat)
    if castle_count(T, s[b + L.S_CASTLES]) + 1 >= T[TB.P_CASTLES_TO_WIN]:
        return True
    return s[b + L.S_HP] + s[L.G_BL_GAIN] > T[TB.P_WIN_HP_ABOVE]


@kernel
def lands_win(s, T, seat, sq, by_card):
    """Whether ``seat``'s pawn ending its move on ``sq`` wins at once: the
    last castle it lacks (QM-END-04; reached by a card's move only under
    ``card_moves_mark_castles``, QM-GAP-42), or a castle whose ability (upper
    or lower by race, QM-CARD-15) surely takes its Hp above the win
    (QM-END-05). Never when a pawn there would be fought first (toggle
    ``landing_on_player_fights``, QM-GAP-24): the fight is not certain."""
    if T[TB.O_SQ_KIND + sq] != L.SQ_CASTLE:
        return False
    b = _pb(seat)
    if T[TB.P_LANDING_ON_PLAYER_FIGHTS]:
        for p in range(s[L.G_NP]):
            if p != seat and s[_pb(p) + L.S_ALIVE] and s[_pb(p) + L.S_POS] == sq:
                return False
    c = T[TB.O_SQ_CASTLE + sq]
    if by_card == 0 or T[TB.P_CARD_MOVES_MARK_CASTLES]:
        if castle_count(T, s[b + L.S_CASTLES] | (1 << c)) >= T[TB.P_CASTLES_TO_WIN]:
            return True
    race = s[b + L.S_RACE]
    o = TB.O_CASTLE_LOW if T[TB.O_CASTLE_RACE + c] == race else TB.O_CASTLE_UP
    return s[b + L.S_HP] + sure_gain(T, T[o + 2 * c], T[o + 2 * c + 1], race) > T[TB.P_WIN_HP_ABOVE]


@kernel
def reach_wins(s, T, seat, pos, steps, by_card):
    """Whether a walk of ``steps`` squares from ``pos`` (negative: back) can
    end, by the walker's own choice at every fork and declining every warp
    it passes, on a square where it wins at once (lands_win). The squares
    the walk may be on are kept as a bit set (two words: at most 128
    squares)."""
    back = steps < 0
    k = -steps if back else steps
    # the walk is followed square by square while it has one way on (the
    # common case, and on a board without forks the only one); the bit set
    # starts at the first fork
    single = pos
    while k > 0:
        if back:
            n, base = T[TB.O_PRED_N + single], TB.O_PRED + single * TB.MAX_PRED
        else:
            n, base = T[TB.O_NEXT_N + single], TB.O_NEXT + single * TB.MAX_NEXT
        if n != 1:
            break
        single = T[base]
        k -= 1
    if k == 0:
        return lands_win(s, T, seat, single, by_card)
    one = np.int64(1)
    lo, hi = np.int64(0), np.int64(0)
    if single < 64:
        lo = one << single
    else:
        hi = one << (single - 64)
    nsq = T[TB.P_N_SQUARES]
    for _ in range(k):
        nlo, nhi = np.int64(0), np.int64(0)
        for q in range(nsq):
            on = (lo >> q) & 1 if q < 64 else (hi >> (q - 64)) & 1
            if on == 0:
                continue
            if back:
                n, base = T[TB.O_PRED_N + q], TB.O_PRED + q * TB.MAX_PRED
            else:
                n, base = T[TB.O_NEXT_N + q], TB.O_NEXT + q * TB.MAX_NEXT
            for j in range(n):
                r = T[base + j]
                if r < 64:
                    nlo |= one << r
                else:
                    nhi |= one << (r - 64)
        lo, hi = nlo, nhi
    for q in range(nsq):
        on = (lo >> q) & 1 if q < 64 else (hi >> (q - 64)) & 1
        if on and lands_win(s, T, seat, q, by_card):
            return True
    return False


@inlined
def shoe_extra(T, kind, race):
    """Squares a card adds to a movement roll (a Yellow Bird Shoe's 1; 0 for
    any other card)."""
    o = TB.O_ITEM + kind * TB.IK
    if T[o + TB.IK_WHEN] != L.W_AFTER_ROLL:
        return 0
    x = 0
    for j in range(T[o + TB.IK_EFF_N]):
        row = TB.O_EFF + (T[o + TB.IK_EFF] + j) * L.EW
        if T[row + L.E_OP] == L.EK_EXTRA_MOVE and _applies(T, row, race):
            x += T[row + L.E_N]
    return x


@kernel
def shoe_sums(s, T, seat, skip):
    """The squares ``seat``'s Shoes in hand can add to its roll, as a bit set
    of sums (bit 0: none played); one card of kind ``skip`` left out (-1: none)."""
    b = _pb(seat)
    race = s[b + L.S_RACE]
    sums = np.int64(1)
    skipped = False
    for i in range(s[b + L.S_HAND_N]):
        kind = s[b + L.S_HAND + i]
        if kind == skip and not skipped:
            skipped = True
            continue
        x = shoe_extra(T, kind, race)
        if 0 < x < 32:
            sums |= sums << x
    return sums & ((np.int64(1) << 40) - 1)


@kernel
def roll_wins(s, T, seat, c, sums):
    """Whether movement result ``c`` (a move, a symbol, staying; QM-MOVE-04..08)
    wins at once once the roller adds any of the Shoe sums ``sums``: a move
    of k squares becomes k + e, a symbol or staying a move of e squares
    (QM-RULING-07..09, QM-GAP-49)."""
    kind, arg = L.code_op(c), L.code_arg(c)
    pos = s[_pb(seat) + L.S_POS]
    e = -1
    rest = sums << 1
    while e < 39:           # the sums' bits, up to the highest set (usually bit 0 alone)
        e += 1
        rest >>= 1
        if rest == 0:
            break
        if rest & 1 == 0:
            continue
        if kind == L.A_MOVE:
            steps = arg + e
        elif e == 0:
            continue
        else:
            steps = e
        if reach_wins(s, T, seat, pos, steps, 0):
            return True
    return False


@kernel
def others_may_shoe(s, T, seat):
    """Whether another player could still change ``seat``'s roll: with toggle
    ``shoe_any_player`` any holder may play a Shoe on it (QM-GAP-49), and
    another player's hand is hidden, so any card in it may be one."""
    if not T[TB.P_SHOE_ANY_PLAYER]:
        return False
    for p in range(s[L.G_NP]):
        if p != seat and s[_pb(p) + L.S_ALIVE] and s[_pb(p) + L.S_HAND_N] > 0:
            return True
    return False


@inlined
def may_win(s, T, seat, ctx):
    """Whether any choice of ``seat`` at decision ``ctx`` could win at once:
    a cheap test of what every option of a movement decision shares (the
    pawn near a win, no other player able to change the roll, the roller's
    own Shoe), asked once per decision rather than once per option
    (inlined into its three callers: at most decisions it is all they do)."""
    if ctx == L.CTX_MOVE or ctx == L.CTX_AFTER_ROLL:
        if ctx == L.CTX_AFTER_ROLL and seat != s[L.G_ACTIVE]:
            return False
        return near_win(s, T, seat) and not others_may_shoe(s, T, seat)
    if ctx == L.CTX_FORK or ctx == L.CTX_WARP:
        return near_win(s, T, seat)
    hp = s[_pb(seat) + L.S_HP]
    if ctx == L.CTX_BEFORE_ROLL or ctx == L.CTX_AFTER_MOVE:
        return hp + s[L.G_BL_GAIN + 1] > T[TB.P_WIN_HP_ABOVE]
    if ctx == L.CTX_ATTACK_CARDS or ctx == L.CTX_DEFEND:
        # an absorb that gives Hp adds the attack's At (at most twice)
        return hp + s[L.G_BL_GAIN + 1] + 2 * max(s[L.G_DUEL_AT], 0) > T[TB.P_WIN_HP_ABOVE]
    # a target, a paid attack, a discard, an optional square: no option of
    # these wins at once (_option_wins), so none is looked at
    return False


@kernel
def option_wins(s, T, seat, ctx, c):
    """Whether legal code ``c`` of ``seat`` at decision ``ctx`` wins at once
    (``_option_wins`` behind the test ``may_win``)."""
    return may_win(s, T, seat, ctx) and _option_wins(s, T, seat, ctx, c)


@kernel
def _option_wins(s, T, seat, ctx, c):
    """Whether legal code ``c`` of ``seat`` at decision ``ctx`` wins at once
    (see the module docstring). The movement choice (with the roller's
    Shoes), the roller's Shoe (what it and the Shoes left can make of the
    roll), a fork's step and a warp's refusal (what the rest of the walk can
    reach: ``G_WALK_LEFT``, ``G_WALK_CARD``), and a card or ability whose Hp
    surely passes the win; ``done`` in a defence only when an absorb already
    played gives the attack's At as Hp (QM-RULING-04)."""
    b = _pb(seat)
    kind, arg = L.code_op(c), L.code_arg(c)
    race = s[b + L.S_RACE]
    hp = s[b + L.S_HP]
    win = T[TB.P_WIN_HP_ABOVE]
    if ctx == L.CTX_MOVE:
        return roll_wins(s, T, seat, c, shoe_sums(s, T, seat, -1))
    if ctx == L.CTX_AFTER_ROLL:
        ch = s[L.G_MOVE_CHOICE]
        if kind == L.A_DONE:
            now = ch
            if s[L.G_EXTRA] > 0:
                now = L.code(L.A_MOVE, (L.code_arg(ch) if L.code_op(ch) == L.A_MOVE else 0) + s[L.G_EXTRA])
            return L.code_op(now) == L.A_MOVE and roll_wins(s, T, seat, now, np.int64(1))
        if kind != L.A_PLAY:
            return False
        extra = s[L.G_EXTRA] + shoe_extra(T, arg, race)
        if extra <= 0 and L.code_op(ch) != L.A_MOVE:
            return False
        now = L.code(L.A_MOVE, (L.code_arg(ch) if L.code_op(ch) == L.A_MOVE else 0) + extra)
        return roll_wins(s, T, seat, now, shoe_sums(s, T, seat, arg))
    if ctx == L.CTX_FORK:
        return reach_wins(s, T, seat, arg, s[L.G_WALK_LEFT], s[L.G_WALK_CARD])
    if ctx == L.CTX_WARP:
        # a warp stops the pawn on a Warp square, with no effect (QM-SQUARE-08)
        return kind == L.A_NO_WARP and \
            reach_wins(s, T, seat, s[b + L.S_POS], s[L.G_WALK_LEFT], s[L.G_WALK_CARD])
    if ctx == L.CTX_BEFORE_ROLL or ctx == L.CTX_AFTER_MOVE:
        if kind != L.A_PLAY:
            return False
        o = TB.O_ITEM + arg * TB.IK
        return hp + sure_gain(T, T[o + TB.IK_EFF], T[o + TB.IK_EFF_N], race) > win
    if ctx == L.CTX_ATTACK_CARDS or ctx == L.CTX_DEFEND:
        at = s[L.G_DUEL_AT]
        if kind == L.A_DONE:
            return ctx == L.CTX_DEFEND and s[L.G_DUEL_ABSORB] == L.GAIN_HP and hp + at > win
        if kind == L.A_PLAY:
            o = TB.O_ITEM + arg * TB.IK
            start, count = T[o + TB.IK_EFF], T[o + TB.IK_EFF_N]
        elif kind == L.A_ABILITY:
            o = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH + TB.C_AB + TB.AB * arg
            start, count = T[o + TB.AB_EFF], T[o + TB.AB_EFF_N]
        else:
            return False
        g = combat_gain(T, start, count, race)
        if ctx == L.CTX_DEFEND:
            if s[L.G_DUEL_ABSORB] == L.GAIN_HP:
                g += at
            for j in range(count):
                row = TB.O_EFF + (start + j) * L.EW
                if T[row + L.E_OP] == L.EK_ABSORB and _applies(T, row, race) and T[row + L.E_ARG] == L.GAIN_HP:
                    g += at
                    break
        return hp + g > win
    return False


@inlined
def winning_choice(s, T, legal, n, seat, ctx):
    """The first of ``legal[:n]`` that wins at once (option_wins), or -1.
    Inlined into the players that ask it at every decision: most decisions
    end at may_win's test, which costs less than a call."""
    if not may_win(s, T, seat, ctx):
        return -1
    return _first_win(s, T, legal, n, seat, ctx)


@kernel
def _first_win(s, T, legal, n, seat, ctx):
    """winning_choice's search, behind its test."""
    for i in range(n):
        if _option_wins(s, T, seat, ctx, legal[i]):
            return legal[i]
    return -1


@kernel
def declined_win(s, T, legal, n, seat, ctx, c):
    """Whether choosing ``c`` declines a win at once: ``c`` does not win and
    another of ``legal[:n]`` does. In a card window (cards before the roll or
    after the move, an attack's or a defence's cards) only closing it
    (``done``) declines: a card played first leaves the winning one playable
    in the same window."""
    windows = ctx == L.CTX_BEFORE_ROLL or ctx == L.CTX_AFTER_MOVE or ctx == L.CTX_ATTACK_CARDS or \
        ctx == L.CTX_DEFEND
    if windows and L.code_op(c) != L.A_DONE:
        return False
    if not may_win(s, T, seat, ctx) or _option_wins(s, T, seat, ctx, c):
        return False
    for i in range(n):
        if _option_wins(s, T, seat, ctx, legal[i]):
            return True
    return False


@kernel
def only_at(T, start, count, race):
    """Whether an effect list, played with one's own attack, adds nothing but
    At (combat.combat_effects: no Item card destroyed or drawn, no Hp)."""
    for i in range(count):
        row = TB.O_EFF + (start + i) * L.EW
        op = T[row + L.E_OP]
        if _applies(T, row, race) and (op == L.EK_DESTROY_ITEMS or op == L.EK_DRAW_ITEM or op == L.EK_GAIN_HP):
            return False
    return True


@kernel
def mp_spare(s, T, seat):
    """Whether the Mp ``seat`` holds now is of no use after the attack being
    made: it has not stopped attacking and cannot pay for any attack of its
    own, so it is due to attack next and cannot, which ends the combat
    (QM-DUEL-12, toggle ``lone_attacker_continues`` off), and Mp is lost at
    the end of a combat (QM-GAP-31)."""
    if T[TB.P_LONE_ATTACKER_CONTINUES]:
        return False
    b = _pb(seat)
    if s[b + L.S_OUT]:
        return False
    mp = s[b + L.S_MP]
    ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
    for k in range(T[ch + TB.C_NATT]):
        if T[ch + TB.C_ATT + 2 * k] <= mp:
            return False
    return True


@kernel
def holds_revive(s, T, seat):
    b = _pb(seat)
    for i in range(s[b + L.S_HAND_N]):
        if T[TB.O_ITEM + s[b + L.S_HAND + i] * TB.IK + TB.IK_WHEN] == L.W_HP_ZERO:
            return True
    return False


@kernel
def free_defence(s, T, seat):
    """Whether ``seat``, defending, still has a free defence: a defend
    ability of its character card, not used up this combat and within its
    Mp (QM-CHAR-05, QM-DUEL-06, QM-GAP-13), that would lessen the damage
    still to come (a shield, when shields stack or it beats the one played;
    an absorb) or give Hp, while its Mp is of no other use (mp_spare). An
    ability costs no card, only that Mp. Not when it holds a revival card
    and the damage to come would knock it out (a Phoenix could leave it
    with more Hp, QM-RULING-02)."""
    if not mp_spare(s, T, seat):
        return False
    b = _pb(seat)
    remaining = 0 if s[L.G_DUEL_ABSORB] >= 0 else max(0, s[L.G_DUEL_AT] - s[L.G_DUEL_SHIELD])
    if remaining >= s[b + L.S_HP] and holds_revive(s, T, seat):
        return False
    mp = s[b + L.S_MP]
    race = s[b + L.S_RACE]
    ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
    for k in range(T[ch + TB.C_NAB]):
        o = ch + TB.C_AB + TB.AB * k
        if T[o + TB.AB_WHEN] != 1 or T[o + TB.AB_COST] > mp or s[b + L.S_ABIL + k] >= T[o + TB.AB_PER_COMBAT]:
            continue
        for j in range(T[o + TB.AB_EFF_N]):
            row = TB.O_EFF + (T[o + TB.AB_EFF] + j) * L.EW
            if not _applies(T, row, race):
                continue
            op, n = T[row + L.E_OP], T[row + L.E_N]
            if op == L.EK_GAIN_HP and n > 0:
                return True
            if op == L.EK_SHIELD and n > 0 and remaining > 0 and \
                    (T[TB.P_SHIELDS_STACK] or n > s[L.G_DUEL_SHIELD]):
                return True
            if op == L.EK_ABSORB and s[L.G_DUEL_ABSORB] < 0 and (remaining > 0 or T[row + L.E_ARG] != L.GAIN_NONE):
                return True
    return False


@kernel
def sure_block(s, T, dfn):
    """Whether the attack being made on ``dfn`` is surely blocked, from what
    the table shows: ``dfn``'s character card has a defend ability that
    absorbs an attack, not used up this combat and within ``dfn``'s Mp (the
    Mp die and the abilities used are in the open; QM-DUEL-02, QM-GAP-13),
    and that Mp is of no other use: ``dfn`` has not stopped attacking and
    cannot pay for any attack of its own, so the combat ends after this
    attack (QM-DUEL-12, toggle ``lone_attacker_continues`` off; QM-GAP-31:
    Mp is lost at the end) and blocking costs it nothing. Not when its Hp
    is at most what a revival card gives (a Phoenix in its hidden hand
    would make a knock-out worth more than the block)."""
    # three tests, all of which must hold, cheapest and rarest first: an
    # absorbing ability on the card (most characters have none), its Mp of
    # no other use, no revival card that could be in the hand
    b = _pb(dfn)
    mp = s[b + L.S_MP]
    ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
    race = s[b + L.S_RACE]
    absorbs = False
    for k in range(T[ch + TB.C_NAB]):
        o = ch + TB.C_AB + TB.AB * k
        if T[o + TB.AB_WHEN] != 1 or T[o + TB.AB_COST] > mp or s[b + L.S_ABIL + k] >= T[o + TB.AB_PER_COMBAT]:
            continue
        for j in range(T[o + TB.AB_EFF_N]):
            row = TB.O_EFF + (T[o + TB.AB_EFF] + j) * L.EW
            if T[row + L.E_OP] == L.EK_ABSORB and _applies(T, row, race):
                absorbs = True
    if not absorbs or not mp_spare(s, T, dfn):
        return False
    if s[b + L.S_HAND_N] > 0:
        for kind in range(T[TB.P_N_ITEM_KINDS]):
            o = TB.O_ITEM + kind * TB.IK
            for j in range(T[o + TB.IK_EFF_N]):
                row = TB.O_EFF + (T[o + TB.IK_EFF] + j) * L.EW
                if T[row + L.E_OP] == L.EK_REVIVE and s[b + L.S_HP] <= T[row + L.E_N]:
                    return False
    return True


@kernel
def into_block(s, T, seat, dfn, c):
    """Whether attack choice ``c`` of ``seat`` (an Item card or an ability
    added to its attack) goes into a sure block and adds nothing but At
    (an Item card's At only when its bonus does not last the combat, toggle
    ``attack_bonus_lasts_combat``)."""
    kind, arg = L.code_op(c), L.code_arg(c)
    race = s[_pb(seat) + L.S_RACE]
    if kind == L.A_PLAY:
        if T[TB.P_ATTACK_BONUS_LASTS_COMBAT]:
            return False
        o = TB.O_ITEM + arg * TB.IK
        start, count = T[o + TB.IK_EFF], T[o + TB.IK_EFF_N]
    elif kind == L.A_ABILITY:
        o = TB.O_CHAR + s[_pb(seat) + L.S_CHAR] * TB.CH + TB.C_AB + TB.AB * arg
        start, count = T[o + TB.AB_EFF], T[o + TB.AB_EFF_N]
    else:
        return False
    return only_at(T, start, count, race) and sure_block(s, T, dfn)
