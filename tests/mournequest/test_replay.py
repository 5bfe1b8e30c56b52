"""Replays (shared/design.md, "Replay"): any game ``(S, i)`` replays with its
full event log as readable text and as JSON lines. Every record has ``i``,
``round``, ``event`` and ``actor`` plus the event's named fields; every
``turn_start`` carries a snapshot of the position (mournesim/replay.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mournesim import layout as L
from mournesim import sim
from mournesim.events import snapshot_dict
from mournesim.replay import replay

RULES = sim.prepare()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "mournequest" / "replay.md"


def test_every_event_type_has_one_reading():
    """Each event type is read by exactly one of the declared field table
    (mournesim.events.FIELDS) and the readers that need more context (with
    their declared fields), has exactly one row of the docs' declaration
    (events.DOCS, whose rows' types share their fields), and its declared
    fields are the ones the docs list for it."""
    from mournesim import events
    assert set(events.FIELDS) | set(events.READERS) == set(L.EVENT_NAMES)
    assert not set(events.FIELDS) & set(events.READERS)
    documented = [n for names, _when, _notes in events.DOCS for n in names]
    assert sorted(documented) == sorted(L.EVENT_NAMES)
    for names, _when, notes in events.DOCS:
        assert len({events.fields_of(n) for n in names}) == 1, names
        assert set(notes) <= set(events.fields_of(names[0])), names
    schema = documented_schema()
    for name in L.EVENT_NAMES:
        assert set(events.fields_of(name)) == schema[name], name


def documented_schema():
    """{event: set of field names} from the event table of docs/mournequest/replay.md."""
    import re
    out = {}
    text = DOCS.read_text(encoding="utf-8")
    # the event table to the next section (Quest Master's is docs/questmaster/replay.md)
    table = text.split("### Event types and their fields", 1)[1].split("\n## ", 1)[0]
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        events = re.findall(r"`([a-z_]+)`", cols[0])
        fields = set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", cols[1])))
        for e in events:
            out[e] = fields
    return out


def logged_event_names():
    """Event kinds the engine can write (``log(..., L.EVT_<NAME>, ...)`` in its source)."""
    import re
    src = "".join(p.read_text(encoding="utf-8") for p in (Path(L.__file__).parent).glob("*.py"))
    return {n.lower() for n in re.findall(r"L\.EVT_([A-Z_]+)", src)}


HERO_KEYS = {"seat", "hero", "space", "life", "charms", "equipment", "abilities", "skill_tokens", "relics"}
DISC_KEYS = {"disc", "nightmare", "clicks_left", "state", "deposited"}
SNAP_KEYS = {"moon", "final_battle", "dice_pool", "talismans", "compass_tokens", "encounter_level",
             "charm_pool", "heroes", "discs", "nightmares_on_board", "bogbeans", "magical_pots",
             "wall_damaged", "shimnavore_wounds", "equipment_deck", "surplus", "relic_deck", "encounter_bag"}


@pytest.fixture(scope="module")
def fb_game():
    """A greedy Easy game that reaches the Final Battle (the first of seed 1)."""
    df = sim.simulate(games=30, seed=1, level="easy", players=4, policy="greedy", rules=RULES)
    fb = df[df["final_battle"] & (df["final_battle_rounds"] >= 2)]
    assert len(fb), "no greedy Easy game reached the Final Battle"
    g = int(fb["game"].iloc[0])
    rp = replay(seed=1, game=g, level="easy", players=4, policy="greedy", rules=RULES)
    return rp, df.loc[g]


def test_text_replay_of_a_final_battle_game(fb_game):
    """The text replay of a game that reaches the Final Battle (MQ-FINAL-01)
    shows the 'final_battle' event, turn headers marked FINAL BATTLE, the
    Shimnavore's compass results and wall rolls (MQ-FINAL-06/07/11..19), and
    ends with a 'game_end' line giving the outcome and rounds of the batch row."""
    rp, row = fb_game
    text = rp.to_text()
    lines = text.splitlines()
    assert lines[0].startswith(f"MourneQuest replay  seed=1 game={rp.game} level=easy players=4 policy=greedy")
    assert RULES.hash in lines[0]
    assert any(line.startswith("-- THE SHIMNAVORE APPEARS") for line in lines)
    assert any(line.startswith("-- FINAL BATTLE BEGINS") for line in lines)
    assert any("FINAL BATTLE" in line for line in lines if line.startswith("== round"))
    assert sum(line.strip().startswith("the Shimnavore acts on ") for line in lines) >= 2
    end = [line for line in lines if line.startswith("GAME OVER")]
    assert len(end) == 1 and lines[-1] == end[0]
    # the ending by the ruleset's name for it ("won", "the wall destroyed", ...)
    from mournesim.ruleset import load_ruleset, names_of
    assert end[0] == f"GAME OVER: {names_of(load_ruleset())[row['outcome']]} after {row['rounds']} rounds"
    # turn headers: one per hero turn
    assert sum(line.startswith("== round") for line in lines) == row["hero_turns"]


def test_final_battle_sequence_in_the_log(fb_game):
    """In the records: the Shimnavore appears when the moon completes its
    second cycle (MQ-FINAL-01); nightmares not cast out emerge (MQ-FINAL-03);
    no Encounter Tile is drawn after that (MQ-FINAL-10); every compass roll of
    the Final Battle uses one die (MQ-FINAL-07) and is followed by the
    Shimnavore acting on that face (MQ-FINAL-11..13)."""
    rp, row = fb_game
    recs = rp.records()
    names = [r["event"] for r in recs]
    k = names.index("final_battle")
    moon_len = len(RULES.ruleset.moon.track)
    last_moon = [r for r in recs[:k] if r["event"] == "moon"][-1]
    assert last_moon["cycles_done"] == RULES.ruleset.rules.moon_cycles and last_moon["space"] == 0
    assert sum(r["event"] == "moon" for r in recs[:k]) == moon_len * RULES.ruleset.rules.moon_cycles
    after = recs[k + 1:]
    assert "encounter" not in [r["event"] for r in after]
    cast = {r["actor"] for r in recs[:k] if r["event"] == "cast_out"}
    emerged = {r["actor"] for r in after if r["event"] == "emerge"}
    gone = {r["actor"] for r in recs[:k] if r["event"] == "nightmare_defeated"}
    assert emerged == set(RULES.names.nightmares) - cast - gone
    for j, r in enumerate(after):
        if r["event"] == "compass":
            assert r["dice"] == 1
            nxt = next(x for x in after[j + 1:] if x["event"] in ("compass", "shimnavore", "talisman"))
            if nxt["event"] == "shimnavore":
                assert nxt["face"] == r["face"]
    assert names[-1] == "game_end" and recs[-1]["outcome"] == row["outcome"]


def _check_record_fields(r, schema):
    need = set(schema[r["event"]])
    if r["event"] == "enemy_phase" and r.get("step") == "begins":
        need = {"step"}
    missing = need - set(r)
    assert not missing, (r["event"], "missing documented fields", missing, r)


def test_jsonl_schema_of_every_record(fb_game):
    """Every JSON line parses to a record with i (consecutive from 0), round,
    event (a known event name) and actor (a hero, a nightmare or 'game'), plus
    every field docs/mournequest/replay.md documents for its event kind."""
    rp, _ = fb_game
    schema = documented_schema()
    lines = rp.to_jsonl().splitlines()
    recs = [json.loads(line) for line in lines]
    assert len(recs) == len(rp.events)
    actors = set(RULES.names.heroes) | set(RULES.names.nightmares) | {"game"}
    seen = set()
    for k, r in enumerate(recs):
        assert r["i"] == k and isinstance(r["round"], int) and r["round"] >= 0
        assert r["event"] in L.EVENT_NAMES
        assert r["actor"] in actors, r
        seen.add(r["event"])
        assert r["event"] in schema, f"event {r['event']!r} is not documented"
        if r["event"] != "all_discs":      # see test_all_discs_record_has_documented_fields
            _check_record_fields(r, schema)
    assert {"setup", "turn_start", "action", "move", "moon", "compass", "combat", "dice",
            "final_battle", "shimnavore", "game_end"} <= seen
    # rounds never go backwards
    rounds = [r["round"] for r in recs]
    assert rounds == sorted(rounds)


def test_jsonl_schema_over_many_games():
    """Across 24 games of every level and player count, every record carries
    the fields docs/mournequest/replay.md documents for its event kind."""
    schema = documented_schema()
    kinds = set()
    for g in range(24):
        rp = replay(seed=31, game=g, level=("easy", "medium", "hard")[g % 3], players=1 + g % 4,
                        policy=("greedy", "random")[g % 2], rules=RULES)
        for r in rp.records():
            assert {"i", "round", "event", "actor"} <= set(r)
            kinds.add(r["event"])
            if r["event"] != "all_discs":
                _check_record_fields(r, schema)
    assert len(kinds) >= 30


def test_all_discs_record_has_documented_fields():
    """MQ-MOON-09: the 6th Compass Token turns every disc; its 'all_discs'
    record has the fields docs/mournequest/replay.md documents (none of its own)."""
    schema = documented_schema()
    for g in range(200):
        rp = replay(seed=32, game=g, level="easy", players=4, policy="greedy", rules=RULES)
        recs = [r for r in rp.records() if r["event"] == "all_discs"]
        if recs:
            _check_record_fields(recs[0], schema)
            return
    pytest.fail("no all_discs event in 200 games")


@pytest.mark.parametrize("level,players,policy", [("easy", 4, "greedy"), ("hard", 1, "random"),
                                                  ("medium", 2, "greedy")])
def test_every_turn_start_has_a_full_snapshot(level, players, policy, fb_game):
    """Every turn_start record carries a snapshot of the position with the
    heroes (one per hero in play: 2 in solo, MQ-SOLO-02), the four discs and
    the moon; it equals ``snapshot_dict`` of the raw snapshot, and the actor is
    the hero whose turn it is."""
    rp = fb_game[0] if (level, players, policy) == ("easy", 4, "greedy") else \
        replay(seed=4, game=2, level=level, players=players, policy=policy, rules=RULES)
    nh = 2 if players == 1 else players
    recs = rp.records()
    ts = [r for r in recs if r["event"] == "turn_start"]
    assert len(ts) == len(rp.snapshots) and ts
    for r in ts:
        sn = r["snapshot"]
        assert SNAP_KEYS <= set(sn)
        assert len(sn["heroes"]) == nh and all(HERO_KEYS <= set(h) for h in sn["heroes"])
        assert len(sn["discs"]) == 4 and all(DISC_KEYS <= set(d) for d in sn["discs"])
        assert [d["disc"] for d in sn["discs"]] == ["N", "E", "S", "W"]
        assert {"space", "colour", "cycle"} <= set(sn["moon"])
        assert sn["moon"]["colour"] in L.COLOUR_NAMES
        assert r["actor"] in [h["hero"] for h in sn["heroes"]]
        assert all(0 <= h["life"] <= RULES.ruleset.rules.life for h in sn["heroes"])
        assert json.loads(json.dumps(sn)) == sn
    # the decoded snapshot is the raw state vector's
    from mournesim.events import _Ctx
    ctx = _Ctx(rp)
    assert ts[0]["snapshot"] == snapshot_dict(rp.snapshots[0], ctx)
    assert ts[-1]["snapshot"] == snapshot_dict(rp.snapshots[-1], ctx)


def test_setup_record_names_the_disc_placement(fb_game):
    """The 'setup' record gives the level, the player count, which Nightmare
    sits at N/E/S/W (MQ-SETUP-01: all four, each once) and the opening Surplus
    card, never a Hag (MQ-SETUP-05)."""
    rp, _ = fb_game
    setup = [r for r in rp.records() if r["event"] == "setup"]
    assert len(setup) == 1
    s = setup[0]
    assert s["level"] == "easy" and s["players"] == 4
    assert sorted(s["discs"]) == ["E", "N", "S", "W"]
    assert sorted(s["discs"].values()) == sorted(RULES.names.nightmares)
    hags = set(RULES.ruleset.hags)
    assert s["first_surplus"] is not None and s["first_surplus"] not in hags


def test_replay_schema_is_documented():
    """docs/mournequest/replay.md (named by the README and by mournesim/replay.py as the
    schema's documentation) documents every event kind the engine logs."""
    assert DOCS.exists(), "docs/mournequest/replay.md is missing"
    schema = documented_schema()
    logged = logged_event_names()
    assert len(logged) > 40
    missing = sorted(logged - set(schema))
    assert not missing, missing
