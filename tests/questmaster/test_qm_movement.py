"""Quest Master rule tests on hand-built positions: movement, forks, warps, castles and the squares' cards.

Scripting choices: seats use the built-in policies (0 random, 1 greedy).
Where a choice matters, the position is built so that only one choice is
legal or the greedy policy's preference is unambiguous (the docstring says
which). Dice are forced by overwriting every face of a die in the test's own
copy of ``T`` *after* setup; abilities the rule under test does not involve
are switched off (``no_abilities``). The board and the helpers are in
``qm_game.py`` and ``qm_positions.py``.
"""
from __future__ import annotations


import pytest

from questsim import layout as L
from questsim import tables as TB

from .qm_game import (BOMB, CASTLE, CHEST, EVK, IT, OPB, R0, RS, SQ_CHURCH, SQ_SCIENTIST, SQ_WIZARD, SWORD, QGame, _quiet_pair, after_shoes, choices,
                      code)
from .qm_positions import (MASK_ALL_BUT_CHURCH, MASK_ALL_BUT_WIZARD, shoe_race)


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


def test_yellow_bird_shoe_any_player_may_play_it_on_another_players_roll():
    """QM-RULING-07, QM-GAP-49 (toggle shoe_any_player = true; default false):
    "It is used when any player has finished rolling the dice. It adds 1 square
    of movement." The Priest (greedy) plays its Shoe on the Robot's roll: the
    Robot's move of 4 becomes 5, past the castle it was about to land on
    (square 9, no castle marked); the Shoe goes to the used pile."""
    g = shoe_race(1)
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
    g = shoe_race(0)
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
