"""The eighteen ``[toggles]`` of the ruleset: each is one reading of an
ambiguous rule (docs/mournequest/rulings.md, docs/mournequest/ruleset.md). For every toggle a
hand-built position is played with the toggle false and with it true, and
the documented difference is asserted, so a toggle that does nothing (or the
wrong thing) fails here. This file holds the table of toggles, the turn and
moon readings (first_turn_arrow, star_clicks_roll_over) and whole games with
every toggle at its non-default value; the combat readings are
test_toggles_combat.py, the enemies' and the encounters' test_toggles_enemies.py.

Each docstring names the toggle, its gap and quotes the rulebook sentence the
gap is about (the quote given in docs/mournequest/rulings.md).
"""
import numpy as np
import pytest

from mournesim import layout as L, sim, tables as TB

from .mq_game import (JACK, POLICY_FIRST, POLICY_RANDOM, Game, N, W, get_rules)
from .mq_positions import far_spaces, quiet_game
from .mq_toggles import FLIPPED, P_INDEX, TOGGLES, both, toggled


def test_toggle_table_matches_the_ruleset_and_the_compiled_parameters():
    """All eighteen toggles (MQ-GAP-06 ... MQ-GAP-75, see ``TOGGLES``): every key of
    ``[toggles]`` is covered in this file with its documented default, and flipping
    any one of them changes the compiled rules vector ``T`` (its ``P_T_*`` entry)."""
    R = get_rules()
    assert set(type(R.ruleset.toggles).model_fields) == set(TOGGLES)
    assert len(set(P_INDEX.values())) == len(TOGGLES)
    for name, default in TOGGLES.items():
        assert getattr(R.ruleset.toggles, name) is default, name
        assert int(R.T[P_INDEX[name]]) == int(default), name
        lo, hi = both(name)
        assert (int(lo.T[P_INDEX[name]]), int(hi.T[P_INDEX[name]])) == (0, 1), name
        diff = set(int(i) for i in np.nonzero(lo.T != hi.T)[0])
        assert P_INDEX[name] in diff
        # besides its own entry only derived tables may change: the enemy
        # distances (enemies_use_tunnel) and the attack odds the policies read
        # (the combat toggles of an attack roll)
        derived = set(range(TB.O_ODDS, TB.O_ODDS + 5 * 2 * TB.ODDS_W))
        if name == "enemies_use_tunnel":
            derived = set(range(TB.O_DIST_E, TB.O_DIST_E + L.MAX_SPACES * L.MAX_SPACES))
        assert diff - {P_INDEX[name]} <= derived, (name, sorted(diff - derived)[:5])


# ---- MQ-GAP-06 first_turn_arrow ---------------------------------------------------------

def test_first_turn_arrow():
    """Toggle ``first_turn_arrow`` (MQ-GAP-06). "IMPORTANT (First Round): On each
    player's first turn, they must move in the direction of the arrow marked on
    their Starting Point."

    true: the first action of a Hero's first turn is a move along its Start Point's
    arrow and the turn cannot end before it. false: no obligation at all - the
    Hero may end the turn at once or move anywhere."""
    lo, hi = both("first_turn_arrow")
    # scripted policy (always the first legal choice): with the obligation the
    # first choice is the arrow move; without it, ending the turn is legal and first
    for R, want_arrow in ((hi, True), (lo, False)):
        g = Game(R=R, heroes=(JACK, 2, 3, 5), policy=POLICY_FIRST)
        tab = g.R.tables
        for h in range(4):
            st = g.pos(h)
            done = g.run_turn(h, policy=POLICY_FIRST)
            if want_arrow:
                assert done[:1] == [(L.A_MOVE, int(tab.arrow[st]))], (h, done)
            else:
                assert done == [] and g.pos(h) == st, (h, done)
    # random policy over many seeds: true always starts with the arrow move;
    # false lets the first move go elsewhere (or the hero not move at all)
    off_arrow = 0
    for R, want_arrow in ((hi, True), (lo, False)):
        for seed in range(10):
            g = Game(R=R, heroes=(JACK, 2, 3, 5), seed=seed, policy=POLICY_RANDOM)
            tab = g.R.tables
            for h in range(4):
                st = g.pos(h)
                done = g.run_turn(h, policy=POLICY_RANDOM)
                paid = [a for a in done if a[0] not in (L.A_SKILL, L.A_RELIC, L.A_DISCARD_CHARM, L.A_DRAW_EQ)]
                if want_arrow:
                    assert paid and paid[0] == (L.A_MOVE, int(tab.arrow[st])), (seed, h, done)
                elif not paid or paid[0] != (L.A_MOVE, int(tab.arrow[st])):
                    off_arrow += 1
    assert off_arrow >= 5


# ---- MQ-GAP-20 star_clicks_roll_over -----------------------------------------------------

def test_star_clicks_roll_over():
    """Toggle ``star_clicks_roll_over`` (MQ-GAP-20). "Once the 6th Compass Token is
    placed in the centre, all four Nightmare Discs are rotated clockwise by one
    click." ... "the result from the Compass Dice rolls over onto the next occupied
    Nightmare Disc clockwise."

    false: each occupied Disc turns one click and an empty Disc's click is lost.
    true: the empty Disc's click rolls over clockwise onto the next occupied Disc."""
    lo, hi = both("star_clicks_roll_over")
    got = {}
    for R in (lo, hi):
        g = quiet_game(R=R, park=far_spaces())
        g.cast_out_state(N)
        before = [g.clicks(d) for d in range(4)]
        g.s[L.G_TOKENS] = 5
        g.compass(L.FACE_STAR)
        assert int(g.s[L.G_TOKENS]) == 0
        got[R is hi] = [b - g.clicks(d) for d, b in enumerate(before)]
    assert got[False] == [0, 1, 1, 1]          # N's click is lost
    assert got[True] == [0, 2, 1, 1]           # N's click rolls over onto E
    # two empty discs side by side: W and N both roll over onto E
    for R, want in ((lo, [0, 1, 1, 0]), (hi, [0, 3, 1, 0])):
        g = quiet_game(R=R, park=far_spaces())
        g.cast_out_state(N)
        g.cast_out_state(W)
        before = [g.clicks(d) for d in range(4)]
        g.s[L.G_TOKENS] = 5
        g.compass(L.FACE_STAR)
        assert [b - g.clicks(d) for d, b in enumerate(before)] == want, R is hi


# ---- whole games with every toggle flipped ---------------------------------------------------------------------

@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_games_end_with_every_toggle_flipped(level, players):
    """All eighteen toggles at their non-default values at once: first_turn_arrow,
    enemies_use_tunnel, star_clicks_roll_over, escape_knocks_back,
    escape_round_active, shimnavore_skips_beaten, defend_with_courage,
    defence_any_fail_loses, extra_die_any_level, doubles_stack,
    dandelion_beats_fumble, enemy_on_hero_attacks, encounter_level_per_trigger,
    bag_reuses_discards, partial_theft_takes_charms, nexus_draw_when_standing,
    transition_enemy_phase, pregame_encounters (MQ-GAP-06, -10, -20, -26, -27,
    -32, -33, -34, -36, -39, -41, -44, -49, -50, -57, -60, -65, -75). "To escape, the Shimnavore must destroy just one of the
    four sections of the Mourne Wall. If this happens, or a Hero is killed, the
    game ends and the Heroes have lost." (MQ-END-01..04)

    Every game of a batch (greedy, planner and random policies) ends with an
    outcome other than 'running', and the round cap stays an exception; no
    policy ever returns an illegal choice (``sim.run_games`` raises if one
    does)."""
    R = get_rules(*FLIPPED)
    for name, default in TOGGLES.items():
        assert getattr(R.ruleset.toggles, name) is (not default)
    df = sim.simulate(games=100, seed=11, level=level, players=players, rules=R)
    assert len(df) == 100
    assert (df["outcome"] != "running").all()
    assert (df["outcome"] == "cap").mean() < 0.05
    df = sim.simulate(games=30, seed=12, level=level, players=players, policy="random", rules=R)
    assert (df["outcome"] != "running").all()
    assert (df["outcome"] == "cap").mean() < 0.05
    df = sim.simulate(games=60, seed=13, level=level, players=players, policy="planner", rules=R)
    assert (df["outcome"] != "running").all() and (df["illegal_choices"] == 0).all()
    assert (df["outcome"] == "cap").mean() < 0.05


@pytest.mark.parametrize("name", list(TOGGLES))
def test_games_end_with_one_toggle_flipped(name):
    """Each toggle alone at its non-default value (its MQ-GAP as listed in
    ``TOGGLES`` / docs/mournequest/ruleset.md). "To escape, the Shimnavore must destroy just
    one of the four sections of the Mourne Wall. If this happens, or a Hero is
    killed, the game ends and the Heroes have lost." (MQ-END-01..04)

    Every game of a small batch at each level ends with an outcome other than
    'running'."""
    R = toggled(name, not TOGGLES[name])
    for level in ("easy", "medium", "hard"):
        df = sim.simulate(games=40, seed=5, level=level, players=4, rules=R)
        assert (df["outcome"] != "running").all(), (name, level)
        assert (df["outcome"] == "cap").mean() < 0.05, (name, level)
        df = sim.simulate(games=20, seed=5, level=level, players=1 + (level == "medium"), policy="planner", rules=R)
        assert (df["outcome"] != "running").all() and (df["illegal_choices"] == 0).all(), (name, level)
