"""Combat: dice results, fumbles, the dice pool, Bogbean and Nightmare fights
(MQ-COMBAT)."""
import numpy as np

from mournesim import core, layout as L, rules

from .mq_game import NE, COURAGE, STRENGTH, MAGIC, IUR, JACK, MOON_BLUE, MOON_GREEN, MOON_GREY, MOON_RED, fix_all_dice, fix_die, get_rules
from .mq_positions import far_spaces, quiet_game

F, D2, DD = L.FACE_FAIL, L.FACE_DOUBLE, L.FACE_DANDELION


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
    g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_BOGBEAN + NE, STRENGTH))
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
    g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_BOGBEAN + NE, COURAGE))
    assert g.charms(0) == [0, 0, 0, 0]                  # stolen
    assert g.bog_pos(NE) == -1
    assert g.acts() == 2
    assert {L.code_op(c) for c in g.legal_codes(0)} <= {L.A_END, L.A_RELIC, L.A_SKILL}
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
    g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_NIGHTMARE + k, STRENGTH))
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


# ---- the dice pool grows with the 2nd and 3rd Nightmare gone -------------------------------

CHARM_KW = ("granite", "gold", "blackthorn", "flax")


def _cast_out_by_deposit(g, d, h):
    """Hero ``h`` stands on the Key Stone of disc ``d``, whose Disc lacks only one
    Charm, and deposits it: a real Cast-out through the deposit action."""
    k = g.nm_at_disc(d)
    need = [int(x) for x in g.R.tables.nm_charms[k]]
    last = need.index(max(need))
    for t in range(4):
        have = need[t] - (1 if t == last else 0)
        g.s[g.disc(d) + L.D_DEP + t] = have
        g.s[L.G_POOL_CHARMS + t] -= have
    g.put(h, g.R.names.spaces[int(g.R.tables.keystone[d])])
    g.set_charms(h, **{CHARM_KW[last]: 1})
    g.begin_turn(h)
    g.act(h, L.A_DEPOSIT, last)
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_CAST_OUT
    return k


def _dice_of_last_roll(g):
    """Levels (0 grey .. 3 red) of the dice in the last logged combat roll."""
    e = g.events("dice")[-1]
    return sorted(int(x) for x in f"{int(e[5]):04d}" if x != "9")[:int(e[3])]


def _probe(g, h):
    """The dice hero ``h`` rolls in a combat now (a roll against a Snipe)."""
    n = len(g.events("dice"))
    g.combat(h, L.ENEMY_BOG, COURAGE)
    assert len(g.events("dice")) == n + 1
    return _dice_of_last_roll(g)


def test_second_nightmare_gone_adds_the_orange_die_exactly_then():
    """"On Casting-out or defeating a second Nightmare, Heroes can add the Level 3
    (Orange Die) to their dice pool. Heroes can roll all three dice in Combat."
    MQ-COMBAT-05 (with MQ-COMBAT-04 for the first, MQ-COMBAT-26).

    A real Cast-out (the last Charm deposited) brings the Green die; then a second
    Nightmare is beaten on Courage and Magic, and the Orange die is still not in
    the pool; the third win (Strength) defeats it, and only the rolls after that
    win use Grey, Green and Orange."""
    g = quiet_game(park=far_spaces())
    fix_all_dice(g.T, DD)                               # every roll wins: only the dice rolled matter
    assert _probe(g, 1) == [0]
    _cast_out_by_deposit(g, 0, 0)                       # disc N: the first Nightmare gone
    assert int(g.s[L.G_POOL]) == 2 and _probe(g, 1) == [0, 1]
    k = g.nightmare_to_board(1, "path_e1")              # the Nightmare of disc E, escaped earlier
    g.put(1, "path_e1")
    tgt = (L.TGT_NIGHTMARE + k) * 4
    g.begin_turn(1)
    g.act(1, L.A_ATTACK, tgt + COURAGE)
    g.act(1, L.A_ATTACK, tgt + MAGIC)
    assert g.nm_pos(k) == g.sp("path_e1")               # wounded twice, still in play
    assert int(g.s[L.G_POOL]) == 2 and _dice_of_last_roll(g) == [0, 1]
    assert _probe(g, 1) == [0, 1]                       # not before the second Nightmare is gone
    g.act(1, L.A_ATTACK, tgt + STRENGTH)
    assert _dice_of_last_roll(g) == [0, 1]              # the winning roll itself: two dice
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_DEFEATED
    assert int(g.s[L.G_POOL]) == 3
    assert _probe(g, 1) == [0, 1, 2]                    # from now on: Grey, Green and Orange
    assert _probe(g, 2) == [0, 1, 2]                    # the pool is the Heroes', every Hero's
    pools = [int(e[3]) for e in g.events("dice_pool")]
    assert pools == [2, 3]


def test_third_nightmare_gone_adds_the_red_die_and_three_are_rolled():
    """"On Casting-out or defeating a third Nightmare, Heroes gain the Level 4 (Red
    Die) and can add that to their pool. Heroes may roll any three dice from the
    Dice pool in Combat." "Heroes can roll a maximum of 3 Combat Dice".  MQ-COMBAT-06,
    MQ-COMBAT-07 (MQ-GAP-35: the three highest; MQ-GAP-49: an escape adds no die).

    One Nightmare defeated and one Cast-out make three dice; another Nightmare
    escaping onto the board adds none; the next Cast-out (the third Nightmare
    gone) adds the Red die, and from then on three dice are rolled, Green,
    Orange and Red, never four, also after the fourth Nightmare is gone."""
    g = quiet_game(park=far_spaces())
    fix_all_dice(g.T, DD)
    k = g.nightmare_to_board(1, "path_e1")
    g.put(1, "path_e1")
    g.s[g.nm(k) + L.NM_WOUNDS] = (1 << COURAGE) | (1 << MAGIC)
    g.begin_turn(1)
    g.act(1, L.A_ATTACK, L.attack_arg(L.TGT_NIGHTMARE + k, STRENGTH))
    assert int(g.s[L.G_POOL]) == 2
    _cast_out_by_deposit(g, 0, 0)
    assert int(g.s[L.G_POOL]) == 3 and _probe(g, 2) == [0, 1, 2]
    g.set_clicks(2, 0)                                  # disc S released: its Nightmare escapes
    rules.escapes(g.s, g.T, g.ev)
    k2 = g.nm_at_disc(2)
    assert g.nm_pos(k2) == int(g.R.tables.keystone[2])
    assert int(g.s[L.G_POOL]) == 3 and _probe(g, 2) == [0, 1, 2]
    _cast_out_by_deposit(g, 3, 0)                       # the third Nightmare gone
    assert int(g.s[L.G_POOL]) == 4
    assert _probe(g, 2) == [1, 2, 3]                    # three dice, the Red one among them
    # the fourth Nightmare (the escaped one) defeated: still three dice
    g.put(3, g.R.names.spaces[int(g.R.tables.keystone[2])])
    g.s[g.nm(k2) + L.NM_WOUNDS] = (1 << COURAGE) | (1 << STRENGTH)
    g.begin_turn(3)
    g.act(3, L.A_ATTACK, L.attack_arg(L.TGT_NIGHTMARE + k2, MAGIC))
    assert _dice_of_last_roll(g) == [1, 2, 3]
    assert int(g.s[g.nm(k2) + L.NM_FATE]) == L.FATE_DEFEATED
    assert int(g.s[L.G_POOL]) == 4 and _probe(g, 2) == [1, 2, 3]


# ---- the enemy's card at the current moon, the declared Ability -----------------------------

SNIPE_NEW_MOON = (8, 9, 7)        # the rulebook: "a Snipe on a New Moon is Courage 8, Strength 9 and Magic 7"
SNIPE_BLOOD_MOON_COURAGE = 13     # "A Snipe, attacking on a Blood Moon, will attack on Courage with a score of 13"


def _attack_snipe(g, a):
    """Hero 0 (on path_e1) attacks a fresh Snipe there with Ability ``a``; returns
    the combat record (enemy row, ability, target, won)."""
    g.place_bogbean(NE, 1, "path_e1")
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_BOGBEAN + NE, a))
    e = g.events("combat")[-1]
    return int(e[3]), int(e[4]), int(e[5]), bool(int(e[7]) & 1)


def test_target_is_read_from_the_card_at_the_current_moon_for_the_declared_ability():
    """"Based on the current position of the Moon Marker, another player takes the
    respective Bogbean Card for the targeted Bogbean and announces their target
    levels. e.g. "a Snipe on a New Moon is Courage 8, Strength 9 and Magic 7". The
    attacking Player announces which Ability they are choosing to attack with, then
    rolls".  MQ-COMBAT-15 (MQ-COMBAT-01, MQ-COMBAT-02).

    Iur (Courage 5, Strength 7, Magic 3) rolls a 2 on the Grey die. On a New Moon
    each declared Ability is fought against the Snipe's value for that Ability
    (8, 9, 7, the rulebook's numbers), so only Strength (7 + 2 = 9) wins; on a
    Blood Moon the same Courage attack meets 13; on a Grey moon the card's Grey
    row; on the Blue Moon the Green row ("fight at their weakest level (Green)")."""
    g = quiet_game(heroes=(IUR, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
    fix_die(g.T, 0, 2)
    snipe = g.R.ruleset.enemies["snipe"]
    g.s[L.G_MOON] = MOON_GREEN
    got = [_attack_snipe(g, a) for a in (COURAGE, STRENGTH, MAGIC)]
    assert [x[0] for x in got] == [L.ENEMY_BOG] * 3                 # the Snipe's card (Level 1)
    assert [x[1] for x in got] == [COURAGE, STRENGTH, MAGIC]        # the declared Ability
    assert [x[2] for x in got] == list(SNIPE_NEW_MOON)
    assert [x[3] for x in got] == [False, True, False]              # 5+2 < 8, 7+2 >= 9, 3+2 < 7
    g.s[L.G_MOON] = MOON_RED
    assert _attack_snipe(g, COURAGE)[2] == SNIPE_BLOOD_MOON_COURAGE
    g.s[L.G_MOON] = MOON_GREY
    assert [_attack_snipe(g, a)[2] for a in range(3)] == list(snipe.grey)
    g.s[L.G_MOON] = MOON_BLUE
    assert [_attack_snipe(g, a)[2] for a in range(3)] == list(snipe.green)


def test_each_enemy_is_fought_on_its_own_card():
    """The values come from "the respective Bogbean Card for the targeted Bogbean"
    and from the Nightmare's own card ("Each Nightmare card shows the Combat
    Ability levels for each Phase of the Moon").  MQ-COMBAT-15, MQ-COMBAT-01.

    A Speedwell and a Louse Wort are fought on their own cards' rows, and each
    Nightmare on the card of its own name (the ruleset's data, by name), at the
    moon of the moment."""
    rs = get_rules().ruleset
    for moon, row in ((MOON_GREEN, "green"), (MOON_GREY, "grey"), (MOON_RED, "red")):
        g = quiet_game(park=("path_e1",) + far_spaces()[1:])
        fix_die(g.T, 0, DD)
        g.s[L.G_MOON] = moon
        for lv, name in ((2, "speedwell"), (3, "louse_wort")):
            for a in range(3):
                g.place_bogbean(NE, lv, "path_e1")
                g.s[g.slot(NE) + L.X_BOG_WOUNDS] = 0
                g.begin_turn(0)
                g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_BOGBEAN + NE, a))
                e = g.events("combat")[-1]
                assert (int(e[3]), int(e[4]), int(e[5])) == (L.ENEMY_BOG + lv - 1, a,
                                                             getattr(rs.enemies[name], row)[a])
                g.s[g.slot(NE) + L.X_BOG_POS] = -1          # clear a wounded Louse Wort
                g.s[g.slot(NE) + L.X_TILE] = -1
        for d in range(4):
            k = g.nightmare_to_board(d, "path_e1")
            name = g.R.names.nightmares[k]
            g.begin_turn(0)
            for a in range(3):
                g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_NIGHTMARE + k, a))
                e = g.events("combat")[-1]
                assert (int(e[3]), int(e[4]), int(e[5])) == (L.ENEMY_NM + k, a,
                                                             getattr(rs.nightmares[name], row)[a])
            assert g.nm_pos(k) == -1
