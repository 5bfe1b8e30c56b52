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
planner. Elsewhere (reactions, cards, and the early
game, where one action barely moves the odds) it plays as ``planner``.

The continuations are fair: each sample re-seeds the dice, encounter and
policy streams from the policy's own stream and reshuffles the face-down
equipment and relic decks, so the search never sees the real game's future.
The same samples are used for every candidate (common random numbers), so
candidates are compared on the same futures.

It is registered as a plug-in (``mournesim.plugins``) because it calls the
engine from inside a policy: the engine calls this ``choose`` through its
entry point's address (simcore/fnptr.py), and ``choose`` runs continuations
on the engine with the planner playing — no recursion among numba kernels.
"""
import numpy as np
from numba import njit

from simcore.jit import needs_nrt
from simcore.rng import N_STREAMS, STREAM_POLICY, STREAM_SETUP, next_u64, seed_streams, shuffle
from . import layout as L
from . import tables as TB
from .core import running
from .final import end_of_turn
from .game import finish_round, play
from .plan import NP_PLANNER, PLANNER_DEFAULTS, PLANNER_PARAMS, moon_left
from .policies import POLICY_PLANNER, plan_goal, planner, score_all
from .rules import apply_turn, turn_actions

OPB = L.OP_BASE
# the planner's parameters first (the continuations play the planner with
# them), then the search's own, read from index NP_PLANNER on
PARAMS = dict(zip(PLANNER_PARAMS, PLANNER_DEFAULTS)) | {
    "width": 3.0, "samples": 12.0, "horizon": 8.0, "progress": 0.5, "confidence": 2.0}
W_WIDTH, W_SAMPLES, W_HORIZON, W_PROGRESS, W_CONFIDENCE = range(NP_PLANNER, NP_PLANNER + 5)
DESCRIPTION = ("search: plays the planner's best few actions forward to the end of the game "
               "with the engine itself and keeps the best; planner elsewhere")


@needs_nrt
def continuation(s2, T, rng2, legal2, pp, h, ch):
    """Play a copied game from hero ``h``'s decision ``ch`` to its end."""
    ev = np.zeros((1, L.EV_COLS), np.int32)
    snaps = np.zeros((1, L.STATE_SIZE), np.int32)
    if ch // OPB != L.A_END:
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
    return progress * w / (3.0 * T[TB.P_SHIM_WINS])


@needs_nrt
def choose(s, T, legal, n, rng, pp, h):
    """Pick one of ``legal[:n]`` for hero ``h`` (see the module docstring)."""
    width = int(pp[W_WIDTH])
    samples = int(pp[W_SAMPLES])
    if legal[0] // OPB >= L.R_ACCEPT or width < 2 or samples < 1 or \
            (s[L.G_FINAL] == L.FB_NONE and moon_left(s, T) > pp[W_HORIZON]):
        return planner(s, T, legal, n, rng, pp, h)
    scores = np.empty(n, np.float64)
    score_all(s, T, legal, n, pp, h, plan_goal(s, T, h, pp), scores, np.int64(1))
    # the planner's best few, best first (ties in legal order)
    k = min(width, n)
    cand = np.empty(k, np.int64)
    used = np.zeros(n, np.bool_)
    for j in range(k):
        b = -1
        for i in range(n):
            if not used[i] and (b < 0 or scores[i] > scores[b]):
                b = i
        used[b] = True
        cand[j] = b
    vals = np.zeros((k, samples), np.float64)
    s2 = np.empty_like(s)
    rng2 = np.empty(N_STREAMS * 4, np.uint64)
    legal2 = np.empty_like(legal)
    for m in range(samples):
        sub = next_u64(rng, STREAM_POLICY)
        for j in range(k):
            s2[:] = s
            s2[L.G_POLICY] = POLICY_PLANNER
            s2[L.G_LOG] = 0
            seed_streams(sub, m, rng2)
            # the players know which cards are face down but not their order:
            # sort the decks (forget the real order), then shuffle
            eq = s2[L.G_EQ_DECK:L.G_EQ_DECK + s2[L.G_EQ_N]]
            eq.sort()
            shuffle(rng2, STREAM_SETUP, eq, eq.shape[0])
            rel = s2[L.G_RELIC_DECK:L.G_RELIC_DECK + s2[L.G_RELIC_N]]
            rel.sort()
            shuffle(rng2, STREAM_SETUP, rel, rel.shape[0])
            continuation(s2, T, rng2, legal2, pp, h, legal[cand[j]])
            vals[j, m] = value(s2, T, pp[W_PROGRESS])
    # keep the planner's choice unless an alternative is better on the same
    # futures by more than ``confidence`` standard errors of the paired mean
    best = 0
    best_gain = 0.0
    for j in range(1, k):
        d = vals[j] - vals[0]
        mean = d.mean()
        se = np.sqrt(max(d.var(), 1e-12) / samples)
        if mean > pp[W_CONFIDENCE] * se and mean > best_gain:
            best = j
            best_gain = mean
    return legal[cand[best]]
