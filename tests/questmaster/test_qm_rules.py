"""Quest Master rule tests on hand-built positions (questsim.engine).

Every test sets a game up with ``engine.setup``, overwrites the few fields it
needs (Hp, pawn squares, hands, decks, die faces in a private copy of ``T``)
and calls ONE engine entry point (``duel``, ``take_turn``, ``walk``,
``land`` + ``resolve``, ``lose_hp`` ...). Expected values are worked out from
the rulebook (shared/rules/questmaster-rulebook.txt), the rule checklist
(shared/rules/questmaster-rules.md: QM-* ids) and the Quest Master rulings
in docs/questmaster/rulings.md (QM-GAP-nn); each docstring names the rules it checks.

Scripting choices: seats use the built-in policies (0 random, 1 greedy).
Where a choice matters, the position is built so that only one choice is
legal or the greedy policy's preference is unambiguous (the docstring says
which). Dice are forced by overwriting every face of a die in the test's own
copy of ``T`` *after* setup (forced dice during the start roll would tie
forever). Character abilities that the rule under test does not involve are
switched off in the copy of ``T`` (``no_abilities``) so they cannot blur the
arithmetic.

The shipped board (assumed data, QM-GAP-01): a 40-square loop of five
identical stretches::

    0 Castle(W)  1 item  2 event  3 sword  4 WARP  5 item  6 event  7 item
    8 Wizard School(M) ... 16 Church(P) ... 24 Scientist's House(R) ... 32 Haunted House(E)
    warps at 4, 12, 20, 28, 36 (each leads to every other warp)

The last tests reproduce engine bugs found in review; the engine was fixed.
"""
from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import simcore.rng
from questsim import engine as E
from questsim import layout as L
from questsim import tables as TB
from questsim.replay import replay
from questsim.ruleset import load_raw, validate

from .qm_game import (ALL_CASTLES, BLUE, BOMB, CASTLE, CH, CHEST, EVK, GREEDY, IT, OPB, R0, RANDOM, RED, RS, SQ_CASTLE,
                      SQ_CHURCH, SQ_HAUNTED, SQ_SCIENTIST, SQ_WIZARD, SWORD, QGame, _quiet_pair, after_shoes, choices,
                      code, home_square, rules)

REPO = Path(__file__).resolve().parents[2]


# =================================================================== setup ==

def test_setup_hp_home_castle_one_item_and_decks():
    """QM-SETUP-05/06/08, QM-CHAR-06, QM-CARD-14, QM-GAP-08/09: each player's Hp is
    the character card's Hp (the printed Robot: 23), the pawn stands on the
    home castle of its race (Castle=Warrior, Wizard School=Mage, Church=Priest,
    Scientist's House=Robot, Haunted House=Evil), each hand holds exactly 1 Item
    card dealt from the Item deck, and setup marks no castle as landed.
    Two Warriors (Swordsman, Knight) share the Castle."""
    chars = ["robot", "priest", "swordsman", "wizard", "demon", "knight"]
    g = QGame(chars, seed=3)
    expect_home = {"warrior": SQ_CASTLE, "mage": SQ_WIZARD, "priest": SQ_CHURCH,
                   "robot": SQ_SCIENTIST, "evil": SQ_HAUNTED}
    for p, c in enumerate(chars):
        ch = RS.characters[c]
        assert g.hp(p) == ch.hp
        assert g.pos(p) == expect_home[ch.race] == home_square(ch.race)
        assert len(g.hand(p)) == 1
        assert g.castles(p) == 0
        assert g.alive(p)
    assert g.hp(0) == 23
    assert g.pos(2) == g.pos(5) == SQ_CASTLE
    # the starting cards came off the Item deck: deck + hands = the whole deck
    n_items = sum(it.count for it in RS.items.values())
    n_events = sum(e.count for e in RS.events.values())
    assert int(g.s[L.G_ITEM_N]) == n_items - 6
    assert int(g.s[L.G_EVENT_N]) == n_events
    pool = sorted(g.item_deck() + [k for p in range(6) for k in g.hand(p)])
    assert pool == sorted(IT[k] for k, it in RS.items.items() for _ in range(it.count))


def _start_rounds(g):
    """Split the start-roll log into rounds, checking that each re-roll is made
    by exactly the players tied for the highest total of the round before."""
    rows = g.events("start_roll")
    contenders = list(range(g.n))
    i, rounds = 0, []
    while True:
        rnd = rows[i:i + len(contenders)]
        i += len(contenders)
        assert [r[0] for r in rnd] == contenders
        rounds.append(rnd)
        best = max(r[1] for r in rnd)
        contenders = [r[0] for r in rnd if r[1] == best]
        if len(contenders) == 1:
            break
    assert i == len(rows)
    return rounds, contenders[0]


def test_start_roll_highest_total_goes_first_symbols_zero_ties_reroll():
    """QM-SETUP-07, QM-GAP-03: every player rolls both dice, a symbol counts 0, the
    highest total goes first, and players tied for the highest re-roll among
    themselves only. The red die is forced to show only swords (0), so each
    total is the blue die's value: 0 (bomb/chest) or 1-4, never anything else;
    with 5 players ties are common and must be re-rolled by the tied only."""
    ties = 0
    totals = set()
    for seed in range(25):
        g = QGame(["robot", "priest", "swordsman", "wizard", "demon"], seed=seed,
                  pre=lambda T: T.__setitem__(slice(TB.O_FACES, TB.O_FACES + 6), SWORD))
        rounds, first = _start_rounds(g)
        ties += len(rounds) > 1
        totals |= {r[1] for rnd in rounds for r in rnd}
        assert int(g.s[L.G_FIRST]) == first
    assert totals == {0, 1, 2, 3, 4}
    assert ties >= 3


def test_turn_positions_follow_seat_order_from_the_first_player():
    """QM-SETUP-09, QM-GAP-04: play goes in seat order starting with the start-roll
    winner; the turn position of seat p is (p - first) mod players, and one
    round of play gives turns in exactly that order."""
    g = QGame(["robot", "priest", "swordsman", "wizard"], seed=11)
    first = int(g.s[L.G_FIRST])
    for p in range(4):
        assert g.get(p, L.S_TURNPOS) == (p - first) % 4
    # one quiet round: the dice show sword + chest (a fight or a card), nobody can fall
    g.fix_dice(SWORD, CHEST)
    g.clear_hands()
    for p in range(4):
        g.set_hp(p, 20)
    g.T[TB.P_SAFETY_CAP_ROUNDS] = 1
    g.clear_log()
    g.play()
    assert [e[0] for e in g.events("turn")] == [(first + k) % 4 for k in range(4)]


# ==================================================================== dice ==

def test_dice_faces():
    """QM-MOVE-01/02: red 1,2,3,4,sword,sword; blue 1,2,3,4,bomb,chest; each face
    equally likely (600 rolls each, loose bounds)."""
    T = R0.T
    assert [int(x) for x in T[TB.O_FACES:TB.O_FACES + 6]] == [1, 2, 3, 4, SWORD, SWORD]
    assert [int(x) for x in T[TB.O_FACES + TB.MAX_FACES:TB.O_FACES + TB.MAX_FACES + 6]] == [1, 2, 3, 4, BOMB, CHEST]
    rng = np.zeros(simcore.rng.N_STREAMS * 4, np.uint64)
    simcore.rng.seed_streams(np.uint64(5), 0, rng)
    for die, faces in ((RED, {1: 1, 2: 1, 3: 1, 4: 1, SWORD: 2}),
                       (BLUE, {1: 1, 2: 1, 3: 1, 4: 1, BOMB: 1, CHEST: 1})):
        seen = {}
        for _ in range(600):
            f = int(E.roll(T, rng, int(die)))
            seen[f] = seen.get(f, 0) + 1
        assert set(seen) == set(faces)
        for f, w in faces.items():
            assert 100 * w - 45 <= seen[f] <= 100 * w + 45, (die, f, seen)


# ================================================================ movement ==

def test_movement_choices_two_numbers_move_the_sum():
    """QM-MOVE-03/04: two numbers must be moved as their sum (2 + 4 = 6, the
    only legal result)."""
    assert choices(R0.T, 2, 4) == [code(L.A_MOVE, 6)]
    assert choices(R0.T, 1, 1) == [code(L.A_MOVE, 2)]


def test_movement_choices_number_and_symbol():
    """QM-MOVE-05/07: a number and a symbol: move the number or take the symbol
    (3 + sword: move 3 or fight; bomb + 4: open an Event or move 4)."""
    assert choices(R0.T, SWORD, 3) == sorted([code(L.A_MOVE, 3), code(L.A_SYMBOL, 1)])
    assert choices(R0.T, 4, BOMB) == sorted([code(L.A_MOVE, 4), code(L.A_SYMBOL, 2)])
    assert choices(R0.T, 2, CHEST) == sorted([code(L.A_MOVE, 2), code(L.A_SYMBOL, 3)])


def test_movement_choices_two_symbols():
    """QM-MOVE-06, QM-MOVE-08, QM-GAP-26: two symbols: take one of the two (chest + sword:
    draw or fight); no movement is offered. With the toggle
    two_symbols_may_pass the player may also take neither."""
    assert choices(R0.T, SWORD, CHEST) == sorted([code(L.A_SYMBOL, 1), code(L.A_SYMBOL, 3)])
    assert choices(R0.T, SWORD, BOMB) == sorted([code(L.A_SYMBOL, 1), code(L.A_SYMBOL, 2)])
    T = R0.T.copy()
    T[TB.P_TWO_SYMBOLS_MAY_PASS] = 1
    assert choices(T, SWORD, CHEST) == sorted([code(L.A_SYMBOL, 1), code(L.A_SYMBOL, 3), code(L.A_STAY)])


def test_movement_after_a_yellow_bird_shoe_only_the_ruled_moves():
    """QM-RULING-07, QM-RULING-08, QM-RULING-09, QM-GAP-49: once a Shoe is played the roll can only
    end in "number + 1" or "1 square instead of the symbol" -- the symbol
    itself is no longer a result (the Shoe would be spent for nothing). 3 +
    sword: move 4 or move 1 (no fight); two numbers: the sum + 1; two symbols:
    1 square (either symbol, or staying with two_symbols_may_pass, becomes the
    1-square move); two Shoes add 2."""
    assert after_shoes(R0.T, SWORD, 3, 1) == sorted([code(L.A_MOVE, 4), code(L.A_MOVE, 1)])
    assert after_shoes(R0.T, 4, BOMB, 1) == sorted([code(L.A_MOVE, 5), code(L.A_MOVE, 1)])
    assert after_shoes(R0.T, 2, 4, 1) == [code(L.A_MOVE, 7)]
    assert after_shoes(R0.T, SWORD, CHEST, 1) == [code(L.A_MOVE, 1)]
    T = R0.T.copy()
    T[TB.P_TWO_SYMBOLS_MAY_PASS] = 1
    assert after_shoes(T, SWORD, BOMB, 1) == [code(L.A_MOVE, 1)]
    assert after_shoes(R0.T, SWORD, 3, 2) == sorted([code(L.A_MOVE, 5), code(L.A_MOVE, 2)])
    assert after_shoes(R0.T, SWORD, 3, 0) == choices(R0.T, SWORD, 3)
    for r in (1, 2, 3, 4, SWORD):
        for bl in (1, 2, 3, 4, BOMB, CHEST):
            assert all(c // OPB == L.A_MOVE for c in after_shoes(R0.T, r, bl, 1)), (r, bl)


def test_turn_two_numbers_move_the_sum():
    """QM-MOVE-04, QM-TURN-01: rolling 2 and 4 moves the pawn exactly 6 squares
    (quiet board: every square plain)::

        0 . . . . . 6
        P --------> P
    """
    g = _quiet_pair()
    g.put(0, 0)
    g.fix_dice(2, 4)
    g.turn(0)
    assert g.pos(0) == 6
    assert g.events("choice") == [(0, L.A_MOVE, 6, 0, 0)]


def test_turn_symbol_instead_of_moving_pawn_stays_square_not_retriggered():
    """QM-MOVE-05/07, QM-GAP-27: on 2 + chest the player may draw an Item card
    instead of moving; the pawn stays and its own square (an Item square here)
    does not take effect again: exactly 1 card (the top one) is drawn. (Greedy
    prefers the card: the 2-square move ends on a plain square.)"""
    g = _quiet_pair()
    g.put(0, 5)
    g.square(5, L.SQ_ITEM)
    g.set_item_deck(["battle_axe", "potion", "sword"])
    g.fix_dice(2, CHEST)
    g.turn(0)
    assert g.pos(0) == 5
    assert g.hand(0) == [IT["battle_axe"]]
    assert int(g.s[L.G_ITEM_N]) == 2


def test_turn_number_and_sword_player_may_move_instead_of_fighting():
    """QM-MOVE-05: on 3 + sword the player may move 3 instead of fighting. The
    opponent is far stronger (Hp 40 vs 5), so greedy moves: pawn +3, no duel."""
    g = _quiet_pair()
    g.put(0, 0)
    g.set_hp(0, 5)
    g.set_hp(1, 40)
    g.fix_dice(SWORD, 3)
    g.turn(0)
    assert g.pos(0) == 3
    assert int(g.s[L.G_DUELS]) == 0


def test_turn_sword_symbol_starts_a_fight_with_free_attack():
    """QM-MOVE-07, QM-DUEL-01/04, QM-GAP-27: taking the sword result starts a
    combat as on a Sword square; the pawn stays. Both dice forced to symbols,
    so both Mp are 0 and only the free At 2 attack happens: the defender loses
    exactly 2. (Sword + chest; greedy fights when it is stronger: Hp 30 vs 10.)"""
    g = _quiet_pair(("priest", "wizard"))
    g.no_abilities("priest", "wizard")
    g.put(0, 7)
    g.set_hp(0, 30)
    g.set_hp(1, 10)
    g.fix_dice(SWORD, CHEST)
    g.turn(0)
    assert g.pos(0) == 7
    assert int(g.s[L.G_DUELS]) == 1
    assert g.hp(1) == 8
    assert g.hand(0) == []


def test_turn_two_symbols_take_one_bomb_opens_event():
    """QM-MOVE-06/07, QM-GAP-26/27: sword + bomb: the player takes one symbol and
    the pawn does not move; the bomb opens the top Event card like an Event
    square (Healing Spring: Hp +3). Greedy avoids the fight (Hp 5 vs 40)."""
    g = _quiet_pair()
    g.put(0, 9)
    g.set_hp(0, 5)
    g.set_hp(1, 40)
    g.set_event_deck(["healing_spring", "plague"])
    g.fix_dice(SWORD, BOMB)
    g.turn(0)
    assert g.pos(0) == 9
    assert g.hp(0) == 8
    assert g.event_used() == [EVK["healing_spring"]]
    assert int(g.s[L.G_DUELS]) == 0


def test_yellow_bird_shoe_move_three_becomes_four():
    """QM-RULING-07, QM-RULING-08: roll 3 + sword, the player plays the Yellow Bird Shoe after
    the roll and moves 3 + 1 = 4, receiving the effect of square 4 (an Item
    square: draw the top card); the Shoe goes to the used pile::

        0 1 2 3 4
        P . . . I      (square 3 plain, square 4 Item)

    Greedy plays the Shoe because square 4 beats square 3, and prefers the
    4-square move (the opponent is much stronger, so no fight)."""
    g = _quiet_pair()
    g.put(0, 0)
    g.square(4, L.SQ_ITEM)
    g.set_hp(0, 20)
    g.set_hp(1, 40)
    g.set_hand(0, ["yellow_bird_shoe"])
    g.set_item_deck(["shield_5", "sword"])
    g.set_item_used([])
    g.fix_dice(SWORD, 3)
    g.turn(0)
    assert g.pos(0) == 4
    assert g.hand(0) == [IT["shield_5"]]
    assert g.item_used() == [IT["yellow_bird_shoe"]]
    assert int(g.s[L.G_DUELS]) == 0


def test_yellow_bird_shoe_one_square_instead_of_the_fight():
    """QM-RULING-09: on 3 + sword, the Shoe lets the player move 1 square instead
    of taking the fight; there is no fight and square 1's effect applies
    (an Item square: draw 1)::

        0 1 2 3 4
        P I . S .      (square 1 Item, square 3 Sword, square 4 plain)
    """
    g = _quiet_pair()
    g.put(0, 0)
    g.square(1, L.SQ_ITEM)
    g.square(3, L.SQ_SWORD)
    g.set_hp(0, 20)
    g.set_hp(1, 40)
    g.set_hand(0, ["yellow_bird_shoe"])
    g.set_item_deck(["shield_5", "sword"])
    g.fix_dice(SWORD, 3)
    g.turn(0)
    assert g.pos(0) == 1
    assert g.hand(0) == [IT["shield_5"]]
    assert int(g.s[L.G_DUELS]) == 0
    # the forum's order: the player chooses to fight, then plays the Shoe,
    # which turns the fight into a 1-square move
    assert g.events("choice") == [(0, L.A_SYMBOL, 1, 0, 0)]
    assert g.events("extra_move") == [(0, 1, 1, 0, 0)]


def _shoe_race(shoe_any, seed=1):
    """Seat 0 (Robot) on square 4 rolls 2 + 2: a move of 4 lands on the
    Wizard School (square 8), a castle it has not landed on; seat 1 (Priest)
    holds a Yellow Bird Shoe. Every other square is plain::

        4 . . . 8 9
        R       W .      (R: the Robot's pawn, W: the Wizard School)
    """
    g = _quiet_pair(("robot", "priest"), seed=seed)
    g.T[TB.P_SHOE_ANY_PLAYER] = shoe_any
    g.square(SQ_WIZARD, L.SQ_CASTLE)
    g.put(0, 4)
    g.set_hand(1, ["yellow_bird_shoe"])
    g.set_item_used([])
    g.fix_dice(2, 2)
    g.clear_log()
    g.turn(0)
    return g


def test_yellow_bird_shoe_any_player_may_play_it_on_another_players_roll():
    """QM-RULING-07, QM-GAP-49 (toggle shoe_any_player = true; default false):
    "It is used when any player has finished rolling the dice. It adds 1 square
    of movement." The Priest (greedy) plays its Shoe on the Robot's roll: the
    Robot's move of 4 becomes 5, past the castle it was about to land on
    (square 9, no castle marked); the Shoe goes to the used pile."""
    g = _shoe_race(1)
    assert g.events("play_item") == [(1, IT["yellow_bird_shoe"], 0, 0, 0)]
    assert g.events("extra_move") == [(0, 1, 5, 0, 0)]
    assert g.pos(0) == SQ_WIZARD + 1
    assert g.castles(0) == 0
    assert g.hand(1) == [] and g.item_used() == [IT["yellow_bird_shoe"]]


def test_yellow_bird_shoe_own_roll_only_with_toggle_off():
    """QM-GAP-49, QM-GAP-18 (toggle shoe_any_player = false, the default: only
    the roller plays a Shoe, on its own roll, in its own turn): the same
    position, the Priest keeps its Shoe and the Robot
    lands on the Wizard School, which counts for the five castles."""
    g = _shoe_race(0)
    assert g.events("play_item") == []
    assert g.pos(0) == SQ_WIZARD
    assert g.castles(0) == 1 << CASTLE["wizard_school"]
    assert g.hand(1) == [IT["yellow_bird_shoe"]]


def test_yellow_bird_shoe_on_another_players_fight_cancels_it():
    """QM-RULING-09 played by another player (toggle shoe_any_player = true): the
    Robot (Hp 40) rolls 3 + sword and chooses the fight against the Priest
    (Hp 5); the Priest plays its Shoe, so the Robot moves 1 square instead
    and there is no fight ("The player then does not fight")."""
    g = _quiet_pair(("robot", "priest"))
    g.put(0, 0)
    g.set_hp(0, 40)
    g.set_hp(1, 5)
    g.T[TB.P_SHOE_ANY_PLAYER] = 1
    g.set_hand(1, ["yellow_bird_shoe"])
    g.fix_dice(SWORD, 3)
    g.clear_log()
    g.turn(0)
    assert g.events("choice") == [(0, L.A_SYMBOL, 1, 0, 0)]
    assert g.events("play_item") == [(1, IT["yellow_bird_shoe"], 0, 0, 0)]
    assert int(g.s[L.G_DUELS]) == 0
    assert g.pos(0) == 1
    assert g.hp(1) == 5


# =================================================================== warps ==

MASK_ALL_BUT_CHURCH = ALL_CASTLES & ~(1 << CASTLE["church"])
MASK_ALL_BUT_WIZARD = ALL_CASTLES & ~(1 << CASTLE["wizard_school"])


def test_warp_on_passing_moves_and_stops():
    """QM-SQUARE-08, QM-GAP-22: passing a Warp (square 4) is enough to warp to
    another Warp, after which the pawn stops at once (the third step is not
    taken)::

        2 3 [4] 5          moving 3 from square 2
              \\--> 12      (greedy warps: its only missing castle, the Church 16, is 4 beyond 12)
    """
    g = QGame(["robot", "priest"])
    g.put(0, 2)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    assert g.walk(0, 3) == (12, True)
    assert g.pos(0) == 12
    assert g.events("warp") == [(0, 4, 12, 0, 0)]


def test_warp_is_optional_pawn_continues():
    """QM-SQUARE-08 ("may"): the player may decline the warp and finish the move:
    from 2, 3 squares end on 5 (greedy's missing castle, the Wizard School at 8,
    is nearest without warping)."""
    g = QGame(["robot", "priest"])
    g.put(0, 2)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_WIZARD)
    assert g.walk(0, 3) == (5, False)
    assert g.events("warp") == []


def test_warp_on_landing_follows_toggle():
    """QM-GAP-22 (toggle warp_on_landing, default true): ending a move exactly on a
    Warp allows the warp; with the toggle off it does not."""
    g = QGame(["robot", "priest"])
    g.put(0, 2)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    assert g.walk(0, 2) == (12, True)
    g = QGame(["robot", "priest"])
    g.T[TB.P_WARP_ON_LANDING] = 0
    g.put(0, 2)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    assert g.walk(0, 2) == (4, False)


def test_warp_in_a_turn_gives_no_square_effect():
    """QM-SQUARE-02/08, QM-GAP-22: after a warp the turn has no landing effect:
    rolling 1 + 2 from square 2 passes the Warp at 4 and warps to 12; nothing
    is drawn and no event opened (the pawn would otherwise land on Item 5)."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.put(0, 2)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    g.fix_dice(1, 2)
    items, events = int(g.s[L.G_ITEM_N]), int(g.s[L.G_EVENT_N])
    hp = g.hp(0)
    g.turn(0)
    assert g.pos(0) == 12
    assert g.hand(0) == []
    assert (int(g.s[L.G_ITEM_N]), int(g.s[L.G_EVENT_N]), g.hp(0)) == (items, events, hp)


# ================================================================= castles ==

def test_castle_lower_ability_for_own_race_instead_of_upper():
    """QM-CARD-15, QM-SQUARE-04: a Robot landing on the Scientist's House gets the
    lower ability (Hp +4) and not the upper one, even though the blue die
    would show a bomb (upper: Hp -3). The castle is marked as landed."""
    g = QGame(["robot", "priest"])
    g.set_hp(0, 10)
    g.fix_dice(1, BOMB)
    g.land(0, SQ_SCIENTIST)
    assert g.hp(0) == 14
    assert g.castles(0) == 1 << CASTLE["scientist_house"]


@pytest.mark.parametrize("blue,delta,cards", [(2, 2, 0), (BOMB, -3, 0), (CHEST, 0, 1)])
def test_castle_upper_ability_for_other_races(blue, delta, cards):
    """QM-CARD-15, QM-SQUARE-04: a Priest on the Scientist's House follows the
    upper ability (roll blue: number Hp +2, bomb Hp -3, chest draw 1)."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_hp(1, 10)
    g.fix_dice(1, blue)
    g.land(1, SQ_SCIENTIST)
    assert g.hp(1) == 10 + delta
    assert len(g.hand(1)) == cards
    assert g.castles(1) == 1 << CASTLE["scientist_house"]


@pytest.mark.parametrize("red,gain", [(SWORD, 1), (1, 1), (3, 3), (4, 4)])
def test_church_non_priest_gains_die_roll_symbol_is_one(red, gain):
    """QM-CARD-16, QM-GAP-17: a non-Priest on the Church rolls a die and gains that
    many Hp, a symbol counting 1."""
    g = QGame(["robot", "priest"])
    g.set_hp(0, 10)
    g.fix_dice(red, 1)
    g.land(0, SQ_CHURCH)
    assert g.hp(0) == 10 + gain


def test_church_priest_gains_five():
    """QM-CARD-16, QM-CARD-15: a Priest on the Church gains Hp +5 instead of the
    roll (the die is forced to 1, which would give +1)."""
    g = QGame(["robot", "priest"])
    g.set_hp(1, 10)
    g.fix_dice(1, 1)
    g.land(1, SQ_CHURCH)
    assert g.hp(1) == 15


# ==================================================================== wins ==

def test_five_castles_passing_the_last_does_not_win():
    """QM-END-04, QM-GAP-21: a Robot that has landed on four castles passes the
    fifth (the Church, 16) on a roll of 1 + 2 from 14 and stops on 17: no win,
    the Church is not marked::

        14 15 [16] 17
        R ----------> R
    """
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.put(0, 14)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    g.fix_dice(1, 2)
    g.turn(0)
    assert g.pos(0) == 17
    assert g.win == (L.WIN_NONE, -1)
    assert g.castles(0) == MASK_ALL_BUT_CHURCH


def test_five_castles_landing_on_the_last_wins():
    """QM-END-04: the same Robot rolling 1 + 1 lands on the Church and wins at once."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.put(0, 14)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    g.fix_dice(1, 1)
    g.turn(0)
    assert g.pos(0) == SQ_CHURCH
    assert g.win == (L.WIN_CASTLES, 0)
    assert g.castles(0) == ALL_CASTLES


def test_the_castle_race_counts_lead_changes_and_each_seats_deepest_deficit():
    """QM-END-04 (the five-castle race), counted for the report's closeness
    table and changing no play: the living seat alone ahead in castles is
    the leader (a tie keeps the one before); a change of leader is counted,
    the first leader is not; each seat's deepest deficit behind the most
    castles is kept; the result row has the count and the winner's deficit
    (-1 while nobody has won)."""
    from questsim import movement
    g = QGame(["robot", "priest", "knight"])
    for p in range(3):
        g.set(p, L.S_CASTLES, 0)

    def land(p, sq):
        movement.mark_castle(g.s, g.T, g.ev, p, sq)
        return int(g.s[L.G_LEADER]) - 1, int(g.s[L.G_LEAD_CHANGES])
    assert land(0, SQ_CASTLE) == (0, 0)            # the first leader: no change
    assert land(1, SQ_CASTLE) == (0, 0)            # a tie keeps seat 1 (index 0) ahead
    assert land(1, SQ_WIZARD) == (1, 1)            # seat 2 alone ahead: one change
    assert land(1, SQ_WIZARD) == (1, 1)            # the same castle again adds nothing
    assert land(0, SQ_WIZARD) == (1, 1)            # a tie again
    assert land(0, SQ_CHURCH) == (0, 2)            # back to seat 1
    assert [int(g.s[L.G_DEFICIT + p]) for p in range(3)] == [1, 1, 3]
    row = np.zeros(L.NRES, np.int32)
    E.result_row(g.s, g.T, row)
    assert (row[L.RI_LEAD_CHANGES], row[L.RI_WINNER_DEFICIT]) == (2, -1)


def test_five_castles_card_move_onto_castle_counts():
    """QM-GAP-42, QM-RULING-06 (toggle card_moves_mark_castles, default true): an
    Event card's move that ends on the last castle lands there and wins
    (Tailwind: forward 2 from the Event square 14 to the Church 16)."""
    g = QGame(["robot", "priest"])
    g.put(0, 14)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    g.set_event_deck(["tailwind"])
    g.land(0, 14)
    assert g.pos(0) == SQ_CHURCH
    assert g.win == (L.WIN_CASTLES, 0)


def test_card_move_onto_castle_does_not_count_with_toggle_off():
    """QM-GAP-42 (toggle card_moves_mark_castles = false): only dice moves mark a
    castle; the Tailwind move onto the Church does not, so no win (the
    Church's upper ability still applies: the red die forced to 2 gives +2)."""
    g = QGame(["robot", "priest"])
    g.T[TB.P_CARD_MOVES_MARK_CASTLES] = 0
    g.set_hp(0, 10)
    g.fix_dice(2, 1)
    g.set(0, L.S_CASTLES, MASK_ALL_BUT_CHURCH)
    g.set_event_deck(["tailwind"])
    g.land(0, 14)
    assert g.pos(0) == SQ_CHURCH
    assert g.win == (L.WIN_NONE, -1)
    assert g.castles(0) == MASK_ALL_BUT_CHURCH
    assert g.hp(0) == 12


def test_start_marks_home_castle_toggle():
    """QM-GAP-09 (toggle start_marks_home_castle = true): the home castle counts as
    landed from setup."""
    g = QGame(["robot", "priest"], pre=lambda T: T.__setitem__(TB.P_START_MARKS_HOME_CASTLE, 1))
    assert g.castles(0) == 1 << CASTLE["scientist_house"]
    assert g.castles(1) == 1 << CASTLE["church"]


def test_start_on_home_castle_does_not_count():
    """QM-GAP-09: setup placing the pawn on its home castle is not landing there."""
    g = QGame(["robot", "priest"])
    assert g.castles(0) == 0 and g.castles(1) == 0


def test_hp_over_40_wins_exactly_40_does_not():
    """QM-END-05: Hp 40 is not a win; Hp 41 wins at once."""
    g = QGame(["robot", "priest"])
    g.set_hp(0, 37)
    g.gain(0, 3)
    assert g.hp(0) == 40
    assert g.win == (L.WIN_NONE, -1)
    g.gain(0, 1)
    assert g.win == (L.WIN_HP, 0)


def test_hp_over_40_by_castle():
    """QM-END-05, QM-CARD-16: a Priest at Hp 36 landing on the Church (+5) reaches
    41 and wins."""
    g = QGame(["robot", "priest"])
    g.set_hp(1, 36)
    g.land(1, SQ_CHURCH)
    assert g.hp(1) == 41
    assert g.win == (L.WIN_HP, 1)


def test_several_over_40_at_once_first_in_turn_order_from_active_wins():
    """QM-END-05, QM-GAP-43: Festival (every player Hp +1) lifts seats 0 and 2 from
    40 to 41 when seat 1 opens it: the first of them in turn order from the
    active player (1 -> 2 -> 0) wins, i.e. seat 2."""
    g = QGame(["robot", "priest", "wizard"])
    g.set_hp(0, 40)
    g.set_hp(1, 10)
    g.set_hp(2, 40)
    g.set_event_deck(["festival"])
    g.land(1, 2)
    assert g.win == (L.WIN_HP, 2)


def test_last_player_standing_wins():
    """QM-END-02/03: with seat 2 already out, seat 1 dropping to Hp 0 leaves
    seat 0 the last player: it wins at once."""
    g = QGame(["robot", "priest", "wizard"])
    g.clear_hands()
    g.lose(2, 99)
    assert g.win == (L.WIN_NONE, -1)
    g.lose(1, 99)
    assert g.win == (L.WIN_LAST_STANDING, 0)


def test_safety_cap_outcome():
    """Safety cap (rules.safety_cap_rounds; not a rulebook rule): a game still
    running after the cap ends with its own outcome (WIN_CAP), no winner,
    after exactly cap rounds of one turn per player. Quiet game: the dice
    show sword + chest, Mp is 0, every fight costs 2 Hp, Hp 20 each."""
    g = QGame(["robot", "priest", "swordsman", "wizard"], seed=2)
    g.fix_dice(SWORD, CHEST)
    g.clear_hands()
    for p in range(4):
        g.set_hp(p, 20)
    g.T[TB.P_SAFETY_CAP_ROUNDS] = 3
    g.play()
    assert g.win == (L.WIN_CAP, -1)
    assert int(g.s[L.G_ROUND]) == 3
    assert int(g.s[L.G_TURNS]) == 12
    out = np.zeros(L.NRES, np.int32)
    E.result_row(g.s, g.T, out)
    assert out[L.RESULT_INDEX["win_condition"]] == L.WIN_CAP
    assert out[L.RESULT_INDEX["winner_seat"]] == -1


# ============================================================ hand & decks ==

def test_hand_limit_five_player_chooses_discard():
    """QM-HAND-02, QM-HAND-03, QM-GAP-28: drawing a 6th card forces one discard at once, the
    player chooses which (greedy drops its weakest: the old Sword, not the new
    Shield +5), and the discard goes to the used Item pile."""
    g = QGame(["robot", "priest"])
    g.set_hand(0, ["shield_5"] * 4 + ["sword"])
    g.set_item_deck(["shield_5"])
    g.set_item_used([])
    g.draw(0)
    assert g.hand(0) == [IT["shield_5"]] * 5
    assert g.item_used() == [IT["sword"]]


def test_hand_limit_on_item_square():
    """QM-SQUARE-06, QM-HAND-02: landing on an Item square with 5 cards draws the
    top card and the hand goes back to 5 at once."""
    g = QGame(["robot", "priest"])
    g.set_hand(0, ["battle_axe"] * 5)
    g.set_item_deck(["sword", "phoenix"])
    g.set_item_used([])
    g.land(0, 1)
    assert len(g.hand(0)) == 5
    assert g.hand(0) == [IT["battle_axe"]] * 5
    assert g.item_used() == [IT["sword"]]


def test_item_deck_reshuffles_used_pile():
    """QM-HAND-05, QM-GAP-29: drawing from an empty Item deck first shuffles the used
    pile into a new deck: the card drawn is one of the used cards, the other
    two form the deck and the used pile is empty."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.s[L.G_ITEM_N] = 0
    used = ["potion", "phoenix", "sword"]
    g.set_item_used(used)
    g.draw(0)
    assert int(g.s[L.G_ITEM_USED_N]) == 0
    assert int(g.s[L.G_ITEM_N]) == 2
    assert sorted(g.item_deck() + g.hand(0)) == sorted(IT[k] for k in used)
    assert len(g.hand(0)) == 1


def test_empty_deck_and_used_pile_draws_nothing():
    """QM-GAP-29: with the deck and the used pile both empty, nothing is drawn."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.s[L.G_ITEM_N] = 0
    g.set_item_used([])
    g.draw(0)
    assert g.hand(0) == []


def test_event_deck_reshuffles_used_pile():
    """QM-HAND-04/05: an empty Event deck is rebuilt from the used Event pile; the
    card is carried out (Healing Spring, Hp +3) and is used again."""
    g = QGame(["robot", "priest"])
    g.set_hp(0, 10)
    g.s[L.G_EVENT_N] = 0
    g.set_event_used(["healing_spring"])
    g.land(0, 2)
    assert g.hp(0) == 13
    assert int(g.s[L.G_EVENT_N]) == 0
    assert g.event_used() == [EVK["healing_spring"]]


# ================================================================= squares ==

def test_item_square_draws_top_card():
    """QM-SQUARE-06, QM-GAP-23: landing on an Item square draws the top Item card."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_item_deck(["phoenix", "sword", "potion"])
    g.land(0, 1)
    assert g.hand(0) == [IT["phoenix"]]
    assert int(g.s[L.G_ITEM_N]) == 2


def test_event_square_opens_top_card():
    """QM-SQUARE-05, QM-CARD-10, QM-HAND-04: landing on an Event square opens the
    top Event card, carries it out (Healing Spring: Hp +3) and it goes to the
    used Event pile."""
    g = QGame(["robot", "priest"])
    g.set_hp(0, 10)
    g.set_event_deck(["healing_spring", "poison_mushroom"])
    g.set_event_used([])
    g.land(0, 2)
    assert g.hp(0) == 13
    assert int(g.s[L.G_EVENT_N]) == 1
    assert g.event_used() == [EVK["healing_spring"]]


def test_sword_square_starts_a_fight():
    """QM-SQUARE-07, QM-DUEL-01/04, QM-GAP-50: landing on a Sword square starts a
    combat with the lander as the attacker; the free first attack costs no Mp
    (both Mp are 0 here) and hits at At 2."""
    g = QGame(["priest", "wizard"])
    g.clear_hands()
    g.no_abilities("priest", "wizard")
    g.fix_dice(SWORD, CHEST)
    g.land(0, 3)
    assert int(g.s[L.G_DUELS]) == 1
    assert g.events("fight") == [(0, 1, 0, 0, 0)]
    assert g.hp(1) == RS.characters["wizard"].hp - 2
    assert g.hp(0) == RS.characters["priest"].hp


# ================================================================== events ==

def test_clown_doll_number_draws_an_item():
    """QM-CARD-11: Clown Doll, red die shows a number: draw 1 Item card."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_event_deck(["clown_doll"])
    g.set_item_deck(["sword", "potion"])
    g.fix_dice(3, 1)
    g.land(0, 2)
    assert g.pos(0) == 2
    assert g.hand(0) == [IT["sword"]]


def test_clown_doll_sword_moves_back_and_new_square_applies():
    """QM-CARD-11, QM-RULING-06: Clown Doll, sword: move back 1 step; the square
    reached (Item, 1) takes effect, so A draws an Item card::

        0   1    2
        C  [I] <- E  A
    """
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_event_deck(["clown_doll"])
    g.set_item_deck(["shield_3", "potion"])
    g.fix_dice(SWORD, 1)
    g.land(0, 2)
    assert g.pos(0) == 1
    assert g.hand(0) == [IT["shield_3"]]


def test_event_move_chain_continues():
    """QM-RULING-06: if the square an Event moves the pawn to is itself an Event
    square whose card moves the pawn again, the chain continues. Square 1 is
    patched to an Event square; two Clown Dolls on top; red die all swords::

        0          1          2
        Castle <- [E] Clown <- E Clown   Robot
    The Robot ends on the Castle (Warrior's), a castle of another race:
    the upper ability rolls red (sword: Hp -2). Both Clowns are used and
    the Castle counts as landed (QM-GAP-42)."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.square(1, L.SQ_EVENT)
    g.set_event_deck(["clown_doll", "clown_doll", "healing_spring"])
    g.set_event_used([])
    g.set_hp(0, 10)
    g.fix_dice(SWORD, 1)
    g.land(0, 2)
    assert g.pos(0) == SQ_CASTLE
    assert g.hp(0) == 8
    assert g.castles(0) == 1 << CASTLE["castle"]
    assert g.event_used() == [EVK["clown_doll"]] * 2
    assert int(g.s[L.G_EVENT_N]) == 1


@pytest.mark.parametrize("char,home,hp_gain", [("robot", SQ_SCIENTIST, 4), ("priest", SQ_CHURCH, 5)])
def test_time_goes_home_and_gets_the_lower_ability(char, home, hp_gain):
    """QM-RULING-05, QM-GAP-47/48: the Time card sends the player to their home
    castle and they receive its effect for their own race (the lower ability:
    Robot Hp +4, Priest Hp +5); the castle counts as landed (QM-GAP-42)."""
    g = QGame([char, "wizard"])
    g.clear_hands()
    g.set_hp(0, 10)
    g.set_event_deck(["time"])
    g.fix_dice(1, BOMB)    # the upper abilities would give Church +1, Scientist's House -3
    g.land(0, 10)
    assert g.pos(0) == home
    assert g.hp(0) == 10 + hp_gain
    cs = RS.board.squares[home].castle
    assert g.castles(0) == 1 << CASTLE[cs]


# ==================================================================== duel ==

def _duel_pair(att="priest", dfn="wizard", red=SWORD, blue=CHEST, R=None):
    g = QGame([att, dfn], R=R)
    g.clear_hands()
    g.no_abilities(att, dfn)
    g.fix_dice(red, blue)
    g.set_item_used([])
    g.clear_log()
    return g


@pytest.mark.parametrize("red,blue,mp", [(4, 1, (4, 1)), (2, 3, (2, 3)), (SWORD, CHEST, (0, 0)),
                                         (1, BOMB, (1, 0))])
def test_duel_mp_rolls_attacker_red_defender_blue(red, blue, mp):
    """QM-DUEL-02, QM-GAP-30: the attacker rolls the red die and the defender the
    blue die for Mp; a number gives that Mp, a symbol Mp 0."""
    g = _duel_pair(red=red, blue=blue)
    g.duel(0)
    assert g.events("fight")[0] == (0, 1, mp[0], mp[1], 0)


def test_duel_free_first_attack_is_compulsory():
    """QM-DUEL-04, QM-RULING-01, QM-GAP-34: the attacker's first attack costs no Mp,
    is made at the character's At (2) and cannot be declined: with random
    policies (which would decline half the offered attacks) and Mp 4 each, the
    first attack of every one of 20 combats is the attacker's At 2 attack,
    with the attacker's Mp still 4."""
    for seed in range(20):
        g = QGame(["swordsman", "robot"], policies=RANDOM, seed=seed)
        g.clear_hands()
        g.no_abilities("swordsman", "robot")
        g.fix_dice(4, 4)
        g.clear_log()
        g.duel(0)
        att = g.events("attack")
        assert att[0] == (0, 1, 2, 0, 4)          # At 2, cost 0, Mp left 4
        assert g.events("damage")[0] == (1, 2, 0, 2, 0)


def test_duel_shield_subtracts_from_at():
    """QM-DUEL-05/07, QM-GAP-20, rulebook: "if the attacker attacks with At 5 and
    the defender uses the Item card "Shield +3", the defender loses 2 Hp".
    Attacker Mp 2 pays the Battle Axe (Mp 2, At +3): At 2 + 3 = 5; defender Mp 2
    pays Shield +3 (Mp 2). Damage 2, and then nobody has Mp for an attack."""
    g = _duel_pair(red=2, blue=2)
    g.set_hand(0, ["battle_axe"])
    g.set_hand(1, ["shield_3"])
    g.duel(0)
    assert g.events("damage") == [(1, 5, 3, 2, 0)]
    assert g.hp(1) == RS.characters["wizard"].hp - 2
    assert g.hp(0) == RS.characters["priest"].hp
    assert g.item_used() == sorted([IT["battle_axe"], IT["shield_3"]])


def test_duel_damage_floored_at_zero():
    """QM-DUEL-07, QM-GAP-19: Shield +5 against At 2: the damage is 0 (not -3: a
    shield never heals)."""
    g = _duel_pair(red=SWORD, blue=3)
    g.set_hand(1, ["shield_5"])
    g.duel(0)
    assert g.events("damage") == [(1, 2, 5, 0, 0)]
    assert g.hp(1) == RS.characters["wizard"].hp


def test_duel_alternating_paid_attacks_until_mp_runs_out():
    """QM-DUEL-03, QM-DUEL-08, QM-DUEL-10, QM-DUEL-12, QM-GAP-32, QM-GAP-35: after the free attack the sides
    alternate paid attacks while they can pay. Swordsman (paid Mp 2 -> At 3)
    vs Robot (Mp 2 -> At 2), Mp 4 each, no cards:

        A free At 2 (A Mp 4) | B At 2 (B Mp 2) | A At 3 (A Mp 2) | B At 2 (B Mp 0) | A At 3 (A Mp 0)
    then neither can pay: B loses 2+3+3 = 8, A loses 2+2 = 4, 5 attacks."""
    g = _duel_pair("swordsman", "robot", red=4, blue=4)
    g.duel(0)
    # (attacker, defender, At, cost, Mp left after paying)
    assert g.events("attack") == [(0, 1, 2, 0, 4), (1, 0, 2, 2, 2), (0, 1, 3, 2, 2), (1, 0, 2, 2, 0),
                                  (0, 1, 3, 2, 0)]
    assert g.hp(1) == 23 - 8
    assert g.hp(0) == RS.characters["swordsman"].hp - 4
    assert int(g.s[L.G_ATTACKS]) == 5
    assert g.get(0, L.S_MP) == 0 and g.get(1, L.S_MP) == 0
    # the Robot is due and has Mp 0: it cannot pay, and the combat ends
    assert g.events("cannot_pay") == [(1, 0, 2, 0, 0)]
    assert g.events("duel_end") == [(0, 1, L.END_CANNOT_PAY, 5, 0)]


@pytest.mark.parametrize("lone,attacks,hp_lost", [(0, 1, 2), (1, 3, 8)])
def test_duel_ends_for_both_when_the_side_due_cannot_pay(lone, attacks, hp_lost):
    """QM-DUEL-08/12, QM-GAP-35: "when a player can no longer attack because
    they have no Mp left, the combat ends for both sides". Swordsman (Mp 4,
    paid Mp 2 -> At 3) attacks the Robot (Mp 1: no paid attack, which costs
    Mp 2): after the free At 2 the Robot is due and cannot pay, so the combat
    ends -- the Robot loses 2. With the other reading (toggle
    lone_attacker_continues = true) the Swordsman keeps attacking alone, At 3
    twice more: the Robot loses 2 + 3 + 3 = 8 (seed 1, game 3 of greedy players,
    round 1: Hp 19 -> 17 instead of 19 -> 11)."""
    g = _duel_pair("swordsman", "robot", red=4, blue=1)
    g.T[TB.P_LONE_ATTACKER_CONTINUES] = lone
    g.duel(0)
    assert len(g.events("attack")) == attacks == int(g.s[L.G_ATTACKS])
    assert g.hp(1) == 23 - hp_lost
    assert g.events("cannot_pay")[0] == (1, 1, 2, 0, 0)           # the Robot: Mp 1, cheapest attack Mp 2
    why = L.END_CANNOT_PAY if not lone else L.END_BOTH_STOPPED
    assert g.events("duel_end") == [(0, 1, why, attacks, 0)]


def _check_duel_log(g, mp, cost, at, lone, after_decline):
    """Check a logged combat (seat 0 attacks seat 1, no cards or abilities)
    against the combat rules, step by step, from the log's own records:
    the free attack first; then whenever a side is due, it attacks (paying its
    cost) if it can pay and does not decline; a side that cannot pay ends the
    combat (or, with ``lone``, stops while the other goes on); a side that
    declines stops and the other goes on (or, without ``after_decline``, the
    combat ends); the combat ends when both have stopped. Returns the number
    of declines."""
    recs = [(L.EVENT_NAMES[int(r[0])], int(r[2]), int(r[3]), int(r[4]), int(r[5]))
            for r in g.ev[:int(g.s[L.G_LOGN])]
            if L.EVENT_NAMES[int(r[0])] in ("attack", "decline", "cannot_pay", "duel_end")]
    mp = dict(mp)
    assert recs[0] == ("attack", 0, 1, 2, 0), "the free attack comes first"
    i, due, out, declines, n_att = 1, 1, set(), 0, 1
    while True:
        other = 1 - due
        if due in out:
            due = other
            continue
        ev, who = recs[i][0], recs[i][1]
        if mp[due] < cost[due]:
            assert (ev, who) == ("cannot_pay", due), recs[i]
            i += 1
            if not lone:
                end = L.END_CANNOT_PAY
                break
            out.add(due)
        elif ev == "decline":
            assert who == due, recs[i]
            declines += 1
            i += 1
            out.add(due)
            if not after_decline:
                end = L.END_DECLINED
                break
        else:
            assert recs[i] == ("attack", due, other, at[due], cost[due]), recs[i]
            mp[due] -= cost[due]
            n_att += 1
            i += 1
        if out == {0, 1}:
            end = L.END_BOTH_STOPPED
            break
        if other not in out:
            due = other
    assert recs[i:] == [("duel_end", 0, 1, end, n_att)], recs[i:]
    return declines


@pytest.mark.parametrize("lone,after_decline", [(0, 1), (0, 0), (1, 1), (1, 0)])
def test_duel_declines_and_stops_follow_the_rules(lone, after_decline):
    """QM-DUEL-10/11/12, QM-GAP-34/35, in every reading: a paid attack may be
    declined, and a side that declines makes no more attacks (step 8); by
    default the other side keeps attacking until it stops or cannot pay
    (toggle attacker_continues_after_decline; false: the decline ends the
    combat), and the side due that cannot pay ends the combat for both (step
    9; toggle lone_attacker_continues: the other goes on). Random policies
    (which decline about half the attacks offered), Mp 4 each, 40 combats:
    every logged combat follows these rules, and declines do occur."""
    declines = 0
    for seed in range(40):
        g = QGame(["swordsman", "robot"], policies=RANDOM, seed=seed)
        g.T[TB.P_LONE_ATTACKER_CONTINUES] = lone
        g.T[TB.P_ATTACKER_CONTINUES_AFTER_DECLINE] = after_decline
        g.clear_hands()
        g.no_abilities("swordsman", "robot")
        g.fix_dice(4, 4)
        g.clear_log()
        g.duel(0)
        declines += _check_duel_log(g, {0: 4, 1: 4}, {0: 2, 1: 2}, {0: 3, 1: 2}, lone, after_decline)
    assert declines >= 5


def test_duel_after_a_decline_the_other_side_attacks_again():
    """QM-DUEL-11/12 (toggle attacker_continues_after_decline, default true):
    "A player who has become the attacking side but does not attack may not
    attack again" and the combat ends "when both players have stopped".
    Swordsman (Mp 4) attacks the Robot (Mp 3, Hp 3, holding Shield +3 for
    Mp 2). The Swordsman's free attack is set to At 0 in this position, so
    the Robot keeps its Mp through it. Greedy then declines the Robot's
    counter: paying Mp 2 would leave no Mp for the shield against the
    Swordsman's next At 3, which would knock it out. The Swordsman attacks
    again (the Robot shields it), and once more (the Robot, out of cards, is
    knocked out): three attacks, all the Swordsman's. With the toggle off the
    decline ends the combat after the free attack, and the Robot survives."""
    for after, n_att, alive in ((1, 3, False), (0, 1, True)):
        g = _duel_pair("swordsman", "robot", red=4, blue=3)
        g.T[TB.O_CHAR + CH["swordsman"] * TB.CH + TB.C_AT] = 0
        g.T[TB.P_ATTACKER_CONTINUES_AFTER_DECLINE] = after
        g.set_hp(1, 3)
        g.set_hand(1, ["shield_3"])
        g.duel(0)
        assert g.events("decline") == [(1, 0, 3, 0, 0)]
        assert [e[0] for e in g.events("attack")] == [0] * n_att
        assert g.alive(1) == alive
        why = L.END_DECLINED if not after else L.END_ELIMINATED
        assert g.events("duel_end") == [(0, 1, why, n_att, 0)]


def test_duel_worked_example_of_the_rulebook():
    """QM-DUEL-13 (with QM-DUEL-02, QM-DUEL-03, QM-DUEL-04, QM-DUEL-05, QM-DUEL-06,
    QM-DUEL-07, QM-DUEL-08, QM-DUEL-10, QM-DUEL-12, QM-END-02, QM-END-03,
    QM-GAP-11, QM-GAP-12): the rulebook's example, step by step. Set-up: Player A
    = Swordsman (a Warrior; its printed paid attack is Mp 2 -> At 3, the QM-GAP-12
    ruling) at Hp 3 holding the Item card "Sword"; Player B = Robot at Hp 4 with
    an empty hand. The Robot's shield is +2 as in the example via the ruling's own
    override ``characters.robot.abilities.shield.effects.0.n=2`` (QM-GAP-11). The
    Swordsman's Power Strike ability is switched off in T (the example's Warrior
    uses no ability). Mp dice forced: red (A) 2, blue (B) 3. Greedy plays the
    Sword and the Robot's shield, and attacks whenever it can pay.

        1. Mp: A 2, B 3
        2. A free At 2 + Sword (Mp 0) = At 3
        3. B pays Mp 1 (3 -> 2) for Shield +2: damage 1, B Hp 4 -> 3
        4. B pays Mp 2 (2 -> 0), At 2
        5. A Hp 3 -> 1
        6. A pays Mp 2 (2 -> 0), At 3
        7. B Hp 3 -> 0
        8. B loses (and A, the last player, wins)
    """
    R2 = rules("characters.robot.abilities.shield.effects.0.n=2")
    g = QGame(["swordsman", "robot"], R=R2)
    g.no_abilities("swordsman")
    g.set_hand(0, ["sword"])
    g.set_hand(1, [])
    g.set_hp(0, 3)
    g.set_hp(1, 4)
    g.fix_dice(2, 3)
    g.set_item_used([])
    g.clear_log()
    g.duel(0)
    assert g.events("fight") == [(0, 1, 2, 3, 0)]
    assert g.events("play_item") == [(0, IT["sword"], 0, 2, 0),      # A: Sword, Mp 0, A Mp 2
                                     (1, -1, 1, 2, 0)]               # B: ability 0 (Shield), Mp 1, B Mp 2
    # (attacker, defender, the attack's own At, its cost, Mp left); cards add to the At after
    assert g.events("attack") == [(0, 1, 2, 0, 2), (1, 0, 2, 2, 0), (0, 1, 3, 2, 0)]
    assert g.events("damage") == [(1, 3, 2, 1, 0), (0, 2, 0, 2, 0), (1, 3, 0, 3, 0)]
    assert [e[:2] for e in g.events("hp")] == [(1, -1), (0, -2), (1, -3)]   # 4 -> 3, 3 -> 1, 3 -> 0
    assert g.events("duel_end") == [(0, 1, L.END_ELIMINATED, 3, 0)]
    assert g.hp(0) == 1
    assert g.hp(1) == 0 and not g.alive(1)
    assert g.win == (L.WIN_LAST_STANDING, 0)
    assert int(g.s[L.G_ATTACKS]) == 3
    assert g.item_used() == [IT["sword"]]


def test_duel_worked_example_with_printed_robot_shield_same_outcome():
    """QM-GAP-11, QM-CHAR-08: with the printed Shield +1 the same combat gives
    damage 2 to B first (Hp 4 -> 2), then B hits A to 1 and A's At 3 finishes
    B: the outcome (B loses) is the same."""
    g = QGame(["swordsman", "robot"])
    g.no_abilities("swordsman")
    g.set_hand(0, ["sword"])
    g.set_hand(1, [])
    g.set_hp(0, 3)
    g.set_hp(1, 4)
    g.fix_dice(2, 3)
    g.clear_log()
    g.duel(0)
    assert g.events("damage") == [(1, 3, 1, 2, 0), (0, 2, 0, 2, 0), (1, 3, 0, 3, 0)]
    assert g.win == (L.WIN_LAST_STANDING, 0)


def test_robot_shield_once_per_combat():
    """QM-CHAR-08: the Robot's shield can be used only once per combat: with Mp 4
    it shields the first attack (At 2 - 1 = 1) but not the second (At 3).
    Swordsman vs Robot, Mp 4 each, no cards."""
    g = QGame(["swordsman", "robot"])
    g.no_abilities("swordsman")
    g.clear_hands()
    g.fix_dice(4, 4)
    g.clear_log()
    g.duel(0)
    dmg = [e for e in g.events("damage") if e[0] == 1]
    assert dmg[0] == (1, 2, 1, 1, 0)
    assert all(e[2] == 0 for e in dmg[1:])
    assert len([e for e in g.events("play_item") if e[0] == 1]) == 1


@pytest.mark.parametrize("stack,shield,dmg", [(1, 3, 1), (0, 2, 2)])
def test_shields_stack_ability_and_card(stack, shield, dmg):
    """QM-DUEL-06/07, QM-GAP-13/19 (toggle shields_stack, default true): the Robot
    adds its Shield +1 ability (Mp 1) to a Shield +2 card (Mp 1): against At 4
    (2 + two Swords) the shield is 3 and the damage 1; with the toggle off only
    the largest shield (2) counts: damage 2."""
    g = QGame(["priest", "robot"])
    g.clear_hands()
    g.no_abilities("priest")
    g.T[TB.P_SHIELDS_STACK] = stack
    g.fix_dice(SWORD, 3)
    g.set_hand(0, ["sword", "sword"])
    g.set_hand(1, ["shield_2"])
    g.clear_log()
    g.duel(0)
    assert g.events("damage") == [(1, 4, shield, dmg, 0)]
    assert g.hp(1) == 23 - dmg


def test_max_attacks_per_combat_cap():
    """QM-GAP-36 (rules.max_attacks_per_combat = 2, the forum questioner's reading):
    with Mp 4 each the combat stops after the free attack and one counter."""
    g = _duel_pair("swordsman", "robot", red=4, blue=4)
    g.T[TB.P_MAX_ATTACKS_PER_COMBAT] = 2
    g.duel(0)
    assert g.events("attack") == [(0, 1, 2, 0, 4), (1, 0, 2, 2, 2)]
    assert g.events("duel_end") == [(0, 1, L.END_CAP, 2, 0)]


def test_phoenix_revives_to_five_without_carrying_damage_in_combat():
    """QM-RULING-02, QM-GAP-45: a defender at Hp 1 holding the Phoenix is hit for
    At 2: they revive at Hp 5 (not 4: the extra 1 point is not lost), stay in
    the game, and the Phoenix goes to the used pile."""
    g = _duel_pair()
    g.set_hp(1, 1)
    g.set_hand(1, ["phoenix"])
    g.duel(0)
    assert g.hp(1) == 5
    assert g.alive(1)
    assert g.hand(1) == []
    assert g.item_used() == [IT["phoenix"]]
    assert g.win == (L.WIN_NONE, -1)


def test_phoenix_outside_combat_and_elimination_without_it():
    """QM-RULING-02, QM-GAP-39/45: the Phoenix also saves from Hp 0 outside combat
    (a trap of Hp -3 at Hp 2 gives Hp 5); without one the player is out."""
    g = QGame(["robot", "priest", "wizard"])
    g.clear_hands()
    g.set_hp(0, 2)
    g.set_hand(0, ["phoenix", "sword"])
    g.lose(0, 3)
    assert g.hp(0) == 5 and g.alive(0)
    assert g.hand(0) == [IT["sword"]]
    g.set_hp(1, 2)
    g.lose(1, 3)
    assert g.hp(1) == 0 and not g.alive(1)


def test_fairy_bow_victim_chooses_the_discard():
    """QM-RULING-03, QM-GAP-46: the Fairy Bow (Mp 2, At +1) makes the combat
    opponent discard 1 Item card of the *opponent's* choice. The attacker is
    random (it plays the Bow in some seeds), the victim greedy (it always
    gives up its weakest card, the Sword, never the Shield +5): in every
    combat where the Bow was played the Sword went, at At 3."""
    played = 0
    for seed in range(20):
        g = QGame(["priest", "wizard"], policies=(RANDOM, GREEDY), seed=seed)
        g.clear_hands()
        g.no_abilities("priest", "wizard")
        g.fix_dice(2, CHEST)
        g.set_item_used([])
        g.set_hand(0, ["fairy_bow"])
        g.set_hand(1, ["sword", "shield_5"])
        g.clear_log()
        g.duel(0)
        if IT["fairy_bow"] in g.item_used():
            played += 1
            assert g.hand(1) == [IT["shield_5"]]
            assert g.item_used() == sorted([IT["fairy_bow"], IT["sword"]])
            assert g.events("damage") == [(1, 3, 0, 3, 0)]
        else:
            assert g.hand(1) == sorted([IT["sword"], IT["shield_5"]])
    assert played >= 4


def test_life_mirror_absorbs_attack_and_gains_hp():
    """QM-RULING-04, QM-GAP-44: the absorbing card ("changes the attack power")
    cancels the attack and the user gains its At: the attacker plays two
    Swords (Mp 0 each): At 2 + 1 + 1 = 4; the defender pays the Life Mirror
    (Mp 3): no damage, Hp +4."""
    g = _duel_pair(red=SWORD, blue=3)
    g.set_hand(0, ["sword", "sword"])
    g.set_hand(1, ["life_mirror"])
    hp = g.hp(1)
    g.duel(0)
    assert g.events("absorb") == [(1, 4, L.GAIN_HP, 0, 0)]
    assert g.events("damage") == []
    assert g.hp(1) == hp + 4


@pytest.mark.parametrize("lone,robot_attacks", [(0, 1), (1, 2)])
def test_mana_mirror_absorbs_attack_and_gains_mp(lone, robot_attacks):
    """QM-RULING-04, QM-GAP-31/44: the Mana Mirror (Mp 2) absorbs an At 4 attack
    (At 2 + two Swords) and gives Mp 4 for this combat; the Robot pays Mp 2 for
    an At 2 attack. Then the Priest (Mp 0) is due and cannot pay, so the
    combat ends (QM-DUEL-12): the Priest loses 2. With toggle
    lone_attacker_continues the Robot attacks again: the Priest loses 4."""
    g = _duel_pair("priest", "robot", red=SWORD, blue=2)
    g.T[TB.P_LONE_ATTACKER_CONTINUES] = lone
    g.set_hand(0, ["sword", "sword"])
    g.set_hand(1, ["mana_mirror"])
    g.duel(0)
    assert g.events("absorb") == [(1, 4, L.GAIN_MP, 0, 0)]
    assert g.events("attack") == [(0, 1, 2, 0, 0), (1, 0, 2, 2, 2), (1, 0, 2, 2, 0)][:1 + robot_attacks]
    assert g.hp(1) == 23
    assert g.hp(0) == RS.characters["priest"].hp - 2 * robot_attacks


def test_attack_cards_only_while_attacking_shield_cards_only_while_defending():
    """QM-CARD-04, QM-CARD-05, QM-CARD-07, QM-CARD-08, QM-DUEL-06: a defender cannot use an attack card and an
    attacker cannot use a shield card; red (foot) cards are never combat
    cards. Attacker holds Shield +2 and a Potion, defender a Battle Axe; all
    affordable (Mp 4 each): none is played, the free attack does 2."""
    g = _duel_pair(red=4, blue=4)
    g.set_hand(0, ["shield_2", "potion"])
    g.set_hand(1, ["battle_axe"])
    g.T[TB.P_MAX_ATTACKS_PER_COMBAT] = 1
    g.duel(0)
    assert g.events("play_item") == []
    assert g.events("damage") == [(1, 2, 0, 2, 0)]


# ============================================================= elimination ==

def test_elimination_pawn_off_hand_to_used_pile():
    """QM-END-02, QM-GAP-39/40: at Hp 0 the player is out: Hp 0 (never below),
    pawn off the board, hand to the used Item pile; the game goes on while
    two players remain."""
    g = QGame(["robot", "priest", "wizard"])
    g.set_item_used([])
    g.set_hand(1, ["sword", "potion"])
    g.set_hp(1, 2)
    g.lose(1, 5)
    assert not g.alive(1)
    assert g.hp(1) == 0
    assert g.pos(1) == -1
    assert g.hand(1) == []
    assert g.item_used() == sorted([IT["sword"], IT["potion"]])
    assert int(g.s[L.G_ELIMINATED]) == 1
    assert g.win == (L.WIN_NONE, -1)


def test_eliminated_player_is_skipped_and_cannot_be_fought():
    """QM-GAP-25/40: an eliminated player takes no turns and cannot be chosen as
    an opponent. Quiet round (sword + chest, Mp 0), seat 1 out: 2 turns only,
    and every fight is between seats 0 and 2."""
    g = QGame(["robot", "priest", "wizard"], seed=4)
    g.clear_hands()
    for p in range(3):
        g.set_hp(p, 20)
    g.lose(1, 99)
    g.fix_dice(SWORD, CHEST)
    g.T[TB.P_SAFETY_CAP_ROUNDS] = 2
    g.clear_log()
    g.play()
    assert 1 not in [e[0] for e in g.events("turn")]
    assert int(g.s[L.G_TURNS]) == 4
    assert all({e[0], e[1]} == {0, 2} for e in g.events("fight"))
    # and directly: seat 0's fight can only be against seat 2
    g.clear_log()
    g.duel(0)
    assert g.events("fight")[0][:2] == (0, 2)


# ============================================ the checklist, rule by rule ==
# Tests for the checklist rules no other test checked (one or more per ID).
# Positions are hand-built where one can show the rule; where a rule is
# about every moment of play (when a card may be used, where a used card
# goes), it is checked over logged games of random players, who try every
# legal option.

NON_CARD_SECTIONS = {"meta", "toggles", "rules", "components", "dice", "symbols", "landing", "board", "provenance",
                     "names"}


def test_exactly_four_card_types():
    """QM-CARD-01: "Quest Master has 4 types of card": Character, Item, Event
    and Castle. The ruleset's card tables are exactly these four (everything
    else in the file is a rule, a toggle or the board), a fifth kind of card
    is refused by the validator, and a game holds each kind in one place:
    a Character card per seat, Item cards in the Item deck and the hands,
    Event cards in the Event deck, one Castle card per castle square."""
    raw = load_raw()
    assert set(raw) - NON_CARD_SECTIONS == {"characters", "items", "events", "castles"}
    bad = copy.deepcopy(raw)
    bad["spells"] = {"fireball": {"name": "Fireball"}}
    assert validate(bad)[1] == ["spells: unknown key"]
    g = QGame(["robot", "priest", "witch"], seed=2)
    nch, nik, nek = len(RS.characters), len(RS.items), len(RS.events)
    for p in range(3):
        assert 0 <= g.get(p, L.S_CHAR) < nch
        assert all(0 <= k < nik for k in g.hand(p))
    assert all(0 <= k < nik for k in g.item_deck())
    events = [int(x) for x in g.s[L.G_EVENT_DECK:L.G_EVENT_DECK + int(g.s[L.G_EVENT_N])]]
    assert sorted(set(events)) == list(range(nek))
    castle_of = [int(g.T[TB.O_SQ_CASTLE + i]) for i, sq in enumerate(RS.board.squares) if sq.kind == "castle"]
    assert sorted(castle_of) == list(range(len(RS.castles))) == list(range(5))


def test_item_cards_come_from_item_squares_character_and_event_abilities():
    """QM-CARD-02: "Item cards are gained by landing on an Item square, or from
    the ability of a Character card or an Event card". Each way, from a known
    Item deck (top card first: Shield +5, Sword, Potion):
    - an Item square: the top card;
    - the Witch's ability Conjure (Mp 1: draw 1; the Witch attacks with
      Mp 1, the Robot has Mp 0 and no ability): the top card;
    - the Event card Treasure Chest (blue die forced to 2: draw 2): the top two."""
    deck = ["shield_5", "sword", "potion"]
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_item_deck(deck)
    g.land(0, 1)
    assert RS.board.squares[1].kind == "item"
    assert g.hand(0) == [IT["shield_5"]]

    g = QGame(["witch", "robot"])
    g.clear_hands()
    g.no_abilities("robot")
    g.set_item_deck(deck)
    g.fix_dice(1, SWORD)
    g.clear_log()
    g.duel(0)
    assert g.events("play_item") == [(0, -1, 1, 0, 0)]          # ability 0 (Conjure), Mp 1, Mp 0 left
    assert g.hand(0) == [IT["shield_5"]]

    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_item_deck(deck)
    g.set_event_deck(["treasure_chest"])
    g.fix_dice(1, 2)
    g.land(0, 2)
    assert g.hand(0) == sorted([IT["shield_5"], IT["sword"]])


def _card_timing(recs, counts):
    """Check every Item card played in one logged game against the time its
    card allows (QM-CARD-03, QM-CARD-04, QM-CARD-05, QM-CARD-06, QM-CARD-07,
    QM-TURN-02): a blue (combat) card only in a
    combat, by one of its two sides: a sword card by the side attacking, a
    shield card by the side attacked, a sword-and-shield card by either; its
    casting cost as printed. A red (foot) card never in a combat, and only
    in its window: before the roll (the player whose turn it is), after the
    roll (its movement choice made, before the move), after the move (before
    the square). A Phoenix only when its holder's Hp reached 0."""
    phase, seat_of_turn, duel, attack = None, None, None, None
    for i, r in enumerate(recs):
        ev, p = r["event"], r["seat"]
        if ev == "turn":
            phase, seat_of_turn = "before_roll", p
        elif ev == "roll":
            phase = "rolled"
        elif ev == "choice":
            phase = "after_roll"
        elif ev in ("move", "warp"):
            phase = "after_move" if phase == "after_roll" else "other"
        elif ev in ("land", "event", "draw_item", "discard"):
            phase = "other"
        elif ev == "fight":
            duel, phase = (p, r["defender"]), "other"
        elif ev == "attack":
            attack = (p, r["defender"])
        elif ev == "duel_end":
            duel, attack = None, None
        elif ev == "revive":
            assert (recs[i - 1]["event"], recs[i - 1]["seat"], recs[i - 1]["hp"]) == ("hp", p, 0), r
            counts["hp_zero"] += 1
        elif ev == "play_item" and "item_name" in r:
            it = RS.items[r["item_name"]]
            assert r["cost"] == it.cost, r
            if it.colour == "blue":
                assert duel is not None and attack is not None and p in duel, r
                side = {"sword": (attack[0],), "shield": (attack[1],), "sword_shield": attack}[it.symbol]
                assert p in side, r
                counts[(it.symbol, "attacking" if p == attack[0] else "defending")] += 1
            else:
                assert duel is None and it.symbol == "foot", r
                assert phase == it.when, (r, phase)
                if it.when != "after_roll":          # any player's Shoe (toggle shoe_any_player)
                    assert p == seat_of_turn, r
                counts[it.when] += 1


def test_combat_cards_only_in_combat_foot_cards_only_at_their_moment():
    """QM-CARD-03, QM-CARD-04, QM-CARD-05, QM-CARD-06, QM-CARD-07, QM-TURN-02:
    over 30 logged games of random players (who play any card the engine
    offers, about half the time), every Item card is played only when its
    kind allows (``_card_timing``): combat cards "only when two players are
    fighting", by the side their symbol names; outside-combat (foot) cards
    only "at that point and at no other time", never in a combat. And the
    cards are played at each of those times."""
    counts = Counter()
    for game in range(30):
        recs = replay(seed=21, game=game, players=3 + game % 4, policies=("random",), rules=R0).records()
        _card_timing(recs, counts)
    for key in (("sword", "attacking"), ("shield", "defending"), ("sword_shield", "attacking"),
                ("sword_shield", "defending"), "before_roll", "after_roll", "hp_zero"):
        assert counts[key] > 0, (key, counts)


def test_shield_cards_only_by_the_side_attacked():
    """QM-CARD-05: "The card can be used only when you are defending, or when
    an opponent attacks you." Swordsman (Mp 4) against Robot (Mp 4, ability
    off), random players each holding Shield +2 and Shield +3, 30 combats of
    up to five attacks: every shield card is played by the defender of the
    attack under way, never by its attacker -- and both players, each in
    turn the defender, do play them."""
    by = Counter()
    for seed in range(30):
        g = QGame(["swordsman", "robot"], policies=RANDOM, seed=seed)
        g.clear_hands()
        g.no_abilities("swordsman", "robot")
        g.set_hand(0, ["shield_2", "shield_3"])
        g.set_hand(1, ["shield_2", "shield_3"])
        g.fix_dice(4, 4)
        g.clear_log()
        g.duel(0)
        attack = None
        for row in g.ev[:int(g.s[L.G_LOGN])]:
            name, rec = L.EVENT_NAMES[int(row[0])], [int(x) for x in row[2:]]
            if name == "attack":
                attack = (rec[0], rec[1])
            elif name == "play_item":
                assert rec[0] == attack[1], (seed, attack, rec)
                by[rec[0]] += 1
    assert by[0] > 0 and by[1] > 0


def test_sword_and_shield_card_either_attacking_or_defending():
    """QM-CARD-06: a card with both symbols "can be used at either time". Both
    players hold a Magic Staff (Mp 1: At +1 with an attack, Shield +1 against
    one); Mp 1 each (no paid attack, which costs 2). The attacker plays it
    with the free attack (At 2 + 1 = 3) and the defender plays its own
    against it (Shield 1): damage 2."""
    g = _duel_pair(red=1, blue=1)
    g.set_hand(0, ["magic_staff"])
    g.set_hand(1, ["magic_staff"])
    g.duel(0)
    assert g.events("play_item") == [(0, IT["magic_staff"], 1, 0, 0), (1, IT["magic_staff"], 1, 0, 0)]
    assert g.events("damage") == [(1, 3, 1, 2, 0)]
    assert g.hp(1) == RS.characters["wizard"].hp - 2


def test_foot_cards_only_at_the_time_their_text_names():
    """QM-CARD-07: a foot card "can be used before we roll the movement dice"
    only then. A greedy player holding a Potion (before the roll: Hp +3), a
    Yellow Bird Shoe (after the roll) and a Sword (a combat card), Hp 10,
    rolls 1 + 1 on a quiet board: the Potion is played before the roll and
    nothing else is played before it; the Sword is not played outside a
    combat. In a combat the same player (Mp 4, the attacker) plays neither
    foot card, only the Sword."""
    g = _quiet_pair()
    g.put(0, 0)
    g.set_hp(0, 10)
    g.set_hand(0, ["potion", "yellow_bird_shoe", "sword"])
    g.fix_dice(1, 1)
    g.clear_log()
    g.turn(0)
    names = [L.EVENT_NAMES[int(r[0])] for r in g.ev[:int(g.s[L.G_LOGN])]]
    assert names[:4] == ["turn", "play_item", "hp", "roll"]
    assert g.events("play_item") == [(0, IT["potion"], 0, 0, 0)]
    assert g.hp(0) == 13
    assert IT["sword"] in g.hand(0)

    g = _duel_pair(red=4, blue=SWORD)
    g.set_hp(0, 10)
    g.set_hand(0, ["potion", "holy_water", "yellow_bird_shoe", "sword"])
    g.T[TB.P_MAX_ATTACKS_PER_COMBAT] = 1
    g.duel(0)
    assert g.events("play_item") == [(0, IT["sword"], 0, 4, 0)]
    assert g.hand(0) == sorted([IT["potion"], IT["holy_water"], IT["yellow_bird_shoe"]])


def test_casting_cost_is_paid_from_mp_and_red_cards_cost_nothing():
    """QM-CARD-08, QM-DUEL-03: a blue card's casting cost is the Mp needed to
    use it, paid from the combat's Mp: random attackers holding the Sword
    (Mp 0), the Great Sword (Mp 1) and the Battle Axe (Mp 2) with Mp 2
    ("with 2 Mp, ... casting costs of 0, 1 or 2"): every card played costs
    what it prints and no more than the Mp left, which drops by exactly that;
    each is played in some combat. A defender with Mp 2 never plays its
    Shield +5 (Mp 3). A red card has no casting cost: the Potion is played
    before the roll with no Mp at all (cost 0, Mp 0)."""
    played = Counter()
    for seed in range(30):
        g = QGame(["priest", "wizard"], policies=RANDOM, seed=seed)
        g.clear_hands()
        g.no_abilities("priest", "wizard")
        g.set_hand(0, ["sword", "great_sword", "battle_axe"])
        g.set_hand(1, ["shield_5"])
        g.fix_dice(2, 2)
        g.T[TB.P_MAX_ATTACKS_PER_COMBAT] = 1
        g.clear_log()
        g.duel(0)
        mp = 2
        for seat, kind, cost, left, _ in g.events("play_item"):
            assert seat == 0, (seed, kind)
            assert cost == RS.items[R0.names.items[kind]].cost <= mp, (seed, kind, cost, mp)
            assert left == mp - cost
            mp = left
            played[kind] += 1
    assert set(played) == {IT["sword"], IT["great_sword"], IT["battle_axe"]}
    g = _quiet_pair()
    g.set_hand(0, ["potion"])
    g.fix_dice(1, 1)
    g.clear_log()
    g.turn(0)
    assert g.events("play_item") == [(0, IT["potion"], 0, 0, 0)]
    assert g.get(0, L.S_MP) == 0


def test_original_attacker_defends_with_shield_cards_when_roles_switch():
    """QM-DUEL-09: "The original attacker now becomes the defender, and may use
    the Item cards marked 'used while an opponent attacks'." Swordsman (Mp 1)
    attacks the Robot (Mp 3, ability off); each holds a Shield +2 (Mp 1):

        1. free At 2 on the Robot: the Robot shields (Mp 3 -> 2), damage 0
        2. the Robot pays Mp 2 (-> 0) for its At 2 attack: the Swordsman, now
           the defender, shields (Mp 1 -> 0), damage 0
        3. the Swordsman is due with Mp 0: the combat ends"""
    g = _duel_pair("swordsman", "robot", red=1, blue=3)
    g.set_hand(0, ["shield_2"])
    g.set_hand(1, ["shield_2"])
    g.duel(0)
    assert g.events("attack") == [(0, 1, 2, 0, 1), (1, 0, 2, 2, 0)]
    assert g.events("play_item") == [(1, IT["shield_2"], 1, 2, 0), (0, IT["shield_2"], 1, 0, 0)]
    assert g.events("damage") == [(1, 2, 2, 0, 0), (0, 2, 2, 0, 0)]
    assert g.hp(0) == RS.characters["swordsman"].hp and g.hp(1) == 23
    assert g.item_used() == [IT["shield_2"]] * 2


# ------------------------------------------------------- set-up and decks --

def test_each_player_keeps_the_chosen_character_card_all_game():
    """QM-SETUP-03: each player takes the Character card of the profession
    chosen and keeps it for the whole game. Chosen cards: each seat has that
    card, its race, Hp and At; cards dealt at random (a seat given -1) are
    all different (QM-GAP-08). Over 12 logged games, every seat's character
    and race are the same at the start of every turn and at the end,
    eliminated players included."""
    chars = ["witch", "ghost", "knight", "robot"]
    g = QGame(chars)
    for p, c in enumerate(chars):
        ch = RS.characters[c]
        assert g.get(p, L.S_CHAR) == CH[c]
        assert R0.names.races[g.get(p, L.S_RACE)] == ch.race
        assert g.hp(p) == ch.hp and int(g.T[TB.O_CHAR + CH[c] * TB.CH + TB.C_AT]) == ch.at
    for seed in range(5):
        g = QGame([-1] * 6, seed=seed)
        assert len({g.get(p, L.S_CHAR) for p in range(6)}) == 6
    out = 0
    for game in range(12):
        rp = replay(seed=4, game=game, players=3 + game % 3, policies=("random",), rules=R0)
        fin = rp.final_state
        for snap in list(rp.snapshots) + [fin]:
            for p in range(int(fin[L.G_NP])):
                b = L.G_P + p * L.PS
                assert (snap[b + L.S_CHAR], snap[b + L.S_RACE]) == (fin[b + L.S_CHAR], fin[b + L.S_RACE])
        out += int(fin[L.G_ELIMINATED])
    assert out > 0


def test_decks_are_placed_full_and_shuffled_castle_cards_apart():
    """QM-SETUP-04: the Item deck and the Event deck are placed (whole and
    shuffled: the used piles empty, the Item deck all the Item cards but the
    one each player was dealt, the Event deck every Event card), and the
    Castle cards are beside the board, not in any deck: five cards, one per
    castle square, each naming its castle's race."""
    full_items = sorted(IT[k] for k, it in RS.items.items() for _ in range(it.count))
    full_events = sorted(EVK[k] for k, e in RS.events.items() for _ in range(e.count))
    orders = set()
    for seed in range(4):
        g = QGame(["robot", "priest", "wizard", "demon"], seed=seed)
        assert int(g.s[L.G_ITEM_USED_N]) == 0 and int(g.s[L.G_EVENT_USED_N]) == 0
        assert sorted(g.item_deck() + [k for p in range(4) for k in g.hand(p)]) == full_items
        events = [int(x) for x in g.s[L.G_EVENT_DECK:L.G_EVENT_DECK + int(g.s[L.G_EVENT_N])]]
        assert sorted(events) == full_events
        orders.add((tuple(g.item_deck()), tuple(events)))
    assert len(orders) == 4
    for i, sq in enumerate(RS.board.squares):
        if sq.kind == "castle":
            c = int(g.T[TB.O_SQ_CASTLE + i])
            assert R0.names.castles[c] == sq.castle
            assert R0.names.races[int(g.T[TB.O_CASTLE_RACE + c])] == RS.castles[sq.castle].race


def test_two_decks_each_with_its_own_used_pile():
    """QM-HAND-01: two decks, Event and Item, each with its own used pile.
    An Event card opened goes to the used Event pile only (the Travelling
    Merchant: draw 1 Item card, the top one, a Sword); the Sword used in a
    combat goes to the used Item pile only; an empty Item deck is rebuilt
    from the used Item pile only (the used Event pile stays), and an empty
    Event deck from the used Event pile only."""
    assert (RS.components.item_decks, RS.components.event_decks) == (1, 1)
    g = QGame(["priest", "wizard"])
    g.clear_hands()
    g.no_abilities("priest", "wizard")
    g.set_item_deck(["sword", "potion"])
    g.set_item_used([])
    g.set_event_deck(["merchant", "healing_spring"])
    g.set_event_used([])
    g.land(0, 2)
    assert g.event_used() == [EVK["merchant"]] and g.item_used() == []
    assert g.hand(0) == [IT["sword"]]
    g.fix_dice(SWORD, CHEST)
    g.duel(0)
    assert g.item_used() == [IT["sword"]] and g.event_used() == [EVK["merchant"]]
    g.s[L.G_ITEM_N] = 0
    g.draw(1)
    assert g.hand(1) == [IT["sword"]]
    assert g.item_used() == [] and g.event_used() == [EVK["merchant"]]
    g.s[L.G_EVENT_N] = 0
    g.land(1, 10)
    assert g.event_used() == [EVK["merchant"]] and int(g.s[L.G_EVENT_N]) == 0
    assert g.hand(1) == [IT["sword"]]          # the Item deck and its used pile were empty: nothing drawn


def _used_pile_gains(g, run):
    before = Counter(g.item_used())
    run()
    after = Counter(g.item_used())
    assert not before - after, "a card left the used pile"
    return sorted((after - before).elements())


def test_every_used_item_card_goes_to_the_used_item_pile():
    """QM-HAND-03: "When a player uses an Item card, for any reason, the card is
    placed on the used Item discard pile." Each way a card leaves a hand puts
    exactly that card there: a combat card played (Sword), a foot card
    before the roll (Potion), a Yellow Bird Shoe after the roll, a Phoenix
    reviving, a discard at the hand limit, a card destroyed by the Fairy Bow
    (itself used), a card lost to the Thief event, the hand of an
    eliminated player."""
    g = _duel_pair(red=2, blue=CHEST)
    g.set_hand(0, ["sword"])
    assert _used_pile_gains(g, lambda: g.duel(0)) == [IT["sword"]]

    g = _quiet_pair()
    g.set_hand(0, ["potion"])
    g.fix_dice(1, 1)
    assert _used_pile_gains(g, lambda: g.turn(0)) == [IT["potion"]]

    g = _quiet_pair()
    g.put(0, 0)
    g.square(4, L.SQ_ITEM)
    g.set_hp(1, 40)
    g.set_hand(0, ["yellow_bird_shoe"])
    g.set_item_deck(["shield_5"])
    g.fix_dice(SWORD, 3)
    assert _used_pile_gains(g, lambda: g.turn(0)) == [IT["yellow_bird_shoe"]]

    g = QGame(["robot", "priest"])
    g.set_hp(0, 1)
    g.set_hand(0, ["phoenix"])
    assert _used_pile_gains(g, lambda: g.lose(0, 3)) == [IT["phoenix"]]

    g = QGame(["robot", "priest"])
    g.set_hand(0, ["shield_5"] * 4 + ["sword"])
    g.set_item_deck(["shield_5"])
    assert _used_pile_gains(g, lambda: g.draw(0)) == [IT["sword"]]

    g = _duel_pair(red=2, blue=CHEST)
    g.set_hand(0, ["fairy_bow"])
    g.set_hand(1, ["potion"])
    assert _used_pile_gains(g, lambda: g.duel(0)) == sorted([IT["fairy_bow"], IT["potion"]])

    g = QGame(["robot", "priest"])
    g.set_hand(0, ["battle_axe"])
    g.set_event_deck(["thief"])
    assert _used_pile_gains(g, lambda: g.land(0, 2)) == [IT["battle_axe"]]

    g = QGame(["robot", "priest", "wizard"])
    g.set_hand(2, ["sword", "shield_3"])
    assert _used_pile_gains(g, lambda: g.lose(2, 99)) == sorted([IT["sword"], IT["shield_3"]])


def test_cards_never_leave_their_own_deck_and_pile_in_play():
    """QM-HAND-01, QM-HAND-03 over play: at the start of every turn of 12
    logged games of random players, the Item deck, the used Item pile and
    the hands together hold exactly the Item cards of the ruleset (kind by
    kind), and the Event deck and the used Event pile exactly the Event
    cards: no used card is lost, duplicated or put on the other pile."""
    full_items = Counter(IT[k] for k, it in RS.items.items() for _ in range(it.count))
    full_events = Counter(EVK[k] for k, e in RS.events.items() for _ in range(e.count))
    used = 0
    for game in range(12):
        rp = replay(seed=8, game=game, players=2 + game % 5, policies=("random",), rules=R0)
        for s in list(rp.snapshots) + [rp.final_state]:
            items = Counter(int(x) for x in s[L.G_ITEM_DECK:L.G_ITEM_DECK + int(s[L.G_ITEM_N])])
            items += Counter(int(x) for x in s[L.G_ITEM_USED:L.G_ITEM_USED + int(s[L.G_ITEM_USED_N])])
            for p in range(int(s[L.G_NP])):
                b = L.G_P + p * L.PS
                items += Counter(int(x) for x in s[b + L.S_HAND:b + L.S_HAND + int(s[b + L.S_HAND_N])])
            events = Counter(int(x) for x in s[L.G_EVENT_DECK:L.G_EVENT_DECK + int(s[L.G_EVENT_N])])
            events += Counter(int(x) for x in s[L.G_EVENT_USED:L.G_EVENT_USED + int(s[L.G_EVENT_USED_N])])
            assert items == full_items and events == full_events, game
            used += int(s[L.G_ITEM_USED_N])
    assert used > 0


# ------------------------------------------------------------------- turns --

def test_two_symbols_the_pawn_stays_where_it_is():
    """QM-MOVE-08, QM-GAP-26: "If both dice show symbols, the player may choose
    not to move": on sword + chest the pawn never moves, whichever result is
    taken. Random players, 20 turns with each value of the toggle
    two_symbols_may_pass (quiet board, pawn on square 9): no move, the pawn
    ends on 9; with the toggle on the player may take neither symbol (some
    turns do), and then nothing at all happens (no card, no fight)."""
    for may_pass in (0, 1):
        stays = 0
        for seed in range(20):
            g = _quiet_pair(seed=seed)
            g.T[TB.P_TWO_SYMBOLS_MAY_PASS] = may_pass
            g.s[g.b(0) + L.S_POLICY] = RANDOM
            g.s[g.b(1) + L.S_POLICY] = RANDOM
            g.put(0, 9)
            g.fix_dice(SWORD, CHEST)
            g.clear_log()
            g.turn(0)
            assert g.pos(0) == 9
            assert g.events("move") == [] and g.events("land") == []
            (choice,) = g.events("choice")
            if choice[1] == L.A_STAY:
                stays += 1
                assert g.hand(0) == [] and int(g.s[L.G_DUELS]) == 0
        assert (stays > 0) == bool(may_pass)


def test_cards_before_the_roll_may_be_used_then():
    """QM-TURN-02: "At the start, before rolling the movement dice, some Item
    cards may be used at this point." A random player holding a Potion
    (before the roll, Hp +3) and a Yellow Bird Shoe (after the roll) on a
    quiet board, 20 turns: the Potion is played in some turns and kept in
    others (it "may" be used); when played, it is before the roll, its Hp
    already gained when the dice are rolled; the Shoe is never played before
    the roll."""
    played = kept = 0
    for seed in range(20):
        g = QGame(["robot", "priest"], policies=RANDOM, seed=seed)
        g.quiet_board()
        g.clear_hands()
        g.put(0, 0)
        g.set_hp(0, 10)
        g.set_hand(0, ["potion", "yellow_bird_shoe"])
        g.fix_dice(1, 1)
        g.clear_log()
        g.turn(0)
        recs = [(L.EVENT_NAMES[int(r[0])], int(r[2]), int(r[3]), int(r[4])) for r in g.ev[:int(g.s[L.G_LOGN])]]
        i_roll = [r[0] for r in recs].index("roll")
        plays = [(i, r[2]) for i, r in enumerate(recs) if r[0] == "play_item"]
        before = [k for i, k in plays if i < i_roll]
        assert before in ([], [IT["potion"]]), (seed, recs)
        if before:
            played += 1
            assert recs[plays[0][0] + 1] == ("hp", 0, 3, 13)
        else:
            kept += 1
            assert IT["potion"] in g.hand(0)
    assert played > 0 and kept > 0


def _after_move_potion(g):
    """The Potion re-timed in this game's copy of T: used after moving."""
    g.T[TB.O_ITEM + IT["potion"] * TB.IK + 4] = L.W_AFTER_MOVE


def test_cards_after_moving_are_used_before_the_square():
    """QM-TURN-03: "After moving, some Item cards may be used at this point",
    and only then is the square carried out. No shipped card is used after
    moving, so this game's copy of T re-times the Potion (Hp +3) to "after
    the move". A greedy player at Hp 10 rolls 1 + 1 onto an Item square:
    the log runs roll, move, Potion, Hp +3, landing, draw. The Potion is not
    offered before the roll (it would have been played there, as in
    test_foot_cards_only_at_the_time_their_text_names). With no move (chest
    taken on sword + chest) there is no after-moving window: the Potion is
    kept (the engine's ruling, docs/questmaster/rulings.md)."""
    g = _quiet_pair()
    _after_move_potion(g)
    g.put(0, 0)
    g.set_hp(0, 10)
    g.square(2, L.SQ_ITEM)
    g.set_item_deck(["shield_5"])
    g.set_hand(0, ["potion"])
    g.fix_dice(1, 1)
    g.clear_log()
    g.turn(0)
    names = [L.EVENT_NAMES[int(r[0])] for r in g.ev[:int(g.s[L.G_LOGN])]]
    assert names == ["turn", "roll", "choice", "move", "play_item", "hp", "land", "draw_item"]
    assert g.hp(0) == 13 and g.hand(0) == [IT["shield_5"]]

    g = _quiet_pair()
    _after_move_potion(g)
    g.set_hp(1, 40)
    g.set_hand(0, ["potion"])
    g.set_item_deck(["shield_5"])
    g.fix_dice(SWORD, CHEST)
    g.clear_log()
    g.turn(0)
    assert g.events("choice") == [(0, L.A_SYMBOL, 3, 0, 0)]
    assert g.events("play_item") == []
    assert g.hand(0) == sorted([IT["potion"], IT["shield_5"]])


def test_the_turn_ends_only_when_everything_is_carried_out():
    """QM-TURN-04: the next player's turn starts only once everything of the
    current turn is finished. Seat 0 rolls 1 + 1 onto an Event square (2):
    Tailwind moves it 2 on to another Event square (4), whose Ambush starts
    a fight. One round of play: every record of that chain -- the two
    cards, the card's move, the whole fight to its end -- comes before seat
    1's turn starts, and the effect stack is empty when take_turn returns."""
    g = _quiet_pair(("priest", "wizard"))
    g.no_abilities("priest", "wizard")
    g.put(0, 0)
    g.set_hp(0, 20)
    g.set_hp(1, 20)
    g.square(2, L.SQ_EVENT)
    g.square(4, L.SQ_EVENT)
    g.set_event_deck(["tailwind", "ambush", "healing_spring"])
    g.fix_dice(1, 1)
    g.s[L.G_FIRST] = 0
    g.T[TB.P_SAFETY_CAP_ROUNDS] = 1
    g.clear_log()
    g.play()
    recs = [(L.EVENT_NAMES[int(r[0])], int(r[2])) for r in g.ev[:int(g.s[L.G_LOGN])]]
    turns = [i for i, r in enumerate(recs) if r[0] == "turn"]
    assert [recs[i][1] for i in turns] == [0, 1]
    first = [r[0] for r in recs[turns[0]:turns[1]]]
    for name in ("event", "move", "land", "fight", "attack", "damage", "duel_end"):
        assert name in first, (name, first)
    assert first.count("event") == 2 and first[-1] == "duel_end"
    assert g.hp(1) == 18 and g.event_used() == sorted([EVK["tailwind"], EVK["ambush"]])
    assert int(g.s[L.G_STK_N]) == 0


def test_turns_follow_each_other_only_after_each_turn_is_done():
    """QM-TURN-04 over play: in 20 logged games of random players, every
    fight started in a turn has ended before the next turn starts, and the
    next turn is the next living player's in seat order."""
    for game in range(20):
        rp = replay(seed=12, game=game, players=2 + game % 5, policies=("random",), rules=R0)
        recs = rp.records()
        n = int(rp.final_state[L.G_NP])
        open_fight, last = False, None
        for r in recs:
            if r["event"] == "turn":
                assert not open_fight
                if last is not None:
                    alive = [p for p in range(n) if r["snapshot"]["players"][p]["alive"]]
                    assert r["seat"] == min((p for p in alive if p > last), default=alive[0]), (game, r["i"])
                last = r["seat"]
            elif r["event"] == "fight":
                open_fight = True
            elif r["event"] == "duel_end":
                open_fight = False


# ---------------------------------------------------- Yellow Bird Shoe 08 --

@pytest.mark.parametrize("shoe_any", [0, 1])
def test_yellow_bird_shoe_case_1_own_shoe_under_both_toggle_values(shoe_any):
    """QM-RULING-08 (both values of toggle shoe_any_player): on 3 + sword a
    player who chooses to move 3 and plays their own Shoe moves 4 and gets
    the effect of square 4 (an Item square: the top card), not square 3's
    (a Sword square: no fight)::

        5 6 7 8 9
        R     S I      (R: the Robot's pawn; the opponent is far stronger)
    """
    g = _quiet_pair(("robot", "priest"))
    g.T[TB.P_SHOE_ANY_PLAYER] = shoe_any
    g.square(8, L.SQ_SWORD)
    g.square(9, L.SQ_ITEM)
    g.put(0, 5)
    g.set_hp(0, 20)
    g.set_hp(1, 40)
    g.set_hand(0, ["yellow_bird_shoe"])
    g.set_item_deck(["shield_5", "sword"])
    g.set_item_used([])
    g.fix_dice(SWORD, 3)
    g.clear_log()
    g.turn(0)
    assert g.events("choice") == [(0, L.A_MOVE, 3, 0, 0)]
    assert g.events("extra_move") == [(0, 1, 4, 0, 0)]
    assert g.pos(0) == 9
    assert g.events("land") == [(0, 9, L.SQ_ITEM, 0, 0)] and int(g.s[L.G_DUELS]) == 0
    assert g.hand(0) == [IT["shield_5"]]
    assert g.item_used() == [IT["yellow_bird_shoe"]]


@pytest.mark.parametrize("shoe_any", [0, 1])
def test_yellow_bird_shoe_case_1_another_players_shoe_follows_the_toggle(shoe_any):
    """QM-RULING-08, QM-GAP-49, where the two values of toggle
    shoe_any_player differ: the same 3 + sword and move 3, but the Shoe is
    the opponent's (greedy: the Robot's 3 squares reach a castle it has not
    landed on). With the toggle on, the opponent plays it on the Robot's
    roll: the move becomes 4 and square 4 (Item) takes effect, not the
    castle. With it off, only the roller may play a Shoe: the Robot moves 3
    and lands on the Wizard School (marked; its upper ability for a Robot
    rolls blue 3: draw 1)."""
    g = _quiet_pair(("robot", "priest"))
    g.T[TB.P_SHOE_ANY_PLAYER] = shoe_any
    g.square(SQ_WIZARD, L.SQ_CASTLE)
    g.square(9, L.SQ_ITEM)
    g.put(0, 5)
    g.set_hp(0, 20)
    g.set_hp(1, 40)
    g.set_hand(1, ["yellow_bird_shoe"])
    g.set_item_deck(["shield_5", "sword"])
    g.set_item_used([])
    g.fix_dice(SWORD, 3)
    g.clear_log()
    g.turn(0)
    assert g.events("choice") == [(0, L.A_MOVE, 3, 0, 0)]
    if shoe_any:
        assert g.events("play_item") == [(1, IT["yellow_bird_shoe"], 0, 0, 0)]
        assert g.events("extra_move") == [(0, 1, 4, 0, 0)]
        assert g.pos(0) == 9
        assert g.events("land") == [(0, 9, L.SQ_ITEM, 0, 0)] and g.events("castle") == []
        assert g.castles(0) == 0
    else:
        assert g.events("play_item") == [] and g.events("extra_move") == []
        assert g.pos(0) == SQ_WIZARD
        assert g.events("castle") == [(0, CASTLE["wizard_school"], 0, 0, 0)]
        assert g.castles(0) == 1 << CASTLE["wizard_school"]
        assert g.hand(1) == [IT["yellow_bird_shoe"]]
    assert g.hand(0) == [IT["shield_5"]]


# ------------------------------------------- the Hydra expansion's rulings --

def test_hydra_rulings_are_expansion_only_and_the_base_game_has_no_rewards():
    """QM-RULING-10, QM-RULING-11: both forum answers are about rewards for
    defeating the Hydra, on an expansion map the base rules do not describe
    ("The base rules above do not describe these"). The project's ruling
    (docs/questmaster/rulings.md) is that they are not modelled, and the
    engine agrees: the ruleset has no Hydra or Warok content and refuses a
    square of another kind; and defeating a player in the base game gives
    the winner no reward at all -- no card in the hand (QM-RULING-11's
    reward is never a hand card) and nothing else: Hp, hand and Mp as the
    combat left them. What a card gives goes by its own text (QM-RULING-10's
    principle, in the base game): the Great Sword's extra At +1 "for
    Warriors" reaches both Warriors and no one else, and re-wording the card
    in this game's copy of T (for Mages) moves it to the Mage."""
    doc = (REPO / "docs" / "questmaster" / "rulings.md").read_text(encoding="utf-8")
    for rid in ("QM-RULING-10", "QM-RULING-11"):
        row = next(line for line in doc.splitlines() if line.startswith(f"| {rid} "))
        assert "Expansion only; not modelled" in row, row
    text = (REPO / "questsim" / "data" / "ruleset.toml").read_text(encoding="utf-8")
    data = text.split("[provenance]")[0].lower()
    assert "hydra" not in data and "warok" not in data
    bad = copy.deepcopy(load_raw())
    bad["board"]["squares"][5]["kind"] = "hydra"
    assert validate(bad)[1] and validate(bad)[1][0].startswith("board.squares.5.kind:")

    g = _duel_pair("swordsman", "robot", red=4, blue=SWORD)
    g.set_hp(1, 2)
    g.set_hand(0, ["potion"])
    g.duel(0)
    assert not g.alive(1) and g.win == (L.WIN_LAST_STANDING, 0)
    assert g.hand(0) == [IT["potion"]] and g.events("draw_item") == []
    assert g.hp(0) == RS.characters["swordsman"].hp and g.get(0, L.S_MP) == 0

    def at_with_great_sword(char, reword=None):
        g = QGame([char, "priest"])
        g.clear_hands()
        g.no_abilities(char, "priest")
        if reword is not None:
            first = int(g.T[TB.O_ITEM + IT["great_sword"] * TB.IK + 5])
            g.T[TB.O_EFF + (first + 1) * L.EW + L.E_RACES] = 1 << R0.names.races.index(reword)
        g.set_hand(0, ["great_sword"])
        g.fix_dice(1, SWORD)
        g.clear_log()
        g.duel(0)
        return g.events("damage")[0][1]
    assert {c: at_with_great_sword(c) for c in ("swordsman", "knight", "wizard", "robot")} == \
        {"swordsman": 4, "knight": 4, "wizard": 3, "robot": 3}
    assert (at_with_great_sword("wizard", "mage"), at_with_great_sword("swordsman", "mage")) == (4, 3)


# ============================== bugs found in review, fixed in the engine ==

def test_last_two_players_at_zero_together_no_winner():
    """QM-GAP-43, QM-END-03: "If the last players reach Hp 0 together, the game ends
    without a winner." Plague (every player Hp -1) with both players at Hp 1
    and no Phoenix: both reach 0 together."""
    g = QGame(["robot", "priest"])
    g.clear_hands()
    g.set_hp(0, 1)
    g.set_hp(1, 1)
    g.set_event_deck(["plague"])
    g.land(0, 2)
    assert g.hp(0) == 0 and g.hp(1) == 0
    assert g.win == (L.WIN_NOBODY, -1)


def test_square_cards_optional_toggle_lets_player_decline():
    """QM-GAP-23 (toggle square_cards_optional = true): Item and Event squares may
    be declined. A random player landing on an Item square 20 times should
    decline at least once (all 20 draws would have probability 2^-20)."""
    drawn = 0
    for seed in range(20):
        g = QGame(["robot", "priest"], policies=RANDOM, seed=seed)
        g.T[TB.P_SQUARE_CARDS_OPTIONAL] = 1
        g.clear_hands()
        g.land(0, 1)
        drawn += len(g.hand(0))
    assert drawn < 20


def test_before_roll_card_move_does_not_cancel_the_dice_landing():
    """QM-TURN-01, QM-TURN-02, QM-SQUARE-02: a before-the-roll card that moves the pawn
    (the validator allows ``move`` in ``before_roll`` cards; here the Potion's
    effect row is patched to ``move 1``) must not stop the square reached by
    the dice move from taking effect::

        0 -> 1 (card, plain) -> roll 1+1 -> 3 (Item square: draw 1)
    """
    g = _quiet_pair()
    row = TB.O_EFF + int(g.T[TB.O_ITEM + IT["potion"] * TB.IK + 5]) * L.EW
    g.T[row + L.E_OP] = L.EK_MOVE
    g.T[row + L.E_N] = 1
    g.square(3, L.SQ_ITEM)
    g.put(0, 0)
    g.set_hand(0, ["potion"])
    g.set_item_deck(["shield_5", "sword"])
    g.fix_dice(1, 1)
    g.turn(0)
    assert g.pos(0) == 3
    assert g.hand(0) == [IT["shield_5"]]


def test_landing_on_player_fights_that_player():
    """QM-GAP-24 (toggle landing_on_player_fights = true): "Ending a move on
    another pawn's square starts a fight with that player." Seat 0 lands on
    seat 2's square; seat 1 (elsewhere) is the weakest, so an engine that lets
    the lander choose would pick seat 1::

        0 . 2
        A   C(seat 2)       B(seat 1, Hp 5) far away
    """
    g = QGame(["priest", "wizard", "robot"])
    g.quiet_board()
    g.clear_hands()
    g.T[TB.P_LANDING_ON_PLAYER_FIGHTS] = 1
    g.put(0, 0)
    g.put(1, 30)
    g.put(2, 2)
    g.set_hp(1, 5)
    g.set_hp(2, 30)
    g.fix_dice(1, 1)
    g.clear_log()
    g.turn(0)
    assert g.pos(0) == 2
    assert g.events("fight")[0][:2] == (0, 2)


def test_one_item_per_step_does_not_limit_abilities():
    """QM-GAP-20/13 (toggle one_item_per_step = true: "At most one Item card per
    attack and per defence"): the Robot may still add its Shield ability to one
    Shield +2 card. At 2 + Sword = 3 against Shield 2 + 1 = 3: no damage."""
    g = QGame(["priest", "robot"])
    g.clear_hands()
    g.no_abilities("priest")
    g.T[TB.P_ONE_ITEM_PER_STEP] = 1
    g.fix_dice(SWORD, 3)
    g.set_hand(0, ["sword"])
    g.set_hand(1, ["shield_2"])
    g.clear_log()
    g.duel(0)
    assert g.events("damage")[0] == (1, 3, 3, 0, 0)
    assert g.hp(1) == 23
