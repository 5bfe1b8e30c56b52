"""Quest Master player policies: numba functions that pick one of the legal
codes the engine generated (layout.A_* × OPB + argument). They read the
state, never change it, and draw randomness only from the policy stream.

- ``random`` (0): uniform over the legal choices.
- ``planner`` (3): greedy's scoring, plus a look-ahead on the castle race
  (the exact chance of landing on a new castle next turn from each square,
  and castles weighted by how near the player is to five), duel targets by
  threat and kill chance rather than weakness, and Mp kept for shields when
  a paid attack would be wasted. Parameters: greedy's two, then
  ``lookahead`` (worth of a sure new castle next turn, in Item cards),
  ``threat`` (weight of an opponent's lead when choosing whom to fight).
- ``first`` (2): always the first legal code — a fixed, predictable player
  for tests and exact checks (it moves whenever it can, never warps).
- ``greedy`` (1): rules of thumb — land on castles not yet visited, take
  Item cards, fight when stronger, hit the weakest opponent, spend Mp on the
  biggest attack and enough shield, discard the weakest card. Parameters:
  ``aggression`` (how much stronger it must be to choose a fight; 0 = any
  time), ``castle_weight`` (worth of a new castle in Item cards).
"""
import numpy as np

from simcore.jit import inlined, kernel, needs_nrt
from simcore.rng import STREAM_POLICY, randint
from . import layout as L
from . import tables as TB

OPB = L.OPB
POLICY_RANDOM, POLICY_GREEDY, POLICY_FIRST, POLICY_PLANNER = 0, 1, 2, 3
# (id, name, parameter names, defaults)
BUILTIN_POLICIES = (
    (POLICY_RANDOM, "random", (), ()),
    (POLICY_GREEDY, "greedy", ("aggression", "castle_weight"), (0.0, 3.0)),
    (POLICY_FIRST, "first", (), ()),
    (POLICY_PLANNER, "planner", ("aggression", "castle_weight", "lookahead", "threat"), (0.0, 3.0, 4.0, 1.0)),
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


@kernel
def square_value(s, T, seat, sq, pp):
    """What landing on ``sq`` is worth to ``seat``."""
    kind = T[TB.O_SQ_KIND + sq]
    b = pbase(seat)
    if kind == L.SQ_CASTLE:
        new = (s[b + L.P_CASTLES] >> T[TB.O_SQ_CASTLE + sq]) & 1 == 0
        return (pp[1] if new else 0.0) + 0.5
    if kind == L.SQ_ITEM:
        return 1.0 if s[b + L.P_HAND_N] < T[TB.P_HAND_LIMIT] else 0.3
    if kind == L.SQ_EVENT:
        return 0.4
    if kind == L.SQ_SWORD:
        return fight_value(s, T, seat, pp)
    if kind == L.SQ_WARP:
        return 0.2
    return 0.0


@inlined
def greedy(s, T, legal, n, rng, pp, seat):
    """Score every legal code and take the best (ties: the first)."""
    b = pbase(seat)
    ctx = s[L.G_CTX]
    best, pick = -1e18, legal[0]
    for i in range(n):
        c = legal[i]
        kind, arg = c // OPB, c % OPB
        v = 0.0
        if ctx == L.CTX_MOVE:
            if kind == L.A_MOVE:
                sq = forward(T, s[b + L.P_POS], arg)
                v = square_value(s, T, seat, sq, pp) - 0.02 * dist_to_new_castle(s, T, seat, sq)
            elif kind == L.A_SYMBOL:
                if arg == 1:
                    v = fight_value(s, T, seat, pp)
                elif arg == 3:
                    v = 1.0
                else:
                    v = 0.4
            else:
                v = 0.0
        elif ctx == L.CTX_WARP or ctx == L.CTX_FORK:
            sq = s[b + L.P_POS] if kind == L.A_NO_WARP else arg
            v = -dist_to_new_castle(s, T, seat, sq)
        elif ctx == L.CTX_TARGET:
            v = -strength(s, T, arg)
        elif ctx == L.CTX_ATTACK:
            if kind == L.A_ATTACK:
                v = T[TB.O_CHAR + s[b + L.P_CHAR] * TB.CH + TB.C_ATT + 2 * arg + 1] + 1.0
            else:
                v = 0.0
        elif ctx == L.CTX_ATTACK_CARDS:
            if kind == L.A_PLAY:
                v = card_value(T, arg)
            elif kind == L.A_ABILITY:
                v = 1.0
            else:
                v = 0.5
        elif ctx == L.CTX_DEFEND:
            if kind == L.A_DONE:
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
                # a Shoe when one more square lands on a new castle
                r, bl = s[L.G_DIE_RED], s[L.G_DIE_BLUE]
                steps = (r if r > 0 else 0) + (bl if bl > 0 else 0) + s[L.G_EXTRA]
                here = forward(T, s[b + L.P_POS], steps)
                there = forward(T, s[b + L.P_POS], steps + 1)
                v = square_value(s, T, seat, there, pp) - square_value(s, T, seat, here, pp)
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


@needs_nrt
def planner(s, T, legal, n, rng, pp, seat):
    """Greedy, with the castle race looked ahead and duels aimed (see the
    module docstring); falls back on greedy's choice where it adds nothing."""
    b = pbase(seat)
    ctx = s[L.G_CTX]
    if ctx != L.CTX_MOVE and ctx != L.CTX_WARP and ctx != L.CTX_FORK and ctx != L.CTX_TARGET \
            and ctx != L.CTX_ATTACK:
        return greedy(s, T, legal, n, rng, pp, seat)
    probs = np.zeros(16)
    move_probs(T, probs)
    need = castles_of(s, T, seat) / T[TB.P_CASTLES_TO_WIN]
    best, pick = -1e18, legal[0]
    for i in range(n):
        c = legal[i]
        kind, arg = c // OPB, c % OPB
        v = 0.0
        if ctx == L.CTX_MOVE:
            if kind == L.A_MOVE:
                sq = forward(T, s[b + L.P_POS], arg)
                v = square_value(s, T, seat, sq, pp) * (1.0 + need * (T[TB.O_SQ_KIND + sq] == L.SQ_CASTLE)) \
                    + pp[2] * (1.0 + need) * castle_chance(s, T, seat, sq, probs)
            elif kind == L.A_SYMBOL:
                here = s[b + L.P_POS]
                look = pp[2] * (1.0 + need) * castle_chance(s, T, seat, here, probs)
                if arg == 1:
                    v = fight_value(s, T, seat, pp) + look
                elif arg == 3:
                    v = 1.0 + look
                else:
                    v = 0.4 + look
            else:
                v = pp[2] * (1.0 + need) * castle_chance(s, T, seat, s[b + L.P_POS], probs)
        elif ctx == L.CTX_WARP or ctx == L.CTX_FORK:
            sq = s[b + L.P_POS] if kind == L.A_NO_WARP else arg
            v = castle_chance(s, T, seat, sq, probs) - 0.01 * dist_to_new_castle(s, T, seat, sq)
        elif ctx == L.CTX_TARGET:
            # the leader, or whoever the free attack and a paid one could finish
            hp = s[pbase(arg) + L.P_HP]
            v = pp[3] * threat(s, T, arg) - strength(s, T, arg) / 40.0 + (1.0 if hp <= 4 else 0.0)
        elif ctx == L.CTX_ATTACK:
            # a paid attack the defender's shields would swallow is Mp wasted
            if kind == L.A_ATTACK:
                at = T[TB.O_CHAR + s[b + L.P_CHAR] * TB.CH + TB.C_ATT + 2 * arg + 1]
                v = at + 1.0
            else:
                opp = s[L.G_DUEL_D] if s[L.G_DUEL_A] == seat else s[L.G_DUEL_A]
                shields = 0.0
                for j in range(s[pbase(opp) + L.P_HAND_N]):
                    o = TB.O_ITEM + s[pbase(opp) + L.P_HAND + j] * TB.IK
                    if T[o + 2] == L.IS_SHIELD or T[o + 2] == L.IS_SWORD_SHIELD:
                        shields += 1.0
                v = 2.0 if shields >= 2 and s[b + L.P_HP] < 8 else 0.0
        if v > best:
            best, pick = v, c
    return pick


@inlined
def decide(s, T, legal, n, rng, policy, pp, seat):
    """Dispatch to seat's policy by id."""
    if policy == POLICY_GREEDY:
        return greedy(s, T, legal, n, rng, pp, seat)
    if policy == POLICY_PLANNER:
        return planner(s, T, legal, n, rng, pp, seat)
    if policy == POLICY_FIRST:
        return legal[0]
    return legal[randint(rng, STREAM_POLICY, n)]
