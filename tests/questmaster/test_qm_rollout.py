"""Quest Master's rollout search beyond the movement choice: the
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


def test_a_plug_in_s_memory_holds_the_table_then_its_own_slots():
    """Each seat's row: its parameters, then for a plug-in with ``scratch``
    the table's rows (every seat's parameters and address) and its own slots
    (the widest plug-in's), the entry points rollout uses (the planner's),
    and last its address; a small memory beside rollout's does not overlap
    the table."""
    from numba import njit

    @njit(cache=False)
    def first(s, T, legal, n, rng, pp, seat):
        return legal[0]

    plugins.register_policy("tiny_memory", first, params={"x": 2.0}, scratch=3)
    cfg = sim.Config(players=3, policies=("tiny_memory", "greedy", "rollout"))
    _, _, pp, _ = cfg.resolved(RULES, entry=False)
    assert pp.shape == (L.MAX_PLAYERS, L.MAX_PARAMS + L.TABLE_SLOTS + rollout.SCRATCH + 2)
    row = L.MAX_PARAMS + 1
    for seat in (0, 2):    # the plug-ins' rows hold the table
        table = pp[seat, L.MAX_PARAMS:L.MAX_PARAMS + L.TABLE_SLOTS].reshape(L.MAX_PLAYERS, row)
        assert np.array_equal(table[:, :L.MAX_PARAMS], pp[:, :L.MAX_PARAMS])
    assert pp[0, 0] == 2.0 and np.array_equal(pp[2, :len(INFO.defaults)], INFO.defaults)
    assert not pp[1, L.MAX_PARAMS:].any()     # a built-in seat keeps no memory


def test_every_seat_s_row_ends_with_its_policy_s_entry_point():
    """The engine holds no policy but random and first: a seat playing greedy
    or the planner (or their v2 versions) has its entry point's address last
    in its row (questsim/entries.py), a random seat 0; rollout's row holds
    the planner's entry point just before its own, for its copies."""
    from questsim import entries
    from questsim.policies import POLICY_GREEDY, POLICY_PLANNER
    cfg = sim.Config(players=4, policies=("greedy", "planner_v2", "random", "rollout"))
    _, _, pp, _ = cfg.resolved(RULES)
    greedy, planner = entries.address(POLICY_GREEDY), entries.address(POLICY_PLANNER)
    assert 0 != greedy != planner != 0
    assert list(pp[:3, -1]) == [greedy, planner, 0.0]
    assert pp[3, -2] == planner and pp[3, -1] == plugins.entry(INFO)
    table = pp[3, L.MAX_PARAMS:L.MAX_PARAMS + L.TABLE_SLOTS].reshape(L.MAX_PLAYERS, L.MAX_PARAMS + 1)
    assert list(table[:4, -1]) == list(pp[:4, -1])     # a replay of the other seats calls them the same way
