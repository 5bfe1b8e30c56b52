"""The balance report's tables on a small hand-made dataset whose every
figure can be counted by hand, the plots, and the ``report`` command."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from mournesim import batch, report as rep
from mournesim.plots import PLOTS, write_plots
from simcore import store
from simcore.stats import wilson

from .test_cli import assert_bad_input, run


def known():
    """Eight games. Easy 4 players: 3 of 4 won; hard 1 player: 1 of 4 won.

    game  level players heroes               outcome         pool rounds
    0     easy  4       jack cobs iur beith  win             4    17
    1     easy  4       jack cobs iur grace  win             4    18
    2     easy  4       jack cobs tess grace win             3    17
    3     easy  4       iur beith tess grace wall_destroyed  2    16
    4     hard  1       jack cobs            win             4    30
    5     hard  1       jack iur             hero_died       0    12
    6     hard  1       cobs iur             wall_destroyed  4    31
    7     hard  1       jack cobs            cap             0    40
    """
    heroes = [("jack", "cobs", "iur", "beith"), ("jack", "cobs", "iur", "grace"), ("jack", "cobs", "tess", "grace"),
              ("iur", "beith", "tess", "grace"), ("jack", "cobs", "", ""), ("jack", "iur", "", ""),
              ("cobs", "iur", "", ""), ("jack", "cobs", "", "")]
    outcome = ["win", "win", "win", "wall_destroyed", "win", "hero_died", "wall_destroyed", "cap"]
    df = pd.DataFrame({
        "game": range(8), "level": ["easy"] * 4 + ["hard"] * 4, "players": [4] * 4 + [1] * 4,
        "policy": "greedy",
        "outcome": pd.Categorical(outcome, categories=["running", "win", "hero_died", "wall_destroyed", "cap"]),
        "rounds": [17, 18, 17, 16, 30, 12, 31, 40], "hero_turns": [68, 72, 68, 64, 60, 24, 62, 80],
        "dice_pool_final": [4, 4, 3, 2, 4, 0, 4, 0],
        "final_battle": [True, True, True, True, True, False, True, False],
        "shimnavore_wounds": [6, 6, 6, 2, 6, 0, 3, 0], "wall_damage": [0, 1, 2, 4, 1, 0, 4, 0],
        "wall_repairs": [0, 1, 0, 3, 0, 0, 3, 0], "min_life": [3, 1, 2, 1, 3, 0, 2, 1],
        "cast_out": [4, 3, 4, 2, 4, 1, 2, 3], "escaped": [0, 1, 0, 2, 0, 3, 2, 1], "defeated": [0] * 8,
    })
    for i in range(4):
        df[f"hero{i + 1}"] = [h[i] for h in heroes]
    df["win"] = df["outcome"] == "win"
    df["fate_merrow"] = ["cast_out"] * 6 + ["escaped", "defeated"]
    df["escaped_merrow"] = [False, False, True, False, False, False, True, False]
    return df


def test_win_rate_by_level_and_players():
    t = rep.by_level_players(known())
    assert list(t["level"]) == ["easy", "hard"]
    assert list(t["games"]) == [4, 4] and list(t["wins"]) == [3, 1]
    assert t["win_rate"].tolist() == [0.75, 0.25]
    assert (t.loc[0, "ci95_low"], t.loc[0, "ci95_high"]) == pytest.approx(wilson(3, 4))


def test_by_hero_counts_and_within_cell_effect():
    """jack plays 3 easy games (2 won... all 3 won) and 3 hard (1 won); its
    effect is the with-minus-without difference inside each cell, weighted
    by jack's games: easy 3/3 - 0/1 = 1, hard 1/3 - 0/1 = 1/3 -> 2/3."""
    t = rep.by_hero(known()).set_index("hero")
    assert t.loc["jack", "games"] == 6 and t.loc["jack", "wins"] == 4
    assert t.loc["beith", "games"] == 2 and t.loc["beith", "wins"] == 1
    assert t.loc["jack", "effect"] == pytest.approx((3 * 1.0 + 3 * (1 / 3)) / 6)
    # beith: only easy; with 1/2, without 2/2 -> -0.5
    assert t.loc["beith", "effect"] == pytest.approx(-0.5)
    assert "" not in t.index


def test_hero_sets_count_every_pair_in_a_team():
    t = rep.hero_sets(known(), 2).set_index("heroes")
    # cobs + jack together in games 0, 1, 2, 4, 7: wins 0, 1, 2, 4
    assert t.loc["cobs + jack", "games"] == 5 and t.loc["cobs + jack", "wins"] == 4
    assert t.loc["beith + tess", "games"] == 1 and t.loc["beith + tess", "wins"] == 0
    teams = rep.hero_sets(known()[known().players == 4], 4).set_index("heroes")
    assert teams["games"].sum() == 4 and teams.loc["beith + cobs + iur + jack", "wins"] == 1


def test_dice_pool_loss_causes_length_and_progress():
    df = known()
    pool = rep.by_dice_pool(df).set_index("dice_pool")
    assert pool.loc[4, "games"] == 4 and pool.loc[4, "wins"] == 3       # games 0, 1, 4, 6
    assert pool.loc[2, "wins"] == 0 and 0 not in pool.index            # no Final Battle: not counted
    causes = rep.loss_causes(df).set_index("level")
    assert causes.loc["hard"].to_dict() == {"games": 4, "win": 0.25, "hero_died": 0.25, "wall_destroyed": 0.25,
                                            "cap": 0.25}
    assert causes.loc["easy", "wall_destroyed"] == 0.25 and causes.loc["easy", "cap"] == 0
    length = rep.game_length(df).set_index(["level", "outcome"])
    assert length.loc[("easy", "win"), "mean"] == pytest.approx(52 / 3)
    assert length.loc[("hard", "cap"), "max"] == 40
    far = rep.how_far(df).set_index("level")
    assert far.loc["easy", "final_battle_rate"] == 1.0 and far.loc["hard", "final_battle_rate"] == 0.5
    assert far.loc["hard", "shimnavore_wounds"] == pytest.approx(9 / 4)
    wounds = rep.wounds_distribution(df).set_index("level")
    assert wounds.loc["easy", "wounds_6"] == 0.75 and wounds.loc["hard", "wounds_0"] == 0.5
    fates = rep.nightmare_fates(df).set_index("nightmare")
    assert fates.loc["merrow", "cast_out"] == 0.75 and fates.loc["merrow", "ever_escaped"] == 0.25


def test_standard_report_and_by_report_shapes():
    tables = rep.standard_report(known())
    assert len(tables) == 14 and all(isinstance(t, pd.DataFrame) for t in tables.values())


def test_where_and_how_games_are_lost():
    """known(): Easy loses one game of four, in the Final Battle to the
    wall, with 2 wins against the Shimnavore and 2 dice; Difficult loses three:
    a hero's death and the round cap before the Final Battle, and the wall
    in it with 3 wins and 4 dice (MQ-FINAL-27: a win needs 6)."""
    t = rep.loss_anatomy(known()).set_index("level")
    e, h = t.loc["easy"], t.loc["hard"]
    assert (e["games"], e["losses"], e["before_final_battle"], e["in_it_to_the_wall"]) == (4, 1, 0.0, 1.0)
    assert (e["shimnavore_wins_when_lost"], e["one_win_short"], e["under_four_dice"]) == (2.0, 0.0, 1.0)
    assert (h["losses"], h["before_final_battle"], h["in_it_to_the_wall"], h["in_it_a_hero_died"]) == \
        (3, pytest.approx(2 / 3), pytest.approx(1 / 3), 0.0)
    assert (h["shimnavore_wins_when_lost"], h["under_four_dice"]) == (3.0, 0.0)


def test_how_close_games_came_by_level_and_players():
    """known(): of Easy's three wins, game 1 ends with its one damaged section
    rebuilt but a hero on their last life point, game 2 with two sections
    damaged (two successful wall rolls, no repair: MQ-FINAL-14, -19), game 0
    with neither; Difficult solo's one win ends with a damaged section. Of
    Difficult's three losses two come before the Final Battle, and its lost
    battle ends three wins short, not one (MQ-FINAL-27: a win needs 6)."""
    t = rep.close_games(known()).set_index(["level", "players"])
    e, h = t.loc[("easy", 4)], t.loc[("hard", 1)]
    assert (e["games"], e["games_won"]) == (4, 0.75)
    assert (e["close_wins"], e["wall_damaged"], e["last_life_point"]) == \
        (pytest.approx(2 / 3), pytest.approx(1 / 3), pytest.approx(1 / 3))
    assert (e["before_final_battle"], e["one_win_short"]) == (0.0, 0.0)
    assert (h["games_won"], h["close_wins"], h["wall_damaged"], h["last_life_point"]) == (0.25, 1.0, 1.0, 0.0)
    assert (h["before_final_battle"], h["one_win_short"]) == (pytest.approx(2 / 3), 0.0)


def test_a_heros_effect_has_an_exact_interval_at_each_player_count():
    """Tess plays games 2 and 3 of the Easy four-player cell (one win of
    two) and none solo; the other two games of that cell were both won.
    Her effect is 0.5 - 1 = -0.5, its variance the two rates' binomial
    variances 0.25 / 2 + 0 / 2; solo she has no row."""
    t = rep.by_hero_players(known()).set_index(["players", "hero"])
    r = t.loc[(4, "tess")]
    assert r["effect"] == pytest.approx(-0.5)
    assert r["effect_high"] - r["effect"] == pytest.approx(1.96 * (0.25 / 2) ** 0.5)
    assert (1, "tess") not in t.index and set(t.index.get_level_values("players")) == {1, 4}
    by = rep.by_report(known(), ["players", "dice_pool_final"])
    t = next(iter(by.values()))
    assert t["games"].sum() == 8
    with pytest.raises(Exception, match="no such column"):
        rep.by_report(known(), ["nope"])


def test_decisions_by_policy_counts_each_policy_apart():
    """The report's decisions and blunders tables are each counter's mean per
    game under each policy, one column per policy; a rule never used reads
    0.000, and a dataset without counters gets no table."""
    from mournesim import layout as L
    df = known()
    df["policy"] = ["greedy"] * 4 + ["planner"] * 4
    for n in L.COUNTER_NAMES:
        df[n] = 0
    df["trades_charm"] = [0, 0, 0, 0, 1, 0, 2, 1]            # planner: 4 trades in 4 games
    df["talisman_compass"] = [3, 1, 0, 0, 0, 0, 0, 0]        # greedy: 4 in 4 games
    df["blunder_moves_undone"] = [0, 0, 0, 0, 2, 2, 0, 0]    # planner: 4 in 4 games
    tables = rep.standard_report(df)
    table = tables["decisions by policy (mean count per game)"].set_index("decision")
    assert list(table.index) == [n for n, _ in L.DECISIONS]
    assert table.loc["trades_charm", "planner"] == "1.000" and table.loc["trades_charm", "greedy"] == "0.000"
    assert table.loc["talisman_compass", "greedy"] == "1.000" and table.loc["talisman_compass", "planner"] == "0.000"
    assert "Trading Post" in table.loc["trades_charm", "what"]
    # the blunders table beside it: the blunder counters only
    bl = tables["blunders by policy (mean count per game)"].set_index("blunder")
    assert list(bl.index) == [n for n, _ in L.BLUNDERS]
    assert bl.loc["blunder_moves_undone", "planner"] == "1.000" and bl.loc["blunder_moves_undone", "greedy"] == "0.000"
    assert rep.decisions(known()).empty and rep.blunders(known()).empty


def test_plots_have_labelled_axes(tmp_path):
    """Every plot draws with a title and both axis labels, and is written as a PNG."""
    import matplotlib.pyplot as plt
    df = known()
    for name, draw in PLOTS.items():
        fig, ax = plt.subplots()
        draw(df, ax)
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel(), name
        plt.close(fig)
    paths = write_plots(df, tmp_path)
    assert len(paths) == 5
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("ds") / "run"
    batch.run_grid(games=60, seed=2, levels=("easy", "hard"), players=(1, 4), policies=("greedy",), batch=30,
                   out=out, workers=1)
    return out


def test_report_command_formats(dataset, tmp_path):
    """``report DIR`` in every format, with --by and with --plots."""
    t = run("report", dataset)
    assert t.exit_code == 0, t.output
    assert "win rate by level and players" in t.stdout and "best and worst hero pairs" in t.stdout
    md = run("report", dataset, "--format", "markdown", "--by", "level,players")
    assert md.exit_code == 0 and "| level | players | games |" in md.stdout
    js = json.loads(run("report", dataset, "--format", "json").stdout)
    cells = js["tables"]["win rate by level and players"]
    assert sum(c["games"] for c in cells) == 240
    csv = run("report", dataset, "--format", "csv", "--by", "hero").stdout.splitlines()
    assert csv[0].startswith("table,hero,games,wins,win_rate") and len(csv) == 8
    p = run("report", dataset, "--plots", tmp_path / "plots")
    assert p.exit_code == 0 and len(list((tmp_path / "plots").glob("*.png"))) == 5
    page = run("report", dataset, "--format", "html").stdout      # one page: tables and plots inside
    assert page.startswith("<!DOCTYPE html>") and "<th>win rate (95% CI)</th>" in page and "Iur" in page
    assert page.count("data:image/png;base64,") == 5
    # nothing loaded from elsewhere; the only addresses are the example games' links to the local studio
    import re
    assert not re.search(r"src\s*=\s*[\"']?https?:", page, re.I)
    addresses = re.findall(r"https?://[^\"'<> ]+", page)
    assert addresses and all(a.startswith("http://127.0.0.1:8765/play?") for a in addresses), addresses[:3]


def test_simulate_grid_cli(tmp_path):
    """simulate over a grid prints the report's per-cell table; with --out it
    writes the dataset and says how to report it."""
    r = run("simulate", "--games", 20, "--level", "easy,hard", "--players", "all", "--policy", "random",
            "--workers", 1)
    assert r.exit_code == 0, r.output
    assert "of 160 games" in r.stdout and "win rate by level and players" in r.stdout
    o = run("simulate", "--games", 20, "--level", "all", "--out", tmp_path / "o", "--workers", 1, "--quiet",
            "--target-ci", "0.2", "--batch", 10)
    assert o.exit_code == 0, o.output
    assert f"mournesim report {tmp_path / 'o'}" in o.stdout and "win rate by cell" in o.stdout
    assert store.read_run(tmp_path / "o")["target_ci"] == 0.2


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--games", 2, "--policy", "greedy,planner", "--params", "0.5,1"], "--params"),
    (["simulate", "--games", 2, "--players", "2,3", "--heroes", "jack,cobs"], "--heroes"),
    (["simulate", "--games", 2, "--target-ci", "0"], "--target-ci"),
    (["simulate", "--games", 2, "--workers", "0"], "--workers"),
    (["simulate", "--games", 2, "--batch", "0"], "--batch"),
    (["simulate", "--games", 2, "--players", "1,9"], "--players"),
    (["simulate", "--games", 2, "--level", "easy,bogus"], "--level"),
    (["report", "/no/such/dir"], "no such results directory"),
    (["simulate", "--games", 2, "--cluster", "tcp://127.0.0.1:9"], "--cluster"),
])
def test_grid_bad_input(args, needle):
    assert_bad_input(run(*args), needle, lines=1)


def test_report_and_resume_bad_input(dataset, tmp_path):
    """report on a directory that is not a run or has a corrupt part; --by an
    unknown column; --resume with grid options or on a finished run's
    missing directory; --out into an existing run."""
    (tmp_path / "empty").mkdir()
    assert_bad_input(run("report", tmp_path / "empty"), "not a results directory", lines=1)
    assert_bad_input(run("report", dataset, "--by", "colour"), "colour", lines=1)
    assert_bad_input(run("simulate", "--resume", dataset, "--level", "hard"), "--level", lines=1)
    assert_bad_input(run("simulate", "--resume", tmp_path / "nothing"), "no such results directory", lines=1)
    assert_bad_input(run("simulate", "--games", 5, "--out", dataset), "--resume", lines=1)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "_run.json").write_text("{not json")
    assert_bad_input(run("report", tmp_path / "bad"), "corrupt run description", lines=1)


def test_resume_of_finished_run_changes_nothing(dataset):
    before = store.read_dataset(dataset)
    r = run("simulate", "--resume", dataset, "--quiet")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(store.read_dataset(dataset), before)


def test_each_cell_names_a_game_won_and_a_game_lost_to_open():
    """The report's example games: per cell its seed and its first game won
    and first lost (the game index ``mournesim replay --seed --game`` opens);
    a cell with no loss says so."""
    df = known().assign(seed=5)
    t = rep.example_games(df).set_index("level")
    assert t.loc["easy", ["players", "policy", "seed", "won", "lost"]].tolist() == [4, "greedy", 5, 0, 3]
    assert t.loc["hard", ["won", "lost"]].tolist() == [4, 5]
    assert rep.example_games(df[df["win"]]).set_index("level").loc["easy", "lost"] == "–"
    assert rep.example_games(known()).empty            # a dataset without seeds names none
