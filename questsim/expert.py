"""``expert``: the Quest Master search policy of a skilled player, the top of
the skill ladder.

It plays the planner, and searches where a game is decided: in the endgame,
once some seat still playing is within ``NEAR`` of a win of its own (four of
the five castles, or Hp 33 of the 41 a win needs), every movement choice
(move the number or take the symbol; the biggest decision of a turn) is a
race: the planner's answer and up to ``WIDTH - 1`` other options are each
played to the end of the game with the engine itself (the game is its own
forward model; every seat plays the planner in the continuations) on the
same sampled futures, and the planner's answer is kept unless another is
clearly better. Endgame futures are a few turns long, so each comparison can
afford ``ENDGAME`` times the budget's futures; before the endgame it plays
the planner (searching the choices before it too, at the budget itself,
added nothing measurable at more than twice the cost:
docs/questmaster/policies.md).
From budget 4 it also searches the endgame's other decisions (cards before
and after the roll, warps, forks, targets, attacks, defences, discards, Shoe
windows, declines) by replaying the game from the seat's last movement
choice to them (simcore/search.py).

One parameter, ``budget``: a movement choice is compared at ``ENDGAME ×
budget`` (``2 ×`` that many futures first, at most ``8 ×``), the other
decisions from budget 4 at the budget itself. The spending is adaptive, as
for MourneQuest's expert (simcore/race.py): the planner's answer alone while
it wins every future, an option without an edge dropped after each batch,
and a switch only when confirmed on fresh futures.

A won future is worth 1; a lost one ``PROGRESS`` × how near the seat ended to
a win of its own (the larger of its share of the castles needed and of the
Hp needed; 0 if knocked out), so that futures the seat loses still tell a
better option from a worse one. Futures are fair: each re-seeds the dice and
re-shuffles the face-down Item and Event decks from the seat's own stream
(rollout.forget_hidden); like the planner, it sees the opponents' hands.
"""
import numpy as np
from numba import njit

from simcore import race as racing, search
from simcore.jit import needs_nrt
from simcore.rng import N_STREAMS
from . import layout as L
from . import tables as TB
from .blunders import castle_count
from .core import pb
from .policies import PLANNER_DEFAULTS, PLANNER_PARAMS, planner
from .rollout import (BASE, SCRATCH, continuation, other_plugins, planner_rows, replay, replay_rows,
                      scripted_answer)

PARAMS = {**dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)), "budget": 1.0}
NP = len(PLANNER_PARAMS)
W_BUDGET = NP
WIDTH = 3                 # the planner's answer and two others
PROGRESS = 0.5
CONFIDENCE = 2.0
DEEP_CONFIDENCE = 3.0     # the other decisions are many: a stricter test
DEEP_BUDGET = 4.0         # the budget from which they are searched
ENDGAME = 16.0            # a movement choice in the endgame is compared at this many times the budget
NEAR = 0.8                # the endgame: a seat still playing this near a win of its own
DESCRIPTION = ("search: in the endgame, every movement option raced against the planner's on sampled "
               "futures to the end of the game; one parameter, budget")


@needs_nrt
def choose(s, T, legal, n, rng, pp, seat):
    """Pick one of ``legal[:n]`` for ``seat`` (see the module docstring); in a
    copy that replays the game, the script's answer."""
    resumable = s[L.G_CTX] == L.CTX_MOVE      # the engine resumes a copy from a movement choice
    if pp.shape[0] < BASE + SCRATCH + 2:
        # parameters only (not the row a run gives): no planner for the copies, no search
        return planner(s, T, legal, n, rng, pp, seat)
    if search.scripted(pp, BASE):
        return scripted_answer(s, legal, n, rng, pp, seat, BASE)
    if resumable:
        search.remember_resumable(pp, BASE, s, rng, seat)
    c = pick(s, T, legal, n, rng, pp, seat, resumable)
    search.remember_answer(pp, BASE, s.shape[0], legal.shape[0], c, rng, resumable)
    return c


@needs_nrt
def pick(s, T, legal, n, rng, pp, seat, resumable):
    """The answer: the planner's with one option or before the endgame, else
    the race's between the planner's answer and the other options."""
    first = planner(s, T, legal, n, rng, pp, seat)
    if n < 2 or not endgame(s, T):
        return first
    k = min(WIDTH, n)
    cand = np.empty(k, np.int32)
    cand[0] = first
    j = 1
    for i in range(n):
        if j < k and legal[i] != first:
            cand[j] = legal[i]
            j += 1
    s2 = np.empty_like(s)
    rng2 = np.zeros(N_STREAMS * 4, np.uint64)
    legal2 = np.zeros(L.MAX_LEGAL, np.int32)
    ev2 = np.zeros((1, L.EV_COLS), np.int32)
    snaps2 = np.zeros((1, L.STATE_SIZE), np.int32)     # logging is off: never written
    if resumable:
        rows = planner_rows(pp, NP)
        conf = CONFIDENCE
        wide = ENDGAME * pp[W_BUDGET]
    else:
        if pp[W_BUDGET] < DEEP_BUDGET or not search.can_replay(pp, BASE, s, L.G_ROUND) or other_plugins(s, seat):
            return first
        rows = replay_rows(s, T, legal, n, pp, seat, BASE, s2, rng2, legal2, ev2, snaps2)
        if rows.shape[0] == 0:
            return first
        conf = DEEP_CONFIDENCE
        wide = pp[W_BUDGET]
    vals, subs, st = racing.start(k, wide, wide)
    while True:
        j, q = racing.next_sample(vals, subs, st, conf, rng)
        if j < 0:
            return cand[racing.answer(st)]
        if resumable:
            continuation(s, s2, T, rng2, legal2, ev2, snaps2, rows, seat, cand[j], subs[q])
        else:
            rows[seat, pp.shape[0] - 1] = pp[pp.shape[0] - 1]     # this entry point answers the script
            replay(s2, T, rng2, legal2, ev2, snaps2, rows, seat, cand[j], subs[q], q, BASE)
        racing.record(vals, j, q, value(s2, T, seat))


@njit(cache=True)
def value(s2, T, seat):
    """A finished future's worth to ``seat``: 1 for its win, else partial
    credit for how near it ended to a win of its own."""
    if s2[L.G_WINNER] == seat:
        return 1.0
    b = pb(seat)
    if s2[b + L.S_ALIVE] == 0:
        return 0.0
    return PROGRESS * near_win(s2, T, b)


@njit(cache=True)
def endgame(s, T):
    """True once some seat still playing is within ``NEAR`` of a win of its
    own (the larger of its share of the castles and of the Hp a win needs)."""
    for p in range(s[L.G_NP]):
        b = pb(p)
        if s[b + L.S_ALIVE] != 0 and near_win(s, T, b) >= NEAR:
            return True
    return False


@njit(cache=True)
def near_win(s, T, b):
    """How near the seat at ``b`` is to a win of its own, 0 … 1."""
    castles = castle_count(T, s[b + L.S_CASTLES]) / T[TB.P_CASTLES_TO_WIN]
    hp = s[b + L.S_HP] / (T[TB.P_WIN_HP_ABOVE] + 1.0)
    return min(1.0, max(castles, hp))
