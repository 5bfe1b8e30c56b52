"""``rollout``: the Quest Master search policy, the top of the ladder.

At each movement choice (move the number, or take the symbol; the biggest
decision of a turn) it plays every legal option forward to the end of the
game ``samples`` times with the engine itself, every seat played by the
planner, and takes the option that wins most often — but keeps the
planner's own choice unless another beats it by ``confidence`` standard
errors of the paired difference (the same sampled futures serve every
option: common random numbers). Every other decision is the planner's
(but see ``deep`` below).

The search is fair about what is hidden: each sample re-seeds the dice and
re-shuffles the face-down Item and Event decks from the policy's own stream,
so it never sees the real future. (It does see opponents' hands, as the
planner's scoring does.)

It calls the engine from inside a policy, so it is registered as a plug-in:
the engine calls it through its entry point's address (simcore/fnptr.py), so
there is no recursion between numba kernels. Its row holds the planner's
entry point just before its own (``uses``): its copies give every seat
that address, so the engine asks the planner there directly.

With ``deep`` 1 it also searches the other decisions (cards before and
after the roll, warps, forks, targets, attacks, defences, discards) by
replaying the game from the seat's last movement choice to the decision
(simcore/search.py): the engine cannot resume a copy from inside a turn.
``deep`` is 0 by default (docs/questmaster/policies.md: what it is worth). The
replay retraces the real game exactly (checked before any candidate is
tried) and needs every other seat to be a built-in policy; with another
plug-in at the table the seat plays the planner there. After the candidate
the sample re-seeds and re-shuffles as above; the search's seat then plays
the planner and the other seats their own policies (a movement search's
continuations play the planner in every seat).
"""
import numpy as np
from numba import njit

from simcore import search
from simcore.jit import needs_nrt
from simcore.rng import N_STREAMS, STREAM_POLICY, STREAM_SETUP, next_u64, seed_streams, shuffle
from . import layout as L
from .core import over, pb
from .game import finish_round, play
from .policies import PLANNER_DEFAULTS, PLANNER_PARAMS, POLICY_PLANNER, POLICY_PLUGIN, planner
from .turn import after_choice

# the planner's parameters (played by the search's every seat), then its own
PARAMS = {**dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)), "samples": 16.0, "confidence": 1.5, "deep": 0.0}
NP = len(PLANNER_PARAMS)
SAMPLES, CONFIDENCE, DEEP = NP, NP + 1, NP + 2
# the working memory after the parameters: the table's rows (questsim.plugins), then the search's record
TABLE = L.MAX_PARAMS
ROW = L.MAX_PARAMS + 1
BASE = TABLE + L.TABLE_SLOTS
SCRATCH = search.scratch_size(L.STATE_SIZE, L.MAX_LEGAL)
# state slots a replay may differ in: the event log's counters (the copies log nothing)
SKIP = np.array([L.G_LOG, L.G_LOGN, L.G_NSNAP], np.int64)
DESCRIPTION = ("search: plays each movement option to the end of the game on sampled futures "
               "(planners everywhere), keeps the planner's choice unless another is clearly better")


@njit(cache=True)
def forget_hidden(s2, rng2):
    """Forget the real order of the face-down Item and Event decks, then deal a new one."""
    for deck, n in ((L.G_ITEM_DECK, s2[L.G_ITEM_N]), (L.G_EVENT_DECK, s2[L.G_EVENT_N])):
        s2[deck:deck + n] = np.sort(s2[deck:deck + n])
        shuffle(rng2, STREAM_SETUP, s2[deck:deck + n], n)


@needs_nrt
def play_on(s2, T, ev2, snaps2, rng2, legal2, pp2, seat, c):
    """Play a copied game on from ``seat``'s movement choice ``c`` to its end."""
    after_choice(s2, T, ev2, rng2, legal2, pp2, seat, c)
    if not over(s2):
        finish_round(s2, T, ev2, rng2, legal2, pp2, seat)
    if not over(s2):
        play(s2, T, ev2, snaps2, rng2, legal2, pp2)


@njit(cache=True)
def continuation(s, s2, T, rng2, legal2, ev2, snaps2, pp2, seat, c, seed):
    """Play option ``c`` to the end of the game on one sampled future;
    1.0 if ``seat`` wins."""
    s2[:] = s
    s2[L.G_LOG] = 0
    seed_streams(seed, 0, rng2)
    forget_hidden(s2, rng2)
    for p in range(s2[L.G_NP]):
        s2[L.G_P + p * L.PS + L.S_POLICY] = POLICY_PLANNER
    play_on(s2, T, ev2, snaps2, rng2, legal2, pp2, seat, c)
    return 1.0 if s2[L.G_WINNER] == seat else 0.0


@needs_nrt
def choose(s, T, legal, n, rng, pp, seat):
    """Pick one of ``legal[:n]`` for ``seat`` (see the module docstring); in a
    copy that replays the game, the script's answer."""
    resumable = s[L.G_CTX] == L.CTX_MOVE      # the engine resumes a copy from a movement choice
    if pp.shape[0] < BASE + SCRATCH + 2:
        # parameters only (called directly, not with questsim.sim's row): no
        # planner's entry point for the copies to call, so no search
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
    """The search's answer: a movement choice searched on resumed copies, any
    other decision on replayed ones (simcore.search; ``pp`` holds the
    search's memory)."""
    base = planner(s, T, legal, n, rng, pp, seat)
    samples = int(pp[SAMPLES])
    if n < 2 or samples < 2:
        return base
    if not resumable:
        if pp[DEEP] == 0 or not search.can_replay(pp, BASE, s, L.G_ROUND) or other_plugins(s, seat):
            return base
        return search_replayed(s, T, legal, n, rng, pp, seat, samples, base)
    s2 = np.empty_like(s)
    rng2 = np.zeros(N_STREAMS * 4, np.uint64)
    legal2 = np.zeros(L.MAX_LEGAL, np.int32)
    ev2 = np.zeros((1, L.EV_COLS), np.int32)
    snaps2 = np.zeros((1, L.STATE_SIZE), np.int32)     # logging is off: never written
    pp2 = planner_rows(pp, NP)
    vals = np.zeros((n, samples))
    for m in range(samples):
        seed = next_u64(rng, STREAM_POLICY)
        for j in range(n):
            vals[j, m] = continuation(s, s2, T, rng2, legal2, ev2, snaps2, pp2, seat, legal[j], seed)
    return best_of(legal, n, vals, base, pp[CONFIDENCE])


@njit(cache=True)
def other_plugins(s, seat):
    """Whether another seat plays a plug-in: a replay could not retrace its answers."""
    for p in range(s[L.G_NP]):
        if p != seat and s[pb(p) + L.S_POLICY] == POLICY_PLUGIN:
            return True
    return False


@needs_nrt
def search_replayed(s, T, legal, n, rng, pp, seat, samples, base):
    """Search a decision other than movement: every legal option tried on
    copies that replay the game from the seat's last movement choice to
    this decision (simcore.search)."""
    s2 = np.empty_like(s)
    rng2 = np.zeros(N_STREAMS * 4, np.uint64)
    legal2 = np.zeros(L.MAX_LEGAL, np.int32)
    ev2 = np.zeros((1, L.EV_COLS), np.int32)
    snaps2 = np.zeros((1, L.STATE_SIZE), np.int32)
    pp3 = replay_rows(s, T, legal, n, pp, seat, BASE, s2, rng2, legal2, ev2, snaps2)
    if pp3.shape[0] == 0:
        return base
    w = pp.shape[0]
    vals = np.zeros((n, samples))
    for m in range(samples):
        sub = next_u64(rng, STREAM_POLICY)
        for j in range(n):
            pp3[seat, w - 1] = pp[w - 1]      # this entry point answers the script (scripted_answer)
            replay(s2, T, rng2, legal2, ev2, snaps2, pp3, seat, legal[j], sub, m, BASE)
            vals[j, m] = 1.0 if s2[L.G_WINNER] == seat else 0.0
    return best_of(legal, n, vals, base, pp[CONFIDENCE])


@njit(cache=True)
def planner_rows(pp, np_planner):
    """The copies' rows when every seat plays the planner: its parameters
    (the first ``np_planner`` of ``pp``) and its entry point (``uses``: just
    before this policy's own)."""
    pp2 = np.zeros((L.MAX_PLAYERS, L.MAX_PARAMS + 1))
    for p in range(L.MAX_PLAYERS):
        pp2[p, :np_planner] = pp[:np_planner]
        pp2[p, L.MAX_PARAMS] = pp[pp.shape[0] - 2]
    return pp2


@needs_nrt
def replay_rows(s, T, legal, n, pp, seat, base, s2, rng2, legal2, ev2, snaps2):
    """The rows of copies that replay the game from ``seat``'s last movement
    choice to this decision (every seat its own policy, this seat in script
    mode; simcore.search, ``base``: where the search's memory starts), or no
    rows when the replay does not reach it (checked first, drawing nothing
    from the real game's streams: the decision is then the planner's, as
    without a search)."""
    w = pp.shape[0]
    pp3 = np.zeros((L.MAX_PLAYERS, w))
    for p in range(L.MAX_PLAYERS):
        o = TABLE + p * ROW
        pp3[p, :L.MAX_PARAMS] = pp[o:o + L.MAX_PARAMS]
        pp3[p, w - 1] = pp[o + L.MAX_PARAMS]
    search.script_for(pp, pp3[seat], base, s, legal, n)
    # (the arguments typed as in the calls that play candidates: numba compiles once per types)
    replay(s2, T, rng2, legal2, ev2, snaps2, pp3, seat, np.int32(-1), np.uint64(0), np.int64(0), base)
    failed = search.replay_status(pp3[seat], base) != search.MATCHED
    search.count(pp, base, failed)
    if failed:
        return pp3[:0]
    return pp3


@needs_nrt
def replay(s2, T, rng2, legal2, ev2, snaps2, pp3, seat, cand, sub, m, base):
    """Play a copy from the seat's last movement choice to the decision
    searched, answer ``cand`` there (-1: stop there) and play on to the end
    (``base``: where the search's memory starts in a row)."""
    who, c = search.start_copy(pp3[seat], base, s2, rng2, cand, sub, m)
    s2[L.G_LOG] = 0
    play_on(s2, T, ev2, snaps2, rng2, legal2, pp3, who, c)


@njit(cache=True)
def scripted_answer(s, legal, n, rng, pp, seat, base):
    """A replaying copy's answer: the game's own answers up to the decision
    searched, then the candidate on re-seeded streams and reshuffled decks,
    the seat playing the planner on; a copy that is only checked, or that is
    not where the game was, ends there."""
    c, done = search.next_scripted(pp, base, s, legal, n, rng, SKIP)
    if not done:
        return c
    s[pb(seat) + L.S_POLICY] = POLICY_PLANNER
    pp[pp.shape[0] - 1] = pp[pp.shape[0] - 2]     # (a copy's row) the planner's entry point answers on
    if c < 0:
        s[L.G_WIN] = L.WIN_CAP
        return legal[0]
    forget_hidden(s, rng)
    return c


@njit(cache=True)
def best_of(legal, n, vals, base, confidence):
    """The option to play: the planner's ``base`` unless another beats it on
    the same sampled futures by ``confidence`` standard errors of the paired
    difference."""
    samples = vals.shape[1]
    ib = 0
    for j in range(n):
        if legal[j] == base:
            ib = j
    pick, best = base, 0.0
    for j in range(n):
        if j == ib:
            continue
        d = vals[j] - vals[ib]
        sd = d.std()
        margin = d.mean() - confidence * sd / np.sqrt(samples)
        if d.mean() > 0 and margin > best:
            best, pick = margin, legal[j]
    return pick
