"""Quest Master players of behaviour v3 on: greedy and the planner aim their fights
(the castle leader, a player near the Hp win, a killable opponent), choose a
Yellow Bird Shoe together with the move, pay for no shield that cannot
matter, weigh a warp against where the walk would end; every result row
counts the decisions taken (``dec_*``). The players of behaviour v2 stay
playable, bit for bit, as ``greedy_v2`` and ``planner_v2`` (the new
parameters at 0).

Hand-built positions (``QGame``, tests/questmaster/qm_game.py; the shipped
board is sketched in qm_positions.py) check each decision; a few dozen games
check the counters.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from questsim import layout as L, policies as P, report, scores, sim, tables as TB
from questsim.reference import GAMES, SEED
from simcore.golden import digest_array

from .qm_game import CASTLE, IT, SWORD, QGame

RULES = sim.prepare()
GOLDEN_V2 = Path(__file__).parents[1] / "golden" / "questsim-v2-players.json"
GREEDY_V2, PLANNER_V2 = P.POLICY_GREEDY_V2, P.POLICY_PLANNER_V2


def test_v2_players_play_exactly_the_games_of_behaviour_v2():
    """greedy_v2 and planner_v2 (their newer parameters at 0) replay behaviour
    v2's reference games of greedy and the planner, every player count and
    every toggle flipped: the old players stay reproducible. The rules are
    those of v2 and v3, when any player could play a Yellow Bird Shoe."""
    stored = json.loads(GOLDEN_V2.read_text())
    idx = [L.RESULT_COLUMNS.index(c) for c in stored["columns"]]
    then = dict(RULES.ruleset.toggles.model_dump(), shoe_any_player=True)
    v2_rules = sim.prepare(overrides=tuple(f"toggles.{k}={'true' if v else 'false'}" for k, v in then.items()))
    flipped = sim.prepare(overrides=tuple(f"toggles.{k}={'false' if v else 'true'}" for k, v in then.items()))
    for name, want in stored["digests"].items():
        pol, players, *rest = name.split("/")
        rows = sim.run_games(flipped if rest else v2_rules, sim.Config(int(players[0]), (), (pol,)), SEED, 0, GAMES)
        assert digest_array(rows[:, idx]) == want, name


def _game(chars, policy, params=None, **kw):
    """A hand-built game whose seats all play ``policy`` with ``params``
    (default: that policy's shipped defaults)."""
    g = QGame(chars, policies=policy, **kw)
    vals = params if params is not None else next(d for i, _n, _p, d in P.BUILTIN_POLICIES if i == policy)
    g.params[:, :] = 0.0
    g.params[:, :len(vals)] = vals
    return g


def _with(policy, **changes):
    """``policy``'s defaults with some parameters changed by name."""
    _i, _n, names, vals = next(p for p in P.BUILTIN_POLICIES if p[0] == policy)
    vals = list(vals)
    for k, v in changes.items():
        vals[names.index(k)] = v
    return tuple(vals)


# ----------------------------------------------------------------- targets --

def _target(policy, params=None, hps=(20, 20, 20), castles=(0, 0, 0), hands=((), (), ())):
    """Seat 0 (Robot) starts a fight against seats 1..3 (Priest, Witch,
    Knight) with the given Hp, castles landed and hands; returns whom it
    chose (QM-DUEL-01: the attacker chooses any other player)."""
    g = _game(("robot", "priest", "witch", "knight"), policy, params)
    g.clear_hands()
    for p in range(1, 4):
        g.set_hp(p, hps[p - 1])
        g.set(p, L.S_CASTLES, castles[p - 1])
        g.set_hand(p, hands[p - 1])
    g.fix_dice(1, 1)        # Mp 1 each: the fight itself does not matter here
    g.clear_log()
    g.duel(0)
    return g.events("fight")[0][1], g


def test_v2_greedy_hits_the_weakest_new_greedy_the_castle_leader():
    """Behaviour v2's greedy fights the weakest opponent (lowest Hp) even
    when another is one castle from winning; with ``aim`` the leader, four
    castles of five, is the target (QM-END-04: five castles win at once)."""
    hps, castles = (12, 20, 20), (0, 0b01111, 0b00001)
    assert _target(GREEDY_V2, hps=hps, castles=castles)[0] == 1
    assert _target(P.POLICY_GREEDY, _with(P.POLICY_GREEDY, kill=0.0), hps=hps, castles=castles)[0] == 2


def test_aimed_players_stop_a_player_near_the_hp_win():
    """QM-END-05 (more than 40 Hp wins at once): an opponent on Hp 39 is
    the target of the aimed greedy and planner, not the one on Hp 15."""
    hps = (15, 39, 22)
    assert _target(GREEDY_V2, hps=hps)[0] == 1
    assert _target(P.POLICY_GREEDY, _with(P.POLICY_GREEDY, kill=0.0), hps=hps)[0] == 2
    assert _target(P.POLICY_PLANNER, _with(P.POLICY_PLANNER, kill=0.0), hps=hps)[0] == 2


def test_kill_prefers_an_opponent_the_free_attack_can_knock_out():
    """With ``kill`` the fighter picks the opponent its free At 2 attack
    knocks out for sure (Hp 2, no Mp for a shield: its Mp die is forced to
    a symbol below) over a weaker-looking one holding a Phoenix, which would
    survive (QM-DUEL-04/07, QM-GAP-45); chance 1 against 0."""
    g = _game(("robot", "priest", "witch", "knight"), P.POLICY_GREEDY, _with(P.POLICY_GREEDY, aim=0.0, kill=2.0))
    g.clear_hands()
    g.set_hp(1, 2)
    g.set_hp(2, 1)
    g.set_hp(3, 20)
    g.set_hand(2, ["phoenix"])
    assert scores.kill_chance(g.s, g.T, 0, 1) == 1.0
    assert scores.kill_chance(g.s, g.T, 0, 2) == 0.0
    g.fix_dice(2, SWORD)     # the defender's Mp die (blue) shows a symbol: Mp 0
    g.clear_log()
    g.duel(0)
    assert g.events("fight")[0][1] == 1
    assert not g.alive(1)


def test_kill_chance_counts_the_mp_dice_cards_and_shields():
    """kill_chance enumerates both Mp dice (attacker red 1-4, sword, sword;
    defender blue 1-4, bomb, chest): a Robot with a Sword (Mp 0, At +1)
    against Hp 3 kills with At 3 unless the defender's Mp pays its Shield +2
    card (cost 1: blue faces 1-4, 4 of 6), so the chance is 2/6."""
    g = _game(("robot", "priest"), P.POLICY_GREEDY)
    g.clear_hands()
    g.set_hand(0, ["sword"])
    g.set_hand(1, ["shield_2"])
    g.set_hp(1, 3)
    g.no_abilities("priest")
    assert scores.kill_chance(g.s, g.T, 0, 1) == pytest.approx(2 / 6)


# ------------------------------------------------------------------ defence --

def _defend_wasted(policy, params=None):
    """The Knight defends against an At 2 free attack with Mp 4, holding a
    Mana Mirror (Mp 2, absorbs the whole attack) and a Shield +2 (Mp 1).
    Returns the cards it played and the ``defend_wasted`` counter."""
    g = _game(("robot", "knight"), policy, params)
    g.clear_hands()
    g.set_hand(1, ["mana_mirror", "shield_2"])
    g.no_abilities("robot", "knight")
    g.fix_dice(1, 4)         # attacker Mp 1 (no paid attack), defender Mp 4
    g.clear_log()
    g.duel(0)
    played = [e[1] for e in g.events("play_item") if e[0] == 1]
    return played, int(g.s[L.G_DEC + L.DEC_DEFEND_WASTED])


def test_no_shield_is_paid_for_once_the_attack_is_stopped():
    """QM-DUEL-06/07: behaviour v2's greedy played the Mirror (the card it
    rated highest), then the Shield +2, which could lessen nothing once the
    attack was absorbed (counted as wasted). With ``thrift`` the Knight
    plays the one card that is enough, and nothing after it."""
    played, wasted = _defend_wasted(GREEDY_V2)
    assert played == [IT["mana_mirror"], IT["shield_2"]] and wasted == 1
    played, wasted = _defend_wasted(P.POLICY_GREEDY)
    assert len(played) == 1 and wasted == 0


def test_thrift_keeps_a_big_shield_for_a_small_hit_but_not_against_a_knock_out():
    """With ``thrift`` 1 a Shield +5 (Mp 3) is not spent on a 2-Hp hit to a
    healthy Knight (2 Hp saved is worth less than the card kept), but it is
    when the hit would knock the Knight out (QM-END-02)."""
    for hp, plays in ((20, False), (2, True)):
        g = _game(("robot", "knight"), P.POLICY_GREEDY, _with(P.POLICY_GREEDY, thrift=1.0))
        g.clear_hands()
        g.set_hand(1, ["shield_5"])
        g.set_hp(1, hp)
        g.no_abilities("robot", "knight")
        g.fix_dice(1, 4)
        g.clear_log()
        g.duel(0)
        assert bool([e for e in g.events("play_item") if e[:2] == (1, IT["shield_5"])]) == plays, hp
        assert g.alive(1)


def test_no_attack_card_once_the_attack_already_kills():
    """QM-DUEL-05: against a defender on Hp 2 with no Mp for a shield, the
    free At 2 attack kills; the thrifty attacker keeps its Battle Axe, v2's
    greedy plays it."""
    for policy, plays in ((GREEDY_V2, True), (P.POLICY_GREEDY, False)):
        g = _game(("robot", "knight"), policy)
        g.clear_hands()
        g.set_hand(0, ["battle_axe"])
        g.set_hp(1, 2)
        g.no_abilities("robot", "knight")
        g.fix_dice(4, SWORD)
        g.clear_log()
        g.duel(0)
        assert bool(g.events("play_item")) == plays and not g.alive(1)


# -------------------------------------------------------------- Shoe, warps --

def _own_roll_shoe(policy, params, red, blue, pos, castles):
    g = _game(("robot", "priest"), policy, params)
    g.quiet_board()
    for sq in (0, 8, 16, 24, 32):
        g.square(sq, L.SQ_CASTLE)
    g.clear_hands()
    g.set_hand(0, ["yellow_bird_shoe"])
    g.set(0, L.S_CASTLES, castles)
    g.put(0, pos)
    g.fix_dice(red, blue)
    g.clear_log()
    g.turn(0)
    return g


def test_a_shoe_is_kept_unless_the_extra_square_is_worth_more():
    """QM-RULING-07: with ``shoe_keep`` the Shoe is chosen with the move and
    played only when its square is worth more than the Shoe kept: on a roll
    of 3 + 3 from square 1 it turns 7 (a plain square) into 8, the Wizard
    School not yet landed on; on 2 + 2 from square 1 (5 into 6, both plain)
    behaviour v2's greedy played it for its tie-break alone (a square nearer
    the next castle), the new one keeps it."""
    g = _own_roll_shoe(P.POLICY_GREEDY, None, 3, 3, 1, 0b00001)
    assert g.pos(0) == 8 and g.events("extra_move")
    g = _own_roll_shoe(GREEDY_V2, None, 2, 2, 1, 0b00001)
    assert g.pos(0) == 6 and g.hand(0) == []
    g = _own_roll_shoe(P.POLICY_GREEDY, None, 2, 2, 1, 0b00001)
    assert g.pos(0) == 5 and g.hand(0) == [IT["yellow_bird_shoe"]]
    g = _own_roll_shoe(P.POLICY_PLANNER, None, 2, 2, 1, 0b00001)
    assert g.pos(0) == 5 and g.hand(0) == [IT["yellow_bird_shoe"]]


def _warp(policy, params=None):
    """Seat 0 walks 7 squares from square 1 towards the Wizard School (8,
    not yet landed on), passing the warp on square 4 whose destinations
    include square 23, one step before the Scientist's House (24, also new):
    returns where the walk stopped and whether it warped (QM-SQUARE-08)."""
    g = _game(("robot", "priest"), policy, params)
    g.T[TB.O_SQ_KIND + 23] = L.SQ_WARP
    g.T[TB.O_WARP + 4 * TB.MAX_WARP] = 23
    g.set(0, L.S_CASTLES, (1 << CASTLE["castle"]) | (1 << CASTLE["church"]))
    g.put(0, 1)
    return g.walk(0, 7)


def test_a_warp_is_weighed_against_the_square_the_walk_ends_on():
    """v2's greedy compared the warp square with the destination by the
    distance to a new castle only, so it warped next to the Scientist's
    House and gave up the Wizard School the walk was about to land on; with
    ``path`` (the planner's default; greedy's tuning left it off) the
    square the walk ends on counts, and the pawn lands there."""
    assert _warp(GREEDY_V2) == (23, True)
    assert _warp(P.POLICY_GREEDY, _with(P.POLICY_GREEDY, path=1.0)) == (8, False)
    assert _warp(P.POLICY_PLANNER) == (8, False)


# --------------------------------------------------------------- counters --

def test_decision_counters_are_in_every_row_and_add_up():
    """Every result row carries the ``dec_*`` counters: the fights with a
    choice of target are at most the duels and each kind of target at most
    those; the new players waste no shield, v2's greedy does in some of 200
    four-player games; the new players aim (leaders or near wins) more."""
    new = sim.simulate(games=200, seed=5, players=4, policies=("greedy",), rules=RULES)
    old = sim.simulate(games=200, seed=5, players=4, policies=("greedy_v2",), rules=RULES)
    for df in (new, old):
        dec = df[[f"dec_{n}" for n in L.DEC_NAMES]]
        assert (dec >= 0).all().all()
        assert (df["dec_target_choices"] <= df["duels"]).all()
        for k in ("leader", "near_hp_win", "lowest_hp", "highest_hp", "killable"):
            assert (df[f"dec_target_{k}"] <= df["dec_target_choices"]).all()
        assert (df["dec_defend_wasted"] <= df["dec_defend_cards"] + df["dec_defend_abilities"]).all()
        assert (df["dec_paid_attacks"] <= df["attacks"]).all()
    assert new["dec_defend_wasted"].sum() == 0 < old["dec_defend_wasted"].sum()
    share = {k: d["dec_target_leader"].sum() / d["dec_target_choices"].sum() for k, d in (("new", new), ("old", old))}
    assert share["new"] > share["old"]
    low = {k: d["dec_target_lowest_hp"].sum() / d["dec_target_choices"].sum() for k, d in (("new", new), ("old", old))}
    assert low["new"] < low["old"]
    # questsim report's "decisions by policy": one row per kind, one column per policy
    table = report.decisions(pd.concat([new, old], ignore_index=True)).set_index("decision")
    assert list(table.index) == list(L.DEC_NAMES) and {"greedy", "greedy_v2"} <= set(table.columns)
    assert table.loc["defend_wasted", "greedy"] == "0.000"
    assert "of target_choices" in table.loc["target_leader", "greedy_v2"]


def test_the_planner_parameters_are_ranged_and_the_rollout_follows_the_planner():
    """Every parameter of every built-in policy has a valid range
    (questsim/plugins.py RANGES), and the rollout search plays the
    planner's whole vector, then its own two."""
    from questsim import plugins, rollout
    for _i, name, names, vals in P.BUILTIN_POLICIES:
        info = plugins.get(name)
        for n, v in zip(names, vals):
            lo, hi = info.ranges[n]
            assert lo <= v <= hi, (name, n)
    assert tuple(rollout.PARAMS)[:len(P.PLANNER_PARAMS)] == P.PLANNER_PARAMS
    assert np.allclose(list(rollout.PARAMS.values())[:rollout.NP], P.PLANNER_DEFAULTS)
