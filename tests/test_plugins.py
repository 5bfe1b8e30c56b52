"""The policy registry and plug-in policies (issue 3's plug-in path): a policy
written in a user's own file is registered by name, listed by `policies`, and
played through the CLI without editing the package. Each plug-in compiles its
own copy of the engine once (about two minutes), cached for the session."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mournesim import plugins, sim
from mournesim.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "cautious_policy.py"
MOURNESIM = Path(sys.executable).with_name("mournesim")


@pytest.fixture(scope="session")
def plugin_cache(tmp_path_factory):
    """One engine cache directory for every plug-in compiled in this session."""
    d = tmp_path_factory.mktemp("mqcache")
    old = os.environ.get("MOURNESIM_CACHE")
    os.environ["MOURNESIM_CACHE"] = str(d)
    yield d
    if old is None:
        os.environ.pop("MOURNESIM_CACHE", None)
    else:
        os.environ["MOURNESIM_CACHE"] = old


def test_builtins_are_listed_with_their_parameters():
    """`mournesim policies` lists random and greedy with greedy's parameters."""
    res = CliRunner().invoke(main, ["policies"])
    assert res.exit_code == 0, res.output
    assert "random" in res.output and "greedy" in res.output
    assert "risk=0.55" in res.output and "charm_weight=1" in res.output


def test_a_plug_in_is_listed_after_loading_it():
    """--plugin FILE registers the file's policy; `policies` then shows it and
    where it came from."""
    res = CliRunner().invoke(main, ["--plugin", str(EXAMPLE), "policies"])
    assert res.exit_code == 0, res.output
    assert "cautious" in res.output and "risk=0.8" in res.output and str(EXAMPLE) in res.output


def test_plug_in_copy_of_greedy_plays_exactly_the_builtin_games(tmp_path, plugin_cache):
    """A plug-in that just calls the built-in greedy function must play the very
    same games as the built-in greedy policy: the generated engine is a faithful
    copy of the rules, and the policy gets the same random stream."""
    f = tmp_path / "greedy_copy.py"
    f.write_text(textwrap.dedent('''
        from numba import njit
        from mournesim.plugins import register_policy
        from mournesim.policies import greedy

        @njit(cache=True)
        def greedy_copy(s, T, legal, n, rng, pp, h):
            return greedy(s, T, legal, n, rng, pp, h)

        register_policy("greedy_copy", greedy_copy, params={"risk": 0.55, "charm_weight": 1.0})
    '''))
    plugins.load_plugin(str(f))
    rules = sim.prepare()
    a = sim.simulate(games=40, seed=9, level="easy", players=3, policy="greedy", rules=rules)
    b = sim.simulate(games=40, seed=9, level="easy", players=3, policy="greedy_copy", rules=rules)
    cols = [c for c in a.columns if c != "policy"]
    assert a[cols].equals(b[cols])
    rp = sim.replay(seed=9, game=5, level="easy", players=3, policy="greedy_copy", rules=rules)
    assert rp.outcome == a.loc[5, "outcome"]


def test_example_plug_in_runs_through_the_cli(plugin_cache):
    """The README's example: `mournesim --plugin docs/examples/cautious_policy.py
    simulate --policy cautious` runs as a separate process and prints a report;
    its parameters can be set with --params."""
    env = dict(os.environ, MOURNESIM_CACHE=str(plugin_cache))
    out = subprocess.run([str(MOURNESIM), "--plugin", str(EXAMPLE), "simulate", "--policy", "cautious",
                          "--games", "200", "--params", "0.9,1"],
                         capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "policy=cautious" in out.stdout and "win rate" in out.stdout


@pytest.mark.parametrize("args, message", [
    (["simulate", "--policy", "nobody", "--games", "5"], "unknown policy 'nobody'"),
    (["--plugin", "no/such/file.py", "policies"], "no such file"),
    (["--plugin", str(EXAMPLE), "simulate", "--policy", "cautious", "--params", "0.5", "--games", "5"],
     "takes 2 parameter(s)"),
])
def test_bad_policy_input_is_one_line_and_exit_2(args, message):
    """Bad policy input: one clear line on stderr, exit status 2, no traceback."""
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_a_plain_python_function_is_refused(tmp_path):
    """A policy must be a numba function; registering a plain one is refused
    with a clear message (not a numba crash later)."""
    f = tmp_path / "plain.py"
    f.write_text("from mournesim.plugins import register_policy\n"
                 "def p(s, T, legal, n, rng, pp, h):\n    return legal[0]\n"
                 "register_policy('plain', p)\n")
    res = CliRunner().invoke(main, ["--plugin", str(f), "policies"])
    assert res.exit_code == 2
    assert "must be decorated with numba's @njit" in res.output


def test_builtin_policies_only_ever_pick_legal_choices():
    """Every built-in policy, on every level and player count, returns only
    choices from the engine's legal list (the engine counts any other choice in
    the result column illegal_choices)."""
    rules = sim.prepare()
    for policy in ("random", "greedy", "planner"):
        for level in ("easy", "medium", "hard"):
            for players in (1, 2, 3, 4):
                df = sim.simulate(games=60, seed=17, level=level, players=players, policy=policy, rules=rules)
                assert (df["illegal_choices"] == 0).all(), (policy, level, players)


def test_an_illegal_plug_in_choice_is_reported(tmp_path, plugin_cache):
    """A plug-in that returns a code outside the legal list is caught: the
    engine plays the first legal choice instead, and the run stops with one
    clear error naming the policy."""
    f = tmp_path / "cheat.py"
    f.write_text(textwrap.dedent('''
        from numba import njit
        from mournesim.plugins import register_policy

        @njit(cache=True)
        def cheat(s, T, legal, n, rng, pp, h):
            return legal[0] + 1000000

        register_policy("cheat", cheat)
    '''))
    plugins.load_plugin(str(f))
    from simcore.errors import InputError
    with pytest.raises(InputError, match="policy cheat: returned an action that was not legal"):
        sim.simulate(games=3, seed=1, level="easy", players=2, policy="cheat")


def test_policy_parameters_change_behaviour():
    """A policy's parameters change how it plays: greedy with risk 0.95 (attack
    only at near-certain odds) fights fewer combats than with risk 0.2."""
    rules = sim.prepare()
    bold = sim.simulate(games=300, seed=4, level="medium", players=4, policy="greedy", params=(0.2, 1.0), rules=rules)
    shy = sim.simulate(games=300, seed=4, level="medium", players=4, policy="greedy", params=(0.95, 1.0), rules=rules)
    assert bold["combats"].mean() > shy["combats"].mean()
