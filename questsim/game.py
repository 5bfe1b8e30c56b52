"""A whole game: set-up (QM-SETUP-*), rounds of turns in seat order, the
per-game result row, and the compiled entry points ``run_batch`` (a block
of games into result rows) and ``play_logged`` (one game with its event log
and a snapshot at every turn, for replays).
"""
import numpy as np
from numba import njit

from simcore.jit import kernel, needs_nrt
from simcore.rng import N_STREAMS, STREAM_SETUP, randint, seed_streams, shuffle
from . import layout as L
from . import tables as TB
from .blunders import castle_count, gain_bounds
from .core import log, over, pb, roll
from .hand import draw_item
from .turn import take_turn


@kernel
def build_deck(s, T, rng, deck, nk, o, width, maxn):
    n = 0
    for k in range(nk):
        for _ in range(T[o + k * width]):
            if n < maxn:
                s[deck + n] = k
                n += 1
    shuffle(rng, STREAM_SETUP, s[deck:deck + n], n)
    return n


@needs_nrt
def setup(s, T, ev, rng, legal, pp, players, chars, policies, logging):
    """Set up a game (QM-SETUP-01..09): characters (drawn at random where
    ``chars[i] < 0``, each at most once; QM-GAP-08), Hp, the home castle,
    one Item card each, the start roll (both dice, symbols 0, ties re-roll
    among the tied; QM-GAP-03) and seat order from the winner (QM-GAP-04)."""
    s[:] = 0
    s[L.G_LOG] = logging
    s[L.G_NP] = players
    s[L.G_WINNER] = -1
    s[L.G_DUEL_A] = -1
    s[L.G_DUEL_D] = -1
    nch = T[TB.P_N_CHARACTERS]
    taken = np.zeros(nch, np.int32)
    for p in range(players):
        if chars[p] >= 0:
            taken[chars[p]] = 1
    for p in range(players):
        c = chars[p]
        if c < 0:
            free = nch - int(taken.sum())
            k = randint(rng, STREAM_SETUP, free)
            for c2 in range(nch):
                if taken[c2] == 0:
                    if k == 0:
                        c = c2
                        break
                    k -= 1
            taken[c] = 1
        b = pb(p)
        ch = TB.O_CHAR + c * TB.CH
        s[b + L.S_CHAR] = c
        s[b + L.S_RACE] = T[ch + TB.C_RACE]
        s[b + L.S_HP] = T[ch + TB.C_HP]
        s[b + L.S_MAX_HP] = T[ch + TB.C_HP]
        s[b + L.S_ALIVE] = 1
        s[b + L.S_POS] = T[TB.O_HOME + s[b + L.S_RACE]]
        s[b + L.S_POLICY] = policies[p]
        s[b + L.S_ELIM_ROUND] = -1
        if T[TB.P_START_MARKS_HOME_CASTLE]:
            s[b + L.S_CASTLES] = 1 << T[TB.O_SQ_CASTLE + s[b + L.S_POS]]
    gain_bounds(s, T)   # for the blunder judge, once the races are seated
    s[L.G_ITEM_N] = build_deck(s, T, rng, L.G_ITEM_DECK, T[TB.P_N_ITEM_KINDS], TB.O_ITEM, TB.IK, L.MAX_ITEM_CARDS)
    s[L.G_EVENT_N] = build_deck(s, T, rng, L.G_EVENT_DECK, T[TB.P_N_EVENT_KINDS], TB.O_EVENT, TB.EK, L.MAX_EVENT_CARDS)
    log(s, ev, L.EVT_SETUP, -1, players, 0, 0, 0)
    for _ in range(T[TB.P_STARTING_ITEMS]):
        for p in range(players):
            draw_item(s, T, ev, rng, legal, pp, p)
    # start roll: highest total first; the tied re-roll among themselves
    tied = np.ones(players, np.int32)
    while True:
        best = -1
        score = np.full(players, -1, np.int32)
        for p in range(players):
            if tied[p]:
                t = 0
                f0, f1 = 0, 0      # the faces as rolled (0: that die is not rolled)
                for d in range(T[TB.P_START_ROLL_DICE]):
                    f = roll(T, rng, d)
                    if d == 0:
                        f0 = f
                    else:
                        f1 = f
                    t += f if f > 0 else T[TB.P_START_ROLL_SYMBOL_VALUE]
                score[p] = t
                log(s, ev, L.EVT_START_ROLL, p, t, f0, f1, 0)
                if t > best:
                    best = t
        k = 0
        for p in range(players):
            tied[p] = 1 if score[p] == best else 0
            k += tied[p]
        if k == 1:
            break
    for p in range(players):
        if tied[p]:
            s[L.G_FIRST] = p
    for p in range(players):
        s[pb(p) + L.S_TURNPOS] = (p - s[L.G_FIRST]) % players
    # a what-if compensation for the last player (0 in the rulebook's game)
    for _ in range(T[TB.P_LAST_PLAYER_EXTRA_ITEMS]):
        draw_item(s, T, ev, rng, legal, pp, (s[L.G_FIRST] + players - 1) % players)


@kernel
def finish_round(s, T, ev, rng, legal, pp, seat):
    """The turns of this round after ``seat``'s (for resuming a copied game)."""
    np_ = s[L.G_NP]
    k0 = (seat - s[L.G_FIRST]) % np_
    for k in range(k0 + 1, np_):
        p = (s[L.G_FIRST] + k) % np_
        if s[pb(p) + L.S_ALIVE] and not over(s):
            take_turn(s, T, ev, rng, legal, pp, p)


@kernel
def snapshot(s, snaps):
    """Replay only: keep a copy of the whole state (the position at the start
    of a turn) in the next row of ``snaps``; the turn's log record names it."""
    k = s[L.G_NSNAP]
    if k < snaps.shape[0]:
        s[L.G_NSNAP] = k + 1
        for i in range(s.shape[0]):      # an element loop: a slice copy would need NRT
            snaps[k, i] = s[i]


@kernel
def play(s, T, ev, snaps, rng, legal, pp):
    """Rounds of turns in seat order from the first player, skipping the
    eliminated, until a win or the safety cap (its own outcome). With
    logging on, each turn starts with a snapshot (replay)."""
    np_ = s[L.G_NP]
    while not over(s):
        if s[L.G_ROUND] >= T[TB.P_SAFETY_CAP_ROUNDS]:
            s[L.G_WIN] = L.WIN_CAP
            break
        s[L.G_ROUND] += 1
        for k in range(np_):
            p = (s[L.G_FIRST] + k) % np_
            if s[pb(p) + L.S_ALIVE] and not over(s):
                if s[L.G_LOG]:
                    snapshot(s, snaps)
                take_turn(s, T, ev, rng, legal, pp, p)


@kernel
def result_row(s, T, out):
    """The per-game result (layout.RESULT_COLUMNS), each column written by name (layout.RI_*)."""
    out[:] = -1
    out[L.RI_WIN_CONDITION] = s[L.G_WIN]
    w = s[L.G_WINNER]
    out[L.RI_WINNER_SEAT] = w
    out[L.RI_WINNER_POSITION] = s[pb(w) + L.S_TURNPOS] if w >= 0 else -1
    out[L.RI_WINNER_CHARACTER] = s[pb(w) + L.S_CHAR] if w >= 0 else -1
    out[L.RI_ROUNDS] = s[L.G_ROUND]
    out[L.RI_TURNS] = s[L.G_TURNS]
    out[L.RI_DUELS] = s[L.G_DUELS]
    out[L.RI_ATTACKS] = s[L.G_ATTACKS]
    out[L.RI_ELIMINATED] = s[L.G_ELIMINATED]
    out[L.RI_FIRST_SEAT] = s[L.G_FIRST]
    out[L.RI_ILLEGAL_CHOICES] = s[L.G_ILLEGAL]
    for p in range(s[L.G_NP]):
        b = pb(p)
        out[L.RI_CHAR1 + p] = s[b + L.S_CHAR]
        out[L.RI_HP1 + p] = s[b + L.S_HP]
        out[L.RI_CASTLES1 + p] = castle_count(T, s[b + L.S_CASTLES])
        out[L.RI_POS1 + p] = s[b + L.S_TURNPOS]
    out[L.RI_LEAD_CHANGES] = s[L.G_LEAD_CHANGES]
    out[L.RI_WINNER_DEFICIT] = s[L.G_DEFICIT + w] if w >= 0 else -1
    for i in range(L.NDEC):
        out[L.RES_DEC + i] = s[L.G_DEC + i]
    for i in range(L.NBL):
        out[L.RES_BL + i] = s[L.G_BL + i]


@njit(cache=True)
def run_batch(seed, first, n, players, chars, policies, pp, T, out):
    """Play games ``first .. first+n-1`` of ``seed`` into ``out`` rows."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    ev = np.zeros((1, L.EV_COLS), np.int32)
    snaps = np.zeros((1, L.STATE_SIZE), np.int32)     # never written: logging is off
    for j in range(n):
        seed_streams(seed, first + j, rng)
        # int64, not a literal 0 or 1: numba would compile setup once per literal
        setup(s, T, ev, rng, legal, pp, players, chars, policies, np.int64(0))
        play(s, T, ev, snaps, rng, legal, pp)
        result_row(s, T, out[j])


@njit(cache=True)
def play_logged(seed, game, players, chars, policies, pp, T, ev, snaps, final_state):
    """Play one game with its event log and a snapshot of the state at the
    start of every turn (``snaps`` rows); returns the number of events."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    seed_streams(seed, game, rng)
    setup(s, T, ev, rng, legal, pp, players, chars, policies, np.int64(1))
    play(s, T, ev, snaps, rng, legal, pp)
    final_state[:] = s
    return s[L.G_LOGN]
