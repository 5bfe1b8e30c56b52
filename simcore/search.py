"""What a search policy remembers of its game, so that it can search a
decision the engine cannot resume from.

The rule kernels ask the policy from deep inside combat, cards and set-up,
and keep their place in numba's call stack, so a copied state can be played
on only from a decision at the top of a turn (MourneQuest's turn actions,
Quest Master's movement choice): a *resumable* decision. For any other
decision the search replays instead of resuming. At each resumable decision
it keeps a copy of the state and the random streams (the *snapshot*) and the
answer it gave; after it, every answer it gives, each with the state of the
policy stream after it (the other seats' policies draw from that stream,
and the search's own sampling moved it). To try candidate ``c`` at a later
decision it copies the snapshot, resumes the copy from the snapshot's
answer with itself as the policy in *script* mode, which gives the
remembered answers in order and restores the policy stream after each, so
the copy retraces the real game exactly (the dice and encounter streams
are in the snapshot; the rules draw nothing from the policy stream). At the
end of the script the copy is at the decision being searched: the script
checks that the state and the legal choices are the real ones, answers
``c``, and the game re-seeds the streams and reshuffles its hidden decks
there, as its other continuations do, and plays on.

The memory is ``SCRATCH`` float64 slots of the policy's parameter vector
``pp``, after its parameters (``register(..., scratch=SCRATCH)``): the
engine owns nothing of it and passes it to the policy on every call, in the
real game and in the copies. Each copy gets its own ``pp`` (a copy in script
mode), so a replay never writes the real game's memory. A slot holds an
int32 value exactly; a 64-bit stream word is split in two 32-bit halves.

A replay that does not reach the same state (a snapshot of an earlier game,
a game that differs from its replay) is found by the check before any
candidate is tried, and the decision is then the fallback policy's, with
nothing drawn from the real game's streams: the game is the same whether or
not the search had a snapshot to try. ``searched`` and ``failed`` count
both, per ``pp``.
"""
import numpy as np
from numba import njit

from .rng import N_STREAMS, STREAM_POLICY, seed_streams

MAX_LOG = 512            # answers kept after a snapshot; beyond, the snapshot is dropped
RECORD, SCRIPT = 0.0, 1.0
# the head of the memory
MODE, SNAP_OK, SNAP_WHO, SNAP_CH, NLOG, CURSOR, CAND, STATUS, SUB_HI, SUB_LO, SAMPLE, TARGET_N, \
    SEARCHED, FAILED = range(14)
HEAD = 16
PENDING, MATCHED, DIFFERENT = 0, 1, 2       # STATUS of a replay
RNG_SLOTS = N_STREAMS * 4 * 2               # every stream word in two halves
POST_SLOTS = 8                              # the policy stream's four words after an answer
ENTRY = 1 + POST_SLOTS                      # a remembered answer and the policy stream after it


def scratch_size(state_size, max_legal):
    """The slots a game with ``state_size`` ints of state needs."""
    return HEAD + 2 * state_size + RNG_SLOTS + POST_SLOTS + max_legal + MAX_LOG * ENTRY


@njit(cache=True)
def _offsets(base, ns, nl):
    snap = base + HEAD
    rng = snap + ns
    post = rng + RNG_SLOTS
    target = post + POST_SLOTS
    tlegal = target + ns
    return snap, rng, post, target, tlegal, tlegal + nl


@njit(cache=True)
def _put_words(pp, o, st, first, count):
    for k in range(count):
        w = st[first + k]
        pp[o + 2 * k] = np.float64(w >> np.uint64(32))
        pp[o + 2 * k + 1] = np.float64(w & np.uint64(0xFFFFFFFF))


@njit(cache=True)
def _get_words(pp, o, st, first, count):
    for k in range(count):
        st[first + k] = (np.uint64(pp[o + 2 * k]) << np.uint64(32)) | np.uint64(pp[o + 2 * k + 1])


@njit(cache=True)
def scripted(pp, base):
    """True in a copy that replays the remembered answers."""
    return pp[base + MODE] == SCRIPT


@njit(cache=True)
def remember_resumable(pp, base, s, rng, who):
    """Before answering a resumable decision of ``who``: keep the state and
    the streams, and forget the answers remembered after the last one."""
    snap, orng, post, target, tlegal, log = _offsets(base, s.shape[0], 0)
    for i in range(s.shape[0]):
        pp[snap + i] = s[i]
    _put_words(pp, orng, rng, 0, N_STREAMS * 4)
    pp[base + SNAP_WHO] = who
    pp[base + NLOG] = 0
    pp[base + SNAP_OK] = 1


@njit(cache=True)
def remember_answer(pp, base, ns, nl, ch, rng, resumable):
    """After answering: the answer and the policy stream it left, as the
    snapshot's answer or appended to the script."""
    snap, orng, post, target, tlegal, log = _offsets(base, ns, nl)
    if resumable:
        pp[base + SNAP_CH] = ch
        _put_words(pp, post, rng, STREAM_POLICY * 4, 4)
        return
    k = int(pp[base + NLOG])
    if pp[base + SNAP_OK] == 0:
        return
    if k >= MAX_LOG:
        pp[base + SNAP_OK] = 0          # too long ago to replay: search this turn no further
        return
    o = log + k * ENTRY
    pp[o] = ch
    _put_words(pp, o + 1, rng, STREAM_POLICY * 4, 4)
    pp[base + NLOG] = k + 1


@njit(cache=True)
def can_replay(pp, base, s, round_slot):
    """Whether a snapshot is kept to replay from. One from a later round than
    ``s[round_slot]`` is of an earlier game of the batch (the memory lasts
    the batch): not worth a replay that cannot reach this decision."""
    return pp[base + SNAP_OK] == 1 and pp[base + HEAD + round_slot] <= s[round_slot]


@njit(cache=True)
def script_for(pp, pp2, base, s, legal, n):
    """Make ``pp2`` the memory of the copies that replay to this decision:
    a copy of ``pp`` in script mode that knows the state and legal choices
    the replay must reach."""
    pp2[:] = pp
    snap, orng, post, target, tlegal, log = _offsets(base, s.shape[0], legal.shape[0])
    for i in range(s.shape[0]):
        pp2[target + i] = s[i]
    for i in range(n):
        pp2[tlegal + i] = legal[i]
    pp2[base + TARGET_N] = n
    pp2[base + MODE] = SCRIPT


@njit(cache=True)
def start_copy(pp2, base, s2, rng2, cand, sub, m):
    """Set ``s2``/``rng2`` to the snapshot and ``pp2`` to replay to the
    decision and answer ``cand`` there (-1: only check that it is reached),
    then re-seed with ``(sub, m)``. Returns (who, answer) of the snapshot's
    decision, from which the game resumes the copy."""
    snap, orng, post, target, tlegal, log = _offsets(base, s2.shape[0], 0)
    for i in range(s2.shape[0]):
        s2[i] = np.int32(pp2[snap + i])
    _get_words(pp2, orng, rng2, 0, N_STREAMS * 4)
    _get_words(pp2, post, rng2, STREAM_POLICY * 4, 4)
    pp2[base + CURSOR] = 0
    pp2[base + CAND] = cand
    pp2[base + STATUS] = PENDING
    sub = np.uint64(sub)
    pp2[base + SUB_HI] = np.float64(sub >> np.uint64(32))
    pp2[base + SUB_LO] = np.float64(sub & np.uint64(0xFFFFFFFF))
    pp2[base + SAMPLE] = m
    # int32 as the engine passes a legal code, so the game's resume compiles once
    return np.int64(pp2[base + SNAP_WHO]), np.int32(pp2[base + SNAP_CH])


@njit(cache=True)
def next_scripted(pp2, base, s, legal, n, rng, skip):
    """A copy's answer in script mode: the next remembered answer (the policy
    stream restored as it was after it), or at the end of the script the
    candidate. Returns (answer, done): ``done`` means the script has ended
    here; ``pp2``'s STATUS then says whether this is the decision searched
    (MATCHED; the answer is the candidate, or -1 for a check only, and the
    streams are re-seeded: the game reshuffles its hidden decks) or not
    (DIFFERENT; answer -1). ``skip``: state slots a replay may differ in (the
    event log's counters)."""
    ns = s.shape[0]
    snap, orng, post, target, tlegal, log = _offsets(base, ns, legal.shape[0])
    k = int(pp2[base + CURSOR])
    if k < pp2[base + NLOG]:
        o = log + k * ENTRY
        _get_words(pp2, o + 1, rng, STREAM_POLICY * 4, 4)
        pp2[base + CURSOR] = k + 1
        return np.int64(pp2[o]), False
    same = n == pp2[base + TARGET_N]
    for i in range(n):
        if legal[i] != pp2[tlegal + i]:
            same = False
    for i in range(ns):
        if s[i] != pp2[target + i]:
            skipped = False
            for j in skip:
                if i == j:
                    skipped = True
            if not skipped:
                same = False
    if not same:
        pp2[base + STATUS] = DIFFERENT
        return np.int64(-1), True
    pp2[base + STATUS] = MATCHED
    cand = np.int64(pp2[base + CAND])
    if cand >= 0:
        sub = (np.uint64(pp2[base + SUB_HI]) << np.uint64(32)) | np.uint64(pp2[base + SUB_LO])
        seed_streams(sub, np.int64(pp2[base + SAMPLE]), rng)
    return cand, True


@njit(cache=True)
def replay_status(pp2, base):
    """PENDING (the copy ended before the decision), MATCHED or DIFFERENT."""
    return pp2[base + STATUS]


@njit(cache=True)
def count(pp, base, failed):
    """Count a searched decision, or one whose replay did not reach it."""
    pp[base + (FAILED if failed else SEARCHED)] += 1
