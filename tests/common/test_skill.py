"""Balance across player skill: the rank-agreement statistic and
the "conclusions across skill" tables of both reports."""
import numpy as np
import pandas as pd

from mournesim import report as mq_rep
from mournesim import sim as mq_sim
from questsim import report as qm_rep
from questsim import sim as qm_sim
from simcore.skill import rank_agreement, ranking_verdict


def test_rank_agreement_of_clear_and_of_noisy_rankings():
    eff = np.array([0.10, 0.05, 0.0, -0.05, -0.10])
    tight = np.full(5, 0.001)
    assert np.allclose(rank_agreement(eff, tight, eff, tight), 1.0)
    r, lo, hi = rank_agreement(eff, tight, -eff, tight)
    assert np.allclose([r, hi], -1.0)
    assert ranking_verdict(r, lo, hi).startswith("changes")
    # the same order, but every effect within noise of the others: a wide interval
    r, lo, hi = rank_agreement(eff, np.full(5, 0.2), eff, np.full(5, 0.2))
    assert np.isclose(r, 1.0) and lo < 0 and ranking_verdict(r, lo, hi).startswith("uncertain")
    assert np.isnan(rank_agreement([1, 2], [0, 0], [1, 2], [0, 0])[0])


def test_mournequest_conclusions_across_skill():
    """One row per conclusion, an answer per skilled policy (random, which
    never wins, is left out) and a verdict."""
    frames = [mq_sim.simulate(games=150, seed=3, level=lv, players=p, policy=pol)
              for pol in ("random", "greedy", "planner") for lv in ("easy", "hard") for p in (1, 4)]
    df = pd.concat(frames, ignore_index=True)
    t = mq_rep.across_skill(df)
    assert list(t.columns) == ["conclusion", "greedy", "planner", "across skill"]
    assert any(t["conclusion"].str.contains("hero ranking"))
    assert t["across skill"].str.len().gt(0).all()
    assert "conclusions across player skill (policies from least to most skilled)" in mq_rep.standard_report(df)
    assert mq_rep.across_skill(df[df["policy"] == "planner"]).empty
    # the answers read as percentages: "Easy 97% > Difficult 70%", "solo 88% vs 4 players 68%", "1 die 0% → 4 dice 64%"
    ans = t.set_index("conclusion")["planner"]
    for lv, p in (("easy", 1), ("hard", 1), ("easy", 4), ("hard", 4)):
        rate = df[(df["policy"] == "planner") & (df["level"] == lv) & (df["players"] == p)]["win"].mean()
        assert f"{lv} {100 * rate:.0f}%" in ans[f"each level is harder than the one before ({'solo' if p == 1 else '4 players'})"]
    assert ans["solo is easier than four players"].startswith("solo ") and " vs 4 players " in ans[
        "solo is easier than four players"]
    assert not any("0." in a for a in ans)


def test_questmaster_conclusions_across_skill():
    df = pd.concat([qm_sim.simulate(games=200, seed=2, players=p, policies=(pol,))
                    for pol in ("greedy", "planner") for p in (2, 4)], ignore_index=True)
    t = qm_rep.across_skill(df)
    assert list(t.columns) == ["conclusion", "greedy", "planner", "across skill"]
    assert set(t["conclusion"]) == {"character ranking (win rate against fair share)",
                                    "going first is an advantage", "which win condition ends most games"}
    first = t.set_index("conclusion").loc["going first is an advantage", "planner"]
    assert first.endswith(" over fair") and " pp (" in first         # "+0.7 pp (+0.5 to +0.9) over fair"


def _script(game, name):
    """An example script of ``docs/<game>/examples`` as a module."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "docs" / game / "examples" / name
    spec = importlib.util.spec_from_file_location(f"{game}_{path.stem}_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ladder_script():
    return _script("mournequest", "ladder.py")


def test_a_heros_effect_is_within_cells_and_its_interval_exact():
    """The skill ladder's hero effects (``ladder.py --heroes``): within each
    cell the mean with the hero minus without, weighted by the hero's games;
    the half-width from the two means' variances. Hand-built: in both cells
    the hero's games average 0.5 above the others, though the cells' own
    rates differ (0.75 and 0.25)."""
    mod = _ladder_script()
    values = np.array([1, 1, 0, 1, 1, 0, 0, 0], float)
    heroes = np.full((8, 4), -1)
    heroes[[0, 1, 4, 5], 0] = 0          # hero 0 in two games of each cell
    heroes[:, 1] = 1                     # hero 1 in every game: no games without it, no effect
    cells = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    rows = mod.hero_effects(values, heroes, cells, ["a", "b"])
    assert [r["hero"] for r in rows] == ["a"]
    (a,) = rows
    assert a["games"] == 4 and np.isclose(a["effect"], 0.5)
    # cell 0: with [1, 1] (variance 0), without [0, 1] (0.5): 0.5 / 2; cell 1 the mirror; weights 2 and 2
    assert np.isclose(a["half"], 1.96 * np.sqrt(4 * 0.25 + 4 * 0.25) / 4)


def test_the_expert_is_above_the_planner_where_both_seeds_or_a_third_show_it(tmp_path):
    """The MourneQuest expert table counts a cell (planner below 95%) as
    "above" when the two seeds' pooled interval is above zero and both are
    ahead; a cell they leave open counts only if the third seed's own
    interval is above zero; a cell where the planner wins 95% or more is
    not required."""
    import json
    from experiments import tables
    d = tmp_path / "experiments" / "results" / "mq-expert"
    d.mkdir(parents=True)
    meta = dict(engine="mournesim", behaviour_version=9, engine_hash="x", ruleset_hash="y", command="c")
    planner = dict(easy=(1, 0.90), medium=(1, 0.94), hard=(1, 0.50))     # level -> (players, win rate)
    # seed 1 and 2 paired differences (mean, half) per level; medium is left open by the two seeds
    diffs = dict(easy=[(0.03, 0.01), (0.02, 0.01)], medium=[(0.006, 0.008), (0.004, 0.008)],
                 hard=[(0.03, 0.01), (-0.001, 0.01)])
    for k, name in enumerate(("ladder", "replication")):
        rows = []
        for lv, (p, rate) in planner.items():
            rows.append(dict(policy="planner", level=lv, players=p, games=2000, win_rate=rate, low=0, high=1,
                             games_per_s=1000.0, paired_diff=np.nan, paired_half=np.nan))
            dd, hh = diffs[lv][k]
            rows.append(dict(policy="expert", level=lv, players=p, games=2000, win_rate=rate + dd, low=0, high=1,
                             games_per_s=50.0, paired_diff=dd, paired_half=hh))
        pd.DataFrame(rows).to_csv(d / f"{name}.csv", index=False)
        (d / f"{name}.json").write_text(json.dumps(dict(meta, seed=k + 1)))
    table = tables.mq_expert(tmp_path)
    assert "in **1 of the 3 cells**" in table            # easy only: hard's seed 2 is behind
    lines = {ln.split(" | ")[0].strip("| "): ln for ln in table.splitlines() if ln.startswith("| ") and " solo " in ln}
    assert lines["Medium"].endswith("| not shown |") and lines["Difficult"].endswith("| not shown |")

    def third(d3, h3):
        pd.DataFrame([dict(policy=pol, level="medium", players=1, games=40000, win_rate=0.95, low=0, high=1,
                           games_per_s=1.0, paired_diff=dd, paired_half=hh)
                      for pol, dd, hh in (("planner", np.nan, np.nan), ("expert", d3, h3))]
                     ).to_csv(d / "confirm.csv", index=False)
        (d / "confirm.json").write_text(json.dumps(dict(meta, seed=3, command="c3")))
        return tables.mq_expert(tmp_path)

    table = third(0.005, 0.002)
    assert "in **2 of the 3 cells**" in table and "yes: seed 3, 40,000 games, **+0.5 ± 0.2 pp**" in table
    assert "`c3`" in table
    table = third(0.005, 0.006)
    assert "in **1 of the 3 cells**" in table and "not shown: seed 3, 40,000 games, +0.5 ± 0.6 pp" in table


def test_the_ladder_refuses_cells_it_cannot_read(monkeypatch, capsys):
    """``ladder.py --cells`` takes level:players pairs; anything else is one
    line and exit status 2, before a game is played."""
    import sys
    import pytest
    mod = _ladder_script()
    monkeypatch.setattr(sys, "argv", ["ladder.py", "--cells", "easy:two"])
    with pytest.raises(SystemExit) as e:
        mod.main()
    assert e.value.code == 2 and "--cells 'easy:two': expected level:players pairs" in capsys.readouterr().err


def test_a_hero_moves_with_skill_only_where_both_seeds_agree(tmp_path):
    """The balance study names a hero whose effect moves from the planner to
    the expert only when the move's interval leaves out zero on the ladder's
    seed and on the independent one, in the same direction."""
    from experiments import balance
    d = tmp_path / "experiments" / "results" / "mq-expert"
    d.mkdir(parents=True)
    pd.DataFrame([dict(policy="expert", level="hard", players=4, games=2000)]).to_csv(d / "ladder.csv", index=False)

    def seed(name, moves):
        rows = [dict(policy="expert", hero=h, games=900, effect=0.01 * k, half=0.02) for k, h in enumerate("xyz")]
        rows += [dict(policy="expert-planner", hero=h, games=900, effect=m, half=0.01) for h, m in zip("xyz", moves)]
        pd.DataFrame(rows).to_csv(d / f"{name}-heroes.csv", index=False)

    seed("ladder", [0.05, 0.05, 0.005])
    seed("replication", [0.04, -0.05, 0.05])
    text = balance._skilled_heroes_text(tmp_path, balance._skilled_heroes(tmp_path), list("xyz"))
    assert "x (+5.0 pp, again +4.0 pp" in text and "y (" not in text and "z (" not in text
    assert "gains most from **z**" in text and "least from **x**" in text
    seed("replication", [-0.04, 0.0, 0.05])
    text = balance._skilled_heroes_text(tmp_path, balance._skilled_heroes(tmp_path), list("xyz"))
    assert text.endswith("or did not replicate.")


def test_a_characters_effect_is_within_table_sizes_and_its_interval_exact():
    """The Quest Master expert ladder's character effects (``qm_rollout.py
    --characters``): seat 0's mean with the character minus with another,
    within each table size, weighted by the character's games. Hand-built as
    the hero test: in both table sizes the character's games average 0.5
    above the others though the sizes' own rates differ; a character seat 0
    plays in every game has no games without it and no effect."""
    mod = _script("questmaster", "qm_rollout.py")
    values = np.array([1, 1, 0, 1, 1, 0, 0, 0], float)
    chars = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    cells = np.array([2, 2, 2, 2, 4, 4, 4, 4])
    rows = mod.character_effects(values, chars, cells, ["a", "b", "c"])
    assert [r["character"] for r in rows] == ["a", "b"]          # "c": never played, no row
    a, b = rows
    assert a["games"] == 4 and np.isclose(a["effect"], 0.5) and np.isclose(b["effect"], -0.5)
    assert np.isclose(a["half"], 1.96 * np.sqrt(4 * 0.25 + 4 * 0.25) / 4) and np.isclose(a["half"], b["half"])
    assert mod.character_effects(values, np.zeros(8, int), cells, ["a"]) == []


def test_a_character_moves_with_skill_only_where_both_seeds_agree(tmp_path):
    """The Quest Master study names a character whose effect moves from the
    planner in seat 0 to the expert only when the move's interval leaves out
    zero on the ladder's seed and on the independent one, the same way; only
    the rows over all table sizes are read."""
    from experiments import balance_qm
    d = tmp_path / "experiments" / "results" / "qm-expert"
    d.mkdir(parents=True)

    def seed(name, moves):
        rows = [dict(policy=p, players=n, character=c, games=900, effect=0.01 * k, half=0.02)
                for p in ("planner", "expert") for n in ("2", "all") for k, c in enumerate("xyz")]
        rows += [dict(policy="expert-planner", players="all", character=c, games=900, effect=m, half=0.01)
                 for c, m in zip("xyz", moves)]
        rows += [dict(policy="expert-planner", players="2", character=c, games=300, effect=0.5, half=0.01)
                 for c in "xyz"]                                   # one table size: not the verdict's
        pd.DataFrame(rows).to_csv(d / f"{name}-characters.csv", index=False)

    seed("ladder", [0.05, 0.05, 0.005])
    seed("replication", [0.04, -0.05, 0.05])
    text = balance_qm._skilled_characters_text(balance_qm._skilled_characters(tmp_path), list("xyz"))
    assert "x (+5.0 pp, again +4.0 pp" in text and "y (" not in text and "z (" not in text
    assert "| z | +2.0 pp [+0.0, +4.0] | +2.0 pp [+0.0, +4.0] | +0.5 pp [-0.5, +1.5] |" in text
    seed("replication", [-0.04, 0.0, 0.05])
    text = balance_qm._skilled_characters_text(balance_qm._skilled_characters(tmp_path), list("xyz"))
    assert "No character's effect moves" in text and "on both seeds" in text
