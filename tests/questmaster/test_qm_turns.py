"""Quest Master rule tests on hand-built positions: a turn from the roll to the square, the Yellow Bird Shoe, the Hydra expansion's rulings.

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

import pytest

from questsim import layout as L
from questsim import tables as TB
from questsim.replay import replay
from questsim.ruleset import load_raw, validate

from .qm_game import (CASTLE, CHEST, EVK, IT, R0, RANDOM, RS, SQ_WIZARD, SWORD, QGame, _quiet_pair)
from .qm_positions import (REPO, after_move_potion, duel_pair)


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
    after_move_potion(g)
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
    after_move_potion(g)
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

    g = duel_pair("swordsman", "robot", red=4, blue=SWORD)
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
