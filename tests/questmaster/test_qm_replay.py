"""Quest Master replays a designer can follow, checked over real play: the
result row's counters agree with the log, every turn carries a snapshot
that agrees with the events before it, every die face is logged as rolled,
both decks' reshuffles are logged, and every combat has its start, its
stops and its end (docs/questmaster/replay.md).

Rule IDs: QM-DUEL-08/11/12 (the combat's stops and end), QM-GAP-34/35,
QM-CARD-16 and QM-GAP-17 (a castle's die), QM-HAND-05 and QM-GAP-29
(reshuffles), QM-RULING-04 (absorbing), QM-END-04 (castles landed on).
"""
from __future__ import annotations

from collections import Counter

import pytest

from questsim import layout as L, sim
from questsim.replay import replay

RULES = sim.prepare()
TABLES = [(2, ("greedy",)), (3, ("planner",)), (4, ("random",)), (5, ("greedy",)), (6, ("planner",)),
          (4, ("greedy", "planner", "random", "greedy"))]


def _counts(recs):
    c = Counter(r["event"] for r in recs)
    return c


@pytest.mark.parametrize("players,policies", TABLES)
def test_result_row_counters_agree_with_the_replay(players, policies):
    """Over 60 games per table: the row of game i of a batch run has as many
    turns, duels, attacks and eliminations as the replay of game i logs, the
    same rounds, winner and win condition. (The attack counter used to miss
    an attack whose defence won the game, e.g. a Prayer lifting Hp above
    40: seed 11, game 100, 3 players.)"""
    n = 60
    df = sim.simulate(games=n, seed=11, players=players, policies=policies, rules=RULES)
    for g in range(n):
        rp = replay(seed=11, game=g, players=players, policies=policies, rules=RULES)
        c = _counts(rp.records())
        row = df.loc[g]
        assert (c["turn"], c["fight"], c["attack"], c["eliminated"]) == \
            (row["turns"], row["duels"], row["attacks"], row["eliminated"]), (g, c, row)
        assert c["duel_end"] == c["fight"]
        assert rp.final_state[L.G_ROUND] == row["rounds"]
        assert rp.final_state[L.G_WINNER] == row["winner_seat"]


def test_a_prayer_win_replayed_counts_its_attack_as_its_result_row_does():
    """`questsim replay --seed 11 --game 100 --players 3 --policy
    greedy` and its result row agree on the number of attacks."""
    df = sim.simulate(games=101, seed=11, players=3, policies=("greedy",), rules=RULES)
    rp = replay(seed=11, game=100, players=3, policies=("greedy",), rules=RULES)
    assert _counts(rp.records())["attack"] == df.loc[100, "attacks"]


def test_snapshots_agree_with_the_events():
    """Each turn's snapshot is the position at that moment: the turn's own
    Hp and square; Hp as the last hp record left it; castles landed on as
    the castle landings so far (QM-END-04); hand sizes as the draws,
    discards, plays and eliminations so far; Mp 0 (no combat at a turn's
    start); the deck and used-pile sizes add up to the decks."""
    n_items = sum(it.count for it in RULES.ruleset.items.values())
    n_events = sum(e.count for e in RULES.ruleset.events.values())
    for game in range(12):
        players = 2 + game % 5
        rp = replay(seed=5, game=game, players=players, policies=("greedy" if game % 2 else "random",),
                    rules=RULES)
        recs = rp.records()
        hp = {}
        castles = {p: set() for p in range(players)}
        hand = Counter()
        turns = 0
        for r in recs:
            p, ev = r["seat"], r["event"]
            if ev == "turn":
                turns += 1
                sn = r["snapshot"]
                me = sn["players"][p]
                assert sn["turn_of"] == p and me["hp"] == r["hp"] and me["square"] == r["square"]
                for pl in sn["players"]:
                    q = pl["seat"]
                    if q in hp:
                        assert pl["hp"] == hp[q], (game, r["i"], q)
                    assert set(pl["castles"]) == castles[q], (game, r["i"], q)
                    assert len(pl["hand"]) == hand[q], (game, r["i"], q)
                    assert pl["mp"] == 0
                held = sum(len(pl["hand"]) for pl in sn["players"])
                assert sn["item_deck"] + sn["item_used"] + held == n_items
                assert sn["event_deck"] + sn["event_used"] == n_events
            elif ev in ("hp", "revive"):
                hp[p] = r["hp"]
                hand[p] -= ev == "revive"
            elif ev == "castle":
                castles[p].add(r["castle_name"])
            elif ev == "draw_item":
                hand[p] += 1
            elif ev == "discard" or (ev == "play_item" and "item_name" in r):
                hand[p] -= 1
            elif ev == "eliminated":
                hand[p] = 0
                hp[p] = 0
        assert turns == len(rp.snapshots) > 0


def test_every_die_is_logged_as_rolled():
    """Castle dice (QM-CARD-16, QM-GAP-17) are logged with the face as rolled
    and the value it counts: the Church counts a symbol as 1, the Haunted
    House as 0, and the Hp change that follows is the value; every combat
    logs both Mp dice, and their values are the fight's Mp (symbol: 0)."""
    seen = Counter()
    for game in range(40):
        recs = replay(seed=7, game=game, players=5, policies=("random",), rules=RULES).records()
        for i, r in enumerate(recs):
            if r["event"] == "castle" and r["castle_name"] in ("church", "haunted_house") and not r["home_race"]:
                d = recs[i + 1]
                assert d["event"] == "die"
                sym_value = 1 if r["castle_name"] == "church" else 0
                assert d["value"] == (d["face"] if isinstance(d["face"], int) else sym_value)
                if isinstance(d["face"], str):
                    seen[r["castle_name"]] += 1
                if d["value"] > 0:
                    h = recs[i + 2]
                    assert h["event"] == "hp" and h["seat"] == r["seat"]
                    if r["castle_name"] == "church":
                        assert h["change"] == d["value"]
                    else:                 # a blow to Hp 0 logs the Hp actually lost
                        assert h["change"] == -d["value"] or h["hp"] == 0
            if r["event"] == "fight":
                a, b = recs[i + 1], recs[i + 2]
                assert (a["event"], a["seat"], a["die"]) == ("die", r["seat"], "red")
                assert (b["event"], b["seat"], b["die"]) == ("die", r["defender"], "blue")
                assert (a["value"], b["value"]) == (r["mp_attacker"], r["mp_defender"])
                for d in (a, b):
                    assert d["value"] == (d["face"] if isinstance(d["face"], int) else 0)
    assert seen["church"] and seen["haunted_house"]


def test_both_decks_reshuffles_are_logged():
    """QM-HAND-05, QM-GAP-29: every time an empty deck is rebuilt from its
    used pile a `reshuffle` record names the deck and the number of cards;
    long random games rebuild both decks."""
    decks = Counter()
    for game in range(10):
        recs = replay(seed=3, game=game, players=6, policies=("random",), rules=RULES).records()
        for r in recs:
            if r["event"] == "reshuffle":
                assert r["deck"] in ("item", "event") and r["cards"] > 0
                decks[r["deck"]] += 1
    assert decks["item"] > 0 and decks["event"] > 0


def test_every_combat_has_its_start_stops_and_end():
    """QM-DUEL-08/11/12, QM-GAP-34/35: between a `fight` and its `duel_end`,
    the attacks alternate except after a `decline` (the other side goes on);
    a `cannot_pay` ends the combat (reason cannot_pay) unless a side has
    already declined (then both have stopped); `duel_end` counts the
    attacks; the first attack is free (cost 0). Absorbed attacks name what
    they give (QM-RULING-04)."""
    reasons = Counter()
    for game in range(30):
        recs = replay(seed=9, game=game, players=4, policies=("random" if game % 2 else "greedy",),
                      rules=RULES).records()
        k = 0
        while k < len(recs):
            r = recs[k]
            if r["event"] != "fight":
                if r["event"] == "absorb":
                    assert r["gain"] in ("hp", "mp", "none")
                k += 1
                continue
            att, dfn = r["seat"], r["defender"]
            j = k + 1
            attacks, stopped, last = [], set(), None
            while recs[j]["event"] != "duel_end":
                e = recs[j]
                if e["event"] == "attack":
                    if not attacks:
                        assert e["seat"] == att and e["cost"] == 0
                    elif last is not None and (att if last == dfn else dfn) not in stopped:
                        assert e["seat"] != last, (game, j)
                    attacks.append(e)
                    last = e["seat"]
                elif e["event"] == "decline":
                    stopped.add(e["seat"])
                elif e["event"] == "cannot_pay":
                    stopped.add(e["seat"])
                j += 1
            end = recs[j]
            assert (end["seat"], end["defender"], end["attacks"]) == (att, dfn, len(attacks))
            reasons[end["reason"]] += 1
            if end["reason"] == "cannot_pay":
                assert recs[j - 1]["event"] == "cannot_pay"
            k = j + 1
    assert reasons["cannot_pay"] and reasons["eliminated"]
    assert reasons["both_stopped"] + reasons["declined"] > 0


def test_text_replay_shows_a_block_per_turn():
    """The text format opens every turn with the position: one line per
    player with Hp, square, castles and hand."""
    rp = replay(seed=1, game=3, players=3, rules=RULES)
    text = rp.to_text()
    assert text.count("'s turn - Item deck") == len(rp.snapshots)
    assert "castles 0/5 -  hand" in text
