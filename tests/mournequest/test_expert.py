"""The `expert` search policy: one budget parameter, only legal choices, a
fair search (it never sees the real game's future), the same game alone or
in a batch and when replayed, and decisions inside a turn searched from
budget 4 on copies that retrace the game.

The first use compiles expert's entry point once (seconds)."""
import numpy as np
import pytest

import simcore.rng as R
from mournesim import layout as L, plugins, rules, sim
from mournesim.expert import HORIZON
from mournesim.plan import PLANNER_PARAMS, moon_left

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


def _search_position():
    """A real position inside the search window: a turn start of a planner
    game within HORIZON hero turns of the Shimnavore, with a choice to make."""
    rp = sim.replay(seed=3, game=1, level="medium", players=4, policy="planner", rules=RULES)
    for snap in reversed(rp.snapshots):
        if snap[L.G_FINAL] == L.FB_NONE and moon_left(snap, RULES.T) <= HORIZON:
            s = snap.copy()
            h = int(s[L.G_CUR])
            legal = np.zeros(L.MAX_LEGAL, np.int32)
            n = rules.legal_turn(s, RULES.T, h, legal)
            if n >= 3 and s[L.G_EQ_N] >= 2:
                return s, h, legal, int(n)
    raise AssertionError("no turn start in the search window")


def _vector(budget=1.0):
    """expert's ``pp`` as a run gives it: parameters, memory, the planner's
    entry point (its copies' player) and its own."""
    return sim.Config(policy="expert", params=_params(budget)).resolved(RULES)[3]


def test_the_search_does_not_see_the_real_future():
    """Changing the real game's dice, encounter and set-up streams and the
    order of the face-down equipment deck leaves the choice unchanged (the
    policy's own stream kept). MQ-SETUP-07 (the equipment deck is face down)."""
    s, h, legal, n = _search_position()
    rng_a = np.zeros(R.N_STREAMS * 4, np.uint64)
    R.seed_streams(np.uint64(1), 0, rng_a)
    rng_b = np.zeros(R.N_STREAMS * 4, np.uint64)
    R.seed_streams(np.uint64(999), 7, rng_b)
    p = R.STREAM_POLICY * 4
    rng_b[p:p + 4] = rng_a[p:p + 4]
    s_b = s.copy()
    k = int(s[L.G_EQ_N])
    s_b[L.G_EQ_DECK:L.G_EQ_DECK + k] = s[L.G_EQ_DECK:L.G_EQ_DECK + k][::-1]
    for budget in (1.0, 2.0):
        a = INFO.func(s.copy(), RULES.T, legal, n, rng_a.copy(), _vector(budget), h)
        b = INFO.func(s_b.copy(), RULES.T, legal, n, rng_b.copy(), _vector(budget), h)
        assert a == b and a in legal[:n]


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


def test_an_expert_game_is_the_same_alone_as_in_a_batch_and_replayed():
    """The search's memory lasts a batch: game 3 after three other games and
    alone is one game, and ``replay`` (which logs events) rebuilds its row."""
    from mournesim import game as engine
    batch, _, _ = _batch(4, 2, seed=9)
    alone, _, _ = _batch(1, 2, seed=9, first=3)
    assert np.array_equal(batch[3], alone[0])
    rp = sim.replay(seed=9, game=3, level="medium", players=2, policy="expert", params=_params(1.0), rules=RULES)
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
