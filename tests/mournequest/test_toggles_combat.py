"""The toggles that read combat (MQ-GAP-32, -33, -34, -36, -39, -41, -44):
each played from a hand-built position with the toggle false and true, the
documented difference asserted (the table of all eighteen: test_toggles.py).
"""
import numpy as np

from mournesim import core, layout as L, rules

from .mq_game import (COURAGE, JACK, MOON_GREY, NE, POLICY_RANDOM, STRENGTH, E, fix_all_dice, fix_die)
from .mq_positions import far_spaces, final_battle, quiet_game
from .mq_toggles import D2, DD, F, both, combats, plain_disc, score, toggled


# ---- MQ-GAP-32 shimnavore_skips_beaten -------------------------------------------------------

def test_shimnavore_skips_beaten():
    """Toggle ``shimnavore_skips_beaten`` (MQ-GAP-32). "The Nightmare can no longer
    attack using that Ability and will use its next strongest when it next attacks."
    ... "The Shimnavore will always attack using its strongest Ability depending on
    the current phase of the Moon."

    true: the Shimnavore does not attack with an Ability already beaten twice; it
    uses the next strongest. false: always its strongest, beaten or not. One win is
    not enough to skip with either value."""
    lo, hi = both("shimnavore_skips_beaten")
    used = {}
    for R in (lo, hi):
        for wounds in (1, 2):
            g = quiet_game(R=R, park=("keystone_e",) + far_spaces()[1:])
            final_battle(g)
            g.s[L.G_MOON] = MOON_GREY
            vals = [int(rules.enemy_value(g.s, g.T, L.ENEMY_SHIM, a)) for a in range(3)]
            order = sorted(range(3), key=lambda a: (-vals[a], a))
            assert vals[order[0]] > vals[order[1]]
            fix_die(g.T, 0, DD)
            g.s[L.G_SHIM_WOUNDS + order[0]] = wounds
            g.shim(E)
            c = combats(g)
            assert len(c) == 1 and int(c[0][7]) & 2          # a defence by hero 0
            used[(R is hi, wounds)] = order.index(int(c[0][4]))
    assert used == {(False, 1): 0, (False, 2): 0, (True, 1): 0, (True, 2): 1}


# ---- MQ-GAP-33 defend_with_courage ------------------------------------------------------------

def test_defend_with_courage():
    """Toggle ``defend_with_courage`` (MQ-GAP-33). "The targeted Hero must roll
    their available Combat Dice, add the result to their total Courage Ability."

    A Level 1 Bogbean on a grey Moon attacks on Strength (11). Jack has Courage 7,
    Strength 5 and rolls a 4. false: he adds Strength (9, loses, a life stolen).
    true: he adds Courage (11, fends it off). The enemy's ability and target are
    the same either way, and attacking is not affected."""
    lo, hi = both("defend_with_courage")
    for R, total, wounds in ((lo, 9, 1), (hi, 11, 0)):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        fix_die(g.T, 0, 4)
        assert [g.ability(0, a) for a in range(3)] == [7, 5, 3]
        g.place_bogbean(NE, 1, "path_e1")
        rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, NE)
        c = combats(g)[-1]
        assert (int(c[3]), int(c[4]), int(c[5])) == (L.ENEMY_BOG, STRENGTH, 11)
        assert int(c[6]) == total and bool(int(c[7]) & 1) == (wounds == 0)
        assert g.wounds(0) == wounds
        # Jack attacking on Strength adds his Strength with either value
        win = g.combat(0, L.ENEMY_BOG, STRENGTH, defending=False)
        assert not win and int(combats(g)[-1][6]) == 5 + 4


# ---- MQ-GAP-34 defence_any_fail_loses ------------------------------------------------------------

def test_defence_any_fail_loses():
    """Toggle ``defence_any_fail_loses`` (MQ-GAP-34). "If the total is less than the
    target score or the Hero has rolled a Fail/s result, the Bogbean triumphs."

    false: only a fumble (a Fail on a single die, or two Fails) loses a defence.
    true: any single Fail in a defence roll loses. Attacks are not affected."""
    lo, hi = both("defence_any_fail_loses")
    assert score(lo.T, [F, 5, 3], defending=True) == (True, 13)
    assert score(hi.T, [F, 5, 3], defending=True) == (False, -1)
    for R in (lo, hi):
        assert score(R.T, [F, 5, 3], defending=False) == (True, 13)
        assert score(R.T, [F, F, 6], ability=50, target=1, defending=True) == (False, -1)
        assert score(R.T, [5, 3], defending=True) == (True, 13)
    # in play: Jack (Strength 5) defends against a Snipe on Strength 11 with three
    # dice showing Fail, 5 and 6: 16 fends it off unless the Fail loses
    for R, wounds in ((lo, 0), (hi, 1)):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        g.s[L.G_POOL] = 3
        fix_die(g.T, 0, F)
        fix_die(g.T, 1, 5)
        fix_die(g.T, 2, 6)
        g.place_bogbean(NE, 1, "path_e1")
        rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, NE)
        assert g.wounds(0) == wounds
        assert g.bog_pos(NE) == -1


# ---- MQ-GAP-39 doubles_stack ----------------------------------------------------------------------

def test_doubles_stack():
    """Toggle ``doubles_stack`` (MQ-GAP-39). "Double all Dice results"

    false: several Doubles in one roll count once (x2). true: each Double
    multiplies again (x4 for two); the Blue Moon doubles on top of either."""
    lo, hi = both("doubles_stack")
    assert score(lo.T, [D2, D2, 3], ability=5, target=11) == (True, 11)
    assert score(hi.T, [D2, D2, 3], ability=5, target=11) == (True, 17)
    assert score(lo.T, [D2, D2, 3], ability=5, target=17) == (False, 11)
    assert score(hi.T, [D2, D2, 3], ability=5, target=17, blue=True) == (True, 29)
    assert score(lo.T, [D2, D2, 3], ability=5, target=17, blue=True) == (True, 17)
    for R in (lo, hi):                                  # a single Double is x2 either way
        assert score(R.T, [D2, 4], ability=5, target=13) == (True, 13)
    # in play: Jack (Courage 7) attacks a Snipe with green and grey dice fixed to
    # Double and the orange die to 3 (three dice: orange 3, green Double, grey Double)
    for R, total in ((lo, 7 + 6), (hi, 7 + 12)):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        g.s[L.G_POOL] = 3
        fix_die(g.T, 0, D2)
        fix_die(g.T, 1, D2)
        fix_die(g.T, 2, 3)
        g.combat(0, L.ENEMY_BOG, COURAGE, defending=False)
        assert int(combats(g)[-1][6]) == total


# ---- MQ-GAP-41 dandelion_beats_fumble -------------------------------------------------------------

def test_dandelion_beats_fumble():
    """Toggle ``dandelion_beats_fumble`` (MQ-GAP-41). "Dandelion: Automatic Win" ...
    "If they roll two fail results when rolling two or more dice, they have fumbled
    and again automatically lose the fight."

    true: a Dandelion wins even beside two Fails (also in defence). false: the
    fumble loses. A Dandelion without a fumble wins either way."""
    lo, hi = both("dandelion_beats_fumble")
    for defending in (False, True):
        assert score(hi.T, [DD, F, F], ability=0, target=99, defending=defending)[0] is True
        assert score(lo.T, [DD, F, F], ability=0, target=99, defending=defending) == (False, -1)
        for R in (lo, hi):
            assert score(R.T, [DD, 2], ability=0, target=99, defending=defending)[0] is True
        # one Fail: no fumble in an attack; in defence any Fail loses (MQ-GAP-34),
        # and only dandelion_beats_fumble lets the Dandelion save it
        expect_lo = not defending
        assert score(lo.T, [DD, F], ability=0, target=99, defending=defending)[0] is expect_lo
        assert score(hi.T, [DD, F], ability=0, target=99, defending=defending)[0] is True
    # in play: a Snipe attacks Jack, who rolls red Dandelion, orange Fail, green Fail
    for R, wounds in ((lo, 1), (hi, 0)):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        g.s[L.G_POOL] = 4
        fix_die(g.T, 3, DD)
        fix_die(g.T, 2, F)
        fix_die(g.T, 1, F)
        g.place_bogbean(NE, 1, "path_e1")
        rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, NE)
        assert g.wounds(0) == wounds


# ---- MQ-GAP-44 enemy_on_hero_attacks -----------------------------------------------------------------

def test_enemy_on_hero_attacks_bogbean():
    """Toggle ``enemy_on_hero_attacks`` (MQ-GAP-44). "If a Bogbean or Nightmare moves
    onto a location occupied by a Hero, they will attack in the Enemy Phase at the
    end of the round."

    true: a Bogbean already on a Hero's space stays there and attacks. false: only
    moving onto a Hero triggers an attack, so it does not attack that Hero and
    moves on towards another Hero."""
    lo, hi = both("enemy_on_hero_attacks")
    tab = lo.tables
    # the other heroes are far: with false the bogbean moves one step their way
    for R in (lo, hi):
        g = quiet_game(R=R, park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        fix_die(g.T, 0, 6)
        g.place_bogbean(NE, 1, "path_e1")
        g.enemy_phase(draws=False)
        c = combats(g)
        if R is hi:
            assert len(c) == 1 and int(c[0][2]) == 0        # hero 0 attacked (and fends it off)
            assert len(g.events("enemy_move")) == 0
        else:
            assert len(c) == 0
            p = g.bog_pos(NE)
            assert p != g.sp("path_e1") and p >= 0
            others = [g.pos(h) for h in (1, 2, 3)]
            start = g.sp("path_e1")
            assert min(int(tab.dist_e[p, o]) for o in others) == min(int(tab.dist_e[start, o]) for o in others) - 1
    # another hero one step away: with false the bogbean moves onto it and attacks it
    for R, victim in ((lo, 1), (hi, 0)):
        g = quiet_game(R=R, park=("path_e1", "path_e2", "path_s3", "path_w2"))
        g.s[L.G_MOON] = MOON_GREY
        fix_die(g.T, 0, 6)
        g.place_bogbean(NE, 1, "path_e1")
        g.enemy_phase(draws=False)
        c = combats(g)
        assert len(c) == 1 and int(c[0][2]) == victim, R is hi


def test_enemy_on_hero_attacks_nightmare():
    """Toggle ``enemy_on_hero_attacks`` (MQ-GAP-44). "If a Bogbean or Nightmare moves
    onto a location occupied by a Hero, they will attack in the Enemy Phase at the
    end of the round."

    The same for a Nightmare that was already on a Hero's space at the start of
    the Enemy Phase: true - it stays and attacks; false - it moves towards another
    Hero and does not attack the one it stood with."""
    lo, hi = both("enemy_on_hero_attacks")
    for R in (lo, hi):
        g = quiet_game(R=R, park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        fix_die(g.T, 0, DD)
        d = plain_disc(g)
        k = g.nightmare_to_board(d, "path_e1")
        g.enemy_phase(draws=False)
        if R is hi:
            assert g.nm_pos(k) == g.sp("path_e1")
            assert len(combats(g)) == 1 and int(combats(g)[0][2]) == 0
        else:
            assert g.nm_pos(k) != g.sp("path_e1")
            assert all(int(c[2]) != 0 for c in combats(g))


# ---- MQ-GAP-36 extra_die_any_level ------------------------------------------------------------------------

def _offered(g, r):
    """Attack a Snipe with every legal list cleared first; True if the last
    reaction window (the scripted policy accepts at once) offered relic ``r``."""
    g.legal[:] = -1
    g.combat(0, L.ENEMY_BOG, STRENGTH)
    return code_of(L.R_RELIC, r) in [int(x) for x in g.legal]


def code_of(op, arg):
    return L.code(int(op), int(arg))


def test_extra_die_any_level():
    """Toggle ``extra_die_any_level`` (MQ-GAP-36). "The Heroes begin the game with
    only the Level 1 (Grey Die). This is the only Die they can roll in combat at this
    time." ... "Heroes can roll a maximum of 3 Combat Dice* ... * Unless they have a
    Relic Card which allows them to roll more." (MQ-COMBAT-03..07)

    false: Dagda's Die adds only an unlocked die not already rolled, so with the
    Grey die alone it cannot be used (not offered); with all four dice unlocked it
    adds the fourth. true: it may add a die not yet unlocked."""
    lo, hi = both("extra_die_any_level")
    for R, pool, offered in ((lo, 1, False), (hi, 1, True), (lo, 4, True), (lo, 3, False)):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        g.s[L.G_POOL] = pool
        fix_all_dice(g.T, 1)                        # a losing roll opens the window
        r = g.R.names.relics.index("dagdas_die")
        g.s[L.G_RELIC_OWNER + r] = 0
        assert _offered(g, r) is offered, (pool, offered)
        levels = np.zeros(8, np.int32)
        n = core.dice_for_combat(g.s, g.T, levels, 1)
        assert n == (min(pool, 3) + 1 if offered else min(pool, 3))


def test_a_die_added_after_a_fumble_does_not_undo_it():
    """MQ-COMBAT-11/12 (MQ-GAP-36): "If a Hero rolls a Fail result (Blank) when
    rolling one Combat die, they have fumbled their attack and they automatically
    lose the fight." The Grey die alone shows a Fail; Dagda's Die then adds the Red
    die showing a Dandelion (extra_die_any_level lets it add a locked die): the
    fight is still lost. The random player uses the Relic in some games; every
    such fight is lost, and none is won."""
    R = toggled("extra_die_any_level", True)
    used = 0
    for seed in range(1, 30):
        # no re-roll in the team (Iur's Mountain Might would roll the dice anew)
        g = quiet_game(R=R, heroes=(JACK, 1, 3, 4), park=("path_e1",) + far_spaces()[1:], seed=seed)
        g.s[L.G_MOON] = MOON_GREY
        g.s[L.G_POLICY] = POLICY_RANDOM
        fix_die(g.T, 0, F)
        fix_die(g.T, 3, DD)
        r = g.R.names.relics.index("dagdas_die")
        g.s[L.G_RELIC_OWNER + r] = 0
        won = g.combat(0, L.ENEMY_BOG, STRENGTH)
        if len(g.events("relic_used")):
            used += 1
            assert not won
            assert int(g.events("combat")[-1][6]) == -1          # the logged total: a fumble
    assert used >= 3
    assert core.fumbled(R.T, np.array([F, 0, 0, 0, 0, 0, 0, 0], np.int32), 1, False)
    assert not core.fumbled(R.T, np.array([DD, F, F, 0, 0, 0, 0, 0], np.int32), 3, False)
