"""Property tests over what a designer can type: random ``--set``
overrides and random mutations of a ruleset's structure.

The property, for every example: a ruleset the tool accepts plays to the end
within its safety cap (every game has an outcome, no more rounds than the
cap, no illegal choice); a ruleset it refuses gets ``mournesim: error:``
lines naming the problem and exit status 2 — never a traceback, never a
crash of the engine.

Examples per CI run: MourneQuest overrides 30, MourneQuest structural
mutations 20, Quest Master overrides 15 (65 in all, derandomized so CI is
repeatable; set ``FUZZ_EXAMPLES=500`` and ``FUZZ_RANDOM=1`` to explore).
Each example runs the real command line in-process on the already compiled
engines (no new compile) and plays three games.
"""
from __future__ import annotations

import faulthandler
import os

import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings, strategies as st

from mournesim import sim as mq_sim
from mournesim.cli import main as mq_main
from mournesim.ruleset import load_raw as mq_raw
from questsim import sim as qm_sim
from questsim.cli import main as qm_main
from questsim.ruleset import load_raw as qm_raw
from simcore.rulesets import leaves

SCALE = float(os.environ.get("FUZZ_EXAMPLES", 0)) / 65 or 1.0


def fuzz_settings(n):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, derandomize=not os.environ.get("FUZZ_RANDOM"),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
                    database=None)


@pytest.fixture(autouse=True)
def watchdog():
    """An engine stuck in a loop would hang the suite: fail loudly instead."""
    faulthandler.dump_traceback_later(600, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def toml_value(v):
    """``v`` as the right-hand side of ``--set path=VALUE`` (a TOML value)."""
    return tomli_w.dumps({"v": v})[len("v = "):].strip()


def scalar():
    return st.one_of(st.integers(-3, 70), st.sampled_from([-1, 0, 1, 10 ** 12, -(10 ** 12)]), st.booleans(),
                     st.floats(allow_nan=False, allow_infinity=False, width=32),
                     st.text("abcNESW_0123", max_size=6))


def mutated(value, names):
    """A new value near ``value`` (of its kind: ``names`` are the strings
    found under the same key elsewhere) or, sometimes, anything at all."""
    if isinstance(value, bool):
        near = st.booleans()
    elif isinstance(value, int):
        near = st.integers(max(0, value - 3), value + 3)
    elif isinstance(value, str):
        near = st.sampled_from(names)
    elif isinstance(value, list) and value:
        near = st.one_of(st.permutations(value), st.just(value[:-1]), st.just(value + value[-1:]),
                         st.lists(st.sampled_from(value), min_size=len(value), max_size=len(value)))
    else:
        near = st.lists(scalar(), max_size=3)
    # mostly a plausible edit (many of them valid), sometimes anything at all
    return st.integers(0, 5).flatmap(lambda k: near if k else scalar())


def overrides_for(raw):
    """A strategy of one or two ``--set`` overrides of existing keys."""
    paths = [(p, v) for p, v in leaves({k: v for k, v in raw.items() if k != "provenance"})]
    def kind(path):          # "board.spaces.start_n.kind" -> "board.kind": one kind of value
        parts = path.split(".")
        return f"{parts[0]}.{parts[-1]}"

    names = {}
    for p, v in paths:
        if isinstance(v, str):
            names.setdefault(kind(p), set()).add(v)
    names = {k: sorted(v) for k, v in names.items()}

    @st.composite
    def one(draw):
        p, v = draw(st.sampled_from(paths))
        return f"{p}={toml_value(draw(mutated(v, names.get(kind(p), [v]))))}"

    return st.lists(one(), min_size=1, max_size=2)


def check(res, prog):
    """The property's refusal side: one or more error lines, exit 2."""
    assert "Traceback" not in res.output and "internal error" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    if res.exit_code != 0:
        assert res.exit_code == 2, (res.exit_code, res.output)
        lines = res.stderr.strip().splitlines()
        assert lines and all(x.startswith(f"{prog}: error: ") for x in lines), lines
    event("refused" if res.exit_code else "played")
    return res.exit_code == 0


def plays_to_the_end(df, cap, outcomes):
    assert len(df) == 3
    assert df["outcome"].isin(outcomes).all(), df["outcome"].tolist()
    assert (df["rounds"] <= cap + 1).all() and (df["illegal_choices"] == 0).all()


MQ_SETS = overrides_for(mq_raw())


@fuzz_settings(30)
@given(sets=MQ_SETS, players=st.integers(1, 4), level=st.sampled_from(["easy", "medium", "hard"]))
def test_mournequest_overrides_play_or_are_refused(sets, players, level):
    args = [x for s in sets for x in ("--set", s)]
    res = CliRunner().invoke(mq_main, ["simulate", "--games", "3", "--players", str(players), "--level", level,
                                       "--workers", "1", "--policy", "greedy", *args])
    if check(res, "mournesim"):
        rules = mq_sim.prepare(None, sets)
        df = mq_sim.simulate(games=3, seed=1, level=level, players=players, rules=rules)
        plays_to_the_end(df, rules.ruleset.rules.safety_cap_rounds, ["win", "hero_died", "wall_destroyed", "cap"])


@st.composite
def structural(draw, raw):
    """The raw ruleset with one change to its structure: a list item dropped
    (a board path, a card, a die face ...), a table entry deleted or renamed
    (a hero, a space, a relic ...), or an unknown key added."""
    import copy
    raw = copy.deepcopy(raw)
    tables, lists = [], []

    def walk(node, path):
        if isinstance(node, dict):
            tables.append(path)
            for k, v in node.items():
                if k != "provenance":
                    walk(v, path + [k])
        elif isinstance(node, list) and len(node) > 2:      # not a coordinate pair
            lists.append(path)

    walk(raw, [])

    def at(path):
        node = raw
        for k in path:
            node = node[k]
        return node

    how = draw(st.sampled_from(["drop list item", "drop list item", "delete", "rename", "add"]))
    if how == "drop list item":
        items = at(draw(st.sampled_from(lists)))
        del items[draw(st.integers(0, len(items) - 1))]
        return raw
    node = at(draw(st.sampled_from(tables)))
    if how == "add" or not node:
        node[draw(st.sampled_from(["extra", "courage", "kind", "spaces"]))] = draw(scalar())
        return raw
    key = draw(st.sampled_from(list(node)))
    if how == "delete":
        del node[key]
    else:
        node[key + draw(st.sampled_from(["_2", "x"]))] = node.pop(key)
    return raw


@fuzz_settings(20)
@given(raw=structural(mq_raw()), players=st.integers(1, 4))
def test_mournequest_mutated_rulesets_play_or_are_refused(tmp_path, raw, players):
    f = tmp_path / "mutated.toml"
    f.write_text(tomli_w.dumps(raw))
    if check(CliRunner().invoke(mq_main, ["rules", "check", str(f)]), "mournesim"):
        res = CliRunner().invoke(mq_main, ["simulate", "--games", "3", "--players", str(players), "--workers", "1",
                                           "--ruleset", str(f)])
        assert check(res, "mournesim"), res.output        # rules check said valid: it must play
        rules = mq_sim.prepare(f)
        df = mq_sim.simulate(games=3, seed=2, players=players, rules=rules)
        plays_to_the_end(df, rules.ruleset.rules.safety_cap_rounds, ["win", "hero_died", "wall_destroyed", "cap"])


@fuzz_settings(15)
@given(sets=overrides_for(qm_raw()), players=st.integers(2, 6))
def test_quest_master_overrides_play_or_are_refused(sets, players):
    args = [x for s in sets for x in ("--set", s)]
    res = CliRunner().invoke(qm_main, ["simulate", "--games", "3", "--players", str(players), "--workers", "1",
                                       *args])
    if check(res, "questsim"):
        rules = qm_sim.prepare(None, sets)
        df = qm_sim.simulate(games=3, seed=1, players=players, rules=rules)
        df["outcome"] = df["win_condition"]
        plays_to_the_end(df, rules.ruleset.rules.safety_cap_rounds,
                         ["last_standing", "five_castles", "hp_over_40", "cap", "no_winner"])
