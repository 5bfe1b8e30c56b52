"""The contracts every game keeps (shared/design.md: determinism, result rows,
replay, bad input), checked once for every installed game through its
``simcore.game.Game`` (as pgx's ``api_test`` runs over every ``Env``). A
third game registered under the entry-point group ``simcore.games`` is
checked here without a line of this file changing; the per-game details stay
in the per-game test files.

- the same ``(seed, games, configuration)`` gives identical result rows;
- game ``i`` is the same game whatever batch it is played in;
- a replay of game ``i`` rebuilds row ``i`` exactly from its final state;
- a bad command line is one line on stderr and exit status 2;
- the game supplies every part simcore names, and its registry and result
  columns are whole.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simcore import game as games
from simcore.game import PARTS

EXE = Path(sys.executable).parent
# bad command lines every game's command must refuse with exit status 2
BAD_ARGS = (("simulate", "--games", "0"), ("simulate", "--players", "99"), ("simulate", "--policy", "nobody"),
            ("simulate", "--set", "nobody.nothing=3"), ("replay", "--game", "-1"))


class Played:
    """A game with its published rules and sample configuration, ready to play."""

    def __init__(self, g):
        self.g, self.prog = g, g.package
        self.layout = g.module("layout")
        self.sim = g.module("sim")
        self.rules = self.sim.prepare()
        self.cfg = g.sample_config()

    def rows(self, seed, first, n):
        return self.sim.run_games(self.rules, self.cfg, seed, first, n)

    def replay_row(self, seed, i):
        rp = self.g.replay_cell(self.rules, self.cfg, seed, i)
        out = np.zeros(self.layout.NRES, np.int32)
        self.g.module("engine").result_row(rp.final_state, self.rules.T, out)
        return out


_MADE = {}


@pytest.fixture(params=sorted(games.games()))
def game(request):
    if request.param not in _MADE:
        _MADE[request.param] = Played(games.get(request.param))
    return _MADE[request.param]


def test_the_installed_games_are_both_games():
    assert sorted(games.games()) == ["mournequest", "questmaster"]
    with pytest.raises(Exception, match="unknown game 'chess'"):
        games.get("chess")


@pytest.mark.parametrize("key", sorted(games.games()))
def test_a_game_supplies_every_part_and_a_whole_registry(key):
    g = games.get(key)
    assert set(g.parts) == set(PARTS), f"{key}: parts differ from simcore.game.PARTS"
    for part, mod in g.parts.items():
        assert importlib.util.find_spec(mod) is not None, f"{key}: part {part} names a missing module {mod}"
    assert len(g.result_columns) == g.module("layout").NRES
    infos = g.registry.policies()
    assert any(p.builtin_id >= 0 for p in infos) and {"rollout", "expert"} <= {p.name for p in infos}
    for p in infos:   # every parameter of a built-in has a valid range holding its default
        assert len(p.param_names) == len(p.defaults) and set(p.ranges) <= set(p.param_names)
        for name, d in zip(p.param_names, p.defaults):
            if p.builtin_id >= 0 or p.name in ("rollout", "expert"):
                lo, hi = p.ranges[name]
                assert lo <= d <= hi, (key, p.name, name)
    assert g.behaviour_version >= 1


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
    args = BAD_ARGS[k]
    r = subprocess.run([str(EXE / game.prog), *args], capture_output=True, text=True)
    assert r.returncode == 2, (args, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
