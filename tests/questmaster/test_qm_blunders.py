"""Quest Master blunder counters (layout.BLUNDERS, ``blunder_*`` result
columns): choices wrong on the rules and what the chooser can see alone,
counted by the rule kernels as each decision is carried out and judged by
``questsim.blunders``; greedy and the planner make none of them, the v2
players (kept as behaviour v2 played) still do.

Hand-built positions (``QGame``, tests/questmaster/qm_game.py; the shipped
board is sketched in qm_positions.py). A blunder is forced with a player
that makes it: ``greedy_v2`` (greedy without the fix, same parameters) or
``first`` (always the first legal code: ``done`` in a card window). Each kind
has a blunder that is counted and a near miss that is not.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from questsim import blunders as B
from questsim import layout as L
from questsim import policies as P
from questsim import report, sim

from .qm_game import ALL_CASTLES, CASTLE, GREEDY, SQ_WIZARD, SWORD, QGame, code

RULES = sim.prepare()
FIRST, GREEDY_V2 = P.POLICY_FIRST, P.POLICY_GREEDY_V2


def blunders(g):
    return {n: int(g.s[L.G_BL + i]) for i, n in enumerate(L.BL_NAMES)}


def only(g, name):
    """The counters, all 0 but ``name``'s."""
    b = blunders(g)
    return {k: v for k, v in b.items() if k != name and v} == {} and b[name]


# ------------------------------------------------------------ declined win --

def _last_castle(policy, lacking=("wizard_school",), robot_hp=30):
    """The Robot (seat 0) on square 5 has landed on every castle but
    ``lacking`` and rolls a 3 and a sword (QM-MOVE-05: move 3, onto the
    Wizard School, or fight); the Priest (seat 1) is at Hp 5, so a fight
    looks good to a player weighing only strength."""
    g = QGame(["robot", "priest"], policies=[policy, GREEDY])
    g.no_abilities("robot", "priest")
    g.clear_hands()
    g.set(0, L.S_CASTLES, ALL_CASTLES & ~sum(1 << CASTLE[c] for c in lacking))
    g.set_hp(0, robot_hp)
    g.set_hp(1, 5)
    g.put(0, 5)
    g.put(1, 30)
    g.fix_dice(SWORD, 3)
    return g


def test_declined_fifth_castle_is_counted_and_greedy_takes_it():
    """QM-END-04, QM-MOVE-05: moving 3 lands on the last castle, a win at
    once; greedy_v2 takes the fight instead (a blunder, counted once) and
    greedy lands and wins."""
    g = _last_castle(GREEDY_V2)
    g.turn(0)
    assert g.pos(0) == 5 and g.win[0] == L.WIN_NONE
    assert only(g, "blunder_declined_win") == 1
    g = _last_castle(GREEDY)
    g.turn(0)
    assert g.pos(0) == SQ_WIZARD and g.win == (L.WIN_CASTLES, 0)
    assert sum(blunders(g).values()) == 0


def test_greedy_with_sure_off_declines_the_fifth_castle_and_is_judged():
    """QM-END-04: greedy's parameter ``sure`` at 0 gives back the play from
    before sure wins were taken (the position above: it fights), and the rule
    kernels then judge its choice (decision.takes_sure_wins) and count it."""
    g = _last_castle(GREEDY)
    g.params[0, P.GREEDY_PARAMS.index("sure")] = 0.0
    g.turn(0)
    assert g.pos(0) == 5 and g.win[0] == L.WIN_NONE
    assert only(g, "blunder_declined_win") == 1


def test_fight_is_no_blunder_when_the_castle_would_not_win():
    """QM-END-04 near miss: two castles lacking, the same move lands on one
    of them and wins nothing; greedy_v2's fight is not counted."""
    g = _last_castle(GREEDY_V2, lacking=("wizard_school", "church"))
    g.turn(0)
    assert g.pos(0) == 5 and g.win[0] == L.WIN_NONE
    assert sum(blunders(g).values()) == 0


def test_hp_card_over_40_declined_is_counted_exactly_40_is_not():
    """QM-END-05, QM-TURN-02: before the roll a Potion (Hp +3) takes the
    Priest from 38 to 41, a win at once: ending the window without it
    (the ``first`` player's ``done``) is counted. From 37 it would reach
    exactly 40, which does not win: not counted. Greedy plays it and wins."""
    for hp, counted in ((38, 1), (37, 0)):
        g = QGame(["priest", "robot"], policies=[FIRST, GREEDY])
        g.quiet_board()
        g.clear_hands()
        g.set_hand(0, ["potion"])
        g.set_hp(0, hp)
        g.fix_dice(1, 1)
        g.turn(0)
        assert g.hand(0) != [] and g.win[0] == L.WIN_NONE
        assert blunders(g)["blunder_declined_win"] == counted
    g = QGame(["priest", "robot"])
    g.quiet_board()
    g.clear_hands()
    g.set_hand(0, ["potion"])
    g.set_hp(0, 38)
    g.turn(0)
    assert g.win == (L.WIN_HP, 0)


def test_judge_a_shoe_and_a_warp_on_the_way_to_the_last_castle():
    """QM-END-04 with QM-RULING-07 and QM-SQUARE-08: from square 4, a move
    of 3 ends one short of the Wizard School; with a Yellow Bird Shoe in
    hand it reaches it (the roller's own Shoe is its choice), so the move
    wins at once and the sword does not. A walk passing the Warp on square
    4 with 4 squares left ends on the castle: going on wins, a warp (which
    stops the pawn on another Warp) does not. Greedy plays the move and the
    Shoe and wins."""
    g = _last_castle(GREEDY)
    g.put(0, 4)
    move3, sword = code(L.A_MOVE, 3), code(L.A_SYMBOL, 1)
    assert not B.option_wins(g.s, g.T, 0, L.CTX_MOVE, move3)
    g.set_hand(0, ["yellow_bird_shoe"])
    assert B.option_wins(g.s, g.T, 0, L.CTX_MOVE, move3)
    assert not B.option_wins(g.s, g.T, 0, L.CTX_MOVE, sword)
    g.s[L.G_WALK_LEFT] = 4
    assert B.option_wins(g.s, g.T, 0, L.CTX_WARP, code(L.A_NO_WARP))
    assert not B.option_wins(g.s, g.T, 0, L.CTX_WARP, code(L.A_WARP, 12))
    g.s[L.G_WALK_LEFT] = 3
    assert not B.option_wins(g.s, g.T, 0, L.CTX_WARP, code(L.A_NO_WARP))
    g.turn(0)
    assert g.pos(0) == SQ_WIZARD and g.win == (L.WIN_CASTLES, 0)
    assert sum(blunders(g).values()) == 0


# ---------------------------------------------------------- into a block --

def _into_vanish(policy, ghost_mp):
    """The Swordsman (seat 0, Mp 0: a sword on the red die) attacks the
    Ghost (seat 1, Mp ``ghost_mp`` from the blue die) holding a Sword card
    (Mp 0, At +1; QM-CARD-09)."""
    g = QGame(["swordsman", "ghost"], policies=[policy, policy])
    g.no_abilities("swordsman")
    g.clear_hands()
    g.set_hand(0, ["sword"])
    g.fix_dice(SWORD, ghost_mp)
    g.clear_log()
    g.duel(0)
    return g


def test_attack_card_into_a_sure_vanish_is_counted_and_greedy_keeps_it():
    """QM-CHAR-05, QM-DUEL-06, QM-DUEL-12 (QM-GAP-13, QM-GAP-31): the Ghost
    has Mp 1, Vanish unused (Mp 1: absorbs the attack) and no attack it can
    pay for (Mp 2): after this attack the combat ends and its Mp is lost, so
    blocking costs it nothing and the block is sure. greedy_v2 adds its
    Sword anyway (counted once; the attack is absorbed); greedy keeps it."""
    g = _into_vanish(GREEDY_V2, 1)
    assert only(g, "blunder_attack_into_block") == 1
    assert g.hand(0) == [] and len(g.events("absorb")) == 1
    g = _into_vanish(GREEDY, 1)
    assert sum(blunders(g).values()) == 0
    assert len(g.hand(0)) == 1 and len(g.events("absorb")) == 1


def test_attack_card_is_no_blunder_when_the_ghost_could_still_attack():
    """QM-DUEL-08, QM-DUEL-10 near miss: with Mp 2 the Ghost can pay for an
    attack of its own, so a Vanish would cost it that attack: the block is
    not sure, and greedy_v2's Sword is not counted."""
    g = _into_vanish(GREEDY_V2, 2)
    assert g.hand(0) == []
    assert sum(blunders(g).values()) == 0


# --------------------------------------------------- free defence declined --

def _robot_defends(policy, robot_mp):
    """The Swordsman (Mp 0) makes its free At 2 attack on the Robot (Mp
    ``robot_mp``), whose Shield ability costs Mp 1 (QM-CHAR-08)."""
    g = QGame(["swordsman", "robot"], policies=[GREEDY, policy])
    g.no_abilities("swordsman")
    g.clear_hands()
    g.fix_dice(SWORD, robot_mp)
    g.clear_log()
    g.duel(0)
    return g


def test_free_defence_declined_is_counted():
    """QM-CHAR-08, QM-DUEL-06, QM-DUEL-12 (QM-GAP-31): the Robot, Mp 1, cannot
    pay for an attack (Mp 2), so its Mp is lost after this attack; its
    Shield would lessen the damage for that Mp alone. Ending the defence
    without it (the ``first`` player) is counted; greedy shields."""
    g = _robot_defends(FIRST, 1)
    assert only(g, "blunder_free_defence_declined") == 1
    assert g.events("damage")[0][3] == 2
    g = _robot_defends(GREEDY, 1)
    assert sum(blunders(g).values()) == 0
    assert g.events("damage")[0][3] == 1


def test_defence_kept_for_an_attack_is_no_blunder():
    """QM-DUEL-08 near miss: with Mp 2 the Robot can attack back, so the Mp
    the Shield costs has a use: not counted."""
    g = _robot_defends(FIRST, 2)
    assert sum(blunders(g).values()) == 0


# ------------------------------------------------------- games and report --

def test_blunder_columns_in_every_row_greedy_and_planner_make_none():
    """Every result row carries the ``blunder_*`` counters after the
    ``dec_*`` ones; in 200 four-player games greedy and the planner make no
    blunder, while greedy_v2 throws attack cards into sure blocks."""
    assert L.RESULT_COLUMNS[-L.NBL:] == L.BL_NAMES
    assert L.RESULT_COLUMNS[L.RES_DEC:L.RES_BL] == tuple("dec_" + n for n in L.DEC_NAMES)
    runs = {pol: sim.simulate(games=200, seed=5, players=4, policies=(pol,), rules=RULES)
            for pol in ("greedy", "planner", "greedy_v2")}
    for pol in ("greedy", "planner"):
        assert (runs[pol][list(L.BL_NAMES)] == 0).all().all(), pol
    assert runs["greedy_v2"]["blunder_attack_into_block"].sum() > 0
    df = pd.concat(runs.values(), ignore_index=True)
    tables = report.standard_report(df)
    titles = list(tables)
    dec = next(i for i, t in enumerate(titles) if t.startswith("decisions by policy"))
    assert titles[dec + 1] == "blunders by policy (mean count per game)"
    table = tables[titles[dec + 1]].set_index("blunder")
    assert list(table.index) == list(L.BL_NAMES)
    assert table.loc["blunder_attack_into_block", "greedy"] == "0.000"
    assert float(table.loc["blunder_attack_into_block", "greedy_v2"]) > 0
    # a dataset written before the counters existed still reports, without the table
    old = report.standard_report(df.drop(columns=list(L.BL_NAMES)))
    assert not any(t.startswith("blunders") for t in old) and any(t.startswith("decisions") for t in old)
    assert np.isfinite(df[list(L.BL_NAMES)].to_numpy()).all()
