"""The MourneQuest text replay reads like the game: each action
once with its cost and the actions left after it, names instead of ids,
reasons for what enemies and the bag do, non-events, no sentinel numbers in
the JSON lines, and the same bytes for the same seed.

The games are the golden-test kind: logging only writes things down, so a
replayed game ends as its batch row does (tests/mournequest/test_replay.py) and the
golden reference games are unchanged (tests/common/test_engine_identity.py).
"""
from __future__ import annotations

import json
import re

import pytest

from mournesim import layout as L
from mournesim import sim
from mournesim.replay import replay

RULES = sim.prepare()
GAMES = [(1, 7, "easy", 4, "greedy"), (4, 2, "hard", 1, "random"), (9, 0, "hard", 3, "planner"),
         (2, 11, "easy", 2, "random"), (1, 0, "easy", 4, "greedy")]


@pytest.fixture(scope="module")
def games():
    """``[(replay, records, text lines)]`` of GAMES."""
    out = []
    for seed, game, level, players, policy in GAMES:
        rp = replay(seed=seed, game=game, level=level, players=players, policy=policy, rules=RULES)
        out.append((rp, rp.records(), rp.to_text().splitlines()))
    return out


def _walk(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from _walk(v)
    else:
        yield x


def test_actions_left_is_the_count_after_the_action(games):
    """Within a turn each action starts from the count the one before left;
    a free action costs 0 and leaves the count as it was; the first action
    of a turn starts from the ruleset's actions per turn."""
    per_turn = RULES.ruleset.rules.actions_per_turn
    checked = 0
    for _, recs, _ in games:
        left = None
        for r in recs:
            if r["event"] == "turn_start":
                left = per_turn
            elif r["event"] == "action" and r["action"] != "end_turn":
                assert r["actions_left"] == left - r["cost"] + r["actions_gained"], r
                assert r["cost"] >= 0 and r["actions_gained"] >= 0
                left = r["actions_left"]
                checked += 1
            elif r["event"] == "action":
                assert r["cost"] == 0 and r["actions_left"] == left > 0, r
    assert checked > 300


def test_each_action_is_one_line_with_its_cost(games):
    """One line per action record, carrying ``[...]`` with its cost: the
    policy's choice and the event it causes are not printed twice."""
    rp, recs, text = games[0]
    actions = [r for r in recs if r["event"] == "action"]
    costed = [line for line in text if re.search(r"\[(free|gains \d+ actions?|\d+ actions?)( unused)?[;\]]", line)]
    assert len(costed) == len(actions)
    free = [line for line in costed if "[free;" in line]
    assert free and all("(free)" in line or "discards" in line or "uses" in line for line in free)
    # a move is one line: "X moves a -> b", never followed by its own move event
    for a, b in zip(text, text[1:]):
        if " moves " in a and "->" in a and "[" in a:
            assert not (b.strip().startswith(a.split()[0]) and " is moved " not in b and " moves " in b
                        and "[" not in b), (a, b)


def test_no_raw_ids_or_sentinels(games):
    """The text has no ``key=value`` leftovers (``target=12``), and no JSON
    value is -1 or 999 except a real change (life, a disc turning back)."""
    for _, recs, text in games:
        assert not [line for line in text if re.search(r"\b[a-z_]+=", line) and "seed=" not in line]
        for r in recs:
            for k, v in r.items():
                if k in ("i", "round", "change", "clicks", "bonus") or isinstance(v, bool):
                    continue
                assert all(x not in (-1, 999) or isinstance(x, bool) for x in _walk(v)), (k, r)


def test_reasons_and_names(games):
    """Every enemy move says whom it hunts, every enemy that stays says why,
    every discarded tile and card says why, every bogbean is named by kind
    and nexus, and every deposit says what the disc still needs."""
    kinds = set()
    joined = "\n".join(line for _, _, text in games for line in text)
    assert "still needed:" in joined and "towards the nearest hero" in joined
    for _, recs, text in games:
        for r in recs:
            ev = r["event"]
            kinds.add(ev)
            if ev == "enemy_move":
                assert r["hunting"] and r["distance"] >= 1, r
            elif ev == "enemy_stay":
                assert r["reason"] in L.STAY_NAMES, r
            elif ev == "encounter" and not r["placed"]:
                assert r["reason"], r
            elif ev == "equip" and not r["equipped"]:
                assert r["reason"] in ("chosen", "no better than the card held"), r
            elif ev == "deposit":
                assert isinstance(r["still_needed"], dict)
            elif ev in ("theft", "bogbean_defeated", "flee"):
                assert re.fullmatch(r"(snipe|speedwell|louse_wort) of (NE|SE|SW|NW)", r["bogbean"]), r
    # the non-events show up in these games
    assert {"enemy_stay", "disc_held", "shimnavore_attack"} <= kinds, kinds
    assert any(r["action"] == "end_turn" for _, recs, _ in games for r in recs if r["event"] == "action")


def test_jsonl_is_the_same_bytes_for_the_same_seed():
    """``--format jsonl`` is deterministic: two replays, identical bytes."""
    a = replay(seed=1, game=7, level="easy", players=4, rules=RULES).to_jsonl()
    b = replay(seed=1, game=7, level="easy", players=4, rules=RULES).to_jsonl()
    assert a == b and all(json.loads(line)["i"] == i for i, line in enumerate(a.splitlines()))
