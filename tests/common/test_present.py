"""Reports as a person reads them (simcore.present): rates as percentages
with their intervals, effects in points with theirs, shares as percentages,
ids by the ruleset's names; the raw columns stay in CSV and JSON."""
import json

import numpy as np
import pandas as pd
import pytest

from simcore.present import EMPTY, percent, points_text, rate_text, readable
from simcore.report import EXAMPLES, render, with_interval


def test_a_rate_reads_as_a_percentage_with_its_interval():
    assert rate_text(0.43, 0.4071, 0.4539) == "43.0% (40.7–45.4)"
    # an interval narrower than a tenth of a point gets a second place
    assert rate_text(0.8203, 0.8199, 0.8207) == "82.03% (81.99–82.07)"
    assert points_text(0.041, 0.031, 0.052) == "+4.1 pp (+3.1 to +5.2)"
    assert points_text(-0.0004, -0.011, 0.010) == "+0.0 pp (-1.1 to +1.0)"      # never "-0.0"
    assert percent(0.98) == "98.0%"


def test_a_report_table_merges_each_interval_and_names_ids():
    t = with_interval(pd.DataFrame(dict(hero=["iur", "tess + jack"], games=[200, 100], wins=[86, 30])))
    t["effect"] = [0.149, -0.05]
    t["effect_low"], t["effect_high"] = t["effect"] - 0.1, t["effect"] + 0.1
    t["fair_share"] = [0.25, 0.25]
    r = readable(t, {"iur": "Iur", "tess": "Tess", "jack": "Jack"})
    assert list(r.columns) == ["hero", "games", "wins", "win rate (95% CI)", "effect (95% CI)", "fair share"]
    assert list(r["hero"]) == ["Iur", "Tess + Jack"]
    lo, hi = t.loc[0, "ci95_low"], t.loc[0, "ci95_high"]
    assert r.loc[0, "win rate (95% CI)"] == f"43.0% ({100 * lo:.1f}–{100 * hi:.1f})"
    assert r.loc[1, "effect (95% CI)"] == "-5.0 pp (-15.0 to +5.0)"
    assert r.loc[0, "fair share"] == "25.0%"


def test_shares_of_games_read_as_percentages_and_ids_without_a_name_read_as_words():
    t = pd.DataFrame(dict(level=["hard"], games=[300], win=[0.37], wall_destroyed=[0.597]))
    r = readable(t, {"hard": "Hard"}, shares=True)
    assert r.to_dict("records") == [{"level": "Hard", "games": 300, "win": "37.0%", "wall destroyed": "59.7%"}]



def test_the_shares_in_a_table_of_counts_and_means_read_as_percentages_and_the_means_stay_numbers():
    """MourneQuest's losses table mixes counts (losses), shares of the
    losses and a mean (wins against the Shimnavore when lost); Quest Master's
    closeness table shares of games with means per game."""
    from mournesim.report import loss_anatomy
    df = pd.DataFrame(dict(level=["easy"] * 4, win=[1, 0, 0, 0], final_battle=[1, 1, 1, 0],
                           outcome=["won", "wall_destroyed", "hero_died", "moon_track"],
                           shimnavore_wounds=[6, 5, 2, 0], dice_pool_final=[4, 4, 3, 2]))
    md = render({"where and how games are lost, by level (shares of the losses)": loss_anatomy(df)}, "markdown")
    assert "| easy | 4 | 3 | 33.3% | 33.3% | 33.3% | 3.500 | 50.0% | 50.0% |" in md
    t = pd.DataFrame(dict(players=[2], games=[10], runner_up_castles=[2.9], one_castle_short=[0.35], runaway=[0.33],
                          lead_changes=[0.71], comeback=[0.174], rounds=[27.8]))
    assert readable(t).to_dict("records") == [{"players": 2, "games": 10, "runner up castles": 2.9,
                                               "one castle short": "35.0%", "runaway": "33.0%",
                                               "lead changes": 0.71, "comeback": "17.4%", "rounds": 27.8}]

def test_text_and_markdown_are_readable_csv_and_json_stay_raw():
    t = with_interval(pd.DataFrame(dict(hero=["iur"], games=[200], wins=[86])))
    tables = {"win rate by hero": t, "teams": t.iloc[0:0]}
    text = render(tables, "table", "report", {"iur": "Iur"})
    assert "Iur" in text and "43.0% (" in text and "ci95_low" not in text and EMPTY in text
    assert "Empty DataFrame" not in text
    md = render(tables, "markdown", "report", {"iur": "Iur"})
    assert "| hero | games | wins | win rate (95% CI) |" in md and EMPTY in md
    raw = json.loads(render(tables, "json", "report", {"iur": "Iur"}))
    assert raw["tables"]["win rate by hero"][0]["hero"] == "iur"
    assert np.isclose(raw["tables"]["win rate by hero"][0]["win_rate"], 0.43)
    assert "ci95_low" in render(tables, "csv")


@pytest.mark.parametrize("pkg", ["mournesim", "questsim"])
def test_names_are_no_rule(pkg, tmp_path):
    """The ruleset's [names] change no game: they are left out of the
    ruleset hash; a name for an id the ruleset does not define is one
    problem line naming the key."""
    from importlib import import_module
    rs = import_module(f"{pkg}.ruleset")
    shipped = rs.load_ruleset()
    assert shipped.names, "the shipped ruleset names its ids"
    renamed = rs.load_ruleset(overrides=[f"names.{next(iter(shipped.names))}=Somebody Else"])
    assert rs.ruleset_hash(renamed) == rs.ruleset_hash(shipped)
    raw = rs.load_raw()
    raw["names"] = dict(raw["names"], no_such_thing="X")
    got, problems = rs.validate(raw)
    assert got is None and problems == [p for p in problems if p.startswith("names.no_such_thing: no such id")]
    assert len(problems) == 1


def test_the_text_replays_name_what_the_ruleset_names_and_number_seats_from_1():
    """Both games' readable replays (and so the viewers' step text) show
    the ruleset's names, a renamed hero among them; the JSON records keep
    the ids; Quest Master's seats read from 1, as MourneQuest's."""
    from mournesim import replay as mr, sim as ms
    from questsim import replay as qr
    rules = ms.prepare(overrides=["names.iur=Iur the Strong"])
    rp = mr.replay(seed=1, game=0, heroes=("iur", "tess", "cobs", "jack"), rules=rules)
    text = rp.to_text()
    assert "Iur the Strong" in text and "== round 1 - Iur the Strong's turn" in text
    assert "North Start" in text and "start_n" not in text and " iur " not in text
    assert '"iur"' in rp.to_jsonl()
    q = qr.replay(seed=1, game=0, players=3, characters=("witch", "demon", "knight"))
    text = q.to_text()
    assert text.startswith("Quest Master replay  seed=1 game=0  seat 1: Witch, seat 2: Demon, seat 3: Knight")
    assert "seat 0" not in text and "== round 1 - seat 1 (Witch)'s turn" in text
    assert '"character":"witch"' in q.to_jsonl()


@pytest.mark.parametrize("prog", ["mournesim", "questsim"])
def test_each_plot_says_which_report_table_it_draws_and_reads_the_rulesets_names(prog):
    """Every plot's caption names a table of the standard report it is drawn
    from; its tick labels and legends read the ruleset's names, never ids;
    the hero and character forests plot that table's own measure (a hero's
    effect within cells, a character's win rate minus its fair share)."""
    from importlib import import_module

    import matplotlib.pyplot as plt

    from simcore.plots import caption
    sim, rep, plots, rs = (import_module(f"{prog}.{m}") for m in ("sim", "report", "plots", "ruleset"))
    if prog == "mournesim":
        df = pd.concat([sim.simulate(games=40, seed=3, level=lv) for lv in ("easy", "hard")], ignore_index=True)
    else:
        df = sim.simulate(games=60, seed=3, players=3)
    names = rs.names_of(rs.load_ruleset())
    titles = list(rep.standard_report(df, names))
    ids = {k for k, v in names.items() if k != v and k.lower() != v.lower()}
    for key, draw in plots.PLOTS.items():
        table = caption(draw).split('the table "')[1].split('"')[0]
        assert any(t.startswith(table) for t in titles), (key, table)
        fig, ax = plt.subplots()
        draw(df, ax, names)
        words = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        words += [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else []
        assert not [w for w in words if w.split("  (")[0].split(",")[0] in ids], (key, words)
        if key in ("hero_forest", "character_forest"):
            t = rep.by_hero(df).sort_values("effect") if key == "hero_forest" else \
                rep.by_character(df).sort_values("vs_fair")
            x = ax.lines[0].get_xdata()
            assert np.allclose(x, t["effect" if key == "hero_forest" else "vs_fair"])
            assert [w.split("  (")[0] for w in words if "(n=" in w] == [names[h] for h in
                                                                         t["hero" if key == "hero_forest" else "character"]]
        plt.close(fig)


@pytest.mark.parametrize("prog, args", [("mournesim", ["--level", "easy", "--players", "2", "--policy", "planner"]),
                                        ("questsim", ["--players", "3"])])
def test_report_dir_prints_the_report_simulate_prints_for_the_same_games(prog, args, tmp_path):
    """``simulate`` without ``--out`` prints the full report; ``report DIR``
    on a dataset of the same games prints the same tables, every one of
    them (decisions and blunders by policy included), line for line."""
    from importlib import import_module

    from click.testing import CliRunner
    main = import_module(f"{prog}.cli").main
    runner = CliRunner()
    printed = runner.invoke(main, ["simulate", "--games", "120", "--seed", "4", *args])
    written = runner.invoke(main, ["simulate", "--games", "120", "--seed", "4", *args, "--out", str(tmp_path / "d")])
    reported = runner.invoke(main, ["report", str(tmp_path / "d")])
    assert printed.exit_code == written.exit_code == reported.exit_code == 0, (printed.output, reported.output)

    def tables(text):
        return text[text.index("\nwin rate by "):]     # after the title lines, which name the run or its folder
    assert tables(reported.stdout) == tables(printed.stdout)
    assert "decisions by policy" in reported.stdout and "blunders by policy" in reported.stdout


def _example_report():
    """Example links to the studio and a report's tables: two cells (Easy and
    Difficult, two players, greedy), a table by level and players, one by
    players alone, and the example games."""
    def examples(row, col):
        return f"http://127.0.0.1:8765/play?game={row[col]}" if col in ("won", "lost") else None
    examples.keys, examples.command = ("level", "players", "policy"), "mournesim studio"
    ex = pd.DataFrame(dict(level=["easy", "hard"], players=[2, 2], policy=["greedy"] * 2, seed=[1, 1], won=[0, 3],
                           lost=[2, 1]))
    by_level = with_interval(pd.DataFrame(dict(level=["easy", "hard"], players=[2, 2], games=[10, 10], wins=[8, 3])))
    by_players = with_interval(pd.DataFrame(dict(players=[2], games=[20], wins=[11])))
    return examples, by_level, by_players, ex


def test_a_report_row_naming_one_cell_links_to_that_cells_example_games():
    """In the HTML report, a row of any table whose cell columns name one
    cell of the example-games table (two cells here: Easy and Difficult,
    two players, greedy) links to that cell's row, which links each game
    to the studio; a row that names no single cell has no link."""
    from simcore.html_report import tables_page
    examples, by_level, by_players, ex = _example_report()
    page = tables_page("report", {"win rate by level and players": by_level, "by players": by_players,
                                  f"{EXAMPLES} per cell": ex}, examples=examples)
    assert page.count('<a href="#example-games-per-cell-1">games</a>') == 1
    assert '<tr id="example-games-per-cell-1">' in page
    assert page.count("#example-games-per-cell-") == 2        # the players-only row names two cells: no link
    assert '<a href="http://127.0.0.1:8765/play?game=3">3</a>' in page


def test_a_markdown_report_links_a_cells_rows_to_its_example_games():
    """The Markdown report links the same way: each game number of the
    example-games table opens that game in the studio, and a row naming one
    cell gets a column of links to that cell's games; the players-only row
    names two cells and gets none."""
    examples, by_level, by_players, ex = _example_report()
    md = render({"win rate by level and players": by_level, "by players": by_players, f"{EXAMPLES} per cell": ex},
                "markdown", examples=examples)
    level_table, players_table, example_table = md.split("## ")[1:]
    hard = next(line for line in level_table.splitlines() if line.startswith("| hard"))
    assert hard.endswith("| won [3](http://127.0.0.1:8765/play?game=3), lost [1](http://127.0.0.1:8765/play?game=1) |")
    assert EXAMPLES not in players_table and "](http" not in players_table
    assert "| [0](http://127.0.0.1:8765/play?game=0) | [2](http://127.0.0.1:8765/play?game=2) |" in example_table
    assert "](http" not in render({"by players": by_players, f"{EXAMPLES} per cell": ex}, "markdown")
