"""Quest Master player policies: numba functions that pick one of the legal
codes the engine generated (layout.A_* × OPB + argument). They read the
state, never change it, and draw randomness only from the policy stream.

- ``random`` (0): uniform over the legal choices.
- ``first`` (2): always the first legal code — a fixed, predictable player
  for tests and exact checks (it moves whenever it can, never warps).
- ``greedy`` (1): rules of thumb — land on castles not yet visited, take
  Item cards, fight when stronger, hit the weakest opponent, spend Mp on the
  biggest attack and enough shield, discard the weakest card. Parameters:
  ``aggression`` (how much stronger it must be to choose a fight; 0 = any
  time), ``castle_weight`` (worth of a new castle in Item cards).
"""
import numpy as np
from numba import njit

from simcore.rng import STREAM_POLICY, randint
from . import layout as L
from . import tables as TB

OPB = L.OPB
POLICY_RANDOM, POLICY_GREEDY, POLICY_FIRST = 0, 1, 2
# (id, name, parameter names, defaults)
BUILTIN_POLICIES = (
    (POLICY_RANDOM, "random", (), ()),
    (POLICY_GREEDY, "greedy", ("aggression", "castle_weight"), (0.0, 3.0)),
    (POLICY_FIRST, "first", (), ()),
)


@njit(cache=True)
def pbase(seat):
    return L.G_P + seat * L.PS


@njit(cache=True)
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


@njit(cache=True)
def strength(s, T, seat):
    """Hp plus the worth of the combat cards in hand: a crude fighting power."""
    b = pbase(seat)
    v = float(s[b + L.P_HP])
    for i in range(s[b + L.P_HAND_N]):
        v += 0.5 * card_value(T, s[b + L.P_HAND + i])
    return v


@njit(cache=True)
def weakest_opponent(s, T, seat):
    best, who = 1e9, -1
    for p in range(s[L.G_NP]):
        if p != seat and s[pbase(p) + L.P_ALIVE]:
            v = strength(s, T, p)
            if v < best:
                best, who = v, p
    return who, best


@njit(cache=True)
def forward(T, pos, k):
    """The square ``k`` steps ahead along the first branch (for scoring only)."""
    for _ in range(k):
        pos = T[TB.O_NEXT + pos * TB.MAX_NEXT]
    return pos


@njit(cache=True)
def dist_to_new_castle(s, T, seat, pos):
    """Steps forward to the nearest castle not yet landed on (first branch)."""
    b = pbase(seat)
    n = T[TB.P_NSQ]
    for k in range(n + 1):
        if T[TB.O_SQ_KIND + pos] == L.SQ_CASTLE and (s[b + L.P_CASTLES] >> T[TB.O_SQ_CASTLE + pos]) & 1 == 0:
            return k
        pos = T[TB.O_NEXT + pos * TB.MAX_NEXT]
    return n


@njit(cache=True)
def fight_value(s, T, seat, pp):
    who, opp = weakest_opponent(s, T, seat)
    if who < 0:
        return -1.0
    return (strength(s, T, seat) - opp - pp[0]) / 5.0


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def decide(s, T, legal, n, rng, policy, pp, seat):
    """Dispatch to seat's policy by id."""
    if policy == POLICY_GREEDY:
        return greedy(s, T, legal, n, rng, pp, seat)
    if policy == POLICY_FIRST:
        return legal[0]
    return legal[randint(rng, STREAM_POLICY, n)]
