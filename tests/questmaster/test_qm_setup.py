"""Quest Master rule tests on hand-built positions: set-up, the start roll, the dice, the hand and the decks.

Scripting choices: seats use the built-in policies (0 random, 1 greedy).
Where a choice matters, the position is built so that only one choice is
legal or the greedy policy's preference is unambiguous (the docstring says
which). Dice are forced by overwriting every face of a die in the test's own
copy of ``T`` *after* setup; abilities the rule under test does not involve
are switched off (``no_abilities``). The board and the helpers are in
``qm_game.py`` and ``qm_positions.py``.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

import simcore.rng
from questsim import engine as E
from questsim import layout as L
from questsim import tables as TB
from questsim.replay import replay

from .qm_game import (BLUE, BOMB, CH, CHEST, EVK, IT, R0, RED, RS, SQ_CASTLE,
                      SQ_CHURCH, SQ_HAUNTED, SQ_SCIENTIST, SQ_WIZARD, SWORD, QGame, _quiet_pair, home_square)
from .qm_positions import (duel_pair, start_rounds, used_pile_gains)


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
        rounds, first = start_rounds(g)
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


def test_every_used_item_card_goes_to_the_used_item_pile():
    """QM-HAND-03: "When a player uses an Item card, for any reason, the card is
    placed on the used Item discard pile." Each way a card leaves a hand puts
    exactly that card there: a combat card played (Sword), a foot card
    before the roll (Potion), a Yellow Bird Shoe after the roll, a Phoenix
    reviving, a discard at the hand limit, a card destroyed by the Fairy Bow
    (itself used), a card lost to the Thief event, the hand of an
    eliminated player."""
    g = duel_pair(red=2, blue=CHEST)
    g.set_hand(0, ["sword"])
    assert used_pile_gains(g, lambda: g.duel(0)) == [IT["sword"]]

    g = _quiet_pair()
    g.set_hand(0, ["potion"])
    g.fix_dice(1, 1)
    assert used_pile_gains(g, lambda: g.turn(0)) == [IT["potion"]]

    g = _quiet_pair()
    g.put(0, 0)
    g.square(4, L.SQ_ITEM)
    g.set_hp(1, 40)
    g.set_hand(0, ["yellow_bird_shoe"])
    g.set_item_deck(["shield_5"])
    g.fix_dice(SWORD, 3)
    assert used_pile_gains(g, lambda: g.turn(0)) == [IT["yellow_bird_shoe"]]

    g = QGame(["robot", "priest"])
    g.set_hp(0, 1)
    g.set_hand(0, ["phoenix"])
    assert used_pile_gains(g, lambda: g.lose(0, 3)) == [IT["phoenix"]]

    g = QGame(["robot", "priest"])
    g.set_hand(0, ["shield_5"] * 4 + ["sword"])
    g.set_item_deck(["shield_5"])
    assert used_pile_gains(g, lambda: g.draw(0)) == [IT["sword"]]

    g = duel_pair(red=2, blue=CHEST)
    g.set_hand(0, ["fairy_bow"])
    g.set_hand(1, ["potion"])
    assert used_pile_gains(g, lambda: g.duel(0)) == sorted([IT["fairy_bow"], IT["potion"]])

    g = QGame(["robot", "priest"])
    g.set_hand(0, ["battle_axe"])
    g.set_event_deck(["thief"])
    assert used_pile_gains(g, lambda: g.land(0, 2)) == [IT["battle_axe"]]

    g = QGame(["robot", "priest", "wizard"])
    g.set_hand(2, ["sword", "shield_3"])
    assert used_pile_gains(g, lambda: g.lose(2, 99)) == sorted([IT["sword"], IT["shield_3"]])


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
