"""The MourneQuest ruleset: strict validation with dotted-path errors,
provenance for every value, ``--set`` overrides, and the facts the rulebook
pins down (shared/rules/mournequest-rules.md, "Facts given as numbers").
"""
from __future__ import annotations

import copy
from collections import Counter

import pytest

from mournesim import sim
from mournesim.ruleset import (effective_rows, load_raw, load_ruleset, provenance_of, ruleset_hash,
                               validate)
from simcore.errors import InputError

RAW = load_raw()
RS = load_ruleset()
RULES = sim.prepare()
PREFIXES = ("rulebook:", "assumed:", "override:")


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


# --------------------------------------------------------------- validation --

@pytest.mark.parametrize("override,path", [
    ("heroes.jack.courage=-1", "heroes.jack.courage"),
    ("rules.backpack=0", "rules.backpack"),
    ("rules.life=99", "rules.life"),
    ("toggles.doubles_stack=1", "toggles.doubles_stack"),            # strict: an int is not a bool
    ("levels.hard.disc_clicks=0", "levels.hard.disc_clicks"),
    ('dice.grey=["fail", "1", "seven"]', "dice.grey.2"),
    ("enemies.snipe.green=[8, 9]", "enemies.snipe.green"),
    ('encounters.level1.0.kind="dragon"', "encounters.level1.0.kind"),
    ('board.spaces.nexus_ne.kind="castle"', "board.spaces.nexus_ne.kind"),
    ('moon.track="RRXQ"', "moon.track"),
    ('heroes.jack.skill="flying"', "heroes.jack.skill"),
    ('nightmares.merrow.power="gloom"', "nightmares.merrow.power"),
    ("nightmares.merrow.charms={granite = -1}", "nightmares.merrow.charms"),
])
def test_validation_errors_name_the_dotted_path(override, path):
    """Each invalid value is rejected with a line '<where>: <dotted.path>: <problem>'
    (shared/design.md: ``heroes.jack.courage: must be >= 0``)."""
    lines = err_lines([override])
    assert len(lines) == 1, lines
    assert f"{path}:" in lines[0], lines


def test_pot_markers_must_cover_every_pot_that_can_be_out_at_once():
    """MQ-GAP-64: Pots are a hard limit the engine does not model running
    out of, so a ruleset with fewer markers than Pots that can be on the
    board at once (one per Pot tile, at most one per Crossroads: MQ-ENC-07)
    is refused in one line; the shipped 5 markers and 4 Crossroads pass,
    and so does a bag with fewer Pot tiles than markers."""
    assert load_ruleset(overrides=["rules.magical_pots=4"]).rules.magical_pots == 4
    lines = err_lines(["rules.magical_pots=3"])
    assert len(lines) == 1 and "rules.magical_pots: 3 markers, but 4 Pots can be out at once" in lines[0], lines
    no_pots = [f'encounters.level{k}.{i}.kind="move1"' for k in (1, 2, 3) for i, t in
               enumerate(getattr(load_ruleset().encounters, f"level{k}")) if t.kind == "pot"]
    assert load_ruleset(overrides=no_pots + ["rules.magical_pots=0"]).rules.magical_pots == 0


def test_an_unset_rule_variant_leaves_the_hash_as_it_was():
    """``disc_clicks_by_players`` is optional: left out, the ruleset's hash
    is the one it had before the key (and ``short_discs_by_players`` and
    ``compass_tokens_by_players``) existed (the published figures stay
    current); set, it is a different rule and a different hash, and each
    length is checked like ``disc_clicks``."""
    base = load_ruleset()
    assert base.levels.hard.disc_clicks_by_players == []
    import hashlib
    import json
    before = base.model_dump(mode="json", exclude={"provenance", "names"})     # the model without the keys
    for lv in before["levels"].values():
        del lv["disc_clicks_by_players"], lv["short_discs_by_players"], lv["compass_tokens_by_players"]
    assert ruleset_hash(base) == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
    varied = load_ruleset(overrides=["levels.hard.disc_clicks_by_players=[5, 6, 6, 7]"])
    assert ruleset_hash(varied) != ruleset_hash(base) and [varied.levels.hard.clicks(p) for p in (1, 2, 3, 4)] == \
        [5, 6, 6, 7]
    assert "levels.hard.disc_clicks_by_players.2" in err_lines(["levels.hard.disc_clicks_by_players=[5, 6, 0, 7]"])[0]
    assert "give four lengths" in err_lines(["levels.hard.disc_clicks_by_players=[5, 6]"])[0]


def test_discs_set_shorter_are_an_optional_variant_checked_like_the_lengths():
    """``short_discs_by_players``, like ``disc_clicks_by_players``, leaves
    the hash as it was while unset; set, the four Discs together are that
    many clicks shorter, and a count outside 0 – 3, a list of the wrong
    size or a Disc that would start at 0 clicks is one clear line."""
    base = load_ruleset()
    assert base.levels.medium.short_discs_by_players == []
    assert [base.levels.medium.disc_lengths(p) for p in (1, 4)] == [[12] * 4] * 2
    assert ruleset_hash(load_ruleset(overrides=["levels.medium.short_discs_by_players=[0, 0, 0, 0]"])) != \
        ruleset_hash(base)
    varied = load_ruleset(overrides=["levels.medium.short_discs_by_players=[1, 0, 3, 2]"])
    assert [varied.levels.medium.total_clicks(p) for p in (1, 2, 3, 4)] == [47, 48, 45, 46]
    assert varied.levels.medium.disc_lengths(3) == [11, 11, 11, 12]
    assert "levels.medium.short_discs_by_players.0" in err_lines(["levels.medium.short_discs_by_players=[4, 0, 0, 0]"])[0]
    assert "give four counts" in err_lines(["levels.medium.short_discs_by_players=[1]"])[0]
    one = err_lines(["levels.hard.disc_clicks_by_players=[1, 6, 6, 7]", "levels.hard.short_discs_by_players=[1, 0, 0, 0]"])
    assert len(one) == 1 and "no Disc can start one click shorter" in one[0], one


def test_compass_tokens_by_players_is_an_optional_variant_checked_like_the_tokens():
    """``compass_tokens_by_players`` leaves the hash as it was while unset;
    set, each player count plays its own count in place of
    ``rules.compass_tokens`` (the engine's table too), and a count outside
    1 – 20 or a list of the wrong size is one clear line."""
    from mournesim.tables import compile_tables
    base = load_ruleset()
    assert base.levels.easy.compass_tokens_by_players == []
    assert [base.levels.easy.compass_tokens(p, base.rules.compass_tokens) for p in (1, 4)] == [6, 6]
    varied = load_ruleset(overrides=["levels.easy.compass_tokens_by_players=[6, 6, 6, 6]"])
    assert ruleset_hash(varied) != ruleset_hash(base)
    varied = load_ruleset(overrides=["levels.hard.compass_tokens_by_players=[3, 5, 7, 9]"])
    assert compile_tables(varied)[1].tokens_at.tolist() == [[6] * 4, [6] * 4, [3, 5, 7, 9]]
    assert "levels.hard.compass_tokens_by_players.1" in \
        err_lines(["levels.hard.compass_tokens_by_players=[3, 0, 7, 9]"])[0]
    assert "give four counts" in err_lines(["levels.hard.compass_tokens_by_players=[3, 5]"])[0]


def test_several_problems_give_one_line_each():
    """Every problem is reported, one line each, naming its path."""
    lines = err_lines(["rules.backpack=0", "heroes.cobs.magic=-3", "rules.talismans=100"])
    assert len(lines) == 3
    for p in ("rules.backpack", "heroes.cobs.magic", "rules.talismans"):
        assert sum(p in line for line in lines) == 1


def test_unknown_and_missing_keys_are_errors():
    """An unknown key ('unknown key') and a missing required key ('missing') are
    reported with their dotted paths; ``--set`` refuses unknown paths."""
    probs = problems(lambda r: r["rules"].update(backpak=3))
    assert probs == ["rules.backpak: unknown key"]
    probs = problems(lambda r: r["toggles"].pop("doubles_stack"))
    assert probs == ["toggles.doubles_stack: missing"]
    probs = problems(lambda r: r.pop("shimnavore"))
    assert "shimnavore: missing" in probs
    assert "heroes.jack.bogus" in err_lines(["heroes.jack.bogus=1"])[0]


def test_board_errors_name_the_space():
    """Board data is checked: a path to an unknown space, a start arrow that is
    not a neighbour, and a missing cache type (MQ-MOVE-01) are errors."""
    probs = problems(lambda r: r["board"]["paths"].append("keystone_n-atlantis"))
    assert len(probs) == 1 and probs[0].startswith("board") and "atlantis" in probs[0]
    probs = problems(lambda r: r["board"]["spaces"]["start_n"].update(arrow="nexus_se"))
    assert "start_n.arrow" in probs[0]
    probs = problems(lambda r: r["board"]["spaces"]["cache_gold"].update(charm="flax"))
    assert "cache" in probs[0]


# ---------------------------------------------------------------- provenance --

def test_every_leaf_of_the_shipped_ruleset_has_provenance():
    """Every effective value has provenance starting with 'rulebook:' or
    'assumed:' (none is an override in the shipped file)."""
    rows = effective_rows(RS)
    assert len(rows) > 200
    for path, _value, prov in rows:
        assert prov is not None and prov.startswith(("rulebook:", "assumed:")), path


@pytest.mark.parametrize("entry,leaf", [
    ("rules.backpack", "rules.backpack"),
    ("rules.charm_supply", "rules.charm_supply"),
    ("moon.track", "moon.track"),
    ("heroes", "heroes.jack.courage"),
    ("shimnavore", "shimnavore.grey"),
])
def test_removing_a_provenance_entry_is_an_error_naming_the_path(entry, leaf):
    """Provenance is required for every leaf: without its entry (and no shorter
    prefix entry covering it) the value is an error naming its dotted path."""
    probs = problems(lambda r: r["provenance"].pop(entry))
    assert any(p.startswith(f"{leaf}: no provenance") for p in probs), probs


def test_provenance_text_must_say_where_it_comes_from():
    """A provenance text must start 'rulebook:', 'assumed:' or 'override:'."""
    probs = problems(lambda r: r["provenance"].update({"rules.life": "because I said so"}))
    assert probs and "provenance.rules.life" in probs[0]


def test_longest_prefix_provenance():
    """Provenance is the entry of the longest matching dotted prefix: the
    Snipe's New Moon values quote the rulebook, its Grey values are assumed."""
    assert provenance_of("enemies.snipe.green", RS.provenance).startswith("rulebook:")
    assert "Courage 8, Strength 9 and Magic 7" in provenance_of("enemies.snipe.green", RS.provenance)
    assert provenance_of("enemies.snipe.grey", RS.provenance).startswith("assumed:")
    assert provenance_of("no.such.path", RS.provenance) is None


# ----------------------------------------------------------------- overrides --

def test_override_changes_value_hash_and_provenance():
    """``--set heroes.jack.courage=9`` changes the value, the ruleset hash and
    the compiled tables, and the row in ``effective_rows`` carries
    'override:' provenance; setting a value to what it already is keeps the
    hash; overrides can be combined."""
    base = ruleset_hash(RS)
    rs = load_ruleset(None, ["heroes.jack.courage=9"])
    assert rs.heroes["jack"].courage == 9
    assert ruleset_hash(rs) != base
    row = [r for r in effective_rows(rs) if r[0] == "heroes.jack.courage"]
    assert row == [("heroes.jack.courage", 9, row[0][2])] and row[0][2].startswith("override:")
    assert "heroes.jack.courage=9" in row[0][2]
    # other values keep their provenance
    other = dict((p, s) for p, _, s in effective_rows(rs))
    assert other["heroes.jack.strength"].startswith("assumed:")
    assert ruleset_hash(load_ruleset(None, ["heroes.jack.courage=7"])) == base
    two = load_ruleset(None, ["heroes.jack.courage=9", "toggles.doubles_stack=true"])
    assert two.toggles.doubles_stack is True and ruleset_hash(two) not in (base, ruleset_hash(rs))
    r = sim.prepare(overrides=("heroes.jack.courage=9",))
    assert r.hash == ruleset_hash(rs)
    assert int(r.tables.hero_abil[r.names.heroes.index("jack"), 0]) == 9


def test_override_of_a_whole_list_and_table():
    """Lists and tables can be replaced whole: the value and 'override:'
    provenance show on every leaf below the overridden path."""
    rs = load_ruleset(None, ["enemies.snipe.grey=[9, 10, 8]"])
    row = [r for r in effective_rows(rs) if r[0] == "enemies.snipe.grey"][0]
    assert row[1] == [9, 10, 8] and row[2].startswith("override:")


def test_override_of_one_list_element_shows_override_provenance():
    """``--set enemies.snipe.green.0=9`` changes the Snipe's New Moon Courage to
    9; the effective row ``enemies.snipe.green`` = [9, 9, 7] must then say
    'override:', not quote the rulebook's 'Courage 8' (``rules show``)."""
    rs = load_ruleset(None, ["enemies.snipe.green.0=9"])
    row = [r for r in effective_rows(rs) if r[0] == "enemies.snipe.green"][0]
    assert row[1] == [9, 9, 7]
    assert row[2].startswith("override:"), row[2]


def test_override_errors():
    """Bad overrides: no '=', an empty path, an index outside a list, a path
    through a value, a provenance path."""
    assert "expected dotted.path=value" in err_lines(["rules.backpack"])[0]
    assert "empty path" in err_lines(["=3"])[0]
    assert "enemies.snipe.green.3" in err_lines(["enemies.snipe.green.3=1"])[0]
    assert "not a table" in err_lines(["rules.backpack.x=1"])[0]
    assert "provenance" in err_lines(["provenance.rules=assumed: x"])[0]


# ------------------------------------------------------- facts in the rulebook --

def test_snipe_values_quoted_from_the_rulebook():
    """'a Snipe on a New Moon is Courage 8, Strength 9 and Magic 7' (MQ-COMBAT-01,
    MQ-GAP-30); 'A Snipe, attacking on a Blood Moon, will attack on Courage with
    a score of 13' so Courage 13 is its strongest Blood Moon value
    (MQ-ENEMY-07); Snipe level 1, Speedwell 2, Louse Wort 3 (MQ-ENEMY-13) with
    1, 1 and 2 wins needed (MQ-COMBAT-16/17)."""
    sn = RS.enemies["snipe"]
    assert sn.green == [8, 9, 7]
    assert sn.red[0] == 13 and sn.red[0] > max(sn.red[1:])
    assert [RS.enemies[n].level for n in ("snipe", "speedwell", "louse_wort")] == [1, 2, 3]
    assert [RS.enemies[n].wins_needed for n in ("snipe", "speedwell", "louse_wort")] == [1, 1, 2]
    t = RULES.tables.enemy
    assert list(t[0, 0]) == [8, 9, 7] and t[0, 2, 0] == 13   # compiled: row snipe, colours green / red


def test_equipment_relic_and_tile_counts():
    """Components: a 28-card Equipment Deck including 4 Hag Cards (MQ-SETUP-05),
    18 Relics, Encounter Tiles Level 1 x 13, Level 2 x 17, Level 3 x 17 (47),
    each set mixing bogbean, pot and movement tiles (MQ-ENC-03); the compiled
    tables agree."""
    eq = RS.equipment
    assert len(eq.courage) + len(eq.strength) + len(eq.magic) == 24
    assert len(RS.hags) == 4
    cards = RULES.tables.cards
    assert len(cards) == 28 and int((cards[:, 0] < 0).sum()) == 4
    assert sum(r.count for r in RS.relics.values()) == 18 and len(RULES.tables.relics) == 18
    assert any(r.sabotaged for r in RS.relics.values())                     # MQ-CARD-12
    assert any(r.effect.kind == "repair_wall" for r in RS.relics.values())  # MQ-FINAL-20
    assert any(r.effect.kind == "extra_die" for r in RS.relics.values())    # MQ-COMBAT-07
    counts = [sum(t.count for t in getattr(RS.encounters, f"level{i}")) for i in (1, 2, 3)]
    assert counts == [13, 17, 17]
    assert [int(n) for _, n in RULES.tables.level_tiles] == [13, 17, 17]
    for i in (1, 2, 3):
        kinds = {t.kind for t in getattr(RS.encounters, f"level{i}") if t.count}
        assert "bogbean" in kinds and "pot" in kinds and kinds & {"move1", "move2"}
    # Level 3 bogbean tiles show a card symbol (MQ-COMBAT-19)
    assert all(t.card for t in RS.encounters.level3 if t.kind == "bogbean")


def test_four_nightmares_with_five_charms_each():
    """The four Nightmares (Changeling, Merrow, Dullahan, Banshee; MQ-DISC-01)
    each need a combination of 5 Charms (MQ-CHARM-06), of the four types
    (MQ-CHARM-01)."""
    assert set(RS.nightmares) == {"changeling", "merrow", "dullahan", "banshee"}
    for name, nm in RS.nightmares.items():
        assert sum(nm.charms.values()) == 5, name
        assert set(nm.charms) <= {"granite", "gold", "blackthorn", "flax"}
    assert [int(x) for x in RULES.tables.nm_charms.sum(axis=1)] == [5, 5, 5, 5]


def test_component_and_rule_numbers():
    """Numbers the rulebook states: 7 heroes (MQ-HERO-01) with 3 abilities,
    backpack 3, life 3, 3 skill uses, 3 actions, 2 miniatures a space,
    bogbean move 1 / nightmare move 2, at most 3 combat dice, 6 compass
    tokens, 2 moon cycles, Shimnavore beaten twice per ability, 4 x 16 charms,
    6 talismans, 5 pots, 4 bogbeans per level, 3 granite to repair, 2 actions
    off a disc, 2 bogbean tiles removed per level with 1-2 players, 4
    pre-game tiles, Level 5 solo equipment."""
    assert set(RS.heroes) == {"jack", "cobs", "iur", "beith", "grace", "tess", "finias"}
    r = RS.rules
    assert (r.backpack, r.life, r.skill_uses, r.actions_per_turn, r.miniatures_per_space) == (3, 3, 3, 3, 2)
    assert (r.bogbean_move, r.nightmare_move, r.max_combat_dice, r.compass_tokens) == (1, 2, 3, 6)
    assert (r.moon_cycles, r.shimnavore_wins_per_ability, r.charm_supply, r.talismans) == (2, 2, 16, 6)
    assert (r.magical_pots, r.bogbeans_per_level, r.granite_for_repair, r.disc_return_cost) == (5, 4, 3, 2)
    assert (r.removed_bogbean_tiles, r.pregame_tiles, r.solo_equipment_value) == (2, 4, 5)
    assert 5 in RS.equipment.courage and 5 in RS.equipment.strength and 5 in RS.equipment.magic
    assert RS.heroes["cobs"].skill == "secret_pathways"
    assert RS.skills["secret_pathways"].effect.kind == "move_to"          # MQ-HERO-08


def test_levels_moon_dice_and_board_facts():
    """Levels: Easy/Medium pick up many charms per action, Difficult one
    (MQ-CHARM-03/04), and a harder level starts its discs nearer release
    (MQ-LEVEL-02..04). Moon: starts on a Blood Moon (MQ-SETUP-04), one Blue
    Moon, all three phases (MQ-MOON-01). Dice: six compass results, one each
    (MQ-MOON-08..10); the combat faces use only the listed results
    (MQ-COMBAT-08) and the Grey die has a Fail and a Dandelion (MQ-FINAL-14).
    Board: 4 start points, key stones, nexus points, crossroads, caches and
    discs, 2 tunnels and 2 trading posts (MQ-MOVE-01), and the Example of Play
    adjacencies (MQ-MOVE-15..20)."""
    lv = RS.levels
    assert (lv.easy.charm_multi, lv.medium.charm_multi, lv.hard.charm_multi) == (True, True, False)
    assert lv.easy.disc_clicks > lv.medium.disc_clicks > lv.hard.disc_clicks
    track = RS.moon.track
    assert track[0] == "R" and track.count("B") == 1 and set("RMG") <= set(track)
    assert sorted(RS.dice.compass) == sorted(["N", "E", "S", "W", "star", "blank"])
    assert "fail" in RS.dice.grey and "dandelion" in RS.dice.grey
    kinds = Counter(sp.kind for sp in RS.board.spaces.values())
    for k, n in dict(start=4, keystone=4, nexus=4, crossroads=4, cache=4, disc=4, tunnel=2, trading_post=2).items():
        assert kinds[k] == n, k
    adj = {}
    for p in RS.board.paths:
        a, _, b = p.partition("-")
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    kind = {n: sp.kind for n, sp in RS.board.spaces.items()}
    cache = {sp.charm: n for n, sp in RS.board.spaces.items() if sp.kind == "cache"}
    def cross(n):
        return {x for x in adj[n] if kind[x] == "crossroads"}

    assert cross(cache["flax"])                                                   # MQ-MOVE-15
    assert "nexus_nw" in adj[cache["flax"]]                                       # MQ-MOVE-16
    assert cross(cache["blackthorn"])                                             # MQ-MOVE-17
    assert any("keystone_e" in adj[c] for c in cross(cache["blackthorn"]))        # MQ-MOVE-18
    assert any("nexus_se" in adj[m] for c in [n for n in kind if kind[n] == "crossroads"] for m in adj[c])  # -19
    assert any(kind[x] == "start" for c in [n for n in kind if kind[n] == "crossroads"] for x in adj[c])   # -20


def test_centre_is_where_the_shimnavore_appears_and_no_path_leads_there():
    """"Place the Shimnavore miniature onto the centre of the board." (MQ-FINAL-01):
    the shipped board has exactly one centre space, off the pathways; a ruleset
    that joins it to a space is rejected with the path named."""
    from mournesim import layout as L
    rules = RULES
    centre = rules.names.spaces.index("centre")
    assert rules.tables.kind[centre] == L.K_CENTRE and rules.tables.deg[centre] == 0
    with pytest.raises(InputError, match="no path leads to the centre"):
        load_ruleset(None, ['board.paths.0="centre-keystone_n"'])


def test_hero_provenance_matches_the_data():
    """The assumed hero values say why they are what they are ("each hero
    totals 15 with a different strong suit, and no printed value beats a Snipe
    on a New Moon (8/9/7) before the dice: the best only tie it"). MQ-HERO-02,
    MQ-GAP-01: the data must bear the reason out."""
    snipe = RS.enemies["snipe"].green
    ties = []
    for name, h in RS.heroes.items():
        vals = (h.courage, h.strength, h.magic)
        assert sum(vals) == 15, name
        assert all(v <= s for v, s in zip(vals, snipe)), name
        ties += [name for v, s in zip(vals, snipe) if v == s]
    assert sorted(ties) == ["beith", "cobs"]
    assert "Cobs' and Beith's Magic 7" in provenance_of("heroes.jack.courage", RS.provenance)


def test_disc_provenance_matches_the_expected_release_turns():
    """The assumed disc lengths' provenance gives the hero turn at which each
    level's Disc releases on average before any roll-over: a Disc clicks 7/36 a
    compass die (1/6 its direction, 1/6 a Star, six Stars turn every Disc), one
    die a turn in the first Moon cycle and two in the second (MQ-MOON-06..09)."""
    moon = len(RS.moon.track)
    per_die = 1 / 6 + 1 / 36
    text = provenance_of("levels.medium.disc_clicks", RS.provenance)
    for level, turn in (("easy", 53), ("medium", 45), ("hard", 37)):
        clicks = getattr(RS.levels, level).disc_clicks
        first = moon * per_die
        t = moon + (clicks - first) / (2 * per_die)
        assert abs(t - turn) < 1, (level, t)
        assert f"turn {turn}" in text or f"hero turn {turn}" in text
