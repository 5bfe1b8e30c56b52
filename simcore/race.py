"""A race between a policy's answer and its alternatives on sampled futures:
how the expert players spend their search budget (both games).

Candidate 0 is the policy's own answer; the others are alternatives. Each
*future* is a seed drawn from the policy stream; every candidate sampled on a
future plays the same one (common random numbers), so candidates are
compared on paired differences. The game asks :func:`next_sample` which
candidate to play on which future, plays it to the end with the engine, gives
its value in [0, 1] to :func:`record`, and asks again until ``next_sample``
says the race is decided; :func:`answer` is then the index to play. The rules
of the race:

- while candidate 0 wins (value 1) every future, no alternative can beat it
  on them, and only candidate 0 is played; after its first ``first``
  futures it is kept. When it first fails, the alternatives play the futures
  seen so far, and the first batch is completed to ``least``.
- Futures come in batches of ``least``, up to ``most``. After each batch an
  alternative whose paired mean is at most zero (no edge so far) drops out;
  when none is left, candidate 0 is kept.
- After ``most`` futures the alternative with the largest paired mean above
  ``conf`` standard errors is the leader (none: candidate 0). The leader of a
  race is also its luckiest runner, so it must be confirmed: it and
  candidate 0 play as many fresh futures, and it is played only if its
  paired mean there is above zero.

``first`` comes from the budget: ``2 × budget`` futures (at least 1) for
candidate 0 alone. ``least`` and ``most`` come from the comparison's budget,
the budget itself unless a game gives more where its futures are cheap:
batches of ``2 × wide`` (at least 2), and ``8 × wide`` at most. With one
budget, from budget 1 on ``first`` is the first batch; below it, one won
future keeps the answer, and a comparison still starts with two. The schedule is a state machine over
small arrays so that each game's loop stays a few lines and the engine never
calls a function it is given.
"""
import numpy as np
from numba import njit

from .rng import STREAM_POLICY, next_u64

# the race's state (``st``, int64); the alive flags follow from ALIVE on
K, LEAST, MOST, M, CHECK, SURE, PHASE, LEADER, M0, ANSWER, ALIVE = range(11)
RACING, CONFIRMING, DECIDED = 0, 1, 2


@njit(cache=True)
def start(k, budget, wide):
    """A race among ``k`` candidates at ``budget``, comparing them at budget
    ``wide`` (see above): ``(vals, subs, st)``; ``vals`` holds each
    candidate's value on each future (NaN: not played)."""
    first = max(1, int(2.0 * budget + 0.5))
    least = max(2, int(2.0 * wide + 0.5))
    most = max(least, int(8.0 * wide + 0.5))
    vals = np.full((k, 2 * most), np.nan)
    subs = np.zeros(2 * most, np.uint64)
    st = np.zeros(ALIVE + k, np.int64)
    st[K], st[LEAST], st[MOST], st[CHECK], st[SURE] = k, least, most, first, 1
    st[ALIVE:] = 1
    return vals, subs, st


@njit(cache=True)
def paired(vals, j, m0, m1):
    """Mean and standard error of candidate ``j`` minus candidate 0 on futures m0 .. m1-1."""
    d = vals[j, m0:m1] - vals[0, m0:m1]
    return d.mean(), np.sqrt(d.var() / (m1 - m0))


@njit(cache=True)
def _needs(st, j):
    return st[ALIVE + j] == 1 and (j == 0 or st[SURE] == 0)


@njit(cache=True)
def next_sample(vals, subs, st, conf, rng):
    """The next ``(candidate, future)`` to play (the future's seed is
    ``subs[future]``), or ``(-1, -1)`` when the race is decided. Draws each
    new future's seed from ``rng``'s policy stream."""
    k = st[K]
    while True:
        if st[PHASE] == DECIDED:
            return -1, -1
        if st[PHASE] == CONFIRMING:
            b = st[LEADER]
            for q in range(st[M0], st[M]):
                if np.isnan(vals[0, q]):
                    return 0, q
                if np.isnan(vals[b, q]):
                    return b, q
            if st[M] < 2 * st[M0]:
                subs[st[M]] = next_u64(rng, STREAM_POLICY)
                st[M] += 1
                continue
            mean, se = paired(vals, b, st[M0], st[M])
            st[ANSWER] = b if mean > 0.0 else 0
            st[PHASE] = DECIDED
            continue
        for q in range(st[M]):
            for j in range(k):
                if _needs(st, j) and np.isnan(vals[j, q]):
                    return j, q
        m = st[M]
        if st[SURE] == 1 and m > 0 and vals[0, m - 1] < 1.0:
            st[SURE] = 0              # it lost one: the others play the futures seen so far
            st[CHECK] = st[LEAST]     # and a comparison needs a full first batch
            continue
        if m == st[CHECK]:
            if st[SURE] == 1 or not _check(vals, st, conf):
                st[ANSWER] = 0
                st[PHASE] = DECIDED
            continue
        subs[m] = next_u64(rng, STREAM_POLICY)
        st[M] = m + 1


@njit(cache=True)
def _check(vals, st, conf):
    """At the end of a batch: drop the alternatives without an edge so far, then
    either schedule the next batch or pick the leader to confirm. False when
    the race is over with candidate 0."""
    m = st[M]
    left = 0
    for j in range(1, st[K]):
        if st[ALIVE + j] == 1:
            mean, se = paired(vals, j, 0, m)
            if mean <= 0.0:
                st[ALIVE + j] = 0
            else:
                left += 1
    if left == 0:
        return False
    if m < st[MOST]:
        st[CHECK] = m + min(st[LEAST], st[MOST] - m)
        return True
    best, gain = 0, 0.0
    for j in range(1, st[K]):
        if st[ALIVE + j] == 1:
            mean, se = paired(vals, j, 0, m)
            if mean > conf * max(se, 1e-9) and mean > gain:
                best, gain = j, mean
    if best == 0:
        return False
    st[LEADER], st[M0], st[PHASE] = best, m, CONFIRMING
    return True


@njit(cache=True)
def record(vals, j, q, value):
    """Candidate ``j``'s value on future ``q``."""
    vals[j, q] = value


@njit(cache=True)
def answer(st):
    """The index of the candidate to play, once :func:`next_sample` said the race is decided."""
    return st[ANSWER]
