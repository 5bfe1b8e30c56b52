"""Compile a validated Quest Master ruleset into one flat int32 array ``T``
(the numba kernels' only view of the rules) plus the names to decode results.

Every section starts at a module constant ``O_*`` fixed by the maximum sizes
of questsim.ruleset, so offsets are compile-time constants in the kernels.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore import shape
from simcore.errors import InputError
from . import constants
from . import layout as L
from .constants import *  # noqa: F401,F403  (the P_ rows the kernels read as TB.P_...)
from .constants import (AB_COST, AB_EFF, AB_EFF_N, AB_PER_COMBAT, AB_WHEN, C_AB, C_AT, C_ATT, C_HP,  # the
                        C_NAB, C_NATT, C_RACE, EC_COUNT, EC_EFF, EC_EFF_N, IK_COLOUR,  # fields this
                        IK_COST, IK_COUNT, IK_EFF, IK_EFF_N, IK_SYMBOL, IK_WHEN, IK_WORTH)  # file writes
from .ruleset import (DICE, FOOT_TIMES, ITEM_SYMBOLS, MAX_CHARACTERS, MAX_EVENT_KINDS, MAX_FACES, MAX_ITEM_KINDS,
                      MAX_NEXT, MAX_SQUARES, OPS, RACES, SQUARE_KINDS, Ruleset, home_squares, predecessors,
                      successors)

MAX_PRED = 4
MAX_WARP = 8
MAX_ATTACKS = 4
MAX_ABILITIES = 4
MAX_EFFECT_ROWS = 1024

# ---- the rules vector's rows ---------------------------------------------------
# One row per ruleset value the kernels read, named by its path in the ruleset
# file; its constant (constants.py) is P_ and the path after its section:
# rules.hand_limit -> P_HAND_LIMIT, toggles.shields_stack -> P_SHIELDS_STACK.
# n.<what> counts what the ruleset lists (n.squares: the board's squares;
# n.faces_red, n.faces_blue: each die's faces, read as P_N_FACES_RED + die).
RULE_ROWS = (
    "n.squares", "n.characters", "n.item_kinds", "n.event_kinds", "rules.hand_limit", "rules.starting_items",
    "rules.castles_to_win", "rules.win_hp_above", "rules.free_attack_cost", "rules.mp_symbol_value",
    "rules.start_roll_dice", "rules.start_roll_symbol_value", "rules.max_attacks_per_combat",
    "rules.event_chain_limit", "rules.safety_cap_rounds", "n.castles",
    "toggles.start_marks_home_castle", "toggles.attack_bonus_lasts_combat", "toggles.shields_stack",
    "toggles.shield_lasts_combat", "toggles.one_item_per_step", "toggles.warp_on_landing",
    "toggles.square_cards_optional", "toggles.landing_on_player_fights", "toggles.two_symbols_may_pass",
    "toggles.lone_attacker_continues", "toggles.card_moves_mark_castles", "n.faces_red", "n.faces_blue",
    "rules.last_player_extra_items", "toggles.attacker_continues_after_decline", "toggles.shoe_any_player")
NPARAM = 40    # the rules vector's room in T
assert len(RULE_ROWS) <= NPARAM
# ---- the fields of the rows of T's sections --------------------------------
# A character's block (O_CHAR + c * CH): its race, Hp, At, number of paid
# attacks and their (cost, At) pairs, number of abilities and their rows.
CHAR_FIELDS = (("race", 1), ("hp", 1), ("at", 1), ("natt", 1), ("att", 2 * MAX_ATTACKS), ("nab", 1),
               ("ab", 0))
# an ability's row (C_AB + AB * k in the block): when (0 attack, 1 defence),
# its Mp cost, uses per combat, its effect list (start, count)
ABILITY_FIELDS = ("when", "cost", "per_combat", "eff", "eff_n")
# an Item card kind's row (O_ITEM + kind * IK): copies in the deck, colour
# (0 red, 1 blue), symbol, Mp cost, when a foot card is played (-1: not
# one), its effect list (start, count), its worth (_item_worth)
ITEM_FIELDS = ("count", "colour", "symbol", "cost", "when", "eff", "eff_n", "worth")
# an Event card kind's row (O_EVENT + kind * EK): copies, effect list
EVENT_FIELDS = ("count", "eff", "eff_n")
CONSTANTS = (shape.Family("P_", tuple(shape.row_name(p) for p in RULE_ROWS), 0, "tables.RULE_ROWS",
                          "a row of the rules vector (the start of T), by its ruleset path", notes=RULE_ROWS),
             shape.Family("C_", tuple(n for n, _ in CHAR_FIELDS), 0, "tables.CHAR_FIELDS",
                          "a field of a character's block (O_CHAR + character * CH)",
                          sizes=tuple(k for _, k in CHAR_FIELDS)),
             shape.Family("AB_", ABILITY_FIELDS, 0, "tables.ABILITY_FIELDS",
                          "a field of an ability's row (C_AB + ability * AB in a character's block)"),
             shape.Family("IK_", ITEM_FIELDS, 0, "tables.ITEM_FIELDS",
                          "a field of an Item card kind's row (O_ITEM + kind * IK)"),
             shape.Family("EC_", EVENT_FIELDS, 0, "tables.EVENT_FIELDS",
                          "a field of an Event card kind's row (O_EVENT + kind * EK)"))
shape.require(CONSTANTS, constants, "questsim/constants.py")

_o = NPARAM


def _sec(n):
    global _o
    o = _o
    _o += n
    return o


O_FACES = _sec(2 * MAX_FACES)                 # die * MAX_FACES + face
O_SQ_KIND = _sec(MAX_SQUARES)
O_SQ_CASTLE = _sec(MAX_SQUARES)               # castle index of a castle square, else -1
O_NEXT_N = _sec(MAX_SQUARES)
O_NEXT = _sec(MAX_SQUARES * MAX_NEXT)
O_PRED_N = _sec(MAX_SQUARES)
O_PRED = _sec(MAX_SQUARES * MAX_PRED)
O_WARP_N = _sec(MAX_SQUARES)
O_WARP = _sec(MAX_SQUARES * MAX_WARP)
O_HOME = _sec(len(RACES))                     # home square by race
O_CASTLE_RACE = _sec(8)
O_CASTLE_UP = _sec(16)                        # (start, count) per castle
O_CASTLE_LOW = _sec(16)
AB = len(ABILITY_FIELDS)                      # an ability's row
CH = sum(k for _, k in CHAR_FIELDS) + AB * MAX_ABILITIES   # a character's block: its fields, then the abilities' rows
O_CHAR = _sec(MAX_CHARACTERS * CH)
IK = len(ITEM_FIELDS)                         # an Item card kind's row
O_ITEM = _sec(MAX_ITEM_KINDS * IK)
EK = len(EVENT_FIELDS)                        # an Event card kind's row
O_EVENT = _sec(MAX_EVENT_KINDS * EK)
O_LAND = _sec(2 * 6)                          # landing effects (start, count) by square kind
O_SYMBOL = _sec(2 * 4)                        # symbol effects (start, count) by symbol index 1..3
O_EFF = _sec(MAX_EFFECT_ROWS * L.EW)
# The Event deck as weighted outcomes, for the policies' worth of opening a
# card (scores.event_value): every effect row an opened card can apply,
# a die roll's branches weighted by the faces that pick them, identical rows
# merged. Header: number of rows, the common denominator of the weights;
# then effect rows (layout EW) whose E_BR slot holds the weight.
MAX_EV_ROWS = 128
EV_N, EV_DEN = 0, 1
O_EV = _sec(2 + MAX_EV_ROWS * L.EW)
EV_W = L.E_BR
T_SIZE = _o


@dataclass(frozen=True)
class Names:
    """Names by index, to decode results."""
    characters: list
    races: list
    items: list
    events: list
    castles: list


def _face(f):
    return f if isinstance(f, int) else -("", "sword", "bomb", "chest").index(f)


def _item_worth(T, o):
    """The whole-number part of the policies' rough worth of the Item card
    whose block starts at ``o`` (scores.card_value, read for every card in
    every hand it weighs): its effect amounts summed, an absorb counting 4
    and a revival its Hp plus 3."""
    v = 0
    for i in range(int(T[o + IK_EFF_N])):
        row = O_EFF + (int(T[o + IK_EFF]) + i) * L.EW
        op = int(T[row + L.E_OP])
        if op == L.EK_ABSORB:
            v += 4
        elif op == L.EK_REVIVE:
            v += int(T[row + L.E_N]) + 3
        else:
            v += int(T[row + L.E_N])
    return v


class _Effects:
    """Appends effect lists to the rows table; returns (start, count)."""

    def __init__(self, T):
        self.T, self.n = T, 0

    def add(self, effects):
        effects = list(effects or [])
        start = self.n
        self.n += len(effects)
        if self.n > MAX_EFFECT_ROWS:
            raise InputError("ruleset: too many effects in total (more than 1024 rows)")
        for i, e in enumerate(effects):
            row = O_EFF + (start + i) * L.EW
            d = e.model_dump()
            T = self.T
            T[row + L.E_OP] = OPS.index(d["op"])
            T[row + L.E_RACES] = sum(1 << RACES.index(r) for r in d.get("races", []))
            op = d["op"]
            if op in ("gain_hp", "lose_hp"):
                T[row + L.E_N] = d["n"]
                T[row + L.E_ARG] = ("self", "all", "others").index(d.get("target", "self"))
            elif op in ("gain_hp_die", "lose_hp_die"):
                T[row + L.E_N] = d["symbol_value"]
                T[row + L.E_ARG] = DICE.index(d["die"])
            elif op == "move":
                T[row + L.E_N] = d["steps"]
            elif op == "absorb_attack":
                T[row + L.E_ARG] = ("hp", "mp", "none").index(d["gain"])
            elif op == "revive":
                T[row + L.E_N] = d["hp"]
            elif op == "roll":
                T[row + L.E_ARG] = DICE.index(d["die"])
                for k, br in enumerate((e.number, e.sword, e.bomb, e.chest)):
                    s, c = self.add(br)
                    T[row + L.E_BR + 2 * k] = s
                    T[row + L.E_BR + 2 * k + 1] = c
            else:
                T[row + L.E_N] = d.get("n", 0)
        return start, len(effects)


def _event_outcomes(T):
    """Fill the O_EV section from the compiled Event cards (see O_EV)."""
    from math import lcm
    nf = [int(T[constants.P_N_FACES_RED]), int(T[constants.P_N_FACES_BLUE])]
    common = lcm(*nf)
    acc = {}

    def add(row, w):
        key = tuple(int(x) for x in T[row:row + L.E_BR])
        acc[key] = acc.get(key, 0) + w

    total = 0
    for k in range(int(T[constants.P_N_EVENT_KINDS])):
        o = O_EVENT + k * EK
        cnt, start, n = int(T[o + EC_COUNT]), int(T[o + EC_EFF]), int(T[o + EC_EFF_N])
        total += cnt
        for j in range(n):
            row = O_EFF + (start + j) * L.EW
            if T[row + L.E_OP] != OPS.index("roll"):
                add(row, cnt * common)
                continue
            die = int(T[row + L.E_ARG])
            faces = [int(T[O_FACES + die * MAX_FACES + i]) for i in range(nf[die])]
            for b in range(4):               # number, sword, bomb, chest
                w = sum(1 for f in faces if (f > 0 if b == 0 else f == -b))
                bs, bn = int(T[row + L.E_BR + 2 * b]), int(T[row + L.E_BR + 2 * b + 1])
                for i in range(bn if w else 0):
                    add(O_EFF + (bs + i) * L.EW, cnt * w * (common // nf[die]))
    if len(acc) > MAX_EV_ROWS:
        raise InputError(f"events: too many different card outcomes (more than {MAX_EV_ROWS})")
    T[O_EV + EV_N] = len(acc)
    T[O_EV + EV_DEN] = max(total * common, 1)
    for i, (key, w) in enumerate(acc.items()):
        row = O_EV + 2 + i * L.EW
        T[row:row + L.E_BR] = key
        T[row + EV_W] = w


def compile_tables(rs: Ruleset):
    """Ruleset → (T, Names)."""
    T = np.zeros(T_SIZE, np.int32)
    E = _Effects(T)
    sq = rs.board.squares
    castles = list(rs.castles)
    chars = list(rs.characters)
    items = list(rs.items)
    events = list(rs.events)
    counts = dict(squares=len(sq), characters=len(chars), item_kinds=len(items), event_kinds=len(events),
                  castles=len(castles), faces_red=len(rs.dice.red), faces_blue=len(rs.dice.blue))
    T[:len(RULE_ROWS)] = [int(shape.rule_value(rs, path, counts)) for path in RULE_ROWS]
    for d, faces in enumerate((rs.dice.red, rs.dice.blue)):
        for i, f in enumerate(faces):
            T[O_FACES + d * MAX_FACES + i] = _face(f)
    nxt, prv = successors(rs.board), predecessors(rs.board)
    for i, s in enumerate(sq):
        T[O_SQ_KIND + i] = SQUARE_KINDS.index(s.kind)
        T[O_SQ_CASTLE + i] = castles.index(s.castle) if s.castle else -1
        T[O_NEXT_N + i] = len(nxt[i])
        for k, j in enumerate(nxt[i]):
            T[O_NEXT + i * MAX_NEXT + k] = j
        if len(prv[i]) > MAX_PRED or len(s.warp_to or []) > MAX_WARP:
            raise InputError(f"board.squares.{i}: at most {MAX_PRED} squares may lead into a square "
                             f"and a warp may list at most {MAX_WARP} targets")
        T[O_PRED_N + i] = len(prv[i])
        for k, j in enumerate(prv[i]):
            T[O_PRED + i * MAX_PRED + k] = j
        T[O_WARP_N + i] = len(s.warp_to or [])
        for k, j in enumerate(s.warp_to or []):
            T[O_WARP + i * MAX_WARP + k] = j
    for race, i in home_squares(rs).items():
        T[O_HOME + RACES.index(race)] = i
    for c, key in enumerate(castles):
        cs = rs.castles[key]
        T[O_CASTLE_RACE + c] = RACES.index(cs.race)
        T[O_CASTLE_UP + 2 * c: O_CASTLE_UP + 2 * c + 2] = E.add(cs.upper)
        T[O_CASTLE_LOW + 2 * c: O_CASTLE_LOW + 2 * c + 2] = E.add(cs.lower)
    for c, key in enumerate(chars):
        ch = rs.characters[key]
        b = O_CHAR + c * CH
        T[b + C_RACE], T[b + C_HP], T[b + C_AT], T[b + C_NATT] = RACES.index(ch.race), ch.hp, ch.at, len(ch.attacks)
        for k, a in enumerate(ch.attacks):
            T[b + C_ATT + 2 * k], T[b + C_ATT + 2 * k + 1] = a.cost, a.at
        abil = list(ch.abilities.values())
        if len(abil) > MAX_ABILITIES:
            raise InputError(f"characters.{key}.abilities: at most {MAX_ABILITIES}")
        T[b + C_NAB] = len(abil)
        for k, a in enumerate(abil):
            o = b + C_AB + AB * k
            T[o + AB_WHEN], T[o + AB_COST] = ("attack", "defend").index(a.when), a.cost
            T[o + AB_PER_COMBAT] = a.per_combat
            T[o + AB_EFF: o + AB_EFF_N + 1] = E.add(a.effects)
    for k, key in enumerate(items):
        it = rs.items[key]
        o = O_ITEM + k * IK
        T[o + IK_COUNT], T[o + IK_COLOUR] = it.count, int(it.colour == "blue")
        T[o + IK_SYMBOL], T[o + IK_COST] = ITEM_SYMBOLS.index(it.symbol), it.cost
        T[o + IK_WHEN] = FOOT_TIMES.index(it.when) if it.when else -1
        T[o + IK_EFF: o + IK_EFF_N + 1] = E.add(it.effects)
        T[o + IK_WORTH] = _item_worth(T, o)
    if sum(rs.items[k].count for k in items) > L.MAX_ITEM_CARDS:
        raise InputError(f"items: at most {L.MAX_ITEM_CARDS} cards in the deck")
    if sum(rs.events[k].count for k in events) > L.MAX_EVENT_CARDS:
        raise InputError(f"events: at most {L.MAX_EVENT_CARDS} cards in the deck")
    for k, key in enumerate(events):
        ev = rs.events[key]
        o = O_EVENT + k * EK
        T[o + EC_COUNT] = ev.count
        T[o + EC_EFF: o + EC_EFF_N + 1] = E.add(ev.effects)
    for k, kind in enumerate(SQUARE_KINDS):
        if kind in ("item", "event", "sword", "plain"):
            T[O_LAND + 2 * k: O_LAND + 2 * k + 2] = E.add(getattr(rs.landing, kind))
    for k, sym in enumerate(("sword", "bomb", "chest")):
        T[O_SYMBOL + 2 * (k + 1): O_SYMBOL + 2 * (k + 1) + 2] = E.add(getattr(rs.symbols, sym))
    _event_outcomes(T)
    names = Names(chars, list(RACES), items, events, castles)
    return T, names
