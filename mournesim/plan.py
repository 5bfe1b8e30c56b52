"""The planner's parameters and its plan of behaviour v2.

The planner (``policies.planner``) plays greedy's scores (``scores``) towards
a goal of its own (``policies.plan_goal``). This module holds its parameters
(``PLANNER_PARAMS`` and the ``PP_*`` indices into ``pp``, the shipped
defaults) and the team plan of behaviour v2: each hero works for one Disc
(``assigned_disc``), gears up before the Shimnavore and waits on a Key Stone
(``prepare_post``), and holds one in the Final Battle (``guard_post``); with
the small helpers the parts of behaviour v3 (``plan_parts``) share: a parameter
with its default (``param``, ``on``), a hero's steps to a space
(``hero_dist``), a Disc's missing charms, the turns left before the Shimnavore.
"""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .core import db, disc_occupied, hb
from .scores import INF

# the planner's parameters (docs/mournequest/policies.md), by index into ``pp``. The
# first five are the planner of behaviour v2; each later one switches on a
# part added in behaviour v3 (0 = off, so each part can be ablated and all of
# them at 0 replay the v2 planner game for game) and, where it has one, sets
# its threshold:
#   risk, charm_weight   greedy's: the win chance an attack needs, the weight
#                        of charm work against Equipment
#   assign               v2: each hero works for one Disc (1 most urgent
#                        first, 2 nearest to complete; 0 greedy's targeting)
#   talisman_reserve     v2: before the Final Battle a lost roll is accepted
#                        unless a life point that matters is at stake
#   prepare              v2: rounds before the Shimnavore when the team stops
#                        charm work and gears up
#   post       (switch)  Key Stone posts for the Final Battle assigned as a
#                        team (every assignment tried), damaged sections and a
#                        Granite carrier first, left for in time: the wall
#                        left unguarded lost v2 many games
#   repair     (turns)   in its last ``repair`` turns before the Final Battle
#                        a hero with no charm work left fills its backpack
#                        with Granite and keeps it, so a damaged section can be
#                        rebuilt (MQ-FINAL-20); v2 never did
#   trade      (switch)  Trading Posts (MQ-ACT-07/08): two spare charms for
#                        the one a Disc misses when a post is nearer than its
#                        cache, and idle heroes' charms for Relics
#   passes     (scale)   bring and pass Equipment to a team-mate when the
#                        team's chance against the Shimnavore rises by at
#                        least 0.02 × ``passes``; off by default: measured not
#                        to win more games (docs/mournequest/policies.md)
#   talisman   (switch)  Talismans weighed by what each re-roll saves: none on
#                        a Compass Die before the Final Battle, on a Final
#                        Battle compass face only when it is much worse than a
#                        fresh roll, on the wall die where a hit is fatal, in
#                        Final Battle combat only with one left for the wall
#   skills     (switch)  extra-action Skills and Relics spent only when the
#                        actions buy something now (v2 spent them at the start
#                        of any turn)
#   late       (points)  once no Disc needs charms, heroes heal, collect Pots,
#                        draw Equipment while a blind draw is worth ``late``
#                        ability points, turn charms into Relics, fetch Granite
#                        and wait on their posts, and a Louse Wort's card comes
#                        from the deck worth more
#   blunders   (switch)  none of the blunders the engine's audit sees
#                        (mournesim/audit.py, policies.without_blunders), and
#                        with ``repair`` a Granite carrier rebuilds a damaged
#                        section it can reach this turn before taking a post
PLANNER_PARAMS = ("risk", "charm_weight", "assign", "talisman_reserve", "prepare",
                  "post", "repair", "trade", "passes", "talisman", "skills", "late", "blunders")
# The defaults are v3's with ``risk`` 0.45, the one value of the tuning run
# experiments/mq-planner-tune.toml (NTBEA on Medium, behaviour v3) that
# holds at every level: its other two changes, ``assign`` 0 and ``passes``
# 1, won on Easy and Medium but lost 8 points on Difficult with four players
# (checked on paired games at every level before adopting; docs/mournequest/policies.md).
PLANNER_DEFAULTS = (0.45, 1.0, 1.0, 1.0, 1.0,
                    1.0, 3.0, 1.0, 0.0, 1.0, 1.0, 0.5, 1.0)
# the shipped planner defaults of behaviour v3 and v2 (paired comparisons, tests)
PLANNER_V3 = (0.55, 1.0, 1.0, 1.0, 1.0,
              1.0, 3.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.0)
PLANNER_V2 = PLANNER_V3[:5] + (0.0,) * 8
(PP_RISK, PP_CHARM_WEIGHT, PP_ASSIGN, PP_RESERVE, PP_PREPARE,
 PP_POST, PP_REPAIR, PP_TRADE, PP_PASSES, PP_TALISMAN, PP_SKILLS, PP_LATE, PP_BLUNDERS) = range(13)
NP_PLANNER = len(PLANNER_PARAMS)


@kernel
def guard_post(s, T, h):
    """The key stone hero ``h`` guards in the Final Battle: heroes in seat
    order each take a free key stone, damaged sections first, then the nearest
    (a hero on a disc counts as next to its own key stone)."""
    taken = 0
    for g in range(s[L.G_NHEROES]):
        best = -1
        bv = INF
        for d in range(4):
            if (taken >> d) & 1:
                continue
            v = hero_dist(s, T, g, T[TB.O_KEYSTONE + d]) - 6 * s[L.G_WALL + d]
            if v < bv:
                bv = v
                best = d
        taken |= 1 << best
        if g == h:
            return T[TB.O_KEYSTONE + best]
    return -1


@inlined
def param(pp, i, default):
    return pp[i] if pp.shape[0] > i else default


@kernel
def disc_missing(s, T, d, t):
    """Charms of type ``t`` disc ``d`` still needs to cast its Nightmare out."""
    k = s[db(d) + L.D_NM]
    return max(0, T[TB.O_NM_CHARMS + k * 4 + t] - s[db(d) + L.D_DEP + t])


@inlined
def hero_dist(s, T, g, sp):
    """``_hero_dist`` with one type per scalar argument: compiled once (simcore.jit)."""
    return _hero_dist(s, T, np.int64(g), np.int64(sp))


@kernel
def _hero_dist(s, T, g, sp):
    """Steps from hero ``g`` to space ``sp`` (from a Disc: 2 to its Key Stone)."""
    pos = s[hb(g) + L.H_POS]
    if T[TB.O_KIND + pos] == L.K_DISC:
        ks = T[TB.O_KEYSTONE + T[TB.O_COMPASS + pos]]
        return 2 + T[TB.O_DIST_H + ks * TB.DIST_W + sp]
    return T[TB.O_DIST_H + pos * TB.DIST_W + sp]


@kernel
def assigned_disc(s, T, h, mode):
    """The Disc hero ``h`` works for before the Final Battle, or -1.

    Discs still turning are taken most urgent first: fewest clicks left,
    then most charms missing. Each takes the free hero who is nearest to its
    Key Stone, counting charms the hero already carries for it as steps saved.
    With fewer heroes than discs the least urgent wait."""
    nh = s[L.G_NHEROES]
    dtaken = 0
    htaken = 0
    for _ in range(min(nh, 4)):
        best = -1
        bk = INF
        for d in range(4):
            if (dtaken >> d) & 1 or s[db(d) + L.D_STATE] != L.DS_ON:
                continue
            miss = 0
            for t in range(4):
                miss += disc_missing(s, T, d, t)
            if miss == 0:
                continue
            c = s[db(d) + L.D_CLICKS]
            key = miss * 16 + c if mode == 2 else c * 16 - miss
            if key < bk:
                bk = key
                best = d
        if best < 0:
            return -1
        dtaken |= 1 << best
        ks = T[TB.O_KEYSTONE + best]
        bh = -1
        bv = INF
        for g in range(nh):
            if (htaken >> g) & 1:
                continue
            v = hero_dist(s, T, g, ks)
            for t in range(4):
                v -= 3 * min(s[hb(g) + L.H_CH + t], disc_missing(s, T, best, t))
            if v < bv:
                bv = v
                bh = g
        htaken |= 1 << bh
        if bh == h:
            return best
    return -1


@kernel
def moon_left(s, T):
    """Hero turns left before the Shimnavore appears."""
    return T[TB.P_N_MOON_TRACK] * T[TB.P_MOON_CYCLES] - s[L.G_MOON_STEPS]


@inlined
def on(pp, i):
    """Planner part ``i`` is switched on: its parameter is given and above 0."""
    return pp.shape[0] > i and pp[i] > 0


@kernel
def prepare_post(s, T, h):
    """A Key Stone to wait on for the Final Battle: like ``guard_post`` but
    only in front of Discs whose Nightmare is gone (an emerging Nightmare
    knocks a hero back to its Start Point, MQ-FINAL-04)."""
    taken = 0
    for g in range(s[L.G_NHEROES]):
        best = -1
        bv = INF
        for d in range(4):
            if (taken >> d) & 1 or disc_occupied(s, d):
                continue
            v = hero_dist(s, T, g, T[TB.O_KEYSTONE + d])
            if v < bv:
                bv = v
                best = d
        if best < 0:
            return -1
        taken |= 1 << best
        if g == h:
            return T[TB.O_KEYSTONE + best]
    return -1
