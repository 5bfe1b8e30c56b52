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

Both (not ``greedy_v2`` and ``planner_v2``, which play as in behaviour v2)
take a win the rules make certain at once when one is on offer, and add no
attack card or ability that gives only At to an attack the defender surely
blocks: the judge of the blunder counters (``blunders``; the kinds are in
docs/questmaster/results.md).

The block (each part off at 0): ``aim`` (fight the opponent nearest a win:
castles or Hp), ``kill`` (fight whom the free attack can knock out now),
``shoe_keep`` (a Yellow Bird Shoe's worth kept, weighed when choosing the
move with the Shoe and when playing it), ``thrift`` (a defence only when it
lessens the damage, a card only when the Hp it saves is worth more than
``thrift`` × its worth kept; no attack card once the attack already kills),
``path`` (a warp weighed against the square the walk would end on).

What the two weigh (worth in Item cards, fight odds, Event and shield
values, the block's parts) is in ``scores``; this module holds the ids,
parameters and defaults, ``greedy``, the planner's look-ahead and
``planner``, and the dispatch ``decide``.
"""
import numpy as np

from simcore.fnptr import FAILED, FAILED_BIT, call_address
from simcore.jit import inlined, kernel, needs_nrt
from simcore.rng import STREAM_POLICY, randint
from . import layout as L
from . import tables as TB
from .blunders import into_block, sure_block, winning_choice
from .scores import (K_AIM, K_KILL, K_PATH, K_SHOE, K_THRIFT, NEW_PARAMS, OPB, SHOE_KEEP, aim_value,
                     attack_choice_value, attack_kills, card_value, castles_of, defend_value,
                     dist_to_new_castle, event_value, forward, holds_shoe, move_event_value, opens_event,
                     outcome_value, pbase, square_value, strength, symbol_value, walk_end, with_shoe)

POLICY_RANDOM, POLICY_GREEDY, POLICY_FIRST, POLICY_PLANNER, POLICY_GREEDY_V2, POLICY_PLANNER_V2 = range(6)
POLICY_PLUGIN = 100   # a plug-in policy, called through its entry point's address (simcore/fnptr.py)

V2_OFF = (0.0,) * len(NEW_PARAMS)
GREEDY_PARAMS = ("aggression", "castle_weight") + NEW_PARAMS
PLANNER_PARAMS = ("aggression", "castle_weight", "lookahead", "threat") + NEW_PARAMS
GREEDY_NEW, PLANNER_NEW = 2, 4            # where the block starts in each vector
# a policy's arguments, in the order decide() passes them to an entry point
# (C types: simcore.fnptr.c_signature; an array is (pointer, length))
ARG_SPEC = (("s", "int32"), ("T", "int32"), ("legal", "int32"), ("n", None), ("rng", "uint64"),
            ("pp", "float64"), ("seat", None))
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
def plays_sure(s, seat):
    """Whether ``seat``'s player takes sure wins and spares sure blocks:
    greedy, the planner and the players built on them, but not the v2
    players (kept exactly as behaviour v2 played)."""
    pid = s[pbase(seat) + L.P_POLICY]
    return pid != POLICY_GREEDY_V2 and pid != POLICY_PLANNER_V2


@inlined
def greedy(s, T, legal, n, rng, pp, seat, o):
    """Score every legal code and take the best (ties: the first). The
    parameters issue 15 added start at ``pp[o]`` (greedy's own vector, or
    the planner's, which calls this for the decisions it leaves to greedy)."""
    b = pbase(seat)
    ctx = s[L.G_CTX]
    sure = plays_sure(s, seat)
    if sure:
        w = winning_choice(s, T, legal, np.int64(n), np.int64(seat), np.int64(ctx))
        if w >= 0:
            return w
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
    opp = np.int64(s[L.G_DUEL_D] if s[L.G_DUEL_A] == seat else s[L.G_DUEL_A])
    blocked = sure and ctx == L.CTX_ATTACK_CARDS and sure_block(s, T, opp)
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
            if blocked and into_block(s, T, np.int64(seat), opp, np.int64(c)):
                v = -1.0                 # only At, into a sure block: wasted
            elif kind == L.A_PLAY:
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
    if plays_sure(s, seat):
        w = winning_choice(s, T, legal, np.int64(n), np.int64(seat), np.int64(ctx))
        if w >= 0:
            return w
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
    if policy == POLICY_FIRST:
        return legal[0]
    if (policy == POLICY_GREEDY or policy == POLICY_GREEDY_V2 or policy == POLICY_PLANNER
            or policy == POLICY_PLANNER_V2 or policy == POLICY_PLUGIN):
        # compiled on its own (greedy and the planner: questsim/entries.py),
        # not into every rule kernel that asks; the address of its entry
        # point is the row's last element
        c = call_address(np.int64(pp[pp.shape[0] - 1]), (s, T, legal, n, rng, pp, seat))
        if c == FAILED:
            s[L.G_ILLEGAL] |= FAILED_BIT
            return legal[0]
        return c
    return legal[randint(rng, STREAM_POLICY, n)]
