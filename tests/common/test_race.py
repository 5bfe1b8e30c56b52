"""The race with which both games' experts spend their search budget
(simcore/race.py), on made-up values: what it plays, how many futures it
spends, and that a switch needs an edge confirmed on fresh futures."""
import numpy as np
import pytest

from simcore import race
from simcore.rng import N_STREAMS, seed_streams


def _run(k, budget, value, conf=2.0, seed=5, wide=None):
    """Race ``k`` candidates whose value on future ``q`` is ``value(j, q)``;
    returns (answer, futures opened, plays per candidate, the futures' seeds)."""
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    seed_streams(np.uint64(seed), 0, rng)
    vals, subs, st = race.start(k, budget, budget if wide is None else wide)
    plays = np.zeros(k, int)
    while True:
        j, q = race.next_sample(vals, subs, st, conf, rng)
        if j < 0:
            break
        assert np.isnan(vals[j, q]), "a candidate played the same future twice"
        plays[j] += 1
        race.record(vals, j, q, value(j, q))
    return race.answer(st), int(st[race.M]), plays, subs[:st[race.M]].copy()


@pytest.mark.parametrize("budget, first, least, most", [(0.5, 1, 2, 4), (0.75, 2, 2, 6), (1.0, 2, 2, 8),
                                                        (2.0, 4, 4, 16), (4.0, 8, 8, 32)])
def test_the_budget_sets_the_first_batch_and_the_cap(budget, first, least, most):
    _, _, st = race.start(2, budget, budget)
    assert (st[race.CHECK], st[race.LEAST], st[race.MOST]) == (first, least, most)


def test_a_wider_comparison_keeps_the_first_futures():
    """A comparison at a larger budget (where a game's futures are cheap):
    the sure answer still costs ``2 × budget`` futures, the batches and the
    cap follow the wider budget."""
    _, _, st = race.start(2, 0.5, 8.0)
    assert (st[race.CHECK], st[race.LEAST], st[race.MOST]) == (1, 16, 64)
    ans, m, plays, _ = _run(3, 0.5, lambda j, q: 1.0 if q == 0 else 0.0, wide=8.0)
    assert (ans, m) == (0, 1) and list(plays) == [1, 0, 0]
    # lost at once: everyone plays the first batch of 16; the others have no edge and drop out
    ans, m, plays, _ = _run(3, 0.5, lambda j, q: 0.0, wide=8.0)
    assert (ans, m) == (0, 16) and list(plays) == [16, 16, 16]


def test_below_budget_one_a_single_won_future_keeps_the_answer():
    """At budget 0.5 candidate 0 alone, one future: it won, so it is kept
    even though it would have lost the next one."""
    ans, m, plays, _ = _run(3, 0.5, lambda j, q: 1.0 if q == 0 else 0.0)
    assert (ans, m) == (0, 1) and list(plays) == [1, 0, 0]


def test_below_budget_one_a_lost_future_starts_a_full_first_batch():
    """At budget 0.5 candidate 0 loses its first future: the others play it,
    the batch is completed to two futures for everyone, the race runs to its
    cap (4) and the leader is confirmed on 4 fresh futures."""
    ans, m, plays, _ = _run(3, 0.5, lambda j, q: 1.0 if j == 2 else 0.0)
    assert (ans, m) == (2, 8) and list(plays) == [8, 2, 8]


def test_an_answer_that_wins_every_future_is_kept_after_one_batch_alone():
    """No alternative can do better than a win on the same future, so only
    candidate 0 is played, for the first batch only."""
    ans, m, plays, _ = _run(3, 1.0, lambda j, q: 1.0)
    assert (ans, m) == (0, 2) and list(plays) == [2, 0, 0]


def test_alternatives_without_an_edge_drop_out_after_the_first_batch():
    ans, m, plays, _ = _run(3, 2.0, lambda j, q: 0.25)
    assert (ans, m) == (0, 4) and list(plays) == [4, 4, 4]


def test_a_clearly_better_alternative_is_confirmed_on_as_many_fresh_futures():
    """Candidate 0 loses every future, candidate 2 wins every one: once 0
    loses, the others catch up on the futures seen; the race runs to its cap
    (8 at budget 1), 1 drops out, 2 leads and is confirmed on 8 fresh futures."""
    ans, m, plays, subs = _run(3, 1.0, lambda j, q: 1.0 if j == 2 else 0.0)
    assert (ans, m) == (2, 16)
    assert list(plays) == [16, 2, 16]
    assert len(set(subs.tolist())) == 16, "every future has its own seed"


def test_a_leader_that_fails_its_confirmation_is_not_played():
    """Ahead on the race's futures by chance, behind on the fresh ones."""
    ans, m, plays, _ = _run(2, 1.0, lambda j, q: float(j == 1) if q < 8 else float(j == 0))
    assert (ans, m) == (0, 16) and list(plays) == [16, 16]


def test_an_edge_within_noise_is_not_played():
    """Candidate 1 ahead after every batch, but by less than two standard
    errors after the last: candidate 0 is kept."""
    d = [1, 0, 1, -1, 0, 1, -1, 0]                    # candidate 1 minus candidate 0, future by future
    pair = {1: (0.0, 1.0), -1: (1.0, 0.0), 0: (0.5, 0.5)}
    ans, m, plays, _ = _run(2, 1.0, lambda j, q: pair[d[q]][j])
    assert (ans, m) == (0, 8) and list(plays) == [8, 8]


def test_an_alternative_behind_or_level_after_a_batch_drops_out():
    """Level after the first batch (one future each way): dropped there."""
    ans, m, plays, _ = _run(2, 1.0, lambda j, q: float(j == 1) if q == 0 else float(j == 0))
    assert (ans, m) == (0, 2) and list(plays) == [2, 2]


def test_the_futures_come_from_the_policy_stream_deterministically():
    a = _run(2, 1.0, lambda j, q: 0.0 if j == 0 else 1.0, seed=9)
    b = _run(2, 1.0, lambda j, q: 0.0 if j == 0 else 1.0, seed=9)
    c = _run(2, 1.0, lambda j, q: 0.0 if j == 0 else 1.0, seed=10)
    np.testing.assert_array_equal(a[3], b[3])
    assert not np.array_equal(a[3], c[3])
