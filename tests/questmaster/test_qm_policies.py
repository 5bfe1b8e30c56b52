"""Quest Master policies that weigh every option the rules give: taking or
declining an optional Item or Event square (QM-GAP-23), a symbol or neither
(QM-GAP-26), a warp (QM-SQUARE-08), a paid attack (QM-DUEL-11, QM-GAP-34),
a Yellow Bird Shoe on another player's roll (QM-GAP-49). Each reading a
toggle offers is therefore played and measurable: every toggle, flipped,
changes some games. Hand-built positions check the decisions themselves.
"""
from __future__ import annotations

from collections import Counter

import pytest

from questsim import layout as L, scores, sim, tables as TB
from questsim.replay import replay

from .qm_game import BOMB, IT, SWORD, _quiet_pair

RULES = sim.prepare()
TOGGLES = list(RULES.ruleset.toggles.model_dump())
COLS = ["winner_seat", "win_condition", "rounds", "turns", "duels", "attacks", "eliminated",
        "hp1", "hp2", "hp3", "hp4", "castles1", "castles2", "castles3", "castles4"]


@pytest.mark.parametrize("policy", ["greedy", "planner"])
@pytest.mark.parametrize("toggle", TOGGLES)
def test_each_toggle_changes_some_games(toggle, policy):
    """Every toggle, flipped from its shipped value, changes some of 300
    four-player games on the same seeds (paired): each reading is played,
    including the ones that only matter when a player declines (optional
    squares, staying on two symbols, a decline that ends the combat)."""
    flip = str(not getattr(RULES.ruleset.toggles, toggle)).lower()
    base = sim.simulate(games=300, seed=3, players=4, policies=(policy,), rules=RULES)
    other = sim.simulate(games=300, seed=3, players=4, policies=(policy,),
                         rules=sim.prepare(overrides=[f"toggles.{toggle}={flip}"]))
    changed = (base[COLS].astype(str) != other[COLS].astype(str)).any(axis=1).sum()
    assert changed > 0, toggle


def _decisions(policy, overrides=(), games=30):
    rules = sim.prepare(overrides=list(overrides))
    c = Counter()
    for g in range(games):
        for r in replay(seed=2, game=g, players=4, policies=(policy,), rules=rules).records():
            if r["event"] == "decline_square":
                c["decline_" + r["kind"]] += 1
            elif r["event"] == "choice" and r["action"] == "stay":
                c["stay"] += 1
            elif r["event"] == "decline":
                c["decline_attack"] += 1
            elif r["event"] == "no_warp":
                c["no_warp"] += 1
            elif r["event"] == "warp":
                c["warp"] += 1
            elif r["event"] == "turn":
                roller = r["seat"]
            elif r["event"] == "play_item" and r.get("item_name") == "yellow_bird_shoe":
                c["shoe_own" if r["seat"] == roller else "shoe_other"] += 1
    return c


@pytest.mark.parametrize("policy", ["greedy", "planner"])
def test_policies_take_every_declining_option_in_real_play(policy):
    """In 30 logged games: with square_cards_optional the players decline some
    Event squares (never an Item square: a card drawn and the weakest
    discarded is never worse); with two_symbols_may_pass they sometimes take
    neither symbol. In 60 games with the shipped rules they decline some paid
    attacks (a few in a hundred), decline and take warps, and play Shoes on
    their own rolls only; with shoe_any_player, on other players' rolls too."""
    opt = _decisions(policy, ("toggles.square_cards_optional=true", "toggles.two_symbols_may_pass=true",
                              "toggles.shoe_any_player=true"))
    assert opt["decline_event"] > 0 and opt["decline_item"] == 0
    assert opt["stay"] > 0
    assert opt["shoe_own"] > 0 and opt["shoe_other"] > 0
    d = _decisions(policy, games=60)
    assert d["decline_attack"] > 0 and d["no_warp"] > 0 and d["warp"] > 0
    assert d["shoe_own"] > 0 and d["shoe_other"] == 0


def _square_choice(hp, kind):
    """Greedy seat 0 of a fresh game lands on a square of ``kind`` with
    ``hp`` Hp; the toggle square_cards_optional is on. Returns whether it
    took the card."""
    g = _quiet_pair(("robot", "priest"))
    g.T[TB.P_SQUARE_CARDS_OPTIONAL] = 1
    g.square(5, kind)
    g.set_hp(0, hp)
    g.set_event_deck(["healing_spring", "plague"])
    g.set_item_deck(["sword", "potion"])
    g.clear_log()
    g.land(0, 5)
    return not g.events("decline_square")


@pytest.mark.parametrize("item,worth", [
    ("sword", 1.0),                      # attack +1, no cost
    ("battle_axe", 3.0 - 0.3 * 2),       # attack +3, cost 2
    ("fairy_bow", 1.0 + 1.0 - 0.3 * 2),  # attack +1 and destroys 1 card
    ("great_sword", 2.0 - 0.3),          # +1, and +1 more for a warrior
    ("shield_5", 5.0 - 0.3 * 3),
    ("life_mirror", 4.0 - 0.3 * 3),      # an absorbed attack counts 4
    ("phoenix", 5.0 + 3.0),              # a revival counts its Hp 5, plus 3
])
def test_the_policies_worth_of_an_item_card_sums_its_effects_less_its_cost(item, worth):
    """The policies' rough worth of an Item card (``scores.card_value``, the
    tables summing its effect amounts once): each shipped card's effects, as
    the ruleset prints them, less 0.3 a point of its cost."""
    assert scores.card_value(RULES.T, IT[item]) == pytest.approx(worth, abs=1e-12)


def test_greedy_declines_an_event_card_only_when_it_could_be_knocked_out():
    """QM-GAP-23 (toggle square_cards_optional): an Event card's worth to a
    player is its expected worth over the deck; at Hp 20 it is positive and
    the player opens the card, at Hp 2 a trap (Poison Mushroom Hp -2,
    Treasure Chest's bomb Hp -3) could knock it out, so it declines. An
    Item card is always taken."""
    assert _square_choice(20, L.SQ_EVENT)
    assert not _square_choice(2, L.SQ_EVENT)
    assert _square_choice(2, L.SQ_ITEM) and _square_choice(20, L.SQ_ITEM)


@pytest.mark.parametrize("hp,stays", [(20, False), (2, True)])
def test_greedy_stays_on_two_bad_symbols(hp, stays):
    """QM-GAP-26 (toggle two_symbols_may_pass): on sword + bomb a weak player
    (the opponent has Hp 40) facing a fight it should lose takes the Event
    card while it is healthy, and at Hp 2 -- where a trap could knock it out
    -- takes neither and stays."""
    g = _quiet_pair(("robot", "priest"))
    g.T[TB.P_TWO_SYMBOLS_MAY_PASS] = 1
    g.put(0, 9)
    g.set_hp(0, hp)
    g.set_hp(1, 40)
    g.set_event_deck(["healing_spring", "plague"])
    g.fix_dice(SWORD, BOMB)
    g.clear_log()
    g.turn(0)
    choice = g.events("choice")[0]
    assert (choice[1] == L.A_STAY) == stays
    assert int(g.s[L.G_DUELS]) == 0
