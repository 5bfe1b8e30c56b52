"""Compile a validated ``Ruleset`` into the flat int32 array the numba engine reads.

The kernels take the whole rulebook as ONE int32 vector ``T`` whose sections
start at the fixed ``O_*`` offsets below (sizes bounded by the ``MAX_*``
limits the validator enforces). One flat array instead of a tuple of arrays
keeps numba's compile time and call overhead small: measured here, a
NamedTuple of 33 arrays took 4.5 minutes to compile and segfaulted when
loaded from the cache. The ruleset's scalars and toggles are the rules
vector at its start, one row per ruleset path (``RULE_ROWS``); the constants
``P_*`` and ``O_*`` are written into ``constants.py`` by ``simcore.shape``.
``Tables`` (a NamedTuple of shaped arrays) is the same data for Python code;
``Names`` keeps the names of spaces, heroes, cards for decoding logs.
"""
from __future__ import annotations

from collections import deque
from itertools import accumulate
from typing import NamedTuple

import math
import numpy as np

from simcore import shape
from . import constants
from . import layout as L
from .constants import *  # noqa: F401,F403  (the P_ and O_ rows the kernels read as TB.P_..., TB.O_...)
from .ruleset import ABILITIES, CHARMS, CORNERS, DIRS, Ruleset

# ---- the rules vector's rows ---------------------------------------------------
# One row per ruleset value the kernels read, named by its path in the ruleset
# file; its constant (constants.py) is P_ and the path after its section:
# rules.actions_per_turn -> P_ACTIONS_PER_TURN, toggles.doubles_stack ->
# P_DOUBLES_STACK, levels.easy.charm_multi -> P_EASY_CHARM_MULTI. A level's
# four Discs' clicks together for p players (Level.total_clicks) is
# levels.<level>.disc_total_clicks[p];
# n.<what> counts what the ruleset lists (n.spaces: the board's spaces).
# core.charm_multi and game.setup index a level's rows from its easy row.
RULE_ROWS = (
    "rules.actions_per_turn", "rules.backpack", "rules.life", "rules.skill_uses", "rules.miniatures_per_space",
    "rules.bogbean_move", "rules.nightmare_move", "rules.max_combat_dice", "rules.compass_tokens",
    "rules.moon_cycles", "rules.shimnavore_wins_per_ability", "rules.charm_supply", "rules.talismans",
    "rules.magical_pots", "rules.bogbeans_per_level", "rules.granite_for_repair", "rules.disc_return_cost",
    "rules.removed_bogbean_tiles", "rules.pregame_tiles", "rules.solo_equipment_value", "rules.safety_cap_rounds",
    "n.moon_track", "n.spaces", "n.heroes", "n.cards", "n.relics", "n.tiles", "n.compass_faces",
    "toggles.first_turn_arrow", "toggles.enemies_use_tunnel", "toggles.star_clicks_roll_over",
    "toggles.escape_knocks_back", "toggles.shimnavore_skips_beaten", "toggles.defend_with_courage",
    "toggles.defence_any_fail_loses", "toggles.doubles_stack", "toggles.dandelion_beats_fumble",
    "toggles.enemy_on_hero_attacks", "toggles.bag_reuses_discards", "toggles.partial_theft_takes_charms",
    "toggles.transition_enemy_phase", "toggles.pregame_encounters",
    *(f"levels.{lv}.disc_total_clicks[{p}]" for lv in ("easy", "medium", "hard") for p in (1, 2, 3, 4)),
    "levels.easy.charm_multi", "levels.medium.charm_multi", "levels.hard.charm_multi", "rules.starting_dice",
    "toggles.nexus_draw_when_standing", "toggles.encounter_level_per_trigger", "toggles.extra_die_any_level",
    "toggles.escape_round_active")
P_SIZE = len(RULE_ROWS)
assert P_SIZE <= 64   # the P section of T


def rule_value(rs, path, counts):
    """The value of rules-vector row ``path`` (RULE_ROWS) in ruleset ``rs``;
    ``counts`` holds the n.<what> rows."""
    if "disc_total_clicks[" in path:
        level, players = path.removeprefix("levels.").removesuffix("]").split(".disc_total_clicks[")
        return getattr(rs.levels, level).total_clicks(int(players))
    return shape.rule_value(rs, path, counts)


# the bounds the state layout shares (MAX_SPACES, MAX_RELICS, MAX_TILES,
# MAX_EFFECTS) are declared once, in layout.py; these are the tables' own
MAX_HERO_DEFS = 16
MAX_CARDS = 40
# exact attack odds by dice pool (see odds.attack_counts): for pool 0..4 and
# Blue Moon off/on, the winning face combinations for each needed value
# 0 .. ODDS_W-1 (target minus ability, clamped)
ODDS_W = 160
# Row widths of the tables in T: a kernel reads column c of row r of table X
# as T[O_X + r * X_W + c], with the column names below (or in layout: the
# effect columns EF_*, the tile columns TL_*).
DIST_W = L.MAX_SPACES    # DIST_H, DIST_E: steps from each space to each space
DIE_W = 12               # DICE: the faces of one combat die (at most 12)
ABIL_W = 3               # HERO_ABIL: courage, strength, magic (and ENEMY's values per moon colour)
ENEMY_W = 4 * ABIL_W     # ENEMY: an enemy's values by moon colour (layout.GREEN ...) and ability
CARD_W = 3               # CARDS: the ability an Equipment card adds (-1: a Hag card), its value, a Hag card's effect
CD_ABILITY, CD_VALUE, CD_HAG = range(CARD_W)
RELIC_W = 2              # RELICS: the relic's effect, sabotaged (0/1)
RL_EFFECT, RL_SABOTAGED = range(RELIC_W)
LT_W = 2                 # LEVEL_TILES: a level's first encounter tile, and how many
LT_FIRST, LT_COUNT = range(LT_W)
_SECTIONS = (("P", 64), ("ADJ", L.MAX_SPACES * 8), ("DEG", L.MAX_SPACES), ("KIND", L.MAX_SPACES),
             ("COMPASS", L.MAX_SPACES), ("CHARM", L.MAX_SPACES), ("ARROW", L.MAX_SPACES), ("TUNNEL", L.MAX_SPACES),
             ("BEARING", L.MAX_SPACES), ("DIST_H", L.MAX_SPACES * DIST_W), ("DIST_E", L.MAX_SPACES * DIST_W),
             ("KEYSTONE", 4), ("DISC", 4),
             ("START", 4), ("NEXUS", 4), ("CROSSROADS", 4), ("SEAT_START", 4), ("CACHE_OF", 4),
             ("MOON", 64), ("DICE", 4 * DIE_W), ("DICE_NF", 4), ("COMPASS_FACES", 12),
             ("HERO_ABIL", MAX_HERO_DEFS * ABIL_W), ("HERO_SKILL", MAX_HERO_DEFS),
             ("EFFECTS", L.MAX_EFFECTS * L.EF_COLS), ("CARDS", MAX_CARDS * CARD_W), ("RELICS", L.MAX_RELICS * RELIC_W),
             ("TILES", L.MAX_TILES * L.TL_COLS), ("LEVEL_TILES", 3 * LT_W), ("ENEMY", L.ENEMY_ROWS * ENEMY_W), ("WINS_NEEDED", 3),
             ("NM_CHARMS", 16), ("NM_POWER", 4), ("ODDS", 5 * 2 * ODDS_W), ("ODDS_TOTAL", 5), ("TOKENS_AT", 3 * 4))
T_SIZE = sum(size for _name, size in _SECTIONS)
OFFSETS = dict(zip((name for name, _size in _SECTIONS), accumulate((size for _name, size in _SECTIONS), initial=0)))
CONSTANTS = (
    shape.Family("P_", tuple(shape.row_name(p) for p in RULE_ROWS), 0, "tables.RULE_ROWS",
                 "a row of the rules vector (the start of T), by its ruleset path", notes=RULE_ROWS),
    shape.Family("O_", tuple(name for name, _size in _SECTIONS), 0, "tables._SECTIONS",
                 "where a section of T starts", sizes=tuple(size for _name, size in _SECTIONS)))
shape.require(CONSTANTS, constants, "mournesim/constants.py")


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
    tokens_at: np.ndarray    # int32[3, 4] Compass Tokens that turn all Discs, by level and players (1-4)


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
        o = OFFSETS[name]
        if name in ("DIST_H", "DIST_E"):
            S = getattr(tab, name.lower()).shape[0]
            full = np.full((L.MAX_SPACES, L.MAX_SPACES), 1000000, np.int32)
            full[:S, :S] = getattr(tab, name.lower())
            arr = full.ravel()
        if name in ("ADJ",):
            full = np.full((L.MAX_SPACES, 8), -1, np.int32)
            a = getattr(tab, "adj")
            full[: a.shape[0]] = a
            arr = full.ravel()
        T[o:o + arr.size] = arr
    return T


def _board(rs):
    """The board's sections of Tables: adjacency, space kinds and markers,
    distances; and the space names."""
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
    t = dict(adj=adj, deg=deg, kind=np.zeros(S, np.int32), compass=np.full(S, -1, np.int32),
             charm=np.full(S, -1, np.int32), arrow=np.full(S, -1, np.int32), tunnel=np.full(S, -1, np.int32),
             bearing=np.zeros(S, np.int32), cache_of=np.zeros(4, np.int32),
             **{k: np.zeros(4, np.int32) for k in ("keystone", "disc", "start", "nexus", "crossroads")})
    for name, sp in rs.board.spaces.items():
        i = idx[name]
        t["kind"][i] = L.KIND_NAMES.index(sp.kind)
        x, y = sp.at
        t["bearing"][i] = int(round((math.degrees(math.atan2(x, y)) % 360.0) * 100))
        if sp.compass is not None:
            c = DIRS.index(sp.compass) if sp.compass in DIRS else CORNERS.index(sp.compass)
            t["compass"][i] = c
            if sp.kind in ("keystone", "disc", "start", "nexus", "crossroads"):
                t[sp.kind][c] = i
        if sp.charm is not None:
            t["charm"][i] = CHARMS.index(sp.charm)
            t["cache_of"][t["charm"][i]] = i
        if sp.arrow is not None:
            t["arrow"][i] = idx[sp.arrow]
    t0, t1 = idx[rs.board.tunnel[0]], idx[rs.board.tunnel[1]]
    t["tunnel"][t0], t["tunnel"][t1] = t1, t0
    t["dist_h"] = _bfs(S, edges, [(t0, t1)])
    # enemies that use the tunnel pass through it as one step (MQ-GAP-10)
    t["dist_e"] = _bfs(S, edges + ([(t0, t1)] if rs.toggles.enemies_use_tunnel else []))
    t["seat_start"] = np.array([idx[s] for s in rs.board.seat_starts], np.int32)
    return t, sp_names


def _dice(rs):
    """The moon track and the dice's faces."""
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
    return dict(moon=np.array([_COLOUR[c] for c in rs.moon.track], np.int32), dice=dice, dice_nf=dice_nf,
                compass_faces=compass_faces)


def _cards(rs):
    """Heroes, Equipment and Hag cards, Relics and the Evil Powers, with the
    one effect table they index (skills, hags, relics, powers, in that
    order); their names; and each power's effect row by name."""
    eff_rows, eff_names = [], []

    def effect(name, e):
        eff_rows.append(_effect_row(e))
        eff_names.append(name)
        return len(eff_rows) - 1

    skill_index = {name: effect(name, sk.effect) for name, sk in rs.skills.items()}
    cards, card_names = [], []
    for a, ab in enumerate(ABILITIES):
        for v in getattr(rs.equipment, ab):
            cards.append([a, v, -1])
            card_names.append(f"{ab} +{v}")
    for name, hag in rs.hags.items():
        cards.append([-1, 0, effect(name, hag.effect)])
        card_names.append(name)
    relics, relic_names = [], []
    for name, r in rs.relics.items():
        e = effect(name, r.effect)
        relics += [[e, int(r.sabotaged)]] * r.count
        relic_names += [name] * r.count
    power_index = {name: effect(name, pw.effect) for name, pw in rs.powers.items()}

    def i32(rows, cols):
        return np.array(rows, np.int32).reshape(-1, cols)

    t = dict(hero_abil=np.array([[h.courage, h.strength, h.magic] for h in rs.heroes.values()], np.int32),
             hero_skill=np.array([skill_index[h.skill] for h in rs.heroes.values()], np.int32),
             effects=i32(eff_rows, L.EF_COLS), cards=i32(cards, CARD_W), relics=i32(relics, RELIC_W))
    names = dict(heroes=list(rs.heroes), skills=[h.skill for h in rs.heroes.values()], cards=card_names,
                 relics=relic_names, effects=eff_names)
    return t, names, power_index


def _tiles(rs):
    """The encounter tiles, level by level, and their names."""
    tiles, tile_names = [], []
    level_tiles = np.zeros((3, LT_W), np.int32)
    for lv in range(3):
        level_tiles[lv, LT_FIRST] = len(tiles)
        for t in getattr(rs.encounters, f"level{lv + 1}"):
            drop = CHARMS.index(t.drop) if t.drop else -1
            for _ in range(t.count):
                tiles.append([lv + 1, L.TILE_KINDS.index(t.kind), drop, t.drop_n, t.steal, int(t.card)])
                tile_names.append(t.kind if t.kind != "bogbean" else
                                  f"{('snipe', 'speedwell', 'louse_wort')[lv]} ({t.drop} x{t.drop_n})")
        level_tiles[lv, LT_COUNT] = len(tiles) - level_tiles[lv, LT_FIRST]
    return dict(tiles=np.array(tiles, np.int32).reshape(-1, L.TL_COLS), level_tiles=level_tiles), tile_names


def _enemies(rs, power_index):
    """Each enemy's values by moon colour (the Blue Moon's are the Green's),
    the bogbean wins each level needs, the Nightmares' charms and powers."""
    enemy = np.zeros((L.ENEMY_ROWS, 4, 3), np.int32)

    def values(row, e):
        enemy[row, L.GREEN], enemy[row, L.GREY], enemy[row, L.RED] = e.green, e.grey, e.red
        enemy[row, L.BLUE] = e.green

    wins_needed = np.zeros(3, np.int32)
    for e in rs.enemies.values():
        values(L.ENEMY_BOG + e.level - 1, e)
        wins_needed[e.level - 1] = e.wins_needed
    nm_charms = np.zeros((4, 4), np.int32)
    nm_power = np.zeros(4, np.int32)
    for k, n in enumerate(rs.nightmares.values()):
        values(L.ENEMY_NM + k, n)
        for c, cnt in n.charms.items():
            nm_charms[k, CHARMS.index(c)] = cnt
        nm_power[k] = power_index[n.power]
    values(L.ENEMY_SHIM, rs.shimnavore)
    return dict(enemy=enemy, wins_needed=wins_needed, nm_charms=nm_charms, nm_power=nm_power)


def _tokens_at(rs):
    """How many Compass Tokens turn all four Discs, by level and player count:
    ``rules.compass_tokens`` unless the level's rule variant
    ``compass_tokens_by_players`` says otherwise."""
    return np.array([[getattr(rs.levels, lv).compass_tokens(p, rs.rules.compass_tokens) for p in (1, 2, 3, 4)]
                     for lv in ("easy", "medium", "hard")], np.int32)


def compile_tables(rs: Ruleset):
    """Build (flat T, Tables, Names) from a validated ruleset, the combat
    odds sections still empty: ``odds.with_attack_counts`` counts them with
    the engine's own dice scoring (``sim.prepare`` does both), so this
    module imports no kernel."""
    board, spaces = _board(rs)
    cards, card_names, power_index = _cards(rs)
    tiles, tile_names = _tiles(rs)
    t = dict(**board, **_dice(rs), **cards, **tiles, **_enemies(rs, power_index),
             odds=np.zeros((5, 2, ODDS_W), np.int32), odds_total=np.zeros(5, np.int32), tokens_at=_tokens_at(rs))
    counts = dict(moon_track=len(t["moon"]), spaces=len(spaces), heroes=len(t["hero_abil"]), cards=len(t["cards"]),
                  relics=len(t["relics"]), tiles=len(t["tiles"]), compass_faces=len(rs.dice.compass))
    T = Tables(P=np.array([int(rule_value(rs, path, counts)) for path in RULE_ROWS], np.int32), **t)
    names = Names(spaces=spaces, nightmares=list(rs.nightmares), tiles=tile_names, **card_names)
    return flatten(T), T, names
