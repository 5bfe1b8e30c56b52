"""The replay viewer: positions after every event, the page's
data, and the page itself (self-contained, under 2 MB for a full game).

Positions event by event come from the turn snapshots plus the events that
move a miniature (mournesim/viewer.py ``Pieces``, questsim/viewer.py
``Pawns``). Fed only the events, never a snapshot, they must arrive at
every turn's snapshot exactly: that is what makes a step between two turns
show the board as it was."""
from __future__ import annotations

import json
import re

import pytest

from mournesim import sim
from mournesim.replay import replay
from mournesim import viewer as MV
from questsim import replay as QR
from questsim import viewer as QV
from simcore import viewer as V

RULES = sim.prepare()

MQ_GAMES = [(1, 7, "easy", 4, "greedy"), (4, 2, "hard", 1, "random"), (31, 5, "medium", 2, "greedy"),
            (9, 0, "hard", 3, "planner"), (2, 11, "easy", 2, "random")]


@pytest.mark.parametrize("seed,game,level,players,policy", MQ_GAMES)
def test_mq_positions_from_events_reach_every_snapshot(seed, game, level, players, policy):
    """Every miniature (heroes, nightmares on their discs or the board,
    bogbeans, pots, the Shimnavore), moved only by the logged events, stands
    where the engine's state copy at the next turn start has it; so do the
    disc clicks and the wall damage shown beside the spaces."""
    rp = replay(seed=seed, game=game, level=level, players=players, policy=policy, rules=RULES)
    recs = rp.records()
    moved = MV.Pieces(rp)
    truth = MV.Pieces(rp)
    k = 0
    for r in recs:
        if r["event"] == "turn_start":
            truth.from_state(rp.snapshots[k])
            assert moved.pos == truth.pos, (k, r["round"], r["actor"], dict(zip(moved.ids, moved.pos)),
                                            dict(zip(truth.ids, truth.pos)))
            assert (moved.clicks, moved.state, moved.wall, moved.moon) == \
                (truth.clicks, truth.state, truth.wall, truth.moon), k
            k += 1
        else:
            moved.apply(r)
    assert k == len(rp.snapshots) and k > 3
    # and the final position: the state the game ended in
    truth.from_state(rp.final_state)
    assert [p for p in moved.pos[:moved.nh]] == truth.pos[:truth.nh]


@pytest.mark.parametrize("seed,game,players", [(1, 3, 3), (2, 0, 6), (5, 4, 2), (7, 9, 4)])
def test_qm_positions_from_events_reach_every_snapshot(seed, game, players):
    """Every pawn, moved only by move, warp, go_home and eliminated records,
    stands on the square of the next turn's snapshot (out of the game: off
    the board)."""
    rp = QR.replay(seed=seed, game=game, players=players)
    recs = rp.records()
    turns = [r for r in recs if r["event"] == "turn" and r["snapshot"]]
    moved = QV.Pawns(rp)
    moved.from_snapshot(turns[0]["snapshot"])
    truth = QV.Pawns(rp)
    n = 0
    for r in recs:
        if r["event"] == "turn" and r["snapshot"]:
            truth.from_snapshot(r["snapshot"])
            assert moved.pos == truth.pos, (r["i"], moved.pos, truth.pos)
            n += 1
        else:
            moved.apply(r)
    assert n == len(turns) > 3


def test_mq_page_data_follows_the_text_replay():
    """One step per line group of the text replay, in order; a turn opens at
    its turn_start; the first step places every piece; every hero is on its
    start point before the first turn."""
    rp = replay(seed=1, game=7, level="easy", players=4, policy="greedy", rules=RULES)
    d = MV.data(rp)
    V.check(d)
    text = rp.to_text().splitlines()[1:]
    assert "\n".join(s["x"] for s in d["steps"]) == "\n".join(line for line in text if line.strip())
    assert len(d["turns"]) == len(rp.snapshots)
    assert all(d["steps"][t["step"]]["x"].startswith("== round") for t in d["turns"])
    names = [n["id"] for n in d["board"]["nodes"]]
    assert names == list(RULES.ruleset.board.spaces)
    first = d["steps"][0]["p"]
    starts = [rp.final_state[sim.L.G_HERO + h * sim.L.HS + sim.L.H_START] for h in range(4)]
    assert first[:4] == [int(x) for x in starts]


def test_viewer_page_is_self_contained_and_small():
    """The viewer of a full 4-player game is one file under 2 MB with its
    data and script inline: nothing is loaded from anywhere else."""
    rp = replay(seed=1, game=7, level="easy", players=4, policy="greedy", rules=RULES)
    page = MV.html(rp)
    assert len(page.encode("utf-8")) < 2_000_000
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", page)
    assert "<script src" not in page and "<link" not in page
    assert page.count("</script>") == 2       # the data block and the script, nothing closes them early


def test_a_designers_board_draws_without_code_changes():
    """A ruleset whose board moves a space (``at``) draws it there: the
    board comes from the ruleset, not from code."""
    rules = sim.prepare(overrides=("board.spaces.path_n1.at=[-7,10]",))
    bd, _ = MV.board(rules)
    node = next(n for n in bd["nodes"] if n["id"] == "path_n1")
    assert (node["x"], node["y"]) == (-7 * MV.SCALE, -10 * MV.SCALE)


def test_qm_layout_puts_the_loop_on_a_ring_and_side_paths_inside():
    """Quest Master squares have no coordinates: the main loop goes on a
    ring; a fork's side path (a designer's ``next``) goes inside it."""
    from questsim import sim as qsim
    rules = qsim.prepare()
    squares = [sq.model_copy() for sq in rules.ruleset.board.squares]
    at = QV.layout(squares)
    radii = {round((x * x + y * y) ** 0.5) for x, y in at.values()}
    assert radii == {round(QV.RADIUS)}
    # a fork from square 2: either square 3 (the loop) or a two-square side path rejoining at 6
    extra = [sq.model_copy(update={"next": None}) for sq in squares[1:3]]
    board = squares + extra
    n = len(squares)
    board[2] = board[2].model_copy(update={"next": [3, n]})
    board[n] = board[n].model_copy(update={"next": [n + 1]})
    board[n + 1] = board[n + 1].model_copy(update={"next": [6]})
    board[n - 1] = board[n - 1].model_copy(update={"next": [0]})
    at = QV.layout(board)
    for v in (n, n + 1):
        x, y = at[v]
        assert (x * x + y * y) ** 0.5 < QV.RADIUS * 0.95


@pytest.mark.parametrize("prog,args", [("mournesim", ["--seed", "3", "--game", "2", "--level", "easy"]),
                                       ("questsim", ["--seed", "1", "--game", "1", "--players", "3"])])
def test_replay_format_html_writes_the_viewer(prog, args):
    """``replay --format html`` prints the viewer page of exactly the game
    ``--format text`` prints: its steps are the text's lines."""
    from importlib import import_module
    from click.testing import CliRunner
    main = import_module(f"{prog}.cli").main
    page = CliRunner().invoke(main, ["replay", *args, "--format", "html"])
    text = CliRunner().invoke(main, ["replay", *args])
    assert page.exit_code == 0 and text.exit_code == 0, page.output
    assert page.stdout.startswith("<!DOCTYPE html>") and 'id="replay-data"' in page.stdout
    data = json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>',
                                page.stdout, re.S).group(1))
    body = [line.strip() for line in text.stdout.splitlines()[1:] if line.strip()]
    steps = [line.strip() for s in data["steps"] for line in s["x"].splitlines() if line.strip()]
    assert steps == body


def test_pieces_have_distinct_labels_where_their_names_differ():
    """Two names that begin alike get labels that differ (Quest Master's
    witch and wizard were both "Wi")."""
    assert V.short_labels(["witch", "wizard", "knight"]) == ["Wt", "Wz", "Kn"]
    assert V.short_labels(["jack", "cobs", "iur", "tess"]) == ["Ja", "Co", "Iu", "Te"]
    labels = V.short_labels(["Wizard", "Witch", "Wolf", "Wizard"])
    assert labels[0] == labels[3] and len(set(labels)) == 3


def test_a_destroyed_wall_is_marked_destroyed_and_set_up_discs_show_their_clicks():
    """The game's last step marks the wall destroyed (not damaged) when that
    ended the game; the discs show the level's clicks from the first step."""
    df = sim.simulate(games=200, seed=3, level="hard", players=4, policy="greedy", rules=RULES)
    g = int(df.index[df["outcome"] == "wall_destroyed"][0])
    data = MV.data(replay(seed=3, game=g, level="hard", players=4, policy="greedy", rules=RULES))
    marks = {}
    for s in data["steps"]:
        marks = s.get("m", marks)
    assert "wall destroyed" in marks.values(), marks
    first = data["steps"][0]["m"]
    clicks = RULES.ruleset.levels.hard.clicks(4)
    assert sorted(v for v in first.values() if v.endswith("clicks")) == [f"{clicks} clicks"] * 4, first
