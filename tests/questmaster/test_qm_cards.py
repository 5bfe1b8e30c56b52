"""Quest Master rule tests on hand-built positions: Event cards and when each kind of Item card may be used.

Scripting choices: seats use the built-in policies (0 random, 1 greedy).
Where a choice matters, the position is built so that only one choice is
legal or the greedy policy's preference is unambiguous (the docstring says
which). Dice are forced by overwriting every face of a die in the test's own
copy of ``T`` *after* setup; abilities the rule under test does not involve
are switched off (``no_abilities``). The board and the helpers are in
``qm_game.py`` and ``qm_positions.py``.
"""
from __future__ import annotations

import copy
from collections import Counter

import pytest

from questsim import layout as L
from questsim import tables as TB
from questsim.replay import replay
from questsim.ruleset import load_raw, validate

from .qm_game import (BOMB, CASTLE, EVK, IT, R0, RANDOM, RS, SQ_CASTLE,
                      SQ_CHURCH, SQ_SCIENTIST, SWORD, QGame, _quiet_pair)
from .qm_positions import (NON_CARD_SECTIONS, card_timing, duel_pair)


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


# ============================================ the checklist, rule by rule ==
# Tests for the checklist rules no other test checked (one or more per ID).
# Positions are hand-built where one can show the rule; where a rule is
# about every moment of play (when a card may be used, where a used card
# goes), it is checked over logged games of random players, who try every
# legal option.

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


def test_combat_cards_only_in_combat_foot_cards_only_at_their_moment():
    """QM-CARD-03, QM-CARD-04, QM-CARD-05, QM-CARD-06, QM-CARD-07, QM-TURN-02:
    over 30 logged games of random players (who play any card the engine
    offers, about half the time), every Item card is played only when its
    kind allows (``card_timing``): combat cards "only when two players are
    fighting", by the side their symbol names; outside-combat (foot) cards
    only "at that point and at no other time", never in a combat. And the
    cards are played at each of those times."""
    counts = Counter()
    for game in range(30):
        recs = replay(seed=21, game=game, players=3 + game % 4, policies=("random",), rules=R0).records()
        card_timing(recs, counts)
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
    g = duel_pair(red=1, blue=1)
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

    g = duel_pair(red=4, blue=SWORD)
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
    g = duel_pair("swordsman", "robot", red=1, blue=3)
    g.set_hand(0, ["shield_2"])
    g.set_hand(1, ["shield_2"])
    g.duel(0)
    assert g.events("attack") == [(0, 1, 2, 0, 1), (1, 0, 2, 2, 0)]
    assert g.events("play_item") == [(1, IT["shield_2"], 1, 2, 0), (0, IT["shield_2"], 1, 0, 0)]
    assert g.events("damage") == [(1, 2, 2, 0, 0), (0, 2, 2, 0, 0)]
    assert g.hp(0) == RS.characters["swordsman"].hp and g.hp(1) == 23
    assert g.item_used() == [IT["shield_2"]] * 2
