"""MourneQuest positions for the rule tests: the ``Game`` helper and dice control.

The engine is a set of numba kernels over one flat int32 state vector ``s``
and one flat int32 rules vector ``T``. ``Game`` owns one game's arrays, sets
it up with ``game.setup`` and offers small readable accessors so each test
can build an exact position and call one rule entry point. Every test works
on its own copy of ``T``, so dice can be fixed per test by overwriting die
faces in that copy (``fix_die`` / ``fix_compass``). Hand-built positions on
top of it are in ``mq_positions.py``.

Scalar arguments are always passed as Python ints/bools so that no new numba
specialisation (and no recompile) is triggered.
"""
from __future__ import annotations

import functools

import numpy as np

import simcore.rng
from mournesim import core, entries, game, layout as L, rules, sim, tables as TB
from mournesim.policies import POLICY_FIRST, POLICY_GREEDY, POLICY_RANDOM  # noqa: F401 (for the tests)

# the game's own enums, by the names it declares (layout's *_NAMES, the policy ids)
EASY, MEDIUM, HARD = (L.LEVEL_NAMES.index(n) for n in ("easy", "medium", "hard"))
N, E, S, W = (L.DIR_NAMES.index(n) for n in ("N", "E", "S", "W"))
NE, SE, SW, NW = (L.CORNER_NAMES.index(n) for n in ("NE", "SE", "SW", "NW"))
COURAGE, STRENGTH, MAGIC = (L.ABILITY_NAMES.index(n) for n in ("courage", "strength", "magic"))
GRANITE, GOLD, BLACKTHORN, FLAX = (L.CHARM_NAMES.index(n) for n in ("granite", "gold", "blackthorn", "flax"))

# Moon track "RRRMMMMMMMGGGGBGGGMMMMMMMRRR": one space index per colour.
MOON_RED, MOON_GREY, MOON_GREEN, MOON_BLUE = 0, 3, 10, 14

# Hero ids in ruleset order, by their keys in the shipped ruleset.
JACK, COBS, IUR, BEITH, GRACE, TESS, FINIAS = (
    sim.prepare().names.heroes.index(h) for h in ("jack", "cobs", "iur", "beith", "grace", "tess", "finias"))


@functools.lru_cache(maxsize=None)
def get_rules(*overrides):
    """A prepared ruleset (cached per override tuple)."""
    return sim.prepare(overrides=list(overrides))


def code(op, arg=0):
    return L.code(int(op), int(arg))


def decode(c):
    return L.code_op(int(c)), L.code_arg(int(c))


# ---- dice control ------------------------------------------------------------

def fix_die(T, level, face):
    """Make every face of combat die ``level`` (0 grey .. 3 red) show ``face``
    (an int 1..6, or L.FACE_FAIL / L.FACE_DOUBLE / L.FACE_DANDELION)."""
    for j in range(int(T[TB.O_DICE_NF + level])):
        T[TB.O_DICE + level * TB.DIE_W + j] = int(face)


def fix_all_dice(T, face):
    for lv in range(4):
        fix_die(T, lv, face)


def fix_compass(T, face):
    """Every compass face shows ``face`` (0 N, 1 E, 2 S, 3 W, L.FACE_STAR, L.FACE_BLANK)."""
    for j in range(int(T[TB.P_N_COMPASS_FACES])):
        T[TB.O_COMPASS_FACES + j] = int(face)


# ---- one game -----------------------------------------------------------------

class Game:
    """One game's arrays plus readable accessors."""

    def __init__(self, R=None, level=MEDIUM, players=4, heroes=(JACK, COBS, IUR, BEITH),
                 policy=POLICY_FIRST, seed=1, game_index=0, logging=1):
        self.R = R if R is not None else get_rules()
        self.T = self.R.T.copy()
        self.names = self.R.names.spaces
        self.idx = {n: i for i, n in enumerate(self.names)}
        self.s = np.zeros(L.STATE_SIZE, np.int32)
        self.rng = np.zeros(simcore.rng.N_STREAMS * 4, np.uint64)
        simcore.rng.seed_streams(np.uint64(seed), int(game_index), self.rng)
        self.ev = np.zeros((20000, L.EV_COLS), np.int32)
        self.snaps = np.zeros((400, L.STATE_SIZE), np.int32)
        self.legal = np.zeros(L.MAX_LEGAL, np.int32)
        self.params = np.array([0.55, 1.0])
        nh = 2 if players == 1 else players
        h = np.full(4, -1, np.int32)
        for i, x in enumerate(list(heroes)[:nh]):
            h[i] = x
        self.heroes = h
        self.s[L.G_POLICY] = int(policy)      # (setup sets it too) so pp carries its entry point
        game.setup(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(level), int(players),
                   h, int(policy), int(logging))

    @property
    def pp(self):
        """The kernels' ``pp`` for the policy in ``s``: ``params`` and, for
        greedy and the planner, the address of its entry point (the engine
        calls them through it, mournesim/entries.py)."""
        pid = int(self.s[L.G_POLICY])
        if pid in entries.ENTRIES:
            return np.append(self.params, float(entries.address(pid)))
        return self.params

    @pp.setter
    def pp(self, params):
        self.params = np.asarray(params, np.float64)

    # -- spaces
    def sp(self, name):
        return self.idx[name] if isinstance(name, str) else int(name)

    def name(self, i):
        return self.names[int(i)]

    def adjacent(self, a, b):
        a, b = self.sp(a), self.sp(b)
        return b in set(int(x) for x in self.R.tables.adj[a] if x >= 0)

    # -- heroes
    @property
    def nheroes(self):
        return int(self.s[L.G_NHEROES])

    def hero_off(self, h):
        return int(core.hb(int(h)))

    def pos(self, h):
        return int(self.s[self.hero_off(h) + L.H_POS])

    def put(self, h, where):
        self.s[self.hero_off(h) + L.H_POS] = self.sp(where)

    def park_heroes(self, *spaces):
        """Put heroes 0.. on the given spaces (names or ids)."""
        for h, where in enumerate(spaces):
            self.put(h, where)

    def charms(self, h):
        o = self.hero_off(h) + L.H_CH
        return [int(x) for x in self.s[o:o + 4]]

    def set_charms(self, h, granite=0, gold=0, blackthorn=0, flax=0):
        o = self.hero_off(h) + L.H_CH
        new = [granite, gold, blackthorn, flax]
        for t in range(4):
            self.s[L.G_POOL_CHARMS + t] += self.s[o + t] - new[t]
            self.s[o + t] = new[t]

    def pool(self):
        return [int(x) for x in self.s[L.G_POOL_CHARMS:L.G_POOL_CHARMS + 4]]

    def wounds(self, h):
        return int(self.s[self.hero_off(h) + L.H_WOUNDS])

    def set_wounds(self, h, w):
        self.s[self.hero_off(h) + L.H_WOUNDS] = int(w)

    def equipped(self, h, a):
        return int(self.s[self.hero_off(h) + L.H_EQ + a])

    def equip(self, h, a, value):
        """Equip hero ``h`` with a card of ability ``a`` and ``value`` taken
        out of thin air (the first card of the ruleset with that value)."""
        c = self.card_id(a, value)
        self.s[self.hero_off(h) + L.H_EQ + a] = c
        return c

    def card_id(self, a, value, nth=0):
        cards = self.R.tables.cards
        hits = [i for i in range(len(cards)) if cards[i, 0] == a and cards[i, 1] == value]
        return hits[nth]

    def ability(self, h, a):
        return int(core.ability_total(self.s, self.T, int(h), int(a)))

    def first_done_all(self):
        """Mark every hero's first turn as played (no start-arrow obligation)."""
        for h in range(self.nheroes):
            self.s[self.hero_off(h) + L.H_FIRST_DONE] = 1

    # -- turn driving
    def begin_turn(self, h, acts=None, arrived=False):
        """Reset the per-turn scalars the way ``rules.hero_turn`` does, without
        the must-move flags (tests set them when needed). ``arrived``: as if
        the hero had just moved onto its space this turn (a Nexus then gives
        Equipment, MQ-GAP-60)."""
        s = self.s
        s[L.G_CUR] = int(h)
        s[L.G_ACTS] = int(self.T[TB.P_ACTIONS_PER_TURN] if acts is None else acts)
        s[L.G_NEXUS_USED] = 0
        s[L.G_ARRIVED] = self.pos(h) if arrived else -1
        s[L.G_SHIM_ATTACKED] = 0
        s[L.G_TURN_OVER] = 0
        s[L.G_FORBID] = -1
        s[L.G_MUST_MOVE] = 0

    def legal_codes(self, h):
        n = rules.legal_turn(self.s, self.T, int(h), self.legal)
        return [int(c) for c in self.legal[:n]]

    def ops(self, h, op):
        """Args of the legal actions of kind ``op``."""
        return [L.code_arg(c) for c in self.legal_codes(h) if L.code_op(c) == op]

    def moves(self, h):
        return set(self.ops(h, L.A_MOVE))

    def move_names(self, h):
        return {self.name(x) for x in self.moves(h)}

    def act(self, h, op, arg=0):
        c = code(op, arg)
        assert c in self.legal_codes(h), f"{L.OP_NAMES.get(op, op)}({arg}) not legal"
        rules.apply_turn(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(h), c)

    def force(self, h, op, arg=0):
        """Apply an action without checking legality."""
        rules.apply_turn(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(h), code(op, arg))

    def run_turn(self, h, policy=POLICY_RANDOM):
        """Play one whole ``rules.hero_turn`` of hero ``h`` with ``policy`` and
        return the actions it took as (op, arg) pairs, in order."""
        self.s[L.G_POLICY] = int(policy)
        start = int(self.s[L.G_LOGN])
        rules.hero_turn(self.s, self.T, self.ev, self.snaps, self.rng, self.legal, self.pp, int(h))
        ev = self.ev[start:int(self.s[L.G_LOGN])]
        # an early end of turn is logged too (a non-event for the reader); it is no action
        return [(int(e[3]), int(e[4])) for e in ev
                if e[0] == L.EVENT["action"] and e[2] == h and e[3] != L.A_END]

    def acts(self):
        return int(self.s[L.G_ACTS])

    # -- discs and nightmares
    def disc(self, d):
        return int(core.db(int(d)))

    def nm_at_disc(self, d):
        return int(self.s[self.disc(d) + L.D_NM])

    def disc_state(self, d):
        return int(self.s[self.disc(d) + L.D_STATE])

    def clicks(self, d):
        return int(self.s[self.disc(d) + L.D_CLICKS])

    def set_clicks(self, d, n):
        self.s[self.disc(d) + L.D_CLICKS] = int(n)
        if n == 0:
            self.s[self.disc(d) + L.D_STATE] = L.DS_RELEASED

    def nm(self, k):
        return int(core.nb(int(k)))

    def nm_pos(self, k):
        return int(self.s[self.nm(k) + L.NM_POS])

    def nightmare_to_board(self, d, where):
        """The Nightmare of disc ``d`` stands on the main board at ``where``."""
        k = self.nm_at_disc(d)
        self.s[self.nm(k) + L.NM_POS] = self.sp(where)
        self.s[self.disc(d) + L.D_STATE] = L.DS_BOARD
        self.s[self.nm(k) + L.NM_FATE] = L.FATE_ESCAPED
        self.s[self.nm(k) + L.NM_ESCAPED] = 1
        return k

    def cast_out_state(self, d):
        """Mark disc ``d`` as Cast-out (no roll-over target, no nightmare)."""
        k = self.nm_at_disc(d)
        self.s[self.disc(d) + L.D_STATE] = L.DS_CAST_OUT
        self.s[self.nm(k) + L.NM_POS] = -1
        self.s[self.nm(k) + L.NM_FATE] = L.FATE_CAST_OUT

    # -- nexus slots, bogbeans, pots
    def slot(self, c):
        return int(core.xb(int(c)))

    def tile_id(self, level, kind=L.TK_BOGBEAN, drop=None):
        tiles = self.R.tables.tiles
        for i in range(len(tiles)):
            if tiles[i, L.TL_LEVEL] == level and tiles[i, L.TL_KIND] == kind:
                if drop is None or tiles[i, L.TL_DROP] == drop:
                    return i
        raise LookupError((level, kind, drop))

    def place_bogbean(self, c, level, where, drop=None):
        """A Bogbean of ``level`` spawned by the tile beside nexus ``c`` stands at ``where``."""
        t = self.tile_id(level, L.TK_BOGBEAN, drop)
        o = self.slot(c)
        self.s[o + L.X_TILE] = t
        self.s[o + L.X_KIND] = L.TK_BOGBEAN
        self.s[o + L.X_BOG_POS] = self.sp(where)
        self.s[o + L.X_BOG_WOUNDS] = 0
        self.s[o + L.X_POT] = 0
        self.s[L.G_BOGS_IN_PLAY + level - 1] += 1
        return t

    def bog_pos(self, c):
        return int(self.s[self.slot(c) + L.X_BOG_POS])

    def slot_tile(self, c):
        return int(self.s[self.slot(c) + L.X_TILE])

    def place_pot(self, c):
        t = self.tile_id(1, L.TK_POT)
        o = self.slot(c)
        self.s[o + L.X_TILE] = t
        self.s[o + L.X_KIND] = L.TK_POT
        self.s[o + L.X_POT] = 1
        self.s[L.G_POTS_OUT] += 1
        return t

    # -- events
    def events(self, name=None):
        n = int(self.s[L.G_LOGN])
        ev = self.ev[:n]
        if name is None:
            return ev
        return ev[ev[:, 0] == L.EVENT[name]]

    def clear_events(self):
        self.s[L.G_LOGN] = 0

    # -- rule entry points
    def end_of_turn(self, h):
        rules.end_of_turn(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(h))

    def enemy_phase(self, draws=True):
        rules.enemy_phase(self.s, self.T, self.ev, self.rng, self.legal, self.pp, bool(draws))

    def combat(self, h, row, ability, defending=False):
        return bool(rules.hero_combat(self.s, self.T, self.ev, self.rng, self.legal, self.pp,
                                      int(h), int(row), int(ability), bool(defending)))

    def compass(self, face):
        rules.compass_result(self.s, self.T, self.ev, int(face))

    def shim(self, face):
        rules.shimnavore_acts(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(face))

    def play(self):
        game.play(self.s, self.T, self.ev, self.snaps, self.rng, self.legal, self.pp)

    @property
    def outcome(self):
        return int(self.s[L.G_OUTCOME])
