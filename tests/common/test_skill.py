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


def test_questmaster_conclusions_across_skill():
    df = pd.concat([qm_sim.simulate(games=200, seed=2, players=p, policies=(pol,))
                    for pol in ("greedy", "planner") for p in (2, 4)], ignore_index=True)
    t = qm_rep.across_skill(df)
    assert list(t.columns) == ["conclusion", "greedy", "planner", "across skill"]
    assert set(t["conclusion"]) == {"character ranking (win rate against fair share)",
                                    "going first is an advantage", "which win condition ends most games"}
