"""simcore/search.py: a search's memory keeps 64-bit stream words exactly in
float64 slots, and a script gives back the answers and policy streams it was
given, in order, then checks the decision it replays to."""
import numpy as np

from simcore import rng as R, search

NS, NL = 7, 4


def _memory():
    return np.zeros(search.scratch_size(NS, NL), np.float64)


def test_stream_words_survive_the_memory_exactly():
    """Every bit of every stream word comes back (a float64 holds 53 bits, so
    each word is kept in two halves)."""
    pp = _memory()
    words = np.array([0, 1, 2**53 + 1, 2**63, 2**64 - 1, 0x9E3779B97F4A7C15, 12345, 2**32 - 1]
                     + [7] * (R.N_STREAMS * 4 - 8), np.uint64)
    s = np.arange(NS, dtype=np.int32) - 3
    search.remember_resumable(pp, 0, s, words, 2)
    search.remember_answer(pp, 0, NS, NL, 11, words, True)
    s2 = np.zeros(NS, np.int32)
    back = np.zeros_like(words)
    who, ch = search.start_copy(pp, 0, s2, back, -1, 0, 0)
    assert (who, ch) == (2, 11)
    assert np.array_equal(back, words)
    assert np.array_equal(s2, s)


def test_a_script_replays_its_answers_then_checks_the_decision():
    """The answers after the snapshot come back in order, each restoring the
    policy stream as it was after it; at the end the decision is checked
    against the real one: the same state and legal choices match and get the
    candidate on re-seeded streams; a different state does not."""
    pp = _memory()
    st = np.zeros(R.N_STREAMS * 4, np.uint64)
    R.seed_streams(np.uint64(5), 0, st)
    s = np.arange(NS, dtype=np.int32)
    legal = np.array([3, 4, 0, 0], np.int32)
    search.remember_resumable(pp, 0, s, st, 0)
    search.remember_answer(pp, 0, NS, NL, 9, st, True)
    posts = []
    for ch in (4, 3):
        R.next_u64(st, R.STREAM_POLICY)
        posts.append(st[R.STREAM_POLICY * 4:R.STREAM_POLICY * 4 + 4].copy())
        search.remember_answer(pp, 0, NS, NL, ch, st, False)
    pp2 = np.zeros_like(pp)
    search.script_for(pp, pp2, 0, s, legal, 2)
    s2 = np.zeros(NS, np.int32)
    st2 = np.zeros_like(st)
    search.start_copy(pp2, 0, s2, st2, 3, 77, 1)
    skip = np.zeros(0, np.int64)
    for ch, post in zip((4, 3), posts):
        got, done = search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
        assert (got, done) == (ch, False)
        assert np.array_equal(st2[R.STREAM_POLICY * 4:R.STREAM_POLICY * 4 + 4], post)
    got, done = search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
    assert (got, done) == (3, True) and search.replay_status(pp2, 0) == search.MATCHED
    fresh = np.zeros_like(st)
    R.seed_streams(np.uint64(77), 1, fresh)
    assert np.array_equal(st2, fresh)
    search.start_copy(pp2, 0, s2, st2, 3, 77, 1)
    search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
    search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
    s2[4] += 1
    got, done = search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
    assert (got, done) == (-1, True) and search.replay_status(pp2, 0) == search.DIFFERENT
    # a slot the replay may differ in (an event counter) is not compared
    search.start_copy(pp2, 0, s2, st2, 3, 77, 1)
    search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
    search.next_scripted(pp2, 0, s2, legal, 2, st2, skip)
    s2[4] += 1
    got, done = search.next_scripted(pp2, 0, s2, legal, 2, st2, np.array([4], np.int64))
    assert got == 3 and search.replay_status(pp2, 0) == search.MATCHED
