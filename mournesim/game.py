"""Set-up, the round loop and the batch kernel of MourneQuest (numba).

``run_batch`` plays games ``first .. first+n-1`` of a master seed and writes one
result row per game (``layout.RESULT_COLUMNS``); ``play_logged`` plays one game
with its full event log for replay. Game ``i`` of seed ``S`` depends only on
``(S, i)``, the rules and the configuration, never on the batch it ran in.
"""
import numpy as np

from simcore.jit import inlined, kernel, needs_nrt
from simcore.rng import N_STREAMS, STREAM_SETUP, randint, seed_streams, shuffle

from . import layout as L
from . import tables as TB
from .core import db, hb, log, nb, raise_encounter_level, running, xb
from .enemies import draw_encounters, enemy_phase
from .final import end_of_turn, start_final_battle
from .decision import decide
from .layout import code, code_arg
from .rules import hero_turn


@needs_nrt
def setup(s, T, ev, rng, legal, pp, level, players, heroes, policy, logging):
    """Lay out a new game (MQ-SETUP-01..11, MQ-SOLO-01..04, MQ-LEVEL-02..05),
    part by part in the order of the random draws: the heroes' seats, the
    nightmare discs, the supplies, the equipment and relic decks and the
    encounter tiles. The parts are inlined: those that allocate, called as
    kernels of their own, would count references to every array passed to
    them, once a game.

    ``heroes[i]`` is the hero of seat ``i`` or -1 to draw one at random among
    those not taken."""
    s[:] = 0
    s[L.G_LOG] = logging
    s[L.G_LEVEL] = level
    s[L.G_PLAYERS] = players
    nh = 2 if players == 1 else players
    s[L.G_NHEROES] = nh
    s[L.G_POLICY] = policy
    s[L.G_CUR] = -1
    s[L.G_FORBID] = -1
    s[L.G_ARRIVED] = -1
    s[L.G_SHIM_FACING] = -1
    seat_heroes(s, T, rng, heroes, nh)
    perm = place_discs(s, T, rng, level, players)
    for c in range(4):
        o = xb(c)
        s[o + L.X_TILE] = -1
        s[o + L.X_KIND] = -1
        s[o + L.X_BOG_POS] = -1
    s[L.G_POOL] = T[TB.P_STARTING_DICE]     # 1: only the Grey die (MQ-COMBAT-03)
    s[L.G_TALISMAN_SUPPLY] = T[TB.P_TALISMANS]
    for t in range(4):
        s[L.G_POOL_CHARMS + t] = T[TB.P_CHARM_SUPPLY]
    deal_equipment(s, T, ev, rng, legal, pp, players, nh)
    deal_relics(s, T, rng)
    sort_encounter_tiles(s, T, rng, players)
    s[L.G_ENC_LEVEL] = 0
    raise_encounter_level(s, T, ev)
    log(s, ev, L.EVT_SETUP, L.ACTOR_GAME, level, players, perm[0] * 1000 + perm[1] * 100 + perm[2] * 10 + perm[3],
        s[L.G_SURPLUS] if s[L.G_SURPLUS_N] > 0 else -1, 0)
    if level == 2 and T[TB.P_PREGAME_ENCOUNTERS] == 1:
        draw_encounters(s, T, ev, rng, legal, pp)


@inlined
def seat_heroes(s, T, rng, heroes, nh):
    """``setup``'s heroes: seat ``i`` of ``nh`` plays ``heroes[i]``, or one drawn
    at random among those not taken (-1), from its seat's Start Point with
    its skill tokens and no equipment; the seats beyond ``nh`` are empty."""
    nd = T[TB.P_N_HEROES]
    taken = np.zeros(nd, np.int32)
    for i in range(nh):
        if heroes[i] >= 0:
            taken[heroes[i]] = 1
    for i in range(nh):
        hid = heroes[i]
        if hid < 0:
            free = nd
            for j in range(nd):
                free -= taken[j]
            k = randint(rng, STREAM_SETUP, free)
            for j in range(nd):
                if taken[j] == 0:
                    if k == 0:
                        hid = j
                        break
                    k -= 1
            taken[hid] = 1
        o = hb(i)
        s[o + L.H_ID] = hid
        s[o + L.H_POS] = T[TB.O_SEAT_START + i]
        s[o + L.H_START] = T[TB.O_SEAT_START + i]
        s[o + L.H_SKILLS] = T[TB.P_SKILL_USES]
        s[o + L.H_SEAT] = i
        for a in range(3):
            s[o + L.H_EQ + a] = -1
    for i in range(nh, L.MAX_HEROES):
        o = hb(i)
        s[o + L.H_ID] = -1
        s[o + L.H_POS] = -1
        for a in range(3):
            s[o + L.H_EQ + a] = -1


@inlined
def place_discs(s, T, rng, level, players):
    """``setup``'s nightmare discs: the nightmares at random directions, each
    disc set to the level's marker for this many players (the rule variant
    ``short_discs_by_players`` sets the first discs clockwise from North one
    click shorter). Returns the nightmare of each direction."""
    perm = np.arange(4).astype(np.int32)
    shuffle(rng, STREAM_SETUP, perm, 4)
    # the four discs' clicks together for this many players: each disc the
    # level's length, the first ``short`` clockwise from North one click less
    total = T[TB.P_EASY_DISC_TOTAL_CLICKS_1 + 4 * level + players - 1]
    clicks = (total + 3) // 4
    short = 4 * clicks - total
    for d in range(4):
        k = perm[d]
        o = db(d)
        s[o + L.D_NM] = k
        c = clicks - 1 if d < short else clicks
        s[o + L.D_CLICKS] = c
        s[o + L.D_START_CLICKS] = c
        s[o + L.D_STATE] = L.DS_ON
        s[nb(k) + L.NM_DIR] = d
        s[nb(k) + L.NM_POS] = -1
    return perm


@inlined
def deal_equipment(s, T, ev, rng, legal, pp, players, nh):
    """``setup``'s equipment: the Hags out, the deck shuffled, in solo each of
    the ``nh`` heroes' Level-5 card picked (``solo_picks``), the first
    Surplus card turned up, then the Hags shuffled back in."""
    nc = T[TB.P_N_CARDS]
    deck = np.zeros(nc, np.int32)
    m = 0
    for c in range(nc):
        if T[TB.O_CARDS + c * TB.CARD_W + TB.CD_ABILITY] >= 0:
            deck[m] = c
            m += 1
    shuffle(rng, STREAM_SETUP, deck, m)
    if players == 1:
        # int64, not the literal 0 ``m`` starts as: numba would compile solo_picks for both
        m = solo_picks(s, T, ev, rng, legal, pp, nh, deck, np.int64(m))
    if m > 0:
        m -= 1
        s[L.G_SURPLUS] = deck[m]
        s[L.G_SURPLUS_N] = 1
    for c in range(nc):
        if T[TB.O_CARDS + c * TB.CARD_W + TB.CD_ABILITY] < 0:
            deck[m] = c
            m += 1
    shuffle(rng, STREAM_SETUP, deck, m)
    for j in range(m):
        s[L.G_EQ_DECK + j] = deck[j]
    s[L.G_EQ_N] = m


@kernel
def solo_picks(s, T, ev, rng, legal, pp, nh, deck, m):
    """``deal_equipment``'s solo Level-5 cards (MQ-SOLO): each of the ``nh``
    heroes picks the ability of one, which it equips, taken out of
    ``deck[:m]``. Returns the cards left in the deck."""
    for i in range(nh):
        k = 0
        for a in range(3):
            for j in range(m):
                if T[TB.O_CARDS + (deck[j]) * TB.CARD_W + TB.CD_ABILITY] == a and T[TB.O_CARDS + (deck[j]) * TB.CARD_W + TB.CD_VALUE] == T[TB.P_SOLO_EQUIPMENT_VALUE]:
                    legal[k] = code(L.A_SOLO_PICK, a)
                    k += 1
                    break
        if k == 0:
            continue
        a = code_arg(decide(s, T, legal, k, rng, pp, i))
        for j in range(m):
            if T[TB.O_CARDS + (deck[j]) * TB.CARD_W + TB.CD_ABILITY] == a and T[TB.O_CARDS + (deck[j]) * TB.CARD_W + TB.CD_VALUE] == T[TB.P_SOLO_EQUIPMENT_VALUE]:
                s[hb(i) + L.H_EQ + a] = deck[j]
                log(s, ev, L.EVT_EQUIP, i, deck[j], a, T[TB.O_CARDS + (deck[j]) * TB.CARD_W + TB.CD_VALUE], 1, 0)
                for q in range(j, m - 1):
                    deck[q] = deck[q + 1]
                m -= 1
                break
    return m


@inlined
def deal_relics(s, T, rng):
    """``setup``'s relic deck: every relic card shuffled, none held."""
    nr = T[TB.P_N_RELICS]
    for r in range(L.MAX_RELICS):
        s[L.G_RELIC_OWNER + r] = -1
    for r in range(nr):
        s[L.G_RELIC_DECK + r] = r
    shuffle(rng, STREAM_SETUP, s[L.G_RELIC_DECK:L.G_RELIC_DECK + nr], nr)
    s[L.G_RELIC_N] = nr


@inlined
def sort_encounter_tiles(s, T, rng, players):
    """``setup``'s encounter tiles by level, two Bogbeans fewer of each with
    1-2 players (drawn at random), kept aside until their level comes in
    (``raise_encounter_level``)."""
    for lv in range(3):
        first = T[TB.O_LEVEL_TILES + lv * TB.LT_W + TB.LT_FIRST]
        cnt = T[TB.O_LEVEL_TILES + lv * TB.LT_W + TB.LT_COUNT]
        ids = np.zeros(cnt, np.int32)
        for i in range(cnt):
            ids[i] = first + i
        if players <= 2:
            for _ in range(T[TB.P_REMOVED_BOGBEAN_TILES]):
                nb_ = 0
                for i in range(cnt):
                    if T[TB.O_TILES + (ids[i]) * L.TL_COLS + L.TL_KIND] == L.TK_BOGBEAN:
                        nb_ += 1
                if nb_ == 0:
                    break
                k = randint(rng, STREAM_SETUP, nb_)
                for i in range(cnt):
                    if T[TB.O_TILES + (ids[i]) * L.TL_COLS + L.TL_KIND] == L.TK_BOGBEAN:
                        if k == 0:
                            ids[i] = ids[cnt - 1]
                            cnt -= 1
                            break
                        k -= 1
        for i in range(cnt):
            s[L.G_LV_TILES + lv * 32 + i] = ids[i]
        s[L.G_LV_N + lv] = cnt


@kernel
def play(s, T, ev, snaps, rng, legal, pp):
    """Play rounds until the game ends (MQ-ACT-01/02, MQ-FINAL-06..10, MQ-END)."""
    cap = T[TB.P_SAFETY_CAP_ROUNDS]
    while running(s):
        s[L.G_ROUND] += 1
        if s[L.G_ROUND] > cap:
            s[L.G_OUTCOME] = L.OUT_CAP
            break
        if s[L.G_FINAL] == L.FB_RUNNING:
            s[L.G_FB_ROUND] += 1
        for h in range(4):
            s[L.G_AU_REPAIRABLE + h] = 0   # the blunder audit's repairs are judged within a round
        finish_round(s, T, ev, snaps, rng, legal, pp, np.int64(0))   # int64 as rollout passes it: one compile
    log(s, ev, L.EVT_GAME_END, L.ACTOR_GAME, s[L.G_OUTCOME], s[L.G_ROUND], 0, 0, 0)


@kernel
def finish_round(s, T, ev, snaps, rng, legal, pp, h0):
    """The turns of heroes ``h0..`` of this round, then its Enemy Phase (or the
    start of the Final Battle). A search policy continues a copied game with
    ``end_of_turn`` of the current hero and then ``finish_round`` from the next."""
    for h in range(h0, s[L.G_NHEROES]):
        hero_turn(s, T, ev, snaps, rng, legal, pp, h)
        if not running(s):
            return
        end_of_turn(s, T, ev, rng, legal, pp, h)
        if not running(s):
            return
    if s[L.G_FINAL] == L.FB_TRIGGERED:
        if T[TB.P_TRANSITION_ENEMY_PHASE] == 1:
            enemy_phase(s, T, ev, rng, legal, pp, True)
        if running(s):
            start_final_battle(s, T, ev, rng, legal, pp)
        return
    enemy_phase(s, T, ev, rng, legal, pp, s[L.G_FINAL] == L.FB_NONE)


@kernel
def result_row(s, T, out):
    """Fill one result row (layout.RESULT_COLUMNS) from a finished game; each
    column is written by name (``layout.RI_*``), never by position."""
    out[L.RI_OUTCOME] = s[L.G_OUTCOME]
    out[L.RI_ROUNDS] = min(s[L.G_ROUND], T[TB.P_SAFETY_CAP_ROUNDS])
    out[L.RI_HERO_TURNS] = s[L.G_TURNS]
    out[L.RI_CAST_OUT] = s[L.G_CASTOUT]
    out[L.RI_ESCAPED] = s[L.G_ESCAPED]
    out[L.RI_DEFEATED] = s[L.G_DEFEATED]
    out[L.RI_DICE_POOL_FINAL] = s[L.G_FB_POOL]
    out[L.RI_FINAL_BATTLE] = 1 if s[L.G_FINAL] == L.FB_RUNNING else 0
    out[L.RI_FINAL_BATTLE_ROUNDS] = s[L.G_FB_ROUND]
    out[L.RI_WALL_DAMAGE] = s[L.G_WALL_HITS]
    out[L.RI_WALL_REPAIRS] = s[L.G_WALL_REPAIRS]
    out[L.RI_SHIMNAVORE_WOUNDS] = s[L.G_SHIM_WOUNDS] + s[L.G_SHIM_WOUNDS + 1] + s[L.G_SHIM_WOUNDS + 2]
    out[L.RI_COMBATS] = s[L.G_COMBATS]
    out[L.RI_TALISMANS_LEFT] = s[L.G_TALISMANS]
    minlife = 99
    skills = 0
    for i in range(4):
        out[L.RI_HERO1 + i] = s[hb(i) + L.H_ID] if i < s[L.G_NHEROES] else -1
        if i < s[L.G_NHEROES]:
            minlife = min(minlife, T[TB.P_LIFE] - s[hb(i) + L.H_WOUNDS])
            skills += s[hb(i) + L.H_SKILLS]
    for k in range(4):
        out[L.RI_FATE_NM1 + k] = s[nb(k) + L.NM_FATE]
        e = s[nb(k) + L.NM_ESCAPED]
        out[L.RI_ESCAPED_NM1 + k] = 1 if e == 1 or e == L.NM_ARRIVED_ESCAPE else 0
    out[L.RI_MIN_LIFE] = minlife
    out[L.RI_ILLEGAL_CHOICES] = s[L.G_ILLEGAL]
    # the decision counters, in COUNTER_NAMES order (layout checks the columns match)
    for i in range(L.NCNT):
        out[L.RI_TRADES_CHARM + i] = s[L.G_CNT + i]
    out[L.RI_SKILLS_LEFT] = skills
    relics = 0
    for r in range(T[TB.P_N_RELICS]):
        if s[L.G_RELIC_OWNER + r] >= 0:
            relics += 1
    out[L.RI_RELICS_LEFT] = relics


@needs_nrt
def run_batch(seed, first, n, level, players, heroes, policy, pp, T, out):
    """Play games ``first .. first+n-1`` of ``seed``; row ``j`` of ``out`` gets game ``first+j``."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    ev = np.zeros((1, L.EV_COLS), np.int32)
    snaps = np.zeros((1, L.STATE_SIZE), np.int32)
    for j in range(n):
        seed_streams(seed, first + j, rng)
        # int64, not a literal 0 or 1: numba would compile setup once per literal
        setup(s, T, ev, rng, legal, pp, level, players, heroes, policy, np.int64(0))
        play(s, T, ev, snaps, rng, legal, pp)
        result_row(s, T, out[j])


@needs_nrt
def play_logged(seed, game, level, players, heroes, policy, pp, T, ev, snaps, final_state):
    """Play one game with its event log; returns (events written, snapshots written)."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    seed_streams(seed, game, rng)
    setup(s, T, ev, rng, legal, pp, level, players, heroes, policy, np.int64(1))
    play(s, T, ev, snaps, rng, legal, pp)
    final_state[:] = s
    return s[L.G_LOGN], s[L.G_SNAPN]
