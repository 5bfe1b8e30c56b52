"""The Quest Master ruleset (questsim/data/ruleset.toml): it validates; every
number the rulebook gives is present with its value (rule IDs from
shared/rules/questmaster-rules.md); strict validation with one line per
problem; provenance for every value; ``--set`` overrides; and the
``questsim rules show|check`` commands, including bad input (exit 2).
"""
from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from questsim.cli import main
from questsim.ruleset import (
    CONTEXT_OPS,
    OPS,
    RACES,
    default_ruleset_text,
    effective_rows,
    home_squares,
    load_raw,
    load_ruleset,
    predecessors,
    provenance_of,
    ruleset_hash,
    successors,
    validate,
)
from simcore.errors import InputError

RAW = load_raw()
RS = load_ruleset()
SHIPPED = str(Path(__import__("questsim").__file__).with_name("data") / "ruleset.toml")
REPO = Path(__file__).resolve().parents[2]


def _shared(name):
    """A file of shared/rules/ (beside the repository or in it), or None."""
    for base in (REPO / "shared" / "rules", REPO.parent / "shared" / "rules", Path("/work/shared/rules")):
        if (base / name).exists():
            return (base / name).read_text(encoding="utf-8")
    return None


def problems(mutate):
    raw = copy.deepcopy(RAW)
    mutate(raw)
    rs, probs = validate(raw)
    assert rs is None and probs, "expected validation problems"
    return probs


def err_lines(overrides, path=None):
    with pytest.raises(InputError) as e:
        load_ruleset(path, overrides)
    return str(e.value).splitlines()


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_bad_input(res, *needles, lines=None):
    """Exit 2, no traceback, every stderr line a 'questsim: error:' line naming the problem."""
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert "Traceback" not in res.output and "Traceback" not in res.stderr
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.exception
    got = res.stderr.strip().splitlines()
    assert got and all(line.startswith("questsim: error: ") for line in got), got
    if lines is not None:
        assert len(got) == lines, got
    for n in needles:
        assert n in res.stderr, (n, res.stderr)
    return got


# ------------------------------------------------------------ shipped file --

def test_shipped_ruleset_validates():
    """The shipped file loads with no problem, and its raw mapping validates."""
    rs, probs = validate(copy.deepcopy(RAW))
    assert probs == [] and rs == RS
    assert RS.meta.game == "Quest Master"
    assert len(ruleset_hash(RS)) == 16


# ------------------------------------------------- numbers from the rulebook --

def test_components():
    """QM-SETUP-01: 1 board, 8 Character cards, 1 Item deck, 1 Event deck,
    4 power dial cards, 8 pawns, 2 dice (red and blue); QM-GAP-06: 5 Castle
    cards. The tables agree with the counts: 8 characters, 5 castles."""
    c = RS.components
    assert (c.boards, c.character_cards, c.item_decks, c.event_decks) == (1, 8, 1, 1)
    assert (c.power_dials, c.pawns, c.dice, c.castle_cards) == (4, 8, 2, 5)
    assert len(RS.characters) == 8 and len(RS.castles) == 5
    assert set(RS.dice.model_dump()) == {"red", "blue"}


def test_players_hand_and_setup_numbers():
    """QM-SETUP-02: 2 to 6 players; QM-SETUP-06: 1 starting Item card;
    QM-HAND-02: hand limit 5; QM-SETUP-07: a symbol counts 0 in the start
    roll (QM-GAP-03: both dice)."""
    r = RS.rules
    assert (r.min_players, r.max_players) == (2, 6)
    assert (r.starting_items, r.hand_limit) == (1, 5)
    assert (r.start_roll_symbol_value, r.start_roll_dice) == (0, 2)


def test_win_conditions_and_combat_numbers():
    """QM-END-04: all 5 castles; QM-END-05: Hp more than 40 (exactly 40 does
    not win); QM-DUEL-02: a symbol on the Mp die gives Mp 0; QM-DUEL-04: the
    first attack costs no Mp."""
    r = RS.rules
    assert r.castles_to_win == 5 and r.win_hp_above == 40
    assert r.mp_symbol_value == 0 and r.free_attack_cost == 0
    assert r.max_attacks_per_combat == 0          # QM-GAP-36: no cap but Mp
    assert r.safety_cap_rounds >= 100


def test_dice_faces():
    """QM-MOVE-01: red 1, 2, 3, 4, sword, sword; QM-MOVE-02: blue 1, 2, 3, 4,
    bomb, chest."""
    assert RS.dice.red == [1, 2, 3, 4, "sword", "sword"]
    assert RS.dice.blue == [1, 2, 3, 4, "bomb", "chest"]


def test_symbols_and_landing():
    """QM-MOVE-07: sword = fight, chest = draw 1 Item card, bomb = open an
    Event card; QM-SQUARE-05/06/07: Item square draws 1, Event square opens
    the top card, Sword square starts a fight."""
    assert [e.op for e in RS.symbols.sword] == ["fight"]
    assert [(e.op, e.n) for e in RS.symbols.chest] == [("draw_item", 1)]
    assert [(e.op, e.n) for e in RS.symbols.bomb] == [("open_event", 1)]
    assert [(e.op, e.n) for e in RS.landing.item] == [("draw_item", 1)]
    assert [(e.op, e.n) for e in RS.landing.event] == [("open_event", 1)]
    assert [e.op for e in RS.landing.sword] == ["fight"]


def test_characters():
    """QM-CHAR-01: five races, every character of one; QM-CHAR-03: starting
    Hp all different; QM-CHAR-04: At 2 for every character; QM-CHAR-05: each
    card lists a paid attack; QM-GAP-07: the forum's Swordsman exists."""
    chars = RS.characters
    assert {c.race for c in chars.values()} == set(RACES)
    hps = [c.hp for c in chars.values()]
    assert len(set(hps)) == len(hps)
    assert all(c.at == 2 for c in chars.values())
    assert all(c.attacks and all(a.cost > 0 for a in c.attacks) for c in chars.values())
    assert "swordsman" in chars and chars["swordsman"].race == "warrior"


def test_robot_card():
    """QM-CHAR-06: Robot Hp 23, At 2; QM-CHAR-07: its paid attack is Mp 2 for
    At 2; QM-CHAR-08: Mp 1 for Shield +1 while an opponent attacks, once per
    combat (the worked example's +2 is QM-GAP-11)."""
    robot = RS.characters["robot"]
    assert (robot.race, robot.hp, robot.at) == ("robot", 23, 2)
    assert [(a.cost, a.at) for a in robot.attacks] == [(2, 2)]
    ab = robot.abilities["shield"]
    assert (ab.when, ab.cost, ab.per_combat) == ("defend", 1, 1)
    assert [(e.op, e.n) for e in ab.effects] == [("shield", 1)]
    assert provenance_of("characters.robot.hp", RS.provenance).startswith("rulebook:")


def test_worked_example_is_expressible():
    """QM-DUEL-13: the worked example needs a Warrior whose paid attack is Mp 2
    for At 3 (QM-GAP-12 ruling) and, to reproduce it exactly, the Robot's
    shield at +2 (QM-GAP-11), which one override gives."""
    assert [(a.cost, a.at) for a in RS.characters["swordsman"].attacks] == [(2, 3)]
    rs = load_ruleset(None, ["characters.robot.abilities.shield.effects.0.n=2"])
    assert rs.characters["robot"].abilities["shield"].effects[0].n == 2


def test_castles():
    """QM-CARD-13/14, QM-SQUARE-03: five castles, one per race, each on
    exactly one square, each race starting on its own (QM-SETUP-08);
    QM-CARD-16: the Church gives a die roll in Hp (symbol = 1) to others and
    Hp +5 to a Priest."""
    want = {"castle": "warrior", "wizard_school": "mage", "church": "priest", "scientist_house": "robot",
            "haunted_house": "evil"}
    assert {k: c.race for k, c in RS.castles.items()} == want
    homes = home_squares(RS)
    for key, race in want.items():
        assert RS.board.squares[homes[race]].castle == key
    church = RS.castles["church"]
    assert [(e.op, e.symbol_value) for e in church.upper] == [("gain_hp_die", 1)]
    assert [(e.op, e.n) for e in church.lower] == [("gain_hp", 5)]
    assert all(c.upper and c.lower for c in RS.castles.values())


def test_board():
    """QM-SQUARE-01/03: squares of the five kinds (no plain square on the
    shipped board), exactly 5 castles; QM-SQUARE-08: each Warp leads to
    other Warps; QM-GAP-01/02: one loop, forward to the next number, back to
    the previous."""
    kinds = Counter(sq.kind for sq in RS.board.squares)
    assert set(kinds) == {"castle", "event", "item", "sword", "warp"}
    assert kinds["castle"] == 5 and kinds["warp"] >= 2
    n = len(RS.board.squares)
    assert successors(RS.board) == [[(i + 1) % n] for i in range(n)]
    assert predecessors(RS.board) == [[(i - 1) % n] for i in range(n)]
    for i, sq in enumerate(RS.board.squares):
        if sq.kind == "warp":
            assert i not in sq.warp_to and all(RS.board.squares[j].kind == "warp" for j in sq.warp_to)


def test_named_item_cards():
    """QM-CARD-09: "Sword" costs Mp 0 and gives At +1 with an attack;
    QM-DUEL-07 / § Item Cards: Shield +2, +3 and +5 cards; QM-RULING-02:
    Phoenix revives to Hp 5; QM-RULING-03: Fairy Bow destroys an opponent's
    Item card; QM-RULING-04: the attack-absorbing cards give Hp or Mp;
    QM-RULING-07: Yellow Bird Shoe adds 1 square after the roll."""
    it = RS.items
    assert (it["sword"].cost, it["sword"].symbol, it["sword"].colour) == (0, "sword", "blue")
    assert [(e.op, e.n) for e in it["sword"].effects] == [("attack_bonus", 1)]
    for key, n in (("shield_2", 2), ("shield_3", 3), ("shield_5", 5)):
        assert it[key].symbol == "shield" and [(e.op, e.n) for e in it[key].effects] == [("shield", n)]
        assert it[key].name == f"Shield +{n}"
    assert [(e.op, e.hp) for e in it["phoenix"].effects] == [("revive", 5)]
    assert "destroy_items" in [e.op for e in it["fairy_bow"].effects]
    gains = {e.gain for i in it.values() for e in i.effects if e.op == "absorb_attack"}
    assert gains == {"hp", "mp"}
    shoe = it["yellow_bird_shoe"]
    assert (shoe.symbol, shoe.when) == ("foot", "after_roll")
    assert [(e.op, e.n) for e in shoe.effects] == [("extra_move", 1)]


def test_item_colours_symbols_and_race_cards():
    """QM-CARD-08 (QM-GAP-14 ruling): red cards are foot cards without a
    casting cost, blue cards combat cards; the four ability symbols occur
    (QM-CARD-04 sword, QM-CARD-05 shield, QM-CARD-06 sword and shield,
    QM-CARD-07 foot);
    QM-CHAR-02: some cards work specially for particular races."""
    for key, it in RS.items.items():
        assert (it.colour == "red") == (it.symbol == "foot"), key
        if it.colour == "red":
            assert it.cost == 0, key
    assert {it.symbol for it in RS.items.values()} == {"sword", "shield", "sword_shield", "foot"}
    raced = {r for it in RS.items.values() for e in it.effects for r in e.races}
    assert raced == set(RACES)


def test_event_cards():
    """QM-CARD-11: Clown Doll: red die, number -> draw 1, sword -> back 1;
    QM-CARD-12: blue die, number -> draw 2, chest -> nothing, bomb -> Hp -3;
    QM-RULING-05/QM-GAP-48: "Time" sends the player home; QM-RULING-06: five
    cards move a pawn (the Clown and "the other 4 example cards"); QM-DUEL-01:
    an Event card can start a fight."""
    clown = RS.events["clown_doll"].effects[0]
    assert (clown.op, clown.die) == ("roll", "red")
    assert [(e.op, e.n) for e in clown.number] == [("draw_item", 1)]
    assert [(e.op, e.steps) for e in clown.sword] == [("move", -1)]
    chest = RS.events["treasure_chest"].effects[0]
    assert (chest.op, chest.die) == ("roll", "blue")
    assert [(e.op, e.n) for e in chest.number] == [("draw_item", 2)]
    assert chest.chest == [] and [(e.op, e.n) for e in chest.bomb] == [("lose_hp", 3)]
    assert [e.op for e in RS.events["time"].effects] == ["go_home"]
    movers = [k for k, ev in RS.events.items()
              if any(e.op == "move" or e.op == "roll" and any(s.op == "move" for s in (e.sword or []))
                     for e in ev.effects)]
    assert len(movers) == 5, movers
    assert any(e.op == "fight" for ev in RS.events.values() for e in ev.effects)


def test_toggles_defaults():
    """The shipped readings of the balance-relevant gaps (docs/questmaster/rulings.md):
    QM-GAP-09, -12, -13/19, -20, -22, -23, -24, -26, -34/35, -42, -49. The
    duel ends when the side due to attack cannot pay (step 9: no lone
    attacker), the other side goes on after a decline (steps 8 and 9), and
    only the roller plays a Yellow Bird Shoe, on their own roll (both of the
    forum's cases describe "the player" who rolled; QM-GAP-18, QM-GAP-49)."""
    t = RS.toggles
    assert not t.start_marks_home_castle and not t.attack_bonus_lasts_combat
    assert t.shields_stack and not t.shield_lasts_combat and not t.one_item_per_step
    assert t.warp_on_landing and not t.square_cards_optional and not t.landing_on_player_fights
    assert not t.two_symbols_may_pass and not t.lone_attacker_continues and t.card_moves_mark_castles
    assert t.attacker_continues_after_decline and not t.shoe_any_player


def test_effect_vocabulary_is_used_where_allowed():
    """Every op in the shipped data is one of OPS and allowed in its context
    (the validator's CONTEXT_OPS); every op of the vocabulary is used."""
    used = set()
    d = RS.model_dump(mode="json")

    def walk(node):
        if isinstance(node, dict):
            if "op" in node:
                used.add(node["op"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(d)
    assert used == set(OPS)
    assert set().union(*CONTEXT_OPS.values()) == set(OPS)


# ---------------------------------------------------------------- provenance --

def test_every_value_has_provenance():
    """Every effective value has provenance starting 'rulebook:' or 'assumed:';
    the rows are every value the file sets and the defaults it leaves unset
    (an effect's ``races = []``, every race), as in MourneQuest."""
    rows = effective_rows(RS)
    assert len(rows) > 300
    for path, _v, prov in rows:
        assert prov is not None and prov.startswith(("rulebook:", "assumed:")), path
    from simcore.rulesets import leaves
    raw_paths = {p for p, _ in leaves({k: v for k, v in RAW.items() if k != "provenance"})}
    paths = {p: v for p, v, _ in rows}
    assert raw_paths < set(paths)
    assert paths["symbols.sword.0.races"] == []    # unset in the file: every race


def test_rulebook_numbers_quote_the_rulebook():
    """The values the rulebook prints carry 'rulebook:' provenance."""
    for path in ("rules.min_players", "rules.max_players", "rules.hand_limit", "rules.starting_items",
                 "rules.castles_to_win", "rules.win_hp_above", "rules.free_attack_cost", "rules.mp_symbol_value",
                 "rules.start_roll_symbol_value", "components.character_cards", "components.power_dials",
                 "dice.red", "dice.blue", "characters.robot.hp", "characters.robot.attacks",
                 "characters.robot.abilities.shield.cost", "characters.knight.at", "castles.church.upper",
                 "castles.church.lower", "castles.haunted_house.race", "items.sword.cost", "items.shield_5.effects",
                 "items.phoenix.effects", "events.clown_doll.effects", "events.treasure_chest.effects",
                 "landing.item", "symbols.chest"):
        assert provenance_of(path, RS.provenance).startswith("rulebook:"), path


def test_rulebook_quotes_are_in_the_rulebook():
    """Every 'rulebook:' provenance quotes the rulebook text word for word
    ('...' joins excerpts); a parenthetical note may follow the quote."""
    text = _shared("questmaster-rulebook.txt")
    if text is None:
        pytest.skip("shared/rules/questmaster-rulebook.txt not found")
    flat = " ".join(text.split())
    for key, prov in RS.provenance.items():
        if not prov.startswith("rulebook:"):
            continue
        body = prov[len("rulebook:"):].strip()
        assert body.startswith("'"), key
        end = len(body) - 1 if body.endswith("'") else body.index("' (")
        for part in body[1:end].split(" ... "):
            assert " ".join(part.split()) in flat, (key, part)


@pytest.mark.parametrize("entry,leaf", [
    ("rules.hand_limit", "rules.hand_limit"),
    ("dice.red", "dice.red"),
    ("characters", "characters.wizard.race"),
    ("board", "board.squares.1.kind"),
    ("events", "events.ambush.count"),
])
def test_removing_provenance_is_an_error_naming_the_path(entry, leaf):
    """A value without provenance (no entry for it or any prefix) is an error
    naming its dotted path."""
    probs = problems(lambda r: r["provenance"].pop(entry))
    assert any(p.startswith(f"{leaf}: no provenance") for p in probs), probs


def test_provenance_text_and_keys_are_checked():
    """A provenance text must start 'rulebook:', 'assumed:' or 'override:'; a
    provenance key that names no value (a typo) is an error."""
    probs = problems(lambda r: r["provenance"].update({"rules.hand_limit": "five, obviously"}))
    assert len(probs) == 1 and "provenance.rules.hand_limit" in probs[0]
    probs = problems(lambda r: r["provenance"].update({"rules.hand_limt": "assumed: typo"}))
    assert probs == ["provenance.rules.hand_limt: names no value in the ruleset"]


# ---------------------------------------------------------------- validation --

@pytest.mark.parametrize("override,path", [
    ("characters.robot.hp=-1", "characters.robot.hp"),
    ("characters.robot.hp=41", "characters.robot.hp"),               # would win at once (QM-END-05)
    ('characters.robot.race="elf"', "characters.robot.race"),
    ("rules.hand_limit=0", "rules.hand_limit"),
    ("rules.max_players=9", "rules.max_players"),
    ("rules.min_players=7", "rules.min_players"),
    ("toggles.shields_stack=1", "toggles.shields_stack"),              # strict: an int is not a bool
    ('dice.red=[1, 2, 3, 4, "sword", "skull"]', "dice.red"),
    ("dice.blue.0=9", "dice.blue"),
    ("items.sword.cost=-1", "items.sword.cost"),
    ('items.sword.colour="red"', "items.sword.colour"),
    ("items.potion.cost=2", "items.potion.cost"),                      # red cards cost nothing
    ('items.potion.effects.0.op="shield"', "items.potion.effects.0.op"),
    ('items.sword.effects.0.op="teleport"', "items.sword.effects.0.op"),
    ("events.quicksand.effects.0.steps=0", "events.quicksand.effects.0.steps"),
    ("events.clown_doll.effects.0.number.0.n=0", "events.clown_doll.effects.0.number.0.n"),
    ('events.plague.effects.0.target="everyone"', "events.plague.effects.0.target"),
    ('characters.robot.abilities.shield.when="always"', "characters.robot.abilities.shield.when"),
    ("characters.robot.abilities.shield.per_combat=0", "characters.robot.abilities.shield.per_combat"),
    ("components.character_cards=9", "characters"),
    ("rules.castles_to_win=6", "rules.castles_to_win"),
    ('board.squares.3.kind="teleporter"', "board.squares.3.kind"),
])
def test_bad_values_give_one_line_naming_the_path(override, path):
    """Each invalid value is rejected with one line '<where>: <dotted.path>: <problem>'."""
    lines = err_lines([override])
    assert len(lines) == 1, lines
    assert lines[0].startswith("ruleset: ") and f"{path}" in lines[0], lines


@pytest.mark.parametrize("override,needle", [
    ("board.squares.4.warp_to=[5]", "board.squares.4.warp_to: 5 is not another warp square"),
    ("board.squares.4.warp_to=[99]", "board.squares.4.warp_to: 99 is not another warp square"),
    ("board.squares.4.warp_to=[4]", "board.squares.4.warp_to: 4 is not another warp square"),
    ('castles.church.race="robot"', "castles: needs exactly one castle of race 'priest'"),
    ('characters.priest.race="robot"', "characters: no character of race 'priest'"),
    ('board.squares.0.castle="palace"', "board.squares.0.castle: unknown castle 'palace'"),
    ('board.squares.3.kind="castle"', "board.squares.3.castle: a castle square names its castle"),
    ('board.squares.4.kind="item"', "board.squares.4.warp_to: a warp square lists"),
    ('events.clown_doll.effects.0.die="blue"', "events.clown_doll.effects.0.sword: the blue die has no sword face"),
    ('castles.church.upper.0.die="purple"', "castles.church.upper.0.die"),
    ('items.sword.effects=[{op="fight"}]', "items.sword.effects.0.op: 'fight' cannot be used here"),
])
def test_broken_cross_references(override, needle):
    """Cross references are checked: warp targets are other warp squares,
    one castle per race, every race played, castle squares name castles,
    a die roll's branches match the die's faces."""
    lines = err_lines([override])
    assert any(needle in line for line in lines), lines


def test_several_problems_one_line_each():
    """Every cross-reference problem is reported, one line each."""
    lines = err_lines(['castles.church.race="robot"', "board.squares.4.warp_to=[5]", "characters.robot.hp=41"])
    assert len(lines) == 4, lines      # priest castle missing, robot castle twice, the warp, the Hp
    probs = problems(lambda r: (r["rules"].update(hand_limt=5), r["characters"]["robot"].update(hp=0)))
    assert sorted(probs) == ["characters.robot.hp: Input should be greater than or equal to 1",
                             "rules.hand_limt: unknown key"]


def test_unknown_and_missing_keys():
    """Unknown keys and missing required keys name their dotted paths."""
    assert problems(lambda r: r["rules"].update(hand_limt=5)) == ["rules.hand_limt: unknown key"]
    assert problems(lambda r: r["toggles"].pop("shields_stack")) == ["toggles.shields_stack: missing"]
    probs = problems(lambda r: r["items"]["sword"]["effects"][0].update(bonus=1))
    assert probs == ["items.sword.effects.0.bonus: unknown key"]
    probs = problems(lambda r: r["items"]["sword"]["effects"][0].pop("op"))
    assert len(probs) == 1 and probs[0].startswith("items.sword.effects.0.op: missing")


def test_board_branches_and_dead_ends():
    """QM-GAP-01/02: a fork (`next = [a, b]`) is valid when every square stays
    reachable; a square that cannot be reached is an error."""
    def fork(raw):
        sq = raw["board"]["squares"]
        sq[3]["next"] = [4, 40]                          # a side path 40 -> 41 -> back to 6
        sq[39]["next"] = [0]                             # squares appended after the loop: close it
        sq.append({"kind": "item"})
        sq.append({"kind": "event", "next": [6]})
    raw = copy.deepcopy(RAW)
    fork(raw)
    rs, probs = validate(raw)
    assert probs == [] and successors(rs.board)[3] == [4, 40] and sorted(predecessors(rs.board)[6]) == [5, 41]
    probs = problems(lambda r: r["board"]["squares"][3].update(next=[5]))
    assert probs == ["board.squares: square 4 cannot be reached from square 0 "
                     "(a square's next defaults to the following one)"]
    probs = problems(lambda r: r["board"]["squares"][3].update(next=[77]))
    assert probs == ["board.squares.3.next: 77 is not another square (0..39)"]


# ----------------------------------------------------------------- overrides --

def test_override_changes_value_hash_and_provenance():
    """``--set characters.robot.hp=25`` changes the value and the hash and its
    row says 'override:'; the same value as shipped keeps the hash."""
    base = ruleset_hash(RS)
    rs = load_ruleset(None, ["characters.robot.hp=22"])
    assert rs.characters["robot"].hp == 22 and ruleset_hash(rs) != base
    row = [r for r in effective_rows(rs) if r[0] == "characters.robot.hp"][0]
    assert row[2].startswith("override:") and "characters.robot.hp=22" in row[2]
    assert ruleset_hash(load_ruleset(None, ["characters.robot.hp=23"])) == base
    rs = load_ruleset(None, ["dice.red.4=4"])               # one face of a scalar list
    row = [r for r in effective_rows(rs) if r[0] == "dice.red"][0]
    assert row[1] == [1, 2, 3, 4, 4, "sword"] and row[2].startswith("override:")
    rs = load_ruleset(None, ["toggles.warp_on_landing=false", 'castles.church.lower=[{op="gain_hp", n=6}]'])
    assert rs.toggles.warp_on_landing is False and rs.castles["church"].lower[0].n == 6


@pytest.mark.parametrize("override,needle", [
    ("rules.hand_limit", "expected dotted.path=value"),
    ("=3", "empty path"),
    ("rules.hand_limt=5", "unknown key rules.hand_limt"),
    ("dice.red.6=1", "dice.red.6 is not an index of a list of 6"),
    ("rules.hand_limit.x=1", "not a table"),
    ("provenance.rules=assumed: x", "provenance cannot be overridden"),
    ("characters.robot.hp=abc", "characters.robot.hp"),
])
def test_bad_set(override, needle):
    """Bad ``--set``: no '=', an empty path, an unknown key, an index outside
    a list, a path through a value, a provenance path, a wrong type."""
    lines = err_lines([override])
    assert len(lines) == 1 and needle in lines[0], lines


# ----------------------------------------------------------------------- CLI --

def test_cli_rules_show_formats():
    """``questsim rules show`` in text, json and markdown lists the same paths,
    every value with provenance; ``--set`` shows 'override:' provenance."""
    j = run("rules", "show", "--format", "json")
    assert j.exit_code == 0, j.output
    data = json.loads(j.stdout)
    paths = [d["path"] for d in data]
    assert paths == [p for p, _, _ in effective_rows(RS)]
    assert all(d["provenance"].startswith(("rulebook:", "assumed:")) for d in data)
    t = run("rules", "show")
    assert t.exit_code == 0 and t.stdout.startswith("# Quest Master ruleset 1.0  hash " + ruleset_hash(RS))
    tl = [line for line in t.stdout.splitlines() if not line.startswith("#")]
    assert [line.split(" = ")[0] for line in tl] == paths
    m = run("rules", "show", "--format", "markdown")
    ml = m.stdout.splitlines()
    assert m.exit_code == 0 and ml[0] == "| key | value | provenance |"
    assert [re.match(r"\| `([^`]*)`", line).group(1) for line in ml[2:]] == paths
    o = run("rules", "show", "--format", "json", "--set", "characters.robot.hp=25")
    row = [d for d in json.loads(o.stdout) if d["path"] == "characters.robot.hp"][0]
    assert row["value"] == 25 and row["provenance"].startswith("override:")


def test_cli_rules_check_valid():
    """``rules check`` on the shipped file exits 0 and prints its hash; with
    a valid ``--set`` the hash changes."""
    res = run("rules", "check", SHIPPED)
    assert res.exit_code == 0 and "valid" in res.stdout and ruleset_hash(RS) in res.stdout
    res = run("rules", "check", SHIPPED, "--set", "characters.robot.hp=24")
    assert res.exit_code == 0 and ruleset_hash(RS) not in res.stdout


def _broken(tmp_path, old, new):
    text = default_ruleset_text()
    assert old in text, old
    p = tmp_path / "broken.toml"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


def test_cli_rules_check_bad_files(tmp_path):
    """Bad files: an unknown key, out-of-range values (one line each), a warp
    to a non-warp square, not TOML, no such file -- exit 2, no traceback."""
    p = _broken(tmp_path, "hand_limit = 5\n", "hand_limit = 5\nhand_limt = 5\n")
    assert_bad_input(run("rules", "check", p), "rules.hand_limt", "unknown key", lines=1)
    p = _broken(tmp_path, "hand_limit = 5\n", "hand_limit = 0\n")
    q = tmp_path / "two.toml"
    q.write_text(p.read_text().replace("race = \"robot\"\nhp = 23", "race = \"robot\"\nhp = -23"))
    assert_bad_input(run("rules", "check", q), "rules.hand_limit", "characters.robot.hp", lines=2)
    p = _broken(tmp_path, "warp_to = [12, 20, 28, 36]", "warp_to = [12, 20, 28, 35]")
    assert_bad_input(run("rules", "check", p), "board.squares.4.warp_to: 35", lines=1)
    p = tmp_path / "bad.toml"
    p.write_text("[rules\nhand_limit = = 5\n")
    assert_bad_input(run("rules", "check", p), "not valid TOML", lines=1)
    assert_bad_input(run("rules", "check", tmp_path / "nope.toml"), "no such ruleset file", lines=1)


@pytest.mark.parametrize("args,needle", [
    (["rules", "show", "--set", "characters.robot.bogus=3"], "characters.robot.bogus"),
    (["rules", "show", "--set", "characters.robot.hp=abc"], "characters.robot.hp"),
    (["rules", "show", "--set", "rules.hand_limit"], "expected dotted.path=value"),
    (["rules", "show", "--set", "provenance.rules=assumed: x"], "provenance"),
    (["rules", "show", "--format", "yaml"], "yaml"),
    (["rules", "check", SHIPPED, "--set", "rules.hand_limit=0"], "rules.hand_limit"),
    (["rules", "check"], "FILE"),
    (["rules", "frobnicate"], "frobnicate"),
    (["simulate-nothing"], "simulate-nothing"),
])
def test_cli_bad_input(args, needle):
    """Bad options and overrides: exit 2 with one 'questsim: error:' line."""
    assert_bad_input(run(*args), needle, lines=1)


def test_cli_group_help_and_version():
    """``main`` is a click group (more commands join later); --version works."""
    import click
    assert isinstance(main, click.Group) and "rules" in main.commands
    res = run("--version")
    assert res.exit_code == 0 and "0.1.0" in res.stdout
    assert run("rules", "--help").exit_code == 0


# ------------------------------------------------------------------- rulings --

def test_every_gap_has_a_ruling_and_every_toggle_is_documented():
    """docs/questmaster/rulings.md answers every QM-GAP-nn of questmaster-rules.md under
    its own heading, and names every toggle; docs/questmaster/ruleset.md names
    every toggle too."""
    qm = (REPO / "docs" / "questmaster" / "rulings.md").read_text(encoding="utf-8")
    checklist = _shared("questmaster-rules.md")
    gaps = sorted(set(re.findall(r"QM-GAP-\d\d", checklist))) if checklist else [f"QM-GAP-{i:02d}" for i in
                                                                                   range(1, 52)]
    for gap in gaps:
        assert re.search(rf"^### {gap} ", qm, re.M), gap
    ref = (REPO / "docs" / "questmaster" / "ruleset.md").read_text(encoding="utf-8")
    for name in RS.toggles.model_dump():
        assert f"`{name}`" in qm and f"`{name}`" in ref, name


def test_rulings_quote_the_rulebook():
    """Each Quest Master ruling's **Quote:** is rulebook text word for word
    ('…' separates excerpts), as in the MourneQuest sections."""
    text = _shared("questmaster-rulebook.txt")
    if text is None:
        pytest.skip("shared/rules/questmaster-rulebook.txt not found")
    flat = " ".join(text.split())
    qm = (REPO / "docs" / "questmaster" / "rulings.md").read_text(encoding="utf-8")
    blocks = qm.split("\n### ")[1:]
    assert len(blocks) == 51
    for block in blocks:
        quote = re.search(r"^\*\*Quote:\*\* (.*)$", block, re.M)
        assert quote, block[:12]
        for part in quote.group(1).split(" … "):
            assert part.startswith('"') and part.endswith('"'), (block[:12], part)
            assert " ".join(part[1:-1].split()) in flat, (block[:12], part)


def test_every_ability_row_fits_its_character_block(tmp_path):
    """QM-CHAR-05: a character lists attacks and abilities; a ruleset may
    give one the most abilities the tables hold (tables.MAX_ABILITIES) and
    every field of the last one reads back from ``T`` as written, without
    overlapping the next character's block (its race)."""
    from questsim import tables as TB
    extra = "".join(
        f'\n[characters.swordsman.abilities.extra{k}]\nname = "Extra {k}"\nwhen = "attack"\ncost = {k + 1}\n'
        f'per_combat = 1\neffects = [{{ op = "attack_bonus", n = 1 }}, {{ op = "attack_bonus", n = 2 }}]\n'
        for k in range(TB.MAX_ABILITIES - 1))
    path = tmp_path / "four.toml"
    path.write_text(Path(SHIPPED).read_text() + extra)
    rs = load_ruleset(str(path))
    T, names = TB.compile_tables(rs)
    c = names.characters.index("swordsman")
    block = TB.O_CHAR + c * TB.CH
    assert T[block + TB.C_NAB] == TB.MAX_ABILITIES
    last = block + TB.C_AB + TB.AB * (TB.MAX_ABILITIES - 1)
    assert (T[last + TB.AB_WHEN], T[last + TB.AB_COST], T[last + TB.AB_PER_COMBAT], T[last + TB.AB_EFF_N]) == \
        (0, TB.MAX_ABILITIES - 1, 1, 2)
    nxt = names.characters[c + 1]
    assert T[block + TB.CH + TB.C_RACE] == RACES.index(rs.characters[nxt].race)
