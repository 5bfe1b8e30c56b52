"""Quest Master player policies: numba functions that pick one of the legal
codes the engine generated (layout.A_* × OPB + argument). They read the
state, never change it, and draw randomness only from the policy stream.

- ``random`` (0): uniform over the legal choices.
- ``greedy`` (1): rules of thumb — land on castles not yet visited, take
  Item cards, open Event cards for their expected worth over the deck, fight
  when stronger, spend Mp on attack cards and shields, discard the weakest
  card. It weighs every option the rules give, declining ones included: an
  optional Event square, staying on two symbols, a warp, a paid attack
  whose Mp is better kept for a shield, a Yellow Bird Shoe on its own or
  another player's roll (docs/questmaster/policies.md). Parameters: ``aggression`` (how
  much stronger it must be to choose a fight; 0 = any time),
  ``castle_weight`` (worth of a new castle in Item cards), then the block
  issue 15 added (below).
- ``first`` (2): always the first legal code — a fixed, predictable player
  for tests and exact checks (it moves whenever it can, never warps).
- ``planner`` (3): greedy's scoring, plus a look-ahead on the castle race
  (the exact chance of landing on a new castle next turn from each square,
  and castles weighted by how near the player is to five) and duel targets
  by threat rather than weakness. Parameters: greedy's two, then
  ``lookahead`` (worth of a sure new castle next turn, in Item cards),
  ``threat`` (weight of an opponent's lead when choosing whom to fight),
  then the block.
- ``greedy_v2`` (4), ``planner_v2`` (5): the same two with the block at 0,
  which plays exactly as behaviour v2 did.

The block (each part off at 0): ``aim`` (fight the opponent nearest a win:
castles or Hp), ``kill`` (fight whom the free attack can knock out now),
``shoe_keep`` (a Yellow Bird Shoe's worth kept, weighed when choosing the
move with the Shoe and when playing it), ``thrift`` (a defence only when it
lessens the damage, a card only when the Hp it saves is worth more than
``thrift`` × its worth kept; no attack card once the attack already kills),
``path`` (a warp weighed against the square the walk would end on).
"""
import numpy as np

from simcore.fnptr import FAILED, FAILED_BIT, call_address
from simcore.jit import inlined, kernel, needs_nrt
from simcore.rng import STREAM_POLICY, randint
from . import layout as L
from . import tables as TB

OPB = L.OPB
POLICY_RANDOM, POLICY_GREEDY, POLICY_FIRST, POLICY_PLANNER, POLICY_GREEDY_V2, POLICY_PLANNER_V2 = range(6)
POLICY_PLUGIN = 100   # a plug-in policy, called through its entry point's address (simcore/fnptr.py)

# The parameters issue 15 added, the same block after each scoring policy's
# own (greedy's at pp[2:7], the planner's at pp[4:9]); each at 0 leaves that
# part of the play exactly as in behaviour v2 (tests/questmaster/test_qm_planner.py).
NEW_PARAMS = ("aim", "kill", "shoe_keep", "thrift", "path")
K_AIM, K_KILL, K_SHOE, K_THRIFT, K_PATH = range(len(NEW_PARAMS))
V2_OFF = (0.0,) * len(NEW_PARAMS)
GREEDY_PARAMS = ("aggression", "castle_weight") + NEW_PARAMS
PLANNER_PARAMS = ("aggression", "castle_weight", "lookahead", "threat") + NEW_PARAMS
GREEDY_NEW, PLANNER_NEW = 2, 4            # where the block starts in each vector
# the shipped defaults of the block: the NTBEA tuning runs of
# experiments/qm-greedy-tune.toml and qm-planner-tune.toml (one seat against
# three v2 players, four players; docs/questmaster/policies.md)
GREEDY_DEFAULTS = (0.0, 3.0) + (4.0, 0.0, 2.0, 0.5, 0.0)
PLANNER_DEFAULTS = (0.0, 3.0, 4.0, 1.0) + (1.0, 2.0, 2.0, 0.1, 1.0)
# (id, name, parameter names, defaults); greedy_v2 and planner_v2 are the
# same functions with the block at 0: the players of behaviour v2, kept so
# that a table can seat old and new side by side
BUILTIN_POLICIES = (
    (POLICY_RANDOM, "random", (), ()),
    (POLICY_GREEDY, "greedy", GREEDY_PARAMS, GREEDY_DEFAULTS),
    (POLICY_FIRST, "first", (), ()),
    (POLICY_PLANNER, "planner", PLANNER_PARAMS, PLANNER_DEFAULTS),
    (POLICY_GREEDY_V2, "greedy_v2", GREEDY_PARAMS, (0.0, 3.0) + V2_OFF),
    (POLICY_PLANNER_V2, "planner_v2", PLANNER_PARAMS, (0.0, 3.0, 4.0, 1.0) + V2_OFF),
)


@kernel
def pbase(seat):
    return L.G_P + seat * L.PS


@inlined
def card_value(T, kind):
    """Rough worth of an Item card: the sum of its effect amounts (a shield +5
    beats a +2; a Phoenix's revival counts its Hp)."""
    o = TB.O_ITEM + kind * TB.IK
    v = 0.0
    for i in range(T[o + 6]):
        row = TB.O_EFF + (T[o + 5] + i) * L.EW
        op = T[row + L.E_OP]
        if op == L.OP_ABSORB:
            v += 4.0
        elif op == L.OP_REVIVE:
            v += T[row + L.E_N] + 3.0
        else:
            v += T[row + L.E_N]
    return v - 0.3 * T[o + 3]


@kernel
def strength(s, T, seat):
    """Hp plus the worth of the combat cards in hand: a crude fighting power."""
    b = pbase(seat)
    v = float(s[b + L.P_HP])
    for i in range(s[b + L.P_HAND_N]):
        v += 0.5 * card_value(T, s[b + L.P_HAND + i])
    return v


@kernel
def weakest_opponent(s, T, seat):
    best, who = 1e9, -1
    for p in range(s[L.G_NP]):
        if p != seat and s[pbase(p) + L.P_ALIVE]:
            v = strength(s, T, np.int64(p))
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
    b = pbase(seat)
    n = T[TB.P_NSQ]
    for k in range(n + 1):
        if T[TB.O_SQ_KIND + pos] == L.SQ_CASTLE and (s[b + L.P_CASTLES] >> T[TB.O_SQ_CASTLE + pos]) & 1 == 0:
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
    b = pbase(seat)
    for i in range(s[b + L.P_HAND_N]):
        if T[TB.O_ITEM + s[b + L.P_HAND + i] * TB.IK + 4] == L.W_HP_ZERO:
            return True
    return False


@kernel
def holds_shoe(s, T, seat):
    """Whether ``seat`` holds a card played after a movement roll (Yellow Bird Shoe)."""
    b = pbase(seat)
    for i in range(s[b + L.P_HAND_N]):
        if T[TB.O_ITEM + s[b + L.P_HAND + i] * TB.IK + 4] == L.W_AFTER_ROLL:
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
    if m != 0 and (m >> s[pbase(seat) + L.P_RACE]) & 1 == 0:
        return 0.0
    op = T[row + L.E_OP]
    n = T[row + L.E_N]
    arg = T[row + L.E_ARG]
    if op == L.OP_GAIN_HP:
        if arg == L.TGT_OTHERS:
            return 0.0
        if hp + n > T[TB.P_WIN_HP]:
            return KNOCKED_OUT           # a win
        return HP_WORTH * n
    if op == L.OP_LOSE_HP:
        if arg == L.TGT_OTHERS:
            return 0.0
        return hp_loss_value(hp, revive, n)
    if op == L.OP_GAIN_HP_DIE or op == L.OP_LOSE_HP_DIE:
        nf = T[TB.P_NFACES_RED + arg]
        v = 0.0
        for i in range(nf):
            f = T[TB.O_FACES + arg * TB.MAX_FACES + i]
            x = f if f > 0 else n
            v += HP_WORTH * x if op == L.OP_GAIN_HP_DIE else hp_loss_value(hp, revive, x)
        return v / nf
    if op == L.OP_DRAW_ITEM:
        return n * (1.0 if hand_n < T[TB.P_HAND_LIMIT] else 0.3)
    if op == L.OP_DISCARD_ITEM:
        return -1.0 * min(n, hand_n)
    if op == L.OP_FIGHT:
        return fv
    if op == L.OP_OPEN_EVENT:
        return 0.4 * n
    return 0.0


@kernel
def home_value(s, T, seat, pp, hp, hand_n, revive, fv):
    """Worth to ``seat`` of being sent home: the home castle's own (lower)
    ability, and the castle itself if not yet landed on."""
    b = pbase(seat)
    home = T[TB.O_HOME + s[b + L.P_RACE]]
    c = T[TB.O_SQ_CASTLE + home]
    v = 0.5 + (pp[1] if (s[b + L.P_CASTLES] >> c) & 1 == 0 else 0.0)
    start, count = T[TB.O_CASTLE_LOW + 2 * c], T[TB.O_CASTLE_LOW + 2 * c + 1]
    for j in range(count):
        v += basic_value(s, T, seat, TB.O_EFF + (start + j) * L.EW, pp, hp, hand_n, revive, fv)
    return v


@kernel
def event_value(s, T, seat, pp):
    """Expected worth to ``seat`` of opening an Event card, over the deck's
    composition (the counts in the ruleset; the order of the cards is
    hidden): used for Event squares, the bomb symbol and whether to decline
    an optional Event square. About 0.4 for a healthy player with the
    shipped deck; well below 0 when a trap could knock the player out. The
    deck's outcomes come weighted from the tables (tables.O_EV), so this is
    one pass over a few rows."""
    b = pbase(seat)
    hp, hand_n = s[b + L.P_HP], s[b + L.P_HAND_N]
    revive = has_revive(s, T, seat)
    fv = fight_value(s, T, seat, pp)
    v = 0.0
    for i in range(T[TB.O_EV + TB.P_EV_N]):
        row = TB.O_EV + 2 + i * L.EW
        w = T[row + TB.EV_W]
        if T[row + L.E_OP] == L.OP_GO_HOME:
            v += w * home_value(s, T, seat, pp, hp, hand_n, revive, fv)
        else:
            v += w * basic_value(s, T, seat, row, pp, hp, hand_n, revive, fv)
    return v / T[TB.O_EV + TB.P_EV_DEN]


@kernel
def square_value(s, T, seat, sq, pp, evv):
    """What landing on ``sq`` is worth to ``seat`` (``evv``: event_value,
    computed by the caller once per decision where an Event card may open)."""
    kind = T[TB.O_SQ_KIND + sq]
    b = pbase(seat)
    if kind == L.SQ_CASTLE:
        new = (s[b + L.P_CASTLES] >> T[TB.O_SQ_CASTLE + sq]) & 1 == 0
        return (pp[1] if new else 0.0) + 0.5
    if kind == L.SQ_ITEM:
        return 1.0 if s[b + L.P_HAND_N] < T[TB.P_HAND_LIMIT] else 0.3
    if kind == L.SQ_EVENT:
        return evv
    if kind == L.SQ_SWORD:
        return fight_value(s, T, seat, pp)
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
    if c // OPB == L.A_MOVE:
        return c + extra
    return L.A_MOVE * OPB + extra


@kernel
def symbol_value(s, T, seat, sym, pp, evv):
    """What taking symbol ``sym`` (1 sword, 2 bomb, 3 chest) instead of
    moving is worth to ``seat`` (``evv``: as for square_value)."""
    if sym == 1:
        return fight_value(s, T, seat, pp)
    if sym == 3:
        return 1.0 if s[pbase(seat) + L.P_HAND_N] < T[TB.P_HAND_LIMIT] else 0.3
    return evv


@kernel
def opens_event(s, T, seat, c):
    """Whether movement result ``c`` of ``seat`` opens an Event card (a
    move onto an Event square, or the bomb symbol)."""
    kind, arg = c // OPB, c % OPB
    if kind == L.A_MOVE:
        return T[TB.O_SQ_KIND + forward(T, s[pbase(seat) + L.P_POS], arg)] == L.SQ_EVENT
    return kind == L.A_SYMBOL and arg == 2


@kernel
def move_event_value(s, T, seat, legal, n, pp, shoe):
    """event_value if any movement result on offer (or what a Shoe would
    make of it) opens an Event card, else 0: the one evaluation a decision
    needs, at most."""
    for i in range(n):
        if opens_event(s, T, seat, legal[i]) or (shoe and opens_event(s, T, seat, with_shoe(legal[i], 1))):
            return event_value(s, T, seat, pp)
    return 0.0


@kernel
def outcome_value(s, T, seat, c, pp, evv):
    """Greedy's worth to ``seat`` of movement result ``c`` (a move, a
    symbol, or staying) from its own square."""
    kind, arg = c // OPB, c % OPB
    if kind == L.A_MOVE:
        sq = forward(T, s[pbase(seat) + L.P_POS], arg)
        return square_value(s, T, seat, sq, pp, evv) - 0.02 * dist_to_new_castle(s, T, seat, sq)
    if kind == L.A_SYMBOL:
        return symbol_value(s, T, seat, arg, pp, evv)
    return 0.0


@inlined
def shield_option(s, T, seat, i, at, fresh):
    """Cost and shield of defence option ``i`` of ``seat``: a hand card
    (i < hand size) or a defend ability; cost -1 if it cannot shield now
    (``fresh``: in a combat not yet begun, every ability unused)."""
    b = pbase(seat)
    nh = s[b + L.P_HAND_N]
    if i < nh:
        o = TB.O_ITEM + s[b + L.P_HAND + i] * TB.IK
        if T[o + 1] != 1 or (T[o + 2] != L.IS_SHIELD and T[o + 2] != L.IS_SWORD_SHIELD):
            return -1, 0
        cost, start, count = T[o + 3], T[o + 5], T[o + 6]
    else:
        ch = TB.O_CHAR + s[b + L.P_CHAR] * TB.CH
        o = ch + TB.C_AB + 5 * (i - nh)
        if T[o] != 1 or (not fresh and s[b + L.P_ABIL + i - nh] >= T[o + 2]):
            return -1, 0
        cost, start, count = T[o + 1], T[o + 3], T[o + 4]
    sh = 0
    for j in range(count):
        row = TB.O_EFF + (start + j) * L.EW
        if T[row + L.E_OP] == L.OP_SHIELD:
            sh += T[row + L.E_N]
        elif T[row + L.E_OP] == L.OP_ABSORB:
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
    b = pbase(seat)
    total = s[b + L.P_HAND_N] + T[TB.O_CHAR + s[b + L.P_CHAR] * TB.CH + TB.C_NAB]
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
    ch = TB.O_CHAR + s[pbase(seat) + L.P_CHAR] * TB.CH
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
    b = pbase(seat)
    opp = np.int64(s[L.G_DUEL_D] if s[L.G_DUEL_A] == seat else s[L.G_DUEL_A])
    ob = pbase(opp)
    mp, omp = s[b + L.P_MP], s[ob + L.P_MP]
    threat = 0 if s[ob + L.P_OUT] else next_attack_at(s, T, opp, omp)
    if c // OPB == L.A_DECLINE:
        if threat == 0 or not T[TB.P_T_AFTER_DECLINE]:
            return 0.0
        hit = threat - best_shield(s, T, seat, mp, threat, False)
        return -100.0 if hit >= s[b + L.P_HP] and not has_revive(s, T, seat) else -float(hit)
    ch = TB.O_CHAR + s[b + L.P_CHAR] * TB.CH
    k = c % OPB
    cost, at = T[ch + TB.C_ATT + 2 * k], T[ch + TB.C_ATT + 2 * k + 1]
    dmg = at - best_shield(s, T, opp, omp, at, False)
    if dmg >= s[ob + L.P_HP] and not has_revive(s, T, opp):
        return 100.0
    hit = threat - best_shield(s, T, seat, mp - cost, threat, False) if threat > 0 else 0
    if hit >= s[b + L.P_HP] and not has_revive(s, T, seat):
        return dmg - 100.0
    return float(dmg - hit)


# ---- issue 15: aimed fights, thrifty defence, warps weighed by where the
# walk ends (each switched on by its parameter; 0 is the play of v2)

@kernel
def effect_applies(s, T, seat, row):
    """Whether effect ``row`` applies to ``seat``'s race (a race-worded card)."""
    m = T[row + L.E_RACES]
    return m == 0 or (m >> s[pbase(seat) + L.P_RACE]) & 1 == 1


@inlined
def attack_option(s, T, seat, i):
    """Cost and At bonus of attack option ``i`` of ``seat`` in a combat not
    yet begun: a hand card (i < hand size) or an attack ability; cost -1 if
    it adds no At."""
    b = pbase(seat)
    nh = s[b + L.P_HAND_N]
    if i < nh:
        o = TB.O_ITEM + s[b + L.P_HAND + i] * TB.IK
        if T[o + 1] != 1 or (T[o + 2] != L.IS_SWORD and T[o + 2] != L.IS_SWORD_SHIELD):
            return -1, 0
        cost, start, count = T[o + 3], T[o + 5], T[o + 6]
    else:
        o = TB.O_CHAR + s[b + L.P_CHAR] * TB.CH + TB.C_AB + 5 * (i - nh)
        if T[o] != 0:
            return -1, 0
        cost, start, count = T[o + 1], T[o + 3], T[o + 4]
    bonus = 0
    for j in range(count):
        row = TB.O_EFF + (start + j) * L.EW
        if T[row + L.E_OP] == L.OP_ATTACK_BONUS and effect_applies(s, T, seat, row):
            bonus += T[row + L.E_N]
    return (cost, bonus) if bonus > 0 else (-1, 0)


@kernel
def best_attack(s, T, seat, mp):
    """The most At ``seat`` can add to an attack with ``mp`` Mp: the attack
    cards and abilities whose costs fit together (every combination of up to
    10 of them), as best_shield does for a defence."""
    b = pbase(seat)
    total = s[b + L.P_HAND_N] + T[TB.O_CHAR + s[b + L.P_CHAR] * TB.CH + TB.C_NAB]
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
def kill_chance(s, T, seat, p):
    """Chance that ``seat``'s compulsory free attack of a new combat knocks
    ``p`` out: over the Mp dice (the attacker's red, the defender's blue,
    QM-GAP-30), the free At plus the attack cards and abilities the
    attacker's Mp pays for, less the most ``p``'s Mp and cards can shield;
    0 when ``p`` holds a Phoenix."""
    if has_revive(s, T, p):
        return 0.0
    hp = s[pbase(p) + L.P_HP]
    at0 = T[TB.O_CHAR + s[pbase(seat) + L.P_CHAR] * TB.CH + TB.C_AT]
    nr, nb = T[TB.P_NFACES_RED], T[TB.P_NFACES_RED + 1]
    k = 0
    for i in range(nr):
        f = T[TB.O_FACES + i]
        mp = (f if f > 0 else T[TB.P_MP_SYMBOL]) - T[TB.P_FREE_COST]
        if mp < 0:
            continue
        at = at0 + best_attack(s, T, seat, mp)
        if at < hp:
            continue
        for j in range(nb):
            g = T[TB.O_FACES + TB.MAX_FACES + j]
            if at - best_shield(s, T, p, g if g > 0 else T[TB.P_MP_SYMBOL], at, True) >= hp:
                k += 1
    return k / (nr * nb)


@kernel
def danger(s, T, p):
    """How near opponent ``p`` is to winning, 0 to 2: the share of the
    castles it has landed on, squared, plus its share of the Hp win, squared
    (squares, so that the player one castle or a few Hp from a win stands
    out from the field)."""
    c = castles_of(s, T, p) / T[TB.P_CASTLES_TO_WIN]
    h = min(1.0, s[pbase(p) + L.P_HP] / (T[TB.P_WIN_HP] + 1.0))
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
    kind, arg = c // OPB, c % OPB
    if kind == L.A_DONE:
        return 0.0
    b = pbase(seat)
    remaining = 0 if s[L.G_DUEL_ABSORB] >= 0 else max(0, s[L.G_DUEL_AT] - s[L.G_DUEL_SHIELD])
    if kind == L.A_PLAY:
        o = TB.O_ITEM + arg * TB.IK
        cost, start, count = T[o + 3], T[o + 5], T[o + 6]
        keep = thrift * HP_WORTH * card_value(T, arg)
    else:
        o = TB.O_CHAR + s[b + L.P_CHAR] * TB.CH + TB.C_AB + 5 * arg
        cost, start, count = T[o + 1], T[o + 3], T[o + 4]
        keep = 0.0                       # an ability comes back next combat
    sh, heal, cards, absorb = 0, 0, 0, False
    for j in range(count):
        row = TB.O_EFF + (start + j) * L.EW
        if not effect_applies(s, T, seat, row):
            continue
        op = T[row + L.E_OP]
        if op == L.OP_SHIELD:
            sh += T[row + L.E_N]
        elif op == L.OP_ABSORB:
            absorb = True
        elif op == L.OP_GAIN_HP:
            heal += T[row + L.E_N]
        elif op == L.OP_DRAW_ITEM:
            cards += T[row + L.E_N]
    if absorb:
        saved = remaining
    elif T[TB.P_T_SHIELDS_STACK]:
        saved = min(sh, remaining)
    else:
        saved = min(remaining, max(0, sh - s[L.G_DUEL_SHIELD]))
    hp = s[b + L.P_HP]
    v = HP_WORTH * saved + cards - keep - 0.01 * cost
    v += KNOCKED_OUT if hp + heal > T[TB.P_WIN_HP] else HP_WORTH * heal
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
    return at - best_shield(s, T, opp, s[pbase(opp) + L.P_MP], at, False) >= s[pbase(opp) + L.P_HP]


@kernel
def walk_end(s, T, seat):
    """At a warp decision: the square the walk reaches if it goes on
    (``G_WALK_LEFT`` squares, negative: back; first branches)."""
    pos = s[pbase(seat) + L.P_POS]
    left = s[L.G_WALK_LEFT]
    if left >= 0:
        return forward(T, pos, left)
    for _ in range(-left):
        pos = T[TB.O_PRED + pos * TB.MAX_PRED]
    return pos


@inlined
def greedy(s, T, legal, n, rng, pp, seat, o):
    """Score every legal code and take the best (ties: the first). The
    parameters issue 15 added start at ``pp[o]`` (greedy's own vector, or
    the planner's, which calls this for the decisions it leaves to greedy)."""
    b = pbase(seat)
    ctx = s[L.G_CTX]
    keep = pp[o + K_SHOE]
    shoe = ctx == L.CTX_MOVE and holds_shoe(s, T, seat)
    evv = move_event_value(s, T, seat, legal, n, pp, shoe) if ctx == L.CTX_MOVE else 0.0
    if ctx == L.CTX_SQUARE and s[L.G_CTX_ARG] == L.SQ_EVENT:
        evv = event_value(s, T, seat, pp)
    path = ctx == L.CTX_WARP and pp[o + K_PATH] > 0
    end = walk_end(s, T, seat) if path else 0
    if path and s[L.G_WALK_LEFT] != 0 and T[TB.O_SQ_KIND + end] == L.SQ_EVENT:
        evv = event_value(s, T, seat, pp)
    aim = ctx == L.CTX_TARGET and (pp[o + K_AIM] > 0 or pp[o + K_KILL] > 0)
    thrift = pp[o + K_THRIFT]
    kills = ctx == L.CTX_ATTACK_CARDS and thrift > 0 and attack_kills(s, T, seat)
    best, pick = -1e18, legal[0]
    for i in range(n):
        c = legal[i]
        kind, arg = c // OPB, c % OPB
        v = 0.0
        if ctx == L.CTX_MOVE:
            # each result (a move, a symbol, staying), or what a Shoe in hand
            # would make of it (number + 1, or 1 square instead of the
            # symbol), less the Shoe's worth kept (``shoe_keep``): the move
            # and the Shoe are chosen together, and after the roll the Shoe
            # is played by the same comparison
            v = outcome_value(s, T, seat, c, pp, evv)
            if shoe:
                v = max(v, outcome_value(s, T, seat, with_shoe(c, 1), pp, evv) - keep)
        elif path:
            # ``path``: a warp against where the walk would end (its square
            # takes effect); a warp, or ending on the warp square, has none
            if kind == L.A_NO_WARP and s[L.G_WALK_LEFT] != 0:
                v = square_value(s, T, seat, end, pp, evv) - 0.02 * dist_to_new_castle(s, T, seat, end)
            else:
                v = -0.02 * dist_to_new_castle(s, T, seat, end if kind == L.A_NO_WARP else arg)
        elif ctx == L.CTX_WARP or ctx == L.CTX_FORK:
            sq = s[b + L.P_POS] if kind == L.A_NO_WARP else arg
            v = -dist_to_new_castle(s, T, seat, sq)
        elif aim:
            # ``aim``, ``kill``: the opponent near a win or within reach of a
            # knock-out, weakness only breaking ties
            v = aim_value(s, T, seat, arg, pp, o) - strength(s, T, arg) / 40.0
        elif ctx == L.CTX_TARGET:
            v = -strength(s, T, arg)
        elif ctx == L.CTX_ATTACK:
            v = attack_choice_value(s, T, seat, c)
        elif ctx == L.CTX_SQUARE:
            # an optional Item or Event square (toggle square_cards_optional)
            if kind == L.A_PLAY:
                v = square_value(s, T, seat, s[b + L.P_POS], pp, evv)
            else:
                v = 0.0
        elif ctx == L.CTX_ATTACK_CARDS:
            if kind == L.A_PLAY:
                v = card_value(T, arg)
            elif kind == L.A_ABILITY:
                v = 1.0
            else:
                # with ``thrift``, an attack that already knocks the
                # defender out through its best shield gets no more cards
                v = 10.0 if kills else 0.5
        elif ctx == L.CTX_DEFEND:
            if thrift > 0:
                v = defend_value(s, T, seat, c, thrift)
            elif kind == L.A_DONE:
                v = 0.5 if s[L.G_DUEL_AT] - s[L.G_DUEL_SHIELD] > 0 else 10.0
            elif kind == L.A_PLAY:
                v = card_value(T, arg)
            else:
                v = 1.0
        elif ctx == L.CTX_DISCARD:
            v = -card_value(T, arg)
        elif ctx == L.CTX_BEFORE_ROLL or ctx == L.CTX_AFTER_MOVE:
            v = 1.0 if kind == L.A_PLAY else 0.0      # Hp and cards now are never worse
        elif ctx == L.CTX_AFTER_ROLL:
            if kind == L.A_PLAY:
                # a Shoe on the roll just made: on one's own, when the longer
                # move (or 1 square instead of the symbol) is worth more than
                # the Shoe kept (``shoe_keep``; 0: any gain); on another
                # player's, when it spoils the roller's choice by more than
                # the Shoe is worth kept (``shoe_keep``, or 1 when it is 0)
                roller = np.int64(s[L.G_ACTIVE])
                now = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA])
                then = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA] + 1)
                rev = event_value(s, T, roller, pp) \
                    if opens_event(s, T, roller, now) or opens_event(s, T, roller, then) else 0.0
                gain = outcome_value(s, T, roller, then, pp, rev) - outcome_value(s, T, roller, now, pp, rev)
                v = gain - keep if roller == seat else -gain - (keep if keep > 0 else SHOE_KEEP)
            else:
                v = 0.0
        if v > best:
            best, pick = v, c
    return pick


@kernel
def move_probs(T, out):
    """Exact chance of each number of squares moved in a turn by a player
    who moves whenever a number shows (both numbers: the sum)."""
    out[:] = 0.0
    nr, nb = T[TB.P_NFACES_RED], T[TB.P_NFACES_RED + 1]
    for i in range(nr):
        r = T[TB.O_FACES + i]
        for j in range(nb):
            bl = T[TB.O_FACES + TB.MAX_FACES + j]
            k = (r if r > 0 else 0) + (bl if bl > 0 else 0)
            out[k] += 1.0 / (nr * nb)


@kernel
def castle_chance(s, T, seat, sq, probs):
    """Chance that next turn's move from ``sq`` ends on a castle ``seat`` has
    not landed on yet."""
    b = pbase(seat)
    p = 0.0
    for k in range(1, probs.shape[0]):
        if probs[k] > 0:
            q = forward(T, sq, k)
            if T[TB.O_SQ_KIND + q] == L.SQ_CASTLE and (s[b + L.P_CASTLES] >> T[TB.O_SQ_CASTLE + q]) & 1 == 0:
                p += probs[k]
    return p


@kernel
def castles_of(s, T, seat):
    k = 0
    for i in range(T[TB.P_NCASTLES]):
        k += (s[pbase(seat) + L.P_CASTLES] >> i) & 1
    return k


@kernel
def threat(s, T, p):
    """How near opponent ``p`` is to winning: castles, and Hp towards 40."""
    return castles_of(s, T, p) / T[TB.P_CASTLES_TO_WIN] + s[pbase(p) + L.P_HP] / (T[TB.P_WIN_HP] + 1.0)


@kernel
def planner_square(s, T, seat, sq, pp, probs, need, evv):
    """The planner's worth of ending a move on ``sq``: greedy's, a castle
    weighted by how near the player is to five, plus the chance that next
    turn's roll lands on a new castle from there."""
    return square_value(s, T, seat, sq, pp, evv) * (1.0 + need * (T[TB.O_SQ_KIND + sq] == L.SQ_CASTLE)) \
        + pp[2] * (1.0 + need) * castle_chance(s, T, seat, sq, probs)


@kernel
def planner_outcome(s, T, seat, c, pp, probs, need, evv):
    """The planner's worth of movement result ``c``: greedy's, a castle
    weighted by how near the player is to five, plus the chance that next
    turn's roll lands on a new castle from where the pawn ends."""
    b = pbase(seat)
    kind, arg = c // OPB, c % OPB
    if kind == L.A_MOVE:
        return planner_square(s, T, seat, forward(T, s[b + L.P_POS], arg), pp, probs, need, evv)
    look = pp[2] * (1.0 + need) * castle_chance(s, T, seat, s[b + L.P_POS], probs)
    if kind == L.A_SYMBOL:
        return symbol_value(s, T, seat, arg, pp, evv) + look
    return look


@needs_nrt
def planner(s, T, legal, n, rng, pp, seat):
    """Greedy, with the castle race looked ahead and duels aimed (see the
    module docstring); falls back on greedy's choice where it adds nothing.
    The parameters issue 15 added start at ``pp[PLANNER_NEW]``."""
    o = PLANNER_NEW
    b = pbase(seat)
    ctx = s[L.G_CTX]
    keep = pp[o + K_SHOE]
    # with ``shoe_keep``, a Shoe on its own roll is weighed by the planner's
    # own scoring, the one that chose the move with it
    own_shoe = ctx == L.CTX_AFTER_ROLL and keep > 0 and s[L.G_ACTIVE] == seat
    if ctx != L.CTX_MOVE and ctx != L.CTX_WARP and ctx != L.CTX_FORK and ctx != L.CTX_TARGET and not own_shoe:
        return greedy(s, T, legal, n, rng, pp, seat, o)
    probs = np.zeros(16)
    move_probs(T, probs)
    need = castles_of(s, T, seat) / T[TB.P_CASTLES_TO_WIN]
    shoe = ctx == L.CTX_MOVE and holds_shoe(s, T, seat)
    evv = move_event_value(s, T, seat, legal, n, pp, shoe) if ctx == L.CTX_MOVE else 0.0
    path = ctx == L.CTX_WARP and pp[o + K_PATH] > 0
    end = walk_end(s, T, seat) if path else 0
    if path and s[L.G_WALK_LEFT] != 0 and T[TB.O_SQ_KIND + end] == L.SQ_EVENT:
        evv = event_value(s, T, seat, pp)
    gain = 0.0
    if own_shoe:
        now = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA])
        then = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA] + 1)
        evv = event_value(s, T, seat, pp) \
            if opens_event(s, T, seat, now) or opens_event(s, T, seat, then) else 0.0
        gain = planner_outcome(s, T, seat, then, pp, probs, need, evv) - \
            planner_outcome(s, T, seat, now, pp, probs, need, evv)
    best, pick = -1e18, legal[0]
    for i in range(n):
        c = legal[i]
        kind, arg = c // OPB, c % OPB
        v = 0.0
        if ctx == L.CTX_MOVE:
            # as greedy: a Shoe in hand offers number + 1, or 1 square
            # instead of the symbol, less its worth kept
            v = planner_outcome(s, T, seat, c, pp, probs, need, evv)
            if shoe:
                v = max(v, planner_outcome(s, T, seat, with_shoe(c, 1), pp, probs, need, evv) - keep)
        elif own_shoe:
            v = gain - keep if kind == L.A_PLAY else 0.0
        elif path:
            # ``path``: a warp (the pawn stops there, no effect) against the
            # square the walk would end on
            if kind == L.A_NO_WARP and s[L.G_WALK_LEFT] != 0:
                v = planner_square(s, T, seat, end, pp, probs, need, evv) \
                    - 0.01 * dist_to_new_castle(s, T, seat, end)
            else:
                sq = end if kind == L.A_NO_WARP else arg
                v = pp[2] * (1.0 + need) * castle_chance(s, T, seat, sq, probs) \
                    - 0.01 * dist_to_new_castle(s, T, seat, sq)
        elif ctx == L.CTX_WARP or ctx == L.CTX_FORK:
            sq = s[b + L.P_POS] if kind == L.A_NO_WARP else arg
            v = castle_chance(s, T, seat, sq, probs) - 0.01 * dist_to_new_castle(s, T, seat, sq)
        elif ctx == L.CTX_TARGET:
            # the leader, or whoever the free attack and a paid one could
            # finish; ``aim`` and ``kill`` add greedy's aimed terms
            hp = s[pbase(arg) + L.P_HP]
            v = pp[3] * threat(s, T, arg) - strength(s, T, arg) / 40.0 + (1.0 if hp <= 4 else 0.0)
            if pp[o + K_AIM] > 0 or pp[o + K_KILL] > 0:
                v += aim_value(s, T, seat, arg, pp, o)
        if v > best:
            best, pick = v, c
    return pick


@inlined
def decide(s, T, legal, n, rng, pp, seat):
    """Dispatch to seat's policy by its id in the state (``greedy_v2`` and
    ``planner_v2`` are greedy and the planner with their own defaults);
    ``pp`` is the seat's row of parameters."""
    policy = s[pbase(seat) + L.P_POLICY]
    if policy == POLICY_GREEDY or policy == POLICY_GREEDY_V2:
        return greedy(s, T, legal, n, rng, pp, seat, GREEDY_NEW)
    if policy == POLICY_PLANNER or policy == POLICY_PLANNER_V2:
        return planner(s, T, legal, n, rng, pp, seat)
    if policy == POLICY_FIRST:
        return legal[0]
    if policy == POLICY_PLUGIN:
        # compiled on its own; the address of its entry point is the row's last element
        c = call_address(np.int64(pp[pp.shape[0] - 1]), (s, T, legal, n, rng, pp, seat))
        if c == FAILED:
            s[L.G_ILLEGAL] |= FAILED_BIT
            return legal[0]
        return c
    return legal[randint(rng, STREAM_POLICY, n)]
