"""Quest Master positions for the rule tests: the ``QGame`` helper and the
ids of the shipped data.

``QGame`` owns one game's arrays, sets it up with ``engine.setup`` and offers
small readable accessors and patches (Hp, pawn squares, hands, decks, die
faces, square kinds and abilities in the game's own copy of ``T``), so each
test can build an exact position and call one engine entry point;
``_quiet_pair`` is two seats on a quiet board. The shipped board and the
scripting choices are described in ``qm_positions.py``.
"""
from __future__ import annotations

import functools

import numpy as np

import simcore.rng
from questsim import decision as D, engine as E, entries
from questsim import layout as L
from questsim import sim
from questsim import tables as TB
from questsim.policies import POLICY_GREEDY, POLICY_RANDOM

OPB = L.OPB
RANDOM, GREEDY = POLICY_RANDOM, POLICY_GREEDY
RED, BLUE = L.DIE_RED, L.DIE_BLUE
SWORD, BOMB, CHEST = L.F_SWORD, L.F_BOMB, L.F_CHEST


@functools.lru_cache(maxsize=None)
def rules(*overrides):
    return sim.prepare(overrides=list(overrides))


R0 = rules()
CH = {n: i for i, n in enumerate(R0.names.characters)}
IT = {n: i for i, n in enumerate(R0.names.items)}
EVK = {n: i for i, n in enumerate(R0.names.events)}
CASTLE = {n: i for i, n in enumerate(R0.names.castles)}
RS = R0.ruleset
NSQ = len(RS.board.squares)

# castle squares of the shipped board
SQ_CASTLE, SQ_WIZARD, SQ_CHURCH, SQ_SCIENTIST, SQ_HAUNTED = 0, 8, 16, 24, 32
ALL_CASTLES = (1 << 5) - 1


def code(op, arg=0):
    return int(op) * OPB + int(arg)


class QGame:
    """One hand-built Quest Master position."""

    def __init__(self, chars, policies=GREEDY, seed=1, game=0, R=None, pre=None, logging=1):
        self.R = R if R is not None else R0
        self.T = self.R.T.copy()
        if pre is not None:
            pre(self.T)
        self.n = len(chars)
        self.s = np.zeros(L.STATE_SIZE, np.int32)
        self.rng = np.zeros(simcore.rng.N_STREAMS * 4, np.uint64)
        simcore.rng.seed_streams(np.uint64(seed), int(game), self.rng)
        self.legal = np.zeros(L.MAX_LEGAL, np.int32)
        self.ev = np.zeros((5000, L.EV_COLS), np.int32)
        self.params = np.zeros((L.MAX_PLAYERS, L.MAX_PARAMS), np.float64)
        self.params[:, 1] = 3.0                   # greedy defaults: aggression 0, castle_weight 3
        c = np.full(L.MAX_PLAYERS, -1, np.int32)
        for i, x in enumerate(chars):
            c[i] = CH[x] if isinstance(x, str) else int(x)
        pol = np.zeros(L.MAX_PLAYERS, np.int32)
        pols = [policies] * self.n if isinstance(policies, int) else list(policies)
        pol[:self.n] = pols
        for i, pid in enumerate(pols):       # greedy's and the planner's ``sure`` on, as shipped
            at = {D.POLICY_GREEDY: D.SURE_GREEDY, D.POLICY_PLANNER: D.SURE_PLANNER}.get(int(pid))
            if at is not None:
                self.params[i, at] = 1.0
        E.setup(self.s, self.T, self.ev, self.rng, self.legal, self._rows(pol), int(self.n), c, pol, int(logging))

    def _rows(self, pids):
        """The kernels' ``pp`` for seats playing ``pids``: ``params`` and last
        the address of each seat's policy, for greedy and the planner their
        entry point (the engine calls them through it, questsim/entries.py)."""
        pp = np.zeros((L.MAX_PLAYERS, L.MAX_PARAMS + 1), np.float64)
        pp[:, :L.MAX_PARAMS] = self.params
        for p, pid in enumerate(pids):
            if int(pid) in entries.ENTRIES:
                pp[p, -1] = entries.address(int(pid))
        return pp

    @property
    def pp(self):
        """``pp`` for the policies the state's seats play (a new array: set ``params``)."""
        return self._rows([self.s[L.G_P + p * L.PS + L.S_POLICY] for p in range(L.MAX_PLAYERS)])

    # ---- seat fields
    def b(self, p):
        return L.G_P + int(p) * L.PS

    def get(self, p, field):
        return int(self.s[self.b(p) + field])

    def set(self, p, field, v):
        self.s[self.b(p) + field] = int(v)

    def hp(self, p):
        return self.get(p, L.S_HP)

    def set_hp(self, p, v):
        self.set(p, L.S_HP, v)

    def pos(self, p):
        return self.get(p, L.S_POS)

    def put(self, p, sq):
        self.set(p, L.S_POS, sq)

    def alive(self, p):
        return bool(self.get(p, L.S_ALIVE))

    def hand(self, p):
        n = self.get(p, L.S_HAND_N)
        return sorted(int(x) for x in self.s[self.b(p) + L.S_HAND: self.b(p) + L.S_HAND + n])

    def set_hand(self, p, kinds):
        kinds = [IT[k] if isinstance(k, str) else int(k) for k in kinds]
        self.set(p, L.S_HAND_N, len(kinds))
        for i, k in enumerate(kinds):
            self.s[self.b(p) + L.S_HAND + i] = k

    def clear_hands(self):
        for p in range(self.n):
            self.set_hand(p, [])

    def castles(self, p):
        return self.get(p, L.S_CASTLES)

    # ---- decks
    def set_item_deck(self, top_first):
        """The Item deck, top card first."""
        ks = [IT[k] for k in top_first]
        self.s[L.G_ITEM_N] = len(ks)
        for i, k in enumerate(ks):
            self.s[L.G_ITEM_DECK + len(ks) - 1 - i] = k

    def set_item_used(self, kinds):
        self.s[L.G_ITEM_USED_N] = len(kinds)
        for i, k in enumerate(kinds):
            self.s[L.G_ITEM_USED + i] = IT[k]

    def item_used(self):
        n = int(self.s[L.G_ITEM_USED_N])
        return sorted(int(x) for x in self.s[L.G_ITEM_USED:L.G_ITEM_USED + n])

    def item_deck(self):
        n = int(self.s[L.G_ITEM_N])
        return [int(x) for x in self.s[L.G_ITEM_DECK:L.G_ITEM_DECK + n]]

    def set_event_deck(self, top_first):
        ks = [EVK[k] for k in top_first]
        self.s[L.G_EVENT_N] = len(ks)
        for i, k in enumerate(ks):
            self.s[L.G_EVENT_DECK + len(ks) - 1 - i] = k

    def set_event_used(self, kinds):
        self.s[L.G_EVENT_USED_N] = len(kinds)
        for i, k in enumerate(kinds):
            self.s[L.G_EVENT_USED + i] = EVK[k]

    def event_used(self):
        n = int(self.s[L.G_EVENT_USED_N])
        return sorted(int(x) for x in self.s[L.G_EVENT_USED:L.G_EVENT_USED + n])

    # ---- rules patches (this game's copy of T)
    def fix_die(self, die, face):
        for i in range(int(self.T[TB.P_N_FACES_RED + die])):
            self.T[TB.O_FACES + die * TB.MAX_FACES + i] = int(face)

    def fix_dice(self, red, blue):
        self.fix_die(RED, red)
        self.fix_die(BLUE, blue)

    def no_abilities(self, *chars):
        for c in chars:
            self.T[TB.O_CHAR + CH[c] * TB.CH + TB.C_NAB] = 0

    def square(self, sq, kind):
        self.T[TB.O_SQ_KIND + sq] = kind

    def quiet_board(self):
        """Every square plain (no effect, no warp); tests then set the few they need."""
        for i in range(NSQ):
            self.T[TB.O_SQ_KIND + i] = L.SQ_PLAIN

    # ---- log
    def clear_log(self):
        self.s[L.G_LOGN] = 0

    def events(self, name):
        n = int(self.s[L.G_LOGN])
        ev = self.ev[:n]
        return [tuple(int(x) for x in row[2:]) for row in ev if row[0] == L.EVENT[name]]

    # ---- entry points
    def duel(self, att):
        E.duel(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(att))

    def land(self, seat, sq, by_card=0):
        """The pawn stands on ``sq`` and the square takes effect (land + resolve)."""
        self.put(seat, sq)
        self.s[L.G_ACTIVE] = int(seat)
        self.s[L.G_CHAIN] = 0
        self.s[L.G_STK_N] = 0
        E.land(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(seat), int(sq), int(by_card))
        E.resolve(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(seat))

    def turn(self, seat):
        E.take_turn(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(seat))

    def walk(self, seat, steps):
        pos, warped = E.walk(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(seat), int(steps))
        return int(pos), bool(warped)

    def lose(self, seat, n):
        E.lose_hp(self.s, self.T, self.ev, int(seat), int(n))

    def gain(self, seat, n):
        E.gain_hp(self.s, self.T, self.ev, int(seat), int(n))

    def draw(self, seat):
        E.draw_item(self.s, self.T, self.ev, self.rng, self.legal, self.pp, int(seat))

    def play(self):
        E.play(self.s, self.T, self.ev, np.zeros((1, L.STATE_SIZE), np.int32), self.rng, self.legal, self.pp)

    @property
    def win(self):
        return int(self.s[L.G_WIN]), int(self.s[L.G_WINNER])


def choices(T, r, bl):
    s = np.zeros(L.STATE_SIZE, np.int32)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    n = E.movement_choices(s, T, legal, int(r), int(bl))
    return sorted(int(c) for c in legal[:n])


def after_shoes(T, r, bl, extra):
    """Every movement result a roll of ``r`` and ``bl`` can end in once
    Shoes add ``extra`` squares to the choice made (engine.shoe_move)."""
    return sorted({int(E.shoe_move(int(c), int(extra))) for c in choices(T, r, bl)})


def home_square(race):
    sqs = RS.board.squares
    return next(i for i, sq in enumerate(sqs) if sq.kind == "castle" and RS.castles[sq.castle].race == race)


def _quiet_pair(chars=("robot", "priest"), seed=1):
    g = QGame(list(chars), seed=seed)
    g.quiet_board()
    g.clear_hands()
    for p in range(g.n):
        g.put(p, 20 + p)
    return g
