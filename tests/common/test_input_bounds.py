"""Every input bounded and classified: a file, a value or a plug-in the
tools cannot use is one line naming it and exit status 2, never "internal
error", a traceback, a hang or memory running out.

One section per family:

1. nesting — a ruleset, an experiment file, a ``--set`` value or a run's
   ``_run.json`` nested deeper than simcore.inputs.MAX_DEPTH (64): refused
   naming the file, whether Python's parsers could read it or would recurse
   past their limit;
2. not a file — ``/dev/zero``, a FIFO, a directory, a file past its size
   limit, random bytes, as ``--ruleset``, ``rules check``, an experiment
   file and ``--plugin``: refused before reading (a FIFO never blocks);
3. plug-in mistakes — the wrong signature, the wrong return type, code
   numba cannot compile, working memory of 10^12 slots, a reserved or
   unusable name: one line naming the policy;
4. plug-in output — what a plug-in prints during ``replay --format jsonl``
   goes to standard error; every line of standard output is JSON;
5. standard output closed (``>&-``) or a closed pipe: one line, exit 2.

Plug-ins that must compile (families 3 and 4) compile into the session's
plug-in cache (tests/conftest.py), a few seconds each.
"""
from __future__ import annotations

import faulthandler
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from simcore import inputs
from simcore.errors import InputError

from .test_faults import BIN, MAINS, cli, env, refused, sub_refused

DEPTH = inputs.MAX_DEPTH


@pytest.fixture(autouse=True)
def watchdog():
    """A FIFO read without a writer blocks for ever: fail loudly instead."""
    faulthandler.dump_traceback_later(300, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def bounded_memory():
    """At most 2 GiB more address space while the test runs: reading
    /dev/zero to its end is a MemoryError (the test fails), not the machine
    running out of memory."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = used + (2 << 30)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    yield
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def nested(kind, depth):
    """A TOML value (right-hand side) nested ``depth`` levels deep."""
    if kind == "array":
        return "[" * depth + "1" + "]" * depth
    return "{a = " * depth + "1" + "}" * depth


def ruleset_with(tmp_path, text, name="rules.toml"):
    f = tmp_path / name
    f.write_text(text)
    return f


# --------------------------------------------------------------- 1. nesting --

@pytest.mark.parametrize("kind", ["array", "table"])
@pytest.mark.parametrize("depth", [DEPTH + 1, 200, 5000])
def test_a_deeply_nested_ruleset_is_one_line_naming_the_file(tmp_path, kind, depth):
    """Nesting past the limit, within what tomllib parses (65, 200) and far
    past it (5000 levels: a RecursionError inside the parser): one line."""
    f = ruleset_with(tmp_path, f"x = {nested(kind, depth)}\n")
    for prog in MAINS:
        refused(cli(prog, "rules", "check", f), prog, str(f), "nested more than 64 levels")
        refused(cli(prog, "simulate", "--games", 2, "--ruleset", f), prog, str(f), "nested more than 64")


def test_dotted_keys_nest_too(tmp_path):
    """``[a.b.c....]`` nests without recursion in the parser; the depth is
    still checked before anything copies or validates it."""
    f = ruleset_with(tmp_path, "[" + ".".join(["k"] * 3000) + "]\nx = 1\n")
    refused(cli("mournesim", "rules", "check", f), "mournesim", str(f), "nested more than 64")


def test_the_depth_limit_is_exact():
    """Depth counts every table and array, the file's own table included:
    64 levels pass the check, 65 do not."""
    assert inputs.parse_toml(f"x = {nested('array', DEPTH - 1)}", "f")["x"]
    with pytest.raises(InputError, match="nested more than 64"):
        inputs.parse_toml(f"x = {nested('array', DEPTH)}", "f")


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(1, 3000), kind=st.sampled_from(["array", "table"]))
def test_any_nesting_is_one_verdict(tmp_path, depth, kind):
    """Any depth of a value in an otherwise valid ruleset: refused, one
    line each, and 'nested' exactly when it is past the limit."""
    from mournesim.ruleset import default_ruleset_text
    f = ruleset_with(tmp_path, default_ruleset_text() + f"\n[extra]\nx = {nested(kind, depth)}\n", "deep.toml")
    res = cli("mournesim", "rules", "check", f)
    got = refused(res, "mournesim", str(f), lines=None)
    if depth + 2 > DEPTH:      # the file's table, [extra], then the value's levels
        assert len(got) == 1 and "nested more than 64" in got[0], got
    else:
        assert not any("nested" in x for x in got), got


def test_a_deeply_nested_experiment_file_is_one_line(tmp_path):
    for depth in (DEPTH + 1, 5000):
        f = tmp_path / f"exp{depth}.toml"
        f.write_text(f'title = "x"\ngame = "mournequest"\nx = {nested("array", depth)}\n')
        for prog in MAINS:
            refused(cli(prog, "experiment", f), prog, str(f), "nested more than 64")


@pytest.mark.parametrize("depth", [DEPTH + 1, 5000])
def test_a_deeply_nested_set_value_is_one_line(depth):
    for prog in MAINS:
        refused(cli(prog, "rules", "show", "--set", f"meta.rules_version={nested('array', depth)}"), prog,
                "--set meta.rules_version", "nested more than 64")


def test_numbers_python_will_not_convert_are_one_line(tmp_path):
    """An integer of more digits than Python converts (4300), in a file and
    in --set: one line, not a ValueError."""
    big = "1" + "0" * 5000
    f = ruleset_with(tmp_path, f"x = {big}\n")
    for prog in MAINS:
        refused(cli(prog, "rules", "check", f), prog, str(f), "more than 4300 digits")
        refused(cli(prog, "rules", "show", "--set", f"meta.rules_version={big}"), prog, "--set", "4300 digits")


@pytest.mark.parametrize("text", ["[" * 100 + "]" * 100, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_a_deeply_nested_run_description_is_one_line(tmp_path, text):
    """A ``_run.json`` nested past the limit (100 levels: json parses it;
    100,000: json's own recursion limit): report and --resume, one line."""
    d = tmp_path / "run"
    d.mkdir()
    (d / "_run.json").write_text(text)
    for args in (["report", d], ["simulate", "--resume", d]):
        refused(cli("mournesim", *args), "mournesim", str(d / "_run.json"), "nested more than 64")


def test_an_oversized_run_description_is_one_line(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    with open(d / "_run.json", "wb") as f:
        f.truncate(inputs.MAX_RUN_BYTES + 1)        # sparse: no disk used
    refused(cli("mournesim", "report", d), "mournesim", str(d / "_run.json"), "too large", "64.0 MiB")


# ------------------------------------------------------------ 2. not a file --

@pytest.fixture
def not_files(tmp_path):
    """Paths that are not a usable file: a device that never ends, a FIFO
    no one writes (reading it would block forever), a file past the limit."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.write(b"# ruleset\n")
        f.truncate(inputs.MAX_TOML_BYTES + 1)
    return {"/dev/zero": ("/dev/zero", "character device"), "fifo": (fifo, "FIFO"), "big": (big, "too large")}


@pytest.mark.parametrize("which", ["/dev/zero", "fifo", "big"])
def test_a_device_fifo_or_oversized_file_is_one_line(not_files, bounded_memory, which):
    path, said = not_files[which]
    for prog in MAINS:
        refused(cli(prog, "rules", "check", path), prog, str(path), said)
        refused(cli(prog, "rules", "show", "--ruleset", path), prog, str(path), said)
        refused(cli(prog, "simulate", "--games", 2, "--ruleset", path), prog, str(path), said)
        refused(cli(prog, "experiment", path), prog, str(path), said)
    refused(cli("mournesim", "--plugin", path, "policies"), "mournesim", "--plugin", str(path),
            "not a Python file" if which == "big" else said)


def test_an_oversized_plug_in_file_is_one_line(tmp_path):
    f = tmp_path / "huge_policy.py"
    with open(f, "wb") as out:
        out.truncate(inputs.MAX_PLUGIN_BYTES + 1)     # sparse
    refused(cli("mournesim", "--plugin", f, "policies"), "mournesim", "--plugin", str(f), "too large", "16.0 MiB")


def test_a_directory_is_one_line(tmp_path):
    for prog in MAINS:
        refused(cli(prog, "rules", "check", tmp_path), prog, "is a directory")
        refused(cli(prog, "simulate", "--games", 2, "--ruleset", tmp_path), prog, "is a directory")
        refused(cli(prog, "experiment", tmp_path), prog, "is a directory")
    refused(cli("mournesim", "--plugin", tmp_path, "policies"), "mournesim", "--plugin", "is a directory")
    # a ruleset named inside an experiment file is read the same way
    exp = tmp_path / "exp.toml"
    exp.write_text(f'title = "x"\ngame = "mournequest"\n[base]\nruleset = "{tmp_path}"\n'
                   '[[variant]]\nname = "a"\nset = ["rules.starting_dice=2"]\n')
    refused(cli("mournesim", "experiment", exp, "--games", 2, "--workers", 1), "mournesim", str(tmp_path),
            "is a directory")


def test_a_device_in_plugin_path_variable_is_one_line(monkeypatch):
    """``$MOURNESIM_PLUGINS`` is read like ``--plugin``."""
    from mournesim import plugins
    monkeypatch.setattr(plugins.REGISTRY, "_loaded", False)
    monkeypatch.setenv("MOURNESIM_PLUGINS", "/dev/zero")
    refused(CliRunner().invoke(MAINS["mournesim"], ["policies"]), "mournesim", "/dev/zero", "character device")


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(min_size=1, max_size=400))
def test_random_bytes_as_a_ruleset_are_refused(tmp_path, data):
    """Any bytes as a ruleset: exit 2, every line ``mournesim: error:
    FILE: ...``; bytes that are not TOML give exactly one line."""
    f = tmp_path / "garbage.toml"
    f.write_bytes(data)
    got = refused(cli("mournesim", "rules", "check", f), "mournesim", lines=None)
    assert all(x.startswith(f"mournesim: error: {f}: ") for x in got), got
    try:
        import tomllib
        tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        assert len(got) == 1, got


# ------------------------------------------------------- 3. plug-in mistakes --

PLUGIN = '''from numba import njit
from {game}.plugins import register_policy


@njit(cache=True)
def decide({args}):
    {body}


register_policy({name!r}, decide{extra})
'''
MQ_ARGS = "s, T, legal, n, rng, pp, h"
QM_ARGS = "s, T, legal, n, rng, pp, seat"


def plugin(tmp_path, name, args=MQ_ARGS, body="return legal[0]", extra="", game="mournesim"):
    f = tmp_path / f"{game}_{name}_{abs(hash((args, body, extra))) % 10 ** 8}.py"
    f.write_text(PLUGIN.format(game=game, args=args, body=body, name=name, extra=extra))
    return f


@pytest.fixture
def registry_restored():
    """The registries as they were: a test's plug-ins are forgotten."""
    from mournesim import plugins as mq
    from questsim import plugins as qm
    before = {r: dict(r._infos) for r in (mq.REGISTRY, qm.REGISTRY)}
    yield
    for r, infos in before.items():
        r._infos.clear()
        r._infos.update(infos)


@pytest.mark.parametrize("game, args, said", [
    ("mournesim", "s, T, legal", "must take (s, T, legal, n, rng, pp, h) and return an int; decide takes (s, T, legal)"),
    ("questsim", "s, T, legal, n, rng, pp, seat, extra",
     "must take (s, T, legal, n, rng, pp, seat) and return an int"),
])
def test_a_plug_in_with_the_wrong_signature_is_one_line(tmp_path, registry_restored, game, args, said):
    """Refused when it registers, before any compile or game."""
    f = plugin(tmp_path, "mine", args=args, game=game)
    res = CliRunner().invoke(MAINS[game], ["--plugin", str(f), "replay", "--policy", "mine"])
    refused(res, game, "plug-in policy 'mine'", said)


@pytest.mark.parametrize("extra, said", [
    (", scratch=10 ** 12", "scratch=1000000000000: working memory is a whole number of slots from 0 to 1,048,576"),
    (", scratch=-1", "scratch=-1"),
    (", batch=10 ** 12", "batch=1000000000000"),
    (", params={'x': 'many'}", "params must map parameter names to numbers"),
    (", params={f'p{i}': 0.0 for i in range(100)}", "100 parameters, more than the 64"),
    (", uses=('nobody',)", "uses 'nobody', which is not a built-in policy"),
])
def test_a_plug_in_asking_too_much_is_one_line(tmp_path, registry_restored, extra, said):
    """10^12 slots of working memory (8 TB) used to be tried (MemoryError);
    every request is bounded when the policy registers."""
    f = plugin(tmp_path, "greedy_big", extra=extra)
    refused(cli("mournesim", "--plugin", f, "simulate", "--games", 2, "--policy", "greedy_big"), "mournesim",
            "--plugin", "plug-in policy 'greedy_big'", said)


@pytest.mark.parametrize("name, said", [("all", "is reserved"), ("greedy", "is a built-in policy"),
                                        ("rollout", "shipped with mournesim"), ("Mine", "lower-case"),
                                        ("x" * 65, "at most 64 characters")])
def test_a_reserved_or_unusable_policy_name_is_one_line(tmp_path, registry_restored, name, said):
    f = plugin(tmp_path, name)
    refused(cli("mournesim", "--plugin", f, "policies"), "mournesim", "--plugin", repr(name), said)


def test_a_plug_in_returning_an_array_is_one_line_naming_it(tmp_path, registry_restored):
    """The whole path: replay plays a plug-in in a child process, where it
    compiles; numba's typing error comes back as one line naming it."""
    f = plugin(tmp_path, "retarr", body="return legal")
    refused(cli("mournesim", "--plugin", f, "replay", "--policy", "retarr"), "mournesim",
            "plug-in policy 'retarr'", "must take (s, T, legal, n, rng, pp, h) and return an int",
            "it returns array(int32, 1d, C)")


@pytest.mark.parametrize("name, body, said", [
    ("wrong_float", "return legal[0] + 0.5", "and return an int; it returns float64"),
    ("wrong_code", 'return legal[0] + "x"', "numba cannot compile it for the arguments the engine passes"),
])
def test_a_plug_in_numba_cannot_use_is_one_line(tmp_path, registry_restored, plugin_cache, name, body, said):
    """A float answer (numba would silently truncate it) and a typing error
    in the plug-in's own code, at its compile (in-process here). Nothing of
    a refused entry point is left in the cache to be loaded unchecked."""
    from mournesim import plugins
    f = plugin(tmp_path, name, body=body)
    plugins.load_plugin(str(f))
    with pytest.raises(InputError, match=f"plug-in policy '{name}'") as e:
        plugins.REGISTRY.address(plugins.get(name))
    assert said in str(e.value) and "\n" not in str(e.value), str(e.value)
    left = [d for d in (plugin_cache / "engines").glob(f"mournesim_entry_{name}_*")
            if list(d.glob("__pycache__/*.nbi"))]
    assert not left, left


# --------------------------------------------------------- 4. plug-in output --

CHATTY = '''import os
from numba import njit
from mournesim.plugins import register_policy

print("the plug-in module says hello")
os.write(1, b"and writes to descriptor 1\\n")


@njit(cache=True)
def chatty(s, T, legal, n, rng, pp, h):
    print("chatty decides among", n)
    return legal[0]


register_policy("chatty", chatty)
'''


def test_a_plug_ins_prints_never_reach_a_jsonl_replay(tmp_path, plugin_cache):
    """Python's print when the module loads (in the command and in the
    child), a write to descriptor 1, numba's print in every decision: all on
    standard error; standard output is the replay, one JSON object a line."""
    f = tmp_path / "chatty_policy.py"
    f.write_text(CHATTY)
    r = subprocess.run([str(BIN / "mournesim"), "--plugin", str(f), "replay", "--policy", "chatty", "--players", "2",
                        "--format", "jsonl"], capture_output=True, text=True,
                       env=dict(env(), MOURNESIM_CACHE=str(plugin_cache)), timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) > 10
    for line in lines:
        assert isinstance(json.loads(line), dict), line
    assert "the plug-in module says hello" in r.stderr and "and writes to descriptor 1" in r.stderr
    assert "chatty decides among" in r.stderr


# ---------------------------------------------------- 5. standard output shut --

@pytest.mark.parametrize("args", [["rules", "show"], ["simulate", "--games", "10", "--quiet"]])
def test_standard_output_closed_is_one_line(args):
    """``prog ... >&-``: Python starts with no sys.stdout; one line before
    any game is played, exit 2 (as for a closed pipe below)."""
    r = subprocess.run([str(BIN / "mournesim"), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=env(), timeout=600, preexec_fn=lambda: os.close(1))
    sub_refused(r, "mournesim", "cannot write to standard output", "closed")


@pytest.mark.parametrize("args", [["rules", "show"], ["replay", "--format", "jsonl"]])
def test_a_closed_pipe_is_one_line(args):
    """``prog ... | head -1`` with the reader gone: one line naming standard
    output, exit 2 — the same contract as standard output closed."""
    p = subprocess.Popen([str(BIN / "questsim"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env())
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=600)
    sub_refused(subprocess.CompletedProcess(p.args, p.returncode, "", err), "questsim",
                "cannot write to standard output", "Broken pipe")


def test_the_limits_are_what_the_readme_says():
    """The README states each limit a user meets as the code enforces it,
    and the depth limit leaves the readers (a few Python frames a level)
    far inside Python's recursion limit."""
    from simcore import plugins
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
    for n, what in ((inputs.MAX_TOML_BYTES, "for a ruleset or experiment file"),
                    (inputs.MAX_PLUGIN_BYTES, "for a plug-in file"), (inputs.MAX_RUN_BYTES, "for a results")):
        assert f"{n >> 20} MiB {what}" in readme, what
    assert f"nested at most {inputs.MAX_DEPTH} levels deep" in readme
    assert f"more than {plugins.MAX_PARAMS} parameters" in readme
    assert f"`scratch` above {plugins.MAX_SCRATCH:,} slots" in readme
    assert sys.getrecursionlimit() > 4 * inputs.MAX_DEPTH
