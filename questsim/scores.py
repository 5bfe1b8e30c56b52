"""What Quest Master's greedy and planner weigh, in Item cards: a card's
and a square's worth, a fight's odds, an Event's expected worth over the
deck, a shield's or an attack card's value, and the parts behaviour v3 added
(aimed fights, thrifty defence, a warp weighed by where the walk ends),
each switched on by its parameter. The policies themselves, their ids and
parameters are in ``policies``."""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .core import pb


# The parameters added since behaviour v2, the same block after each scoring
# policy's own (greedy's at pp[2:8], the planner's at pp[4:10]): the five of
# behaviour v3, then ``sure`` (v5: sure wins taken, no attack into a sure
# block); each at 0 leaves that part of the play exactly as in behaviour v2
# (tests/questmaster/test_qm_planner.py).
NEW_PARAMS = ("aim", "kill", "shoe_keep", "thrift", "path", "sure")
K_AIM, K_KILL, K_SHOE, K_THRIFT, K_PATH, K_SURE = range(len(NEW_PARAMS))


@inlined
def card_value(T, kind):
    """Rough worth of an Item card: the sum of its effect amounts (a shield +5
    beats a +2; a Phoenix's revival counts its Hp), summed once by the
    tables (``tables._item_worth``), less 0.3 a point of its cost."""
    o = TB.O_ITEM + kind * TB.IK
    return float(T[o + TB.IK_WORTH]) - 0.3 * T[o + TB.IK_COST]


@inlined
def strength(s, T, seat):
    """Hp plus the worth of the combat cards in hand: a crude fighting power
    (inlined: a few additions, asked for every seat whenever a fight is
    weighed, cheaper than a call that passes both arrays)."""
    b = pb(seat)
    v = float(s[b + L.S_HP])
    for i in range(s[b + L.S_HAND_N]):
        v += 0.5 * card_value(T, s[b + L.S_HAND + i])
    return v


@inlined
def weakest_opponent(s, T, seat):
    best, who = 1e9, -1
    for p in range(np.int64(s[L.G_NP])):      # int64 seats, as every other caller passes: one compile each
        if p != seat and s[pb(p) + L.S_ALIVE]:
            v = strength(s, T, p)
            if v < best:
                best, who = v, p
    return who, best


@kernel
def forward(T, pos, k):
    """The square ``k`` steps ahead along the first branch (for scoring only)."""
    for _ in range(k):
        pos = T[TB.O_NEXT + pos * TB.MAX_NEXT]
    return pos


@kernel
def dist_to_new_castle(s, T, seat, pos):
    """Steps forward to the nearest castle not yet landed on (first branch)."""
    b = pb(seat)
    n = T[TB.P_N_SQUARES]
    for k in range(n + 1):
        if T[TB.O_SQ_KIND + pos] == L.SQ_CASTLE and (s[b + L.S_CASTLES] >> T[TB.O_SQ_CASTLE + pos]) & 1 == 0:
            return k
        pos = T[TB.O_NEXT + pos * TB.MAX_NEXT]
    return n


@kernel
def fight_value(s, T, seat, pp):
    who, opp = weakest_opponent(s, T, seat)
    if who < 0:
        return -1.0
    return (strength(s, T, seat) - opp - pp[0]) / 5.0


# Worth in Item cards (the unit of every score here): an Item card is about
# 2 Hp (the castles' provenance counts it so), so 1 Hp is 0.5; being knocked
# out loses the game, which outweighs any card or castle.
HP_WORTH = 0.5
KNOCKED_OUT = 10.0
# what a Yellow Bird Shoe kept in hand is worth (its +1 square on a later
# roll of one's own), against playing it on another player's roll
SHOE_KEEP = 1.0


@kernel
def has_revive(s, T, seat):
    """Whether ``seat`` holds a card played when its Hp would reach 0 (Phoenix)."""
    b = pb(seat)
    for i in range(s[b + L.S_HAND_N]):
        if T[TB.O_ITEM + s[b + L.S_HAND + i] * TB.IK + TB.IK_WHEN] == L.W_HP_ZERO:
            return True
    return False


@kernel
def holds_shoe(s, T, seat):
    """Whether ``seat`` holds a card played after a movement roll (Yellow Bird Shoe)."""
    b = pb(seat)
    for i in range(s[b + L.S_HAND_N]):
        if T[TB.O_ITEM + s[b + L.S_HAND + i] * TB.IK + TB.IK_WHEN] == L.W_AFTER_ROLL:
            return True
    return False


@inlined
def hp_loss_value(hp, revive, n):
    """Worth of losing ``n`` Hp from ``hp``: its Hp, or being knocked out
    (unless a Phoenix, ``revive``, would save the player: then the card and
    most of the Hp are what is lost)."""
    if n >= hp:
        return -1.0 - HP_WORTH * 5 if revive else -KNOCKED_OUT
    return -HP_WORTH * n


@inlined
def basic_value(s, T, seat, row, pp, hp, hand_n, revive, fv):
    """Expected worth to ``seat`` (Hp ``hp``, ``hand_n`` cards, a Phoenix
    ``revive``, fight value ``fv``) of one board effect row that needs no
    further list (a die-rolling Hp effect is averaged over the die's faces):
    Hp gained or lost (losing all of it is being knocked out), cards drawn
    or discarded, a fight, an Event card opened (0.4, what the shipped deck
    is worth on average), a move (0: where it ends is unknown)."""
    m = T[row + L.E_RACES]
    if m != 0 and (m >> s[pb(seat) + L.S_RACE]) & 1 == 0:
        return 0.0
    op = T[row + L.E_OP]
    n = T[row + L.E_N]
    arg = T[row + L.E_ARG]
    if op == L.EK_GAIN_HP:
        if arg == L.ET_OTHERS:
            return 0.0
        if hp + n > T[TB.P_WIN_HP_ABOVE]:
            return KNOCKED_OUT           # a win
        return HP_WORTH * n
    if op == L.EK_LOSE_HP:
        if arg == L.ET_OTHERS:
            return 0.0
        return hp_loss_value(hp, revive, n)
    if op == L.EK_GAIN_HP_DIE or op == L.EK_LOSE_HP_DIE:
        nf = T[TB.P_N_FACES_RED + arg]
        v = 0.0
        for i in range(nf):
            f = T[TB.O_FACES + arg * TB.MAX_FACES + i]
            x = f if f > 0 else n
            v += HP_WORTH * x if op == L.EK_GAIN_HP_DIE else hp_loss_value(hp, revive, x)
        return v / nf
    if op == L.EK_DRAW_ITEM:
        return n * (1.0 if hand_n < T[TB.P_HAND_LIMIT] else 0.3)
    if op == L.EK_DISCARD_ITEM:
        return -1.0 * min(n, hand_n)
    if op == L.EK_FIGHT:
        return fv
    if op == L.EK_OPEN_EVENT:
        return 0.4 * n
    return 0.0


@kernel
def home_value(s, T, seat, pp, hp, hand_n, revive, fv):
    """Worth to ``seat`` of being sent home: the home castle's own (lower)
    ability, and the castle itself if not yet landed on."""
    b = pb(seat)
    home = T[TB.O_HOME + s[b + L.S_RACE]]
    c = T[TB.O_SQ_CASTLE + home]
    v = 0.5 + (pp[1] if (s[b + L.S_CASTLES] >> c) & 1 == 0 else 0.0)
    start, count = T[TB.O_CASTLE_LOW + 2 * c], T[TB.O_CASTLE_LOW + 2 * c + 1]
    for j in range(count):
        v += basic_value(s, T, seat, TB.O_EFF + (start + j) * L.EW, pp, hp, hand_n, revive, fv)
    return v


@kernel
def event_value(s, T, seat, pp, fv):
    """Expected worth to ``seat`` of opening an Event card, over the deck's
    composition (the counts in the ruleset; the order of the cards is
    hidden): used for Event squares, the bomb symbol and whether to decline
    an optional Event square. About 0.4 for a healthy player with the
    shipped deck; well below 0 when a trap could knock the player out. The
    deck's outcomes come weighted from the tables (tables.O_EV), so this is
    one pass over a few rows. ``fv`` is ``seat``'s fight_value, which the
    caller computes once for the whole decision (a fight's worth is also
    asked of its sword squares and symbol)."""
    b = pb(seat)
    hp, hand_n = s[b + L.S_HP], s[b + L.S_HAND_N]
    revive = has_revive(s, T, seat)
    v = 0.0
    for i in range(T[TB.O_EV + TB.EV_N]):
        row = TB.O_EV + 2 + i * L.EW
        w = T[row + TB.EV_W]
        if T[row + L.E_OP] == L.EK_GO_HOME:
            v += w * home_value(s, T, seat, pp, hp, hand_n, revive, fv)
        else:
            v += w * basic_value(s, T, seat, row, pp, hp, hand_n, revive, fv)
    return v / T[TB.O_EV + TB.EV_DEN]


@kernel
def square_value(s, T, seat, sq, pp, evv, fv):
    """What landing on ``sq`` is worth to ``seat`` (``evv``: event_value,
    computed by the caller once per decision where an Event card may open;
    ``fv``: fight_value, likewise where a fight may start: outcome_draws)."""
    kind = T[TB.O_SQ_KIND + sq]
    b = pb(seat)
    if kind == L.SQ_CASTLE:
        new = (s[b + L.S_CASTLES] >> T[TB.O_SQ_CASTLE + sq]) & 1 == 0
        return (pp[1] if new else 0.0) + 0.5
    if kind == L.SQ_ITEM:
        return 1.0 if s[b + L.S_HAND_N] < T[TB.P_HAND_LIMIT] else 0.3
    if kind == L.SQ_EVENT:
        return evv
    if kind == L.SQ_SWORD:
        return fv
    if kind == L.SQ_WARP:
        return 0.2
    return 0.0


@kernel
def with_shoe(c, extra):
    """Movement result ``c`` once Shoes add ``extra`` squares: a move gets
    longer, a symbol (or staying) becomes a move of ``extra`` squares (the
    engine's shoe_move, repeated here so policies do not import the engine)."""
    if extra <= 0:
        return c
    if L.code_op(c) == L.A_MOVE:
        return c + extra
    return L.code(L.A_MOVE, extra)


@kernel
def symbol_value(s, T, seat, sym, pp, evv, fv):
    """What taking symbol ``sym`` (1 sword, 2 bomb, 3 chest) instead of
    moving is worth to ``seat`` (``evv``, ``fv``: as for square_value)."""
    if sym == 1:
        return fv
    if sym == 3:
        return 1.0 if s[pb(seat) + L.S_HAND_N] < T[TB.P_HAND_LIMIT] else 0.3
    return evv


# what weighing a movement result asks for beyond its square (outcome_draws)
DRAWS_EVENT, DRAWS_FIGHT = 1, 2


@kernel
def outcome_draws(s, T, seat, c):
    """Whether movement result ``c`` of ``seat`` opens an Event card (a move
    onto an Event square, or the bomb symbol: ``DRAWS_EVENT``) or starts a
    fight (a move onto a sword square, or the sword symbol:
    ``DRAWS_FIGHT``), as bits: what its worth needs of event_value and
    fight_value."""
    kind, arg = L.code_op(c), L.code_arg(c)
    if kind == L.A_MOVE:
        sq = T[TB.O_SQ_KIND + forward(T, s[pb(seat) + L.S_POS], arg)]
        return DRAWS_EVENT if sq == L.SQ_EVENT else (DRAWS_FIGHT if sq == L.SQ_SWORD else 0)
    if kind == L.A_SYMBOL:
        return DRAWS_EVENT if arg == 2 else (DRAWS_FIGHT if arg == 1 else 0)
    return 0


@kernel
def square_draws(event_kind, kind):
    """The outcome_draws bits of ending on a square of kind ``kind`` where an
    Event card opens if ``event_kind`` is an Event square's."""
    return (DRAWS_EVENT if event_kind == L.SQ_EVENT else 0) | (DRAWS_FIGHT if kind == L.SQ_SWORD else 0)


@kernel
def draws_values(s, T, seat, pp, draws):
    """``(event_value, fight_value)`` of ``seat`` for a decision whose
    results ``draws`` (outcome_draws bits, or-ed), each 0 when no result
    needs it: each evaluated once a decision, at most."""
    fv = fight_value(s, T, seat, pp) if draws != 0 else 0.0
    evv = event_value(s, T, seat, pp, fv) if draws & DRAWS_EVENT else 0.0
    return evv, fv


@kernel
def move_values(s, T, seat, legal, n, pp, shoe):
    """draws_values for a movement decision: what any result on offer (or
    what a Shoe would make of it) needs."""
    draws = 0
    for i in range(n):
        draws |= outcome_draws(s, T, seat, legal[i])
        if shoe:
            draws |= outcome_draws(s, T, seat, with_shoe(legal[i], 1))
    return draws_values(s, T, seat, pp, draws)


@kernel
def outcome_value(s, T, seat, c, pp, evv, fv):
    """Greedy's worth to ``seat`` of movement result ``c`` (a move, a
    symbol, or staying) from its own square (``evv``, ``fv``: as for
    square_value)."""
    kind, arg = L.code_op(c), L.code_arg(c)
    if kind == L.A_MOVE:
        sq = forward(T, s[pb(seat) + L.S_POS], arg)
        return square_value(s, T, seat, sq, pp, evv, fv) - 0.02 * dist_to_new_castle(s, T, seat, sq)
    if kind == L.A_SYMBOL:
        return symbol_value(s, T, seat, arg, pp, evv, fv)
    return 0.0


@inlined
def shield_option(s, T, seat, i, at, fresh):
    """Cost and shield of defence option ``i`` of ``seat``: a hand card
    (i < hand size) or a defend ability; cost -1 if it cannot shield now
    (``fresh``: in a combat not yet begun, every ability unused)."""
    b = pb(seat)
    nh = s[b + L.S_HAND_N]
    if i < nh:
        o = TB.O_ITEM + s[b + L.S_HAND + i] * TB.IK
        if T[o + TB.IK_COLOUR] != 1 or (T[o + TB.IK_SYMBOL] != L.IS_SHIELD and T[o + TB.IK_SYMBOL] != L.IS_SWORD_SHIELD):
            return -1, 0
        cost, start, count = T[o + TB.IK_COST], T[o + TB.IK_EFF], T[o + TB.IK_EFF_N]
    else:
        ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
        o = ch + TB.C_AB + TB.AB * (i - nh)
        if T[o + TB.AB_WHEN] != 1 or (not fresh and s[b + L.S_ABIL + i - nh] >= T[o + TB.AB_PER_COMBAT]):
            return -1, 0
        cost, start, count = T[o + TB.AB_COST], T[o + TB.AB_EFF], T[o + TB.AB_EFF_N]
    sh = 0
    for j in range(count):
        row = TB.O_EFF + (start + j) * L.EW
        if T[row + L.E_OP] == L.EK_SHIELD:
            sh += T[row + L.E_N]
        elif T[row + L.E_OP] == L.EK_ABSORB:
            sh += at
    return (cost, sh) if sh > 0 else (-1, 0)


@inlined
def best_shield(s, T, seat, mp, at, fresh):
    """``_best_shield`` with one type per argument (its callers pass seats,
    Mp and At read from the state as int32 or computed as int64, and a
    literal flag), so that numba compiles it once rather than four times."""
    return _best_shield(s, T, np.int64(seat), np.int64(mp), np.int64(at), np.bool_(fresh))


@kernel
def _best_shield(s, T, seat, mp, at, fresh):
    """The most of an At ``at`` attack that ``seat`` could stop with ``mp``
    Mp: the shield cards and defend abilities whose costs fit together (every
    combination of up to 10 of them tried; an absorbing card stops it all),
    capped at ``at`` (``fresh``: as shield_option)."""
    b = pb(seat)
    total = s[b + L.S_HAND_N] + T[TB.O_CHAR + s[b + L.S_CHAR] * TB.CH + TB.C_NAB]
    cand, k = 0, 0
    for i in range(total):
        cost, _sh = shield_option(s, T, seat, i, at, fresh)
        if cost >= 0 and cost <= mp and k < 10:
            cand |= 1 << i
            k += 1
    best = 0
    sub = cand
    while sub > 0:
        cost, sh = 0, 0
        for i in range(total):
            if (sub >> i) & 1:
                c_i, s_i = shield_option(s, T, seat, i, at, fresh)
                cost += c_i
                sh += s_i
        if cost <= mp and sh > best:
            best = sh
        sub = (sub - 1) & cand
    return min(best, at)


@kernel
def next_attack_at(s, T, seat, mp):
    """The At of the strongest paid attack ``seat`` can pay with ``mp`` Mp
    (0: it cannot pay for one)."""
    ch = TB.O_CHAR + s[pb(seat) + L.S_CHAR] * TB.CH
    best = 0
    for k in range(T[ch + TB.C_NATT]):
        if T[ch + TB.C_ATT + 2 * k] <= mp and T[ch + TB.C_ATT + 2 * k + 1] > best:
            best = T[ch + TB.C_ATT + 2 * k + 1]
    return best


@kernel
def attack_choice_value(s, T, seat, c):
    """Worth (in Hp) of a paid-attack decision ``c``: attack with option k,
    or decline (QM-DUEL-11). Attacking deals the attack's At less what the
    opponent's Mp can shield; it spends Mp the player may need to shield the
    opponent's next attack. Declining keeps that Mp, but the opponent still
    attacks while it can pay (toggle attacker_continues_after_decline; when
    false, declining ends the combat and spares the player the rest). An
    attack that knocks the opponent out, or a hit that would knock the
    player out, outweighs the rest."""
    b = pb(seat)
    opp = np.int64(s[L.G_DUEL_D] if s[L.G_DUEL_A] == seat else s[L.G_DUEL_A])
    ob = pb(opp)
    mp, omp = s[b + L.S_MP], s[ob + L.S_MP]
    threat = 0 if s[ob + L.S_OUT] else next_attack_at(s, T, opp, omp)
    if L.code_op(c) == L.A_DECLINE:
        if threat == 0 or not T[TB.P_ATTACKER_CONTINUES_AFTER_DECLINE]:
            return 0.0
        hit = threat - best_shield(s, T, seat, mp, threat, False)
        return -100.0 if hit >= s[b + L.S_HP] and not has_revive(s, T, seat) else -float(hit)
    ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
    k = L.code_arg(c)
    cost, at = T[ch + TB.C_ATT + 2 * k], T[ch + TB.C_ATT + 2 * k + 1]
    dmg = at - best_shield(s, T, opp, omp, at, False)
    if dmg >= s[ob + L.S_HP] and not has_revive(s, T, opp):
        return 100.0
    hit = threat - best_shield(s, T, seat, mp - cost, threat, False) if threat > 0 else 0
    if hit >= s[b + L.S_HP] and not has_revive(s, T, seat):
        return dmg - 100.0
    return float(dmg - hit)


# ---- behaviour v3: aimed fights, thrifty defence, warps weighed by where the
# walk ends (each switched on by its parameter; 0 is the play of v2)

@kernel
def effect_applies(s, T, seat, row):
    """Whether effect ``row`` applies to ``seat``'s race (a race-worded card)."""
    m = T[row + L.E_RACES]
    return m == 0 or (m >> s[pb(seat) + L.S_RACE]) & 1 == 1


@inlined
def attack_option(s, T, seat, i):
    """Cost and At bonus of attack option ``i`` of ``seat`` in a combat not
    yet begun: a hand card (i < hand size) or an attack ability; cost -1 if
    it adds no At."""
    b = pb(seat)
    nh = s[b + L.S_HAND_N]
    if i < nh:
        o = TB.O_ITEM + s[b + L.S_HAND + i] * TB.IK
        if T[o + TB.IK_COLOUR] != 1 or (T[o + TB.IK_SYMBOL] != L.IS_SWORD and T[o + TB.IK_SYMBOL] != L.IS_SWORD_SHIELD):
            return -1, 0
        cost, start, count = T[o + TB.IK_COST], T[o + TB.IK_EFF], T[o + TB.IK_EFF_N]
    else:
        o = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH + TB.C_AB + TB.AB * (i - nh)
        if T[o + TB.AB_WHEN] != 0:
            return -1, 0
        cost, start, count = T[o + TB.AB_COST], T[o + TB.AB_EFF], T[o + TB.AB_EFF_N]
    bonus = 0
    for j in range(count):
        row = TB.O_EFF + (start + j) * L.EW
        if T[row + L.E_OP] == L.EK_ATTACK_BONUS and effect_applies(s, T, seat, row):
            bonus += T[row + L.E_N]
    return (cost, bonus) if bonus > 0 else (-1, 0)


@kernel
def best_attack(s, T, seat, mp):
    """The most At ``seat`` can add to an attack with ``mp`` Mp: the attack
    cards and abilities whose costs fit together (every combination of up to
    10 of them), as best_shield does for a defence."""
    b = pb(seat)
    total = s[b + L.S_HAND_N] + T[TB.O_CHAR + s[b + L.S_CHAR] * TB.CH + TB.C_NAB]
    cand, k = 0, 0
    for i in range(total):
        cost, _a = attack_option(s, T, seat, i)
        if cost >= 0 and cost <= mp and k < 10:
            cand |= 1 << i
            k += 1
    best = 0
    sub = cand
    while sub > 0:
        cost, a = 0, 0
        for i in range(total):
            if (sub >> i) & 1:
                c_i, a_i = attack_option(s, T, seat, i)
                cost += c_i
                a += a_i
        if cost <= mp and a > best:
            best = a
        sub = (sub - 1) & cand
    return best


@kernel
def attack_bound(s, T, seat):
    """The At all of ``seat``'s attack cards and abilities add together,
    whatever they cost: no Mp pays for more (best_attack's bound)."""
    b = pb(seat)
    total = s[b + L.S_HAND_N] + T[TB.O_CHAR + s[b + L.S_CHAR] * TB.CH + TB.C_NAB]
    ub = 0
    for i in range(total):
        cost, a = attack_option(s, T, seat, i)
        if cost >= 0:
            ub += a
    return ub


@kernel
def kill_chance(s, T, seat, p):
    """Chance that ``seat``'s compulsory free attack of a new combat knocks
    ``p`` out: over the Mp dice (the attacker's red, the defender's blue,
    QM-GAP-30), the free At plus the attack cards and abilities the
    attacker's Mp pays for, less the most ``p``'s Mp and cards can shield;
    0 when ``p`` holds a Phoenix."""
    if has_revive(s, T, p):
        return 0.0
    hp = s[pb(p) + L.S_HP]
    at0 = T[TB.O_CHAR + s[pb(seat) + L.S_CHAR] * TB.CH + TB.C_AT]
    if at0 + attack_bound(s, T, seat) < hp:
        return 0.0          # no face can pay for enough At: every face below fails its first test
    nr, nb = T[TB.P_N_FACES_RED], T[TB.P_N_FACES_RED + 1]
    k = 0
    last_mp, last_at = -1, 0
    for i in range(nr):
        f = T[TB.O_FACES + i]
        mp = (f if f > 0 else T[TB.P_MP_SYMBOL_VALUE]) - T[TB.P_FREE_ATTACK_COST]
        if mp < 0:
            continue
        if mp != last_mp:          # faces with the same Mp (the two swords) pay for the same attack
            last_mp, last_at = mp, at0 + best_attack(s, T, seat, mp)
        at = last_at
        if at < hp:
            continue
        for j in range(nb):
            g = T[TB.O_FACES + TB.MAX_FACES + j]
            if at - best_shield(s, T, p, g if g > 0 else T[TB.P_MP_SYMBOL_VALUE], at, True) >= hp:
                k += 1
    return k / (nr * nb)


@kernel
def danger(s, T, p):
    """How near opponent ``p`` is to winning, 0 to 2: the share of the
    castles it has landed on, squared, plus its share of the Hp win, squared
    (squares, so that the player one castle or a few Hp from a win stands
    out from the field)."""
    c = castles_of(s, T, p) / T[TB.P_CASTLES_TO_WIN]
    h = min(1.0, s[pb(p) + L.S_HP] / (T[TB.P_WIN_HP_ABOVE] + 1.0))
    return c * c + h * h


@kernel
def aim_value(s, T, seat, p, pp, o):
    """What fighting ``p`` is worth beyond weakness (parameters at ``pp[o:]``):
    ``aim`` × its danger, plus ``kill`` × the chance to knock it out now,
    worth more the nearer it was to winning."""
    d = danger(s, T, p)
    v = pp[o + K_AIM] * d
    if pp[o + K_KILL] > 0:
        v += pp[o + K_KILL] * kill_chance(s, T, seat, p) * (1.0 + d)
    return v


@kernel
def defend_value(s, T, seat, c, thrift):
    """Worth (in Item cards) of defence choice ``c`` against the attack being
    resolved: the Hp it saves (0 once the attack is stopped: absorbed, or its
    At no more than the Shield), being kept in the game if it turns a knock
    out into a hit, any Hp or card it gives, less ``thrift`` × what a card is
    worth kept for a later combat; done is worth 0, so a shield that cannot
    matter is never paid for."""
    kind, arg = L.code_op(c), L.code_arg(c)
    if kind == L.A_DONE:
        return 0.0
    b = pb(seat)
    remaining = 0 if s[L.G_DUEL_ABSORB] >= 0 else max(0, s[L.G_DUEL_AT] - s[L.G_DUEL_SHIELD])
    if kind == L.A_PLAY:
        o = TB.O_ITEM + arg * TB.IK
        cost, start, count = T[o + TB.IK_COST], T[o + TB.IK_EFF], T[o + TB.IK_EFF_N]
        keep = thrift * HP_WORTH * card_value(T, arg)
    else:
        o = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH + TB.C_AB + TB.AB * arg
        cost, start, count = T[o + TB.AB_COST], T[o + TB.AB_EFF], T[o + TB.AB_EFF_N]
        keep = 0.0                       # an ability comes back next combat
    sh, heal, cards, absorb = 0, 0, 0, False
    for j in range(count):
        row = TB.O_EFF + (start + j) * L.EW
        if not effect_applies(s, T, seat, row):
            continue
        op = T[row + L.E_OP]
        if op == L.EK_SHIELD:
            sh += T[row + L.E_N]
        elif op == L.EK_ABSORB:
            absorb = True
        elif op == L.EK_GAIN_HP:
            heal += T[row + L.E_N]
        elif op == L.EK_DRAW_ITEM:
            cards += T[row + L.E_N]
    if absorb:
        saved = remaining
    elif T[TB.P_SHIELDS_STACK]:
        saved = min(sh, remaining)
    else:
        saved = min(remaining, max(0, sh - s[L.G_DUEL_SHIELD]))
    hp = s[b + L.S_HP]
    v = HP_WORTH * saved + cards - keep - 0.01 * cost
    v += KNOCKED_OUT if hp + heal > T[TB.P_WIN_HP_ABOVE] else HP_WORTH * heal
    if not has_revive(s, T, seat) and remaining >= hp and remaining - saved < hp + heal:
        v += KNOCKED_OUT
    return v


@kernel
def attack_kills(s, T, seat):
    """Whether the attack ``seat`` is making already knocks the defender out
    through the most its Mp and cards can shield (no Phoenix): an attack
    card added then is wasted."""
    opp = np.int64(s[L.G_DUEL_D] if s[L.G_DUEL_A] == seat else s[L.G_DUEL_A])
    if s[L.G_DUEL_ABSORB] >= 0 or has_revive(s, T, opp):
        return False
    at = s[L.G_DUEL_AT]
    return at - best_shield(s, T, opp, s[pb(opp) + L.S_MP], at, False) >= s[pb(opp) + L.S_HP]


@kernel
def walk_end(s, T, seat):
    """At a warp decision: the square the walk reaches if it goes on
    (``G_WALK_LEFT`` squares, negative: back; first branches)."""
    pos = s[pb(seat) + L.S_POS]
    left = s[L.G_WALK_LEFT]
    if left >= 0:
        return forward(T, pos, left)
    for _ in range(-left):
        pos = T[TB.O_PRED + pos * TB.MAX_PRED]
    return pos


@kernel
def castles_of(s, T, seat):
    k = 0
    for i in range(T[TB.P_N_CASTLES]):
        k += (s[pb(seat) + L.S_CASTLES] >> i) & 1
    return k

