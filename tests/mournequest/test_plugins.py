"""The policy registry and plug-in policies (the plug-in path): a policy
written in a user's own file is registered by name, listed by `policies`, and
played through the CLI without editing the package. Each plug-in compiles its
entry point once (seconds), cached for the session."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mournesim import plugins, sim
from mournesim.cli import main
from mournesim.replay import replay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "mournequest" / "examples" / "cautious_policy.py"
MOURNESIM = Path(sys.executable).with_name("mournesim")


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


def test_plug_in_copy_of_greedy_plays_exactly_the_builtin_games(faulty_plugin):
    """A plug-in that just calls the built-in greedy function must play the very
    same games as the built-in greedy policy: called through its address it
    sees the same state and the same random stream. (The
    plug-in, tests/mournequest/conftest.py, can also misbehave on request; fault 0 is
    plain greedy, which never reads the fifth parameter.)"""
    plugins.load_plugin(str(faulty_plugin))
    rules = sim.prepare()
    a = sim.simulate(games=40, seed=9, level="easy", players=3, policy="greedy", rules=rules)
    b = sim.simulate(games=40, seed=9, level="easy", players=3, policy="greedy_copy", rules=rules)
    cols = [c for c in a.columns if c != "policy"]
    assert a[cols].equals(b[cols])
    rp = replay(seed=9, game=5, level="easy", players=3, policy="greedy_copy", rules=rules)
    assert rp.outcome == a.loc[5, "outcome"]


def test_example_plug_in_runs_through_the_cli(plugin_cache):
    """The README's example: `mournesim --plugin docs/mournequest/examples/cautious_policy.py
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


def test_an_illegal_plug_in_choice_is_reported(faulty_plugin):
    """A plug-in that returns a code outside the legal list is caught: the
    engine plays the first legal choice instead, and the run stops with one
    clear error naming the policy."""
    plugins.load_plugin(str(faulty_plugin))
    from simcore.errors import InputError
    with pytest.raises(InputError, match="policy greedy_copy: returned an action that was not legal"):
        sim.simulate(games=3, seed=1, level="easy", players=2, policy="greedy_copy", params=(0.55, 1, 1, 1, 1))


def test_policy_parameters_change_behaviour():
    """A policy's parameters change how it plays: greedy with risk 0.95 (attack
    only at near-certain odds) fights fewer combats than with risk 0.2."""
    rules = sim.prepare()
    bold = sim.simulate(games=300, seed=4, level="medium", players=4, policy="greedy", params=(0.2, 1.0, 1.0, 1.0),
                        rules=rules)
    shy = sim.simulate(games=300, seed=4, level="medium", players=4, policy="greedy", params=(0.95, 1.0, 1.0, 1.0),
                       rules=rules)
    assert bold["combats"].mean() > shy["combats"].mean()


# ---- plug-ins inside the contract (bad input) ----------------------------------------

@pytest.mark.parametrize("body, message", [
    ("import sys\nsys.exit(0)\n", "called sys.exit(0) while loading"),
    ("raise SystemExit('bye')\n", "called sys.exit('bye')"),
    ("import no_such_module_here\n", "cannot import"),
    ("x = 1 / 0\n", "ZeroDivisionError"),
])
def test_loading_a_plug_in_cannot_end_the_process(tmp_path, body, message):
    """Whatever a plug-in does while it loads — sys.exit, raise, import what
    is missing — is one line and exit 2: simulate never ends silently."""
    f = tmp_path / "bad_plugin.py"
    f.write_text(body)
    res = CliRunner().invoke(main, ["--plugin", str(f), "simulate", "--games", "2"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mournesim: error: --plugin") and message in lines[0], lines


@pytest.mark.parametrize("fault, message", [(1, "returned an action that was not legal"),
                                            (2, "policy greedy_copy failed while playing: it raised an exception")])
@pytest.mark.parametrize("command", [["replay", "--players", "2", "--level", "easy"],
                                     ["simulate", "--games", "3", "--players", "2", "--workers", "1", "--quiet"]])
def test_a_misbehaving_policy_is_one_line_in_every_command(faulty_plugin, fault, message, command):
    """An illegal choice is an error in ``replay`` as in ``simulate`` (never
    a game shown as if it were legal); an exception raised inside a policy
    is one line naming the policy."""
    res = CliRunner().invoke(main, ["--plugin", str(faulty_plugin), *command, "--policy", "greedy_copy",
                                    "--params", f"0.55,1,1,1,{fault}"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mournesim: error: ") and message in lines[0], lines
    assert "Traceback" not in res.output


@pytest.mark.parametrize("command, said", [
    (["simulate", "--games", "4", "--workers", "1", "--quiet"],
     "mournesim: interrupted: nothing kept (use --out DIR to keep finished batches)"),
    (["replay"], "mournesim: interrupted")])
def test_ctrl_c_stops_a_policy_that_never_returns(faulty_plugin, plugin_cache, command, said):
    """A plug-in policy stuck in an endless loop, in ``simulate --workers 1``
    and in ``replay``: Ctrl-C stops it within a few seconds (exit 130, one
    line), and no process of the command is left behind."""
    import psutil
    env = dict(os.environ, MOURNESIM_CACHE=str(plugin_cache))
    env.pop("NUMBA_DISABLE_JIT", None)
    p = subprocess.Popen([str(MOURNESIM), "--plugin", str(faulty_plugin), *command, "--policy", "greedy_copy",
                          "--params", "0.55,1,1,1,3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    family = []
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        family = psutil.Process(p.pid).children(recursive=True)
        busy = [c for c in family if c.cpu_times().user > 5]     # the worker is deep in the loop
        if busy:
            break
        time.sleep(0.5)
    assert p.poll() is None, p.communicate()
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert time.time() - t0 < 5 and p.returncode == 130, (time.time() - t0, p.returncode, err)
    assert err.strip().splitlines() == [said]
    time.sleep(2)
    assert not [c.pid for c in family if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_greedy_and_the_planner_are_called_through_their_entry_points():
    """The engine holds no policy but random and first: greedy's and the
    planner's ``pp`` end with the address of their own entry point
    (mournesim/entries.py), random's is its parameters alone, and rollout's
    holds its parameters, its memory, the planner's entry point (which its
    copies of the game call) and last its own."""
    from mournesim import entries, rollout
    from mournesim.policies import POLICY_GREEDY, POLICY_PLANNER
    greedy = sim.Config(policy="greedy").resolved(sim.prepare())[3]
    assert list(greedy[:-1]) == list(plugins.get("greedy").defaults)
    assert greedy[-1] == entries.address(POLICY_GREEDY) != 0
    planner = sim.Config(policy="planner").resolved(sim.prepare())[3]
    assert planner[-1] == entries.address(POLICY_PLANNER) != greedy[-1]
    assert len(sim.Config(policy="random").resolved(sim.prepare())[3]) == 0
    search = sim.Config(policy="rollout").resolved(sim.prepare())[3]
    assert len(search) == rollout.BASE + rollout.SCRATCH + 2
    assert search[-2] == planner[-1]
    assert search[-1] == plugins.REGISTRY.address(plugins.get("rollout"))


def test_an_entry_point_gives_the_policy_its_parameters_only():
    """Called through its entry point, greedy answers every decision of a
    game as the kernel itself does when given the parameters alone: the entry
    point's address at the end of ``pp`` never reaches the policy."""
    import numpy as np
    from mournesim import decision, layout as L, policies
    from mournesim.policies import POLICY_GREEDY
    rules_ = sim.prepare()
    rp = replay(seed=4, game=2, players=4, policy="greedy", rules=rules_)
    pp = sim.Config(policy="greedy").resolved(rules_)[3]
    params = pp[:-1].copy()
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    from mournesim import rules as R
    import simcore.rng as rng_
    asked = 0
    for snap in rp.snapshots:
        s = snap.copy()
        s[L.G_POLICY] = POLICY_GREEDY
        h = int(s[L.G_CUR])
        n = R.legal_turn(s, rules_.T, h, legal)
        if n < 2:
            continue
        rng = np.zeros(rng_.N_STREAMS * 4, np.uint64)
        rng_.seed_streams(np.uint64(asked), 0, rng)
        a = decision._decide(s.copy(), rules_.T, legal, np.int64(n), rng.copy(), pp, np.int64(h))
        b = policies.greedy(s.copy(), rules_.T, legal, np.int64(n), rng.copy(), params, np.int64(h))
        assert a == b
        asked += 1
    assert asked >= 20


def test_a_plug_in_can_use_only_a_policy_with_an_entry_point():
    """``uses`` names built-in policies whose entry points a plug-in's copies
    call: random has none, which is one line before any game."""
    from simcore.errors import InputError
    from mournesim import rollout
    plugins.register_policy("uses_random", rollout.choose, {"x": 1.0}, uses=("random",))
    try:
        with pytest.raises(InputError, match="uses random, which has no entry point"):
            sim.Config(policy="uses_random").resolved(sim.prepare())
    finally:
        del plugins.REGISTRY._infos["uses_random"]


def test_a_plug_in_run_records_its_parameters_and_resumes(plugin_cache, tmp_path):
    """A grid run of a plug-in stores the plug-in's parameters, not its
    memory or its entry point's address (which differs from process to
    process), so `--resume` rebuilds the same cells and finds nothing to play."""
    import json
    env = dict(os.environ, MOURNESIM_CACHE=str(plugin_cache))
    out = tmp_path / "run"
    base = [str(MOURNESIM), "--plugin", str(EXAMPLE), "simulate"]
    first = subprocess.run(base + ["--policy", "cautious", "--games", "100", "--out", str(out)],
                           capture_output=True, text=True, env=env, timeout=900)
    assert first.returncode == 0, first.stderr
    meta = json.loads((out / "_run.json").read_text())
    assert [c["params"] for c in meta["cells"]] == [[0.8, 1.0]]
    again = subprocess.run(base + ["--resume", str(out)], capture_output=True, text=True, env=env, timeout=900)
    assert again.returncode == 0, again.stderr
    assert "100 of its 100 games kept from before" in again.stdout
