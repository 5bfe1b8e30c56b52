"""Combat (numba): a hero's roll against an enemy with the reaction window
(talismans, combat relics and skills), enemies' strongest abilities, and
what beaten or winning Bogbeans drop and steal (MQ-COMBAT, MQ-ENEMY-07..11).
"""
import numpy as np

from simcore.jit import inlined, kernel, needs_nrt
from . import layout as L
from .audit import combat_winnable
from . import tables as TB
from .core import (
    ability_total,
    bog_level,
    charms_held,
    count_use,
    dice_for_combat,
    discard_equipped,
    drop_charms,
    fumbled,
    gain_charms,
    hb,
    log,
    lose_life,
    lose_most_plentiful_charms,
    moon_colour,
    remove_bogbean,
    roll_die,
    score_roll,
    xb,
)
from .effects import draw_equipment, draw_relic
from .layout import code, code_arg, code_op, lose_relic_arg, loses_relic, lost_relic
from .decision import decide

# =============================================================================
# combat
# =============================================================================


@kernel
def enemy_value(s, T, row, a):
    return T[TB.O_ENEMY + row * TB.ENEMY_W + moon_colour(s, T) * TB.ABIL_W + a]


@inlined
def hero_combat(s, T, ev, rng, legal, pp, h, row, a, defending):
    """``_hero_combat`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _hero_combat(s, T, ev, rng, legal, pp, np.int64(h), np.int64(row), np.int64(a), np.bool_(defending))


@needs_nrt
def _hero_combat(s, T, ev, rng, legal, pp, h, row, a, defending):
    """Hero ``h`` fights enemy-table row ``row`` on ability ``a``: roll the
    dice pool, then the reaction window (talisman re-rolls, combat relics and
    skills, ``reactions_on_offer``) while the roll is losing. Returns True
    if the hero wins."""
    target = enemy_value(s, T, row, a)
    ha = a
    if defending and T[TB.P_DEFEND_WITH_COURAGE] == 1:
        ha = 0
    ability = ability_total(s, T, h, ha)
    blue = moon_colour(s, T) == L.BLUE
    levels = np.zeros(8, np.int32)
    faces = np.zeros(8, np.int32)
    spare = np.zeros(8, np.int32)
    n = dice_for_combat(s, T, levels, 0)
    for i in range(n):
        faces[i] = roll_die(T, rng, levels[i])
    rolled = n      # dice rolled together; a die added later cannot undo their fumble
    bonus = 0
    spent = 0       # talismans, relics and skills spent on this combat
    s[L.G_COMBATS] += 1
    while True:
        win, total = score_roll(T, faces, n, ability, bonus, target, blue, defending)
        if n > rolled and fumbled(T, faces, rolled, defending):
            win, total = False, -1
        if s[L.G_LOG] == 1:
            log_roll(s, ev, h, faces, levels, n, total, bonus)
        if win:
            break
        # reaction window: any hero may help (MQ-GAP-03)
        k = reactions_on_offer(s, T, legal, h, n, spare)
        if k == 1:
            break
        s[L.G_CTX] = L.CTX_DEFENCE if defending else L.CTX_ATTACK
        s[L.G_CTX_ARG] = row
        for i in range(min(n, 8)):
            s[L.G_CTX_FACES + i] = faces[i]
        # public: the exact odds say whether anything on offer can still win
        s[L.G_CTX_WINNABLE] = 1 if combat_winnable(s, T, legal, k, faces, levels, n, rolled, ability, bonus,
                                                   target, blue, defending) else 0
        ch = decide(s, T, legal, k, rng, pp, h)
        s[L.G_CTX] = L.CTX_TURN
        op = code_op(ch)
        arg = code_arg(ch)
        if op == L.R_ACCEPT:
            break
        if s[L.G_CTX_WINNABLE] == 0:
            s[L.CNT_BLUNDER_FUTILE_REACTIONS] += 1
        e = -1
        spent += 1
        if op == L.R_TALISMAN:
            s[L.G_TALISMANS] -= 1
            s[L.CNT_TALISMAN_COMBAT] += 1
            log(s, ev, L.EVT_TALISMAN, h, arg, faces[arg], 0, 0, 0)
            faces[arg] = roll_die(T, rng, levels[arg])
            continue
        e = spend_reaction(s, T, ev, h, op, arg)
        kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
        amt = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT]
        if kind == L.EK_COMBAT_BONUS:
            bonus += amt
        elif kind == L.EK_REROLL:
            log(s, ev, L.EVT_REROLL, h, n, 0, 0, 0, 0)
            for i in range(n):
                faces[i] = roll_die(T, rng, levels[i])
            rolled = n
        elif kind == L.EK_EXTRA_DIE:
            n2 = dice_for_combat(s, T, levels, n - min(s[L.G_POOL], T[TB.P_MAX_COMBAT_DICE]) + amt)
            for i in range(n, n2):
                faces[i] = roll_die(T, rng, levels[i])
            n = n2
    if spent > 0 and not win:
        s[L.CNT_REACTIONS_WASTED] += spent
    log(s, ev, L.EVT_COMBAT, h, row, a, target, total, int(win) + 2 * int(defending))
    return win


@inlined
def log_roll(s, ev, h, faces, levels, n, total, bonus):
    """``_hero_combat``'s dice record of hero ``h``'s roll ``faces[:n]``: up to
    six faces, four bits each, and the first four dice's levels as decimal
    digits (9: none), with the ``total`` and ``bonus`` it scores."""
    packed = 0
    for i in range(min(n, 6)):
        packed = packed * 16 + (faces[i] if faces[i] < 16 else 15)
    log(s, ev, L.EVT_DICE, h, n, packed, levels[0] * 1000 + (levels[1] if n > 1 else 9) * 100
        + (levels[2] if n > 2 else 9) * 10 + (levels[3] if n > 3 else 9), total, bonus)


@inlined
def reactions_on_offer(s, T, legal, h, n, spare):
    """``_hero_combat``'s reaction window for hero ``h``'s losing roll of ``n``
    dice, written to ``legal``: accepting the roll, a Talisman re-roll of
    each die, and every combat relic and skill that may help ``h`` (an
    extra-die effect only while a die is left to add, MQ-GAP-36; ``spare``
    is scratch for that count). Returns how many."""
    k = 0
    legal[k] = code(L.R_ACCEPT, 0)
    k += 1
    if s[L.G_TALISMANS] > 0:
        for i in range(n):
            legal[k] = code(L.R_TALISMAN, i)
            k += 1
    # an extra-die effect needs a die it may add (MQ-GAP-36)
    room = dice_for_combat(s, T, spare, n - min(s[L.G_POOL], T[TB.P_MAX_COMBAT_DICE]) + 1) > n
    for r in range(T[TB.P_N_RELICS]):
        if s[L.G_RELIC_OWNER + r] >= 0 and T[TB.O_EFFECTS + (T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT]) * L.EF_COLS + L.EF_WHEN] == L.WHEN_COMBAT:
            e = T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT]
            if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_TARGET] == L.ET_SELF and s[L.G_RELIC_OWNER + r] != h:
                continue
            if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND] == L.EK_EXTRA_DIE and not room:
                continue
            legal[k] = code(L.R_RELIC, r)
            k += 1
    for u in range(s[L.G_NHEROES]):
        e = T[TB.O_HERO_SKILL + (s[hb(u) + L.H_ID])]
        if s[hb(u) + L.H_SKILLS] > 0 and T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_WHEN] == L.WHEN_COMBAT:
            if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_TARGET] == L.ET_SELF and u != h:
                continue
            if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND] == L.EK_EXTRA_DIE and not room:
                continue
            legal[k] = code(L.R_SKILL, u)
            k += 1
    return k


@inlined
def spend_reaction(s, T, ev, h, op, arg):
    """``_hero_combat``'s combat relic ``arg`` (``op`` R_RELIC) or skill token
    of hero ``arg`` spent for hero ``h``: used up, counted and logged.
    Returns its effect."""
    if op == L.R_RELIC:
        e = T[TB.O_RELICS + arg * TB.RELIC_W + TB.RL_EFFECT]
        log(s, ev, L.EVT_RELIC_USED, s[L.G_RELIC_OWNER + arg], arg, e, h, 1, 0)   # d=1: in a combat, for hero h
        s[L.G_RELIC_OWNER + arg] = -2
        count_use(s, L.CNT_RELICS_USED)
    else:
        e = T[TB.O_HERO_SKILL + (s[hb(arg) + L.H_ID])]
        s[hb(arg) + L.H_SKILLS] -= 1
        count_use(s, L.CNT_SKILLS_USED)
        log(s, ev, L.EVT_SKILL_USED, arg, e, h, 1, 0, 0)   # c=1: in a combat, for hero h
    return e


@inlined
def strongest_ability(s, T, row, wounds, skip_mask):
    """``_strongest_ability`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _strongest_ability(s, T, np.int64(row), np.int64(wounds), np.int64(skip_mask))


@kernel
def _strongest_ability(s, T, row, wounds, skip_mask):
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


@inlined
def bogbean_drops(s, T, ev, rng, legal, pp, h, c, reward):
    """``_bogbean_drops`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _bogbean_drops(s, T, ev, rng, legal, pp, np.int64(h), np.int64(c), np.bool_(reward))


@kernel
def _bogbean_drops(s, T, ev, rng, legal, pp, h, c, reward):
    """A beaten or fended-off bogbean runs away leaving its charms (MQ-COMBAT-18,
    MQ-ENEMY-10); a beaten Louse Wort also gives a card (MQ-COMBAT-19)."""
    t = s[xb(c) + L.X_TILE]
    drop = T[TB.O_TILES + t * L.TL_COLS + L.TL_DROP]
    if drop >= 0:
        gain_charms(s, T, ev, h, drop, T[TB.O_TILES + t * L.TL_COLS + L.TL_DROP_N])
    card = T[TB.O_TILES + t * L.TL_COLS + L.TL_CARD] == 1
    log(s, ev, L.EVT_BOGBEAN_DEFEATED, h, c, bog_level(s, T, c), int(reward), 0, 0)
    remove_bogbean(s, T, ev, c, 1)
    if reward and card:
        k = 0
        if s[L.G_EQ_N] > 0:
            legal[k] = code(L.A_REWARD_EQUIPMENT, 0)
            k += 1
        if s[L.G_RELIC_N] > 0:
            legal[k] = code(L.A_REWARD_RELIC, 0)
            k += 1
        if k > 0:
            legal[k] = code(L.A_REWARD_DECLINED, 0)   # "may also draw": declining is allowed
            k += 1
            ch = decide(s, T, legal, k, rng, pp, h)
            if code_op(ch) == L.A_REWARD_EQUIPMENT:
                draw_equipment(s, T, ev, rng, legal, pp, h)
            elif code_op(ch) == L.A_REWARD_RELIC:
                draw_relic(s, T, ev, rng, legal, pp, h)
            else:
                s[L.CNT_REWARDS_DECLINED] += 1


@kernel
def bogbean_theft(s, T, ev, rng, legal, pp, h, c):
    """A bogbean beats hero ``h``: it steals the charms on its tile, else a
    card, else a life point, and runs away (MQ-COMBAT-21..23, MQ-GAP-57)."""
    t = s[xb(c) + L.X_TILE]
    need = T[TB.O_TILES + t * L.TL_COLS + L.TL_STEAL]
    held = charms_held(s, h)
    log(s, ev, L.EVT_THEFT, h, c, need, held, 0, 0)
    if held >= need:
        for _ in range(need):
            k = 0
            for ty in range(4):
                if s[hb(h) + L.H_CH + ty] > 0:
                    legal[k] = code(L.A_LOSE_CHARM, ty)
                    k += 1
            ch = decide(s, T, legal, k, rng, pp, h)
            drop_charms(s, ev, h, code_arg(ch), 1)
    else:
        ncards = 0
        k = 0
        for a in range(3):
            if s[hb(h) + L.H_EQ + a] >= 0:
                legal[k] = code(L.A_LOSE_CARD, a)
                k += 1
        for r in range(T[TB.P_N_RELICS]):
            if s[L.G_RELIC_OWNER + r] == h:
                legal[k] = code(L.A_LOSE_CARD, lose_relic_arg(r))
                k += 1
        ncards = k
        if ncards > 0:
            ch = decide(s, T, legal, k, rng, pp, h)
            arg = code_arg(ch)
            if not loses_relic(arg):
                discard_equipped(s, ev, h, arg, False)
            else:
                s[L.G_RELIC_OWNER + lost_relic(arg)] = -2
                log(s, ev, L.EVT_CARD_LOST, h, 1, lost_relic(arg), 0, 0, 0)
            if T[TB.P_PARTIAL_THEFT_TAKES_CHARMS] == 1:
                lose_most_plentiful_charms(s, ev, h, held)
        elif held > 0:
            lose_most_plentiful_charms(s, ev, h, held)
        else:
            lose_life(s, T, ev, h, 1)
    remove_bogbean(s, T, ev, c, 2)
