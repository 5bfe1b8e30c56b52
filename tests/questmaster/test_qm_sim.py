"""Quest Master over many games: invariants of real play (read from replay
logs), determinism, exact dice and movement probabilities against the
engine, and the questsim command line.

Rule IDs: QM-HAND-02 (hand limit), QM-END-02..05 (the end), QM-SQUARE-04 and
QM-END-04 (castles count on landing), QM-MOVE-01..08 (dice and movement),
QM-SETUP-07 (start roll).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from questsim import batch, engine, layout as L, sim, tables as TB
from questsim.cli import main
from questsim.odds import movement_distribution
from questsim.policies import GREEDY_DEFAULTS, PLANNER_DEFAULTS
from questsim.replay import replay
from simcore import store
from simcore.rng import N_STREAMS, seed_streams

RULES = sim.prepare()
NOTHING = [f"{k}=[]" for k in ("landing.item", "landing.event", "landing.sword", "symbols.sword", "symbols.bomb",
                               "symbols.chest")] + \
    [f"castles.{c}.{h}=[]" for c in ("castle", "wizard_school", "church", "scientist_house", "haunted_house")
     for h in ("upper", "lower")]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ------------------------------------------------------------- invariants --

@pytest.mark.parametrize("players,policy", [(2, "random"), (4, "greedy"), (6, "random"), (3, "greedy+random+first")])
def test_invariants_from_replay_logs(players, policy):
    """Over 40 logged games each: the hand never holds more than 5 cards
    except between a draw and its forced discard (QM-HAND-02); Hp of a
    living player is never negative; a castle counts only when a pawn lands
    on it (QM-END-04: every castle win is preceded by a landing on a castle
    square); every game ends with a winner or the cap (QM-END-01)."""
    limit = RULES.ruleset.rules.hand_limit
    for game in range(40):
        rp = replay(seed=4, game=game, players=players, policies=tuple(policy.split("+")), rules=RULES)
        recs = rp.records()
        hand = {}
        over_limit = None
        landed = {p: set() for p in range(players)}
        for r in recs:
            p = r["seat"]
            ev = r["event"]
            if ev == "draw_item":
                hand[p] = hand.get(p, 0) + 1
            elif ev in ("discard", "play_item", "revive") and r.get("ability") is None:
                hand[p] -= 1
            elif ev == "eliminated":
                hand[p] = 0
            if over_limit is not None:
                assert ev == "discard" and p == over_limit, (game, r)
                over_limit = None
            if hand.get(p, 0) > limit:
                assert hand[p] == limit + 1
                over_limit = p
            if ev == "hp":
                assert r["hp"] >= 0
            if ev == "land" and r["kind"] == "castle":
                landed[p].add(r["square"])
            if ev == "win" and r["condition"] == "five_castles":
                assert len(landed[p]) == 5, (game, landed[p])
        # the win is the last record but for the end of a duel it happened in
        if recs[-1]["event"] == "duel_end":
            assert recs[-1]["reason"] in ("eliminated", "game_over"), recs[-1]
            recs = recs[:-1]
        assert recs[-1]["event"] == "win" or rp.final_state[L.G_WIN] == L.WIN_CAP
        s = rp.final_state
        for p in range(players):
            b = L.G_P + p * L.PS
            assert s[b + L.S_HAND_N] <= limit
            assert s[b + L.S_HP] >= 0
            assert s[b + L.S_ALIVE] == (s[b + L.S_HP] > 0)


def test_batch_rows_agree_with_their_own_rules():
    """Many games: the winner is alive with the most of what it won by; a
    five-castle winner has 5 castles; an Hp winner is above 40; a last-
    standing winner's opponents are all at Hp 0; no illegal choices."""
    for players in (2, 4, 6):
        df = sim.simulate(games=3000, seed=2, players=players, policies=("random",), rules=RULES)
        assert (df["illegal_choices"] == 0).all()
        assert (df["win_condition"] != "running").all()
        assert (df["win_condition"] == "cap").mean() < 0.01
        w = df["winner_seat"].to_numpy()
        idx = np.arange(len(df))
        hp = df[[f"hp{i}" for i in range(1, players + 1)]].to_numpy()
        castles = df[[f"castles{i}" for i in range(1, players + 1)]].to_numpy()
        c = df["win_condition"].astype(str).to_numpy()
        m = w >= 0
        assert (hp[idx[m], w[m]] > 0).all()
        assert (castles[idx[c == "five_castles"], w[c == "five_castles"]] == 5).all()
        assert (hp[idx[c == "hp_over_40"], w[c == "hp_over_40"]] > 40).all()
        last = c == "last_standing"
        assert ((hp[last] > 0).sum(axis=1) == 1).all()
        assert (df["hp1"] >= 0).all() and (df[[f"pos{i}" for i in range(1, players + 1)]].nunique(axis=1)
                                           == players).all()


# ----------------------------------------------------------- determinism --

def test_same_seed_same_games_and_workers_do_not_matter():
    """Game i of seed S is the same whatever the batch size, workers or run."""
    a = sim.simulate(games=300, seed=9, players=5, rules=RULES)
    b = sim.simulate(games=300, seed=9, players=5, rules=RULES)
    pd.testing.assert_frame_equal(a, b)
    c = sim.simulate(games=300, seed=10, players=5, rules=RULES)
    assert not a[["rounds", "winner_seat"]].equals(c[["rounds", "winner_seat"]])
    df, _ = batch.run_grid(games=300, seed=9, players=(5,), rules=RULES, batch=37, workers=2)
    pd.testing.assert_frame_equal(df, a, check_categorical=False)
    rp = replay(seed=9, game=123, players=5, rules=RULES)
    assert rp.final_state[L.G_ROUND] == a.loc[123, "rounds"]
    assert rp.final_state[L.G_WINNER] == a.loc[123, "winner_seat"]


# ------------------------------------------------------ exact probabilities --

def test_dice_faces_are_uniform():
    """The engine's red and blue dice: each of the six faces with probability
    1/6 (QM-MOVE-01/02); chi-square on 60,000 rolls each."""
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    seed_streams(np.uint64(3), 0, rng)
    for die, faces in ((0, [1, 2, 3, 4, -1, -1]), (1, [1, 2, 3, 4, -2, -3])):
        got = np.array([engine.roll(RULES.T, rng, die) for _ in range(60_000)])
        for f in set(faces):
            expect = faces.count(f) / 6
            share = (got == f).mean()
            assert abs(share - expect) < 4 * np.sqrt(expect * (1 - expect) / 60_000), (die, f, share)


def test_movement_distribution_is_exact():
    """P(move k) from the dice faces, enumerated: 0 with probability 4/36
    (two symbols), 1 with 4/36, 8 with 1/36 (4 + 4)."""
    d = movement_distribution(RULES)
    assert d[0] == Fraction(4, 36) and sum(d.values()) == 1
    assert d[1] == Fraction(4, 36)       # a 1 on one die and a symbol on the other: 2 + 2 of 36 faces
    assert d[8] == Fraction(1, 36)                              # 4 + 4


def test_square_landing_frequencies_match_the_markov_chain():
    """With every square, symbol and castle effect emptied (so nothing but
    the dice moves a pawn) and the ``first`` policy (always move, never
    warp), the square a pawn stands on after t turns has the distribution
    e_home · P^t of the Markov chain built from the exact movement
    distribution on the board loop. Checked for t = 1..8 on 20,000 games
    (chi-square, p > 1e-4 at every t)."""
    from scipy.stats import chisquare
    rules = sim.prepare(overrides=NOTHING)
    T = rules.T
    nsq = int(T[TB.P_N_SQUARES])
    P = np.zeros((nsq, nsq))
    for k, p in movement_distribution(rules).items():
        for i in range(nsq):
            P[i, (i + k) % nsq] += float(p)
    cfg = sim.Config(players=2, characters=("robot", "priest"), policies=("first",))
    chars, pids, pp, _engine = cfg.resolved(rules)
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    legal = np.zeros(L.MAX_LEGAL, np.int32)
    ev = np.zeros((1, L.EV_COLS), np.int32)
    turns, games = 8, 20_000
    pos = np.zeros((turns, games), np.int64)
    b = L.G_P
    for g in range(games):
        seed_streams(np.uint64(5), g, rng)
        engine.setup(s, T, ev, rng, legal, pp, 2, chars, pids, 0)
        for t in range(turns):
            engine.take_turn(s, T, ev, rng, legal, pp, 0)
            s[b + L.S_CASTLES] = 0          # keep the five-castle win from ending the walk
            pos[t, g] = s[b + L.S_POS]
    dist = np.zeros(nsq)
    dist[int(T[TB.O_HOME + 3])] = 1.0        # the robot's home
    for t in range(turns):
        dist = dist @ P
        seen = np.bincount(pos[t], minlength=nsq)
        m = dist > 0
        assert seen[~m].sum() == 0, t
        assert chisquare(seen[m], dist[m] * games).pvalue > 1e-4, t


# ------------------------------------------------------------------- CLI --

def test_cli_simulate_report_replay(tmp_path):
    r = run("simulate", "--games", 50, "--players", "2,6", "--policy", "random,greedy", "--workers", 1)
    assert r.exit_code == 0, r.output
    assert "win rate by character" in r.stdout and "first player's win rate" in r.stdout
    out = tmp_path / "q"
    o = run("simulate", "--games", 40, "--players", "all", "--out", out, "--workers", 1, "--quiet")
    assert o.exit_code == 0, o.output
    assert store.read_run(out)["complete"] and len(store.read_dataset(out)) == 40 * 5
    rep = run("report", out, "--plots", tmp_path / "plots")
    assert rep.exit_code == 0 and "head to head" in rep.stdout
    assert len(list((tmp_path / "plots").glob("*.png"))) == 4
    by = run("report", out, "--by", "character,players", "--format", "csv")
    assert by.exit_code == 0 and by.stdout.startswith("table,character,players,games")
    page = run("report", out, "--format", "html")          # one page, its plots inside
    assert page.exit_code == 0 and page.stdout.startswith("<!DOCTYPE html>")
    assert "<th>vs fair (95% CI)</th>" in page.stdout and page.stdout.count("data:image/png;base64,") == 4
    rp = run("replay", "--seed", 3, "--game", 2, "--players", 3, "--format", "jsonl")
    assert rp.exit_code == 0 and rp.stdout.count("\n") > 20


def test_the_reports_example_games_replay_to_the_way_each_ended(tmp_path):
    """Each example game the report names (a table's first game to end each
    way) replays, from its seed and index, to that ending."""
    from questsim import report
    out = tmp_path / "q"
    assert run("simulate", "--games", 30, "--players", "3", "--policy", "greedy", "--out", out, "--workers", 1,
               "--quiet").exit_code == 0
    t = report.example_games(store.read_dataset(out))
    assert len(t) == 1 and t.loc[0, "seed"] == 1
    ends = [c for c in t.columns if c not in ("players", "policy", "seed") and t.loc[0, c] != "–"]
    assert ends
    for end in ends:
        r = run("replay", "--seed", 1, "--game", int(t.loc[0, end]), "--players", 3, "--policy", "greedy")
        assert r.stdout.strip().splitlines()[-1].startswith(f"result: {end.replace('_', ' ')}"), (end, r.stdout[-200:])


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--players", "7"], "--players"),
    (["simulate", "--players", "1"], "--players"),
    (["simulate", "--policy", "clever"], "clever"),
    (["simulate", "--policy", "greedy+random", "--players", "3"], "seats"),
    (["simulate", "--characters", "robot,robot", "--players", "2"], "only one seat"),
    (["simulate", "--characters", "robot,nobody", "--players", "2"], "nobody"),
    (["simulate", "--characters", "robot", "--players", "2"], "--characters"),
    (["simulate", "--params", "x"], "--params"),
    (["simulate", "--params", "1,2", "--policy", "random,greedy"], "--params"),
    (["simulate", "--set", "characters.robot.hp=-3"], "characters.robot.hp"),
    (["report", "/no/such"], "no such results directory"),
    (["replay", "--players", "9"], "--players"),
])
def test_cli_bad_input(args, needle):
    r = run(*(args if args[0] != "simulate" else args + ["--games", 2]))
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("questsim: error: ") and needle in lines[0], lines


# --------------------------------------------------------------- policies --

@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_every_policy_only_makes_legal_choices(players):
    """Random, greedy, planner and first, alone and mixed by seat: no
    illegal choice in 500 games per table, and every game ends (each policy
    alone at every count: the contract suite; here the mixed tables and the
    ending)."""
    tables = [("random",), ("greedy",), ("planner",), ("first",),
              tuple(["planner", "random", "greedy", "first", "planner", "greedy"][:players])]
    for tab in tables:
        df = sim.simulate(games=500, seed=players, players=players, policies=tab, rules=RULES)
        assert (df["illegal_choices"] == 0).all(), tab
        assert (df["win_condition"] != "running").all(), tab


def test_skill_ladder_at_a_table_of_greedy_players():
    """Seat 0 played by random, greedy and planner against greedy opponents,
    4 players, the same 10,000 games: random wins far below the fair 1/4,
    greedy about 1/4, the planner clearly above: its edge over greedy on the
    same games is more than three standard errors (docs/questmaster/policies.md)."""
    won = {}
    for pol in ("random", "greedy", "planner"):
        df = sim.simulate(games=10000, seed=11, players=4, policies=(pol, "greedy", "greedy", "greedy"), rules=RULES)
        won[pol] = (df["winner_seat"] == 0).to_numpy(dtype=float)
    rates = {pol: w.mean() for pol, w in won.items()}
    assert rates["random"] < 0.12 < 0.20 < rates["greedy"] < 0.30
    edge = won["planner"] - won["greedy"]
    assert edge.mean() > 3 * edge.std(ddof=1) / np.sqrt(len(edge))


def test_policy_parameters_change_play():
    """The planner without its look-ahead, or greedy seeking every fight,
    plays different games from the defaults on the same seeds."""
    base = sim.simulate(games=300, seed=2, players=4, policies=("planner",), rules=RULES)
    flat = sim.simulate(games=300, seed=2, players=4, policies=("planner",),
                        params=PLANNER_DEFAULTS[:2] + (0.0,) + PLANNER_DEFAULTS[3:], rules=RULES)
    assert not base["rounds"].equals(flat["rounds"])
    g = sim.simulate(games=300, seed=2, players=4, policies=("greedy",), rules=RULES)
    g2 = sim.simulate(games=300, seed=2, players=4, policies=("greedy",), params=(-50.0,) + GREEDY_DEFAULTS[1:],
                      rules=RULES)
    assert g2["duels"].mean() > g["duels"].mean()


# --------------------------------------------------- plug-ins and search --

EXAMPLE = str(__import__("pathlib").Path(__file__).parents[2] / "docs" / "questmaster" / "examples"
              / "qm_bold_policy.py")


def test_policies_command_lists_builtins_rollout_and_a_plugin():
    r = run("--plugin", EXAMPLE, "policies")
    assert r.exit_code == 0, r.output
    for name in ("random", "greedy", "planner", "first", "rollout", "bold"):
        assert name in r.stdout
    assert "samples=16" in r.stdout and "plug-in from" in r.stdout


def test_plugin_example_runs_through_the_cli_and_is_paired(tmp_path):
    """The README's plug-in example, mixed by seat with built-ins, runs from
    the command line; it takes more fights than the planner it is built on,
    and its table is the same set-up as the planner's (common seeds)."""
    r = run("--plugin", EXAMPLE, "simulate", "--games", 300, "--players", 4, "--policy", "bold+planner+planner+planner",
            "--workers", 1, "--out", tmp_path / "b", "--quiet")
    assert r.exit_code == 0, r.output
    bold = store.read_dataset(tmp_path / "b")
    base = sim.simulate(games=300, seed=1, players=4, policies=("planner",), rules=RULES)
    assert (bold["char1"].astype(str) == base["char1"].astype(str)).all()
    assert bold["duels"].mean() > base["duels"].mean()
    assert (bold["illegal_choices"] == 0).all()


def test_rollout_search_is_legal_fair_and_differs_from_the_planner():
    """rollout (a plug-in calling the engine): legal
    choices only; with samples < 2 it plays exactly the planner's games;
    searching changes some games."""
    tab = ("rollout", "planner", "planner")
    df = sim.simulate(games=30, seed=3, players=3, policies=tab, rules=RULES)
    assert (df["illegal_choices"] == 0).all() and (df["win_condition"] != "running").all()
    off = sim.simulate(games=30, seed=3, players=3, policies=tab,
                       params=PLANNER_DEFAULTS + (1.0, 1.5, 0.0), rules=RULES)
    plan = sim.simulate(games=30, seed=3, players=3, policies=("planner",), rules=RULES)
    cols = ["winner_seat", "rounds", "duels", "hp1", "hp2", "hp3"]
    pd.testing.assert_frame_equal(off[cols], plan[cols])
    assert not df[cols].equals(plan[cols])


def test_replay_records_carry_the_documented_fields():
    """Every Quest Master replay record has exactly the fields its event
    kind has in the event table of docs/questmaster/replay.md (plus i, round,
    event, seat and the documented name fields)."""
    import re
    from pathlib import Path
    text = (Path(__file__).parents[2] / "docs" / "questmaster" / "replay.md").read_text(encoding="utf-8")
    doc = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            cols = [c.strip() for c in line.strip().strip("|").split("|")]
            doc[re.findall(r"`([a-z_]+)`", cols[0])[0]] = set(re.findall(r"`([a-z_]+)`", cols[1]))
    extra = {"item_name", "card_name", "castle_name", "ability", "ability_name"}
    seen = set()
    for game in range(10):
        for r in replay(seed=8, game=game, players=2 + game % 5, policies=("random",), rules=RULES).records():
            seen.add(r["event"])
            got = set(r) - {"i", "round", "event", "seat"} - extra
            want = doc[r["event"]] - (set() if r["event"] != "play_item" or "item" in r else {"item"})
            assert got == want, (r, doc[r["event"]])
    assert len(seen) >= 18


def test_how_close_games_end_reads_the_runner_up_from_the_final_castles():
    """Three 3-player games: seat 1 wins with five castles over 4 and 1 (one
    short), seat 2 wins over 2 and 0 (a runaway), seat 3 wins the last
    standing over 3 and 4 (one short); empty seats hold -1."""
    from questsim import report
    df = pd.DataFrame({"players": [3, 3, 3], "winner_seat": [0, 1, 2], "rounds": [20, 30, 40],
                       "castles1": [5, 2, 3], "castles2": [4, 5, 4], "castles3": [1, 0, 2],
                       "castles4": [-1] * 3, "castles5": [-1] * 3, "castles6": [-1] * 3})
    r = report.closeness(df).iloc[0]
    assert (r["games"], r["runner_up_castles"], r["one_castle_short"], r["runaway"], r["rounds"]) == \
        (3, pytest.approx(10 / 3), pytest.approx(2 / 3), pytest.approx(1 / 3), 30)
