"""Cards, effects and arriving on a space (numba): equipment and Hag cards,
relics and sabotaged pots, the effect vocabulary of skills, relics, Hags and
evil powers, and what a hero meets on arrival (the Dunnywater tunnel,
Magical Pots). Choices go through ``decision.decide``; rule IDs MQ-* refer to
shared/rules/mournequest-rules.md, MQ-GAP rulings to docs/mournequest/rulings.md.
"""

import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .core import (
    charms_held,
    click_disc,
    db,
    discard_equipped,
    discard_tile,
    gain_charms,
    hb,
    heal,
    log,
    lose_life,
    lose_most_plentiful_charms,
    minis_at,
    most_advanced_disc,
    nb,
    pot_at,
    to_surplus,
)
from .audit import charm_found, wall_rebuilt
from .layout import code, code_op, move_to_corner, move_to_hero, move_to_param
from .decision import decide

# =============================================================================
# cards
# =============================================================================


@kernel
def offer_card(s, T, ev, rng, legal, pp, h, c):
    """Hero ``h`` holds card ``c``: equip it (a higher value replaces the card
    under that ability, which goes to the Surplus) or discard it to the
    Surplus Deck (MQ-CARD-05..07, MQ-GAP-59)."""
    a = T[TB.O_CARDS + c * TB.CARD_W + TB.CD_ABILITY]
    cur = s[hb(h) + L.H_EQ + a]
    n = 0
    if cur < 0 or T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] > T[TB.O_CARDS + cur * TB.CARD_W + TB.CD_VALUE]:
        legal[n] = code(L.A_EQUIP, c)
        n += 1
    legal[n] = code(L.A_DISCARD_CARD, c)
    n += 1
    ch = decide(s, T, legal, n, rng, pp, h)
    if code_op(ch) == L.A_EQUIP:
        if cur >= 0:
            discard_equipped(s, ev, h, a, True)
        s[hb(h) + L.H_EQ + a] = c
        log(s, ev, L.EVT_EQUIP, h, c, a, T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE], 1, 0)
    else:
        if n == 2:
            s[L.CNT_CARDS_DECLINED] += 1   # it could have been equipped
        to_surplus(s, c)
        # e, why it was discarded: 0 the player's choice, else 1 + the card
        # held under that ability, which it does not beat
        log(s, ev, L.EVT_EQUIP, h, c, a, T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE], 0, 0 if n == 2 else cur + 1)


@kernel
def draw_relic(s, T, ev, rng, legal, pp, h):
    """Hero ``h`` draws the top relic; a sabotaged one acts at once (MQ-CARD-12)."""
    if s[L.G_RELIC_N] == 0:
        return
    s[L.G_RELIC_N] -= 1
    r = s[L.G_RELIC_DECK + s[L.G_RELIC_N]]
    sab = T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_SABOTAGED]
    log(s, ev, L.EVT_RELIC_DRAWN, h, r, sab, 0, 0, 0)
    if sab == 1:
        s[L.G_RELIC_OWNER + r] = -2
        apply_simple_effect(s, T, ev, T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT], h, -1)
    else:
        s[L.G_RELIC_OWNER + r] = h


@kernel
def draw_equipment(s, T, ev, rng, legal, pp, h):
    """Hero ``h`` draws the top face-down equipment card; a Hag acts at once and
    leaves the game (MQ-CARD-09/10)."""
    if s[L.G_EQ_N] == 0:
        return
    s[L.G_EQ_N] -= 1
    c = s[L.G_EQ_DECK + s[L.G_EQ_N]]
    log(s, ev, L.EVT_EQUIPMENT_DRAWN, h, c, 0, 0, 0, 0)
    if T[TB.O_CARDS + c * TB.CARD_W + TB.CD_ABILITY] < 0:
        log(s, ev, L.EVT_HAG, h, c, T[TB.O_CARDS + c * TB.CARD_W + TB.CD_HAG], 0, 0, 0)
        apply_simple_effect(s, T, ev, T[TB.O_CARDS + c * TB.CARD_W + TB.CD_HAG], h, -1)
    else:
        offer_card(s, T, ev, rng, legal, pp, h, c)

# =============================================================================
# effects (skills, relics, hags, evil powers)
# =============================================================================


@kernel
def hero_near(s, T, h, sp, rng_):
    """Hero ``h`` is within ``rng_`` steps of space ``sp`` (on the board)."""
    pos = s[hb(h) + L.H_POS]
    if T[TB.O_KIND + pos] == L.K_DISC:
        return False
    return T[TB.O_DIST_E + sp * TB.DIST_W + pos] <= rng_


@inlined
def apply_simple_effect(s, T, ev, e, user, param):
    """``_apply_simple_effect`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _apply_simple_effect(s, T, ev, np.int64(e), np.int64(user), np.int64(param))


@kernel
def _apply_simple_effect(s, T, ev, e, user, param):
    """Carry out effect ``e`` used by ``user`` (a hero, or -1-k for nightmare k)
    when it needs no movement: everything but move_to and extra_move.

    ``param`` is the chosen target: a hero, a disc direction, a charm type;
    -1 when the effect picks its own target."""
    kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
    amt = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT]
    tgt = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_TARGET]
    rng_ = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_RANGE]
    if kind == L.EK_HEAL:
        h = user if param < 0 else param
        heal(s, T, ev, h, amt)
    elif kind == L.EK_WOUND:
        if tgt == L.ET_HEROES_NEAR:
            sp = s[nb(-1 - user) + L.NM_POS]
            for h in range(s[L.G_NHEROES]):
                if hero_near(s, T, h, sp, rng_):
                    lose_life(s, T, ev, h, amt)
        else:
            lose_life(s, T, ev, user, amt)
    elif kind == L.EK_GAIN_CHARM:
        had = s[hb(user) + L.H_CH + param] if user >= 0 else 0
        gain_charms(s, T, ev, user, param, amt)
        if user >= 0:
            charm_found(s, user, param, s[hb(user) + L.H_CH + param] - had)
    elif kind == L.EK_LOSE_CHARM:
        if tgt == L.ET_HEROES_NEAR:
            sp = s[nb(-1 - user) + L.NM_POS]
            for h in range(s[L.G_NHEROES]):
                if hero_near(s, T, h, sp, rng_):
                    lose_most_plentiful_charms(s, ev, h, amt)
        else:
            lose_most_plentiful_charms(s, ev, user, amt)
    elif kind == L.EK_LOSE_SKILL:
        sp = s[nb(-1 - user) + L.NM_POS] if user < 0 else -1
        for h in range(s[L.G_NHEROES]):
            hit = hero_near(s, T, h, sp, rng_) if user < 0 else h == user
            if hit and s[hb(h) + L.H_SKILLS] > 0:
                k = min(amt, s[hb(h) + L.H_SKILLS])
                s[hb(h) + L.H_SKILLS] -= k
                log(s, ev, L.EVT_SKILL_TOKEN_LOST, h, k, 0, 0, 0, 0)
    elif kind == L.EK_REPAIR_WALL:
        if param >= 0 and s[L.G_WALL + param] == 1:
            s[L.G_WALL + param] = 0
            s[L.G_WALL_REPAIRS] += 1
            s[L.CNT_REPAIRS_RELIC] += 1
            wall_rebuilt(s, param, -1)
            log(s, ev, L.EVT_WALL_REPAIR, user, param, 0, 0, 0, 0)
    elif kind == L.EK_ROTATE_DISC:
        d = param
        if tgt == L.ET_ADVANCED_DISC:
            d = most_advanced_disc(s)
        if d >= 0:
            click_disc(s, T, ev, d, amt)
    elif kind == L.EK_EXTRA_ACTION:
        s[L.G_ACTS] += amt
    elif kind == L.EK_LOSE_EQUIPMENT:
        best = -1
        for a in range(3):
            c = s[hb(user) + L.H_EQ + a]
            if c >= 0 and (best < 0 or T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] > T[TB.O_CARDS + s[hb(user) + L.H_EQ + best] * TB.CARD_W + TB.CD_VALUE]):
                best = a
        if best >= 0:
            discard_equipped(s, ev, user, best, False)


@inlined
def apply_effect(s, T, ev, rng, legal, pp, e, user, param):
    """``_apply_effect`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _apply_effect(s, T, ev, rng, legal, pp, np.int64(e), np.int64(user), np.int64(param))


@kernel
def _apply_effect(s, T, ev, rng, legal, pp, e, user, param):
    """Carry out a skill or relic effect chosen in a turn; move_to moves hero
    ``move_to_hero(param)`` to the crossroads of corner ``move_to_corner(param)``."""
    if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND] == L.EK_MOVE_TO:
        h = move_to_hero(param)
        sp = T[TB.O_CROSSROADS + move_to_corner(param)]
        log(s, ev, L.EVT_MOVE, h, s[hb(h) + L.H_POS], sp, 1, 0, 0)
        if h == s[L.G_CUR] and (s[L.G_MUST_MOVE] & 1) != 0:
            s[L.G_FORBID] = s[hb(h) + L.H_POS]
            s[L.G_MUST_MOVE] &= 2
        s[hb(h) + L.H_POS] = sp
        arrive(s, T, ev, rng, legal, pp, h)
    else:
        apply_simple_effect(s, T, ev, e, user, param)


@kernel
def put_target(legal, n, base, param):
    """Append action code ``base + param + 1`` to ``legal[:n]`` while there is
    room (``MAX_LEGAL``); returns the new count. ``base`` is the code of a
    relic or skill action with its owner (``layout.sub_code``), ``param`` the
    target, so the argument is ``layout.sub_arg(owner, param)``."""
    if n < L.MAX_LEGAL:
        legal[n] = base + param + 1
        return n + 1
    return n


@kernel
def effect_targets(s, T, e, user, active, legal, n, base):
    """Append to ``legal[:n]`` the action of each legal target of turn-window
    effect ``e`` used by hero ``user`` while hero ``active`` plays (code
    ``base + target + 1``, see ``put_target``); returns the new count."""
    kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
    tgt = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_TARGET]
    if tgt == L.ET_SELF and user != active:
        return n
    if kind == L.EK_HEAL:
        if tgt == L.ET_SELF:
            if s[hb(user) + L.H_WOUNDS] > 0:
                n = put_target(legal, n, base, user)
        else:
            for h in range(s[L.G_NHEROES]):
                if s[hb(h) + L.H_WOUNDS] > 0:
                    n = put_target(legal, n, base, h)
    elif kind == L.EK_GAIN_CHARM:
        if charms_held(s, user) < T[TB.P_BACKPACK]:
            for t in range(4):
                if s[L.G_POOL_CHARMS + t] > 0:
                    n = put_target(legal, n, base, t)
    elif kind == L.EK_REPAIR_WALL:
        for d in range(4):
            if s[L.G_WALL + d] == 1:
                n = put_target(legal, n, base, d)
    elif kind == L.EK_ROTATE_DISC:
        if tgt == L.ET_CHOSEN_DISC:
            for d in range(4):
                o = db(d)
                # a released disc turns neither way (MQ-GAP-21)
                if s[o + L.D_STATE] == L.DS_ON and (T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT] > 0 or
                                                    s[o + L.D_CLICKS] < s[o + L.D_START_CLICKS]):
                    n = put_target(legal, n, base, d)
    elif kind == L.EK_EXTRA_ACTION:
        if s[L.G_TURN_OVER] == 0:
            n = put_target(legal, n, base, -1)
    elif kind == L.EK_MOVE_TO:
        # room on each crossroads, counted once rather than once per hero
        room = (minis_at(s, T[TB.O_CROSSROADS]) < T[TB.P_MINIATURES_PER_SPACE], minis_at(s, T[TB.O_CROSSROADS + 1]) < T[TB.P_MINIATURES_PER_SPACE],
                minis_at(s, T[TB.O_CROSSROADS + 2]) < T[TB.P_MINIATURES_PER_SPACE], minis_at(s, T[TB.O_CROSSROADS + 3]) < T[TB.P_MINIATURES_PER_SPACE])
        for h in range(s[L.G_NHEROES]):
            if tgt == L.ET_SELF and h != user:
                continue
            for c in range(4):
                sp = T[TB.O_CROSSROADS + c]
                if h == active and sp == s[L.G_FORBID]:
                    continue
                if s[hb(h) + L.H_POS] != sp and room[c]:
                    n = put_target(legal, n, base, move_to_param(h, c))
    return n

# =============================================================================
# hero movement
# =============================================================================


@kernel
def arrive(s, T, ev, rng, legal, pp, h):
    """What happens when hero ``h`` arrives on its space: the Dunnywater tunnel
    (MQ-MOVE-11) and Magical Pots at crossroads (MQ-CARD-11)."""
    o = hb(h)
    sp = s[o + L.H_POS]
    if T[TB.O_KIND + sp] == L.K_TUNNEL:
        other = T[TB.O_TUNNEL + sp]
        if minis_at(s, other) < T[TB.P_MINIATURES_PER_SPACE] and not (h == s[L.G_CUR] and other == s[L.G_FORBID]):
            s[o + L.H_POS] = other
            log(s, ev, L.EVT_TUNNEL, h, sp, other, 0, 0, 0)
            sp = other
        else:
            # a non-event worth seeing: the far end is full (or the space just left)
            log(s, ev, L.EVT_TUNNEL_BLOCKED, h, sp, other, 0, 0, 0)
    if h == s[L.G_CUR]:
        s[L.G_ARRIVED] = sp
    c = pot_at(s, T, sp)
    if c >= 0:
        s[L.CNT_POTS] += 1
        log(s, ev, L.EVT_POT, h, c, sp, 0, 0, 0)
        discard_tile(s, ev, c)
        draw_relic(s, T, ev, rng, legal, pp, h)


@inlined
def can_enter(s, T, h, sp):
    """Whether hero ``h`` may step onto ``sp`` (inlined: asked for every neighbour)."""
    if T[TB.O_KIND + sp] == L.K_DISC:
        return False
    if sp == s[L.G_FORBID]:
        return False
    return minis_at(s, sp) < T[TB.P_MINIATURES_PER_SPACE]
