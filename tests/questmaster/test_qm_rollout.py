"""Quest Master's rollout search beyond the movement choice (issue 17): the
other decisions are searched on copies replayed from the seat's last movement
choice (simcore/search.py), each replay reaching the real decision exactly."""
import numpy as np

from questsim import layout as L, plugins, rollout, sim
from simcore import search

RULES = sim.prepare()
plugins.load_configured()
INFO = plugins.get("rollout")


def _counted(policies, n=8, deep=1.0, seed=1, first=0):
    """Play a table in this process: (result rows, searched and failed counts
    of every rollout seat, simcore.search)."""
    params = list(INFO.defaults)
    params[INFO.param_names.index("deep")] = deep
    cfg = sim.Config(players=len(policies), policies=policies,
                     params=tuple(params) if policies[0] == "rollout" else ())
    chars, pids, pp, engine = cfg.resolved(RULES)
    out = np.zeros((n, L.NRES), np.int32)
    engine.run_batch(np.uint64(seed), first, n, len(policies), chars, pids, pp, RULES.T, out)
    seats = [i for i, p in enumerate(policies) if p == "rollout"]
    return (out, sum(pp[i, rollout.BASE + search.SEARCHED] for i in seats),
            sum(pp[i, rollout.BASE + search.FAILED] for i in seats))


def test_other_decisions_are_searched_on_copies_that_retrace_the_game():
    """Cards, targets, attacks, defences and discards are searched too: every
    replay reaches the real decision's state and legal choices, with the other
    seats' own policies and parameters retracing their answers."""
    out, searched, failed = _counted(("rollout", "greedy", "planner"))
    assert searched >= 8
    assert failed == 0
    assert (out[:, L.RESULT_INDEX["illegal_choices"]] == 0).all()
    out, searched, failed = _counted(("rollout", "random", "greedy", "planner"))
    assert searched >= 8 and failed == 0


def test_deep_off_searches_movement_only():
    """``deep`` 0 is the search before the replay: nothing but movement is
    searched, and the games differ from deep 1's."""
    off, searched, _ = _counted(("rollout", "greedy", "planner"), deep=0.0)
    on, _, _ = _counted(("rollout", "greedy", "planner"))
    assert searched == 0
    assert not np.array_equal(off, on)


def test_with_another_plug_in_at_the_table_only_movement_is_searched():
    """A replay cannot retrace another plug-in's answers (two searches would
    search inside each other), so with two rollout seats the other decisions
    are the planner's."""
    _, searched, failed = _counted(("rollout", "rollout"), n=4)
    assert searched == 0 and failed == 0


def test_a_rollout_game_is_the_same_alone_as_in_a_batch():
    """The search's memory lasts a batch; game 5 after four others and game 5
    alone must be the same game."""
    batch, _, _ = _counted(("rollout", "greedy", "planner"), n=6, seed=9)
    alone, _, _ = _counted(("rollout", "greedy", "planner"), n=1, seed=9, first=5)
    assert np.array_equal(batch[5], alone[0])


def test_a_deep_rollout_game_replayed_with_its_log_is_the_batch_game():
    """``replay`` logs events and snapshots: game 3 replayed with ``deep`` 1
    rebuilds its batch row exactly."""
    from questsim import game as engine
    from questsim.replay import replay
    table = ("rollout", "greedy", "planner")
    batch, searched, _ = _counted(table, n=4, seed=9)
    assert searched > 0
    params = list(INFO.defaults)
    params[INFO.param_names.index("deep")] = 1.0
    rp = replay(seed=9, game=3, players=3, policies=table, params=params, rules=RULES)
    out = np.zeros(L.NRES, np.int32)
    engine.result_row(rp.final_state, RULES.T, out)
    assert np.array_equal(out, batch[3])
