"""The planner of behaviour v3 on (docs/mournequest/policies.md, "planner"): every part it
added is its own parameter, off at 0, and with all of them off it plays the
planner of behaviour v2 game for game (greedy's one new part likewise);
hand-built positions for the parts' rules; and the decision counters of the
result row (docs/mournequest/results.md) agree with the replay's events.

Rule IDs refer to shared/rules/mournequest-rules.md.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from mournesim import layout as L
from mournesim import tables as TB
from mournesim import plugins, reference, sim
from mournesim.policies import NP_PLANNER, PLANNER_DEFAULTS, PLANNER_PARAMS, PLANNER_V2, PLANNER_V3, best_scored_mode
from mournesim.replay import replay
from simcore.golden import digest_array

RULES = sim.prepare()
V2_FILE = Path(__file__).parents[1] / "golden" / "mournesim-v2.json"
NEW_PARTS = PLANNER_PARAMS[5:]
# the planner of behaviour v2: its five parameters at v2's defaults, every later part off
V2_PARAMS = PLANNER_V2
# greedy of behaviour v2: its two parameters, ``talisman`` and ``blunders`` off
GREEDY_V2_PARAMS = (0.55, 1.0, 0.0, 0.0)


def test_the_planner_parameters_are_named_and_the_v2_ones_come_first():
    """The first five parameters are those of the v2 planner, in the same
    order (so ``--params`` of v2 keep their meaning), and each new part has
    its own parameter, on by default except ``passes`` (measured not to
    help, docs/mournequest/policies.md), with a valid range for ``--params`` checks;
    behaviour v4 moved only ``risk`` from v3's defaults (the tuning run), and
    v6 added ``blunders``, which v3 did not have."""
    assert PLANNER_PARAMS[:5] == ("risk", "charm_weight", "assign", "talisman_reserve", "prepare")
    assert set(NEW_PARTS) == {"post", "repair", "trade", "passes", "talisman", "skills", "late", "blunders"}
    assert len(PLANNER_DEFAULTS) == NP_PLANNER == len(PLANNER_PARAMS)
    assert {p for p, v in zip(PLANNER_PARAMS[5:], PLANNER_DEFAULTS[5:]) if v <= 0} == {"passes"}
    moved = {p for p, v, v3 in zip(PLANNER_PARAMS, PLANNER_DEFAULTS, PLANNER_V3) if v != v3}
    assert moved == {"risk", "blunders"}
    assert PLANNER_V2 == PLANNER_V3[:5] + (0.0,) * len(NEW_PARTS)
    info = plugins.get("planner")
    for name, default in zip(PLANNER_PARAMS, PLANNER_DEFAULTS):
        lo, hi = info.ranges[name]
        assert lo <= 0.0 <= default <= hi, name       # 0 (the part off) is always allowed
    g = plugins.get("greedy")
    assert g.param_names == ("risk", "charm_weight", "talisman", "blunders")
    assert g.defaults[:2] + (0.0, 0.0) == GREEDY_V2_PARAMS


@pytest.mark.parametrize("policy", ["greedy", "planner"])
def test_all_new_parts_off_plays_exactly_the_v2_policy(policy):
    """With every part added in behaviour v3 switched off, greedy and the planner
    play the reference games of behaviour v2 (``mournesim.reference``: every
    level and player count, and Difficult with every ruleset toggle flipped, 20
    games each) to the same result rows as the v2 engine did: the digests
    stored in tests/golden/mournesim-v2.json when v3 changed the default play.
    The rules are those of v2 to v4: two toggles had other defaults then."""
    stored = json.loads(V2_FILE.read_text())
    cols = [L.RESULT_INDEX[c] for c in stored["columns"]]
    then = dict(RULES.ruleset.toggles.model_dump(), shimnavore_skips_beaten=True, bag_reuses_discards=True)
    v2_rules = sim.prepare(overrides=tuple(f"toggles.{k}={'true' if v else 'false'}" for k, v in then.items()))
    flipped = sim.prepare(overrides=tuple(f"toggles.{k}={'false' if v else 'true'}" for k, v in then.items()))
    cells = {k: v for k, v in stored["digests"].items() if k.startswith(policy + "/")}
    assert len(cells) == 14
    params = V2_PARAMS if policy == "planner" else GREEDY_V2_PARAMS
    for name, want in sorted(cells.items()):
        _pol, level, players, *rest = name.split("/")
        rules = flipped if rest else v2_rules
        rows = sim.run_games(rules, sim.Config(level=level, players=int(players[0]), policy=policy,
                                               params=params), reference.SEED, 0, reference.GAMES)
        assert digest_array(rows[:, cols]) == want, name


@pytest.mark.parametrize("part", NEW_PARTS)
def test_each_part_switched_on_alone_changes_some_games(part):
    """Each part does something: switched on alone (on top of the v2
    planner) it changes some of 150 games on Medium solo or four players, so
    the ablation in docs/mournequest/policies.md measures a real difference."""
    params = list(V2_PARAMS)
    params[PLANNER_PARAMS.index(part)] = PLANNER_DEFAULTS[PLANNER_PARAMS.index(part)] or 1.0
    changed = 0
    for players in (1, 4):
        base = sim.run_games(RULES, sim.Config(level="medium", players=players, policy="planner",
                                               params=V2_PARAMS), 15, 0, 150)
        new = sim.run_games(RULES, sim.Config(level="medium", players=players, policy="planner",
                                              params=tuple(params)), 15, 0, 150)
        changed += int((base != new).any(axis=1).sum())
    assert changed > 0, part


# ---- the decision counters against the replay --------------------------------------------------

def _actions(recs):
    return Counter(r["action"] for r in recs if r["event"] == "action")


@pytest.mark.parametrize("policy,level,players", [("random", "easy", 2), ("greedy", "medium", 4),
                                                   ("planner", "medium", 1), ("planner", "hard", 4)])
def test_counters_agree_with_the_replay_events(policy, level, players):
    """For a sample of games, each decision counter of the result row equals
    the count of the matching events in the replay of the same game: trades
    (MQ-ACT-07/08), Granite and card repairs (MQ-FINAL-17), passes
    (MQ-ACT-06), Surplus takes and Nexus draws (MQ-CARD-03), talisman
    re-rolls by purpose (MQ-CHARM-13, MQ-GAP-28), skills and relics used
    (MQ-HERO-07, MQ-CARD-13), attacks by target (MQ-COMBAT-14, MQ-FINAL-23),
    heals (MQ-ACT-05), pots (MQ-CARD-11) and charm discards (MQ-CHARM-05)."""
    n = 12
    df = sim.simulate(games=n, seed=31, level=level, players=players, policy=policy, rules=RULES)
    total = Counter()
    for g in range(n):
        rp = replay(seed=31, game=g, level=level, players=players, policy=policy, rules=RULES)
        recs = rp.records()
        row = df.loc[g]
        act = _actions(recs)
        ev = Counter(r["event"] for r in recs)
        trades = [r for r in recs if r["event"] == "trade"]
        relic_trades = sum(1 for r in trades if r["for"] == "relic")
        repairs = Counter(r["by"] for r in recs if r["event"] == "wall_repair")
        tal = Counter(r["for"] for r in recs if r["event"] == "talisman")
        final_at = next((r["i"] for r in recs if r["event"] == "final_battle" and r["step"] != "shimnavore appears"),
                        None)
        in_final = Counter(r["event"] for r in recs if final_at is not None and r["i"] > final_at)
        attacks = Counter()
        for r in recs:
            if r["event"] == "action" and r["action"] == "attack":
                tgt = L.attack_target(r["arg"])
                attacks["nightmare" if tgt < L.TGT_BOGBEAN else "bogbean" if tgt < L.TGT_SHIM else "shimnavore"] += 1
        want = {
            "trades_charm": act["trade_charms"], "trades_relic": act["trade_for_relic"],
            "repairs_granite": repairs["granite"], "repairs_relic": repairs["relic"],
            "equipment_passes": ev["pass_equipment"], "surplus_takes": ev["surplus"],
            "equipment_draws": act["draw_equipment"],
            "talisman_combat": tal["combat"], "talisman_compass": tal["compass"], "talisman_wall": tal["wall"],
            "skills_used": ev["skill_used"], "skills_final": in_final["skill_used"],
            "relics_used": ev["relic_used"], "relics_final": in_final["relic_used"],
            "attacks_bogbean": attacks["bogbean"], "attacks_nightmare": attacks["nightmare"],
            "attacks_shimnavore": attacks["shimnavore"], "heals": act["regain_life"],
            "pots": ev["pot"], "charm_discards": act["discard_charm"],
        }
        assert len(trades) == want["trades_charm"] + want["trades_relic"], g
        assert relic_trades == want["trades_relic"], g
        assert ev["wall_repair"] == row["wall_repairs"], g
        got = {k: int(row[k]) for k in want}
        assert got == want, (g, {k: (got[k], want[k]) for k in want if got[k] != want[k]})
        # what is left at the end: skill tokens on the heroes, relics in hand
        fin = rp.final_state
        nh = int(fin[L.G_NHEROES])
        assert row["skills_left"] == sum(int(fin[L.G_HERO + h * L.HS + L.H_SKILLS]) for h in range(nh))
        assert row["relics_left"] == int((fin[L.G_RELIC_OWNER:L.G_RELIC_OWNER + L.MAX_RELICS] >= 0).sum())
        total.update({k: v for k, v in want.items() if v})
    # the sample exercises the counters it checks
    assert sum(total.values()) > 0


def test_counters_are_zero_or_more_and_add_up():
    """Over a batch of every policy: counters are never negative, the Final
    Battle parts of skills and relics never exceed the totals, the repairs by
    kind add up to ``wall_repairs``, and only games that reached the Final
    Battle attack the Shimnavore (MQ-FINAL-23)."""
    for policy in ("random", "greedy", "planner"):
        df = sim.simulate(games=200, seed=7, level="medium", players=3, policy=policy, rules=RULES)
        cnt = df[list(L.COUNTER_NAMES) + ["skills_left", "relics_left"]]
        assert (cnt >= 0).all().all(), policy
        assert (df["skills_final"] <= df["skills_used"]).all()
        assert (df["relics_final"] <= df["relics_used"]).all()
        assert ((df["repairs_granite"] + df["repairs_relic"]) == df["wall_repairs"]).all()
        assert (df.loc[~df["final_battle"], "attacks_shimnavore"] == 0).all()
        nh = np.where(df["players"] == 1, 2, df["players"])
        assert ((df["skills_used"] + df["skills_left"]) <= 3 * nh).all()


# ---- the parts on hand-built positions -----------------------------------------------------------

GRANITE, GOLD, BLACKTHORN, FLAX = range(4)
POLICY_PLANNER = 3


def _planner_game(params=PLANNER_DEFAULTS, **kw):
    from .mq_positions import quiet_game
    g = quiet_game(**kw)
    g.pp = np.array(params, np.float64)
    return g


def _dist(g, a, b):
    return int(g.T[TB.O_DIST_H + g.sp(a) * TB.DIST_W + g.sp(b)])


def _only_disc_missing(g, d, t, n=1):
    """Every Disc has its charms but ``d``, which misses ``n`` of type ``t``."""
    for dd in range(4):
        k = g.nm_at_disc(dd)
        for tt in range(4):
            want = int(g.T[TB.O_NM_CHARMS + k * 4 + tt])
            g.s[g.disc(dd) + L.D_DEP + tt] = want - (min(n, want) if (dd, tt) == (d, t) else 0)


def _needs(g, d=0, t=FLAX):
    """Disc ``d``'s Nightmare needs at least one charm of type ``t`` (set in
    this test's own copy of the rules, as the Nightmares sit at random,
    MQ-SETUP-01); returns ``(d, t)``."""
    k = g.nm_at_disc(d)
    g.T[TB.O_NM_CHARMS + k * 4 + t] = max(1, int(g.T[TB.O_NM_CHARMS + k * 4 + t]))
    return d, t


def test_trade_two_spare_charms_for_the_missing_one():
    """MQ-ACT-07: a hero holding two Gold no Disc needs, nearer a Trading
    Post than the Flax cache, trades the Gold there for the Flax its Disc
    (North) still misses (part ``trade``); the v2 planner walks to the cache
    instead.

        path_e2 --2--> post_e        path_e2 --5--> cache_flax
    """
    for params, trades in ((PLANNER_DEFAULTS, True), (V2_PARAMS, False)):
        g = _planner_game(params, park=("path_e2",) + ("path_n1", "path_s3", "path_w2"))
        d, t = _needs(g, 0, FLAX)                  # the North Disc misses one Flax
        _only_disc_missing(g, d, t)
        g.set_charms(0, gold=2)
        for h in range(g.nheroes):                 # no Secret Pathways to a Crossroads by the cache
            g.s[g.hero_off(h) + L.H_SKILLS] = 0
        assert _dist(g, "path_e2", "post_e") < _dist(g, "path_e2", "cache_flax")
        g.begin_turn(0)
        done = g.run_turn(0, POLICY_PLANNER)
        assert ((L.A_TRADE, L.trade_arg(GOLD, t)) in done) is trades, (params, done)
        if trades:
            assert g.charms(0)[t] == 1 and g.charms(0)[GOLD] == 0


def test_extra_action_skill_only_when_it_buys_something():
    """MQ-HERO-06/07: Grace's Swift Foot (one extra action, three uses) is
    spent by the planner when the extra action deposits the charm its Disc
    misses on the Key Stone she has just reached (MQ-CHARM-07), and not
    on a turn where it only adds a step towards a cache (part ``skills``);
    the v2 planner spent it at the end of every turn."""
    from .mq_game import GRACE, JACK
    # far from everything, nothing to deposit: v2 spends the skill, the planner keeps it
    for params, spends in ((PLANNER_DEFAULTS, False), (V2_PARAMS, True)):
        g = _planner_game(params, players=2, heroes=(GRACE, JACK), park=("start_s", "path_n1"))
        d, t = _needs(g)
        _only_disc_missing(g, d, t)
        g.begin_turn(0)
        done = g.run_turn(0, POLICY_PLANNER)
        assert any(op == L.A_SKILL for op, _ in done) is spends, (params, done)
    # three steps from the Key Stone with the charm it misses: step, step, step, skill, deposit
    g = _planner_game(PLANNER_DEFAULTS, players=2, heroes=(GRACE, JACK))
    d, t = _needs(g)
    ks = g.name(g.T[TB.O_KEYSTONE + d])
    three = [n for n in g.names if n.startswith("path") and _dist(g, n, ks) == 3]
    g.park_heroes(three[0], "path_n1" if not ks.endswith("n") else "path_s3")
    _only_disc_missing(g, d, t)
    g.set_charms(0, **{("granite", "gold", "blackthorn", "flax")[t]: 1})
    g.begin_turn(0)
    done = g.run_turn(0, POLICY_PLANNER)
    ops = [op for op, _ in done]
    assert ops.count(L.A_MOVE) == 3 and ops[-2:] == [L.A_SKILL, L.A_DEPOSIT], done


def test_granite_fetched_in_the_last_turns_before_the_final_battle():
    """MQ-FINAL-20/21: with no charm work left and three turns before the
    Shimnavore, a hero next to the Granite cache fills its backpack with
    Granite (MQ-CHARM-02/03) to rebuild the wall (part ``repair``); the v2
    planner takes none."""
    for params, fetch in ((PLANNER_DEFAULTS, True), (V2_PARAMS, False)):
        g = _planner_game(params)
        for d in range(4):
            g.cast_out_state(d)
        near = next(n for n in g.names if n.startswith(("path", "crossroads")) and _dist(g, n, "cache_granite") == 1)
        g.park_heroes(near, "path_n1", "path_s3", "path_w2")
        total = int(g.T[TB.P_N_MOON_TRACK]) * int(g.T[TB.P_MOON_CYCLES])
        g.s[L.G_MOON_STEPS] = total - 9          # hero 0's turns left: 3 (four heroes)
        g.begin_turn(0)
        g.run_turn(0, POLICY_PLANNER)
        assert (g.charms(0)[GRANITE] >= int(g.T[TB.P_GRANITE_FOR_REPAIR])) is fetch, (params, g.charms(0))


def test_final_battle_posts_cover_the_wall():
    """MQ-FINAL-14 to -19: in the Final Battle the Shimnavore attacks the
    section its compass face names, and an unguarded damaged section falls.
    The planner's posts (part ``post``) give every hero its own Key Stone,
    cover every section with four heroes, take the damaged section first
    with two, and leave a hero on its last life point out (it heals)."""
    from .mq_positions import final_battle
    from mournesim.plan_parts import post_for
    keystones = {int(x) for x in [0, 1, 2, 3]}
    for players, spots in ((4, ("path_n1", "path_e4", "path_s3", "path_w2")), (2, ("start_n", "start_e"))):
        g = _planner_game(players=players, park=spots)
        final_battle(g)
        g.s[L.G_WALL + 2] = 1                       # the South section is damaged
        nh = g.nheroes
        posts = [int(post_for(g.s, g.T, h, True, g.pp)) for h in range(nh)]
        dirs = {int(g.T[TB.O_COMPASS + p]) for p in posts}
        assert len(dirs) == nh and all(g.T[TB.O_KIND + p] == L.K_KEYSTONE for p in posts), posts
        assert 2 in dirs
        if nh == 4:
            assert dirs == keystones
        g.set_wounds(0, 2)                          # one life point left
        assert int(post_for(g.s, g.T, 0, True, g.pp)) == -1


@njit
def _best_scored_as_greedy(s, T, legal, n, rng, pp, h, goal, scores):
    return best_scored_mode(s, T, legal, n, rng, pp, h, goal, None, scores)


@njit
def _best_scored_as_planner(s, T, legal, n, rng, pp, h, goal, scores):
    # the planner's literal True, as the planner and rollout pass it: the
    # code they run (and compiled already), where a plain bool from Python
    # would compile another variant of the scoring loop
    return best_scored_mode(s, T, legal, n, rng, pp, h, goal, True, scores)


@pytest.mark.parametrize("plan", [None, True])
@pytest.mark.parametrize("copies", [1, 3, 12])
def test_the_best_scored_choice_is_drawn_among_every_choice_tied_with_the_best(plan, copies):
    """greedy (``plan`` None) and the planner (True) take the legal choice with
    the best score, a tie (within 1e-9 of it) drawn uniformly in legal order
    with one draw of the policy stream. ``best_scored_mode`` keeps the ties
    as a bit mask and past 62 choices scores again instead: checked against
    every score kept (as rollout keeps them, drawing nothing) on the turns
    of random playouts, with the legal list repeated ``copies`` times so
    that each choice ties with its copies (12 copies: more than 62
    choices)."""
    from simcore.rng import STREAM_POLICY, randint
    from mournesim.policies import plan_goal
    from mournesim.scores import goal_space
    from .mq_positions import quiet_game
    g = quiet_game()
    pp = np.array(PLANNER_DEFAULTS if plan else (0.55, 1.0, 1.0, 1.0))
    scored = _best_scored_as_planner if plan else _best_scored_as_greedy
    checked = past_62 = 0
    for turn in range(24):
        h = turn % 4
        g.begin_turn(h)
        legal = np.tile(np.array(g.legal_codes(h), np.int32), copies)
        n = len(legal)
        goal = int(plan_goal(g.s, g.T, h, pp) if plan else goal_space(g.s, g.T, h))
        scores = np.empty(n)
        kept_rng = g.rng.copy()
        assert scored(g.s, g.T, legal, n, kept_rng, pp, h, goal, scores) == -1
        assert (kept_rng == g.rng).all()
        best = scores.max()
        ties = [i for i in range(n) if scores[i] >= best - 1e-9]
        want_rng = g.rng.copy()
        pick = randint(want_rng, STREAM_POLICY, len(ties)) if len(ties) > 1 else 0
        got_rng = g.rng.copy()
        assert scored(g.s, g.T, legal, n, got_rng, pp, h, goal, None) == legal[ties[pick]]
        assert (got_rng == want_rng).all()
        checked += 1
        past_62 += n > 62
        g.run_turn(h)
    assert checked == 24 and (past_62 > 0) == (copies == 12)
