"""``rollout``: the Quest Master search policy, the top of the ladder.

At each movement choice (move the number, or take the symbol; the biggest
decision of a turn) it plays every legal option forward to the end of the
game ``samples`` times with the engine itself, every seat played by the
planner, and takes the option that wins most often — but keeps the
planner's own choice unless another beats it by ``confidence`` standard
errors of the paired difference (the same sampled futures serve every
option: common random numbers). Every other decision is the planner's.

The search is fair about what is hidden: each sample re-seeds the dice and
re-shuffles the face-down Item and Event decks from the policy's own stream,
so it never sees the real future. (It does see opponents' hands, as the
planner's scoring does.)

It calls the engine from inside a policy, so it is registered as a plug-in:
the engine calls it through its entry point's address (simcore/fnptr.py), so
there is no recursion between numba kernels.
"""
import numpy as np
from numba import njit

from simcore.rng import N_STREAMS, STREAM_POLICY, STREAM_SETUP, next_u64, seed_streams, shuffle
from . import layout as L
from .core import over
from .game import finish_round, play
from .policies import PLANNER_DEFAULTS, PLANNER_PARAMS, POLICY_PLANNER, planner
from .turn import after_choice

# the planner's parameters (played by the search's every seat), then its own
PARAMS = {**dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)), "samples": 16.0, "confidence": 1.5}
NP = len(PLANNER_PARAMS)
SAMPLES, CONFIDENCE = NP, NP + 1
DESCRIPTION = ("search: plays each movement option to the end of the game on sampled futures "
               "(planners everywhere), keeps the planner's choice unless another is clearly better")


@njit(cache=True)
def continuation(s, s2, T, rng2, legal2, ev2, snaps2, pp2, seat, c, seed):
    """Play option ``c`` to the end of the game on one sampled future;
    1.0 if ``seat`` wins."""
    s2[:] = s
    s2[L.G_LOG] = 0
    seed_streams(seed, 0, rng2)
    for deck, n in ((L.G_ITEM_DECK, s2[L.G_ITEM_N]), (L.G_EVENT_DECK, s2[L.G_EVENT_N])):
        s2[deck:deck + n] = np.sort(s2[deck:deck + n])      # forget the real order, then deal a new one
        shuffle(rng2, STREAM_SETUP, s2[deck:deck + n], n)
    for p in range(s2[L.G_NP]):
        s2[L.G_P + p * L.PS + L.P_POLICY] = POLICY_PLANNER
    after_choice(s2, T, ev2, rng2, legal2, pp2, seat, c)
    if not over(s2):
        finish_round(s2, T, ev2, rng2, legal2, pp2, seat)
    if not over(s2):
        play(s2, T, ev2, snaps2, rng2, legal2, pp2)
    return 1.0 if s2[L.G_WINNER] == seat else 0.0


@njit(cache=True)
def choose(s, T, legal, n, rng, pp, seat):
    """Pick one of ``legal[:n]`` for ``seat`` (see the module docstring)."""
    base = planner(s, T, legal, n, rng, pp, seat)
    samples = int(pp[SAMPLES])
    if s[L.G_CTX] != L.CTX_MOVE or n < 2 or samples < 2:
        return base
    s2 = np.empty_like(s)
    rng2 = np.zeros(N_STREAMS * 4, np.uint64)
    legal2 = np.zeros(L.MAX_LEGAL, np.int32)
    ev2 = np.zeros((1, L.EV_COLS), np.int32)
    snaps2 = np.zeros((1, L.STATE_SIZE), np.int32)     # logging is off: never written
    pp2 = np.zeros((L.MAX_PLAYERS, L.MAX_PARAMS))
    for p in range(L.MAX_PLAYERS):
        pp2[p, :NP] = pp[:NP]
    vals = np.zeros((n, samples))
    for m in range(samples):
        seed = next_u64(rng, STREAM_POLICY)
        for j in range(n):
            vals[j, m] = continuation(s, s2, T, rng2, legal2, ev2, snaps2, pp2, seat, legal[j], seed)
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
        margin = d.mean() - pp[CONFIDENCE] * sd / np.sqrt(samples)
        if d.mean() > 0 and margin > best:
            best, pick = margin, legal[j]
    return pick
