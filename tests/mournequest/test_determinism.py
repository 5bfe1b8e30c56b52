"""Determinism contracts (shared/design.md, "Determinism"): game ``i`` of seed
``S`` is the same game whatever batch it runs in, replays reproduce batch rows,
rule variants on the same ``(S, i)`` are paired games, and the pure-Python
engine (NUMBA_DISABLE_JIT=1) plays exactly the games the jitted one plays.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from mournesim import layout as L
from mournesim import sim
from mournesim.game import result_row
from mournesim.replay import replay

RULES = sim.prepare()
CONFIGS = [
    sim.Config(level="easy", players=4, policy="greedy"),
    sim.Config(level="medium", players=2, policy="random"),
    sim.Config(level="hard", players=1, policy="greedy"),
    sim.Config(level="easy", players=3, policy="random", heroes=("tess", "jack", "cobs")),
]
IDS = [f"{c.level}-{c.players}p-{c.policy}" for c in CONFIGS]


def rows(cfg, seed, first, n, rules=RULES):
    return sim.run_games(rules, cfg, seed, first, n)


def _replay(cfg, seed, game, rules=RULES, overrides=()):
    return replay(seed=seed, game=game, level=cfg.level, players=cfg.players, heroes=cfg.heroes,
                      policy=cfg.policy, params=cfg.params, rules=rules, overrides=overrides)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_same_seed_twice_gives_identical_rows(cfg):
    """The same (seed, games, configuration) run twice gives identical result
    rows, and identical DataFrames from ``sim.simulate``."""
    a = rows(cfg, 11, 0, 60)
    b = rows(cfg, 11, 0, 60)
    np.testing.assert_array_equal(a, b)
    kw = dict(games=40, seed=11, level=cfg.level, players=cfg.players, heroes=cfg.heroes, policy=cfg.policy)
    pd.testing.assert_frame_equal(sim.simulate(rules=RULES, **kw), sim.simulate(rules=RULES, **kw))


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_different_seeds_and_games_are_different_games(cfg):
    """Different master seeds give different games, and within one run the
    games differ from each other (the per-game streams are not shared)."""
    a = rows(cfg, 1, 0, 60)
    b = rows(cfg, 2, 0, 60)
    assert (a != b).any(axis=1).sum() >= 30, "seed 1 and seed 2 play mostly the same games"
    assert len({tuple(r) for r in a}) >= 30, "games of one run repeat each other"
    # the full event logs of game 0 differ too
    e1 = _replay(cfg, 1, 0).events
    e2 = _replay(cfg, 2, 0).events
    assert e1.shape != e2.shape or (e1 != e2).any()
    # extreme seeds are valid and distinct
    c = rows(cfg, 2**64 - 1, 0, 20)
    np.testing.assert_array_equal(c, rows(cfg, 2**64 - 1, 0, 20))
    assert (c != rows(cfg, 0, 0, 20)).any()


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_game_i_is_independent_of_the_batch_it_runs_in(cfg):
    """Row ``i`` of a batch equals game ``i`` run in any other split of the
    same seed (``run_games(rules, cfg, seed, first, n)``), single games,
    reversed order, and with other configurations run in between."""
    seed = 424242
    whole = rows(cfg, seed, 0, 50)
    splits = [(0, 13), (13, 1), (14, 26), (40, 10)]
    parts = np.concatenate([rows(cfg, seed, f, n) for f, n in splits])
    np.testing.assert_array_equal(parts, whole)
    np.testing.assert_array_equal(rows(cfg, seed, 25, 5), whole[25:30])
    # one game at a time, in reverse order, with another configuration interleaved
    other = CONFIGS[(CONFIGS.index(cfg) + 1) % len(CONFIGS)]
    for i in (49, 31, 17, 3, 0):
        rows(other, seed + 1, i, 3)
        np.testing.assert_array_equal(rows(cfg, seed, i, 1)[0], whole[i])
    # a zero-length batch is empty
    assert rows(cfg, seed, 5, 0).shape == (0, L.NRES)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_replay_of_game_i_reproduces_row_i(cfg):
    """``replay(seed, i)`` plays the very game behind row ``i`` of a batch:
    the result row rebuilt from the replay's final state equals the batch row
    (outcome, rounds, cast_out, escaped, dice pool, fates ...), and the decoded
    'game_end' record and ``Replay.outcome`` agree with the DataFrame."""
    seed = 99
    batch = rows(cfg, seed, 0, 12)
    df = sim.to_frame(batch, RULES, cfg, seed, 0)
    for i in range(12):
        rp = _replay(cfg, seed, i)
        out = np.zeros(L.NRES, np.int32)
        result_row(rp.final_state, RULES.T, out)
        np.testing.assert_array_equal(out, batch[i], err_msg=f"game {i}")
        assert rp.outcome == df.loc[i, "outcome"]
        end = rp.records()[-1]
        assert end["event"] == "game_end"
        assert end["outcome"] == df.loc[i, "outcome"]
        assert min(end["rounds"], RULES.ruleset.rules.safety_cap_rounds) == df.loc[i, "rounds"]
        c = {k: int(rp.final_state[o]) for k, o in (("cast_out", L.G_CASTOUT), ("escaped", L.G_ESCAPED),
                                                     ("defeated", L.G_DEFEATED), ("hero_turns", L.G_TURNS))}
        assert c == {k: int(df.loc[i, k]) for k in c}


def _setup_event(rp):
    ev = rp.events[rp.events[:, 0] == L.EVENT["setup"]]
    assert len(ev) == 1
    return ev[0]


def test_what_if_that_does_not_touch_setup_keeps_setup_and_play_paired():
    """Paired streams (common random numbers): changing the Shimnavore's values
    (``--set shimnavore.grey=[...]``) changes nothing before the Shimnavore
    appears, so the 'setup' event (disc placement MQ-SETUP-01, first Surplus
    card MQ-SETUP-05) and every event up to 'final_battle' are identical; the
    ruleset hash differs."""
    cfg = sim.Config(level="easy", players=3, policy="greedy")
    alt = sim.prepare(overrides=("shimnavore.grey=[30, 31, 29]", "shimnavore.red=[32, 33, 31]",
                                 "shimnavore.green=[28, 29, 27]"))
    assert alt.hash != RULES.hash
    reached = 0
    for g in range(8):
        a = _replay(cfg, 5, g)
        b = _replay(cfg, 5, g, rules=alt)
        np.testing.assert_array_equal(_setup_event(a), _setup_event(b))
        np.testing.assert_array_equal(a.snapshots[0], b.snapshots[0])
        fb = np.flatnonzero(a.events[:, 0] == L.EVENT["final_battle"])
        cut = int(fb[0]) + 1 if len(fb) else len(a.events)
        reached += bool(len(fb))
        np.testing.assert_array_equal(a.events[:cut], b.events[:cut])
    assert reached, "no game reached the Final Battle: the pairing was not exercised"


def test_what_if_on_hero_values_keeps_the_setup_stream():
    """A what-if that changes play (``--set heroes.jack.courage=...``) still
    leaves the set-up identical, because set-up shuffles use their own stream:
    disc placement, the first Surplus card, the decks, hero draw and encounter
    tiles in the first snapshot are the same."""
    cfg = sim.Config(level="medium", players=4, policy="greedy")
    alt = sim.prepare(overrides=("heroes.jack.courage=12", "heroes.iur.strength=2"))
    deck = slice(L.G_EQ_DECK, L.STATE_SIZE)
    differ = 0
    for g in range(10):
        a = _replay(cfg, 8, g)
        b = _replay(cfg, 8, g, rules=alt)
        np.testing.assert_array_equal(_setup_event(a), _setup_event(b))
        np.testing.assert_array_equal(a.snapshots[0][deck], b.snapshots[0][deck])
        for h in range(4):
            assert a.snapshots[0][L.G_HERO + h * L.HS + L.H_ID] == b.snapshots[0][L.G_HERO + h * L.HS + L.H_ID]
        differ += a.events.shape != b.events.shape or bool((a.events != b.events).any())
    assert differ, "the what-if changed no game at all"


_NOJIT_SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    from mournesim import sim
    from mournesim.replay import replay
    rules = sim.prepare()
    out = {}
    for key, (level, players, policy, first, n) in json.loads(sys.argv[1]).items():
        cfg = sim.Config(level=level, players=players, policy=policy)
        out[key] = sim.run_games(rules, cfg, 77, first, n).tolist()
    rp = replay(seed=77, game=1, level="easy", players=2, policy="random", rules=rules)
    out["replay_events"] = rp.events.tolist()
    out["replay_final"] = rp.final_state.tolist()
    from numba.core import config
    from mournesim.game import run_batch
    out["jit_disabled"] = bool(config.DISABLE_JIT) and not hasattr(run_batch, "py_func")
    print(json.dumps(out))
""")

_NOJIT_CASES = {
    "easy-2-random": ("easy", 2, "random", 0, 3),
    "medium-2-random": ("medium", 2, "random", 5, 2),
    "medium-2-greedy": ("medium", 2, "greedy", 0, 1),
}


def test_pure_python_engine_matches_jitted_engine():
    """The same few games with and without JIT give identical result rows and an
    identical replay event log: a subprocess runs the engine with
    NUMBA_DISABLE_JIT=1 (pure Python; a few small easy/medium two-player games
    keep it well under a minute) and its rows are compared with this process's
    jitted rows."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT, json.dumps(_NOJIT_CASES)],
                          capture_output=True, text=True, env=env, timeout=300, cwd=os.path.dirname(__file__))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    assert got["jit_disabled"] is True
    for key, (level, players, policy, first, n) in _NOJIT_CASES.items():
        want = rows(sim.Config(level=level, players=players, policy=policy), 77, first, n)
        np.testing.assert_array_equal(np.array(got[key], np.int32), want, err_msg=key)
    rp = replay(seed=77, game=1, level="easy", players=2, policy="random", rules=RULES)
    np.testing.assert_array_equal(np.array(got["replay_events"], np.int32).reshape(rp.events.shape), rp.events)
    np.testing.assert_array_equal(np.array(got["replay_final"], np.int32), rp.final_state)
