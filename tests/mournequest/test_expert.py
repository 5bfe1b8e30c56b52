"""The `expert` search policy: one budget parameter, only legal choices, the
same game alone or in a batch and when replayed, and decisions inside a turn
searched from budget 4 on copies that retrace the game. (That its search
never sees the real game's future is tested with rollout's, in
test_rollout.py.)

The first use compiles expert's entry point once (about a minute)."""
import numpy as np
import pytest

from mournesim import layout as L, plugins, sim
from mournesim.plan import PLANNER_PARAMS
from mournesim.replay import replay

RULES = sim.prepare()
INFO = plugins.get("expert")


def _params(budget):
    return tuple(budget if k == "budget" else v for k, v in zip(INFO.param_names, INFO.defaults))


def test_expert_has_the_planners_parameters_and_one_budget():
    assert INFO.param_names == tuple(PLANNER_PARAMS) + ("budget",)
    assert INFO.ranges["budget"] == (0.5, 64.0)


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_expert_only_ever_picks_legal_choices(level):
    """Every player count, the engine's legal list only (it would count any
    other choice in illegal_choices and the run would stop with an error)."""
    for players in (1, 2, 3, 4):
        df = sim.simulate(games=2, seed=23, level=level, players=players, policy="expert", rules=RULES)
        assert (df["illegal_choices"] == 0).all() and (df["outcome"] != "running").all(), (level, players)


def _batch(n, players, budget=1.0, level="medium", seed=1, first=0):
    """Expert games played in this process: (result rows, decisions inside a
    turn searched by replay, replays that did not reach their decision)."""
    from mournesim import expert
    from simcore import search
    cfg = sim.Config(level=level, players=players, policy="expert", params=_params(budget))
    lvl, heroes, pid, pp, engine = cfg.resolved(RULES)
    out = np.zeros((n, L.NRES), np.int32)
    engine.run_batch(np.uint64(seed), first, n, lvl, players, heroes, pid, pp, RULES.T, out)
    return out, pp[expert.BASE + search.SEARCHED], pp[expert.BASE + search.FAILED]


def test_the_search_changes_the_planners_games():
    planner = sim.simulate(games=12, seed=5, level="hard", players=4, policy="planner", rules=RULES)
    out, _, _ = _batch(12, 4, level="hard", seed=5)
    cols = ["rounds", "hero_turns", "combats", "shimnavore_wounds"]
    differ = (planner[cols].to_numpy() != out[:, [L.RESULT_INDEX[c] for c in cols]]).any(axis=1)
    assert differ.sum() >= 3


def test_decisions_inside_a_turn_are_searched_from_budget_four_on_exact_replays():
    """Below budget 4 none is; from 4 the reactions, cards and losses are, on
    copies replayed from the last turn decision that reach the very state and
    legal choices of the real decision (checked before any candidate)."""
    _, searched, _ = _batch(2, 1, budget=2.0)
    assert searched == 0
    out, searched, failed = _batch(2, 1, budget=4.0)
    assert searched >= 2 and failed == 0
    assert (out[:, L.RESULT_INDEX["illegal_choices"]] == 0).all()


@pytest.mark.parametrize("budget", [0.5, 1.0])
def test_an_expert_game_is_the_same_alone_as_in_a_batch_and_replayed(budget):
    """The search's memory lasts a batch: game 3 after three other games and
    alone is one game, and ``replay`` (which logs events) rebuilds its row."""
    from mournesim import game as engine
    batch, _, _ = _batch(4, 2, budget=budget, seed=9)
    alone, _, _ = _batch(1, 2, budget=budget, seed=9, first=3)
    assert np.array_equal(batch[3], alone[0])
    rp = replay(seed=9, game=3, level="medium", players=2, policy="expert", params=_params(budget), rules=RULES)
    out = np.zeros(L.NRES, np.int32)
    engine.result_row(rp.final_state, RULES.T, out)
    assert np.array_equal(out, batch[3])


def test_a_budget_outside_its_range_is_refused_in_one_line():
    import subprocess
    import sys
    from pathlib import Path
    exe = Path(sys.executable).parent / "mournesim"
    params = ",".join(str(v) for v in _params(0.1))
    r = subprocess.run([str(exe), "simulate", "--policy", "expert", "--params", params, "--games", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "budget" in r.stderr
