"""State primitives of the MourneQuest engine (numba): reading and changing the
flat state vector without any player decision — occupancy, charms, life,
dice rolls, disc clicks, encounter-level and dice-pool unlocks, and the event
log. Everything here is a rule of the game or plain bookkeeping; decisions
live in ``rules.py``.
"""

import numpy as np

from simcore.jit import inlined, kernel
from simcore.rng import STREAM_DICE, randint
from . import layout as L
from . import tables as TB


@kernel
def running(s):
    return s[L.G_OUTCOME] == L.OUT_RUNNING


@kernel
def count_use(s, cnt):
    """Count one Skill or Relic use in counter ``cnt`` (``CNT_SKILLS_USED`` or
    ``CNT_RELICS_USED``), and in the ``*_final`` counter after it during
    the Final Battle."""
    s[cnt] += 1
    if s[L.G_FINAL] == L.FB_RUNNING:
        s[cnt + 1] += 1

# ---- event log --------------------------------------------------------------


@inlined
def log(s, ev, etype, actor, a, b, c, d, e):
    """``_log`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _log(s, ev, np.int64(etype), np.int64(actor), np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e))


@kernel
def _log(s, ev, etype, actor, a, b, c, d, e):
    """Append one event when logging (costs one branch in batch runs)."""
    if s[L.G_LOG] == 0:
        return
    n = s[L.G_LOGN]
    if n < ev.shape[0]:
        ev[n, 0] = etype
        ev[n, 1] = s[L.G_ROUND]
        ev[n, 2] = actor
        ev[n, 3] = a
        ev[n, 4] = b
        ev[n, 5] = c
        ev[n, 6] = d
        ev[n, 7] = e
        s[L.G_LOGN] = n + 1


@kernel
def log_patch(s, ev, i, col, v):
    """Fill column ``col`` (0..7) of event ``i`` written earlier, when logging:
    an action's record learns what it cost once it has been carried out."""
    if s[L.G_LOG] == 0 or i < 0 or i >= s[L.G_LOGN] or i >= ev.shape[0]:
        return
    ev[i, col] = v


@kernel
def snapshot(s, ev, snaps, actor):
    """Log a turn_start event holding a full copy of the state."""
    if s[L.G_LOG] == 0:
        return
    k = s[L.G_SNAPN]
    if k < snaps.shape[0]:
        # element by element: a slice assignment may need a temporary copy,
        # which a kernel compiled without NRT cannot allocate
        for i in range(s.shape[0]):
            snaps[k, i] = s[i]
        s[L.G_SNAPN] = k + 1
        log(s, ev, L.EVT_TURN_START, actor, k, s[L.G_MOON], s[L.G_FINAL], 0, 0)

# ---- accessors ------------------------------------------------------------------


@inlined
def hb(h):
    """Offset of hero ``h``'s block."""
    return L.G_HERO + h * L.HS


@inlined
def db(d):
    """Offset of the disc block at direction ``d``."""
    return L.G_DISC + d * L.DSZ


@inlined
def nb(k):
    """Offset of nightmare ``k``'s block."""
    return L.G_NM + k * L.NSZ


@inlined
def xb(c):
    """Offset of the nexus slot block at corner ``c``."""
    return L.G_NEX + c * L.XSZ


@kernel
def moon_colour(s, T):
    return T[TB.O_MOON + (s[L.G_MOON])]


@kernel
def ability_total(s, T, h, a):
    """Hero ``h``'s current level in ability ``a`` (printed value + equipment)."""
    o = hb(h)
    v = T[TB.O_HERO_ABIL + (s[o + L.H_ID]) * TB.ABIL_W + a]
    c = s[o + L.H_EQ + a]
    if c >= 0:
        v += T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE]
    return v


@kernel
def charms_held(s, h):
    o = hb(h) + L.H_CH
    return s[o] + s[o + 1] + s[o + 2] + s[o + 3]


@kernel
def life_left(s, T, h):
    return T[TB.P_LIFE] - s[hb(h) + L.H_WOUNDS]


@kernel
def relics_held(s, T, h):
    n = 0
    for r in range(T[TB.P_N_RELICS]):
        if s[L.G_RELIC_OWNER + r] == h:
            n += 1
    return n


@kernel
def cards_held(s, T, h):
    """Equipment plus relic cards a hero holds."""
    n = relics_held(s, T, h)
    for a in range(3):
        if s[hb(h) + L.H_EQ + a] >= 0:
            n += 1
    return n


@kernel
def on_disc(s, T, h):
    return T[TB.O_KIND + (s[hb(h) + L.H_POS])] == L.K_DISC


@kernel
def bog_level(s, T, c):
    """Level (1..3) of the bogbean of nexus slot ``c``, or 0 if none in play."""
    o = xb(c)
    if s[o + L.X_BOG_POS] < 0:
        return 0
    return T[TB.O_TILES + (s[o + L.X_TILE]) * L.TL_COLS + L.TL_LEVEL]


@inlined
def minis_at(s, sp):
    """Miniatures on a space: heroes, bogbeans and nightmares. Inlined: it
    is asked for every neighbour of every move list, and a call passes the
    state array field by field (inlining it and ``can_enter``: 2-3% more
    games/s, the same games)."""
    n = 0
    for h in range(s[L.G_NHEROES]):
        if s[hb(h) + L.H_POS] == sp:
            n += 1
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            n += 1
    for k in range(4):
        if s[nb(k) + L.NM_POS] == sp:
            n += 1
    return n


@inlined
def heroes_at(s, sp):
    """Heroes on a space (inlined, as ``minis_at``)."""
    n = 0
    for h in range(s[L.G_NHEROES]):
        if s[hb(h) + L.H_POS] == sp:
            n += 1
    return n


@kernel
def first_hero_at(s, sp):
    """Hero in the earliest seat on a space, or -1."""
    for h in range(s[L.G_NHEROES]):
        if s[hb(h) + L.H_POS] == sp:
            return h
    return -1


@kernel
def nightmare_at(s, sp):
    for k in range(4):
        if s[nb(k) + L.NM_POS] == sp:
            return k
    return -1


@kernel
def bogbeans_at(s, sp):
    n = 0
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            n += 1
    return n


@kernel
def enemies_in_play(s):
    """Bogbeans and Nightmares in play: those on the main board and, in the
    Final Battle, a Nightmare not cast out that still waits on its disc for
    room on its key stone (MQ-FINAL-03/05, MQ-GAP-27): it must emerge and be
    beaten before the Shimnavore may be attacked."""
    n = 0
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] >= 0:
            n += 1
    for k in range(4):
        if s[nb(k) + L.NM_POS] >= 0:
            n += 1
    if s[L.G_FINAL] == L.FB_RUNNING:
        for d in range(4):
            if disc_occupied(s, d):
                n += 1
    return n


@kernel
def just_arrived(s, k):
    """Nightmare ``k`` reached the board in this round's enemy phase (an escape,
    or a late Final Battle emergence): it only arrives (MQ-GAP-26)."""
    return s[nb(k) + L.NM_ESCAPED] >= L.NM_ARRIVED_ESCAPE


@kernel
def pot_at(s, T, sp):
    """Nexus slot whose pot marker lies on space ``sp``, or -1."""
    for c in range(4):
        if s[xb(c) + L.X_POT] == 1 and T[TB.O_CROSSROADS + c] == sp:
            return c
    return -1


@kernel
def disc_occupied(s, d):
    st = s[db(d) + L.D_STATE]
    return st == L.DS_ON or st == L.DS_RELEASED


@kernel
def charm_multi(s, T):
    return T[TB.P_EASY_CHARM_MULTI + s[L.G_LEVEL]] == 1


@inlined
def compass_tokens(s, T):
    """How many Compass Tokens turn all four Discs in this game (MQ-MOON-09:
    the rulebook's 6, or the rule variant ``compass_tokens_by_players``)."""
    return T[TB.O_TOKENS_AT + 4 * s[L.G_LEVEL] + s[L.G_PLAYERS] - 1]

# ---- charms, life, cards -----------------------------------------------------------


@inlined
def gain_charms(s, T, ev, h, t, n):
    """``_gain_charms`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _gain_charms(s, T, ev, np.int64(h), np.int64(t), np.int64(n))


@kernel
def _gain_charms(s, T, ev, h, t, n):
    """Give hero ``h`` up to ``n`` charms of type ``t`` (room and pool allowing).

    Returns how many were taken; the rest stay in the pool."""
    room = T[TB.P_BACKPACK] - charms_held(s, h)
    k = min(n, room, s[L.G_POOL_CHARMS + t])
    if k > 0:
        s[hb(h) + L.H_CH + t] += k
        s[L.G_POOL_CHARMS + t] -= k
        log(s, ev, L.EVT_CHARM_GAIN, h, t, k, 0, 0, 0)
    return k


@inlined
def drop_charms(s, ev, h, t, n):
    """``_drop_charms`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _drop_charms(s, ev, np.int64(h), np.int64(t), np.int64(n))


@kernel
def _drop_charms(s, ev, h, t, n):
    """Hero ``h`` returns ``n`` charms of type ``t`` to the pool."""
    if n > 0:
        s[hb(h) + L.H_CH + t] -= n
        s[L.G_POOL_CHARMS + t] += n
        log(s, ev, L.EVT_CHARM_LOSS, h, t, n, 0, 0, 0)


@inlined
def lose_most_plentiful_charms(s, ev, h, n):
    """``_lose_most_plentiful_charms`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _lose_most_plentiful_charms(s, ev, np.int64(h), np.int64(n))


@kernel
def _lose_most_plentiful_charms(s, ev, h, n):
    """Remove ``n`` charms, each time of the type held most (ties: lowest type)."""
    for _ in range(n):
        best = -1
        for t in range(4):
            if s[hb(h) + L.H_CH + t] > 0 and (best < 0 or s[hb(h) + L.H_CH + t] > s[hb(h) + L.H_CH + best]):
                best = t
        if best < 0:
            return
        drop_charms(s, ev, h, best, 1)


@inlined
def lose_life(s, T, ev, h, n):
    """``_lose_life`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _lose_life(s, T, ev, np.int64(h), np.int64(n))


@kernel
def _lose_life(s, T, ev, h, n):
    """Wound hero ``h``; a hero with no life left dies and the game is lost."""
    o = hb(h)
    s[o + L.H_WOUNDS] = min(T[TB.P_LIFE], s[o + L.H_WOUNDS] + n)
    log(s, ev, L.EVT_LIFE, h, -n, life_left(s, T, h), 0, 0, 0)
    if s[o + L.H_WOUNDS] >= T[TB.P_LIFE] and s[L.G_OUTCOME] == L.OUT_RUNNING:
        s[L.G_OUTCOME] = L.OUT_HERO_DIED


@inlined
def heal(s, T, ev, h, n):
    """``_heal`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _heal(s, T, ev, np.int64(h), np.int64(n))


@kernel
def _heal(s, T, ev, h, n):
    o = hb(h)
    k = min(n, s[o + L.H_WOUNDS])
    if k > 0:
        s[o + L.H_WOUNDS] -= k
        log(s, ev, L.EVT_LIFE, h, k, life_left(s, T, h), 0, 0, 0)
    return k


@inlined
def discard_equipped(s, ev, h, a, to_surplus):
    """``_discard_equipped`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _discard_equipped(s, ev, np.int64(h), np.int64(a), np.bool_(to_surplus))


@kernel
def _discard_equipped(s, ev, h, a, to_surplus):
    """Remove hero ``h``'s card under ability ``a``: onto the Surplus Deck or out of play."""
    o = hb(h) + L.H_EQ + a
    c = s[o]
    if c < 0:
        return
    s[o] = -1
    if to_surplus:
        s[L.G_SURPLUS + s[L.G_SURPLUS_N]] = c
        s[L.G_SURPLUS_N] += 1
    log(s, ev, L.EVT_CARD_LOST, h, 0, c, to_surplus, 0, 0)


@kernel
def to_surplus(s, c):
    s[L.G_SURPLUS + s[L.G_SURPLUS_N]] = c
    s[L.G_SURPLUS_N] += 1

# ---- dice ----------------------------------------------------------------------------


@kernel
def roll_die(T, rng, level):
    """One face of combat die ``level`` (0 grey .. 3 red)."""
    return T[TB.O_DICE + level * TB.DIE_W + (randint(rng, STREAM_DICE, T[TB.O_DICE_NF + level]))]


@kernel
def roll_compass(T, rng):
    return T[TB.O_COMPASS_FACES + (randint(rng, STREAM_DICE, T[TB.P_N_COMPASS_FACES]))]


@kernel
def dice_for_combat(s, T, levels, extra):
    """Fill ``levels`` with the dice a hero rolls: every unlocked die up to the
    maximum, the highest levels first; ``extra`` relic dice add the next
    highest dice not already rolled, while there are any. Returns the count."""
    pool = s[L.G_POOL]
    n = min(pool, T[TB.P_MAX_COMBAT_DICE])
    k = 0
    for lv in range(pool - 1, pool - 1 - n, -1):
        levels[k] = lv
        k += 1
    # extra dice: the highest levels not yet rolled; only unlocked ones, for
    # the pool is all a hero may roll (MQ-COMBAT-03..07, MQ-GAP-36), unless
    # the toggle extra_die_any_level lets a Relic lend a locked die
    top = 3 if T[TB.P_EXTRA_DIE_ANY_LEVEL] == 1 else pool - 1
    for lv in range(top, -1, -1):
        if extra <= 0:
            break
        used = False
        for j in range(k):
            if levels[j] == lv:
                used = True
        if not used:
            levels[k] = lv
            k += 1
            extra -= 1
    return k


@kernel
def score_roll(T, faces, n, ability, bonus, target, blue, defending):
    """Resolve a combat roll: returns (win, total). total is -1 on a fumble.

    Fail faces count 0; a Double doubles the number faces (once, or per Double
    with doubles_stack); a Blue Moon doubles the dice again; a Dandelion wins
    outright (even with two Fails when dandelion_beats_fumble)."""
    fails = 0
    doubles = 0
    dand = False
    total = 0
    for i in range(n):
        f = faces[i]
        if f == L.FACE_FAIL:
            fails += 1
        elif f == L.FACE_DOUBLE:
            doubles += 1
        elif f == L.FACE_DANDELION:
            dand = True
        else:
            total += f
    fumble = (n == 1 and fails == 1) or (n >= 2 and fails >= 2)
    if defending and T[TB.P_DEFENCE_ANY_FAIL_LOSES] == 1 and fails > 0:
        fumble = True
    if dand and (not fumble or T[TB.P_DANDELION_BEATS_FUMBLE] == 1):
        return True, 999
    if fumble:
        return False, -1
    mult = 1
    if doubles > 0:
        if T[TB.P_DOUBLES_STACK] == 1:
            for _ in range(doubles):
                mult *= 2
        else:
            mult = 2
    if blue:
        mult *= 2
    v = ability + total * mult + bonus
    return v >= target, v

@kernel
def fumbled(T, faces, n, defending):
    """The ``n`` dice rolled together are a fumble that no Dandelion among them
    saves: "they have fumbled ... and they automatically lose the fight"
    (MQ-COMBAT-11/12). Dice added to the roll afterwards (an extra-die Relic)
    cannot undo it; a re-roll replaces the dice and is judged anew."""
    fails = 0
    dand = False
    for i in range(n):
        if faces[i] == L.FACE_FAIL:
            fails += 1
        elif faces[i] == L.FACE_DANDELION:
            dand = True
    fumble = (n == 1 and fails == 1) or (n >= 2 and fails >= 2)
    if defending and T[TB.P_DEFENCE_ANY_FAIL_LOSES] == 1 and fails > 0:
        fumble = True
    return fumble and not (dand and T[TB.P_DANDELION_BEATS_FUMBLE] == 1)

# ---- discs, levels, dice pool ---------------------------------------------------------


@kernel
def raise_encounter_level(s, T, ev):
    """Add the next level's tiles to the bag (MQ-ENC-01/02); no-op at level 3."""
    lv = s[L.G_ENC_LEVEL]
    if lv >= 3:
        return
    n = s[L.G_LV_N + lv]
    for i in range(n):
        s[L.G_BAG + s[L.G_BAG_N]] = s[L.G_LV_TILES + lv * 32 + i]
        s[L.G_BAG_N] += 1
    s[L.G_ENC_LEVEL] = lv + 1
    log(s, ev, L.EVT_ENCOUNTER_LEVEL, L.ACTOR_GAME, lv + 1, n, 0, 0, 0)


@kernel
def encounter_trigger(s, T, ev, count):
    """A Nightmare event that adds Encounter tiles (MQ-ENC-01/02): ``count`` is
    how many Nightmares this kind of event has now happened to (cast out or
    defeated, or escaped). The Level 2 tiles come in with the first, the
    Level 3 tiles with "a second Nightmare" (MQ-GAP-49); a level already
    brought in by an exhausted bag is not added twice. With the toggle
    encounter_level_per_trigger, every event adds the next level instead."""
    if T[TB.P_ENCOUNTER_LEVEL_PER_TRIGGER] == 1:
        raise_encounter_level(s, T, ev)
        return
    while s[L.G_ENC_LEVEL] < min(3, 1 + count):
        raise_encounter_level(s, T, ev)


@kernel
def unlock_die(s, ev):
    """A Nightmare cast out or defeated adds the next combat die (MQ-COMBAT-04..06)."""
    if s[L.G_POOL] < 4:
        s[L.G_POOL] += 1
        log(s, ev, L.EVT_DICE_POOL, L.ACTOR_GAME, s[L.G_POOL], 0, 0, 0, 0)


@kernel
def click_disc(s, T, ev, d, clicks):
    """Turn the disc at direction ``d`` by ``clicks`` (negative turns it back).

    A disc at its release position ignores further clicks either way: its
    Nightmare will escape (MQ-GAP-21); turning back never goes past the
    level's start marker."""
    o = db(d)
    if not disc_occupied(s, d):
        return
    if s[o + L.D_STATE] == L.DS_RELEASED:
        # "rotated fully": it neither turns on nor back (MQ-DISC-03, MQ-GAP-21);
        # logged so a reader sees the click that did nothing
        log(s, ev, L.EVT_DISC_HELD, L.ACTOR_GAME, d, clicks, 0, 0, 0)
        return
    if clicks > 0:
        s[o + L.D_CLICKS] = max(0, s[o + L.D_CLICKS] - clicks)
        if s[o + L.D_CLICKS] == 0:
            s[o + L.D_STATE] = L.DS_RELEASED
    else:
        s[o + L.D_CLICKS] = min(s[o + L.D_START_CLICKS], s[o + L.D_CLICKS] - clicks)
    log(s, ev, L.EVT_DISC_CLICK, L.ACTOR_GAME, d, clicks, s[o + L.D_CLICKS], s[o + L.D_STATE], 0)


@kernel
def next_occupied_disc(s, d):
    """The first occupied disc from ``d`` clockwise (roll-over, MQ-MOON-11), or -1."""
    for i in range(4):
        dd = (d + i) % 4
        if disc_occupied(s, dd):
            return dd
    return -1


@kernel
def most_advanced_disc(s):
    """Occupied disc with the fewest clicks to release (ties: clockwise from N)."""
    best = -1
    for d in range(4):
        if disc_occupied(s, d) and s[db(d) + L.D_STATE] == L.DS_ON:
            if best < 0 or s[db(d) + L.D_CLICKS] < s[db(best) + L.D_CLICKS]:
                best = d
    return best


@kernel
def discard_tile(s, ev, c):
    """Discard the encounter tile beside nexus ``c`` (and its bogbean or pot)."""
    o = xb(c)
    t = s[o + L.X_TILE]
    if t < 0:
        return
    s[L.G_DISCARD + s[L.G_DISCARD_N]] = t
    s[L.G_DISCARD_N] += 1
    s[o + L.X_TILE] = -1
    s[o + L.X_KIND] = -1
    s[o + L.X_BOG_POS] = -1
    s[o + L.X_BOG_WOUNDS] = 0
    if s[o + L.X_POT] == 1:
        s[L.G_POTS_OUT] -= 1
    s[o + L.X_POT] = 0
    s[o + L.X_ENTERED] = 0


@kernel
def remove_bogbean(s, T, ev, c, reason):
    """Take the bogbean of slot ``c`` off the board and discard its tile."""
    lv = bog_level(s, T, c)
    if lv == 0:
        return
    log(s, ev, L.EVT_FLEE, L.ACTOR_GAME, c, s[xb(c) + L.X_BOG_POS], reason, lv, 0)
    s[L.G_BOGS_IN_PLAY + lv - 1] -= 1
    discard_tile(s, ev, c)


@kernel
def knock_back_to_start(s, T, ev, h):
    """Move hero ``h`` to its own Start Point, or the nearest one with room."""
    o = hb(h)
    home = s[o + L.H_START]
    best = home
    if minis_at(s, home) >= T[TB.P_MINIATURES_PER_SPACE]:
        best = -1
        for d in range(4):
            sp = T[TB.O_START + d]
            if minis_at(s, sp) < T[TB.P_MINIATURES_PER_SPACE]:
                if best < 0 or T[TB.O_DIST_H + home * TB.DIST_W + sp] < T[TB.O_DIST_H + home * TB.DIST_W + best]:
                    best = sp
        if best < 0:
            # every start point is full: the nearest space with room
            for sp in range(T[TB.P_N_SPACES]):
                if (T[TB.O_KIND + sp] != L.K_DISC and T[TB.O_KIND + sp] != L.K_CENTRE
                        and minis_at(s, sp) < T[TB.P_MINIATURES_PER_SPACE]):
                    if best < 0 or T[TB.O_DIST_H + home * TB.DIST_W + sp] < T[TB.O_DIST_H + home * TB.DIST_W + best]:
                        best = sp
        if best < 0:
            best = home
    log(s, ev, L.EVT_KNOCK_BACK, h, s[o + L.H_POS], best, 0, 0, 0)
    s[o + L.H_POS] = best
