"""The assumed character data follows the design rule its provenance states:
"lower Hp paired with a stronger ability", made exact as a budget
(docs/questmaster/ruleset.md, "Characters: the budget"). Every card is worth
the same number of points, its starting Hp plus its kit points, where the
kit points are, summed over the six faces of the Mp die, the most points the
card's paid attacks and abilities can buy with that much Mp in one combat.
The printed Robot fixes the budget.

These tests compute the kit points from the ruleset itself (so a changed
kit without a matching Hp fails), and check the printed values: the Robot
(QM-CHAR-06/07/08), every character's At 2 (QM-CHAR-04) and distinct
starting Hp (QM-CHAR-03). The last test checks the power dial, the Hp
every change resets (QM-CHAR-09).
"""
from __future__ import annotations

from itertools import product

from questsim import layout as L, sim
from questsim.replay import replay

from .qm_game import CHEST, SWORD, QGame

RULES = sim.prepare()
RS = RULES.ruleset
ITEM_POINTS = 2      # an Item card counts 2 Hp (as the castle data counts it)
ABSORB_POINTS = 2    # an absorbed attack stops At 2, every character's At


def ability_points(ab):
    """Points of one use of an ability: 1 per At bonus, Shield or Hp gained,
    2 per Item card drawn or destroyed, 2 for an attack absorbed (and 2 more
    if it gives what it absorbed)."""
    p = 0
    for e in ab.effects:
        d = e.model_dump()
        if d["op"] in ("attack_bonus", "shield", "gain_hp"):
            p += d["n"]
        elif d["op"] in ("draw_item", "destroy_items"):
            p += ITEM_POINTS * d["n"]
        elif d["op"] == "absorb_attack":
            p += ABSORB_POINTS + (ABSORB_POINTS if d["gain"] != "none" else 0)
        else:
            raise AssertionError(f"no point value for op {d['op']}")
    return p


def best_buy(ch, mp):
    """The most points ``mp`` Mp buys in one combat: any number of paid
    attacks (their At) and each ability up to ``per_combat`` times."""
    abil = [(a.cost, ability_points(a), a.per_combat) for a in ch.abilities.values()]
    best = 0
    for uses in product(*[range(a[2] + 1) for a in abil]):
        cost = sum(u * a[0] for u, a in zip(uses, abil))
        if cost > mp:
            continue
        left = mp - cost
        at = [0] * (left + 1)            # the most At paid attacks buy with m Mp
        for m in range(1, left + 1):
            at[m] = max([at[m - 1]] + [at[m - a.cost] + a.at for a in ch.attacks if 0 < a.cost <= m])
        best = max(best, sum(u * a[1] for u, a in zip(uses, abil)) + at[left])
    return best


def mp_faces(die):
    faces = getattr(RS.dice, die)
    return [f if isinstance(f, int) else RS.rules.mp_symbol_value for f in faces]


def kit_points(ch, die="red"):
    return sum(best_buy(ch, mp) for mp in mp_faces(die))


def test_the_robot_is_as_printed_and_every_at_is_two():
    """QM-CHAR-04/06/07/08: the Robot's Hp 23, At 2, paid attack Mp 2 -> At 2,
    Shield +1 for Mp 1 once per combat; every character's starting At is 2."""
    r = RS.characters["robot"]
    assert (r.hp, r.at) == (23, 2)
    assert [(a.cost, a.at) for a in r.attacks] == [(2, 2)]
    (shield,) = r.abilities.values()
    assert (shield.when, shield.cost, shield.per_combat) == ("defend", 1, 1)
    assert [e.model_dump() for e in shield.effects] == [{"op": "shield", "n": 1, "races": []}]
    assert all(ch.at == 2 for ch in RS.characters.values())


def test_kit_points_of_the_printed_robot():
    """The Robot's kit on the Mp die's faces 1, 2, 3, 4 and the two symbols
    (Mp 0): Shield 1; an attack (At 2); attack + Shield; two attacks --
    1 + 2 + 3 + 4 = 10 points; with Hp 23 the budget is 33. Either die gives
    the same Mp numbers, so the same points."""
    r = RS.characters["robot"]
    assert [best_buy(r, m) for m in (1, 2, 3, 4, 0)] == [1, 2, 3, 4, 0]
    assert kit_points(r) == kit_points(r, "blue") == 10


def test_every_character_spends_the_same_budget():
    """The design rule: Hp + kit points = the printed Robot's 23 + 10 = 33 for
    every character, so a stronger kit always comes with lower Hp."""
    robot = RS.characters["robot"]
    budget = robot.hp + kit_points(robot)
    for key, ch in RS.characters.items():
        assert kit_points(ch) == kit_points(ch, "blue"), key
        assert ch.hp + kit_points(ch) == budget, (key, ch.hp, kit_points(ch))


def test_lower_hp_always_pairs_with_a_stronger_kit_and_no_two_hp_tie():
    """QM-CHAR-03 ("Each character has a different starting Hp") and the
    provenance's "lower Hp paired with a stronger ability": all Hp differ,
    and ordering the characters by kit points orders them by Hp, reversed."""
    chars = list(RS.characters.values())
    assert len({c.hp for c in chars}) == len(chars)
    for a, b in product(chars, chars):
        if kit_points(a) > kit_points(b):
            assert a.hp < b.hp, (a.name, b.name)


def test_provenance_states_each_hp_from_the_rule():
    """Each assumed Hp's provenance gives its derivation (33 - kit = Hp, with
    the points on each face) and agrees with the data."""
    import tomllib
    from importlib import resources
    prov = tomllib.loads((resources.files("questsim") / "data" / "ruleset.toml").read_text())["provenance"]
    for key, ch in RS.characters.items():
        if key == "robot":
            continue
        text = prov[f"characters.{key}.hp"]
        pts = [best_buy(ch, m) for m in (1, 2, 3, 4)]
        assert f"33 - kit {kit_points(ch)} (Mp 1, 2, 3, 4: {', '.join(map(str, pts))}) = {ch.hp}" in text, key


def test_the_power_dial_shows_the_current_hp_after_every_change():
    """QM-CHAR-09: the power dial shows the player's current Hp and is reset
    at every change -- "When a player loses Hp in combat, they spin the dial
    to show the reduced value." In the simulator the dial is the seat's Hp
    (the value every Hp record shows and every snapshot holds).

    A combat: the Priest attacks the Wizard with a Sword (At 2 + 1 = 3, no
    Mp, no abilities): the Wizard's Hp reads 3 less at once, in the state
    and in the Hp record that follows the damage.

    Over 15 logged games of random players: the dial of each seat, set from
    its Character card's starting Hp and moved by each Hp record, agrees
    with the Hp every record shows; every blow that does damage is followed
    at once by the defender's Hp record lowering the dial by that damage (to
    0 at most); and at the start of every turn, and at the end, each seat's
    Hp is the dial's."""
    g = QGame(["priest", "wizard"])
    g.clear_hands()
    g.no_abilities("priest", "wizard")
    g.set_hand(0, ["sword"])
    g.fix_dice(SWORD, CHEST)
    g.clear_log()
    g.duel(0)
    start = RS.characters["wizard"].hp
    assert g.events("damage") == [(1, 3, 0, 3, 0)]
    assert g.events("hp") == [(1, -3, start - 3, 0, 0)]
    assert g.hp(1) == start - 3

    names = RULES.names
    blows = 0
    for game in range(15):
        rp = replay(seed=6, game=game, players=2 + game % 5, policies=("random",), rules=RULES)
        fin = rp.final_state
        n = int(fin[L.G_NP])
        dial = {p: RS.characters[names.characters[int(fin[L.G_P + p * L.PS + L.S_CHAR])]].hp for p in range(n)}
        recs = rp.records()
        for i, r in enumerate(recs):
            p, ev = r["seat"], r["event"]
            if ev == "hp":
                assert r["hp"] == dial[p] + r["change"] >= 0, (game, r)
                dial[p] = r["hp"]
            elif ev == "revive":
                dial[p] = r["hp"]
            elif ev == "damage" and r["damage"] > 0:
                nxt = recs[i + 1]
                assert (nxt["event"], nxt["seat"]) == ("hp", p), (game, r, nxt)
                assert nxt["change"] == -min(r["damage"], dial[p]), (game, r, nxt)
                blows += 1
            elif ev == "turn":
                assert [pl["hp"] for pl in r["snapshot"]["players"]] == [dial[q] for q in range(n)], (game, r["i"])
        assert [int(fin[L.G_P + q * L.PS + L.S_HP]) for q in range(n)] == [dial[q] for q in range(n)], game
    assert blows > 0
