"""The `rollout` search policy: it only ever picks legal choices, its
parameters change its play (width 1 is exactly the planner), and its search is
fair — it never sees the real game's future dice, tiles or deck order.

The first use compiles rollout's entry point once (seconds)."""
import numpy as np
import pytest

import simcore.rng as R
from mournesim import layout as L, plugins, rules, sim
from mournesim.plan import moon_left
from mournesim.replay import replay

RULES = sim.prepare()
INFO = plugins.get("rollout")
PP = np.array(INFO.defaults, np.float64)


def _vector():
    """rollout's ``pp`` as a run gives it: its parameters, its memory, the
    planner's entry point (which its copies call) and its own."""
    return sim.Config(policy="rollout").resolved(RULES)[3]


def test_rollout_is_registered_with_its_parameters():
    """`rollout` is offered by name with the planner's parameters and its own
    search parameters."""
    assert INFO.param_names[:5] == ("risk", "charm_weight", "assign", "talisman_reserve", "prepare")
    assert {"width", "samples", "horizon", "progress"} <= set(INFO.param_names)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_rollout_only_ever_picks_legal_choices(level):
    """On every level and player count the search returns only choices from
    the engine's legal list (the engine would count any other in
    illegal_choices and the run would stop with an error)."""
    for players in (1, 2, 3, 4):
        df = sim.simulate(games=3, seed=23, level=level, players=players, policy="rollout", rules=RULES)
        assert (df["illegal_choices"] == 0).all(), (level, players)
        assert (df["outcome"] != "running").all()


def test_width_one_plays_exactly_the_planner_games():
    """With one candidate there is nothing to search: rollout must play the
    very games the planner plays (same choices, same random streams)."""
    pp = list(PP)
    pp[INFO.param_names.index("width")] = 1
    a = sim.simulate(games=30, seed=5, level="medium", players=3, policy="planner", rules=RULES)
    b = sim.simulate(games=30, seed=5, level="medium", players=3, policy="rollout", params=pp, rules=RULES)
    cols = [c for c in a.columns if c != "policy"]
    assert a[cols].equals(b[cols])


def test_searching_changes_the_games():
    """With its default width the search overrides the planner at some turn
    decisions, so the same seeds give different games."""
    a = sim.simulate(games=30, seed=5, level="medium", players=3, policy="planner", rules=RULES)
    b = sim.simulate(games=30, seed=5, level="medium", players=3, policy="rollout", rules=RULES)
    differ = (a[["rounds", "hero_turns", "combats", "outcome", "shimnavore_wounds"]]
              != b[["rounds", "hero_turns", "combats", "outcome", "shimnavore_wounds"]]).any(axis=1)
    assert differ.sum() >= 5


def _search_position():
    """A real position at a turn start inside the search window: the planner's
    game replayed to its last turn start before the Final Battle."""
    rp = replay(seed=3, game=1, level="medium", players=4, policy="planner", rules=RULES)
    T = RULES.T
    for snap in reversed(rp.snapshots):
        if snap[L.G_FINAL] == L.FB_NONE and moon_left(snap, T) <= PP[INFO.param_names.index("horizon")]:
            s = snap.copy()
            h = int(s[L.G_CUR])
            legal = np.zeros(L.MAX_LEGAL, np.int32)
            n = rules.legal_turn(s, T, h, legal)
            if n >= 3 and s[L.G_EQ_N] >= 2:
                return s, h, legal, int(n)
    raise AssertionError("no turn start in the search window")


@pytest.mark.parametrize("policy", ["rollout", "expert"])
def test_search_does_not_see_the_real_future(policy):
    """The choice depends only on what the players can know: changing the
    real game's dice, encounter and set-up streams and the order of the
    face-down equipment deck leaves it unchanged (the policy's own stream is
    kept), for both search players (the position is inside both horizons).
    MQ-SETUP-07 (the equipment deck is face down)."""
    info = plugins.get(policy)
    pp = sim.Config(policy=policy).resolved(RULES)[3]
    s, h, legal, n = _search_position()
    T = RULES.T
    rng_a = np.zeros(R.N_STREAMS * 4, np.uint64)
    R.seed_streams(np.uint64(1), 0, rng_a)
    rng_b = np.zeros(R.N_STREAMS * 4, np.uint64)
    R.seed_streams(np.uint64(999), 7, rng_b)
    p = R.STREAM_POLICY * 4
    rng_b[p:p + 4] = rng_a[p:p + 4]
    s_b = s.copy()
    k = int(s[L.G_EQ_N])
    s_b[L.G_EQ_DECK:L.G_EQ_DECK + k] = s[L.G_EQ_DECK:L.G_EQ_DECK + k][::-1]
    a = info.func(s.copy(), T, legal, n, rng_a.copy(), pp.copy(), h)
    b = info.func(s_b, T, legal, n, rng_b, pp.copy(), h)
    assert a == b
    assert a in legal[:n]


def test_search_choice_depends_on_its_own_stream_only_through_sampling():
    """Two different policy streams sample different futures; both choices
    are legal (the search never invents an action)."""
    s, h, legal, n = _search_position()
    for seed in range(4):
        rng = np.zeros(R.N_STREAMS * 4, np.uint64)
        R.seed_streams(np.uint64(seed), 0, rng)
        assert INFO.func(s.copy(), RULES.T, legal, n, rng, _vector(), h) in legal[:n]


def _counted_batch(n, players, deep=1.0, level="medium", seed=1, first=0):
    """Play rollout games in this process; return (result rows, searched,
    failed): the search's counts of decisions inside a turn it searched by
    replay and of replays that did not reach the decision (simcore.search)."""
    from mournesim import rollout
    from simcore import search
    params = list(PP)
    params[INFO.param_names.index("deep")] = deep
    cfg = sim.Config(level=level, players=players, policy="rollout", params=tuple(params))
    lvl, heroes, pid, pp, engine = cfg.resolved(RULES)
    out = np.zeros((n, L.NRES), np.int32)
    engine.run_batch(np.uint64(seed), first, n, lvl, players, heroes, pid, pp, RULES.T, out)
    return out, pp[rollout.BASE + search.SEARCHED], pp[rollout.BASE + search.FAILED]


@pytest.mark.parametrize("players", [1, 4])
def test_decisions_inside_a_turn_are_searched_on_copies_that_retrace_the_game(players):
    """Reactions, cards and losses are searched too (``deep``): each candidate
    is tried on a copy replayed from the last turn decision, and every replay
    reaches the very state and legal choices of the real decision (checked
    field by field before a candidate is tried), so none falls back."""
    out, searched, failed = _counted_batch(8, players)
    assert searched >= 8
    assert failed == 0
    assert (out[:, L.RESULT_INDEX["illegal_choices"]] == 0).all()


def test_deep_off_searches_turn_decisions_only():
    """``deep`` 0 is the search of engine behaviour v4 before the replay: no
    decision inside a turn is searched, and the games differ from deep 1's."""
    off, searched, _ = _counted_batch(12, 4, deep=0.0)
    on, _, _ = _counted_batch(12, 4, deep=1.0)
    assert searched == 0
    assert not np.array_equal(off, on)


def test_a_rollout_game_is_the_same_alone_as_in_a_batch():
    """The search's memory lasts a batch, so game 5 follows four other games
    in one and none in the other: it must still be the same game (a snapshot
    of an earlier game is never replayed into this one's choices)."""
    batch, _, _ = _counted_batch(6, 2, seed=9)
    alone, _, _ = _counted_batch(1, 2, seed=9, first=5)
    assert np.array_equal(batch[5], alone[0])


def test_a_deep_rollout_game_replayed_with_its_log_is_the_batch_game():
    """``replay`` logs events and snapshots (state counters the copies leave
    alone): game 3 replayed with ``deep`` 1 rebuilds its batch row exactly."""
    from mournesim import game as engine
    batch, searched, _ = _counted_batch(4, 2, seed=9)
    assert searched > 0
    params = list(PP)
    params[INFO.param_names.index("deep")] = 1.0
    rp = replay(seed=9, game=3, level="medium", players=2, policy="rollout", params=params, rules=RULES)
    out = np.zeros(L.NRES, np.int32)
    engine.result_row(rp.final_state, RULES.T, out)
    assert np.array_equal(out, batch[3])
