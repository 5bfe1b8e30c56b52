"""Exact combat odds (``mournesim.odds.p_win``, an enumeration of every face
combination) against hand-computed values, an independent Python enumeration
of the combat rules, and a Monte Carlo of the engine's own dice
(``core.roll_die`` + ``core.score_roll``).

Dice in the shipped ruleset (assumed data, ``dice.*``):
grey = fail,1,2,3,4,dandelion; green = fail,2,3,4,5,double;
orange = fail,3,4,5,6,double; red = fail,4,5,6,double,dandelion.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from mournesim import layout as L
from mournesim import sim
from mournesim.core import dice_for_combat, roll_die, score_roll
from mournesim.odds import p_attack, p_win
from simcore.rng import N_STREAMS, seed_streams

RULES = sim.prepare()
T = RULES.T
GREY, GREEN, ORANGE, RED = 0, 1, 2, 3


def levels_of(*lv):
    return np.array(lv, np.int32), len(lv)


def pool_levels(pool, rules=RULES):
    """The dice a hero rolls with ``pool`` dice unlocked (engine's dice_for_combat)."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.G_POOL] = pool
    lv = np.zeros(8, np.int32)
    n = dice_for_combat(s, rules.T, lv, 0)
    return lv[:n].copy(), n


def exact(levels, n, ability, target, bonus=0, blue=False, defending=False, rules=RULES):
    return p_win(rules.T, levels, n, ability, bonus, target, blue, defending)


def faces_of(level, rules=RULES):
    return [int(x) for x in rules.tables.dice[level, : rules.tables.dice_nf[level]]]


def reference(levels, ability, target, bonus=0, blue=False, rules=RULES):
    """Independent enumeration of MQ-COMBAT-02 and -08..12, MQ-MOON-05 with the
    shipped toggles (doubles do not stack, a dandelion beats a fumble, any
    single Fail does not lose a defence)."""
    tg = rules.ruleset.toggles
    wins = Fraction(0)
    combos = list(itertools.product(*[faces_of(lv, rules) for lv in levels]))
    for faces in combos:
        fails = sum(f == L.FACE_FAIL for f in faces)
        doubles = sum(f == L.FACE_DOUBLE for f in faces)
        dand = any(f == L.FACE_DANDELION for f in faces)
        nums = sum(f for f in faces if f < 10)
        fumble = fails >= (1 if len(faces) == 1 else 2)
        if dand and (not fumble or tg.dandelion_beats_fumble):
            wins += 1
            continue
        if fumble:
            continue
        mult = (2 ** doubles if tg.doubles_stack else 2) if doubles else 1
        if blue:
            mult *= 2
        wins += ability + bonus + nums * mult >= target
    return wins / len(combos)


def monte_carlo(levels, n, ability, target, bonus=0, blue=False, trials=20000, seed=12345, rules=RULES):
    """Win rate over ``trials`` rolls of the engine's own dice stream."""
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    seed_streams(np.uint64(seed), 0, rng)
    faces = np.zeros(8, np.int32)
    wins = 0
    for _ in range(trials):
        for i in range(n):
            faces[i] = roll_die(rules.T, rng, int(levels[i]))
        w, _v = score_roll(rules.T, faces, n, ability, bonus, target, blue, False)
        wins += bool(w)
    return wins / trials


# ------------------------------------------------------------ hand values --

@pytest.mark.parametrize("ability,target,bonus,blue,p", [
    (5, 8, 0, False, Fraction(3, 6)),    # need 3+: faces 3, 4 or dandelion
    (5, 5, 0, False, Fraction(5, 6)),    # any face but the Fail (a lone Fail fumbles, MQ-COMBAT-11)
    (10, 5, 0, False, Fraction(5, 6)),   # even when the ability alone suffices, the Fail fumbles
    (5, 10, 0, False, Fraction(1, 6)),   # only the Dandelion (automatic win, MQ-COMBAT-09)
    (5, 6, 0, False, Fraction(5, 6)),    # 1, 2, 3, 4 or dandelion
    (5, 7, 0, False, Fraction(4, 6)),    # 2, 3, 4 or dandelion
    (5, 8, 3, False, Fraction(5, 6)),    # +3 bonus (relic / skill): need 0+ from a non-Fail face
    (5, 8, 0, True, Fraction(4, 6)),     # Blue Moon doubles the roll (MQ-MOON-05): 2*f >= 3 -> 2, 3, 4, dandelion
    (5, 13, 0, True, Fraction(2, 6)),    # Blue Moon: 2*f >= 8 -> 4 or dandelion
])
def test_single_grey_die_hand_values(ability, target, bonus, blue, p):
    """One Grey die (fail, 1, 2, 3, 4, dandelion), the opening pool
    (MQ-COMBAT-03): hand-counted winning faces out of six, e.g. ability 5 vs
    target 8 wins on 3, 4 or a Dandelion, P = 3/6 (MQ-COMBAT-02, -08, -09, -11;
    MQ-MOON-05)."""
    lv, n = levels_of(GREY)
    assert exact(lv, n, ability, target, bonus, blue) == pytest.approx(float(p), abs=1e-12)


def test_two_dice_hand_value_double_fail_fumble():
    """Grey + Green, ability 0 vs target 1: the roll loses only on Fail+Fail
    (fumble with two dice, MQ-COMBAT-12) and Grey Fail + Green Double (a
    Double of nothing is 0, MQ-COMBAT-10): P = 34/36. Against target 18 no
    sum is enough, so only the Grey Dandelion wins, even beside a Green Fail
    (MQ-COMBAT-09): P = 6/36."""
    lv, n = levels_of(GREEN, GREY)
    assert exact(lv, n, 0, 1) == pytest.approx(34 / 36, abs=1e-12)
    # target 18 is out of reach of any sum (best: Green Double x Grey 4 = 8): only the Grey Dandelion wins
    assert exact(lv, n, 0, 18) == pytest.approx(6 / 36, abs=1e-12)


def test_no_dice_means_ability_alone():
    """With no dice the total is the ability (+ bonus): win iff it reaches the target."""
    lv = np.zeros(1, np.int32)
    assert exact(lv, 0, 8, 8) == 1.0
    assert exact(lv, 0, 7, 8) == 0.0
    assert exact(lv, 0, 7, 8, bonus=1) == 1.0


# ----------------------------------------------------- pool and enumeration --

def test_pool_dice_are_the_highest_three():
    """The dice rolled are every unlocked die, highest first, at most three
    (MQ-COMBAT-03..07): pools 1..4 roll [grey], [green, grey],
    [orange, green, grey], [red, orange, green]."""
    assert [list(pool_levels(p)[0]) for p in (1, 2, 3, 4)] == [[0], [1, 0], [2, 1, 0], [3, 2, 1]]


@pytest.mark.parametrize("pool", [1, 2, 3, 4])
@pytest.mark.parametrize("blue", [False, True])
def test_exact_odds_match_independent_enumeration(pool, blue):
    """For every pool size, Blue Moon or not, and a grid of abilities and
    targets, ``p_win`` equals an independent exact enumeration of the combat
    rules, and is monotone: never higher against a higher target."""
    lv, n = pool_levels(pool)
    for ability in (0, 4, 7):
        prev = 1.0
        for target in range(ability - 1, ability + 30, 2):
            p = exact(lv, n, ability, target, blue=blue)
            assert p == pytest.approx(float(reference(list(lv), ability, target, blue=blue)), abs=1e-12), \
                (pool, ability, target, blue)
            assert 0.0 <= p <= prev + 1e-12
            prev = p


@pytest.mark.parametrize("pool,ability,target,bonus,blue", [
    (1, 5, 8, 0, False),
    (2, 6, 12, 0, False),
    (2, 5, 15, 0, True),     # Blue Moon
    (3, 7, 17, 0, False),
    (3, 4, 20, 2, True),     # Blue Moon with a bonus
    (4, 8, 20, 0, False),
    (4, 5, 24, 3, False),
])
def test_exact_odds_agree_with_monte_carlo_of_engine_dice(pool, ability, target, bonus, blue):
    """``p_win`` (exact) agrees within 4 standard errors with 20,000 rolls of the
    engine's own dice (``roll_die`` on the dice stream + ``score_roll``), for
    several (pool, ability, target) cases including the Blue Moon."""
    lv, n = pool_levels(pool)
    p = exact(lv, n, ability, target, bonus, blue)
    trials = 20000
    mc = monte_carlo(lv, n, ability, target, bonus, blue, trials=trials, seed=1000 + pool)
    se = math.sqrt(max(p * (1 - p), 1e-9) / trials)
    assert abs(mc - p) <= 4 * se, (p, mc, se)


def test_engine_dice_faces_are_uniform():
    """Each face of each combat die comes up about 1/6 of the time on the
    engine's dice stream (MQ-COMBAT-08; 'each face equally likely', which the
    exact odds assume): within 4 standard errors over 12,000 rolls a die."""
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    seed_streams(np.uint64(7), 3, rng)
    trials = 12000
    for level in range(4):
        faces = faces_of(level)
        counts = {f: 0 for f in set(faces)}
        for _ in range(trials):
            counts[int(roll_die(T, rng, level))] += 1
        for f in set(faces):
            p = faces.count(f) / len(faces)
            se = math.sqrt(p * (1 - p) / trials)
            assert abs(counts[f] / trials - p) <= 4 * se, (level, f, counts[f])


@pytest.mark.parametrize("toggle", ["toggles.doubles_stack=true", "toggles.dandelion_beats_fumble=false"])
def test_exact_odds_follow_the_combat_toggles(toggle):
    """The exact odds follow the combat rulings' toggles: stacked Doubles
    (MQ-GAP-39) and a Dandelion that does not beat a fumble (MQ-GAP-41) change
    ``p_win`` exactly as the independent enumeration says."""
    alt = sim.prepare(overrides=(toggle,))
    changed = False
    for pool in (2, 3, 4):
        lv, n = pool_levels(pool, alt)
        for ability, target in ((3, 14), (5, 20), (0, 1), (6, 30)):
            p = exact(lv, n, ability, target, rules=alt)
            assert p == pytest.approx(float(reference(list(lv), ability, target, rules=alt)), abs=1e-12)
            changed |= abs(p - exact(lv, n, ability, target)) > 1e-12
    assert changed, f"{toggle} changed no probability"


@pytest.mark.parametrize("overrides", [(), ("toggles.doubles_stack=true",), ("toggles.dandelion_beats_fumble=false",),
                                       ("rules.max_combat_dice=4",), ("rules.max_combat_dice=1",)])
def test_attack_table_equals_enumeration_bit_for_bit(overrides):
    """The policies' table of attack odds (``p_attack``, counted once per
    ruleset) gives exactly the float ``p_win`` enumerates, for every pool,
    Blue Moon or not, and abilities/targets on both sides of the dice range:
    the policies choose as they did when they enumerated at each call."""
    rules = sim.prepare(overrides=overrides)
    for pool in range(1, 5):
        lv, n = pool_levels(pool, rules)
        for blue in (False, True):
            for ability in (0, 3, 9, 25):
                for target in range(0, 200, 1):
                    assert p_attack(rules.T, pool, target - ability, blue) == \
                        exact(lv, n, ability, target, blue=blue, rules=rules), (overrides, pool, blue, ability, target)


def test_the_dice_table_of_the_study_is_exact():
    """The study's one-roll odds (experiments.balance.mq_odds) against an
    enemy the hero matches, from the faces alone: one Grey die wins unless
    it shows its Fail (5/6); Grey and Green lose only to two Fails (1/36);
    with Orange too, two or three Fails fumble (16/216) unless the third
    die is the Grey's Dandelion, which beats a fumble by default (1/216
    back): 201/216. Fending off, any Fail loses, but the Grey's Dandelion
    still wins: 1/6 + (4/6)(5/6)^2 = 136/216."""
    from experiments import balance
    text = balance.mq_odds(None)
    attack, defend = [ln for ln in text.splitlines() if ln.startswith("| 0 or less |")]
    assert attack.split(" | ")[1:4] == [f"{100 * 5 / 6:.1f}%", f"{100 * 35 / 36:.1f}%", f"{100 * 201 / 216:.1f}%"]
    assert defend.split(" | ")[3] == f"{100 * 136 / 216:.1f}%"
    assert "a third die *lowers* the chance, from 97.2% with two dice to 93.1% with three" in text
