"""The Enemy Phase (numba): escapes, enemy movement towards the nearest hero,
evil powers, attacks, encounter tiles and movement tiles (MQ-ENEMY, MQ-ENC,
MQ-DISC-04).
"""

import numpy as np

from simcore.jit import inlined, kernel
from simcore.rng import STREAM_ENCOUNTER, randint

from . import layout as L
from . import tables as TB
from .combat import bogbean_drops, bogbean_theft, hero_combat, strongest_ability
from .core import (
    bog_level,
    bogbeans_at,
    db,
    disc_occupied,
    first_hero_at,
    hb,
    heroes_at,
    just_arrived,
    knock_back_to_start,
    log,
    lose_life,
    minis_at,
    nb,
    nightmare_at,
    pot_at,
    encounter_trigger,
    raise_encounter_level,
    remove_bogbean,
    running,
    xb,
)
from .effects import apply_simple_effect

# =============================================================================
# enemies
# =============================================================================


@kernel
def nearest_hero(s, T, sp, avoid):
    """Hero nearest to ``sp`` on the enemy graph; ties go to the one first
    clockwise from the enemy's bearing (MQ-ENEMY-04, MQ-GAP-42). Heroes on
    ``sp`` itself and on space ``avoid`` are skipped. -1 if none."""
    best = -1
    bd = 0
    bo = 0
    for h in range(s[L.G_NHEROES]):
        pos = s[hb(h) + L.H_POS]
        if T[TB.O_KIND + pos] == L.K_DISC or pos == sp or pos == avoid:
            continue
        d = T[TB.O_DIST_E + sp * TB.DIST_W + pos]
        if d >= 1000000:
            continue
        off = (T[TB.O_BEARING + pos] - T[TB.O_BEARING + sp]) % 36000
        if best < 0 or d < bd or (d == bd and off < bo):
            best = h
            bd = d
            bo = off
    return best


@inlined
def enemy_step(s, T, ev, is_nm, idx, avoid):
    """``_enemy_step`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _enemy_step(s, T, ev, np.bool_(is_nm), np.int64(idx), np.int64(avoid))


@kernel
def _enemy_step(s, T, ev, is_nm, idx, avoid):
    """Move one enemy one space towards its nearest hero. Returns 1 if it
    moved onto a hero's space, 0 if it moved elsewhere, -1 if it did not move
    (no hero, already with one, or blocked: MQ-GAP-08/09)."""
    if is_nm:
        o = nb(idx) + L.NM_POS
    else:
        o = xb(idx) + L.X_BOG_POS
    sp = s[o]
    if heroes_at(s, sp) > 0:
        if T[TB.P_ENEMY_ON_HERO_ATTACKS] == 1:
            log(s, ev, L.EVT_ENEMY_STAY, L.ACTOR_GAME, int(is_nm), idx, sp, 0, first_hero_at(s, sp) + 1)
            return -1
        # enemy_on_hero_attacks off: only arriving enemies attack, so one
        # already with a hero moves on towards the nearest other hero
    h = nearest_hero(s, T, sp, avoid)
    if h < 0:
        log(s, ev, L.EVT_ENEMY_STAY, L.ACTOR_GAME, int(is_nm), idx, sp, 1, 0)
        return -1
    tgt = s[hb(h) + L.H_POS]
    d = T[TB.O_DIST_E + sp * TB.DIST_W + tgt]
    best = -1
    bo = 0
    tun = T[TB.O_TUNNEL + sp] if T[TB.P_ENEMIES_USE_TUNNEL] == 1 else -1
    for j in range(T[TB.O_DEG + sp] + (1 if tun >= 0 else 0)):
        nx = T[TB.O_ADJ + sp * 8 + j] if j < T[TB.O_DEG + sp] else tun
        if T[TB.O_DIST_E + nx * TB.DIST_W + tgt] != d - 1:
            continue
        room = minis_at(s, nx)
        if is_nm:
            # fleeing bogbeans make room for a nightmare (MQ-ENEMY-12)
            for c in range(4):
                if s[xb(c) + L.X_BOG_POS] == nx:
                    room -= 1
        else:
            if nightmare_at(s, nx) >= 0:
                continue
        if room >= T[TB.P_MINIATURES_PER_SPACE]:
            continue
        off = (T[TB.O_BEARING + nx] - T[TB.O_BEARING + sp]) % 36000
        if best < 0 or off < bo:
            best = nx
            bo = off
    if best < 0:
        log(s, ev, L.EVT_ENEMY_STAY, L.ACTOR_GAME, int(is_nm), idx, sp, 2, h + 1)
        return -1
    # e: the hero it hunts (+1) and how far away that hero was (x16), its reason
    log(s, ev, L.EVT_ENEMY_MOVE, L.ACTOR_GAME, int(is_nm), idx, sp, best, h + 1 + 16 * d)
    if is_nm:
        for c in range(4):
            if s[xb(c) + L.X_BOG_POS] == best:
                remove_bogbean(s, T, ev, c, 0)
    s[o] = best
    if heroes_at(s, best) > 0:
        if not is_nm:
            s[xb(idx) + L.X_ENTERED] = 1
        else:
            s[nb(idx) + L.NM_JUST] = 1
        return 1
    return 0


@inlined
def move_enemy(s, T, ev, is_nm, idx, steps):
    """``_move_enemy`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _move_enemy(s, T, ev, np.bool_(is_nm), np.int64(idx), np.int64(steps))


@kernel
def _move_enemy(s, T, ev, is_nm, idx, steps):
    """Move an enemy up to ``steps`` spaces, stopping on a hero (MQ-GAP-43).
    With enemy_on_hero_attacks off, an enemy that starts with a hero leaves
    that hero alone and heads for another."""
    start = s[nb(idx) + L.NM_POS] if is_nm else s[xb(idx) + L.X_BOG_POS]
    avoid = -1
    if T[TB.P_ENEMY_ON_HERO_ATTACKS] == 0 and heroes_at(s, start) > 0:
        avoid = start
    for _ in range(steps):
        r = enemy_step(s, T, ev, is_nm, idx, avoid)
        if r != 0:
            break


@kernel
def nightmare_attack(s, T, ev, rng, legal, pp, k):
    """Nightmare ``k`` on a hero's space attacks on its strongest unwounded
    ability; a lost defence costs a life point (MQ-ENEMY-07/08, MQ-COMBAT-27)."""
    sp = s[nb(k) + L.NM_POS]
    h = first_hero_at(s, sp)
    if h < 0:
        return
    a = strongest_ability(s, T, L.ENEMY_NM + k, 0, s[nb(k) + L.NM_WOUNDS])
    if a < 0:
        return
    log(s, ev, L.EVT_ENEMY_PHASE, -1 - k, 1, h, a, 0, 0)
    if not hero_combat(s, T, ev, rng, legal, pp, h, L.ENEMY_NM + k, a, True):
        lose_life(s, T, ev, h, 1)


@kernel
def bogbean_attack(s, T, ev, rng, legal, pp, c):
    """Bogbean of slot ``c`` attacks the hero on its space (MQ-ENEMY-09/10)."""
    sp = s[xb(c) + L.X_BOG_POS]
    h = first_hero_at(s, sp)
    if h < 0:
        return
    lv = bog_level(s, T, c)
    a = strongest_ability(s, T, L.ENEMY_BOG + lv - 1, 0, 0)
    log(s, ev, L.EVT_ENEMY_PHASE, L.ACTOR_GAME, 2, h, a, c, 0)
    if hero_combat(s, T, ev, rng, legal, pp, h, L.ENEMY_BOG + lv - 1, a, True):
        bogbean_drops(s, T, ev, rng, legal, pp, h, c, False)
    else:
        bogbean_theft(s, T, ev, rng, legal, pp, h, c)


@inlined
def enemy_attacks(s, T, ev, rng, legal, pp, only_entered):
    """``_enemy_attacks`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _enemy_attacks(s, T, ev, rng, legal, pp, np.bool_(only_entered))


@kernel
def _enemy_attacks(s, T, ev, rng, legal, pp, only_entered):
    """Every enemy on a hero's space attacks: nightmares in disc order, then
    bogbeans NE..NW (MQ-GAP-45). With ``only_entered`` only those that moved
    onto a hero this step attack."""
    for d in range(4):
        k = s[db(d) + L.D_NM]
        if k < 0 or s[nb(k) + L.NM_POS] < 0:
            continue
        if only_entered and s[nb(k) + L.NM_JUST] == 0:
            continue
        if just_arrived(s, k) and T[TB.P_ESCAPE_ROUND_ACTIVE] == 0:
            continue   # no attack in the round it arrived (MQ-GAP-26)
        if not running(s):
            return
        nightmare_attack(s, T, ev, rng, legal, pp, k)
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] < 0:
            continue
        if only_entered and s[xb(c) + L.X_ENTERED] == 0:
            continue
        if not running(s):
            return
        bogbean_attack(s, T, ev, rng, legal, pp, c)


@kernel
def clear_entered(s):
    for k in range(4):
        s[nb(k) + L.NM_JUST] = 0
    for c in range(4):
        s[xb(c) + L.X_ENTERED] = 0


@inlined
def move_all_enemies(s, T, ev, nm_steps, bog_steps, skip_just_escaped):
    """``_move_all_enemies`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _move_all_enemies(s, T, ev, np.int64(nm_steps), np.int64(bog_steps), np.bool_(skip_just_escaped))


@kernel
def _move_all_enemies(s, T, ev, nm_steps, bog_steps, skip_just_escaped):
    for d in range(4):
        k = s[db(d) + L.D_NM]
        if k >= 0 and s[nb(k) + L.NM_POS] >= 0:
            if skip_just_escaped and just_arrived(s, k):
                continue
            move_enemy(s, T, ev, True, k, nm_steps)
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] >= 0:
            move_enemy(s, T, ev, False, c, bog_steps)


@kernel
def movement_tile(s, T, ev, rng, legal, pp, steps):
    """A movement tile moves every enemy; those reaching a hero attack at once
    (MQ-ENC-08..10, MQ-GAP-46)."""
    clear_entered(s)
    move_all_enemies(s, T, ev, steps, steps, False)
    enemy_attacks(s, T, ev, rng, legal, pp, True)
    clear_entered(s)


@kernel
def place_nightmare(s, T, ev, k, d):
    """Nightmare ``k`` tries to arrive on the key stone of direction ``d``.

    At the Final Battle emergence, and on an escape with the toggle
    escape_knocks_back, heroes there are knocked back to their start first
    (MQ-FINAL-04, MQ-GAP-27). The two-miniature limit holds (MQ-MOVE-07):
    bogbeans there flee before a nightmare (MQ-ENEMY-12), but heroes and
    nightmares do not make way, so with no room left the nightmare stays on
    its disc and tries again at the next enemy step. Returns True if placed."""
    sp = T[TB.O_KEYSTONE + d]
    if T[TB.P_ESCAPE_KNOCKS_BACK] == 1 or s[L.G_FINAL] != L.FB_NONE:
        for h in range(s[L.G_NHEROES]):
            if s[hb(h) + L.H_POS] == sp:
                knock_back_to_start(s, T, ev, h)
    if minis_at(s, sp) - bogbeans_at(s, sp) >= T[TB.P_MINIATURES_PER_SPACE]:
        return False
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            remove_bogbean(s, T, ev, c, 0)
    s[nb(k) + L.NM_POS] = sp
    s[db(d) + L.D_STATE] = L.DS_BOARD
    for t in range(4):
        s[L.G_POOL_CHARMS + t] += s[db(d) + L.D_DEP + t]
        s[db(d) + L.D_DEP + t] = 0
    return True


@kernel
def escapes(s, T, ev):
    """Released nightmares escape onto their key stones (MQ-DISC-04); one
    whose key stone is full waits on its disc (MQ-GAP-27). Each escape is an
    Encounter trigger (MQ-ENC-01/02)."""
    for d in range(4):
        if s[db(d) + L.D_STATE] == L.DS_RELEASED:
            k = s[db(d) + L.D_NM]
            placed = place_nightmare(s, T, ev, k, d)
            log(s, ev, L.EVT_ESCAPE, -1 - k, d, T[TB.O_KEYSTONE + d], 0 if placed else 1, 0, 0)
            if not placed:
                continue
            s[nb(k) + L.NM_FATE] = L.FATE_ESCAPED
            s[nb(k) + L.NM_ESCAPED] = L.NM_ARRIVED_ESCAPE   # escaped this round (MQ-GAP-26)
            s[L.G_ESCAPED] += 1
            encounter_trigger(s, T, ev, s[L.G_ESCAPED])


@kernel
def emergences(s, T, ev):
    """Nightmares not cast out emerge onto their key stones at the Final
    Battle (MQ-FINAL-03/04); one that finds no room waits on its disc and
    emerges at a later Final Battle enemy step."""
    for d in range(4):
        st = s[db(d) + L.D_STATE]
        if st == L.DS_ON or st == L.DS_RELEASED:
            k = s[db(d) + L.D_NM]
            placed = place_nightmare(s, T, ev, k, d)
            log(s, ev, L.EVT_EMERGE, -1 - k, d, T[TB.O_KEYSTONE + d], 0 if placed else 1, 0, 0)
            if placed:
                s[nb(k) + L.NM_FATE] = L.FATE_EMERGED


@kernel
def evil_powers(s, T, ev, rng, legal, pp):
    """Each nightmare on the board uses its evil power once (MQ-ENEMY-05)."""
    for d in range(4):
        k = s[db(d) + L.D_NM]
        if k < 0 or s[nb(k) + L.NM_POS] < 0 or not running(s):
            continue
        if just_arrived(s, k) and T[TB.P_ESCAPE_ROUND_ACTIVE] == 0:
            continue   # it acts "on any following rounds" (MQ-GAP-26)
        e = T[TB.O_NM_POWER + k]
        log(s, ev, L.EVT_EVIL_POWER, -1 - k, e, s[nb(k) + L.NM_POS], 0, 0, 0)
        if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND] == L.EK_EXTRA_MOVE:
            move_enemy(s, T, ev, True, k, T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT])
        else:
            apply_simple_effect(s, T, ev, e, -1 - k, -1)


@kernel
def draw_tile(s, T, ev, rng):
    """Take a random tile from the bag, refilling it when exhausted
    (MQ-GAP-50). Returns -1 when there is nothing to draw."""
    if s[L.G_BAG_N] == 0:
        if s[L.G_ENC_LEVEL] < 3:
            raise_encounter_level(s, T, ev)
        elif T[TB.P_BAG_REUSES_DISCARDS] == 1:
            for i in range(s[L.G_DISCARD_N]):
                s[L.G_BAG + i] = s[L.G_DISCARD + i]
            s[L.G_BAG_N] = s[L.G_DISCARD_N]
            s[L.G_DISCARD_N] = 0
            log(s, ev, L.EVT_ENCOUNTER_LEVEL, L.ACTOR_GAME, 3, s[L.G_BAG_N], 1, 0, 0)
    n = s[L.G_BAG_N]
    if n == 0:
        return -1
    j = randint(rng, STREAM_ENCOUNTER, n)
    t = s[L.G_BAG + j]
    s[L.G_BAG + j] = s[L.G_BAG + n - 1]
    s[L.G_BAG_N] = n - 1
    return t


@kernel
def resolve_tile(s, T, ev, rng, legal, pp, c, t):
    """Place tile ``t`` drawn for nexus ``c`` (MQ-ENC-06..08)."""
    kind = T[TB.O_TILES + t * L.TL_COLS + L.TL_KIND]
    o = xb(c)
    placed = 0
    why = 5     # why it was not placed (layout.TILE_DISCARD_NAMES), for the log
    if kind == L.TK_BOGBEAN:
        lv = T[TB.O_TILES + t * L.TL_COLS + L.TL_LEVEL]
        why = 1
        if s[L.G_BOGS_IN_PLAY + lv - 1] < T[TB.P_BOGBEANS_PER_LEVEL]:
            s[o + L.X_TILE] = t
            s[o + L.X_KIND] = kind
            s[o + L.X_BOG_POS] = T[TB.O_NEXUS + c]
            s[o + L.X_BOG_WOUNDS] = 0
            s[L.G_BOGS_IN_PLAY + lv - 1] += 1
            placed = 1
    elif kind == L.TK_POT:
        cr = T[TB.O_CROSSROADS + c]
        why = 2 if minis_at(s, cr) > 0 else 3 if pot_at(s, T, cr) >= 0 else 4
        if minis_at(s, cr) == 0 and pot_at(s, T, cr) < 0 and s[L.G_POTS_OUT] < T[TB.P_MAGICAL_POTS]:
            s[o + L.X_TILE] = t
            s[o + L.X_KIND] = kind
            s[o + L.X_POT] = 1
            s[L.G_POTS_OUT] += 1
            placed = 1
    log(s, ev, L.EVT_ENCOUNTER, L.ACTOR_GAME, c, t, kind, placed, 0 if placed else why)
    if placed == 0:
        s[L.G_DISCARD + s[L.G_DISCARD_N]] = t
        s[L.G_DISCARD_N] += 1
    if kind == L.TK_MOVE1 or kind == L.TK_MOVE2:
        movement_tile(s, T, ev, rng, legal, pp, 1 if kind == L.TK_MOVE1 else 2)


@kernel
def draw_encounters(s, T, ev, rng, legal, pp):
    """Draw a tile for every nexus with no miniature and no tile, NE first
    (MQ-ENC-04). The optional pre-game draw on Difficult is the same pass made
    before the first turn, one tile for each nexus (MQ-GAP-75)."""
    for c in range(4):
        if not running(s):
            return
        o = xb(c)
        if s[o + L.X_TILE] >= 0 or minis_at(s, T[TB.O_NEXUS + c]) > 0:
            continue
        t = draw_tile(s, T, ev, rng)
        if t < 0:
            return
        resolve_tile(s, T, ev, rng, legal, pp, c, t)


@inlined
def enemy_phase(s, T, ev, rng, legal, pp, draws):
    """``_enemy_phase`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _enemy_phase(s, T, ev, rng, legal, pp, np.bool_(draws))


@kernel
def _enemy_phase(s, T, ev, rng, legal, pp, draws):
    """Enemy phase (MQ-ENEMY-01): escapes, movement, evil powers, attacks,
    encounter draws (not in the Final Battle)."""
    s[L.G_CUR] = -1
    log(s, ev, L.EVT_ENEMY_PHASE, L.ACTOR_GAME, 0, 0, 0, 0, 0)
    if s[L.G_FINAL] != L.FB_RUNNING:
        escapes(s, T, ev)
    else:
        # a Nightmare still waiting for room on its key stone emerges now and,
        # like an escape, only arrives this round (MQ-GAP-26/27)
        waiting = 0
        for d in range(4):
            if disc_occupied(s, d):
                waiting |= 1 << d
        emergences(s, T, ev)
        for d in range(4):
            if (waiting >> d) & 1 == 1 and s[db(d) + L.D_STATE] == L.DS_BOARD:
                s[nb(s[db(d) + L.D_NM]) + L.NM_ESCAPED] = L.NM_ARRIVED_LATE
    clear_entered(s)
    move_all_enemies(s, T, ev, T[TB.P_NIGHTMARE_MOVE], T[TB.P_BOGBEAN_MOVE], True)
    if T[TB.P_ESCAPE_ROUND_ACTIVE] == 1:
        # the other reading: in play at once, attacking a hero on its key stone
        for k in range(4):
            if just_arrived(s, k):
                s[nb(k) + L.NM_ESCAPED] = 1 if s[nb(k) + L.NM_ESCAPED] == L.NM_ARRIVED_ESCAPE else 0
                if s[nb(k) + L.NM_POS] >= 0 and heroes_at(s, s[nb(k) + L.NM_POS]) > 0:
                    s[nb(k) + L.NM_JUST] = 1
    evil_powers(s, T, ev, rng, legal, pp)
    if running(s):
        enemy_attacks(s, T, ev, rng, legal, pp, T[TB.P_ENEMY_ON_HERO_ATTACKS] == 0)
    clear_entered(s)
    if draws and running(s):
        draw_encounters(s, T, ev, rng, legal, pp)
    for k in range(4):
        if just_arrived(s, k):   # from the next round on it hunts the heroes
            s[nb(k) + L.NM_ESCAPED] = 1 if s[nb(k) + L.NM_ESCAPED] == L.NM_ARRIVED_ESCAPE else 0
