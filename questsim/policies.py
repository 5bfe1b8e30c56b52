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
  behaviour v3 added (below).
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

With ``sure`` (1 by default; the v2 players have it at 0, as every part of
the block) both take a win the rules make certain at once when one is on
offer, and add no attack card or ability that gives only At to an attack
the defender surely blocks: the judge of the blunder counters
(``blunders``; the kinds are in docs/questmaster/results.md).

The block (each part off at 0): ``aim`` (fight the opponent nearest a win:
castles or Hp), ``kill`` (fight whom the free attack can knock out now),
``shoe_keep`` (a Yellow Bird Shoe's worth kept, weighed when choosing the
move with the Shoe and when playing it), ``thrift`` (a defence only when it
lessens the damage, a card only when the Hp it saves is worth more than
``thrift`` × its worth kept; no attack card once the attack already kills),
``path`` (a warp weighed against the square the walk would end on),
``sure`` (a switch: sure wins taken, no attack into a sure block).

What the two weigh (worth in Item cards, fight odds, Event and shield
values, the block's parts) is in ``scores``; this module holds the ids,
parameters and defaults, ``greedy``, the planner's look-ahead and
``planner``; the ids and the dispatch ``decide`` are the decision port
``decision``.
"""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .blunders import into_block, sure_block, winning_choice
from .core import pb
# the ids and the port, read from here by the registry and the entry points
from .decision import (ARG_SPEC, POLICY_FIRST, POLICY_GREEDY, POLICY_GREEDY_V2, POLICY_PLANNER,  # noqa: F401
                       POLICY_PLANNER_V2, POLICY_PLUGIN, POLICY_RANDOM, SURE_GREEDY, SURE_PLANNER)
from .scores import (K_AIM, K_KILL, K_PATH, K_SHOE, K_SURE, K_THRIFT, NEW_PARAMS, SHOE_KEEP, aim_value,
                     attack_choice_value, attack_kills, card_value, castles_of, defend_value,
                     dist_to_new_castle, draws_values, forward, holds_shoe, move_values, outcome_draws,
                     outcome_value, square_draws, square_value, strength, symbol_value, walk_end, with_shoe)


V2_OFF = (0.0,) * len(NEW_PARAMS)
GREEDY_PARAMS = ("aggression", "castle_weight") + NEW_PARAMS
PLANNER_PARAMS = ("aggression", "castle_weight", "lookahead", "threat") + NEW_PARAMS
GREEDY_NEW, PLANNER_NEW = 2, 4            # where the block starts in each vector
# the shipped defaults of the block: the NTBEA tuning runs of
# experiments/qm-greedy-tune.toml and qm-planner-tune.toml (one seat against
# three v2 players, four players; docs/questmaster/policies.md); ``sure``
# (behaviour v5) on
GREEDY_DEFAULTS = (0.0, 3.0) + (4.0, 0.0, 2.0, 0.5, 0.0, 1.0)
PLANNER_DEFAULTS = (0.0, 3.0, 4.0, 1.0) + (1.0, 2.0, 2.0, 0.1, 1.0, 1.0)
assert (GREEDY_PARAMS.index("sure"), PLANNER_PARAMS.index("sure")) == (SURE_GREEDY, SURE_PLANNER)
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


@inlined
def defence_choice_value(s, T, seat, c, thrift):
    """Greedy's worth of defence choice ``c``: with ``thrift``, what the Hp
    it saves are worth against the card kept (defend_value); without it,
    any card or ability, stopping only when the attack does no damage."""
    kind, arg = L.code_op(c), L.code_arg(c)
    if thrift > 0:
        return defend_value(s, T, seat, c, thrift)
    if kind == L.A_DONE:
        return 0.5 if s[L.G_DUEL_AT] - s[L.G_DUEL_SHIELD] > 0 else 10.0
    if kind == L.A_PLAY:
        return card_value(T, arg)
    return 1.0


@inlined
def shoe_play_value(s, T, seat, pp, keep):
    """Greedy's worth of playing a Yellow Bird Shoe on the roll just made:
    on one's own, the longer move (or 1 square instead of the symbol) less
    the Shoe kept (``keep``, ``shoe_keep``; 0: any gain); on another
    player's, how much it spoils the roller's choice, less the Shoe kept
    (``keep``, or 1 when it is 0)."""
    roller = np.int64(s[L.G_ACTIVE])
    now = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA])
    then = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA] + 1)
    rev, rfv = draws_values(s, T, roller, pp, outcome_draws(s, T, roller, now) | outcome_draws(s, T, roller, then))
    gain = outcome_value(s, T, roller, then, pp, rev, rfv) - outcome_value(s, T, roller, now, pp, rev, rfv)
    return gain - keep if roller == seat else -gain - (keep if keep > 0 else SHOE_KEEP)


@inlined
def greedy(s, T, legal, n, rng, pp, seat, o, scores):
    """Score every legal code and take the best (ties: the first). The
    parameters behaviour v3 added start at ``pp[o]`` (greedy's own vector, or
    the planner's, which calls this for the decisions it leaves to greedy).
    With an array ``scores`` (the viewer's, questsim.explain) each code's
    score is stored there, a sure win included; the players pass None, and
    numba prunes that."""
    b = pb(seat)
    ctx = s[L.G_CTX]
    sure = pp[o + K_SURE] > 0
    if sure and scores is None:
        w = winning_choice(s, T, legal, np.int64(n), np.int64(seat), np.int64(ctx))
        if w >= 0:
            return w
    keep = pp[o + K_SHOE]
    shoe = ctx == L.CTX_MOVE and holds_shoe(s, T, seat)
    # an Event card's and a fight's worth, each once a decision where a
    # result scored below may open or start one (the square's own kind on
    # an optional square, where the walk would end at a warp)
    evv, fv = 0.0, 0.0
    if ctx == L.CTX_MOVE:
        evv, fv = move_values(s, T, seat, legal, n, pp, shoe)
    elif ctx == L.CTX_SQUARE:
        evv, fv = draws_values(s, T, seat, pp, square_draws(s[L.G_CTX_ARG], T[TB.O_SQ_KIND + s[b + L.S_POS]]))
    path = ctx == L.CTX_WARP and pp[o + K_PATH] > 0
    end = walk_end(s, T, seat) if path else 0
    if path and s[L.G_WALK_LEFT] != 0:
        evv, fv = draws_values(s, T, seat, pp, square_draws(T[TB.O_SQ_KIND + end], T[TB.O_SQ_KIND + end]))
    aim = ctx == L.CTX_TARGET and (pp[o + K_AIM] > 0 or pp[o + K_KILL] > 0)
    thrift = pp[o + K_THRIFT]
    kills = ctx == L.CTX_ATTACK_CARDS and thrift > 0 and attack_kills(s, T, seat)
    opp = np.int64(s[L.G_DUEL_D] if s[L.G_DUEL_A] == seat else s[L.G_DUEL_A])
    blocked = sure and ctx == L.CTX_ATTACK_CARDS and sure_block(s, T, opp)
    best, pick = -1e18, legal[0]
    for i in range(n):
        c = legal[i]
        kind, arg = L.code_op(c), L.code_arg(c)
        v = 0.0
        if ctx == L.CTX_MOVE:
            # each result (a move, a symbol, staying), or what a Shoe in hand
            # would make of it (number + 1, or 1 square instead of the
            # symbol), less the Shoe's worth kept (``shoe_keep``): the move
            # and the Shoe are chosen together, and after the roll the Shoe
            # is played by the same comparison
            v = outcome_value(s, T, seat, c, pp, evv, fv)
            if shoe:
                v = max(v, outcome_value(s, T, seat, with_shoe(c, 1), pp, evv, fv) - keep)
        elif path:
            # ``path``: a warp against where the walk would end (its square
            # takes effect); a warp, or ending on the warp square, has none
            if kind == L.A_NO_WARP and s[L.G_WALK_LEFT] != 0:
                v = square_value(s, T, seat, end, pp, evv, fv) - 0.02 * dist_to_new_castle(s, T, seat, end)
            else:
                v = -0.02 * dist_to_new_castle(s, T, seat, end if kind == L.A_NO_WARP else arg)
        elif ctx == L.CTX_WARP or ctx == L.CTX_FORK:
            sq = s[b + L.S_POS] if kind == L.A_NO_WARP else arg
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
                v = square_value(s, T, seat, s[b + L.S_POS], pp, evv, fv)
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
            v = defence_choice_value(s, T, seat, c, thrift)
        elif ctx == L.CTX_DISCARD:
            v = -card_value(T, arg)
        elif ctx == L.CTX_BEFORE_ROLL or ctx == L.CTX_AFTER_MOVE:
            v = 1.0 if kind == L.A_PLAY else 0.0      # Hp and cards now are never worse
        elif ctx == L.CTX_AFTER_ROLL:
            v = shoe_play_value(s, T, seat, pp, keep) if kind == L.A_PLAY else 0.0
        if scores is not None:
            scores[i] = v
        if v > best:
            best, pick = v, c
    return pick


@kernel
def move_counts(T):
    """How many of the red × blue face pairs move each number of squares
    ``k`` (both dice's numbers summed, a symbol counting 0), packed 8 bits
    a count (at most 12 × 12 pairs), ``k`` 0-7 in the first word and 8-15
    in the second, and the largest ``k`` any pair moves: the planner's
    look-ahead (castle_chance), counted once a decision from the dice in
    ``T`` without an array."""
    lo, hi, top = np.int64(0), np.int64(0), np.int64(0)
    nr, nb = T[TB.P_N_FACES_RED], T[TB.P_N_FACES_RED + 1]
    for i in range(nr):
        r = T[TB.O_FACES + i]
        for j in range(nb):
            bl = T[TB.O_FACES + TB.MAX_FACES + j]
            k = np.int64((r if r > 0 else 0) + (bl if bl > 0 else 0))
            if k < 8:
                lo += np.int64(1) << (8 * k)
            elif k < 16:
                hi += np.int64(1) << (8 * (k - 8))
            if k > top:
                top = k
    return lo, hi, min(top, np.int64(15))


@kernel
def castle_chance(s, T, seat, sq, moves):
    """Chance that next turn's move from ``sq`` ends on a castle ``seat`` has
    not landed on yet, for a player who moves whenever a number shows (both
    numbers: the sum; ``moves``: move_counts). Each number of squares is
    weighed by its face pairs' chance, summed one pair at a time: the same
    doubles as a histogram of the pairs."""
    b = pb(seat)
    lo, hi, top = moves
    inv = 1.0 / (T[TB.P_N_FACES_RED] * T[TB.P_N_FACES_RED + 1])
    p = 0.0
    q = sq
    for k in range(1, top + 1):
        q = T[TB.O_NEXT + q * TB.MAX_NEXT]          # the square k steps ahead (first branch)
        pairs = (lo >> (8 * k)) & 255 if k < 8 else (hi >> (8 * (k - 8))) & 255
        if pairs > 0 and T[TB.O_SQ_KIND + q] == L.SQ_CASTLE and \
                (s[b + L.S_CASTLES] >> T[TB.O_SQ_CASTLE + q]) & 1 == 0:
            pk = 0.0
            for _ in range(pairs):
                pk += inv
            p += pk
    return p


@kernel
def threat(s, T, p):
    """How near opponent ``p`` is to winning: castles, and Hp towards 40."""
    return castles_of(s, T, p) / T[TB.P_CASTLES_TO_WIN] + s[pb(p) + L.S_HP] / (T[TB.P_WIN_HP_ABOVE] + 1.0)


@kernel
def planner_square(s, T, seat, sq, pp, need, evv, fv, moves):
    """The planner's worth of ending a move on ``sq``: greedy's, a castle
    weighted by how near the player is to five, plus the chance that next
    turn's roll lands on a new castle from there."""
    return square_value(s, T, seat, sq, pp, evv, fv) * (1.0 + need * (T[TB.O_SQ_KIND + sq] == L.SQ_CASTLE)) \
        + pp[2] * (1.0 + need) * castle_chance(s, T, seat, sq, moves)


@kernel
def planner_outcome(s, T, seat, c, pp, need, evv, fv, moves):
    """The planner's worth of movement result ``c``: greedy's, a castle
    weighted by how near the player is to five, plus the chance that next
    turn's roll lands on a new castle from where the pawn ends."""
    b = pb(seat)
    kind, arg = L.code_op(c), L.code_arg(c)
    if kind == L.A_MOVE:
        return planner_square(s, T, seat, forward(T, s[b + L.S_POS], arg), pp, need, evv, fv, moves)
    look = pp[2] * (1.0 + need) * castle_chance(s, T, seat, s[b + L.S_POS], moves)
    if kind == L.A_SYMBOL:
        return symbol_value(s, T, seat, arg, pp, evv, fv) + look
    return look


@kernel
def planner(s, T, legal, n, rng, pp, seat):
    """Greedy, with the castle race looked ahead and duels aimed (see the
    module docstring); falls back on greedy's choice where it adds nothing.
    The parameters behaviour v3 added start at ``pp[PLANNER_NEW]``."""
    return scored_planner(s, T, legal, n, rng, pp, seat, None)


@inlined
def scored_planner(s, T, legal, n, rng, pp, seat, scores):
    """The planner; with an array ``scores`` (the viewer's,
    questsim.explain) each code's score stored there, as greedy's."""
    o = PLANNER_NEW
    b = pb(seat)
    ctx = s[L.G_CTX]
    keep = pp[o + K_SHOE]
    # with ``shoe_keep``, a Shoe on its own roll is weighed by the planner's
    # own scoring, the one that chose the move with it
    own_shoe = ctx == L.CTX_AFTER_ROLL and keep > 0 and s[L.G_ACTIVE] == seat
    if ctx != L.CTX_MOVE and ctx != L.CTX_WARP and ctx != L.CTX_FORK and ctx != L.CTX_TARGET and not own_shoe:
        return greedy(s, T, legal, n, rng, pp, seat, o, scores)
    if pp[o + K_SURE] > 0 and scores is None:
        w = winning_choice(s, T, legal, np.int64(n), np.int64(seat), np.int64(ctx))
        if w >= 0:
            return w
    need = castles_of(s, T, seat) / T[TB.P_CASTLES_TO_WIN]
    moves = move_counts(T) if ctx != L.CTX_TARGET else (np.int64(0), np.int64(0), np.int64(0))   # a target needs none
    shoe = ctx == L.CTX_MOVE and holds_shoe(s, T, seat)
    evv, fv = 0.0, 0.0            # as in greedy
    if ctx == L.CTX_MOVE:
        evv, fv = move_values(s, T, seat, legal, n, pp, shoe)
    path = ctx == L.CTX_WARP and pp[o + K_PATH] > 0
    end = walk_end(s, T, seat) if path else 0
    if path and s[L.G_WALK_LEFT] != 0:
        evv, fv = draws_values(s, T, seat, pp, square_draws(T[TB.O_SQ_KIND + end], T[TB.O_SQ_KIND + end]))
    gain = 0.0
    if own_shoe:
        now = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA])
        then = with_shoe(s[L.G_MOVE_CHOICE], s[L.G_EXTRA] + 1)
        evv, fv = draws_values(s, T, seat, pp, outcome_draws(s, T, seat, now) | outcome_draws(s, T, seat, then))
        gain = planner_outcome(s, T, seat, then, pp, need, evv, fv, moves) - \
            planner_outcome(s, T, seat, now, pp, need, evv, fv, moves)
    best, pick = -1e18, legal[0]
    for i in range(n):
        c = legal[i]
        kind, arg = L.code_op(c), L.code_arg(c)
        v = 0.0
        if ctx == L.CTX_MOVE:
            # as greedy: a Shoe in hand offers number + 1, or 1 square
            # instead of the symbol, less its worth kept
            v = planner_outcome(s, T, seat, c, pp, need, evv, fv, moves)
            if shoe:
                v = max(v, planner_outcome(s, T, seat, with_shoe(c, 1), pp, need, evv, fv, moves) - keep)
        elif own_shoe:
            v = gain - keep if kind == L.A_PLAY else 0.0
        elif path:
            # ``path``: a warp (the pawn stops there, no effect) against the
            # square the walk would end on
            if kind == L.A_NO_WARP and s[L.G_WALK_LEFT] != 0:
                v = planner_square(s, T, seat, end, pp, need, evv, fv, moves) \
                    - 0.01 * dist_to_new_castle(s, T, seat, end)
            else:
                sq = end if kind == L.A_NO_WARP else arg
                v = pp[2] * (1.0 + need) * castle_chance(s, T, seat, sq, moves) \
                    - 0.01 * dist_to_new_castle(s, T, seat, sq)
        elif ctx == L.CTX_WARP or ctx == L.CTX_FORK:
            sq = s[b + L.S_POS] if kind == L.A_NO_WARP else arg
            v = castle_chance(s, T, seat, sq, moves) - 0.01 * dist_to_new_castle(s, T, seat, sq)
        elif ctx == L.CTX_TARGET:
            # the leader, or whoever the free attack and a paid one could
            # finish; ``aim`` and ``kill`` add greedy's aimed terms
            hp = s[pb(arg) + L.S_HP]
            v = pp[3] * threat(s, T, arg) - strength(s, T, arg) / 40.0 + (1.0 if hp <= 4 else 0.0)
            if pp[o + K_AIM] > 0 or pp[o + K_KILL] > 0:
                v += aim_value(s, T, seat, arg, pp, o)
        if scores is not None:
            scores[i] = v
        if v > best:
            best, pick = v, c
    return pick
