"""The ``rollout`` search policy: the top of the skill ladder.

At a turn decision from ``horizon`` hero turns before the Shimnavore appears
until the game ends, it takes the planner's ``width`` best-scored actions and
plays each forward ``samples`` times to the end of the game with the engine
itself (the rest of this turn, the round, the Enemy Phases, the Final Battle),
every hero played by ``planner``. A won game is worth 1, a lost one
``progress`` × the share of the six Shimnavore wounds dealt. It keeps the
planner's own choice unless another candidate beats it on the same sampled
futures by more than ``confidence`` standard errors of the paired difference:
a few rollouts are noisy, and switching on noise would play worse than the
planner. In the early game, where one action barely moves the odds, it plays
as ``planner``.

The other decisions (Talisman, Relic and Skill reactions in combat, cards to
equip or discard, charms or cards to lose, the solo pick, rewards) the engine
cannot resume a copy from: with ``deep`` 1 it searches them too, the
planner's answer and the other legal ones up to ``width``, on copies that
replay the game from the last turn decision to this one (simcore/search.py;
every replay is checked to reach the real decision exactly). ``deep`` is 0
by default, the planner's answer there: docs/mournequest/policies.md gives
what deep search is worth and costs.

The continuations are fair: each sample re-seeds the dice, encounter and
policy streams from the policy's own stream and reshuffles the face-down
equipment and relic decks, so the search never sees the real game's future.
The same samples are used for every candidate (common random numbers), so
candidates are compared on the same futures.

It is registered as a plug-in (``mournesim.plugins``) because it calls the
engine from inside a policy: the engine calls this ``choose`` through its
entry point's address (simcore/fnptr.py), and ``choose`` runs continuations
on the engine with the planner playing — no recursion among numba kernels.
The copies' ``pp`` ends with the planner's entry point (``uses``, which
policy_vector puts before this policy's own), so the engine asks the planner
there directly.
"""
import numpy as np
from numba import njit

from simcore import search
from simcore.jit import needs_nrt
from simcore.rng import N_STREAMS, STREAM_POLICY, STREAM_SETUP, next_u64, seed_streams, shuffle
from . import layout as L
from . import tables as TB
from .core import running
from .layout import code_op
from .final import end_of_turn
from .game import finish_round, play
from .plan import NP_PLANNER, PLANNER_DEFAULTS, PLANNER_PARAMS, moon_left
from .policies import POLICY_PLANNER, best_scored_mode, plan_goal, planner
from .rules import apply_turn, turn_actions

# the planner's parameters first (the continuations play the planner with
# them), then the search's own, read from index NP_PLANNER on
PARAMS = dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)) | {
    "width": 3.0, "samples": 12.0, "horizon": 8.0, "progress": 0.5, "confidence": 2.0, "deep": 0.0}
W_WIDTH, W_SAMPLES, W_HORIZON, W_PROGRESS, W_CONFIDENCE, W_DEEP = range(NP_PLANNER, NP_PLANNER + 6)
BASE = len(PARAMS)        # the search's memory follows its parameters in pp (simcore.search)
SCRATCH = search.scratch_size(L.STATE_SIZE, L.MAX_LEGAL)
# state slots a replay may differ in: the event log's counters (the copies log nothing)
SKIP = np.array([L.G_LOG, L.G_LOGN, L.G_SNAPN], np.int64)
DESCRIPTION = ("search: plays the planner's best few actions forward to the end of the game "
               "with the engine itself and keeps the best; planner elsewhere")


@needs_nrt
def continuation(s2, T, rng2, legal2, pp, h, ch):
    """Play a copied game from hero ``h``'s turn decision ``ch`` to its end."""
    ev = np.zeros((1, L.EV_COLS), np.int32)
    snaps = np.zeros((1, L.STATE_SIZE), np.int32)
    if code_op(ch) != L.A_END:
        apply_turn(s2, T, ev, rng2, legal2, pp, h, ch)
        turn_actions(s2, T, ev, rng2, legal2, pp, h)
    s2[L.G_MUST_MOVE] = 0
    if running(s2):
        end_of_turn(s2, T, ev, rng2, legal2, pp, h)
    if running(s2):
        finish_round(s2, T, ev, snaps, rng2, legal2, pp, h + 1)
    if running(s2):
        play(s2, T, ev, snaps, rng2, legal2, pp)


@njit(cache=True)
def value(s2, T, progress):
    """A finished continuation's worth: 1 for a win, else partial credit for
    the share of the wins against the Shimnavore that were scored."""
    if s2[L.G_OUTCOME] == L.OUT_WIN:
        return 1.0
    w = s2[L.G_SHIM_WOUNDS] + s2[L.G_SHIM_WOUNDS + 1] + s2[L.G_SHIM_WOUNDS + 2]
    return progress * w / (3.0 * T[TB.P_SHIMNAVORE_WINS_PER_ABILITY])


@njit(cache=True)
def forget_hidden(s2, rng2):
    """The players know which cards are face down but not their order: sort
    the equipment and relic decks (forget the real order), then shuffle."""
    eq = s2[L.G_EQ_DECK:L.G_EQ_DECK + s2[L.G_EQ_N]]
    eq.sort()
    shuffle(rng2, STREAM_SETUP, eq, eq.shape[0])
    rel = s2[L.G_RELIC_DECK:L.G_RELIC_DECK + s2[L.G_RELIC_N]]
    rel.sort()
    shuffle(rng2, STREAM_SETUP, rel, rel.shape[0])


@needs_nrt
def choose(s, T, legal, n, rng, pp, h):
    """Pick one of ``legal[:n]`` for hero ``h`` (see the module docstring);
    in a copy that replays the game, the script's answer."""
    resumable = code_op(legal[0]) < L.R_ACCEPT      # a turn action: the engine resumes a copy here
    if pp.shape[0] < BASE + SCRATCH + 2:
        # parameters only (called directly, not with policy_vector's pp): no
        # planner's entry point for the copies to call, so no search
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
    """The search's answer: a turn decision searched by resuming copies, any
    other by replaying them (simcore.search; ``pp`` holds the search's
    memory); the planner's outside the horizon."""
    width = int(pp[W_WIDTH])
    samples = int(pp[W_SAMPLES])
    if width < 2 or samples < 1 or (s[L.G_FINAL] == L.FB_NONE and moon_left(s, T) > pp[W_HORIZON]):
        return planner(s, T, legal, n, rng, pp, h)
    if not resumable:
        if pp[W_DEEP] == 0 or not search.can_replay(pp, BASE, s, L.G_ROUND):
            return planner(s, T, legal, n, rng, pp, h)
        return search_replayed(s, T, legal, n, rng, pp, h, width, samples)
    k = min(width, n)
    cand = turn_candidates(s, T, legal, n, rng, pp, h, k)
    vals = np.zeros((k, samples), np.float64)
    s2 = np.empty_like(s)
    rng2 = np.empty(N_STREAMS * 4, np.uint64)
    legal2 = np.empty_like(legal)
    pp2 = planner_plays(pp)
    for m in range(samples):
        sub = next_u64(rng, STREAM_POLICY)
        for j in range(k):
            resume(s, T, s2, rng2, legal2, pp2, h, cand[j], sub, m)
            vals[j, m] = value(s2, T, pp[W_PROGRESS])
    return cand[best_of(vals, pp[W_CONFIDENCE])]


@needs_nrt
def turn_candidates(s, T, legal, n, rng, pp, h, k):
    """The planner's ``k`` best-scored turn actions, best first (ties in
    legal order)."""
    scores = np.empty(n, np.float64)
    best_scored_mode(s, T, legal, n, rng, pp, h, plan_goal(s, T, h, pp), True, scores)
    cand = np.empty(k, np.int32)      # legal codes, int32 as the engine passes them: one compile
    used = np.zeros(n, np.bool_)
    for j in range(k):
        b = -1
        for i in range(n):
            if not used[i] and (b < 0 or scores[i] > scores[b]):
                b = i
        used[b] = True
        cand[j] = legal[b]
    return cand


@needs_nrt
def resume(s, T, s2, rng2, legal2, pp2, h, c, sub, m):
    """Sample ``m`` of ``sub``: a copy of the game at hero ``h``'s turn
    decision, its hidden order forgotten and its streams re-seeded, played
    from action ``c`` to the end, the planner playing (``pp2``)."""
    s2[:] = s
    s2[L.G_POLICY] = POLICY_PLANNER
    s2[L.G_LOG] = 0
    seed_streams(sub, m, rng2)
    forget_hidden(s2, rng2)
    continuation(s2, T, rng2, legal2, pp2, h, c)


@needs_nrt
def search_replayed(s, T, legal, n, rng, pp, h, width, samples):
    """Search a decision inside a turn (a reaction, a card, a loss to choose):
    each candidate is tried on copies that replay the game from the last turn
    decision to this one (simcore.search). The planner's answer first, then
    the other legal choices in order, ``width`` in all."""
    pp2 = np.empty_like(pp)
    s2 = np.empty_like(s)
    cand, reached = replayed_candidates(s, T, legal, n, rng, pp, pp2, s2, h, width, BASE)
    if not reached:
        return cand[0]
    k = cand.shape[0]
    rng2 = np.empty(N_STREAMS * 4, np.uint64)
    legal2 = np.empty_like(legal)
    vals = np.zeros((k, samples), np.float64)
    last = pp.shape[0] - 1
    for m in range(samples):
        sub = next_u64(rng, STREAM_POLICY)
        for j in range(k):
            pp2[last] = pp[last]      # this entry point answers the script (scripted_answer)
            replay(s2, T, rng2, legal2, pp2, cand[j], sub, m, BASE)
            vals[j, m] = value(s2, T, pp[W_PROGRESS])
    return cand[best_of(vals, pp[W_CONFIDENCE])]


@needs_nrt
def replayed_candidates(s, T, legal, n, rng, pp, pp2, s2, h, width, base):
    """The answers to try at a decision inside a turn: the planner's first,
    then the other legal ones in order, ``width`` in all, and whether the
    replay from the last turn decision reaches this one (if not, the planner's
    answer alone, and nothing is drawn from the real game's streams, as
    without a search).
    Leaves ``pp2`` the copies' script (simcore.search; ``base``: where the
    search's memory starts in ``pp``)."""
    first = planner(s, T, legal, n, rng, pp, h)
    search.script_for(pp, pp2, base, s, legal, n)
    rng2 = np.empty(N_STREAMS * 4, np.uint64)
    legal2 = np.empty_like(legal)
    # (the arguments typed as in the calls that play candidates: numba compiles once per types)
    replay(s2, T, rng2, legal2, pp2, np.int32(-1), np.uint64(0), np.int64(0), base)
    failed = search.replay_status(pp2, base) != search.MATCHED
    search.count(pp, base, failed)
    k = 1 if failed else min(width, n)
    cand = np.empty(k, np.int32)
    cand[0] = first
    j = 1
    for i in range(n):
        if j < k and legal[i] != first:
            cand[j] = legal[i]
            j += 1
    return cand, not failed


@needs_nrt
def replay(s2, T, rng2, legal2, pp2, cand, sub, m, base):
    """Play a copy from the snapshot to the decision searched, answer ``cand``
    there (-1: stop there) and play on to the end of the game (``base``: where
    the search's memory starts in ``pp2``)."""
    who, ch = search.start_copy(pp2, base, s2, rng2, cand, sub, m)
    s2[L.G_LOG] = 0
    continuation(s2, T, rng2, legal2, pp2, who, ch)


@njit(cache=True)
def planner_plays(pp):
    """``pp`` for copies the planner plays on: the engine calls the address
    in its last element, here the planner's entry point, which policy_vector
    put before this policy's own (``uses``)."""
    pp2 = pp.copy()
    pp2[pp2.shape[0] - 1] = pp[pp.shape[0] - 2]
    return pp2


@njit(cache=True)
def scripted_answer(s, legal, n, rng, pp, base):
    """A replaying copy's answer: the game's own answers up to the decision
    searched, then the candidate on re-seeded streams and reshuffled decks,
    the planner playing on; a copy that is only checked, or that is not where
    the game was, ends there."""
    ch, done = search.next_scripted(pp, base, s, legal, n, rng, SKIP)
    if not done:
        return ch
    s[L.G_POLICY] = POLICY_PLANNER
    pp[pp.shape[0] - 1] = pp[pp.shape[0] - 2]     # (a copy's pp) the planner's entry point answers on
    if ch < 0:
        s[L.G_OUTCOME] = L.OUT_CAP
        return legal[0]
    forget_hidden(s, rng)
    return ch


@njit(cache=True)
def best_of(vals, confidence):
    """The row of ``vals`` (candidates × the same sampled futures) to play:
    the first (the planner's) unless another is better on the same futures
    by more than ``confidence`` standard errors of the paired mean."""
    samples = vals.shape[1]
    best = 0
    best_gain = 0.0
    for j in range(1, vals.shape[0]):
        d = vals[j] - vals[0]
        mean = d.mean()
        se = np.sqrt(max(d.var(), 1e-12) / samples)
        if mean > confidence * se and mean > best_gain:
            best = j
            best_gain = mean
    return best
