"""The contracts every game keeps (shared/design.md: determinism, result rows,
replay, bad input), checked once for every installed game through its
``simcore.game.Game`` (as pgx's ``api_test`` runs over every ``Env``). A
third game registered under the entry-point group ``simcore.games`` is
checked here without a line of this file changing; the per-game details stay
in the per-game test files.

- the same ``(seed, games, configuration)`` gives identical result rows;
- game ``i`` is the same game whatever batch it is played in;
- a replay of game ``i`` rebuilds row ``i`` exactly from its final state;
- a grid gives the same rows on one worker or two, in any batch size, on a
  local Dask cluster, and resumed after lost batches;
- every built-in policy makes only legal choices, at every player count;
- a bad command line is one line on stderr and exit status 2;
- the game supplies every part simcore names, its declared metadata, and
  its registry and result columns are whole.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcore import game as games, store
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
    lo, hi = g.players
    assert 1 <= lo <= hi and g.sample_config().players in range(lo, hi + 1)
    assert g.key and g.title and g.package == g.parts["sim"].split(".")[0] and g.default_batch >= 1
    L = g.module("layout")
    code = getattr(L.code, "py_func", L.code)
    assert g.state_size == L.STATE_SIZE > 0 and g.event_width == L.EV_COLS >= 4
    ops = max(getattr(L, "OP_NAMES", None) or range(len(L.ACTION_NAMES)))
    base = code(1, 0) - code(0, 0)
    assert code(ops, base - 1) == g.action_space - 1      # the last op's last argument is the last code
    assert g.longest_game >= 50


def test_a_replay_has_the_declared_shapes(game):
    """A replayed game's state and event records have the declared widths,
    and no record is logged after the longest game's last round."""
    g = game.g
    cfg = g.sample_config()
    rp = g.replay_cell(g.prepare(), cfg, 5, 2)
    assert rp.final_state.shape == (g.state_size,)
    assert rp.events.shape[1] == g.event_width and len(rp.events)
    assert 0 <= int(rp.events[:, 1].max()) <= g.longest_game


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


# ---- grids: workers, batch sizes, Dask and resume give the same rows ----------

def _grid(game):
    """A small grid of the game: its fewest and most players, random and greedy."""
    lo, hi = game.g.players
    return dict(games=48, seed=11, **game.g.grid_axes((lo, hi), ("random", "greedy")))


def _sorted(df):
    """Rows in one order whatever order the batches came back in."""
    return df.sort_values(list(df.columns), ignore_index=True)


@pytest.fixture(scope="module")
def reference_grids():
    """Each game's small grid played in this process, one batch per cell."""
    return {}


def _reference(game, made):
    if game.prog not in made:
        made[game.prog] = game.g.module("batch").run_grid(**_grid(game), workers=1, batch=1000)[0]
    return made[game.prog]


def test_workers_and_batch_size_do_not_change_games(game, reference_grids):
    """Two worker processes with batches of 7 play exactly the games one
    process plays in one batch per cell."""
    two, _ = game.g.module("batch").run_grid(**_grid(game), workers=2, batch=7)
    pd.testing.assert_frame_equal(_sorted(two), _sorted(_reference(game, reference_grids)), check_categorical=False)


def test_dask_local_cluster_gives_identical_rows(game, reference_grids, tmp_path):
    """The same grid on a local Dask cluster, written to disk, gives the
    same rows."""
    pytest.importorskip("distributed")
    _, cells = game.g.module("batch").run_grid(**_grid(game), workers=2, batch=20, cluster="local",
                                               out=tmp_path / "d")
    got = store.read_dataset(tmp_path / "d")
    pd.testing.assert_frame_equal(_sorted(got), _sorted(_reference(game, reference_grids)), check_categorical=False)
    assert {n for _l, n, _w in cells} == {48}


def test_resume_after_lost_batches_gives_identical_rows(game, reference_grids, tmp_path):
    """Batches missing from an unfinished run (as after an interruption) are
    played on resume, the batches kept are not written again, and the
    dataset equals the uninterrupted run."""
    grid, out = game.g.module("batch"), tmp_path / "r"
    grid.run_grid(**_grid(game), workers=1, batch=16, out=out)
    parts = sorted(store.parts(out).values())
    for p in parts[::3]:
        p.unlink()
    run = store.read_run(out)
    run.pop("complete")
    store.write_run(out, run)
    before = {p.name: p.stat().st_mtime_ns for p in store.parts(out).values()}
    grid.resume(out, workers=2)
    after = store.parts(out)
    assert len(after) == len(parts)
    assert all(after[k].stat().st_mtime_ns == before[after[k].name] for k in after if after[k].name in before)
    got = store.read_dataset(out)
    pd.testing.assert_frame_equal(_sorted(got), _sorted(_reference(game, reference_grids)), check_categorical=False)
    assert store.read_run(out)["complete"]


def test_every_builtin_policy_makes_only_legal_choices(game):
    """Every built-in policy of the game, in every seat, at every player
    count (and every MourneQuest level): the engine counts no choice outside
    the legal list it offered (result column illegal_choices)."""
    lo, hi = game.g.players
    builtins = tuple(p.name for p in game.g.registry.policies() if p.builtin_id >= 0)
    df, cells = game.g.module("batch").run_grid(games=60, seed=17, **game.g.grid_axes(range(lo, hi + 1), builtins),
                                                workers=1)
    assert len(cells) >= len(builtins) * (hi - lo + 1) and len(df) == 60 * len(cells)
    bad = df[df["illegal_choices"] != 0]
    assert bad.empty, bad.head()
    assert df["rounds"].between(1, game.g.longest_game).all()
