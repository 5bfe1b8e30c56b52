"""The ``mournesim`` command line: every command, and bad input.

Contract (shared/design.md, "Bad input"): bad input gets one clear line per
problem on stderr and exit status 2, never a traceback. Most tests use
``click.testing.CliRunner`` on ``mournesim.cli:main``; a few run the installed
``mournesim`` script in a real subprocess.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mournesim import sim
from mournesim.cli import main
from mournesim.ruleset import default_ruleset_text
from mournesim.replay import replay

EXE = shutil.which("mournesim") or str(Path(sys.executable).with_name("mournesim"))
SHIPPED = str(Path(__import__("mournesim").__file__).with_name("data") / "ruleset.toml")
PROVENANCE_PREFIXES = ("rulebook:", "assumed:", "override:")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_bad_input(res, *needles, lines=None):
    """Exit 2, no traceback, every stderr line a 'mournesim: error:' line naming the problem."""
    assert res.exit_code == 2, (res.exit_code, res.output)
    err = res.stderr
    assert "Traceback" not in res.output and "Traceback" not in err
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.exception
    got = err.strip().splitlines()
    assert got, "no error message"
    assert all(line.startswith("mournesim: error: ") for line in got), got
    if lines is not None:
        assert len(got) == lines, got
    for n in needles:
        assert n in err, (n, err)
    return got


# ------------------------------------------------------------------ simulate --

@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_simulate_each_level_and_player_count(level, players):
    """``simulate --games 3`` runs on every level (MQ-LEVEL-01) and player count
    1..4 (MQ-SOLO-02 for 1) and prints the title, the win rate with its 95%
    interval over exactly 3 games, and the outcome table."""
    res = run("simulate", "--games", 3, "--seed", 5, "--level", level, "--players", players)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert f"level={level} players={players}" in out
    assert "win rate" in out and "95% CI" in out and "of 3 games" in out
    for name in ("win", "hero died", "wall destroyed", "cap"):      # the outcomes, as words
        assert name in out


def test_simulate_options_policy_heroes_alias_params_and_set():
    """simulate accepts --policy random, explicit --heroes, the 'difficult' alias
    of hard (MQ-GAP-74), --params for greedy and --set; the rules hash in the
    title changes with --set and the report is deterministic per seed."""
    a = run("simulate", "--games", 4, "--policy", "random", "--heroes", "jack,cobs", "--players", 2,
            "--level", "difficult")
    assert a.exit_code == 0, a.output
    assert "players=2" in a.stdout and "heroes=jack,cobs" in a.stdout
    b = run("simulate", "--games", 4, "--params", "0.4,1.5,1,1", "--players", 3, "--level", "easy")
    assert b.exit_code == 0, b.output
    base = run("simulate", "--games", 2)
    alt = run("simulate", "--games", 2, "--set", "heroes.jack.courage=9")
    assert base.exit_code == 0 and alt.exit_code == 0
    h = [line for line in base.stdout.splitlines() if "rules=" in line][0].split("rules=")[1].split()[0]
    h2 = [line for line in alt.stdout.splitlines() if "rules=" in line][0].split("rules=")[1].split()[0]
    assert h == sim.prepare().hash and h2 != h
    again = run("simulate", "--games", 4, "--policy", "random", "--heroes", "jack,cobs", "--players", 2,
                "--level", "difficult")
    def strip(s):   # the title holds the timing
        return s.split("\n", 1)[1]

    assert strip(again.stdout) == strip(a.stdout)


def test_version_and_help():
    """--version and --help of every command exit 0."""
    assert run("--version").exit_code == 0
    for cmd in ([], ["simulate"], ["replay"], ["rules"], ["rules", "show"], ["rules", "check"]):
        res = run(*cmd, "--help")
        assert res.exit_code == 0 and "Usage" in res.stdout, cmd


# -------------------------------------------------------------------- replay --

def test_replay_text():
    """``replay`` text output: a header with seed/game/level, one '== round'
    block per hero turn and a GAME OVER line; identical to ``replay``."""
    res = run("replay", "--seed", 3, "--game", 2, "--level", "easy", "--players", 2)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.startswith("MourneQuest replay  seed=3 game=2 level=easy players=2")
    assert "== round 1" in out and "\nGAME OVER: " in out
    assert out == replay(seed=3, game=2, level="easy", players=2).to_text()


@pytest.mark.parametrize("players", [1, 4])
def test_replay_jsonl_every_line_parses(players):
    """``replay --format jsonl``: every line is a JSON object with i (0, 1, 2 ...),
    round, event and actor; the first events are set-up, the last is game_end;
    every turn_start carries a snapshot."""
    res = run("replay", "--seed", 9, "--game", 1, "--format", "jsonl", "--level", "medium", "--players", players)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines
    recs = [json.loads(line) for line in lines]
    for k, r in enumerate(recs):
        assert {"i", "round", "event", "actor"} <= set(r), r
        assert r["i"] == k
        assert isinstance(r["round"], int) and isinstance(r["event"], str) and isinstance(r["actor"], str)
    assert "setup" in [r["event"] for r in recs[:5]]
    assert recs[-1]["event"] == "game_end"
    assert all("snapshot" in r for r in recs if r["event"] == "turn_start")


# --------------------------------------------------------------------- rules --

def _check_provenance(rows):
    assert len(rows) > 100
    for path, prov in rows:
        assert isinstance(prov, str) and prov.startswith(PROVENANCE_PREFIXES), (path, prov)


def test_rules_show_text_json_markdown_all_have_provenance():
    """``rules show`` in text, json and markdown lists every effective value with
    provenance starting 'rulebook:', 'assumed:' or 'override:'; the three formats
    list the same paths; a --set value shows 'override:' provenance."""
    j = run("rules", "show", "--format", "json")
    assert j.exit_code == 0, j.output
    data = json.loads(j.stdout)
    _check_provenance([(d["path"], d["provenance"]) for d in data])
    paths = [d["path"] for d in data]
    t = run("rules", "show")
    assert t.exit_code == 0
    tl = [line for line in t.stdout.splitlines() if not line.startswith("#")]
    _check_provenance([(line.split(" = ")[0], line.split("    # ", 1)[1]) for line in tl])
    assert [line.split(" = ")[0] for line in tl] == paths
    m = run("rules", "show", "--format", "markdown")
    assert m.exit_code == 0
    ml = m.stdout.splitlines()
    assert ml[0].startswith("| key | value | provenance |")
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in ml[2:]]
    _check_provenance([(c[0], c[-1]) for c in cells])
    assert [c[0].strip("`") for c in cells] == paths
    o = run("rules", "show", "--format", "json", "--set", "enemies.snipe.grey=[9, 10, 8]")
    row = [d for d in json.loads(o.stdout) if d["path"] == "enemies.snipe.grey"][0]
    assert row["value"] == [9, 10, 8] and row["provenance"].startswith("override:")


def test_rules_check_shipped_file_is_valid():
    """``rules check`` on the shipped ruleset exits 0 and says it is valid."""
    res = run("rules", "check", SHIPPED)
    assert res.exit_code == 0, res.output
    assert "valid" in res.stdout and sim.prepare().hash in res.stdout


def _broken(tmp_path, name, old, new):
    text = default_ruleset_text()
    assert old in text, old
    p = tmp_path / name
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


def test_rules_check_unknown_key(tmp_path):
    """An unknown key is an error naming its dotted path (exit 2, one line)."""
    p = _broken(tmp_path, "unknown.toml", "backpack = 3\n", "backpack = 3\nbackpak = 3\n")
    assert_bad_input(run("rules", "check", p), "rules.backpak", "unknown key", lines=1)


def test_rules_check_out_of_range_values_one_line_each(tmp_path):
    """Out-of-range values are errors naming each dotted path, one line per
    problem (two problems here: backpack 0 and a negative hero Courage)."""
    p = _broken(tmp_path, "range.toml", "backpack = 3\n", "backpack = 0\n")
    q = tmp_path / "range2.toml"
    q.write_text(p.read_text().replace("[heroes.jack]\ncourage = 7", "[heroes.jack]\ncourage = -7"))
    got = assert_bad_input(run("rules", "check", q), "rules.backpack", "heroes.jack.courage", lines=2)
    assert any("rules.backpack" in g for g in got) and any("heroes.jack.courage" in g for g in got)


def test_rules_check_bad_toml(tmp_path):
    """A file that is not TOML gives one 'not valid TOML' line and exit 2."""
    p = tmp_path / "bad.toml"
    p.write_text("[rules\nbackpack = = 3\n")
    assert_bad_input(run("rules", "check", p), "not valid TOML", lines=1)


def test_rules_check_missing_file(tmp_path):
    """A missing file gives one 'no such ruleset file' line and exit 2."""
    assert_bad_input(run("rules", "check", tmp_path / "nope.toml"), "no such ruleset file", lines=1)


def test_rules_check_path_to_unknown_space(tmp_path):
    """A board path naming a space that does not exist is an error naming the
    space (MQ-MOVE-01 board data), exit 2."""
    p = _broken(tmp_path, "space.toml", '"keystone_n-crossroads_ne",', '"keystone_n-crossroads_ne", "keystone_n-nowhere",')
    assert_bad_input(run("rules", "check", p), "nowhere", "board", lines=1)


def test_rules_check_missing_provenance(tmp_path):
    """A value without provenance is an error naming its dotted path."""
    p = _broken(tmp_path, "prov.toml", '"rules.backpack" = ', '"rules.backpack_gone" = ')
    assert_bad_input(run("rules", "check", p), "rules.backpack", "provenance")


def test_simulate_with_broken_ruleset_file(tmp_path):
    """``simulate --ruleset BROKEN`` fails the same way as ``rules check``."""
    p = _broken(tmp_path, "unknown.toml", "backpack = 3\n", "backpack = 3\nbackpak = 3\n")
    assert_bad_input(run("simulate", "--games", 2, "--ruleset", p), "rules.backpak", lines=1)


# ------------------------------------------------------------- bad options --

@pytest.mark.parametrize("args,needle", [
    (["--set", "heroes.jack.bogus=3"], "heroes.jack.bogus"),
    (["--set", "nosuch.key=1"], "nosuch"),
    (["--set", "heroes.jack.courage=abc"], "heroes.jack.courage"),
    (["--set", "heroes.jack.courage=-4"], "heroes.jack.courage"),
    (["--set", "rules.backpack=99"], "rules.backpack"),
    (["--set", "heroes.jack.courage"], "expected dotted.path=value"),
    (["--set", "enemies.snipe.green.7=1"], "enemies.snipe.green"),
    (["--set", "provenance.rules=assumed: x"], "provenance"),
])
def test_bad_set(args, needle):
    """--set with an unknown key, a value of the wrong type or range, no '=',
    a bad list index or a provenance path: exit 2, one line naming the path."""
    assert_bad_input(run("simulate", "--games", 2, *args), needle, lines=1)


@pytest.mark.parametrize("args,needle", [
    (["--heroes", "jack,cobs,iur", "--players", "2"], "--heroes"),        # wrong count
    (["--heroes", "jack", "--players", "1"], "--heroes"),                  # solo plays two heroes
    (["--heroes", "jack,bob", "--players", "2"], "bob"),                   # unknown
    (["--heroes", "jack,jack", "--players", "2"], "only once"),            # duplicate
    (["--players", "5"], "--players"),
    (["--players", "0"], "--players"),
    (["--level", "impossible"], "--level"),
    (["--policy", "clever"], "--policy"),
    (["--params", "x,y"], "--params"),
    (["--params", "0.5"], "--params"),                                     # greedy takes four
    (["--games", "0"], "--games"),
    (["--seed", "-1"], "--seed"),
])
def test_bad_game_options(args, needle):
    """Bad --heroes (wrong count, unknown, duplicate; MQ-HERO-01, MQ-SOLO-02),
    --players outside 1..4 (MQ-GAP-12), unknown level or policy, bad --params,
    --games 0, a negative seed: exit 2, one line, no traceback."""
    assert_bad_input(run("simulate", "--games", 2, *args) if "--games" not in args else run("simulate", *args),
                     needle, lines=1)


def test_replay_bad_input():
    """``replay`` rejects bad options the same way (exit 2, one line)."""
    assert_bad_input(run("replay", "--players", 5), "--players", lines=1)
    assert_bad_input(run("replay", "--format", "xml"), "--format", lines=1)
    assert_bad_input(run("replay", "--heroes", "jack,jack", "--players", 2), "only once", lines=1)


def test_unknown_command():
    """An unknown command or option: exit 2 with one error line."""
    assert_bad_input(run("simulat"), lines=1)
    assert_bad_input(run("simulate", "--bogus"), "--bogus", lines=1)


# ------------------------------------------------------ real subprocesses --

def _sub(*args):
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, timeout=600, env=env)


def test_subprocess_simulate_and_replay():
    """The installed ``mournesim`` script runs a tiny simulation (exit 0) and a
    jsonl replay whose every line parses."""
    p = _sub("simulate", "--games", 3, "--level", "easy", "--players", 2)
    assert p.returncode == 0, p.stderr
    assert "win rate" in p.stdout and "of 3 games" in p.stdout
    r = _sub("replay", "--seed", 2, "--game", 0, "--format", "jsonl", "--level", "hard", "--players", 3)
    assert r.returncode == 0, r.stderr
    for line in r.stdout.splitlines():
        assert {"i", "round", "event", "actor"} <= set(json.loads(line))


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--players", "5"], "--players"),
    (["simulate", "--games", "2", "--heroes", "jack,ghost", "--players", "2"], "ghost"),
    (["simulate", "--games", "2", "--set", "heroes.jack.nope=1"], "heroes.jack.nope"),
])
def test_subprocess_bad_input_exit_2_one_line(args, needle):
    """Real process: bad input gives exit status 2 and exactly one stderr line,
    no traceback."""
    p = _sub(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mournesim: error: ") and needle in lines[0], lines


def test_subprocess_rules_check_broken_file(tmp_path):
    """Real process: ``rules check`` on a broken file exits 2 with one line per
    problem; on the shipped file it exits 0."""
    p = _broken(tmp_path, "two.toml", "backpack = 3\nlife = 3\n", "backpack = 0\nlife = 99\n")
    r = _sub("rules", "check", p)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("mournesim: error: ") for line in lines)
    assert "rules.backpack" in r.stderr and "rules.life" in r.stderr
    ok = _sub("rules", "check", SHIPPED)
    assert ok.returncode == 0, ok.stderr
