"""The contracts every game keeps (shared/design.md: determinism, result rows,
replay, bad input), checked once for both games through a small adapter
each. A third game joins by adding its adapter to ``GAMES``; the per-game
details stay in the per-game test files.

- the same ``(seed, games, configuration)`` gives identical result rows;
- game ``i`` is the same game whatever batch it is played in;
- a replay of game ``i`` rebuilds row ``i`` exactly from its final state;
- a bad command line is one line on stderr and exit status 2.
"""
from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

EXE = Path(sys.executable).parent


@dataclass
class Adapter:
    """What the contracts need of one game."""
    prog: str
    layout: object
    rows: object          # (seed, first, n) -> int32 result rows
    replay_row: object    # (seed, i) -> the result row rebuilt from game i's replay
    bad_args: tuple       # command lines that must be refused with exit status 2


def _mournequest():
    from mournesim import layout, sim
    from mournesim.game import result_row
    rules = sim.prepare()
    cfg = sim.Config(level="easy", players=3, policy="greedy")

    def replay_row(seed, i):
        rp = sim.replay(seed=seed, game=i, level=cfg.level, players=cfg.players, policy=cfg.policy, rules=rules)
        out = np.zeros(layout.NRES, np.int32)
        result_row(rp.final_state, rules.T, out)
        return out
    return Adapter("mournesim", layout, lambda seed, first, n: sim.run_games(rules, cfg, seed, first, n), replay_row,
                   (("simulate", "--games", "0"), ("simulate", "--players", "5"), ("simulate", "--policy", "nobody"),
                    ("simulate", "--set", "heroes.nobody.courage=3"), ("replay", "--game", "-1")))


def _questmaster():
    from questsim import layout, sim
    from questsim.engine import result_row
    from questsim.replay import replay
    rules = sim.prepare()
    cfg = sim.Config(players=3, policies=("planner", "greedy", "random"))

    def replay_row(seed, i):
        rp = replay(seed=seed, game=i, players=cfg.players, policies=cfg.policies, rules=rules)
        out = np.zeros(layout.NRES, np.int32)
        result_row(rp.final_state, rules.T, out)
        return out
    return Adapter("questsim", layout, lambda seed, first, n: sim.run_games(rules, cfg, seed, first, n), replay_row,
                   (("simulate", "--games", "0"), ("simulate", "--players", "7"), ("simulate", "--policy", "nobody"),
                    ("simulate", "--set", "characters.nobody.hp=3"), ("replay", "--game", "-1")))


GAMES = {"mournesim": _mournequest, "questsim": _questmaster}
_MADE = {}


@pytest.fixture(params=sorted(GAMES))
def game(request):
    if request.param not in _MADE:
        _MADE[request.param] = GAMES[request.param]()
    return _MADE[request.param]


def test_same_seed_gives_identical_rows_and_other_seeds_other_games(game):
    a = game.rows(7, 0, 40)
    np.testing.assert_array_equal(a, game.rows(7, 0, 40))
    b = game.rows(8, 0, 40)
    assert (a != b).any(axis=1).sum() >= 20, "seed 7 and seed 8 play mostly the same games"
    assert len({tuple(r) for r in a}) >= 20, "the games of one run repeat each other"


def test_game_i_is_the_same_in_any_batch(game):
    whole = game.rows(31337, 0, 30)
    parts = np.concatenate([game.rows(31337, f, n) for f, n in ((0, 7), (7, 1), (8, 15), (23, 7))])
    np.testing.assert_array_equal(parts, whole)
    for i in (29, 11, 0):
        np.testing.assert_array_equal(game.rows(31337, i, 1)[0], whole[i])
    assert whole.shape == (30, game.layout.NRES)
    assert game.rows(31337, 3, 0).shape == (0, game.layout.NRES)


def test_replay_rebuilds_the_batch_row(game):
    batch = game.rows(99, 0, 6)
    for i in range(6):
        np.testing.assert_array_equal(game.replay_row(99, i), batch[i], err_msg=f"{game.prog} game {i}")


@pytest.mark.parametrize("k", range(5))
def test_bad_command_lines_are_one_line_and_exit_2(game, k):
    args = game.bad_args[k]
    r = subprocess.run([str(EXE / game.prog), *args], capture_output=True, text=True)
    assert r.returncode == 2, (args, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
