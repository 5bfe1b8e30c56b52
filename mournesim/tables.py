"""Compile a validated ``Ruleset`` into the flat int32 array the numba engine reads.

The kernels take the whole rulebook as ONE int32 vector ``T`` whose sections
start at the fixed ``O_*`` offsets below (sizes bounded by the ``MAX_*``
limits the validator enforces). One flat array instead of a tuple of arrays
keeps numba's compile time and call overhead small: measured here, a
NamedTuple of 33 arrays took 4.5 minutes to compile and segfaulted when
loaded from the cache. Scalars and toggles sit at the ``P_*`` offsets at the
start. ``Tables`` (a NamedTuple of shaped arrays) is the same data for Python
code; ``Names`` keeps the names of spaces, heroes, cards for decoding logs.
"""
from __future__ import annotations

from collections import deque
from typing import NamedTuple

import math
import numpy as np

from . import layout as L
from .ruleset import ABILITIES, CHARMS, CORNERS, DIRS, Ruleset

# ---- scalar parameter offsets ---------------------------------------------------
_P = ("actions", "backpack", "life", "skill_uses", "minis", "bog_move", "nm_move", "max_dice",
      "compass_tokens", "cycles", "shim_wins", "charm_supply", "talismans", "pots",
      "bogs_per_level", "granite", "disc_return", "removed_tiles", "pregame_tiles",
      "solo_value", "cap_rounds", "moon_len", "n_spaces", "n_hero_defs", "n_cards",
      "n_relics", "n_tiles", "compass_nf",
      "t_first_turn_arrow", "t_enemies_use_tunnel", "t_star_roll_over", "t_escape_knocks_back",
      "t_shim_skips_beaten", "t_defend_with_courage", "t_defence_any_fail", "t_doubles_stack",
      "t_dandelion_beats_fumble", "t_enemy_on_hero_attacks", "t_bag_reuses", "t_partial_theft",
      "t_transition_enemy_phase", "t_pregame",
      *(f"clicks_{lv}_{p}" for lv in ("easy", "medium", "hard") for p in (1, 2, 3, 4)), "multi_easy", "multi_medium", "multi_hard", "start_dice",
      "t_nexus_standing", "t_level_per_trigger", "t_extra_die_any", "t_escape_round_active")
for _i, _n in enumerate(_P):
    globals()["P_" + _n.upper()] = _i
P_SIZE = len(_P)

MAX_S = 64          # spaces
MAX_HERO_DEFS = 16
MAX_EFFECTS = 96
MAX_CARDS = 40
MAX_RELICS = 32
MAX_TILES = 96
# exact attack odds by dice pool (see odds.attack_counts): for pool 0..4 and
# Blue Moon off/on, the winning face combinations for each needed value
# 0 .. ODDS_W-1 (target minus ability, clamped)
ODDS_W = 160
# Row widths of the tables in T: a kernel reads column c of row r of table X
# as T[O_X + r * X_W + c], with the column names below (or in layout: the
# effect columns EF_*, the tile columns TL_*).
DIST_W = MAX_S           # DIST_H, DIST_E: steps from each space to each space
DIE_W = 12               # DICE: the faces of one combat die (at most 12)
ABIL_W = 3               # HERO_ABIL: courage, strength, magic (and ENEMY's values per moon colour)
ENEMY_W = 4 * ABIL_W     # ENEMY: an enemy's values by moon colour (layout.GREEN ...) and ability
CARD_W = 3               # CARDS: the ability an Equipment card adds (-1: a Hag card), its value, a Hag card's effect
CD_ABILITY, CD_VALUE, CD_HAG = range(CARD_W)
RELIC_W = 2              # RELICS: the relic's effect, sabotaged (0/1)
RL_EFFECT, RL_SABOTAGED = range(RELIC_W)
LT_W = 2                 # LEVEL_TILES: a level's first encounter tile, and how many
LT_FIRST, LT_COUNT = range(LT_W)
_SECTIONS = (("P", 64), ("ADJ", MAX_S * 8), ("DEG", MAX_S), ("KIND", MAX_S), ("COMPASS", MAX_S),
             ("CHARM", MAX_S), ("ARROW", MAX_S), ("TUNNEL", MAX_S), ("BEARING", MAX_S),
             ("DIST_H", MAX_S * DIST_W), ("DIST_E", MAX_S * DIST_W), ("KEYSTONE", 4), ("DISC", 4),
             ("START", 4), ("NEXUS", 4), ("CROSSROADS", 4), ("SEAT_START", 4), ("CACHE_OF", 4),
             ("MOON", 64), ("DICE", 4 * DIE_W), ("DICE_NF", 4), ("COMPASS_FACES", 12),
             ("HERO_ABIL", MAX_HERO_DEFS * ABIL_W), ("HERO_SKILL", MAX_HERO_DEFS),
             ("EFFECTS", MAX_EFFECTS * L.EF_COLS), ("CARDS", MAX_CARDS * CARD_W), ("RELICS", MAX_RELICS * RELIC_W),
             ("TILES", MAX_TILES * L.TL_COLS), ("LEVEL_TILES", 3 * LT_W), ("ENEMY", L.ENEMY_ROWS * ENEMY_W), ("WINS_NEEDED", 3),
             ("NM_CHARMS", 16), ("NM_POWER", 4), ("ODDS", 5 * 2 * ODDS_W), ("ODDS_TOTAL", 5))
_o = 0
for _name, _size in _SECTIONS:
    globals()["O_" + _name] = _o
    _o += _size
T_SIZE = _o


class Tables(NamedTuple):
    """The compiled rules as shaped arrays, for Python code (see module docstring)."""
    P: np.ndarray            # int32[P_SIZE] scalars and toggles
    adj: np.ndarray          # int32[S, 8] neighbours (-1 padded)
    deg: np.ndarray          # int32[S]
    kind: np.ndarray         # int32[S] space kind
    compass: np.ndarray      # int32[S] direction/corner index or -1
    charm: np.ndarray        # int32[S] cache charm type or -1
    arrow: np.ndarray        # int32[S] first-move target of a start space or -1
    tunnel: np.ndarray       # int32[S] other tunnel end or -1
    bearing: np.ndarray      # int32[S] clockwise angle from north, centi-degrees
    dist_h: np.ndarray       # int32[S, S] hero distances (tunnel free)
    dist_e: np.ndarray       # int32[S, S] enemy distances
    keystone: np.ndarray     # int32[4] by direction
    disc: np.ndarray         # int32[4] disc space by direction
    start: np.ndarray        # int32[4] start space by direction
    nexus: np.ndarray        # int32[4] by corner
    crossroads: np.ndarray   # int32[4] by corner
    seat_start: np.ndarray   # int32[4]
    cache_of: np.ndarray     # int32[4] cache space by charm type
    moon: np.ndarray         # int32[moon_len] colour codes
    dice: np.ndarray         # int32[4, 12] combat die faces, level order
    dice_nf: np.ndarray      # int32[4]
    compass_faces: np.ndarray  # int32[12]
    hero_abil: np.ndarray    # int32[H, 3]
    hero_skill: np.ndarray   # int32[H] effect index
    effects: np.ndarray      # int32[E, EF_COLS]
    cards: np.ndarray        # int32[C, 3] ability (-1 hag), value, hag effect index
    relics: np.ndarray       # int32[R, 2] effect index, sabotaged
    tiles: np.ndarray        # int32[T, TL_COLS]
    level_tiles: np.ndarray  # int32[3, 2] first tile index and count per level
    enemy: np.ndarray        # int32[ENEMY_ROWS, 4, 3] values by moon colour
    wins_needed: np.ndarray  # int32[3] bogbean wins per level
    nm_charms: np.ndarray    # int32[4, 4] charms required per nightmare
    nm_power: np.ndarray     # int32[4] effect index
    odds: np.ndarray         # int32[5, 2, ODDS_W] winning attack rolls by pool, blue, needed value
    odds_total: np.ndarray   # int32[5] face combinations rolled by pool


class Names(NamedTuple):
    """Human names for decoding (not passed to numba)."""
    spaces: list
    heroes: list
    skills: list
    cards: list
    relics: list
    nightmares: list
    effects: list
    tiles: list


_FACE = {"fail": L.FACE_FAIL, "double": L.FACE_DOUBLE, "dandelion": L.FACE_DANDELION}
_COMPASS = {"N": 0, "E": 1, "S": 2, "W": 3, "star": L.FACE_STAR, "blank": L.FACE_BLANK}
_COLOUR = {"G": L.GREEN, "M": L.GREY, "R": L.RED, "B": L.BLUE}


def _bfs(n, edges, zero_pairs=()):
    """All-pairs shortest path lengths; ``zero_pairs`` are free (0-cost) links."""
    INF = 10 ** 6
    nbr = [[] for _ in range(n)]
    for a, b in edges:
        nbr[a].append((b, 1))
        nbr[b].append((a, 1))
    for a, b in zero_pairs:
        nbr[a].append((b, 0))
        nbr[b].append((a, 0))
    out = np.full((n, n), INF, dtype=np.int32)
    for src in range(n):
        d = out[src]
        d[src] = 0
        dq = deque([src])
        while dq:
            u = dq.popleft()
            for v, w in nbr[u]:
                if d[u] + w < d[v]:
                    d[v] = d[u] + w
                    if w == 0:
                        dq.appendleft(v)
                    else:
                        dq.append(v)
    return out


def _effect_row(e):
    return [L.EFFECT_KINDS.index(e.kind), e.amount, L.TARGETS.index(e.target), L.WHEN.index(e.when), e.range]


def flatten(tab: Tables):
    """Pack ``Tables`` into the flat int32 vector the kernels read."""
    T = np.zeros(T_SIZE, np.int32)
    for name, _size in _SECTIONS:
        arr = np.ascontiguousarray(getattr(tab, "P" if name == "P" else name.lower())).ravel()
        o = globals()["O_" + name]
        if name in ("DIST_H", "DIST_E"):
            S = getattr(tab, name.lower()).shape[0]
            full = np.full((MAX_S, MAX_S), 1000000, np.int32)
            full[:S, :S] = getattr(tab, name.lower())
            arr = full.ravel()
        if name in ("ADJ",):
            full = np.full((MAX_S, 8), -1, np.int32)
            a = getattr(tab, "adj")
            full[: a.shape[0]] = a
            arr = full.ravel()
        T[o:o + arr.size] = arr
    return T


def compile_tables(rs: Ruleset):
    """Build (flat T, Tables, Names) from a validated ruleset, the combat
    odds sections still empty: ``odds.with_attack_counts`` counts them with
    the engine's own dice scoring (``sim.prepare`` does both), so this
    module imports no kernel."""
    sp_names = list(rs.board.spaces)
    idx = {n: i for i, n in enumerate(sp_names)}
    S = len(sp_names)
    adj = np.full((S, 8), -1, np.int32)
    deg = np.zeros(S, np.int32)
    edges = []
    for p in rs.board.paths:
        a, _, b = p.partition("-")
        a, b = idx[a], idx[b]
        edges.append((a, b))
        for u, v in ((a, b), (b, a)):
            if v not in adj[u, : deg[u]]:
                adj[u, deg[u]] = v
                deg[u] += 1
    kind = np.zeros(S, np.int32)
    compass = np.full(S, -1, np.int32)
    charm = np.full(S, -1, np.int32)
    arrow = np.full(S, -1, np.int32)
    tunnel = np.full(S, -1, np.int32)
    bearing = np.zeros(S, np.int32)
    keystone = np.zeros(4, np.int32)
    disc = np.zeros(4, np.int32)
    start = np.zeros(4, np.int32)
    nexus = np.zeros(4, np.int32)
    crossroads = np.zeros(4, np.int32)
    cache_of = np.zeros(4, np.int32)
    for name, sp in rs.board.spaces.items():
        i = idx[name]
        kind[i] = L.KIND_NAMES.index(sp.kind)
        x, y = sp.at
        bearing[i] = int(round((math.degrees(math.atan2(x, y)) % 360.0) * 100))
        if sp.compass is not None:
            c = DIRS.index(sp.compass) if sp.compass in DIRS else CORNERS.index(sp.compass)
            compass[i] = c
            {"keystone": keystone, "disc": disc, "start": start, "nexus": nexus,
             "crossroads": crossroads}.get(sp.kind, np.zeros(4, np.int32))[c] = i
        if sp.charm is not None:
            charm[i] = CHARMS.index(sp.charm)
            cache_of[charm[i]] = i
        if sp.arrow is not None:
            arrow[i] = idx[sp.arrow]
    t0, t1 = idx[rs.board.tunnel[0]], idx[rs.board.tunnel[1]]
    tunnel[t0], tunnel[t1] = t1, t0
    dist_h = _bfs(S, edges, [(t0, t1)])
    # enemies that use the tunnel pass through it as one step (MQ-GAP-10)
    dist_e = _bfs(S, edges + ([(t0, t1)] if rs.toggles.enemies_use_tunnel else []))
    seat_start = np.array([idx[s] for s in rs.board.seat_starts], np.int32)

    moon = np.array([_COLOUR[c] for c in rs.moon.track], np.int32)
    dice = np.zeros((4, 12), np.int32)
    dice_nf = np.zeros(4, np.int32)
    for k, name in enumerate(("grey", "green", "orange", "red")):
        faces = getattr(rs.dice, name)
        dice_nf[k] = len(faces)
        for j, f in enumerate(faces):
            dice[k, j] = _FACE.get(f, None) if f in _FACE else int(f)
    compass_faces = np.zeros(12, np.int32)
    for j, f in enumerate(rs.dice.compass):
        compass_faces[j] = _COMPASS[f]

    # effects: skills, hags, relics, powers (in that order)
    eff_rows, eff_names = [], []
    skill_index = {}
    for name, sk in rs.skills.items():
        skill_index[name] = len(eff_rows)
        eff_rows.append(_effect_row(sk.effect))
        eff_names.append(name)
    hero_names = list(rs.heroes)
    hero_abil = np.array([[h.courage, h.strength, h.magic] for h in rs.heroes.values()], np.int32)
    hero_skill = np.array([skill_index[h.skill] for h in rs.heroes.values()], np.int32)

    cards, card_names = [], []
    for a, ab in enumerate(ABILITIES):
        for v in getattr(rs.equipment, ab):
            cards.append([a, v, -1])
            card_names.append(f"{ab} +{v}")
    for name, hag in rs.hags.items():
        cards.append([-1, 0, len(eff_rows)])
        eff_rows.append(_effect_row(hag.effect))
        eff_names.append(name)
        card_names.append(name)
    relics, relic_names = [], []
    for name, r in rs.relics.items():
        e = len(eff_rows)
        eff_rows.append(_effect_row(r.effect))
        eff_names.append(name)
        for _ in range(r.count):
            relics.append([e, int(r.sabotaged)])
            relic_names.append(name)
    power_index = {}
    for name, pw in rs.powers.items():
        power_index[name] = len(eff_rows)
        eff_rows.append(_effect_row(pw.effect))
        eff_names.append(name)

    tiles, tile_names = [], []
    level_tiles = np.zeros((3, 2), np.int32)
    for lv in range(3):
        level_tiles[lv, 0] = len(tiles)
        for t in getattr(rs.encounters, f"level{lv + 1}"):
            drop = CHARMS.index(t.drop) if t.drop else -1
            for _ in range(t.count):
                tiles.append([lv + 1, L.TILE_KINDS.index(t.kind), drop, t.drop_n, t.steal, int(t.card)])
                tile_names.append(t.kind if t.kind != "bogbean" else
                                  f"{('snipe', 'speedwell', 'louse_wort')[lv]} ({t.drop} x{t.drop_n})")
        level_tiles[lv, 1] = len(tiles) - level_tiles[lv, 0]

    enemy = np.zeros((L.ENEMY_ROWS, 4, 3), np.int32)
    wins_needed = np.zeros(3, np.int32)
    for name, e in rs.enemies.items():
        r = L.ENEMY_BOG + e.level - 1
        enemy[r, L.GREEN], enemy[r, L.GREY], enemy[r, L.RED] = e.green, e.grey, e.red
        enemy[r, L.BLUE] = e.green
        wins_needed[e.level - 1] = e.wins_needed
    nm_names = list(rs.nightmares)
    nm_charms = np.zeros((4, 4), np.int32)
    nm_power = np.zeros(4, np.int32)
    for k, (name, n) in enumerate(rs.nightmares.items()):
        r = L.ENEMY_NM + k
        enemy[r, L.GREEN], enemy[r, L.GREY], enemy[r, L.RED] = n.green, n.grey, n.red
        enemy[r, L.BLUE] = n.green
        for c, cnt in n.charms.items():
            nm_charms[k, CHARMS.index(c)] = cnt
        nm_power[k] = power_index[n.power]
    sh = rs.shimnavore
    enemy[L.ENEMY_SHIM, L.GREEN], enemy[L.ENEMY_SHIM, L.GREY], enemy[L.ENEMY_SHIM, L.RED] = sh.green, sh.grey, sh.red
    enemy[L.ENEMY_SHIM, L.BLUE] = sh.green

    r, t = rs.rules, rs.toggles
    vals = dict(actions=r.actions_per_turn, backpack=r.backpack, life=r.life, skill_uses=r.skill_uses,
                minis=r.miniatures_per_space, bog_move=r.bogbean_move, nm_move=r.nightmare_move,
                max_dice=r.max_combat_dice, compass_tokens=r.compass_tokens, cycles=r.moon_cycles,
                shim_wins=r.shimnavore_wins_per_ability, charm_supply=r.charm_supply,
                talismans=r.talismans, pots=r.magical_pots, bogs_per_level=r.bogbeans_per_level,
                granite=r.granite_for_repair, disc_return=r.disc_return_cost,
                removed_tiles=r.removed_bogbean_tiles, pregame_tiles=r.pregame_tiles,
                solo_value=r.solo_equipment_value, cap_rounds=r.safety_cap_rounds, start_dice=r.starting_dice,
                moon_len=len(moon), n_spaces=S, n_hero_defs=len(hero_names), n_cards=len(cards),
                n_relics=len(relics), n_tiles=len(tiles), compass_nf=len(rs.dice.compass),
                t_first_turn_arrow=t.first_turn_arrow, t_enemies_use_tunnel=t.enemies_use_tunnel,
                t_star_roll_over=t.star_clicks_roll_over, t_escape_knocks_back=t.escape_knocks_back,
                t_shim_skips_beaten=t.shimnavore_skips_beaten, t_defend_with_courage=t.defend_with_courage,
                t_defence_any_fail=t.defence_any_fail_loses, t_doubles_stack=t.doubles_stack,
                t_dandelion_beats_fumble=t.dandelion_beats_fumble,
                t_enemy_on_hero_attacks=t.enemy_on_hero_attacks, t_bag_reuses=t.bag_reuses_discards,
                t_partial_theft=t.partial_theft_takes_charms,
                t_transition_enemy_phase=t.transition_enemy_phase, t_pregame=t.pregame_encounters,
                t_nexus_standing=t.nexus_draw_when_standing, t_level_per_trigger=t.encounter_level_per_trigger,
                t_extra_die_any=t.extra_die_any_level, t_escape_round_active=t.escape_round_active,
                **{f"clicks_{lv}_{p}": getattr(rs.levels, lv).clicks(p) for lv in ("easy", "medium", "hard")
                   for p in (1, 2, 3, 4)}, multi_easy=rs.levels.easy.charm_multi,
                multi_medium=rs.levels.medium.charm_multi, multi_hard=rs.levels.hard.charm_multi)
    P = np.array([int(vals[n]) for n in _P], np.int32)

    def i32(rows, cols):
        return np.array(rows, np.int32).reshape(-1, cols)

    T = Tables(P=P, adj=adj, deg=deg, kind=kind, compass=compass, charm=charm, arrow=arrow,
               tunnel=tunnel, bearing=bearing, dist_h=dist_h, dist_e=dist_e, keystone=keystone,
               disc=disc, start=start, nexus=nexus, crossroads=crossroads, seat_start=seat_start,
               cache_of=cache_of, moon=moon, dice=dice, dice_nf=dice_nf, compass_faces=compass_faces,
               hero_abil=hero_abil, hero_skill=hero_skill, effects=i32(eff_rows, L.EF_COLS),
               cards=i32(cards, CARD_W), relics=i32(relics, RELIC_W), tiles=i32(tiles, L.TL_COLS),
               level_tiles=level_tiles, enemy=enemy, wins_needed=wins_needed,
               nm_charms=nm_charms, nm_power=nm_power,
               odds=np.zeros((5, 2, ODDS_W), np.int32), odds_total=np.zeros(5, np.int32))
    names = Names(spaces=sp_names, heroes=hero_names, skills=[h.skill for h in rs.heroes.values()],
                  cards=card_names, relics=relic_names, nightmares=nm_names, effects=eff_names,
                  tiles=tile_names)
    return flatten(T), T, names
