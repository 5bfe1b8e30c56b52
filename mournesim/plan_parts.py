"""The planner's parts added in behaviour v3, each off when its parameter is 0.

They change the planner's play only through ``policies.plan_goal`` (its goal
space: ``plan_goal_late``, ``post_for``, ``trade_post_for``), ``plan_turn``
and ``plan_other`` (its scores), each part gated by its own parameter
(``plan.PLANNER_PARAMS``), so that with all of them 0 every score and goal is
the one of behaviour v2 and the same random draws are made
(tests/mournequest/test_planner.py). With them: the Key Stone posts assigned as a team,
the Granite kept for repairs, Trading Posts, passes, Talismans, Skills and
what a late draw or Relic is worth (``draw_value``, ``relic_value``,
``team_value``).
"""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .core import (ability_total, charms_held, db, disc_occupied, enemies_in_play, first_hero_at, hb, life_left,
                   moon_colour, nb, nightmare_at, xb)
from .layout import pass_hero, pass_slot, relic_trade_count, sub_owner, sub_target
from .odds import p_attack
from .plan import (PP_LATE, PP_PASSES, PP_POST, PP_PREPARE, PP_REPAIR, PP_SKILLS, PP_TALISMAN, PP_TRADE,
                   disc_missing, hero_dist, moon_left, on, param)
from .scores import INF, goal_space, nearest_of, team_needs, win_chance

NO_OPINION = -2          # plan_goal_late: no goal of its own; v2's planning decides
UNGUARDED = 50           # assignment cost of a section left without a guard ...
UNGUARDED_DAMAGED = 6    # ... and extra when it is damaged (v2's guard_post weight)
GRANITE_AT_DAMAGE = 3    # steps a Granite carrier is worth at a damaged section


@kernel
def turns_left(s, T, h):
    """Turns hero ``h`` still begins before the Shimnavore appears, its
    current turn included while it plays (one moon step per hero turn, in
    seat order; 0 once the Final Battle is triggered)."""
    ml = moon_left(s, T)
    nh = s[L.G_NHEROES]
    cur = s[L.G_CUR]
    off = (h - cur) % nh if cur >= 0 else h
    if off >= ml:
        return 0
    return (ml - 1 - off) // nh + 1


@kernel
def origin(s, T, h):
    """Where hero ``h``'s way starts: its space, or from a Disc its Key Stone
    (distances from a Disc add ``hero_dist``'s 2)."""
    pos = s[hb(h) + L.H_POS]
    if T[TB.O_KIND + pos] == L.K_DISC:
        return T[TB.O_KEYSTONE + T[TB.O_COMPASS + pos]]
    return pos


@kernel
def nearest_kind(T, pos, kind):
    """The space of ``kind`` nearest to ``pos`` (hero distance), or -1."""
    best = -1
    for sp in range(T[TB.P_N_SPACES]):
        if T[TB.O_KIND + sp] == kind and (best < 0 or T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + best]):
            best = sp
    return best


@inlined
def post_cost(s, T, g, d, fb):
    """``_post_cost`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _post_cost(s, T, np.int64(g), np.int64(d), np.bool_(fb))


@kernel
def _post_cost(s, T, g, d, fb):
    """Steps for hero ``g`` to hold the Key Stone of direction ``d``, less
    ``GRANITE_AT_DAMAGE`` in the Final Battle for a hero carrying the Granite
    to rebuild that damaged section."""
    c = hero_dist(s, T, g, T[TB.O_KEYSTONE + d])
    if fb and s[L.G_WALL + d] == 1 and s[hb(g) + L.H_CH] >= T[TB.P_GRANITE_FOR_REPAIR]:
        c -= GRANITE_AT_DAMAGE
    return c


@inlined
def post_for(s, T, h, fb, pp):
    """``_post_for`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _post_for(s, T, np.int64(h), np.bool_(fb), pp)


@kernel
def _post_for(s, T, h, fb, pp):
    """The Key Stone (space) hero ``h`` holds, or -1 (part ``post``).

    Every assignment of heroes to Key Stones that covers as many sections as
    there are heroes free is tried (at most 4! = 24, ``cheapest_posts``); the
    cheapest covers damaged sections first, in the fewest steps. Before the
    Final Battle (``fb`` False) only Key Stones in front of
    empty Discs count: an emerging Nightmare knocks a hero there back to its
    Start Point (MQ-FINAL-04). In it a section with a Nightmare on its Key
    Stone needs no guard, for the Shimnavore does not attack there
    (MQ-FINAL-16). A hero on one life point goes to heal and is left out.
    Unlike v2's ``guard_post`` (seat order, each hero in turn taking the best
    free Key Stone) a hero already holding a Key Stone keeps it unless
    moving covers more."""
    nh = s[L.G_NHEROES]
    allowed, unc = posts_to_guard(s, T, fb)
    if allowed == 0:
        return -1
    busy = 0
    for g in range(nh):
        if life_left(s, T, g) <= 1:
            busy |= 1 << g
    if (busy >> h) & 1:
        return -1
    r0, r1, r2, r3 = post_costs(s, T, nh, fb)
    # int64, not the literal 0 ``busy`` starts as: numba would compile cheapest_posts for both
    mine = cheapest_posts(h, nh, allowed, np.int64(busy), unc, r0, r1, r2, r3)
    return T[TB.O_KEYSTONE + mine] if mine >= 0 else -1


@kernel
def posts_to_guard(s, T, fb):
    """``_post_for``'s Key Stones to guard, as bits by direction (in the Final
    Battle, ``fb``, those without a Nightmare on them; before it, those in
    front of an empty Disc), and what leaving each unguarded costs."""
    allowed = 0
    unc0 = 0
    unc1 = 0
    unc2 = 0
    unc3 = 0
    for d in range(4):
        ks = T[TB.O_KEYSTONE + d]
        if fb:
            ok = nightmare_at(s, ks) < 0
            u = UNGUARDED + UNGUARDED_DAMAGED * s[L.G_WALL + d]
        else:
            ok = not disc_occupied(s, d)
            u = UNGUARDED
        if ok:
            allowed |= 1 << d
            if d == 0:
                unc0 = u
            elif d == 1:
                unc1 = u
            elif d == 2:
                unc2 = u
            else:
                unc3 = u
    return allowed, (unc0, unc1, unc2, unc3)


@kernel
def post_costs(s, T, nh, fb):
    """``_post_for``'s steps (``post_cost``) for each of the ``nh`` heroes to
    each Key Stone, a tuple by direction per hero (a seat beyond ``nh``
    repeats hero 0's)."""
    r0 = (post_cost(s, T, 0, 0, fb), post_cost(s, T, 0, 1, fb), post_cost(s, T, 0, 2, fb), post_cost(s, T, 0, 3, fb))
    r1 = r0
    r2 = r0
    r3 = r0
    if nh > 1:
        r1 = (post_cost(s, T, 1, 0, fb), post_cost(s, T, 1, 1, fb), post_cost(s, T, 1, 2, fb), post_cost(s, T, 1, 3, fb))
    if nh > 2:
        r2 = (post_cost(s, T, 2, 0, fb), post_cost(s, T, 2, 1, fb), post_cost(s, T, 2, 2, fb), post_cost(s, T, 2, 3, fb))
    if nh > 3:
        r3 = (post_cost(s, T, 3, 0, fb), post_cost(s, T, 3, 1, fb), post_cost(s, T, 3, 2, fb), post_cost(s, T, 3, 3, fb))
    return r0, r1, r2, r3


@kernel
def cheapest_posts(h, nh, allowed, busy, unc, r0, r1, r2, r3):
    """``_post_for``'s search: the direction of the Key Stone hero ``h`` holds
    in the cheapest assignment of the free heroes (not in ``busy``) to the
    Key Stones in ``allowed`` (costs ``r0..r3`` by hero, ``unc`` for a
    section left unguarded), or -1 for none."""
    # a free hero left out, or a section left unguarded, costs UNGUARDED (far
    # more than any way on the board): the best assignment covers
    # min(free heroes, sections to guard), so only those are tried
    nfree = 0
    for g in range(nh):
        if not (busy >> g) & 1:
            nfree += 1
    nallow = (allowed & 1) + ((allowed >> 1) & 1) + ((allowed >> 2) & 1) + ((allowed >> 3) & 1)
    idle = nfree - nallow if nfree > nallow else 0   # free heroes who get no Key Stone
    lo0 = -1 if (busy & 1) or idle > 0 else 0
    best = INF
    mine = -1
    for a0 in range(lo0 if nh > 0 else -1, 4 if nh > 0 and not busy & 1 else 0):
        if a0 >= 0 and not (allowed >> a0) & 1:
            continue
        u0 = (1 << a0) if a0 >= 0 else 0
        c0 = r0[a0] if a0 >= 0 else 0
        i0 = 1 if a0 < 0 and not busy & 1 else 0
        for a1 in range(-1, 4 if nh > 1 and not (busy >> 1) & 1 else 0):
            if a1 >= 0 and (not (allowed >> a1) & 1 or (u0 >> a1) & 1):
                continue
            i1 = i0 + (1 if a1 < 0 and nh > 1 and not (busy >> 1) & 1 else 0)
            if i1 > idle:
                continue
            u1 = u0 | ((1 << a1) if a1 >= 0 else 0)
            c1 = c0 + (r1[a1] if a1 >= 0 else 0)
            for a2 in range(-1, 4 if nh > 2 and not (busy >> 2) & 1 else 0):
                if a2 >= 0 and (not (allowed >> a2) & 1 or (u1 >> a2) & 1):
                    continue
                i2 = i1 + (1 if a2 < 0 and nh > 2 and not (busy >> 2) & 1 else 0)
                if i2 > idle:
                    continue
                u2 = u1 | ((1 << a2) if a2 >= 0 else 0)
                c2 = c1 + (r2[a2] if a2 >= 0 else 0)
                for a3 in range(-1, 4 if nh > 3 and not (busy >> 3) & 1 else 0):
                    if a3 >= 0 and (not (allowed >> a3) & 1 or (u2 >> a3) & 1):
                        continue
                    i3 = i2 + (1 if a3 < 0 and nh > 3 and not (busy >> 3) & 1 else 0)
                    if i3 != idle:
                        continue
                    used = u2 | ((1 << a3) if a3 >= 0 else 0)
                    total = c2 + (r3[a3] if a3 >= 0 else 0)
                    for d in range(4):
                        if (allowed >> d) & 1 and not (used >> d) & 1:
                            total += unc[d]
                    if total < best:
                        best = total
                        mine = a0 if h == 0 else (a1 if h == 1 else (a2 if h == 2 else a3))
    return mine


@kernel
def charm_work(s, T, h):
    """Hero ``h`` still has charm work before the Final Battle: a Disc still
    turning misses charms the team does not carry, or ``h`` carries one a
    Disc still needs."""
    need = team_needs(s, T)
    if need[0] > 0 or need[1] > 0 or need[2] > 0 or need[3] > 0:
        return True
    o = hb(h)
    for d in range(4):
        if s[db(d) + L.D_STATE] == L.DS_ON:
            for t in range(4):
                if s[o + L.H_CH + t] > 0 and disc_missing(s, T, d, t) > 0:
                    return True
    return False


@kernel
def reserving_granite(s, T, h, pp):
    """Hero ``h`` keeps Granite to rebuild the wall (part ``repair``): in the
    Final Battle, and in its last ``repair`` turns before it once no charm
    work is left for it."""
    if not on(pp, PP_REPAIR):
        return False
    if s[L.G_FINAL] != L.FB_NONE:
        return True
    return turns_left(s, T, h) <= pp[PP_REPAIR] and not charm_work(s, T, h)


@kernel
def granite_goal(s, T, h, pp):
    """The Granite cache if hero ``h`` should fill its backpack with Granite
    for repairs now (and there is Granite to take), else -1."""
    if not reserving_granite(s, T, h, pp):
        return -1
    held = s[hb(h) + L.H_CH]
    g = T[TB.P_GRANITE_FOR_REPAIR]
    if held >= g or s[L.G_POOL_CHARMS] < g - held:
        return -1
    return T[TB.O_CACHE_OF + 0]


@kernel
def draw_value(s, T, h):
    """Expected ability points hero ``h`` gains by drawing the top face-down
    Equipment card. The players know which cards are face down, not their
    order: every one is equally likely. A card adds what it beats the card
    held for its ability by; a Hag costs what it takes (a life point counts
    2, the best card its value, each charm held 0.5, a Disc click 1 while a
    Disc is turning)."""
    n = s[L.G_EQ_N]
    if n == 0:
        return -1.0 * INF
    o = hb(h)
    best_card = 0
    for a in range(3):
        c = s[o + L.H_EQ + a]
        if c >= 0:
            best_card = max(best_card, T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE])
    turning = False
    for d in range(4):
        if s[db(d) + L.D_STATE] == L.DS_ON:
            turning = True
    tot = 0.0
    for i in range(n):
        c = s[L.G_EQ_DECK + i]
        a = T[TB.O_CARDS + c * TB.CARD_W + TB.CD_ABILITY]
        if a >= 0:
            cur = s[o + L.H_EQ + a]
            cv = T[TB.O_CARDS + cur * TB.CARD_W + TB.CD_VALUE] if cur >= 0 else 0
            tot += max(0, T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] - cv)
        else:
            e = T[TB.O_CARDS + c * TB.CARD_W + TB.CD_HAG]
            kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
            amt = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT]
            if kind == L.EK_WOUND:
                tot -= 2.0 * amt
            elif kind == L.EK_LOSE_EQUIPMENT:
                tot -= best_card
            elif kind == L.EK_LOSE_CHARM:
                tot -= 0.5 * min(amt, charms_held(s, h))
            elif kind == L.EK_ROTATE_DISC and turning:
                tot -= 1.0
    return tot / n


@kernel
def relic_value(s, T):
    """What drawing the top Relic is worth, in the ability points of
    ``draw_value``: every card still in the deck equally likely, a good one
    worth 2, a sabotaged one -2 (the players know which cards are left, not
    their order)."""
    n = s[L.G_RELIC_N]
    if n == 0:
        return -1.0 * INF
    tot = 0.0
    for i in range(n):
        r = s[L.G_RELIC_DECK + i]
        tot += -2.0 if T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_SABOTAGED] == 1 else 2.0
    return tot / n


@kernel
def team_value(s, T):
    """The team's strength for the Final Battle: for each ability the best
    hero's chance to beat the Shimnavore (Grey Moon values) with the dice it
    will have (at least three), plus half the heroes' mean chance on the
    Shimnavore's strongest ability, which they defend on."""
    pool = max(s[L.G_POOL], min(3, T[TB.P_MAX_COMBAT_DICE]))
    nh = s[L.G_NHEROES]
    v = 0.0
    strongest = 0
    for a in range(3):
        if T[TB.O_ENEMY + L.ENEMY_SHIM * TB.ENEMY_W + L.GREY * TB.ABIL_W + a] > T[TB.O_ENEMY + L.ENEMY_SHIM * TB.ENEMY_W + L.GREY * TB.ABIL_W + strongest]:
            strongest = a
    for a in range(3):
        tgt = T[TB.O_ENEMY + L.ENEMY_SHIM * TB.ENEMY_W + L.GREY * TB.ABIL_W + a]
        best = 0.0
        for g in range(nh):
            p = p_attack(T, pool, tgt - ability_total(s, T, g, a), False)
            best = max(best, p)
            if a == strongest:
                v += 0.5 * p / nh
        v += best
    return v


@kernel
def pass_gain(s, T, h, g, a):
    """How much ``team_value`` changes if hero ``h`` passes its card under
    ability ``a`` to hero ``g`` (who equips it only if it beats its own)."""
    before = team_value(s, T)
    c = s[hb(h) + L.H_EQ + a]
    cur = s[hb(g) + L.H_EQ + a]
    s[hb(h) + L.H_EQ + a] = -1
    if cur < 0 or T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] > T[TB.O_CARDS + cur * TB.CARD_W + TB.CD_VALUE]:
        s[hb(g) + L.H_EQ + a] = c
    after = team_value(s, T)
    s[hb(h) + L.H_EQ + a] = c
    s[hb(g) + L.H_EQ + a] = cur
    return after - before


@kernel
def trade_post_for(s, T, h, d):
    """The nearest Trading Post if hero ``h`` holds two identical charms no
    Disc needs from it and Disc ``d`` (any Disc when ``d`` < 0: the team's
    targeting, ``assign`` 0) misses a charm it does not carry, else -1 (part
    ``trade``, MQ-ACT-07)."""
    o = hb(h)
    need = team_needs(s, T)
    spare = False
    for a in range(4):
        if s[o + L.H_CH + a] >= 2 and need[a] < 0 and (d < 0 or disc_missing(s, T, d, a) == 0):
            spare = True
    if not spare:
        return -1
    for b in range(4):
        if ((d < 0 or disc_missing(s, T, d, b) > s[o + L.H_CH + b]) and s[L.G_POOL_CHARMS + b] > 0
                and need[b] > 0):
            return nearest_kind(T, origin(s, T, h), L.K_POST)
    return -1


@kernel
def pass_target(s, T, h, least):
    """The space of a hero to whom ``h`` should bring a card (a pass worth at
    least ``least`` of ``team_value``), or -1."""
    best = -1
    bv = least
    for g in range(s[L.G_NHEROES]):
        if g == h or on_disc_(s, T, g):
            continue
        for a in range(3):
            if s[hb(h) + L.H_EQ + a] >= 0:
                v = pass_gain(s, T, h, g, a)
                if v > bv:
                    bv = v
                    best = s[hb(g) + L.H_POS]
    return best


@kernel
def on_disc_(s, T, g):
    """Hero ``g`` stands on a Nightmare Disc (knocked back, MQ-MOVE-14)."""
    return T[TB.O_KIND + s[hb(g) + L.H_POS]] == L.K_DISC


@kernel
def plan_goal_late(s, T, h, pp, d):
    """The goal of the parts ``post``, ``repair`` and ``late`` before the
    Final Battle, or ``NO_OPINION`` (v2's planning goes on).

    - post: leave for the Key Stone to hold in the Final Battle when the turns
      left could no longer cover the way (finishing a cast-out within reach,
      or taking a card at a Nexus on the way, first);
    - repair: in the last ``repair`` turns, with no charm work left, fill the
      backpack with Granite to rebuild the wall;
    - late: once no Disc needs charms, heal, collect a Pot within reach, pass a
      card a team-mate needs, gear up while a draw is worth ``late`` ability
      points, trade charms for Relics (part ``trade``), take the Granite, and
      wait on the post."""
    o = hb(h)
    pos = origin(s, T, h)
    mt = turns_left(s, T, h)
    post = -1
    if on(pp, PP_POST) and mt <= 4:
        post = post_for(s, T, h, False, pp)
        if post >= 0:
            dp = hero_dist(s, T, h, post)
            if dp > 3 * (mt - 1) or moon_left(s, T) <= param(pp, PP_PREPARE, 1.0) * s[L.G_NHEROES]:
                g = goal_space(s, T, h)
                if g >= 0 and T[TB.O_KIND + g] == L.K_KEYSTONE and hero_dist(s, T, h, g) <= 2:
                    dd = T[TB.O_COMPASS + g]
                    if s[db(dd) + L.D_STATE] == L.DS_ON:
                        return g        # finish a cast-out within reach first
                budget = s[L.G_ACTS] + 3 * (mt - 1)
                for a in range(3):
                    if s[o + L.H_EQ + a] < 0 and s[L.G_EQ_N] > 0:
                        nx = nearest_of(T, pos, TB.O_NEXUS)
                        if hero_dist(s, T, h, nx) + T[TB.O_DIST_H + nx * TB.DIST_W + post] <= budget and hero_dist(s, T, h, nx) > 0:
                            return nx   # a card on the way
                return post
    work = charm_work(s, T, h)
    if work and d >= 0:
        return NO_OPINION
    gc = granite_goal(s, T, h, pp)
    if gc >= 0 and not work:
        return gc
    if not on(pp, PP_LATE):
        return NO_OPINION
    # late: no Disc needs charms any more (from this hero, or at all)
    if work:
        return NO_OPINION
    if s[o + L.H_WOUNDS] > 0:
        st = nearest_of(T, pos, TB.O_START)
        if life_left(s, T, h) <= 2 or T[TB.O_DIST_H + pos * TB.DIST_W + st] <= 2:
            return st
    bp = -1
    for c in range(4):
        if s[xb(c) + L.X_POT] == 1:
            sp = T[TB.O_CROSSROADS + c]
            if T[TB.O_DIST_H + pos * TB.DIST_W + sp] <= 3 and (bp < 0 or T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + bp]):
                bp = sp
    if bp >= 0:
        return bp
    if on(pp, PP_PASSES):
        pt = pass_target(s, T, h, 0.05 * pp[PP_PASSES])
        if pt >= 0:
            return pt
    if s[L.G_EQ_N] > 0 and draw_value(s, T, h) >= pp[PP_LATE]:
        return nearest_of(T, pos, TB.O_NEXUS)
    if relic_farming(s, T, h, pp):
        if charms_held(s, h) >= 3:
            return nearest_kind(T, pos, L.K_POST)
        # fetch charms to trade: the nearest cache with charms in the pool
        cb = -1
        for t in range(4):
            if s[L.G_POOL_CHARMS + t] > 0:
                sp = T[TB.O_CACHE_OF + t]
                if cb < 0 or T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + cb]:
                    cb = sp
        if cb >= 0:
            return cb
    if on(pp, PP_REPAIR):
        held = s[o + L.H_CH]
        if held < T[TB.P_GRANITE_FOR_REPAIR] and s[L.G_POOL_CHARMS] >= T[TB.P_GRANITE_FOR_REPAIR] - held:
            return T[TB.O_CACHE_OF + 0]
    if on(pp, PP_POST):
        if post < 0:
            post = post_for(s, T, h, False, pp)
        if post >= 0:
            return post
    return NO_OPINION


@kernel
def relic_farming(s, T, h, pp):
    """Parts ``late`` and ``trade``: with no charm work left, no Nightmare on
    the board and turns to spare before the Granite errand, hero ``h`` turns
    charms into Relics at a Trading Post (three charms a Relic, MQ-ACT-08)."""
    if not (on(pp, PP_TRADE) and on(pp, PP_LATE)) or s[L.G_FINAL] != L.FB_NONE or s[L.G_RELIC_N] == 0:
        return False
    for k in range(4):
        if s[nb(k) + L.NM_POS] >= 0:
            return False    # not while a Nightmare hunts on the board
    if on(pp, PP_REPAIR) and turns_left(s, T, h) <= pp[PP_REPAIR] + 1:
        return False
    return not charm_work(s, T, h)


@kernel
def shim_strongest(s, T):
    """The ability the Shimnavore attacks a guard with now (MQ-FINAL-16,
    MQ-GAP-31/32): its strongest not yet beaten twice."""
    mc = moon_colour(s, T)
    best = -1
    for a in range(3):
        if T[TB.P_SHIMNAVORE_SKIPS_BEATEN] == 1 and s[L.G_SHIM_WOUNDS + a] >= T[TB.P_SHIMNAVORE_WINS_PER_ABILITY]:
            continue
        if best < 0 or T[TB.O_ENEMY + L.ENEMY_SHIM * TB.ENEMY_W + mc * TB.ABIL_W + a] > T[TB.O_ENEMY + L.ENEMY_SHIM * TB.ENEMY_W + mc * TB.ABIL_W + best]:
            best = a
    return 0 if best < 0 else best


@kernel
def compass_harm(s, T, f):
    """What a Final Battle compass result is expected to cost (in share of a
    lost game): an empty section is hit on two faces in three, fatal when
    already damaged (MQ-FINAL-14/19); a guard who loses its defence loses a
    life point, fatal on its last (any Fail loses a defence: the attack odds
    are scaled down); a Mighty Howl opens every guarded section for a while."""
    if f == L.FACE_BLANK:
        return 0.0
    if f == L.FACE_STAR:
        k = 0
        for g in range(s[L.G_NHEROES]):
            if T[TB.O_KIND + s[hb(g) + L.H_POS]] == L.K_KEYSTONE:
                k += 1
        return 0.05 * k
    ks = T[TB.O_KEYSTONE + f]
    if nightmare_at(s, ks) >= 0:
        return 0.0
    g = first_hero_at(s, ks)
    if g >= 0:
        p = 0.7 * win_chance(s, T, g, L.ENEMY_SHIM, shim_strongest(s, T))
        return (1.0 - p) * (1.0 if life_left(s, T, g) <= 1 else 0.2)
    return 0.67 * (1.0 if s[L.G_WALL + f] == 1 else 0.3)


# called from the scoring loops only for the actions it may change (not
# moves, attacks or ending the turn, the bulk of the choices)
@kernel
def plan_turn(s, T, h, op, arg, goal, pp, need, v):
    """The planner's score of turn action ``op``/``arg``: greedy's score ``v``
    changed by the parts that are on (``v`` itself when they are all off)."""
    if op == L.A_PASS:
        if on(pp, PP_PASSES):
            # an action is spare once the charm work is done, or in the Final
            # Battle once the hero has attacked the Shimnavore
            if s[L.G_FINAL] == L.FB_RUNNING:
                if s[L.G_SHIM_ATTACKED] == 0 and enemies_in_play(s) == 0:
                    return -1.0
            elif charm_work(s, T, h):
                return -1.0
            gain = pass_gain(s, T, h, pass_hero(arg), pass_slot(arg))
            return 2.0 + 40.0 * gain if gain > 0.02 * pp[PP_PASSES] else -1.0
    elif op == L.A_DRAW_EQ:
        if on(pp, PP_LATE):
            return 5.0 if draw_value(s, T, h) >= pp[PP_LATE] else -1.0
    elif op == L.A_PICKUP:
        if on(pp, PP_REPAIR) and T[TB.O_CHARM + s[hb(h) + L.H_POS]] == 0 and granite_goal(s, T, h, pp) >= 0:
            k = T[TB.P_GRANITE_FOR_REPAIR] - s[hb(h) + L.H_CH]
            return 6.0 + min(arg, k) - 0.5 * max(0, arg - k)
        if relic_farming(s, T, h, pp):
            return 6.0 + arg    # charms to trade for a Relic
    elif op == L.A_DISCARD_CHARM:
        if on(pp, PP_REPAIR):
            if arg == 0:
                if s[hb(h) + L.H_CH] <= T[TB.P_GRANITE_FOR_REPAIR] and reserving_granite(s, T, h, pp):
                    return -1.0
            elif (s[hb(h) + L.H_POS] == T[TB.O_CACHE_OF + 0] and need[arg] <= 0
                    and charms_held(s, h) >= T[TB.P_BACKPACK] and granite_goal(s, T, h, pp) >= 0):
                return 6.0      # make room for Granite
    elif op == L.A_TRADE_RELIC:
        if on(pp, PP_REPAIR) and reserving_granite(s, T, h, pp) and relic_trade_count(arg, 0) > 0:
            return -1.0
        if on(pp, PP_TRADE) and not charm_work(s, T, h):
            return 6.0
    elif op == L.A_RELIC or op == L.A_SKILL:
        if on(pp, PP_SKILLS) or on(pp, PP_REPAIR):
            if op == L.A_RELIC:
                e = T[TB.O_RELICS + sub_owner(arg) * TB.RELIC_W + TB.RL_EFFECT]
            else:
                e = T[TB.O_HERO_SKILL + (s[hb(sub_owner(arg)) + L.H_ID])]
            kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
            if kind == L.EK_EXTRA_ACTION and on(pp, PP_SKILLS):
                return 4.0 if extra_action_useful(s, T, h, goal, T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT]) else -5.0
            if kind == L.EK_GAIN_CHARM and on(pp, PP_REPAIR) and sub_target(arg) == 0 and granite_goal(s, T, h, pp) >= 0:
                return 5.0      # a Granite for the repair
    return v


@kernel
def extra_action_useful(s, T, h, goal, amt):
    """An extra-action Skill or Relic (``amt`` actions) is spent only when it
    buys something now (part ``skills``): before the Final Battle a deposit
    on the Key Stone it reaches, or the post in the hero's last turn; in it
    an attack on the Shimnavore, a repair, or reaching the post."""
    if s[L.G_ACTS] != 0 or s[L.G_TURN_OVER] != 0:
        return False
    o = hb(h)
    pos = s[o + L.H_POS]
    if goal < 0:
        return False
    dist = hero_dist(s, T, h, goal)
    if s[L.G_FINAL] == L.FB_RUNNING:
        if T[TB.O_KIND + pos] == L.K_KEYSTONE and s[L.G_SHIM_ATTACKED] == 0:
            if enemies_in_play(s) == 0:
                return True
            if s[L.G_WALL + T[TB.O_COMPASS + pos]] == 1 and s[o + L.H_CH] >= T[TB.P_GRANITE_FOR_REPAIR]:
                return True
        return dist >= 1 and dist <= amt
    if T[TB.O_KIND + goal] == L.K_KEYSTONE and dist + 1 <= amt:
        dd = T[TB.O_COMPASS + goal]
        if s[db(dd) + L.D_STATE] == L.DS_ON:
            for t in range(4):
                if s[o + L.H_CH + t] > 0 and disc_missing(s, T, dd, t) > 0:
                    return True
    return turns_left(s, T, h) <= 1 and dist >= 1 and dist <= amt


@kernel
def plan_other(s, T, h, op, arg, pp, v):
    """The planner's score of a decision outside the turn: greedy's score
    ``v`` changed by the parts that are on (``v`` when they are all off)."""
    if op == L.R_TALISMAN and on(pp, PP_TALISMAN):
        ctx = s[L.G_CTX]
        fb = s[L.G_FINAL] == L.FB_RUNNING
        if ctx == L.CTX_WALL:
            # a re-roll saves one hit in three: keep Talismans for a damaged
            # section, where the hit ends the game, unless several are left
            d = s[L.G_SHIM_FACING]
            return 1.0 if s[L.G_WALL + d] == 1 or s[L.G_TALISMANS] >= 3 else -1.0
        if ctx == L.CTX_COMPASS:
            f = s[L.G_CTX_ARG]
            if fb:
                # re-roll when this face costs more than a fresh roll would
                nf = T[TB.P_N_COMPASS_FACES]
                mean = 0.0
                for i in range(nf):
                    mean += compass_harm(s, T, T[TB.O_COMPASS_FACES + i])
                mean /= nf
                return 1.0 if compass_harm(s, T, f) - mean > 0.25 else -1.0
            # before the Final Battle never: a re-roll there saves at most a
            # Disc click or a token, while one kept for the Final Battle's
            # wall die can save the game (the part's ablation measures both)
            return -1.0
        if fb and (ctx == L.CTX_ATTACK or ctx == L.CTX_DEFENCE):
            # in combat keep one for the wall, unless this defence is for a life
            if ctx == L.CTX_DEFENCE and life_left(s, T, h) <= 1:
                return v
            return v if s[L.G_TALISMANS] >= 2 else -1.0
    elif op == L.A_LOSE_CHARM and on(pp, PP_REPAIR):
        if arg == 0 and reserving_granite(s, T, h, pp):
            return v - 10.0     # a Bogbean takes the other charms first
    elif (op == L.A_REWARD_EQUIPMENT or op == L.A_REWARD_RELIC or op == L.A_REWARD_DECLINED) and on(pp, PP_LATE):
        # a Louse Wort's card: whichever deck is worth more now, or none
        # when both would more likely hurt (MQ-COMBAT-19)
        if op == L.A_REWARD_EQUIPMENT:
            return draw_value(s, T, h)
        if op == L.A_REWARD_RELIC:
            return relic_value(s, T)
        return 0.0
    return v
