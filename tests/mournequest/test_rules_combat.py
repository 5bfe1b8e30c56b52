"""Combat: dice results, fumbles, the dice pool, Bogbean and Nightmare fights
(MQ-COMBAT)."""
import numpy as np

from mournesim import core, layout as L, rules

from .mq_game import IUR, JACK, MOON_GREEN, MOON_GREY, fix_die, get_rules
from .mq_positions import far_spaces, quiet_game

F, D2, DD = L.FACE_FAIL, L.FACE_DOUBLE, L.FACE_DANDELION
COURAGE, STRENGTH, MAGIC = range(3)
NE, SE, SW, NW = range(4)


def score(faces, ability=5, target=10, bonus=0, blue=False, defending=False, T=None):
    T = get_rules().T if T is None else T
    f = np.zeros(8, np.int32)
    f[:len(faces)] = faces
    win, total = core.score_roll(T, f, int(len(faces)), int(ability), int(bonus), int(target),
                                 bool(blue), bool(defending))
    return bool(win), int(total)


# ---- dice results ------------------------------------------------------------------------

def test_total_equal_to_target_wins():
    """"If the combined total ... is Equal to or Higher than the enemy's current
    target score in the same Ability - the Hero Wins. ... If the result is Lower, the
    Hero loses."  MQ-COMBAT-02."""
    assert score([4], ability=6, target=10) == (True, 10)
    assert score([3], ability=6, target=10) == (False, 9)


def test_single_fail_is_a_fumble():
    """"If a Hero rolls a Fail result (Blank) when rolling one Combat die, they have
    fumbled their attack and they automatically lose the fight."  MQ-COMBAT-11."""
    assert score([F], ability=50, target=1) == (False, -1)


def test_two_fails_with_several_dice_is_a_fumble_but_one_is_not():
    """"If they roll two fail results when rolling two or more dice, they have fumbled
    and again automatically lose the fight."  MQ-COMBAT-12. In an attack one Fail
    among several dice is not a fumble; in defence any Fail loses ("or the Hero has
    rolled a Fail/s result", MQ-ENEMY-09, MQ-GAP-34)."""
    assert score([F, F], ability=50, target=1) == (False, -1)
    assert score([F, F, 6], ability=50, target=1) == (False, -1)
    assert score([F, 5], ability=5, target=10) == (True, 10)
    assert score([F, 5, 3], ability=5, target=10) == (True, 13)
    assert score([F, 5, 3], ability=5, target=10, defending=True) == (False, -1)


def test_double_doubles_all_dice_once():
    """"Double all Dice results".  MQ-COMBAT-10 (MQ-GAP-38: the Double itself is 0 and
    Fails do not stop it; MQ-GAP-39: several Doubles count once)."""
    assert score([D2, 4], ability=5, target=13) == (True, 13)
    assert score([D2], ability=5, target=6) == (False, 5)
    assert score([D2, F, 3], ability=5, target=11) == (True, 11)
    assert score([D2, D2, 3], ability=5, target=11) == (True, 11)


def test_dandelion_is_an_automatic_win():
    """"Dandelion: Automatic Win".  MQ-COMBAT-09 (MQ-GAP-41: even alongside two
    Fails)."""
    assert score([DD], ability=0, target=99)[0] is True
    assert score([DD, F, F], ability=0, target=99)[0] is True


def test_blue_moon_doubles_dice_and_stacks_with_double():
    """"all dice rolls Heroes make are doubled".  MQ-MOON-05 (MQ-GAP-40: dice only,
    x4 with a Double)."""
    assert score([3], ability=5, blue=True) == (True, 11)
    assert score([D2, 3], ability=5, blue=True, target=17) == (True, 17)


# ---- dice pool -----------------------------------------------------------------------------

def test_dice_pool_grows_with_each_nightmare_and_rolls_at_most_three():
    """"Once a Nightmare is Cast-out ... or defeated in combat, the Heroes can add the
    Level 2 (Green Die) ... On Casting-out or defeating a second Nightmare ... Level 3
    (Orange Die) ... third ... Level 4 (Red Die) ... Heroes may roll any three dice"
    "Heroes can roll a maximum of 3 Combat Dice".  MQ-COMBAT-03..07 (MQ-GAP-35: the
    three highest)."""
    g = quiet_game(park=far_spaces())
    lv = np.zeros(8, np.int32)
    got = []
    fates = (L.FATE_CAST_OUT, L.FATE_DEFEATED, L.FATE_CAST_OUT, L.FATE_DEFEATED)
    got.append(sorted(lv[:core.dice_for_combat(g.s, g.T, lv, 0)].tolist()))
    for d in range(4):
        rules.nightmare_gone(g.s, g.T, g.ev, g.nm_at_disc(d), fates[d])
        got.append(sorted(lv[:core.dice_for_combat(g.s, g.T, lv, 0)].tolist()))
    assert got == [[0], [0, 1], [0, 1, 2], [1, 2, 3], [1, 2, 3]]
    assert int(g.s[L.G_POOL]) == 4


# ---- fighting bogbeans -----------------------------------------------------------------------

def test_attack_needs_same_space_and_attacker_chooses_ability():
    """"To Attack, a Hero must be on the same location as the enemy that they wish to
    fight." "the attacking player gets to choose what Ability to attack with".
    MQ-COMBAT-14, MQ-MOVE-06 (1 action to move, 1 to attack)."""
    g = quiet_game(park=("path_e1",) + far_spaces()[1:])
    g.place_bogbean(NE, 2, "path_e2")
    g.begin_turn(0)
    assert g.ops(0, L.A_ATTACK) == []
    g.act(0, L.A_MOVE, g.sp("path_e2"))
    tgt = (L.TGT_BOGBEAN + NE) * 4
    assert sorted(g.ops(0, L.A_ATTACK)) == [tgt + COURAGE, tgt + STRENGTH, tgt + MAGIC]


def test_beaten_snipe_drops_charm_and_turn_goes_on():
    """"Level 1 and Level 2 Bogbeans (Snipes and Speedwells) must be defeated in one
    challenge." "The Hero takes the item/s immediately ... removes the Bogbean
    miniature ... The Hero can then continue their turn".  MQ-COMBAT-16,
    MQ-COMBAT-18, MQ-COMBAT-20, MQ-ACT-04."""
    g = quiet_game(heroes=(IUR, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
    g.s[L.G_MOON] = MOON_GREEN
    fix_die(g.T, 0, 2)                                  # Iur Strength 7 + 2 = 9 = Snipe green Strength
    g.place_bogbean(NE, 1, "path_e1", drop=0)           # drops 1 Granite
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, (L.TGT_BOGBEAN + NE) * 4 + STRENGTH)
    assert g.bog_pos(NE) == -1 and g.slot_tile(NE) == -1
    assert g.charms(0) == [1, 0, 0, 0]
    assert g.acts() == 2 and int(g.s[L.G_TURN_OVER]) == 0
    assert g.moves(0)


def test_losing_an_attack_ends_the_turn():
    """"IMPORTANT: If a Hero is attacking on their Action, and either fumbles or loses
    the fight, their turn immediately ends."  MQ-COMBAT-13, MQ-COMBAT-21."""
    g = quiet_game(park=("path_e1",) + far_spaces()[1:])
    fix_die(g.T, 0, F)
    g.set_charms(0, gold=1)
    g.place_bogbean(NE, 1, "path_e1")
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, (L.TGT_BOGBEAN + NE) * 4 + COURAGE)
    assert g.charms(0) == [0, 0, 0, 0]                  # stolen
    assert g.bog_pos(NE) == -1
    assert g.acts() == 2
    assert {c // L.OP_BASE for c in g.legal_codes(0)} <= {L.A_END, L.A_RELIC, L.A_SKILL}
    # and the Moon still moves at the end of that turn
    m = int(g.s[L.G_MOON_STEPS])
    g.end_of_turn(0)
    assert int(g.s[L.G_MOON_STEPS]) == m + 1


def test_louse_wort_needs_two_wins_on_different_abilities():
    """"Level 3 Bogbeans (Louse Worts) must be defeated in two challenges. Heroes must
    beat them twice using two different Combat Abilities." "Level 3 Bogbean tiles also
    show a Card Symbol ... the player may also draw either an Equipment or Relic
    Card".  MQ-COMBAT-17, MQ-COMBAT-19 (MQ-GAP-55/56)."""
    g = quiet_game(heroes=(JACK, 1, 2, 3), park=("path_e1", "path_e1") + far_spaces()[2:])
    g.s[L.G_MOON] = MOON_GREY
    fix_die(g.T, 0, DD)
    g.place_bogbean(NE, 3, "path_e1")
    tgt = (L.TGT_BOGBEAN + NE) * 4
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, tgt + COURAGE)
    assert g.bog_pos(NE) == g.sp("path_e1")             # still there, wounded
    assert int(g.s[g.slot(NE) + L.X_BOG_WOUNDS]) == 1 << COURAGE
    assert sorted(g.ops(0, L.A_ATTACK)) == [tgt + STRENGTH, tgt + MAGIC]
    eq_n = int(g.s[L.G_EQ_N])
    # another hero lands the second win
    g.begin_turn(1)
    g.act(1, L.A_ATTACK, tgt + MAGIC)
    assert g.bog_pos(NE) == -1 and g.slot_tile(NE) == -1
    assert int(g.s[L.G_EQ_N]) == eq_n - 1               # the card reward was drawn
    assert sum(g.charms(1)) == 2


def test_nightmare_must_be_beaten_on_all_three_abilities():
    """"Nightmares must be defeated once on each ability (Courage, Strength & Magic)
    before they are defeated." "Nightmares do not run away when wounded." "Once the
    Nightmare has been beaten on all three Abilities, it is defeated and removed from
    the board".  MQ-COMBAT-24, MQ-COMBAT-25, MQ-COMBAT-26, MQ-COMBAT-04."""
    g = quiet_game(park=("path_e1",) + far_spaces()[1:])
    fix_die(g.T, 0, DD)
    k = g.nightmare_to_board(0, "path_e1")
    tgt = (L.TGT_NIGHTMARE + k) * 4
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, tgt + COURAGE)
    g.act(0, L.A_ATTACK, tgt + MAGIC)
    assert g.nm_pos(k) == g.sp("path_e1")
    assert sorted(g.ops(0, L.A_ATTACK)) == [tgt + STRENGTH]
    g.act(0, L.A_ATTACK, tgt + STRENGTH)
    assert g.nm_pos(k) == -1
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_DEFEATED
    assert g.disc_state(0) == L.DS_DEFEATED
    assert int(g.s[L.G_POOL]) == 2
    assert int(g.s[L.G_TALISMANS]) == 0                 # talismans only for a Cast-out


def test_losing_to_a_nightmare_costs_a_life_and_the_turn():
    """"A Hero will always lose 1 Life Point if they are defeated in combat by a
    Nightmare."  MQ-COMBAT-27, MQ-COMBAT-13."""
    g = quiet_game(park=("path_e1",) + far_spaces()[1:])
    fix_die(g.T, 0, F)
    k = g.nightmare_to_board(0, "path_e1")
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, (L.TGT_NIGHTMARE + k) * 4 + STRENGTH)
    assert g.wounds(0) == 1
    assert int(g.s[L.G_TURN_OVER]) == 1
    assert g.ops(0, L.A_MOVE) == []
    assert int(g.s[g.nm(k) + L.NM_WOUNDS]) == 0


def test_nightmare_on_its_disc_cannot_be_attacked():
    """Nightmares still on their Discs are not "in play on the main board".
    MQ-DISC-02 (MQ-GAP-69)."""
    g = quiet_game(park=("keystone_n", "disc_e") + far_spaces()[2:])
    g.begin_turn(0)
    assert g.ops(0, L.A_ATTACK) == []
    g.begin_turn(1)
    assert g.ops(1, L.A_ATTACK) == []
