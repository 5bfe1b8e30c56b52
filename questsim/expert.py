"""``expert``: the Quest Master search policy of a skilled player, the top of
the skill ladder.

It plays the planner, but searches every movement choice (move the number or
take the symbol; the biggest decision of a turn): the planner's answer and up
to ``WIDTH - 1`` other options are each played to the end of the game with
the engine itself (the game is its own forward model; every seat plays the
planner in the continuations) on the same sampled futures, and the planner's
answer is kept unless another is clearly better. With a budget of 4 or more
it also searches the other decisions (cards before and after the roll,
warps, forks, targets, attacks, defences, discards, Shoe windows, declines)
by replaying the game from the seat's last movement choice to them
(simcore/search.py).

One parameter, ``budget``: ``2 × budget`` futures first, at most
``8 × budget`` before a decision, the other decisions from budget 4. The
spending is adaptive, as for MourneQuest's expert (simcore/race.py): the
planner's answer alone while it wins every future, an option without an
edge dropped after each batch, and a switch only when confirmed on fresh
futures.

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
DESCRIPTION = ("search: every movement option raced against the planner's on sampled futures to the "
               "end of the game; one parameter, budget")


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
    """The answer: the planner's with one option, else the race's between
    the planner's answer and the other options."""
    first = planner(s, T, legal, n, rng, pp, seat)
    if n < 2:
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
    else:
        if pp[W_BUDGET] < DEEP_BUDGET or not search.can_replay(pp, BASE, s, L.G_ROUND) or other_plugins(s, seat):
            return first
        rows = replay_rows(s, T, legal, n, pp, seat, BASE, s2, rng2, legal2, ev2, snaps2)
        if rows.shape[0] == 0:
            return first
        conf = DEEP_CONFIDENCE
    vals, subs, st = racing.start(k, pp[W_BUDGET], pp[W_BUDGET])
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
    if s2[b + L.P_ALIVE] == 0:
        return 0.0
    castles = castle_count(T, s2[b + L.P_CASTLES]) / T[TB.P_CASTLES_TO_WIN]
    hp = s2[b + L.P_HP] / (T[TB.P_WIN_HP] + 1.0)
    return PROGRESS * min(1.0, max(castles, hp))
