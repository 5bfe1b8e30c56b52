"""Designer experiments: the file format and its errors, the paired
statistics against statsmodels/scipy, variants / sweeps / sensitivity / tune
on small game counts, re-use of finished games, the exact-odds commands, and
every shipped experiment file with its committed report (each file is also
played, on 20 games a cell, by the publish pipeline's test:
tests/common/test_publish.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.weightstats import DescrStatsW

from mournesim import sim as mq_sim
from mournesim.replay import replay as mq_replay
from mournesim.cli import main as mq_main
from questsim import sim as qm_sim
from questsim.cli import main as qm_main
from simcore import experiment as ex, experiment_play as play
from simcore import paired
from simcore.errors import InputError

ROOT = Path(__file__).parents[2]
SHIPPED = sorted((ROOT / "experiments").glob("*.toml"))


def write(tmp_path, text, name="exp.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


QM_HP = """
title = "Hp win 40 -> 35"
game = "questmaster"
games = {games}
measures = ["win_hp", "rounds"]
[base]
players = 4
[[variant]]
name = "hp-35"
set = ["rules.win_hp_above=35"]
[[variant]]
name = "same"
set = ["rules.win_hp_above=40"]
"""


# ------------------------------------------------------------- format --

@pytest.mark.parametrize("text, expect", [
    ('title = "x"\ngame = "questmaster"\n', "give exactly one of"),
    ('title = "x"\ngame = "chess"\n[[variant]]\nname="a"\nset=["a=1"]\n', "game:"),
    ('title = "x"\ngame = "questmaster"\ncolour = 1\n[[variant]]\nname="a"\nset=["a=1"]\n', "colour: unknown key"),
    ('title = "x"\ngame = "questmaster"\n[[variant]]\nname="a"\nset=["a=1"]\nsize=2\n', "variant.0.size: unknown key"),
    ('title = "x"\ngame = "questmaster"\n[[variant]]\nname="baseline"\nset=["a=1"]\n', "used twice (or reserved)"),
    ('title = "x"\ngame = "questmaster"\n[sweep]\nparam="rules.win_hp_above"\nrange=[40, 30, 1]\n', "range"),
    ('title = "x"\ngame = "questmaster"\n[sweep]\nparam="rules.win_hp_above"\nvalues=[40]\n', "two distinct"),
    ('title = "x"\ngame = "questmaster"\n[sensitivity]\nparams=["rules.win_hp_above"]\n', "exactly one of step"),
    ('title = "x"\ngame = "questmaster"\ngames = 1\n[[variant]]\nname="a"\nset=["a=1"]\n', "games:"),
    ('title = "x"\ngame = "questmaster"\ntarget_ci = 0.01\n[tune]\n[[tune.target]]\nparam="a"\nrate=0.5\n'
     'range=[1, 2]\n', "set games, not target_ci"),
    ('title = "x"\ngame = "questmaster"\n[[variant]\n', "not valid TOML"),
])
def test_bad_experiment_files_are_one_clear_line(tmp_path, text, expect):
    """A malformed file names the problem (the dotted key) on one line, exit 2."""
    p = write(tmp_path, text)
    r = CliRunner().invoke(qm_main, ["experiment", str(p)])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and expect in lines[0], r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("body, expect", [
    ('[base]\nplayers = 4\nlevel = "easy"\n[[variant]]\nname="a"\nset=["rules.win_hp_above=30"]\n',
     "base.level: unknown key"),
    ('[[variant]]\nname="a"\nset=["rules.no_such=3"]\n', "unknown key rules.no_such"),
    ('[[variant]]\nname="a"\nset=["rules.win_hp_above=0"]\n', "win_hp_above"),
    ('measures = ["elo"]\n[[variant]]\nname="a"\nset=["rules.win_hp_above=30"]\n', "unknown measure 'elo'"),
    ('[sensitivity]\nparams=["meta.rules_version"]\nstep=1\n', "not a number"),
    ('[sweep]\nparam="rules.nothing"\nvalues=[1, 2]\n', "rules.nothing: no such ruleset value"),
])
def test_bad_experiment_content_is_caught_before_playing(tmp_path, body, expect):
    text = 'title = "x"\ngame = "questmaster"\ngames = 10\n' + body
    r = CliRunner().invoke(qm_main, ["experiment", str(write(tmp_path, text))])
    assert r.exit_code == 2 and expect in r.output and "Traceback" not in r.output, r.output


def test_an_experiment_runs_only_with_its_own_game(tmp_path):
    p = write(tmp_path, QM_HP.format(games=10))
    r = CliRunner().invoke(mq_main, ["experiment", str(p)])
    assert r.exit_code == 2 and "questsim experiment" in r.output


# ------------------------------------------------------- paired maths --

def test_paired_binary_change_matches_statsmodels():
    """Matched-pairs difference of proportions and McNemar's test."""
    rng = np.random.default_rng(3)
    x = rng.random(4000) < 0.4
    y = np.where(rng.random(4000) < 0.85, x, rng.random(4000) < 0.5)
    r = paired.compare(x, y, True)
    lo, hi = DescrStatsW(y.astype(float) - x).zconfint_mean()
    assert r["ci95_low"] == pytest.approx(lo, rel=1e-9) and r["ci95_high"] == pytest.approx(hi, rel=1e-9)
    table = [[int((x & y).sum()), int((x & ~y).sum())], [int((~x & y).sum()), int((~x & ~y).sum())]]
    assert r["p_value"] == pytest.approx(mcnemar(table, exact=False, correction=True).pvalue)
    assert r["change"] == pytest.approx(y.mean() - x.mean())
    # the unpaired standard error it compares with
    se_u = np.sqrt(x.var(ddof=1) / 4000 + y.var(ddof=1) / 4000)
    assert r["se_ratio"] == pytest.approx(se_u / ((hi - lo) / 2 / 1.959963984540054), rel=1e-9)
    assert r["se_ratio"] > 1          # positively correlated pairs: pairing helps


def test_paired_exact_mcnemar_for_few_discordant_pairs():
    x = np.array([1] * 50 + [0] * 50)
    y = x.copy()
    y[:3] = 0          # 3 pairs worse, 1 better
    y[60] = 1
    r = paired.compare(x, y, True)
    assert r["test"] == "McNemar exact"
    assert r["p_value"] == pytest.approx(sps.binomtest(1, 4, 0.5).pvalue)


def test_paired_count_change_matches_scipy():
    rng = np.random.default_rng(5)
    x = rng.poisson(20, 3000)
    y = x + rng.integers(-2, 4, 3000)
    r = paired.compare(x, y, False)
    t = sps.ttest_rel(y, x)
    assert r["p_value"] == pytest.approx(t.pvalue, rel=1e-6)
    lo, hi = DescrStatsW((y - x).astype(float)).zconfint_mean()
    assert (r["ci95_low"], r["ci95_high"]) == (pytest.approx(lo), pytest.approx(hi))


def test_identical_arms_have_no_change_and_a_zero_interval():
    x = np.array([0, 1, 1, 0, 1])
    r = paired.compare(x, x, True)
    assert r["change"] == 0 and r["ci95_low"] == r["ci95_high"] == 0 and r["p_value"] == 1


def test_pooled_rows_compare_with_unpaired_games_cell_by_cell():
    """The ``all`` row pools cells; its unpaired reference is stratified by
    cell, so the difference between cells is not counted as noise."""
    import pandas as pd
    rng = np.random.default_rng(11)
    parts = []
    for cell, p in (("a", 0.1), ("b", 0.9)):
        x = rng.random(3000) < p
        y = np.where(rng.random(3000) < 0.9, x, ~x)
        for arm, v in (("baseline", x), ("v", y)):
            parts.append(pd.DataFrame({"arm": arm, "cell": cell, "game": np.arange(3000), "win": v.astype(float)}))
    t = paired.table(pd.concat(parts), {"win": True}, ["cell"]).set_index("cell")
    se = {c: t.loc[c, "se_unpaired"] for c in ("a", "b")}
    assert t.loc["all", "se_unpaired"] == pytest.approx(np.sqrt(0.25 * se["a"] ** 2 + 0.25 * se["b"] ** 2))
    assert t.loc["all", "n"] == 6000


# ----------------------------------------------------------- playing --

def test_variant_is_paired_and_a_no_op_variant_changes_nothing(tmp_path):
    """Setting a value to what it already is plays the very same games, so its
    change is exactly zero; lowering the Hp threshold (QM-END-05) makes Hp wins
    more common, game by game never fewer than... on average clearly more."""
    exp = ex.load(write(tmp_path, QM_HP.format(games=800)))
    game = ex.adapter(exp, "questsim")
    res = play.run(exp, game, workers=1)
    c = res.comparisons.set_index(["arm", "measure"])
    same = c.loc[("same", "win_hp")]
    assert same["change"] == 0 and same["ci95_low"] == 0 and same["ci95_high"] == 0
    assert c.loc[("same", "rounds"), "change"] == 0
    hp = c.loc[("hp-35", "win_hp")]
    assert hp["ci95_low"] > 0 and hp["n"] == 800
    # every arm played games 0..799 of the same seed
    assert (res.frame.groupby("arm")["game"].apply(lambda g: sorted(g) == list(range(800)))).all()
    # the baseline arm is exactly a plain run of the same configuration
    plain = qm_sim.simulate(games=800, seed=1, players=4)
    base = res.frame[res.frame["arm"] == "baseline"].sort_values("game")
    assert np.array_equal(base["rounds"].to_numpy(), plain["rounds"].to_numpy())


def test_out_dir_keeps_games_and_a_rerun_reuses_them(tmp_path):
    """With --out the games land on disk; the same command again re-plays
    nothing and reports the same; another experiment into it is refused."""
    p = write(tmp_path, QM_HP.format(games=300))
    out = tmp_path / "out"
    r1 = CliRunner().invoke(qm_main, ["experiment", str(p), "--out", str(out), "--workers", "1", "--quiet"])
    assert r1.exit_code == 0, r1.output
    for f in ("report.md", "index.html", "changes.png", "comparisons.csv", "data/data/_run.json"):
        assert (out / f).exists(), f
    run = json.loads((out / "data" / "data" / "_run.json").read_text())
    assert run["complete"] and {c["arm"] for c in run["cells"]} == {"baseline", "hp-35", "same"}
    stamp = {f: f.stat().st_mtime_ns for f in (out / "data" / "data").glob("part-*")}
    r2 = CliRunner().invoke(qm_main, ["experiment", str(p), "--out", str(out), "--workers", "1", "--quiet"])
    assert r2.exit_code == 0
    assert {f: f.stat().st_mtime_ns for f in (out / "data" / "data").glob("part-*")} == stamp
    assert (out / "comparisons.csv").read_text() == (out / "comparisons.csv").read_text()
    other = write(tmp_path, QM_HP.format(games=300).replace("=35", "=33"), "other.toml")
    r3 = CliRunner().invoke(qm_main, ["experiment", str(other), "--out", str(out), "--workers", "1"])
    assert r3.exit_code == 2 and "another experiment" in r3.output


def test_target_ci_adds_rounds_until_the_interval_is_tight(tmp_path):
    text = QM_HP.format(games=20_000).replace('games = 20000', 'games = 20000\ntarget_ci = 0.4')
    exp = ex.load(write(tmp_path, text))
    res = play.run(exp, ex.adapter(exp, "questsim"), workers=1)
    assert res.rounds == [(play.FIRST_ROUND, pytest.approx(res.rounds[0][1]))] and res.rounds[0][1] <= 0.4
    tight = ex.load(write(tmp_path, text.replace("0.4", "0.008"), "t.toml"))
    res = play.run(tight, ex.adapter(tight, "questsim"), workers=1)
    sizes = [n for n, _w in res.rounds]
    assert sizes[:2] == [play.FIRST_ROUND, 2 * play.FIRST_ROUND]          # doubling
    assert res.rounds[-1][1] <= 0.008 or sizes[-1] == 20_000
    assert all(w1 >= w2 for (_a, w1), (_b, w2) in zip(res.rounds, res.rounds[1:]))


def test_sweep_plays_each_value_and_adds_the_ruleset_value_as_baseline(tmp_path):
    text = """title = "Hp threshold sweep"
game = "questmaster"
games = 300
measures = ["win_hp"]
[base]
players = [3, 5]
[sweep]
param = "rules.win_hp_above"
range = [30, 38, 4]
"""
    exp = ex.load(write(tmp_path, text))
    arms = ex.arms(exp, ex.adapter(exp, "questsim"))
    assert [a.name for a in arms] == ["baseline", "rules.win_hp_above=30", "rules.win_hp_above=34", "rules.win_hp_above=38"]
    assert arms[0].values == {"rules.win_hp_above": 40}
    res = play.run(exp, ex.adapter(exp, "questsim"), workers=1)
    c = res.comparisons[(res.comparisons["players"] == "all")].set_index("arm")["change"]
    # a lower threshold can only bring Hp wins earlier: the rate falls as it rises
    assert c["rules.win_hp_above=30"] > c["rules.win_hp_above=34"] > c["rules.win_hp_above=38"] >= 0
    from simcore import experiment_report as rep
    path = rep.write(res, ex.adapter(exp, "questsim"), tmp_path / "rep")
    assert (tmp_path / "rep" / "sweep.png").exists() and "rules.win_hp_above=30" in path.read_text()


def test_two_parameter_sweep_grid(tmp_path):
    text = """title = "grid"
game = "questmaster"
games = 50
measures = ["win_castles"]
[sweep]
param = "rules.win_hp_above"
values = [35, 40]
param2 = "rules.hand_limit"
values2 = [4, 5]
"""
    exp = ex.load(write(tmp_path, text))
    res = play.run(exp, ex.adapter(exp, "questsim"), workers=1)
    assert len(res.arms) == 4 and res.arms[0].name == "baseline"       # (40, 5) is the ruleset
    from simcore import experiment_report as rep
    rep.write(res, ex.adapter(exp, "questsim"), tmp_path / "rep")
    assert (tmp_path / "rep" / "sweep.png").exists()


def test_sensitivity_nudges_each_parameter_down_and_up(tmp_path):
    text = """title = "s"
game = "mournequest"
games = 60
[base]
level = "easy"
[sensitivity]
params = ["heroes.jack.courage", "levels.easy.disc_clicks"]
relative = 0.1
"""
    exp = ex.load(write(tmp_path, text))
    game = ex.adapter(exp, "mournesim")
    arms = {a.name: a.overrides for a in ex.arms(exp, game)}
    # integers move by at least one: 7 * 0.1 rounds to 1, 15 * 0.1 to 2
    assert arms["heroes.jack.courage down"] == ("heroes.jack.courage=6",)
    assert arms["levels.easy.disc_clicks up"] == ("levels.easy.disc_clicks=17",)
    res = play.run(exp, game, workers=1)
    from simcore import experiment_report as rep
    t = rep.tornado_table(res, game)
    assert set(t["parameter"]) == {"heroes.jack.courage", "levels.easy.disc_clicks"}
    rep.write(res, game, tmp_path / "rep")
    assert (tmp_path / "rep" / "tornado.png").exists()


def test_a_family_nudges_every_number_it_matches_together(tmp_path):
    """``*`` stands for any one key or list position and matches numbers
    only (a hero's skill name is left alone); a family given as down/up
    overrides plays them as written."""
    text = """title = "f"
game = "mournequest"
games = 30
[base]
level = "easy"
[sensitivity]
step = 1
[[sensitivity.family]]
name = "Jack"
params = ["heroes.jack.*"]
[[sensitivity.family]]
name = "Snipe green"
params = ["enemies.snipe.green.*"]
[[sensitivity.family]]
name = "Grey die"
down = ['dice.grey=["fail","1","1","2","3","dandelion"]']
up = ['dice.grey=["fail","2","3","4","5","dandelion"]']
"""
    exp = ex.load(write(tmp_path, text))
    game = ex.adapter(exp, "mournesim")
    arms = {a.name: a.overrides for a in ex.arms(exp, game)}
    assert arms["Jack down"] == ("heroes.jack.courage=6", "heroes.jack.strength=4", "heroes.jack.magic=2")
    assert arms["Snipe green up"] == ("enemies.snipe.green.0=9", "enemies.snipe.green.1=10", "enemies.snipe.green.2=8")
    assert arms["Grey die up"] == ('dice.grey=["fail","2","3","4","5","dandelion"]',)
    res = play.run(exp, game, workers=1)
    from simcore import experiment_report as rep
    assert list(rep.tornado_table(res, game)["parameter"].sort_values()) == ["Grey die", "Jack", "Snipe green"]


@pytest.mark.parametrize("family,message", [
    ('name = "x"\n', "give params, or both down and up"),
    ('name = "x"\ndown = ["rules.life=2"]\n', "give params, or both down and up"),
    ('name = "x"\nparams = ["rules.life"]\nup = ["rules.life=4"]\n', "give params, or both down and up"),
])
def test_a_family_needs_params_or_both_arms(tmp_path, family, message):
    text = f'title = "f"\ngame = "mournequest"\n[sensitivity]\nstep = 1\n[[sensitivity.family]]\n{family}'
    with pytest.raises(InputError, match=message):
        ex.load(write(tmp_path, text))


def test_a_family_that_matches_no_number_is_one_clear_error(tmp_path):
    text = """title = "f"
game = "mournequest"
[sensitivity]
step = 1
[[sensitivity.family]]
name = "skills"
params = ["heroes.*.skill"]
"""
    exp = ex.load(write(tmp_path, text))
    with pytest.raises(InputError, match="family 'skills' matches no number"):
        ex.arms(exp, ex.adapter(exp, "mournesim"))


def test_tune_bisects_to_the_value_nearest_the_target(tmp_path):
    """Solve the Hp threshold for 10% Hp wins: the Hp-win rate falls as the
    threshold rises, so bisection ends next to the crossing; every try is
    played on the same games."""
    text = """title = "t"
game = "questmaster"
games = 300
[tune]
measure = "win_hp"
[[tune.target]]
param = "rules.win_hp_above"
rate = 0.1
range = [26, 44]
"""
    exp = ex.load(write(tmp_path, text))
    res = play.run(exp, ex.adapter(exp, "questsim"), workers=1)
    s = res.tune[0]
    rates = {v: r for v, r, _lo, _hi, _n in s["tries"]}
    assert {26, 44} <= set(rates) and len(rates) <= 2 + 5       # endpoints + log2(18) bisection steps
    assert s["value"] == min(rates, key=lambda v: abs(rates[v] - 0.1))
    assert rates[26] > 0.1 > rates[44]
    # neighbours of the solution straddle the target (monotone on paired games)
    below = [v for v in rates if v < s["value"]]
    above = [v for v in rates if v > s["value"]]
    assert below and above
    from simcore import experiment_report as rep
    txt = rep.write(res, ex.adapter(exp, "questsim"), tmp_path / "rep").read_text()
    assert "Solved values" in txt and (tmp_path / "rep" / "tune.png").exists()
    # every try in tune.csv, the reported answer marked (the docs' generated blocks read it)
    import pandas as pd
    tries = pd.read_csv(tmp_path / "rep" / "tune.csv")
    assert dict(zip(tries["value"], tries["rate"])) == pytest.approx(rates)
    assert tries.loc[tries["solved"], "value"].tolist() == [s["value"]]


PT = """title = "pt"
game = "{game}"
seed = 5
games = 60
[base]
{base}
[policy_tune]
measure = "{measure}"
budget = 6
games_per_eval = 40
batch = 3
[policy_tune.params]
{params}
"""


def test_policy_tune_searches_then_checks_on_fresh_paired_games(tmp_path):
    """A policy_tune: NTBEA evaluates exactly ``budget`` points,
    each step's points on the same games and every step on fresh ones; the
    recommendation and the starting parameters then play games the search
    never saw, paired."""
    text = PT.format(game="mournequest", base='level = "hard"\nplayers = [1, 4]\npolicy = "planner"',
                     measure="win", params="risk = [0.35, 0.55, 0.75]\nprepare = [0, 1, 2]")
    exp = ex.load(write(tmp_path, text))
    game = ex.adapter(exp, "mournesim")
    res = play.run(exp, game, workers=1)
    t = res.tune[0]
    assert len(t["trace"]) == 6 and t["evaluations"] == 6
    assert [r["step"] for r in t["trace"]] == [1, 1, 1, 2, 2, 2]
    assert t["check_first"] == 2 * 40                  # after every game the search played
    assert set(t["tuned_names"]) == {"risk", "prepare"} and len(t["tuned"]) == len(t["names"])
    from mournesim.policies import PLANNER_DEFAULTS
    assert t["start"] == list(PLANNER_DEFAULTS)        # the registered defaults
    check = res.frame
    assert set(check["game"]) == set(range(80, 140))
    if len(res.arms) > 1:
        assert set(res.comparisons["arm"]) == {"tuned"}
    from simcore import experiment_report as rep
    txt = rep.write(res, game, tmp_path / "rep").read_text()
    assert "## The search" in txt and (tmp_path / "rep" / "search.png").exists()


def test_policy_tune_quest_master_tunes_seat_one_against_fixed_opponents(tmp_path):
    text = PT.format(game="questmaster", base='players = 2\npolicy = "planner+greedy"', measure="seat1_won",
                     params="aggression = [0.0, 1.0]")
    exp = ex.load(write(tmp_path, text))
    res = play.run(exp, ex.adapter(exp, "questsim"), workers=1)
    assert res.tune[0]["policy"] == "planner" and len(res.tune[0]["trace"]) == 6


@pytest.mark.parametrize("cluster", [None, "local"])
def test_every_round_of_an_experiment_plays_on_the_same_workers(tmp_path, monkeypatch, cluster):
    """A policy_tune plays a round per step and then the check: its worker
    processes (or its Dask cluster) start once for all of them, not once a
    round, and are stopped at the end; the games are those of one worker."""
    import pandas as pd
    from simcore import batch
    made = []
    kind = batch.DaskBackend if cluster else batch.LocalBackend
    init = kind.__init__

    def counted(self, *a, **k):
        init(self, *a, **k)
        made.append(self)
    monkeypatch.setattr(kind, "__init__", counted)
    text = PT.replace("games = 60", "games = 60\nbatch = 20").format(   # batches of 20: a pool's work
        game="questmaster", base='players = 2\npolicy = "planner+greedy"', measure="seat1_won",
        params="aggression = [0.0, 1.0]")
    exp = ex.load(write(tmp_path, text))
    game = ex.adapter(exp, "questsim")
    two = play.run(exp, game, workers=2, cluster=cluster)
    assert two.tune[0]["evaluations"] == 6 and max(r["step"] for r in two.tune[0]["trace"]) > 1   # several rounds
    assert len(made) == 1                                   # one pool or cluster for every round
    closed = made[0].client is None if cluster else made[0].ex is None
    assert closed
    one = play.run(exp, game, workers=1)
    pd.testing.assert_frame_equal(two.frame, one.frame)
    assert two.tune == one.tune


@pytest.mark.parametrize("params, expect", [
    ("colour = [1, 2]", "policy_tune.params.colour: policy planner has no such parameter"),
    ("risk = [0.5]", "need at least two distinct values"),
    ("risk = [0.5, nan]", "finite"),
    ("risk = [0.5, 7.0]", "policy_tune.params.risk: 7 is outside the parameter's range"),
])
def test_policy_tune_errors_before_any_game(tmp_path, params, expect):
    text = PT.format(game="mournequest", base='policy = "planner"', measure="win", params=params)
    r = CliRunner().invoke(mq_main, ["experiment", str(write(tmp_path, text)), "--quiet"])
    assert r.exit_code == 2 and expect in r.output, r.output


# -------------------------------------------------------------- odds --

def test_mournequest_odds_table_is_consistent():
    """Pool 4 rolls the best three of four dice, so it is never worse than
    the first three; the Blue Moon (green values, dice doubled) is never worse
    than a New Moon."""
    from mournesim import odds
    rules = mq_sim.prepare()
    t = odds.combat_table(rules, "cobs")
    assert len(t) == (3 + 4 + 1) * 4 * 3
    assert (t["4 dice"] >= t["3 dice"] - 1e-12).all()
    new = t[t["moon"].str.startswith("new")].reset_index(drop=True)
    blue = t[t["moon"] == "blue"].reset_index(drop=True)
    assert (blue["1 die"] >= new["1 die"] - 1e-12).all()
    # one grey die (fail, 1, 2, 3, 4, dandelion) needs target - ability ≤ face
    assert odds.combat_odds(rules, 5, 8, [0]) == pytest.approx(3 / 6)   # 3, 4, dandelion


def test_mournequest_odds_cli():
    r = CliRunner().invoke(mq_main, ["odds", "--ability", "5", "--target", "8", "--dice", "grey"])
    assert r.exit_code == 0 and "0.500000" in r.output
    r = CliRunner().invoke(mq_main, ["odds", "--hero", "tess", "--format", "csv"])
    assert r.exit_code == 0 and r.output.startswith("table,enemy,moon")
    for bad in (["odds", "--ability", "5"], ["odds", "--ability", "5", "--target", "8", "--dice", "pink"],
                ["odds", "--hero", "nobody"]):
        r = CliRunner().invoke(mq_main, bad)
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output


def test_questmaster_mp_odds_match_the_engine_dice():
    """The enumerated Mp distribution of each die against 60,000 rolls of the
    engine's own dice (chi-square)."""
    from questsim import engine, odds
    from simcore.rng import N_STREAMS, seed_streams
    rules = qm_sim.prepare()
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    seed_streams(np.uint64(9), 0, rng)
    for die, name in ((0, "red"), (1, "blue")):
        exact = odds.mp_distribution(rules, name)
        faces = np.array([engine.roll(rules.T, rng, die) for _ in range(60_000)])
        mp = np.where(faces > 0, faces, rules.ruleset.rules.mp_symbol_value)
        obs = np.array([(mp == k).sum() for k in exact])
        p = sps.chisquare(obs, np.array([float(v) for v in exact.values()]) * len(mp)).pvalue
        assert p > 1e-4, (name, obs)
    cases = odds.roll_cases(rules)
    assert cases["chance"].sum() == pytest.approx(1)
    r = CliRunner().invoke(qm_main, ["odds", "--format", "json"])
    assert r.exit_code == 0 and "duel Mp" in r.output


# ------------------------------------------------------------ levers --

def test_starting_dice_lever_sets_the_opening_pool():
    """MQ-COMBAT-03: the game starts with the Grey die only; the what-if
    lever rules.starting_dice starts with more (still at most four)."""
    def opening_pool(overrides=()):
        recs = mq_replay(seed=2, game=0, overrides=overrides).records()
        return next(r["snapshot"]["dice_pool"] for r in recs if "snapshot" in r)
    assert opening_pool() == 1
    assert opening_pool(("rules.starting_dice=2",)) == 2
    with pytest.raises(InputError):
        mq_sim.prepare(overrides=("rules.starting_dice=5",))


def test_last_player_extra_items_lever_deals_only_the_last_player():
    """The what-if lever rules.last_player_extra_items deals extra Item cards
    after the start roll to the player last in turn order, and nobody else."""
    from questsim import replay as qm_replay
    def setup_draws(rp):
        recs = rp.records()
        k = next(i for i, r in enumerate(recs) if r["event"] == "turn")
        return [r["seat"] for r in recs[:k] if r["event"] == "draw_item"], recs[k]["seat"]
    for game in range(4):
        d0, first = setup_draws(qm_replay.replay(seed=3, game=game, players=4))
        d1, first1 = setup_draws(qm_replay.replay(seed=3, game=game, players=4,
                                                  overrides=("rules.last_player_extra_items=2",)))
        assert first1 == first and d1[:len(d0)] == d0
        assert d1[len(d0):] == [(first + 3) % 4] * 2


# ---------------------------------------------------------- shipped --

def test_at_least_six_shipped_experiments_with_committed_reports():
    """Each shipped experiment has its committed report, and the page beside
    it (index.html) is that report as it stands, plots inside."""
    from simcore.html_report import markdown_page
    assert len(SHIPPED) >= 6
    for f in SHIPPED:
        exp = ex.load(f)
        assert exp.question, f
        d = ROOT / "experiments" / "results" / f.stem
        assert (d / "report.md").exists(), f.stem
        page = (d / "index.html").read_text(encoding="utf-8")
        assert page == markdown_page((d / "report.md").read_text(encoding="utf-8"), d), \
            f"{f.stem}/index.html is stale: python -m simcore.html_report {d.relative_to(ROOT)}"
        assert "src=\"data:image/png;base64," in page


def test_interrupted_experiment_keeps_its_batches_and_the_same_command_finishes_it(tmp_path):
    """A real Ctrl-C: exit 130, one line; the parts on disk stay, and running
    the same command again plays only the rest and gives the games of an
    uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from simcore import store
    p = write(tmp_path, QM_HP.format(games=4_000).replace("games = 4000", "games = 4000\nbatch = 100"))
    exe = Path(sys.executable).with_name("questsim")
    out = tmp_path / "out"
    args = [str(exe), "experiment", str(p), "--out", str(out), "--workers", "1", "--quiet"]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    data = out / "data" / "data"
    deadline = time.time() + 300
    while time.time() < deadline and (not data.is_dir() or len(store.parts(data)) < 3):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "run the same command again" in err and "Traceback" not in err
    kept = len(store.parts(data))
    assert 3 <= kept < 120           # 3 arms x 40 batches: stopped part-way
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr
    got = store.read_dataset(data).sort_values(["arm", "game"]).reset_index(drop=True)
    exp = ex.load(p)
    fresh = play.Runner(exp, ex.adapter(exp, "questsim"), workers=1).play(ex.arms(exp, ex.adapter(exp, "questsim")),
                                                                       4_000)
    fresh = fresh.sort_values(["arm", "game"]).reset_index(drop=True)
    assert np.array_equal(got["rounds"].to_numpy(), fresh["rounds"].to_numpy())
    assert np.array_equal(got["winner_seat"].to_numpy(), fresh["winner_seat"].to_numpy())
