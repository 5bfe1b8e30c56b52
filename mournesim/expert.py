"""The ``expert`` search policy: a skilled team, the top of the skill ladder.

It plays the planner, but searches every turn decision from ``HORIZON`` hero
turns before the Shimnavore appears to the end of the game: the planner's three
best-scored actions are each played to the end of the game with the engine
itself (the game is its own forward model; the planner plays every hero in
the continuations) on the same sampled futures, and the planner's choice is
kept unless another is clearly better. With a budget of 4 or more it also
searches the decisions inside a turn (combat reactions, cards to equip or
lose, rewards) by replaying the game to them (simcore/search.py).

One parameter, ``budget`` (default 0.5), sets how much it searches:
``2 × budget`` futures first (at the default, one won future keeps the
planner's answer; a comparison starts with two), at most ``8 × budget``
before the decision, and the inside-a-turn decisions (the planner's answer
and two others) from budget 4. In the Final Battle, where a future is a few
rounds long and most games are decided, a comparison uses budget
``FINAL_BUDGET`` at least. The spending is adaptive (simcore/race.py):
the planner's answer alone while it wins every future, an alternative
without an edge dropped after each batch, and a switch only when confirmed
on fresh futures.

A won future is worth 1, a lost one ``PROGRESS`` × the share of the
Shimnavore wounds dealt. Futures are fair: each re-seeds the dice, encounter
and policy streams from the expert's own stream and reshuffles the face-down
decks (rollout.forget_hidden), so the search never sees the real game's
future. docs/mournequest/policies.md has what each choice was measured to be
worth, the budget curves and the games per second.
"""
import numpy as np

from simcore import race as racing, search
from simcore.jit import needs_nrt
from simcore.rng import N_STREAMS
from . import layout as L
from .layout import code_op
from .plan import NP_PLANNER, PLANNER_DEFAULTS, PLANNER_PARAMS, moon_left
from .policies import planner
from .rollout import planner_plays, replay, replayed_candidates, resume, scripted_answer, turn_candidates, value

# the default budget: the cheapest the race allows, at twice budget 1's speed
# (docs/mournequest/policies.md, "The default budget")
PARAMS = dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)) | {"budget": 0.5}
W_BUDGET = NP_PLANNER
BASE = len(PARAMS)        # the search's memory follows its parameters in pp (simcore.search)
SCRATCH = search.scratch_size(L.STATE_SIZE, L.MAX_LEGAL)
# Fixed by measurement (docs/mournequest/policies.md, "expert"): the horizon is
# where the strength comes from; a third candidate costs little (it mostly
# drops out after the first batch) and adds a little.
HORIZON = 20
WIDTH = 3
PROGRESS = 0.5
CONFIDENCE = 2.0
DEEP_CONFIDENCE = 3.0     # decisions inside a turn are many: a stricter test
DEEP_BUDGET = 4.0         # the budget from which they are searched
# In the Final Battle a future is a few rounds long, and there most games are
# won or lost: a decision whose planner's answer loses a future is compared
# there at this budget at least (docs/mournequest/policies.md, "Final Battle").
FINAL_BUDGET = 16.0
DESCRIPTION = ("search: the planner's three best actions raced on sampled futures to the end of the "
               "game at every turn decision of the last 20 hero turns; one parameter, budget")


@needs_nrt
def choose(s, T, legal, n, rng, pp, h):
    """Pick one of ``legal[:n]`` for hero ``h`` (see the module docstring);
    in a copy that replays the game, the script's answer."""
    resumable = code_op(legal[0]) < L.R_ACCEPT      # a turn action: the engine resumes a copy here
    if pp.shape[0] < BASE + SCRATCH + 2:
        # parameters only (not the pp a run gives): no planner for the copies, no search
        return planner(s, T, legal, n, rng, pp, h)
    if search.scripted(pp, BASE):
        return scripted_answer(s, legal, n, rng, pp, BASE)
    if resumable:
        search.remember_resumable(pp, BASE, s, rng, h)
    ch = pick(s, T, legal, n, rng, pp, h, resumable)
    search.remember_answer(pp, BASE, s.shape[0], legal.shape[0], ch, rng, resumable)
    return ch


@needs_nrt
def pick(s, T, legal, n, rng, pp, h, resumable):
    """The answer: the planner's outside the horizon or with one choice,
    else the race's between the planner's answer and its next best two."""
    if n < 2 or (s[L.G_FINAL] == L.FB_NONE and moon_left(s, T) > HORIZON):
        return planner(s, T, legal, n, rng, pp, h)
    pp2 = np.empty_like(pp)
    s2 = np.empty_like(s)
    if resumable:
        cand = turn_candidates(s, T, legal, n, rng, pp, h, min(n, WIDTH))
        pp2[:] = planner_plays(pp)
        wide = pp[W_BUDGET] if s[L.G_FINAL] == L.FB_NONE else max(pp[W_BUDGET], FINAL_BUDGET)
        return cand[race(s, T, legal, rng, pp, pp2, s2, h, cand, True, CONFIDENCE, wide)]
    if pp[W_BUDGET] < DEEP_BUDGET or not search.can_replay(pp, BASE, s, L.G_ROUND):
        return planner(s, T, legal, n, rng, pp, h)
    cand, reached = replayed_candidates(s, T, legal, n, rng, pp, pp2, s2, h, WIDTH, BASE)
    if not reached:
        return cand[0]
    return cand[race(s, T, legal, rng, pp, pp2, s2, h, cand, False, DEEP_CONFIDENCE, pp[W_BUDGET])]


@needs_nrt
def sample(s, T, legal, rng2, pp, pp2, s2, legal2, h, c, resumable, sub, m):
    """The value of candidate ``c`` on future ``m`` of ``sub``."""
    if resumable:
        resume(s, T, s2, rng2, legal2, pp2, h, c, sub, m)
    else:
        pp2[pp.shape[0] - 1] = pp[pp.shape[0] - 1]     # this entry point answers the script
        replay(s2, T, rng2, legal2, pp2, c, sub, m, BASE)
    return value(s2, T, PROGRESS)


@needs_nrt
def race(s, T, legal, rng, pp, pp2, s2, h, cand, resumable, conf, wide):
    """Index into ``cand`` of the answer: the race of simcore/race.py,
    comparing at budget ``wide``."""
    vals, subs, st = racing.start(cand.shape[0], pp[W_BUDGET], wide)
    rng2 = np.empty(N_STREAMS * 4, np.uint64)
    legal2 = np.empty_like(legal)
    while True:
        j, q = racing.next_sample(vals, subs, st, conf, rng)
        if j < 0:
            return racing.answer(st)
        racing.record(vals, j, q, sample(s, T, legal, rng2, pp, pp2, s2, legal2, h, cand[j], resumable, subs[q], q))
