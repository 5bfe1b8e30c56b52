"""The moon, the compass dice and the Final Battle (numba): the end of every
hero turn, talisman re-rolls of compass and wall dice, the Shimnavore's
actions and the start of the Final Battle (MQ-MOON, MQ-FINAL).
"""

import numpy as np

from simcore.jit import inlined, kernel
from simcore.rng import STREAM_DICE, randint

from . import layout as L
from . import tables as TB
from .combat import hero_combat, strongest_ability
from .core import (
    click_disc,
    compass_tokens,
    disc_occupied,
    first_hero_at,
    hb,
    log,
    lose_life,
    next_occupied_disc,
    nightmare_at,
    remove_bogbean,
    roll_compass,
    roll_die,
    xb,
)
from .audit import wall_falls
from .layout import code, code_op
from .enemies import emergences
from .decision import decide

# =============================================================================
# moon, compass and the Final Battle
# =============================================================================


@inlined
def reroll_offer(s, T, ev, rng, legal, pp, h, face, ctx):
    """``_reroll_offer`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _reroll_offer(s, T, ev, rng, legal, pp, np.int64(h), np.int64(face), np.int64(ctx))


@kernel
def _reroll_offer(s, T, ev, rng, legal, pp, h, face, ctx):
    """Offer a talisman re-roll of one die the heroes rolled (MQ-CHARM-13)."""
    if s[L.G_TALISMANS] == 0:
        return False
    legal[0] = code(L.R_ACCEPT, 0)
    legal[1] = code(L.R_TALISMAN, 0)
    s[L.G_CTX] = ctx
    s[L.G_CTX_ARG] = face
    ch = decide(s, T, legal, 2, rng, pp, h)
    s[L.G_CTX] = L.CTX_TURN
    if code_op(ch) == L.R_TALISMAN:
        s[L.G_TALISMANS] -= 1
        s[L.CNT_TALISMAN_WALL if ctx == L.CTX_WALL else L.CNT_TALISMAN_COMPASS] += 1
        log(s, ev, L.EVT_TALISMAN, h, -1, face, ctx, 0, 0)
        return True
    return False


@kernel
def compass_result(s, T, ev, face):
    """Apply one compass die before the Final Battle (MQ-MOON-08..11)."""
    if face < 4:
        d = next_occupied_disc(s, face)
        if d >= 0:
            click_disc(s, T, ev, d, 1)
    elif face == L.FACE_STAR:
        s[L.G_TOKENS] += 1
        log(s, ev, L.EVT_COMPASS_TOKEN, L.ACTOR_GAME, s[L.G_TOKENS], 0, 0, 0, 0)
        if s[L.G_TOKENS] >= compass_tokens(s, T):
            s[L.G_TOKENS] = 0
            log(s, ev, L.EVT_ALL_DISCS, L.ACTOR_GAME, 0, 0, 0, 0, 0)
            for d in range(4):
                if disc_occupied(s, d):
                    click_disc(s, T, ev, d, 1)
                elif T[TB.P_STAR_CLICKS_ROLL_OVER] == 1:
                    dd = next_occupied_disc(s, d)
                    if dd >= 0:
                        click_disc(s, T, ev, dd, 1)


@kernel
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


@kernel
def shimnavore_acts(s, T, ev, rng, legal, pp, face):
    """The Shimnavore acts on a Final Battle compass result (MQ-FINAL-11..19)."""
    log(s, ev, L.EVT_SHIMNAVORE, L.ACTOR_GAME, face, 0, 0, 0, 0)
    if face == L.FACE_BLANK:
        return
    if face == L.FACE_STAR:
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
    k = nightmare_at(s, sp)
    if k >= 0:
        # a non-event a reader needs: a nightmare on the key stone shields it
        log(s, ev, L.EVT_SHIMNAVORE_HELD, L.ACTOR_GAME, d, k, sp, 0, 0)
        return
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            remove_bogbean(s, T, ev, c, 3)
    h = first_hero_at(s, sp)
    if h >= 0:
        skip = 0
        if T[TB.P_SHIMNAVORE_SKIPS_BEATEN] == 1:
            for a in range(3):
                if s[L.G_SHIM_WOUNDS + a] >= T[TB.P_SHIMNAVORE_WINS_PER_ABILITY]:
                    skip |= 1 << a
        a = strongest_ability(s, T, L.ENEMY_SHIM, 0, skip)
        if a < 0:
            a = strongest_ability(s, T, L.ENEMY_SHIM, 0, 0)
        # whom it attacks and on what, before the combat's rolls
        log(s, ev, L.EVT_SHIMNAVORE_ATTACK, h, d, a, sp, 0, 0)
        s[L.G_HERO_DEFENCES] += 1
        if not hero_combat(s, T, ev, rng, legal, pp, h, L.ENEMY_SHIM, a, True):
            lose_life(s, T, ev, h, 1)
            s[hb(h) + L.H_POS] = T[TB.O_DISC + d]
            log(s, ev, L.EVT_KNOCK_BACK, h, sp, T[TB.O_DISC + d], 2, 0, 0)
        return
    if wall_roll(s, T, ev, rng, legal, pp, d):
        s[L.G_WALL_HITS] += 1
        if s[L.G_WALL + d] == 1:
            log(s, ev, L.EVT_WALL_DAMAGE, L.ACTOR_GAME, d, 2, 0, 0, 0)
            s[L.G_OUTCOME] = L.OUT_WALL_DESTROYED
            wall_falls(s, d)
        else:
            s[L.G_WALL + d] = 1
            log(s, ev, L.EVT_WALL_DAMAGE, L.ACTOR_GAME, d, 1, 0, 0, 0)


@kernel
def end_of_turn(s, T, ev, rng, legal, pp, h):
    """Move the moon one space and roll the compass dice (MQ-MOON-02..11),
    or in the Final Battle one compass die for the Shimnavore (MQ-FINAL-07)."""
    L_ = T[TB.P_N_MOON_TRACK]
    s[L.G_MOON] = (s[L.G_MOON] + 1) % L_
    s[L.G_MOON_STEPS] += 1
    steps = s[L.G_MOON_STEPS]
    log(s, ev, L.EVT_MOON, h, s[L.G_MOON], T[TB.O_MOON + (s[L.G_MOON])], steps // L_, 0, 0)
    if s[L.G_FINAL] == L.FB_NONE and steps >= L_ * T[TB.P_MOON_CYCLES]:
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
        while f != L.FACE_BLANK and reroll_offer(s, T, ev, rng, legal, pp, h, f, L.CTX_COMPASS):
            f = roll_compass(T, rng)
            log(s, ev, L.EVT_COMPASS, h, f, 1, 1, 0, 0)
        shimnavore_acts(s, T, ev, rng, legal, pp, f)
        return
    ndice = 1 if steps < L_ else 2
    for _ in range(ndice):
        f = roll_compass(T, rng)
        log(s, ev, L.EVT_COMPASS, h, f, ndice, 0, 0, 0)
        while f != L.FACE_BLANK and reroll_offer(s, T, ev, rng, legal, pp, h, f, L.CTX_COMPASS):
            f = roll_compass(T, rng)
            log(s, ev, L.EVT_COMPASS, h, f, ndice, 1, 0, 0)
        compass_result(s, T, ev, f)


@kernel
def start_final_battle(s, T, ev, rng, legal, pp):
    """Nightmares not cast out emerge onto their key stones (MQ-FINAL-03/04),
    compass tokens clear, and a random player's opening roll (MQ-FINAL-06)."""
    s[L.G_FINAL] = L.FB_RUNNING
    s[L.G_TOKENS] = 0
    s[L.G_FB_POOL] = s[L.G_POOL]
    log(s, ev, L.EVT_FINAL_BATTLE, L.ACTOR_GAME, 1, 0, 0, 0, 0)
    emergences(s, T, ev)
    h = randint(rng, STREAM_DICE, s[L.G_NHEROES])
    f = roll_compass(T, rng)
    log(s, ev, L.EVT_COMPASS, h, f, 1, 0, 0, 0)
    while f != L.FACE_BLANK and reroll_offer(s, T, ev, rng, legal, pp, h, f, L.CTX_COMPASS):
        f = roll_compass(T, rng)
        log(s, ev, L.EVT_COMPASS, h, f, 1, 1, 0, 0)
    shimnavore_acts(s, T, ev, rng, legal, pp, f)
