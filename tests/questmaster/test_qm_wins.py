"""Quest Master rule tests on hand-built positions: how a game is won, elimination, and the engine bugs found in review.

Scripting choices: seats use the built-in policies (0 random, 1 greedy).
Where a choice matters, the position is built so that only one choice is
legal or the greedy policy's preference is unambiguous (the docstring says
which). Dice are forced by overwriting every face of a die in the test's own
copy of ``T`` *after* setup; abilities the rule under test does not involve
are switched off (``no_abilities``). The board and the helpers are in
``qm_game.py`` and ``qm_positions.py``.
"""
from __future__ import annotations


import numpy as np

from questsim import engine as E
from questsim import layout as L
from questsim import tables as TB

from .qm_game import (ALL_CASTLES, CASTLE, CHEST, IT, RANDOM, SQ_CASTLE,
                      SQ_CHURCH, SQ_WIZARD, SWORD, QGame, _quiet_pair)
from .qm_positions import MASK_ALL_BUT_CHURCH


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
