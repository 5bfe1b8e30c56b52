"""Decisions in the open (simcore.witness): a replay asked for its decisions
is the same game, event for event; a branch is the same game up to the
choice changed and plays that choice; a person's seat pauses at its
decision and shows nothing after it; a person who answers as the player
would replays the player's game; the scores shown are the ones the player
chose by; every option reads as words; bad scripts are one line.
"""
from __future__ import annotations

import numpy as np
import pytest

from mournesim import layout as ML
from mournesim.replay import replay as mq_replay
from questsim.replay import replay as qm_replay
from simcore.errors import InputError
from simcore.witness import Script

MQ_CASES = [dict(policy="greedy", players=4), dict(policy="planner", players=1, level="hard"),
            dict(policy="random", players=2, level="easy")]
QM_CASES = [dict(policies=("greedy",), players=4), dict(policies=("planner", "random", "greedy_v2"), players=3)]
CASES = [(mq_replay, kw) for kw in MQ_CASES] + [(qm_replay, kw) for kw in QM_CASES]
IDS = ["mq-greedy-4", "mq-planner-solo", "mq-random-2", "qm-greedy-4", "qm-mixed-3"]


@pytest.mark.parametrize("play, kw", CASES, ids=IDS)
def test_a_witnessed_game_is_the_game(play, kw):
    """Every decision recorded, and not one event, snapshot or state slot
    changed; each decision played the player's own choice."""
    for game in range(3):
        a = play(seed=11, game=game, **kw)
        b = play(seed=11, game=game, script=Script(), **kw)
        assert np.array_equal(a.events, b.events) and np.array_equal(a.final_state, b.final_state)
        assert np.array_equal(a.snapshots, b.snapshots)
        assert b.paused == -1 and len(b.decisions) > 20
        assert [d.index for d in b.decisions] == list(range(len(b.decisions)))
        assert all(d.played == d.policy and d.played in d.legal and len(d.legal) >= 1 for d in b.decisions)
        counts = [d.events for d in b.decisions]
        assert counts == sorted(counts) and counts[-1] <= len(b.events)


@pytest.mark.parametrize("play, kw", CASES, ids=IDS)
def test_a_branch_is_the_game_up_to_the_choice_changed(play, kw):
    """Branching decision k with its own choice gives the same game; with
    another, the same events before it, that choice played, and a game
    that differs from there."""
    base = play(seed=5, game=1, script=Script(), **kw)
    d = next(d for d in base.decisions[len(base.decisions) // 3:] if len(d.legal) > 1)
    same = play(seed=5, game=1, script=Script().then(d.index, d.played), **kw)
    assert np.array_equal(same.events, base.events)
    other = next(c for c in d.legal if c != d.played)
    br = play(seed=5, game=1, script=Script().then(d.index, other), **kw)
    assert np.array_equal(br.events[:d.events], base.events[:d.events])
    assert br.decisions[d.index].played == other and br.decisions[d.index].legal == d.legal
    assert [x.played for x in br.decisions[:d.index]] == [x.played for x in base.decisions[:d.index]]
    assert not np.array_equal(br.events, base.events)


@pytest.mark.parametrize("play, kw", CASES, ids=IDS)
def test_a_seat_pauses_at_its_decision_and_a_player_like_answer_replays_the_game(play, kw):
    """The person's seat (actor 1) pauses at its first decision not in the
    script, showing the events before it and no more; answering each pause
    with the player's own choice walks through the very game the player
    played, pause by pause."""
    whole = play(seed=3, game=2, script=Script(), **kw)
    script = Script(seat=1)
    for _ in range(4):
        rp = play(seed=3, game=2, script=script, **kw)
        d = rp.decisions[-1]
        assert rp.paused == d.index and d.actor == 1
        assert all(x.actor != 1 for x in rp.decisions[:-1] if x.index not in dict(script.choices))
        assert len(rp.events) == d.events and np.array_equal(rp.events, whole.events[:d.events])
        assert whole.decisions[d.index].legal == d.legal
        script = script.then(d.index, d.policy)


def test_the_scores_shown_are_the_ones_the_player_chose_by():
    """Greedy plays a best-scored option at every decision, and the
    planner at every turn action; a random player has no scores."""
    from mournesim import explain, plugins
    for policy in ("greedy", "planner"):
        rp = mq_replay(seed=2, game=0, policy=policy, script=Script())
        pp = plugins.get(policy).defaults
        checked = 0
        for d in rp.decisions:
            if policy == "planner" and ML.code_op(d.legal[0]) >= ML.R_ACCEPT:
                continue         # the planner settles some reactions before scoring (policies.planner)
            v = explain.scores(rp, d, pp)
            assert v[d.legal.index(d.played)] == pytest.approx(max(v), abs=1e-6), (policy, d.index)
            checked += 1
        assert checked > 50
    rp = mq_replay(seed=2, game=0, policy="random", script=Script())
    assert explain.scores(rp, rp.decisions[0], ()) is None


def test_quest_masters_scores_are_the_ones_each_seat_chose_by():
    """Greedy, the planner and their v2 versions, at one table, each play
    the first best-scored option (a sure win, taken before scoring, ends
    the game: the last decision is left out); a random seat has no scores."""
    from questsim import explain
    pols = ("greedy", "planner", "greedy_v2", "random")
    checked = 0
    for game in range(3):
        rp = qm_replay(seed=4, game=game, players=4, policies=pols, script=Script())
        for d in rp.decisions[:-1]:
            v = explain.scores(rp, d, pols)
            if pols[d.actor] == "random":
                assert v is None
                continue
            assert d.legal.index(d.played) == v.index(max(v)), (game, d.index, pols[d.actor], v)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("play, kw", CASES, ids=IDS)
def test_every_option_reads_as_words(play, kw):
    """No option falls back to a bare operation name or number."""
    import importlib
    pkg = "mournesim" if play is mq_replay else "questsim"
    explain = importlib.import_module(f"{pkg}.explain")
    for game in range(4):
        rp = play(seed=9, game=game, script=Script(), **kw)
        labels = explain.Labels(rp)
        for d in rp.decisions:
            for c in d.legal:
                text = labels.text(d, c)
                assert " " in text and "None" not in text, (c, text)


@pytest.mark.parametrize("text, seat, message", [
    ("12:3004,x", -1, "expected decision:code pairs"),
    ("40:1,12:3", -1, "increasing order"),
    ("", 99, "seat 99: out of range"),
    ("", "one", "not a whole number"),
])
def test_a_malformed_script_is_one_line(text, seat, message):
    with pytest.raises(InputError, match=message):
        Script.parse(text, seat)


def test_a_choice_that_is_not_legal_or_a_seat_not_in_the_game_is_one_line():
    with pytest.raises(InputError, match="not a legal choice at decision 3"):
        mq_replay(seed=1, game=0, script=Script(((3, 999_999),)))
    with pytest.raises(InputError, match="this game has 2"):
        qm_replay(seed=1, game=0, players=2, script=Script(seat=2))
    with pytest.raises(InputError, match="this game has 2"):
        mq_replay(seed=1, game=0, players=1, script=Script(seat=3))
