"""The rules of MourneQuest that involve a choice or a sequence: cards and
effects, hero movement, combat with its reaction window, the enemy phase,
encounter tiles, the hero turn with its legal actions, the moon and compass,
and the Final Battle. Every player choice goes through ``policies.decide``
with a list of legal action codes generated here (never by the policy).

Rule IDs (MQ-*) refer to shared/rules/mournequest-rules.md; MQ-GAP rulings to
docs/rulings.md.
"""
import numpy as np
from numba import njit

from simcore.rng import STREAM_DICE, STREAM_ENCOUNTER, randint
from . import layout as L
from . import tables as TB
from .core import (ability_total, bog_level, bogbeans_at, charm_multi, charms_held, click_disc, db, dice_for_combat,
                   discard_equipped, discard_tile, disc_occupied, drop_charms, enemies_in_play,
                   first_hero_at, gain_charms, hb, heal, heroes_at, knock_back_to_start, log,
                   lose_life, lose_most_plentiful_charms, minis_at, moon_colour, most_advanced_disc, nb,
                   next_occupied_disc, nightmare_at, pot_at, raise_encounter_level, remove_bogbean,
                   roll_compass, roll_die, score_roll, snapshot, to_surplus, unlock_die, xb)
from .policies import decide

OPB = L.OP_BASE


@njit(cache=True)
def code(op, arg):
    return op * OPB + arg


@njit(cache=True)
def running(s):
    return s[L.G_OUTCOME] == L.O_RUNNING

# =============================================================================
# cards
# =============================================================================


@njit(cache=True)
def offer_card(s, T, ev, rng, legal, pp, h, c):
    """Hero ``h`` holds card ``c``: equip it (a higher value replaces the card
    under that ability, which goes to the Surplus) or discard it to the
    Surplus Deck (MQ-CARD-05..07, MQ-GAP-59)."""
    a = T[TB.O_CARDS + c * 3 + 0]
    cur = s[hb(h) + L.H_EQ + a]
    n = 0
    if cur < 0 or T[TB.O_CARDS + c * 3 + 1] > T[TB.O_CARDS + cur * 3 + 1]:
        legal[n] = code(L.E_EQUIP, c)
        n += 1
    legal[n] = code(L.E_DISCARD, c)
    n += 1
    ch = decide(s, T, legal, n, rng, pp, h)
    if ch // OPB == L.E_EQUIP:
        if cur >= 0:
            discard_equipped(s, ev, h, a, True)
        s[hb(h) + L.H_EQ + a] = c
        log(s, ev, L.EVT_EQUIP, h, c, a, T[TB.O_CARDS + c * 3 + 1], 1, 0)
    else:
        to_surplus(s, c)
        log(s, ev, L.EVT_EQUIP, h, c, a, T[TB.O_CARDS + c * 3 + 1], 0, 0)


@njit(cache=True)
def draw_relic(s, T, ev, rng, legal, pp, h):
    """Hero ``h`` draws the top relic; a sabotaged one acts at once (MQ-CARD-12)."""
    if s[L.G_RELIC_N] == 0:
        return
    s[L.G_RELIC_N] -= 1
    r = s[L.G_RELIC_DECK + s[L.G_RELIC_N]]
    sab = T[TB.O_RELICS + r * 2 + 1]
    log(s, ev, L.EVT_RELIC_DRAWN, h, r, sab, 0, 0, 0)
    if sab == 1:
        s[L.G_RELIC_OWNER + r] = -2
        apply_simple_effect(s, T, ev, T[TB.O_RELICS + r * 2 + 0], h, -1)
    else:
        s[L.G_RELIC_OWNER + r] = h


@njit(cache=True)
def draw_equipment(s, T, ev, rng, legal, pp, h):
    """Hero ``h`` draws the top face-down equipment card; a Hag acts at once and
    leaves the game (MQ-CARD-09/10)."""
    if s[L.G_EQ_N] == 0:
        return
    s[L.G_EQ_N] -= 1
    c = s[L.G_EQ_DECK + s[L.G_EQ_N]]
    log(s, ev, L.EVT_EQUIPMENT_DRAWN, h, c, 0, 0, 0, 0)
    if T[TB.O_CARDS + c * 3 + 0] < 0:
        log(s, ev, L.EVT_HAG, h, c, T[TB.O_CARDS + c * 3 + 2], 0, 0, 0)
        apply_simple_effect(s, T, ev, T[TB.O_CARDS + c * 3 + 2], h, -1)
    else:
        offer_card(s, T, ev, rng, legal, pp, h, c)

# =============================================================================
# effects (skills, relics, hags, evil powers)
# =============================================================================


@njit(cache=True)
def hero_near(s, T, h, sp, rng_):
    """Hero ``h`` is within ``rng_`` steps of space ``sp`` (on the board)."""
    pos = s[hb(h) + L.H_POS]
    if T[TB.O_KIND + pos] == L.K_DISC:
        return False
    return T[TB.O_DIST_E + sp * 64 + pos] <= rng_


@njit(cache=True)
def apply_simple_effect(s, T, ev, e, user, param):
    """Carry out effect ``e`` used by ``user`` (a hero, or -1-k for nightmare k)
    when it needs no movement: everything but move_to and extra_move.

    ``param`` is the chosen target: a hero, a disc direction, a charm type;
    -1 when the effect picks its own target."""
    kind = T[TB.O_EFFECTS + e * 5 + L.EF_KIND]
    amt = T[TB.O_EFFECTS + e * 5 + L.EF_AMOUNT]
    tgt = T[TB.O_EFFECTS + e * 5 + L.EF_TARGET]
    rng_ = T[TB.O_EFFECTS + e * 5 + L.EF_RANGE]
    if kind == L.E_HEAL:
        h = user if param < 0 else param
        heal(s, T, ev, h, amt)
    elif kind == L.E_WOUND:
        if tgt == L.T_HEROES_NEAR:
            sp = s[nb(-1 - user) + L.N_POS]
            for h in range(s[L.G_NHEROES]):
                if hero_near(s, T, h, sp, rng_):
                    lose_life(s, T, ev, h, amt)
        else:
            lose_life(s, T, ev, user, amt)
    elif kind == L.E_GAIN_CHARM:
        gain_charms(s, T, ev, user, param, amt)
    elif kind == L.E_LOSE_CHARM:
        if tgt == L.T_HEROES_NEAR:
            sp = s[nb(-1 - user) + L.N_POS]
            for h in range(s[L.G_NHEROES]):
                if hero_near(s, T, h, sp, rng_):
                    lose_most_plentiful_charms(s, ev, h, amt)
        else:
            lose_most_plentiful_charms(s, ev, user, amt)
    elif kind == L.E_LOSE_SKILL:
        sp = s[nb(-1 - user) + L.N_POS] if user < 0 else -1
        for h in range(s[L.G_NHEROES]):
            hit = hero_near(s, T, h, sp, rng_) if user < 0 else h == user
            if hit and s[hb(h) + L.H_SKILLS] > 0:
                k = min(amt, s[hb(h) + L.H_SKILLS])
                s[hb(h) + L.H_SKILLS] -= k
                log(s, ev, L.EVT_SKILL_TOKEN_LOST, h, k, 0, 0, 0, 0)
    elif kind == L.E_REPAIR_WALL:
        if param >= 0 and s[L.G_WALL + param] == 1:
            s[L.G_WALL + param] = 0
            s[L.G_WALL_REPAIRS] += 1
            log(s, ev, L.EVT_WALL_REPAIR, user, param, 0, 0, 0, 0)
    elif kind == L.E_ROTATE_DISC:
        d = param
        if tgt == L.T_ADVANCED_DISC:
            d = most_advanced_disc(s)
        if d >= 0:
            click_disc(s, T, ev, d, amt)
    elif kind == L.E_EXTRA_ACTION:
        s[L.G_ACTS] += amt
    elif kind == L.E_LOSE_EQUIPMENT:
        best = -1
        for a in range(3):
            c = s[hb(user) + L.H_EQ + a]
            if c >= 0 and (best < 0 or T[TB.O_CARDS + c * 3 + 1] > T[TB.O_CARDS + s[hb(user) + L.H_EQ + best] * 3 + 1]):
                best = a
        if best >= 0:
            discard_equipped(s, ev, user, best, False)


@njit(cache=True)
def apply_effect(s, T, ev, rng, legal, pp, e, user, param):
    """Carry out a skill or relic effect chosen in a turn; move_to moves hero
    ``param // 4`` to the crossroads of corner ``param % 4``."""
    if T[TB.O_EFFECTS + e * 5 + L.EF_KIND] == L.E_MOVE_TO:
        h = param // 4
        sp = T[TB.O_CROSSROADS + param % 4]
        log(s, ev, L.EVT_MOVE, h, s[hb(h) + L.H_POS], sp, 1, 0, 0)
        if h == s[L.G_CUR] and (s[L.G_MUST_MOVE] & 1) != 0:
            s[L.G_FORBID] = s[hb(h) + L.H_POS]
            s[L.G_MUST_MOVE] &= 2
        s[hb(h) + L.H_POS] = sp
        arrive(s, T, ev, rng, legal, pp, h)
    else:
        apply_simple_effect(s, T, ev, e, user, param)


@njit(cache=True)
def effect_targets(s, T, e, user, active, out):
    """Legal targets of turn-window effect ``e`` used by hero ``user`` while
    hero ``active`` plays; writes params to ``out`` and returns the count
    (0: not usable now)."""
    kind = T[TB.O_EFFECTS + e * 5 + L.EF_KIND]
    tgt = T[TB.O_EFFECTS + e * 5 + L.EF_TARGET]
    n = 0
    if tgt == L.T_SELF and user != active:
        return 0
    if kind == L.E_HEAL:
        if tgt == L.T_SELF:
            if s[hb(user) + L.H_WOUNDS] > 0:
                out[0] = user
                n = 1
        else:
            for h in range(s[L.G_NHEROES]):
                if s[hb(h) + L.H_WOUNDS] > 0:
                    out[n] = h
                    n += 1
    elif kind == L.E_GAIN_CHARM:
        if charms_held(s, user) < T[TB.P_BACKPACK]:
            for t in range(4):
                if s[L.G_POOL_CHARMS + t] > 0:
                    out[n] = t
                    n += 1
    elif kind == L.E_REPAIR_WALL:
        for d in range(4):
            if s[L.G_WALL + d] == 1:
                out[n] = d
                n += 1
    elif kind == L.E_ROTATE_DISC:
        if tgt == L.T_CHOSEN_DISC:
            for d in range(4):
                o = db(d)
                if disc_occupied(s, d) and (T[TB.O_EFFECTS + e * 5 + L.EF_AMOUNT] > 0 or
                                            s[o + L.D_CLICKS] < s[o + L.D_START_CLICKS]):
                    out[n] = d
                    n += 1
    elif kind == L.E_EXTRA_ACTION:
        if s[L.G_TURN_OVER] == 0:
            out[0] = -1
            n = 1
    elif kind == L.E_MOVE_TO:
        for h in range(s[L.G_NHEROES]):
            if tgt == L.T_SELF and h != user:
                continue
            for c in range(4):
                sp = T[TB.O_CROSSROADS + c]
                if h == active and sp == s[L.G_FORBID]:
                    continue
                if s[hb(h) + L.H_POS] != sp and minis_at(s, sp) < T[TB.P_MINIS]:
                    out[n] = h * 4 + c
                    n += 1
    return n

# =============================================================================
# hero movement
# =============================================================================


@njit(cache=True)
def arrive(s, T, ev, rng, legal, pp, h):
    """What happens when hero ``h`` arrives on its space: the Dunnywater tunnel
    (MQ-MOVE-11) and Magical Pots at crossroads (MQ-CARD-11)."""
    o = hb(h)
    sp = s[o + L.H_POS]
    if T[TB.O_KIND + sp] == L.K_TUNNEL:
        other = T[TB.O_TUNNEL + sp]
        if minis_at(s, other) < T[TB.P_MINIS] and not (h == s[L.G_CUR] and other == s[L.G_FORBID]):
            s[o + L.H_POS] = other
            log(s, ev, L.EVT_TUNNEL, h, sp, other, 0, 0, 0)
            sp = other
    c = pot_at(s, T, sp)
    if c >= 0:
        log(s, ev, L.EVT_POT, h, c, sp, 0, 0, 0)
        discard_tile(s, ev, c)
        draw_relic(s, T, ev, rng, legal, pp, h)


@njit(cache=True)
def can_enter(s, T, h, sp):
    if T[TB.O_KIND + sp] == L.K_DISC:
        return False
    if sp == s[L.G_FORBID]:
        return False
    return minis_at(s, sp) < T[TB.P_MINIS]

# =============================================================================
# combat
# =============================================================================


@njit(cache=True)
def enemy_value(s, T, row, a):
    return T[TB.O_ENEMY + row * 12 + (moon_colour(s, T)) * 3 + a]


@njit(cache=True)
def hero_combat(s, T, ev, rng, legal, pp, h, row, a, defending):
    """Hero ``h`` fights enemy-table row ``row`` on ability ``a``: roll the
    dice pool, then the reaction window (talisman re-rolls, combat relics and
    skills) while the roll is losing. Returns True if the hero wins."""
    target = enemy_value(s, T, row, a)
    ha = a
    if defending and T[TB.P_T_DEFEND_WITH_COURAGE] == 1:
        ha = 0
    ability = ability_total(s, T, h, ha)
    blue = moon_colour(s, T) == L.BLUE
    levels = np.zeros(8, np.int32)
    faces = np.zeros(8, np.int32)
    n = dice_for_combat(s, T, levels, 0)
    for i in range(n):
        faces[i] = roll_die(T, rng, levels[i])
    bonus = 0
    s[L.G_COMBATS] += 1
    while True:
        win, total = score_roll(T, faces, n, ability, bonus, target, blue, defending)
        if s[L.G_LOG] == 1:
            packed = 0
            for i in range(min(n, 6)):
                packed = packed * 16 + (faces[i] if faces[i] < 16 else 15)
            log(s, ev, L.EVT_DICE, h, n, packed, levels[0] * 1000 + (levels[1] if n > 1 else 9) * 100
                + (levels[2] if n > 2 else 9) * 10 + (levels[3] if n > 3 else 9), total, bonus)
        if win:
            break
        # reaction window: any hero may help (MQ-GAP-03)
        k = 0
        legal[k] = code(L.R_ACCEPT, 0)
        k += 1
        if s[L.G_TALISMANS] > 0:
            for i in range(n):
                legal[k] = code(L.R_TALISMAN, i)
                k += 1
        for r in range(T[TB.P_N_RELICS]):
            if s[L.G_RELIC_OWNER + r] >= 0 and T[TB.O_EFFECTS + (T[TB.O_RELICS + r * 2 + 0]) * 5 + L.EF_WHEN] == L.W_COMBAT:
                e = T[TB.O_RELICS + r * 2 + 0]
                if T[TB.O_EFFECTS + e * 5 + L.EF_TARGET] == L.T_SELF and s[L.G_RELIC_OWNER + r] != h:
                    continue
                legal[k] = code(L.R_RELIC, r)
                k += 1
        for u in range(s[L.G_NHEROES]):
            e = T[TB.O_HERO_SKILL + (s[hb(u) + L.H_ID])]
            if s[hb(u) + L.H_SKILLS] > 0 and T[TB.O_EFFECTS + e * 5 + L.EF_WHEN] == L.W_COMBAT:
                if T[TB.O_EFFECTS + e * 5 + L.EF_TARGET] == L.T_SELF and u != h:
                    continue
                legal[k] = code(L.R_SKILL, u)
                k += 1
        if k == 1:
            break
        s[L.G_CTX] = L.CTX_DEFENCE if defending else L.CTX_ATTACK
        s[L.G_CTX_ARG] = row
        for i in range(min(n, 8)):
            s[L.G_CTX_FACES + i] = faces[i]
        ch = decide(s, T, legal, k, rng, pp, h)
        s[L.G_CTX] = L.CTX_TURN
        op = ch // OPB
        arg = ch % OPB
        if op == L.R_ACCEPT:
            break
        e = -1
        if op == L.R_TALISMAN:
            s[L.G_TALISMANS] -= 1
            log(s, ev, L.EVT_TALISMAN, h, arg, faces[arg], 0, 0, 0)
            faces[arg] = roll_die(T, rng, levels[arg])
            continue
        if op == L.R_RELIC:
            e = T[TB.O_RELICS + arg * 2 + 0]
            log(s, ev, L.EVT_RELIC_USED, s[L.G_RELIC_OWNER + arg], arg, e, h, 0, 0)
            s[L.G_RELIC_OWNER + arg] = -2
        else:
            e = T[TB.O_HERO_SKILL + (s[hb(arg) + L.H_ID])]
            s[hb(arg) + L.H_SKILLS] -= 1
            log(s, ev, L.EVT_SKILL_USED, arg, e, h, 0, 0, 0)
        kind = T[TB.O_EFFECTS + e * 5 + L.EF_KIND]
        amt = T[TB.O_EFFECTS + e * 5 + L.EF_AMOUNT]
        if kind == L.E_COMBAT_BONUS:
            bonus += amt
        elif kind == L.E_REROLL:
            log(s, ev, L.EVT_REROLL, h, n, 0, 0, 0, 0)
            for i in range(n):
                faces[i] = roll_die(T, rng, levels[i])
        elif kind == L.E_EXTRA_DIE:
            n2 = dice_for_combat(s, T, levels, n - min(s[L.G_POOL], T[TB.P_MAX_DICE]) + amt)
            for i in range(n, n2):
                faces[i] = roll_die(T, rng, levels[i])
            n = n2
    log(s, ev, L.EVT_COMBAT, h, row, a, target, total, int(win) + 2 * int(defending))
    return win


@njit(cache=True)
def strongest_ability(s, T, row, wounds, skip_mask):
    """Enemy's strongest ability now, skipping those in ``skip_mask``; ties go
    Courage, Strength, Magic (MQ-GAP-31). -1 if none is left."""
    best = -1
    for a in range(3):
        if (skip_mask >> a) & 1:
            continue
        if best < 0 or enemy_value(s, T, row, a) > enemy_value(s, T, row, best):
            best = a
    return best

# =============================================================================
# bogbeans
# =============================================================================


@njit(cache=True)
def bogbean_drops(s, T, ev, rng, legal, pp, h, c, reward):
    """A beaten or fended-off bogbean runs away leaving its charms (MQ-COMBAT-18,
    MQ-ENEMY-10); a beaten Louse Wort also gives a card (MQ-COMBAT-19)."""
    t = s[xb(c) + L.X_TILE]
    drop = T[TB.O_TILES + t * 6 + L.TL_DROP]
    if drop >= 0:
        gain_charms(s, T, ev, h, drop, T[TB.O_TILES + t * 6 + L.TL_DROP_N])
    card = T[TB.O_TILES + t * 6 + L.TL_CARD] == 1
    log(s, ev, L.EVT_BOGBEAN_DEFEATED, h, c, bog_level(s, T, c), int(reward), 0, 0)
    remove_bogbean(s, T, ev, c, 1)
    if reward and card:
        k = 0
        if s[L.G_EQ_N] > 0:
            legal[k] = code(L.C_EQUIPMENT, 0)
            k += 1
        if s[L.G_RELIC_N] > 0:
            legal[k] = code(L.C_RELIC, 0)
            k += 1
        if k > 0:
            legal[k] = code(L.C_NONE, 0)   # "may also draw": declining is allowed
            k += 1
            ch = decide(s, T, legal, k, rng, pp, h)
            if ch // OPB == L.C_EQUIPMENT:
                draw_equipment(s, T, ev, rng, legal, pp, h)
            elif ch // OPB == L.C_RELIC:
                draw_relic(s, T, ev, rng, legal, pp, h)


@njit(cache=True)
def bogbean_theft(s, T, ev, rng, legal, pp, h, c):
    """A bogbean beats hero ``h``: it steals the charms on its tile, else a
    card, else a life point, and runs away (MQ-COMBAT-21..23, MQ-GAP-57)."""
    t = s[xb(c) + L.X_TILE]
    need = T[TB.O_TILES + t * 6 + L.TL_STEAL]
    held = charms_held(s, h)
    log(s, ev, L.EVT_THEFT, h, c, need, held, 0, 0)
    if held >= need:
        for _ in range(need):
            k = 0
            for ty in range(4):
                if s[hb(h) + L.H_CH + ty] > 0:
                    legal[k] = code(L.T_CHARM, ty)
                    k += 1
            ch = decide(s, T, legal, k, rng, pp, h)
            drop_charms(s, ev, h, ch % OPB, 1)
    else:
        ncards = 0
        k = 0
        for a in range(3):
            if s[hb(h) + L.H_EQ + a] >= 0:
                legal[k] = code(L.T_CARD, a)
                k += 1
        for r in range(T[TB.P_N_RELICS]):
            if s[L.G_RELIC_OWNER + r] == h:
                legal[k] = code(L.T_CARD, 3 + r)
                k += 1
        ncards = k
        if ncards > 0:
            ch = decide(s, T, legal, k, rng, pp, h)
            arg = ch % OPB
            if arg < 3:
                discard_equipped(s, ev, h, arg, False)
            else:
                s[L.G_RELIC_OWNER + arg - 3] = -2
                log(s, ev, L.EVT_CARD_LOST, h, 1, arg - 3, 0, 0, 0)
            if T[TB.P_T_PARTIAL_THEFT] == 1:
                lose_most_plentiful_charms(s, ev, h, held)
        elif held > 0:
            lose_most_plentiful_charms(s, ev, h, held)
        else:
            lose_life(s, T, ev, h, 1)
    remove_bogbean(s, T, ev, c, 2)

# =============================================================================
# enemies
# =============================================================================


@njit(cache=True)
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
        d = T[TB.O_DIST_E + sp * 64 + pos]
        if d >= 1000000:
            continue
        off = (T[TB.O_BEARING + pos] - T[TB.O_BEARING + sp]) % 36000
        if best < 0 or d < bd or (d == bd and off < bo):
            best = h
            bd = d
            bo = off
    return best


@njit(cache=True)
def enemy_step(s, T, ev, is_nm, idx, avoid):
    """Move one enemy one space towards its nearest hero. Returns 1 if it
    moved onto a hero's space, 0 if it moved elsewhere, -1 if it did not move
    (no hero, already with one, or blocked: MQ-GAP-08/09)."""
    if is_nm:
        o = nb(idx) + L.N_POS
    else:
        o = xb(idx) + L.X_BOG_POS
    sp = s[o]
    if heroes_at(s, sp) > 0:
        if T[TB.P_T_ENEMY_ON_HERO_ATTACKS] == 1:
            return -1
        # enemy_on_hero_attacks off: only arriving enemies attack, so one
        # already with a hero moves on towards the nearest other hero
    h = nearest_hero(s, T, sp, avoid)
    if h < 0:
        return -1
    tgt = s[hb(h) + L.H_POS]
    d = T[TB.O_DIST_E + sp * 64 + tgt]
    best = -1
    bo = 0
    tun = T[TB.O_TUNNEL + sp] if T[TB.P_T_ENEMIES_USE_TUNNEL] == 1 else -1
    for j in range(T[TB.O_DEG + sp] + (1 if tun >= 0 else 0)):
        nx = T[TB.O_ADJ + sp * 8 + j] if j < T[TB.O_DEG + sp] else tun
        if T[TB.O_DIST_E + nx * 64 + tgt] != d - 1:
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
        if room >= T[TB.P_MINIS]:
            continue
        off = (T[TB.O_BEARING + nx] - T[TB.O_BEARING + sp]) % 36000
        if best < 0 or off < bo:
            best = nx
            bo = off
    if best < 0:
        return -1
    log(s, ev, L.EVT_ENEMY_MOVE, L.ACTOR_GAME, int(is_nm), idx, sp, best, 0)
    if is_nm:
        for c in range(4):
            if s[xb(c) + L.X_BOG_POS] == best:
                remove_bogbean(s, T, ev, c, 0)
    s[o] = best
    if heroes_at(s, best) > 0:
        if not is_nm:
            s[xb(idx) + L.X_ENTERED] = 1
        else:
            s[nb(idx) + L.N_JUST] = 1
        return 1
    return 0


@njit(cache=True)
def move_enemy(s, T, ev, is_nm, idx, steps):
    """Move an enemy up to ``steps`` spaces, stopping on a hero (MQ-GAP-43).
    With enemy_on_hero_attacks off, an enemy that starts with a hero leaves
    that hero alone and heads for another."""
    start = s[nb(idx) + L.N_POS] if is_nm else s[xb(idx) + L.X_BOG_POS]
    avoid = -1
    if T[TB.P_T_ENEMY_ON_HERO_ATTACKS] == 0 and heroes_at(s, start) > 0:
        avoid = start
    for _ in range(steps):
        r = enemy_step(s, T, ev, is_nm, idx, avoid)
        if r != 0:
            break


@njit(cache=True)
def nightmare_attack(s, T, ev, rng, legal, pp, k):
    """Nightmare ``k`` on a hero's space attacks on its strongest unwounded
    ability; a lost defence costs a life point (MQ-ENEMY-07/08, MQ-COMBAT-27)."""
    sp = s[nb(k) + L.N_POS]
    h = first_hero_at(s, sp)
    if h < 0:
        return
    a = strongest_ability(s, T, L.EV_NM + k, 0, s[nb(k) + L.N_WOUNDS])
    if a < 0:
        return
    log(s, ev, L.EVT_ENEMY_PHASE, -1 - k, 1, h, a, 0, 0)
    if not hero_combat(s, T, ev, rng, legal, pp, h, L.EV_NM + k, a, True):
        lose_life(s, T, ev, h, 1)


@njit(cache=True)
def bogbean_attack(s, T, ev, rng, legal, pp, c):
    """Bogbean of slot ``c`` attacks the hero on its space (MQ-ENEMY-09/10)."""
    sp = s[xb(c) + L.X_BOG_POS]
    h = first_hero_at(s, sp)
    if h < 0:
        return
    lv = bog_level(s, T, c)
    a = strongest_ability(s, T, L.EV_BOG + lv - 1, 0, 0)
    log(s, ev, L.EVT_ENEMY_PHASE, L.ACTOR_GAME, 2, h, a, c, 0)
    if hero_combat(s, T, ev, rng, legal, pp, h, L.EV_BOG + lv - 1, a, True):
        bogbean_drops(s, T, ev, rng, legal, pp, h, c, False)
    else:
        bogbean_theft(s, T, ev, rng, legal, pp, h, c)


@njit(cache=True)
def enemy_attacks(s, T, ev, rng, legal, pp, only_entered):
    """Every enemy on a hero's space attacks: nightmares in disc order, then
    bogbeans NE..NW (MQ-GAP-45). With ``only_entered`` only those that moved
    onto a hero this step attack."""
    for d in range(4):
        k = s[db(d) + L.D_NM]
        if k < 0 or s[nb(k) + L.N_POS] < 0:
            continue
        if only_entered and s[nb(k) + L.N_JUST] == 0:
            continue
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


@njit(cache=True)
def clear_entered(s):
    for k in range(4):
        s[nb(k) + L.N_JUST] = 0
    for c in range(4):
        s[xb(c) + L.X_ENTERED] = 0


@njit(cache=True)
def move_all_enemies(s, T, ev, nm_steps, bog_steps, skip_just_escaped):
    for d in range(4):
        k = s[db(d) + L.D_NM]
        if k >= 0 and s[nb(k) + L.N_POS] >= 0:
            if skip_just_escaped and s[nb(k) + L.N_ESCAPED] == 2:
                continue
            move_enemy(s, T, ev, True, k, nm_steps)
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] >= 0:
            move_enemy(s, T, ev, False, c, bog_steps)


@njit(cache=True)
def movement_tile(s, T, ev, rng, legal, pp, steps):
    """A movement tile moves every enemy; those reaching a hero attack at once
    (MQ-ENC-08..10, MQ-GAP-46)."""
    clear_entered(s)
    move_all_enemies(s, T, ev, steps, steps, False)
    enemy_attacks(s, T, ev, rng, legal, pp, True)
    clear_entered(s)


@njit(cache=True)
def place_nightmare(s, T, ev, k, d):
    """Nightmare ``k`` arrives on the key stone of direction ``d``: bogbeans
    there flee, heroes there are knocked back to their start (MQ-GAP-27)."""
    sp = T[TB.O_KEYSTONE + d]
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            remove_bogbean(s, T, ev, c, 0)
    if T[TB.P_T_ESCAPE_KNOCKS_BACK] == 1 or s[L.G_FINAL] != L.FB_NONE:
        for h in range(s[L.G_NHEROES]):
            if s[hb(h) + L.H_POS] == sp:
                knock_back_to_start(s, T, ev, h)
    # keep the two-miniature limit: push the later seat's hero off, then
    # any nightmare already there steps aside to a neighbour with room
    while minis_at(s, sp) >= T[TB.P_MINIS]:
        last = -1
        for h in range(s[L.G_NHEROES]):
            if s[hb(h) + L.H_POS] == sp:
                last = h
        if last >= 0:
            knock_back_to_start(s, T, ev, last)
            continue
        other = nightmare_at(s, sp)
        if other < 0:
            break
        dest = -1
        for j in range(T[TB.O_DEG + sp]):
            nx = T[TB.O_ADJ + sp * 8 + j]
            if minis_at(s, nx) - bogbeans_at(s, nx) < T[TB.P_MINIS] and nightmare_at(s, nx) < 0:
                dest = nx
                break
        if dest < 0:
            break
        for c in range(4):
            if s[xb(c) + L.X_BOG_POS] == dest:
                remove_bogbean(s, T, ev, c, 0)
        log(s, ev, L.EVT_ENEMY_MOVE, L.ACTOR_GAME, 1, other, sp, dest, 0)
        s[nb(other) + L.N_POS] = dest
    s[nb(k) + L.N_POS] = sp
    s[db(d) + L.D_STATE] = L.DS_BOARD
    for t in range(4):
        s[L.G_POOL_CHARMS + t] += s[db(d) + L.D_DEP + t]
        s[db(d) + L.D_DEP + t] = 0


@njit(cache=True)
def escapes(s, T, ev):
    """Released nightmares escape onto their key stones (MQ-DISC-04)."""
    for d in range(4):
        if s[db(d) + L.D_STATE] == L.DS_RELEASED:
            k = s[db(d) + L.D_NM]
            log(s, ev, L.EVT_ESCAPE, -1 - k, d, T[TB.O_KEYSTONE + d], 0, 0, 0)
            place_nightmare(s, T, ev, k, d)
            s[nb(k) + L.N_FATE] = L.FATE_ESCAPED
            s[nb(k) + L.N_ESCAPED] = 2   # 2: escaped this phase (no normal move)
            s[L.G_ESCAPED] += 1
            raise_encounter_level(s, T, ev)


@njit(cache=True)
def evil_powers(s, T, ev, rng, legal, pp):
    """Each nightmare on the board uses its evil power once (MQ-ENEMY-05)."""
    for d in range(4):
        k = s[db(d) + L.D_NM]
        if k < 0 or s[nb(k) + L.N_POS] < 0 or not running(s):
            continue
        e = T[TB.O_NM_POWER + k]
        log(s, ev, L.EVT_EVIL_POWER, -1 - k, e, s[nb(k) + L.N_POS], 0, 0, 0)
        if T[TB.O_EFFECTS + e * 5 + L.EF_KIND] == L.E_EXTRA_MOVE:
            move_enemy(s, T, ev, True, k, T[TB.O_EFFECTS + e * 5 + L.EF_AMOUNT])
        else:
            apply_simple_effect(s, T, ev, e, -1 - k, -1)


@njit(cache=True)
def draw_tile(s, T, ev, rng):
    """Take a random tile from the bag, refilling it when exhausted
    (MQ-GAP-50). Returns -1 when there is nothing to draw."""
    if s[L.G_BAG_N] == 0:
        if s[L.G_ENC_LEVEL] < 3:
            raise_encounter_level(s, T, ev)
        elif T[TB.P_T_BAG_REUSES] == 1:
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


@njit(cache=True)
def resolve_tile(s, T, ev, rng, legal, pp, c, t):
    """Place tile ``t`` drawn for nexus ``c`` (MQ-ENC-06..08)."""
    kind = T[TB.O_TILES + t * 6 + L.TL_KIND]
    o = xb(c)
    placed = 0
    if kind == L.TK_BOGBEAN:
        lv = T[TB.O_TILES + t * 6 + L.TL_LEVEL]
        if s[L.G_BOGS_IN_PLAY + lv - 1] < T[TB.P_BOGS_PER_LEVEL]:
            s[o + L.X_TILE] = t
            s[o + L.X_KIND] = kind
            s[o + L.X_BOG_POS] = T[TB.O_NEXUS + c]
            s[o + L.X_BOG_WOUNDS] = 0
            s[L.G_BOGS_IN_PLAY + lv - 1] += 1
            placed = 1
    elif kind == L.TK_POT:
        cr = T[TB.O_CROSSROADS + c]
        if minis_at(s, cr) == 0 and pot_at(s, T, cr) < 0 and s[L.G_POTS_OUT] < T[TB.P_POTS]:
            s[o + L.X_TILE] = t
            s[o + L.X_KIND] = kind
            s[o + L.X_POT] = 1
            s[L.G_POTS_OUT] += 1
            placed = 1
    log(s, ev, L.EVT_ENCOUNTER, L.ACTOR_GAME, c, t, kind, placed, 0)
    if placed == 0:
        s[L.G_DISCARD + s[L.G_DISCARD_N]] = t
        s[L.G_DISCARD_N] += 1
    if kind == L.TK_MOVE1 or kind == L.TK_MOVE2:
        movement_tile(s, T, ev, rng, legal, pp, 1 if kind == L.TK_MOVE1 else 2)


@njit(cache=True)
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


@njit(cache=True)
def enemy_phase(s, T, ev, rng, legal, pp, draws):
    """Enemy phase (MQ-ENEMY-01): escapes, movement, evil powers, attacks,
    encounter draws (not in the Final Battle)."""
    s[L.G_CUR] = -1
    log(s, ev, L.EVT_ENEMY_PHASE, L.ACTOR_GAME, 0, 0, 0, 0, 0)
    if s[L.G_FINAL] != L.FB_RUNNING:
        escapes(s, T, ev)
    clear_entered(s)
    move_all_enemies(s, T, ev, T[TB.P_NM_MOVE], T[TB.P_BOG_MOVE], True)
    for k in range(4):
        if s[nb(k) + L.N_ESCAPED] == 2:
            s[nb(k) + L.N_ESCAPED] = 1
            if s[nb(k) + L.N_POS] >= 0 and heroes_at(s, s[nb(k) + L.N_POS]) > 0:
                s[nb(k) + L.N_JUST] = 1
    evil_powers(s, T, ev, rng, legal, pp)
    if running(s):
        enemy_attacks(s, T, ev, rng, legal, pp, T[TB.P_T_ENEMY_ON_HERO_ATTACKS] == 0)
    clear_entered(s)
    if draws and running(s):
        draw_encounters(s, T, ev, rng, legal, pp)

# =============================================================================
# casting out and defeating nightmares
# =============================================================================


@njit(cache=True)
def nightmare_gone(s, T, ev, k, fate):
    """Nightmare ``k`` is cast out or defeated: the next die and tile level
    unlock; a cast-out leaves a Talisman (MQ-CHARM-12, MQ-COMBAT-26)."""
    d = s[nb(k) + L.N_DIR]
    s[nb(k) + L.N_POS] = -1
    s[nb(k) + L.N_FATE] = fate
    if fate == L.FATE_CAST_OUT:
        s[db(d) + L.D_STATE] = L.DS_CAST_OUT
        for t in range(4):
            s[L.G_POOL_CHARMS + t] += s[db(d) + L.D_DEP + t]
            s[db(d) + L.D_DEP + t] = 0
        s[L.G_CASTOUT] += 1
        got = 0
        if s[L.G_TALISMAN_SUPPLY] > 0:
            s[L.G_TALISMAN_SUPPLY] -= 1
            s[L.G_TALISMANS] += 1
            got = 1
        log(s, ev, L.EVT_CAST_OUT, -1 - k, d, got, s[L.G_TALISMANS], 0, 0)
    else:
        s[db(d) + L.D_STATE] = L.DS_DEFEATED
        s[L.G_DEFEATED] += 1
        log(s, ev, L.EVT_NIGHTMARE_DEFEATED, -1 - k, d, 0, 0, 0, 0)
    unlock_die(s, ev)
    raise_encounter_level(s, T, ev)


@njit(cache=True)
def charms_needed(s, T, d, t):
    """Charms of type ``t`` the disc at ``d`` still requires."""
    k = s[db(d) + L.D_NM]
    if k < 0:
        return 0
    return T[TB.O_NM_CHARMS + k * 4 + t] - s[db(d) + L.D_DEP + t]

# =============================================================================
# the hero turn
# =============================================================================


@njit(cache=True)
def add(legal, n, op, arg):
    legal[n] = op * OPB + arg
    return n + 1


@njit(cache=True)
def legal_turn(s, T, h, legal, buf):
    """Every legal action for hero ``h`` now (MQ-ACT-04, MQ-ACT-09)."""
    n = 0
    o = hb(h)
    pos = s[o + L.H_POS]
    acts = s[L.G_ACTS]
    over = s[L.G_TURN_OVER] == 1
    must = s[L.G_MUST_MOVE]
    kind = T[TB.O_KIND + pos]
    n = add(legal, n, L.A_END, 0)
    # the first-turn arrow is an obligation to move (MQ-MOVE-10): no ending
    # the turn before that move while it can be made
    if (must & 2) != 0 and acts > 0 and not over:
        n = 0
    if acts > 0 and not over:
        # movement (MQ-MOVE-06/07/09/10/14)
        if kind == L.K_DISC:
            d = T[TB.O_COMPASS + pos]
            if acts >= T[TB.P_DISC_RETURN] and minis_at(s, T[TB.O_KEYSTONE + d]) < T[TB.P_MINIS]:
                n = add(legal, n, L.A_MOVE, T[TB.O_KEYSTONE + d])
        else:
            arrow_ok = False
            if (must & 2) != 0:
                tgt = T[TB.O_ARROW + (s[o + L.H_START])]
                if pos == s[o + L.H_START] and tgt >= 0 and can_enter(s, T, h, tgt):
                    arrow_ok = True
            for j in range(T[TB.O_DEG + pos]):
                nx = T[TB.O_ADJ + pos * 8 + j]
                if arrow_ok and nx != T[TB.O_ARROW + (s[o + L.H_START])]:
                    continue
                if can_enter(s, T, h, nx):
                    n = add(legal, n, L.A_MOVE, nx)
        if must == 0:
            # charms (MQ-CHARM-02..04)
            if kind == L.K_CACHE:
                t = T[TB.O_CHARM + pos]
                room = min(T[TB.P_BACKPACK] - charms_held(s, h), s[L.G_POOL_CHARMS + t])
                if room > 0:
                    if charm_multi(s, T):
                        for k in range(1, room + 1):
                            n = add(legal, n, L.A_PICKUP, k)
                    else:
                        n = add(legal, n, L.A_PICKUP, 1)
            if kind == L.K_KEYSTONE:
                d = T[TB.O_COMPASS + pos]
                if s[db(d) + L.D_STATE] == L.DS_ON:
                    for t in range(4):
                        if s[o + L.H_CH + t] > 0 and charms_needed(s, T, d, t) > 0:
                            n = add(legal, n, L.A_DEPOSIT, t)
                if s[L.G_WALL + d] == 1 and s[o + L.H_CH + 0] >= T[TB.P_GRANITE]:
                    n = add(legal, n, L.A_REPAIR, d)
            if kind == L.K_NEXUS and s[L.G_NEXUS_USED] == 0 and s[L.G_SURPLUS_N] > 0:
                n = add(legal, n, L.A_SURPLUS, 0)
            if kind == L.K_START and s[o + L.H_WOUNDS] > 0:
                n = add(legal, n, L.A_HEAL, 0)
            if kind == L.K_POST:
                for a in range(4):
                    if s[o + L.H_CH + a] >= 2:
                        for b in range(4):
                            if b != a and s[L.G_POOL_CHARMS + b] > 0:
                                n = add(legal, n, L.A_TRADE, a * 4 + b)
                if charms_held(s, h) >= 3 and s[L.G_RELIC_N] > 0:
                    c0 = s[o + L.H_CH]
                    c1 = s[o + L.H_CH + 1]
                    c2 = s[o + L.H_CH + 2]
                    for x0 in range(min(c0, 3) + 1):
                        for x1 in range(min(c1, 3 - x0) + 1):
                            for x2 in range(min(c2, 3 - x0 - x1) + 1):
                                x3 = 3 - x0 - x1 - x2
                                if x3 <= s[o + L.H_CH + 3]:
                                    n = add(legal, n, L.A_TRADE_RELIC, x0 + 4 * x1 + 16 * x2 + 64 * x3)
            # passing equipment to a hero on the same space (MQ-ACT-06)
            for g in range(s[L.G_NHEROES]):
                if g != h and s[hb(g) + L.H_POS] == pos:
                    for a in range(3):
                        if s[o + L.H_EQ + a] >= 0:
                            n = add(legal, n, L.A_PASS, a * 4 + g)
            # attacks (MQ-COMBAT-14, MQ-FINAL-05/23/25)
            k = nightmare_at(s, pos)
            if k >= 0:
                for a in range(3):
                    if (s[nb(k) + L.N_WOUNDS] >> a) & 1 == 0:
                        n = add(legal, n, L.A_ATTACK, (L.TGT_NIGHTMARE + k) * 4 + a)
            for c in range(4):
                if s[xb(c) + L.X_BOG_POS] == pos:
                    for a in range(3):
                        if (s[xb(c) + L.X_BOG_WOUNDS] >> a) & 1 == 0:
                            n = add(legal, n, L.A_ATTACK, (L.TGT_BOGBEAN + c) * 4 + a)
            if (s[L.G_FINAL] == L.FB_RUNNING and kind == L.K_KEYSTONE and s[L.G_SHIM_ATTACKED] == 0
                    and enemies_in_play(s) == 0):
                for a in range(3):
                    if s[L.G_SHIM_WOUNDS + a] < T[TB.P_SHIM_WINS]:
                        n = add(legal, n, L.A_ATTACK, L.TGT_SHIM * 4 + a)
    if not over:
        # free actions (MQ-ACT-09) are not actions, so a compulsory first move
        # does not block them; none once a lost attack has ended the turn
        if kind == L.K_NEXUS and s[L.G_NEXUS_USED] == 0 and s[L.G_EQ_N] > 0:
            n = add(legal, n, L.A_DRAW_EQ, 0)
        for t in range(4):
            if s[o + L.H_CH + t] > 0:
                n = add(legal, n, L.A_DISCARD, t)
    # relics and skills: any hero's, at any time in a turn (MQ-GAP-03)
    for r in range(T[TB.P_N_RELICS]):
        u = s[L.G_RELIC_OWNER + r]
        if u >= 0 and T[TB.O_EFFECTS + (T[TB.O_RELICS + r * 2 + 0]) * 5 + L.EF_WHEN] == L.W_TURN:
            m = effect_targets(s, T, T[TB.O_RELICS + r * 2 + 0], u, h, buf)
            for i in range(m):
                if n < L.MAX_LEGAL:
                    n = add(legal, n, L.A_RELIC, r * 64 + buf[i] + 1)
    for u in range(s[L.G_NHEROES]):
        if s[hb(u) + L.H_SKILLS] > 0:
            e = T[TB.O_HERO_SKILL + (s[hb(u) + L.H_ID])]
            if T[TB.O_EFFECTS + e * 5 + L.EF_WHEN] == L.W_TURN:
                m = effect_targets(s, T, e, u, h, buf)
                for i in range(m):
                    if n < L.MAX_LEGAL:
                        n = add(legal, n, L.A_SKILL, u * 64 + buf[i] + 1)
    return n


@njit(cache=True)
def attack(s, T, ev, rng, legal, pp, h, arg):
    """Hero ``h`` attacks (MQ-COMBAT-13..27, MQ-FINAL-23..27)."""
    tgt = arg // 4
    a = arg % 4
    if tgt < L.TGT_BOGBEAN:
        k = tgt - L.TGT_NIGHTMARE
        if hero_combat(s, T, ev, rng, legal, pp, h, L.EV_NM + k, a, False):
            s[nb(k) + L.N_WOUNDS] |= 1 << a
            log(s, ev, L.EVT_NIGHTMARE_WOUNDED, h, k, a, s[nb(k) + L.N_WOUNDS], 0, 0)
            if s[nb(k) + L.N_WOUNDS] == 7:
                nightmare_gone(s, T, ev, k, L.FATE_DEFEATED)
        else:
            lose_life(s, T, ev, h, 1)
            s[L.G_TURN_OVER] = 1
    elif tgt < L.TGT_SHIM:
        c = tgt - L.TGT_BOGBEAN
        lv = bog_level(s, T, c)
        if hero_combat(s, T, ev, rng, legal, pp, h, L.EV_BOG + lv - 1, a, False):
            s[xb(c) + L.X_BOG_WOUNDS] |= 1 << a
            w = s[xb(c) + L.X_BOG_WOUNDS]
            wins = (w & 1) + ((w >> 1) & 1) + ((w >> 2) & 1)
            if wins >= T[TB.O_WINS_NEEDED + (lv - 1)]:
                bogbean_drops(s, T, ev, rng, legal, pp, h, c, True)
            else:
                log(s, ev, L.EVT_WORT_WOUNDED, h, c, a, w, 0, 0)
        else:
            bogbean_theft(s, T, ev, rng, legal, pp, h, c)
            s[L.G_TURN_OVER] = 1
    else:
        s[L.G_SHIM_ATTACKED] = 1
        if hero_combat(s, T, ev, rng, legal, pp, h, L.EV_SHIM, a, False):
            s[L.G_SHIM_WOUNDS + a] += 1
            log(s, ev, L.EVT_SHIMNAVORE_WOUND, h, a, s[L.G_SHIM_WOUNDS + a], 0, 0, 0)
            done = True
            for b in range(3):
                if s[L.G_SHIM_WOUNDS + b] < T[TB.P_SHIM_WINS]:
                    done = False
            if done and running(s):
                s[L.G_OUTCOME] = L.O_WIN
        else:
            s[L.G_TURN_OVER] = 1


@njit(cache=True)
def apply_turn(s, T, ev, rng, legal, pp, h, ch):
    """Carry out turn action ``ch`` of hero ``h``."""
    op = ch // OPB
    arg = ch % OPB
    o = hb(h)
    pos = s[o + L.H_POS]
    log(s, ev, L.EVT_ACTION, h, op, arg, s[L.G_ACTS], 0, 0)
    if op == L.A_MOVE:
        cost = 1
        if T[TB.O_KIND + pos] == L.K_DISC:
            cost = T[TB.P_DISC_RETURN]
        s[L.G_ACTS] -= cost
        if (s[L.G_MUST_MOVE] & 1) != 0:
            s[L.G_FORBID] = pos
        s[L.G_MUST_MOVE] = 0
        s[o + L.H_POS] = arg
        log(s, ev, L.EVT_MOVE, h, pos, arg, 0, 0, 0)
        arrive(s, T, ev, rng, legal, pp, h)
    elif op == L.A_PICKUP:
        s[L.G_ACTS] -= 1
        gain_charms(s, T, ev, h, T[TB.O_CHARM + pos], arg)
    elif op == L.A_DEPOSIT:
        s[L.G_ACTS] -= 1
        d = T[TB.O_COMPASS + pos]
        k = min(s[o + L.H_CH + arg], charms_needed(s, T, d, arg))
        if not charm_multi(s, T):
            k = 1
        s[o + L.H_CH + arg] -= k
        s[db(d) + L.D_DEP + arg] += k
        log(s, ev, L.EVT_DEPOSIT, h, d, arg, k, 0, 0)
        done = True
        for t in range(4):
            if charms_needed(s, T, d, t) > 0:
                done = False
        if done:
            nightmare_gone(s, T, ev, s[db(d) + L.D_NM], L.FATE_CAST_OUT)
    elif op == L.A_SURPLUS:
        s[L.G_ACTS] -= 1
        s[L.G_NEXUS_USED] = 1
        s[L.G_SURPLUS_N] -= 1
        c = s[L.G_SURPLUS + s[L.G_SURPLUS_N]]
        log(s, ev, L.EVT_SURPLUS, h, c, 0, 0, 0, 0)
        offer_card(s, T, ev, rng, legal, pp, h, c)
    elif op == L.A_PASS:
        s[L.G_ACTS] -= 1
        a = arg // 4
        g = arg % 4
        c = s[o + L.H_EQ + a]
        s[o + L.H_EQ + a] = -1
        log(s, ev, L.EVT_PASS_EQUIPMENT, h, g, c, 0, 0, 0)
        offer_card(s, T, ev, rng, legal, pp, g, c)
    elif op == L.A_HEAL:
        s[L.G_ACTS] -= 1
        heal(s, T, ev, h, 1)
    elif op == L.A_TRADE:
        s[L.G_ACTS] -= 1
        a = arg // 4
        b = arg % 4
        drop_charms(s, ev, h, a, 2)
        gain_charms(s, T, ev, h, b, 1)
        log(s, ev, L.EVT_TRADE, h, a, b, 0, 0, 0)
    elif op == L.A_TRADE_RELIC:
        s[L.G_ACTS] -= 1
        for t in range(4):
            drop_charms(s, ev, h, t, (arg >> (2 * t)) & 3)
        log(s, ev, L.EVT_TRADE, h, -1, arg, 0, 0, 0)
        draw_relic(s, T, ev, rng, legal, pp, h)
    elif op == L.A_ATTACK:
        s[L.G_ACTS] -= 1
        attack(s, T, ev, rng, legal, pp, h, arg)
    elif op == L.A_REPAIR:
        s[L.G_ACTS] -= 1
        drop_charms(s, ev, h, 0, T[TB.P_GRANITE])
        s[L.G_WALL + arg] = 0
        s[L.G_WALL_REPAIRS] += 1
        log(s, ev, L.EVT_WALL_REPAIR, h, arg, 1, 0, 0, 0)
    elif op == L.A_DRAW_EQ:
        s[L.G_NEXUS_USED] = 1
        draw_equipment(s, T, ev, rng, legal, pp, h)
    elif op == L.A_DISCARD:
        drop_charms(s, ev, h, arg, 1)
    elif op == L.A_RELIC:
        r = arg // 64
        param = arg % 64 - 1
        u = s[L.G_RELIC_OWNER + r]
        s[L.G_RELIC_OWNER + r] = -2
        log(s, ev, L.EVT_RELIC_USED, u, r, T[TB.O_RELICS + r * 2 + 0], param, 0, 0)
        apply_effect(s, T, ev, rng, legal, pp, T[TB.O_RELICS + r * 2 + 0], u, param)
    elif op == L.A_SKILL:
        u = arg // 64
        param = arg % 64 - 1
        s[hb(u) + L.H_SKILLS] -= 1
        e = T[TB.O_HERO_SKILL + (s[hb(u) + L.H_ID])]
        log(s, ev, L.EVT_SKILL_USED, u, e, param, 0, 0, 0)
        apply_effect(s, T, ev, rng, legal, pp, e, u, param)


@njit(cache=True)
def hero_turn(s, T, ev, snaps, rng, legal, pp, h):
    """One hero's actions (MQ-ACT-02/03), ending when the policy ends the turn,
    an attack is lost, or the game ends."""
    o = hb(h)
    s[L.G_CUR] = h
    s[L.G_ACTS] = T[TB.P_ACTIONS]
    s[L.G_NEXUS_USED] = 0
    s[L.G_SHIM_ATTACKED] = 0
    s[L.G_TURN_OVER] = 0
    s[L.G_FORBID] = -1
    s[L.G_MUST_MOVE] = 0
    pos = s[o + L.H_POS]
    if T[TB.O_KIND + pos] != L.K_DISC and heroes_at(s, pos) > 1:
        s[L.G_MUST_MOVE] |= 1   # MQ-MOVE-09: move off a shared space first
    if s[o + L.H_FIRST_DONE] == 0 and T[TB.P_T_FIRST_TURN_ARROW] == 1:
        s[L.G_MUST_MOVE] |= 2   # MQ-MOVE-10: follow the start arrow
    s[o + L.H_FIRST_DONE] = 1
    s[L.G_TURNS] += 1
    snapshot(s, ev, snaps, h)
    buf = np.zeros(64, np.int32)
    guard = 0
    while running(s):
        n = legal_turn(s, T, h, legal, buf)
        if s[L.G_MUST_MOVE] != 0:
            can_move = False
            for i in range(n):
                if legal[i] // OPB == L.A_MOVE:
                    can_move = True
            if not can_move:
                # no legal move off the space: the obligation lapses
                s[L.G_MUST_MOVE] = 0
                n = legal_turn(s, T, h, legal, buf)
        ch = decide(s, T, legal, n, rng, pp, h)
        if ch // OPB == L.A_END:
            break
        apply_turn(s, T, ev, rng, legal, pp, h, ch)
        guard += 1
        if guard > 200:
            break
    s[L.G_MUST_MOVE] = 0

# =============================================================================
# moon, compass and the Final Battle
# =============================================================================


@njit(cache=True)
def reroll_offer(s, T, ev, rng, legal, pp, h, face, ctx):
    """Offer a talisman re-roll of one die the heroes rolled (MQ-CHARM-13)."""
    if s[L.G_TALISMANS] == 0:
        return False
    legal[0] = code(L.R_ACCEPT, 0)
    legal[1] = code(L.R_TALISMAN, 0)
    s[L.G_CTX] = ctx
    s[L.G_CTX_ARG] = face
    ch = decide(s, T, legal, 2, rng, pp, h)
    s[L.G_CTX] = L.CTX_TURN
    if ch // OPB == L.R_TALISMAN:
        s[L.G_TALISMANS] -= 1
        log(s, ev, L.EVT_TALISMAN, h, -1, face, ctx, 0, 0)
        return True
    return False


@njit(cache=True)
def compass_result(s, T, ev, face):
    """Apply one compass die before the Final Battle (MQ-MOON-08..11)."""
    if face < 4:
        d = next_occupied_disc(s, face)
        if d >= 0:
            click_disc(s, T, ev, d, 1)
    elif face == L.C_STAR:
        s[L.G_TOKENS] += 1
        log(s, ev, L.EVT_COMPASS_TOKEN, L.ACTOR_GAME, s[L.G_TOKENS], 0, 0, 0, 0)
        if s[L.G_TOKENS] >= T[TB.P_COMPASS_TOKENS]:
            s[L.G_TOKENS] = 0
            log(s, ev, L.EVT_ALL_DISCS, L.ACTOR_GAME, 0, 0, 0, 0, 0)
            for d in range(4):
                if disc_occupied(s, d):
                    click_disc(s, T, ev, d, 1)
                elif T[TB.P_T_STAR_ROLL_OVER] == 1:
                    dd = next_occupied_disc(s, d)
                    if dd >= 0:
                        click_disc(s, T, ev, dd, 1)


@njit(cache=True)
def wall_roll(s, T, ev, rng, legal, pp, d):
    """The Shimnavore rolls the Level 1 die at section ``d``: a Fail or a
    Dandelion misses (MQ-FINAL-14/19). Returns True if it hits."""
    f = roll_die(T, rng, 0)
    while True:
        hit = f != L.FACE_FAIL and f != L.FACE_DANDELION
        log(s, ev, L.EVT_WALL_ROLL, L.ACTOR_GAME, d, f, int(hit), 0, 0)
        if not hit:
            return False
        if not reroll_offer(s, T, ev, rng, legal, pp, 0, f, L.CTX_WALL):
            return True
        f = roll_die(T, rng, 0)


@njit(cache=True)
def shimnavore_acts(s, T, ev, rng, legal, pp, face):
    """The Shimnavore acts on a Final Battle compass result (MQ-FINAL-11..19)."""
    log(s, ev, L.EVT_SHIMNAVORE, L.ACTOR_GAME, face, 0, 0, 0, 0)
    if face == L.C_BLANK:
        return
    if face == L.C_STAR:
        # the Mighty Howl: heroes on key stones fall back onto the discs
        for h in range(s[L.G_NHEROES]):
            sp = s[hb(h) + L.H_POS]
            if T[TB.O_KIND + sp] == L.K_KEYSTONE:
                d = T[TB.O_COMPASS + sp]
                s[hb(h) + L.H_POS] = T[TB.O_DISC + d]
                log(s, ev, L.EVT_KNOCK_BACK, h, sp, T[TB.O_DISC + d], 1, 0, 0)
        return
    d = face
    s[L.G_SHIM_FACING] = d
    sp = T[TB.O_KEYSTONE + d]
    if nightmare_at(s, sp) >= 0:
        return
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            remove_bogbean(s, T, ev, c, 3)
    h = first_hero_at(s, sp)
    if h >= 0:
        skip = 0
        if T[TB.P_T_SHIM_SKIPS_BEATEN] == 1:
            for a in range(3):
                if s[L.G_SHIM_WOUNDS + a] >= T[TB.P_SHIM_WINS]:
                    skip |= 1 << a
        a = strongest_ability(s, T, L.EV_SHIM, 0, skip)
        if a < 0:
            a = strongest_ability(s, T, L.EV_SHIM, 0, 0)
        s[L.G_HERO_DEFENCES] += 1
        if not hero_combat(s, T, ev, rng, legal, pp, h, L.EV_SHIM, a, True):
            lose_life(s, T, ev, h, 1)
            s[hb(h) + L.H_POS] = T[TB.O_DISC + d]
            log(s, ev, L.EVT_KNOCK_BACK, h, sp, T[TB.O_DISC + d], 2, 0, 0)
        return
    if wall_roll(s, T, ev, rng, legal, pp, d):
        s[L.G_WALL_HITS] += 1
        if s[L.G_WALL + d] == 1:
            log(s, ev, L.EVT_WALL_DAMAGE, L.ACTOR_GAME, d, 2, 0, 0, 0)
            s[L.G_OUTCOME] = L.O_WALL_DESTROYED
        else:
            s[L.G_WALL + d] = 1
            log(s, ev, L.EVT_WALL_DAMAGE, L.ACTOR_GAME, d, 1, 0, 0, 0)


@njit(cache=True)
def end_of_turn(s, T, ev, rng, legal, pp, h):
    """Move the moon one space and roll the compass dice (MQ-MOON-02..11),
    or in the Final Battle one compass die for the Shimnavore (MQ-FINAL-07)."""
    L_ = T[TB.P_MOON_LEN]
    s[L.G_MOON] = (s[L.G_MOON] + 1) % L_
    s[L.G_MOON_STEPS] += 1
    steps = s[L.G_MOON_STEPS]
    log(s, ev, L.EVT_MOON, h, s[L.G_MOON], T[TB.O_MOON + (s[L.G_MOON])], steps // L_, 0, 0)
    if s[L.G_FINAL] == L.FB_NONE and steps >= L_ * T[TB.P_CYCLES]:
        # the Shimnavore appears (MQ-FINAL-01); no more disc rolls this phase
        s[L.G_FINAL] = L.FB_TRIGGERED
        s[L.G_SHIM_FACING] = 0
        log(s, ev, L.EVT_FINAL_BATTLE, L.ACTOR_GAME, 0, 0, 0, 0, 0)
        return
    if s[L.G_FINAL] == L.FB_TRIGGERED:
        return
    if s[L.G_FINAL] == L.FB_RUNNING:
        f = roll_compass(T, rng)
        log(s, ev, L.EVT_COMPASS, h, f, 1, 0, 0, 0)
        while f != L.C_BLANK and reroll_offer(s, T, ev, rng, legal, pp, h, f, L.CTX_COMPASS):
            f = roll_compass(T, rng)
            log(s, ev, L.EVT_COMPASS, h, f, 1, 1, 0, 0)
        shimnavore_acts(s, T, ev, rng, legal, pp, f)
        return
    ndice = 1 if steps < L_ else 2
    for _ in range(ndice):
        f = roll_compass(T, rng)
        log(s, ev, L.EVT_COMPASS, h, f, ndice, 0, 0, 0)
        while f != L.C_BLANK and reroll_offer(s, T, ev, rng, legal, pp, h, f, L.CTX_COMPASS):
            f = roll_compass(T, rng)
            log(s, ev, L.EVT_COMPASS, h, f, ndice, 1, 0, 0)
        compass_result(s, T, ev, f)


@njit(cache=True)
def start_final_battle(s, T, ev, rng, legal, pp):
    """Nightmares not cast out emerge onto their key stones (MQ-FINAL-03/04),
    compass tokens clear, and a random player's opening roll (MQ-FINAL-06)."""
    s[L.G_FINAL] = L.FB_RUNNING
    s[L.G_TOKENS] = 0
    s[L.G_FB_POOL] = s[L.G_POOL]
    log(s, ev, L.EVT_FINAL_BATTLE, L.ACTOR_GAME, 1, 0, 0, 0, 0)
    for d in range(4):
        st = s[db(d) + L.D_STATE]
        if st == L.DS_ON or st == L.DS_RELEASED:
            k = s[db(d) + L.D_NM]
            log(s, ev, L.EVT_EMERGE, -1 - k, d, T[TB.O_KEYSTONE + d], 0, 0, 0)
            place_nightmare(s, T, ev, k, d)
            s[nb(k) + L.N_FATE] = L.FATE_EMERGED
    h = randint(rng, STREAM_DICE, s[L.G_NHEROES])
    f = roll_compass(T, rng)
    log(s, ev, L.EVT_COMPASS, h, f, 1, 0, 0, 0)
    while f != L.C_BLANK and reroll_offer(s, T, ev, rng, legal, pp, h, f, L.CTX_COMPASS):
        f = roll_compass(T, rng)
        log(s, ev, L.EVT_COMPASS, h, f, 1, 1, 0, 0)
    shimnavore_acts(s, T, ev, rng, legal, pp, f)
