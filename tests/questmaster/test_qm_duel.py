"""Quest Master rule tests on hand-built positions: the duel: attacks, shields, Mp, abilities, who goes on.

Scripting choices: seats use the built-in policies (0 random, 1 greedy).
Where a choice matters, the position is built so that only one choice is
legal or the greedy policy's preference is unambiguous (the docstring says
which). Dice are forced by overwriting every face of a die in the test's own
copy of ``T`` *after* setup; abilities the rule under test does not involve
are switched off (``no_abilities``). The board and the helpers are in
``qm_game.py`` and ``qm_positions.py``.
"""
from __future__ import annotations


import pytest

from questsim import layout as L
from questsim import tables as TB

from .qm_game import (BOMB, CH, CHEST, GREEDY, IT, RANDOM, RS, SWORD, QGame, rules)
from .qm_positions import (check_duel_log, duel_pair)


# ==================================================================== duel ==

@pytest.mark.parametrize("red,blue,mp", [(4, 1, (4, 1)), (2, 3, (2, 3)), (SWORD, CHEST, (0, 0)),
                                         (1, BOMB, (1, 0))])
def test_duel_mp_rolls_attacker_red_defender_blue(red, blue, mp):
    """QM-DUEL-02, QM-GAP-30: the attacker rolls the red die and the defender the
    blue die for Mp; a number gives that Mp, a symbol Mp 0."""
    g = duel_pair(red=red, blue=blue)
    g.duel(0)
    assert g.events("fight")[0] == (0, 1, mp[0], mp[1], 0)


def test_duel_free_first_attack_is_compulsory():
    """QM-DUEL-04, QM-RULING-01, QM-GAP-34: the attacker's first attack costs no Mp,
    is made at the character's At (2) and cannot be declined: with random
    policies (which would decline half the offered attacks) and Mp 4 each, the
    first attack of every one of 20 combats is the attacker's At 2 attack,
    with the attacker's Mp still 4."""
    for seed in range(20):
        g = QGame(["swordsman", "robot"], policies=RANDOM, seed=seed)
        g.clear_hands()
        g.no_abilities("swordsman", "robot")
        g.fix_dice(4, 4)
        g.clear_log()
        g.duel(0)
        att = g.events("attack")
        assert att[0] == (0, 1, 2, 0, 4)          # At 2, cost 0, Mp left 4
        assert g.events("damage")[0] == (1, 2, 0, 2, 0)


def test_duel_shield_subtracts_from_at():
    """QM-DUEL-05/07, QM-GAP-20, rulebook: "if the attacker attacks with At 5 and
    the defender uses the Item card "Shield +3", the defender loses 2 Hp".
    Attacker Mp 2 pays the Battle Axe (Mp 2, At +3): At 2 + 3 = 5; defender Mp 2
    pays Shield +3 (Mp 2). Damage 2, and then nobody has Mp for an attack."""
    g = duel_pair(red=2, blue=2)
    g.set_hand(0, ["battle_axe"])
    g.set_hand(1, ["shield_3"])
    g.duel(0)
    assert g.events("damage") == [(1, 5, 3, 2, 0)]
    assert g.hp(1) == RS.characters["wizard"].hp - 2
    assert g.hp(0) == RS.characters["priest"].hp
    assert g.item_used() == sorted([IT["battle_axe"], IT["shield_3"]])


def test_duel_damage_floored_at_zero():
    """QM-DUEL-07, QM-GAP-19: Shield +5 against At 2: the damage is 0 (not -3: a
    shield never heals)."""
    g = duel_pair(red=SWORD, blue=3)
    g.set_hand(1, ["shield_5"])
    g.duel(0)
    assert g.events("damage") == [(1, 2, 5, 0, 0)]
    assert g.hp(1) == RS.characters["wizard"].hp


def test_duel_alternating_paid_attacks_until_mp_runs_out():
    """QM-DUEL-03, QM-DUEL-08, QM-DUEL-10, QM-DUEL-12, QM-GAP-32, QM-GAP-35: after the free attack the sides
    alternate paid attacks while they can pay. Swordsman (paid Mp 2 -> At 3)
    vs Robot (Mp 2 -> At 2), Mp 4 each, no cards:

        A free At 2 (A Mp 4) | B At 2 (B Mp 2) | A At 3 (A Mp 2) | B At 2 (B Mp 0) | A At 3 (A Mp 0)
    then neither can pay: B loses 2+3+3 = 8, A loses 2+2 = 4, 5 attacks."""
    g = duel_pair("swordsman", "robot", red=4, blue=4)
    g.duel(0)
    # (attacker, defender, At, cost, Mp left after paying)
    assert g.events("attack") == [(0, 1, 2, 0, 4), (1, 0, 2, 2, 2), (0, 1, 3, 2, 2), (1, 0, 2, 2, 0),
                                  (0, 1, 3, 2, 0)]
    assert g.hp(1) == 23 - 8
    assert g.hp(0) == RS.characters["swordsman"].hp - 4
    assert int(g.s[L.G_ATTACKS]) == 5
    assert g.get(0, L.S_MP) == 0 and g.get(1, L.S_MP) == 0
    # the Robot is due and has Mp 0: it cannot pay, and the combat ends
    assert g.events("cannot_pay") == [(1, 0, 2, 0, 0)]
    assert g.events("duel_end") == [(0, 1, L.END_CANNOT_PAY, 5, 0)]


@pytest.mark.parametrize("lone,attacks,hp_lost", [(0, 1, 2), (1, 3, 8)])
def test_duel_ends_for_both_when_the_side_due_cannot_pay(lone, attacks, hp_lost):
    """QM-DUEL-08/12, QM-GAP-35: "when a player can no longer attack because
    they have no Mp left, the combat ends for both sides". Swordsman (Mp 4,
    paid Mp 2 -> At 3) attacks the Robot (Mp 1: no paid attack, which costs
    Mp 2): after the free At 2 the Robot is due and cannot pay, so the combat
    ends -- the Robot loses 2. With the other reading (toggle
    lone_attacker_continues = true) the Swordsman keeps attacking alone, At 3
    twice more: the Robot loses 2 + 3 + 3 = 8 (seed 1, game 3 of greedy players,
    round 1: Hp 19 -> 17 instead of 19 -> 11)."""
    g = duel_pair("swordsman", "robot", red=4, blue=1)
    g.T[TB.P_LONE_ATTACKER_CONTINUES] = lone
    g.duel(0)
    assert len(g.events("attack")) == attacks == int(g.s[L.G_ATTACKS])
    assert g.hp(1) == 23 - hp_lost
    assert g.events("cannot_pay")[0] == (1, 1, 2, 0, 0)           # the Robot: Mp 1, cheapest attack Mp 2
    why = L.END_CANNOT_PAY if not lone else L.END_BOTH_STOPPED
    assert g.events("duel_end") == [(0, 1, why, attacks, 0)]


@pytest.mark.parametrize("lone,after_decline", [(0, 1), (0, 0), (1, 1), (1, 0)])
def test_duel_declines_and_stops_follow_the_rules(lone, after_decline):
    """QM-DUEL-10/11/12, QM-GAP-34/35, in every reading: a paid attack may be
    declined, and a side that declines makes no more attacks (step 8); by
    default the other side keeps attacking until it stops or cannot pay
    (toggle attacker_continues_after_decline; false: the decline ends the
    combat), and the side due that cannot pay ends the combat for both (step
    9; toggle lone_attacker_continues: the other goes on). Random policies
    (which decline about half the attacks offered), Mp 4 each, 40 combats:
    every logged combat follows these rules, and declines do occur."""
    declines = 0
    for seed in range(40):
        g = QGame(["swordsman", "robot"], policies=RANDOM, seed=seed)
        g.T[TB.P_LONE_ATTACKER_CONTINUES] = lone
        g.T[TB.P_ATTACKER_CONTINUES_AFTER_DECLINE] = after_decline
        g.clear_hands()
        g.no_abilities("swordsman", "robot")
        g.fix_dice(4, 4)
        g.clear_log()
        g.duel(0)
        declines += check_duel_log(g, {0: 4, 1: 4}, {0: 2, 1: 2}, {0: 3, 1: 2}, lone, after_decline)
    assert declines >= 5


def test_duel_after_a_decline_the_other_side_attacks_again():
    """QM-DUEL-11/12 (toggle attacker_continues_after_decline, default true):
    "A player who has become the attacking side but does not attack may not
    attack again" and the combat ends "when both players have stopped".
    Swordsman (Mp 4) attacks the Robot (Mp 3, Hp 3, holding Shield +3 for
    Mp 2). The Swordsman's free attack is set to At 0 in this position, so
    the Robot keeps its Mp through it. Greedy then declines the Robot's
    counter: paying Mp 2 would leave no Mp for the shield against the
    Swordsman's next At 3, which would knock it out. The Swordsman attacks
    again (the Robot shields it), and once more (the Robot, out of cards, is
    knocked out): three attacks, all the Swordsman's. With the toggle off the
    decline ends the combat after the free attack, and the Robot survives."""
    for after, n_att, alive in ((1, 3, False), (0, 1, True)):
        g = duel_pair("swordsman", "robot", red=4, blue=3)
        g.T[TB.O_CHAR + CH["swordsman"] * TB.CH + TB.C_AT] = 0
        g.T[TB.P_ATTACKER_CONTINUES_AFTER_DECLINE] = after
        g.set_hp(1, 3)
        g.set_hand(1, ["shield_3"])
        g.duel(0)
        assert g.events("decline") == [(1, 0, 3, 0, 0)]
        assert [e[0] for e in g.events("attack")] == [0] * n_att
        assert g.alive(1) == alive
        why = L.END_DECLINED if not after else L.END_ELIMINATED
        assert g.events("duel_end") == [(0, 1, why, n_att, 0)]


def test_duel_worked_example_of_the_rulebook():
    """QM-DUEL-13 (with QM-DUEL-02, QM-DUEL-03, QM-DUEL-04, QM-DUEL-05, QM-DUEL-06,
    QM-DUEL-07, QM-DUEL-08, QM-DUEL-10, QM-DUEL-12, QM-END-02, QM-END-03,
    QM-GAP-11, QM-GAP-12): the rulebook's example, step by step. Set-up: Player A
    = Swordsman (a Warrior; its printed paid attack is Mp 2 -> At 3, the QM-GAP-12
    ruling) at Hp 3 holding the Item card "Sword"; Player B = Robot at Hp 4 with
    an empty hand. The Robot's shield is +2 as in the example via the ruling's own
    override ``characters.robot.abilities.shield.effects.0.n=2`` (QM-GAP-11). The
    Swordsman's Power Strike ability is switched off in T (the example's Warrior
    uses no ability). Mp dice forced: red (A) 2, blue (B) 3. Greedy plays the
    Sword and the Robot's shield, and attacks whenever it can pay.

        1. Mp: A 2, B 3
        2. A free At 2 + Sword (Mp 0) = At 3
        3. B pays Mp 1 (3 -> 2) for Shield +2: damage 1, B Hp 4 -> 3
        4. B pays Mp 2 (2 -> 0), At 2
        5. A Hp 3 -> 1
        6. A pays Mp 2 (2 -> 0), At 3
        7. B Hp 3 -> 0
        8. B loses (and A, the last player, wins)
    """
    R2 = rules("characters.robot.abilities.shield.effects.0.n=2")
    g = QGame(["swordsman", "robot"], R=R2)
    g.no_abilities("swordsman")
    g.set_hand(0, ["sword"])
    g.set_hand(1, [])
    g.set_hp(0, 3)
    g.set_hp(1, 4)
    g.fix_dice(2, 3)
    g.set_item_used([])
    g.clear_log()
    g.duel(0)
    assert g.events("fight") == [(0, 1, 2, 3, 0)]
    assert g.events("play_item") == [(0, IT["sword"], 0, 2, 0),      # A: Sword, Mp 0, A Mp 2
                                     (1, -1, 1, 2, 0)]               # B: ability 0 (Shield), Mp 1, B Mp 2
    # (attacker, defender, the attack's own At, its cost, Mp left); cards add to the At after
    assert g.events("attack") == [(0, 1, 2, 0, 2), (1, 0, 2, 2, 0), (0, 1, 3, 2, 0)]
    assert g.events("damage") == [(1, 3, 2, 1, 0), (0, 2, 0, 2, 0), (1, 3, 0, 3, 0)]
    assert [e[:2] for e in g.events("hp")] == [(1, -1), (0, -2), (1, -3)]   # 4 -> 3, 3 -> 1, 3 -> 0
    assert g.events("duel_end") == [(0, 1, L.END_ELIMINATED, 3, 0)]
    assert g.hp(0) == 1
    assert g.hp(1) == 0 and not g.alive(1)
    assert g.win == (L.WIN_LAST_STANDING, 0)
    assert int(g.s[L.G_ATTACKS]) == 3
    assert g.item_used() == [IT["sword"]]


def test_duel_worked_example_with_printed_robot_shield_same_outcome():
    """QM-GAP-11, QM-CHAR-08: with the printed Shield +1 the same combat gives
    damage 2 to B first (Hp 4 -> 2), then B hits A to 1 and A's At 3 finishes
    B: the outcome (B loses) is the same."""
    g = QGame(["swordsman", "robot"])
    g.no_abilities("swordsman")
    g.set_hand(0, ["sword"])
    g.set_hand(1, [])
    g.set_hp(0, 3)
    g.set_hp(1, 4)
    g.fix_dice(2, 3)
    g.clear_log()
    g.duel(0)
    assert g.events("damage") == [(1, 3, 1, 2, 0), (0, 2, 0, 2, 0), (1, 3, 0, 3, 0)]
    assert g.win == (L.WIN_LAST_STANDING, 0)


def test_robot_shield_once_per_combat():
    """QM-CHAR-08: the Robot's shield can be used only once per combat: with Mp 4
    it shields the first attack (At 2 - 1 = 1) but not the second (At 3).
    Swordsman vs Robot, Mp 4 each, no cards."""
    g = QGame(["swordsman", "robot"])
    g.no_abilities("swordsman")
    g.clear_hands()
    g.fix_dice(4, 4)
    g.clear_log()
    g.duel(0)
    dmg = [e for e in g.events("damage") if e[0] == 1]
    assert dmg[0] == (1, 2, 1, 1, 0)
    assert all(e[2] == 0 for e in dmg[1:])
    assert len([e for e in g.events("play_item") if e[0] == 1]) == 1


@pytest.mark.parametrize("stack,shield,dmg", [(1, 3, 1), (0, 2, 2)])
def test_shields_stack_ability_and_card(stack, shield, dmg):
    """QM-DUEL-06/07, QM-GAP-13/19 (toggle shields_stack, default true): the Robot
    adds its Shield +1 ability (Mp 1) to a Shield +2 card (Mp 1): against At 4
    (2 + two Swords) the shield is 3 and the damage 1; with the toggle off only
    the largest shield (2) counts: damage 2."""
    g = QGame(["priest", "robot"])
    g.clear_hands()
    g.no_abilities("priest")
    g.T[TB.P_SHIELDS_STACK] = stack
    g.fix_dice(SWORD, 3)
    g.set_hand(0, ["sword", "sword"])
    g.set_hand(1, ["shield_2"])
    g.clear_log()
    g.duel(0)
    assert g.events("damage") == [(1, 4, shield, dmg, 0)]
    assert g.hp(1) == 23 - dmg


def test_max_attacks_per_combat_cap():
    """QM-GAP-36 (rules.max_attacks_per_combat = 2, the forum questioner's reading):
    with Mp 4 each the combat stops after the free attack and one counter."""
    g = duel_pair("swordsman", "robot", red=4, blue=4)
    g.T[TB.P_MAX_ATTACKS_PER_COMBAT] = 2
    g.duel(0)
    assert g.events("attack") == [(0, 1, 2, 0, 4), (1, 0, 2, 2, 2)]
    assert g.events("duel_end") == [(0, 1, L.END_CAP, 2, 0)]


def test_phoenix_revives_to_five_without_carrying_damage_in_combat():
    """QM-RULING-02, QM-GAP-45: a defender at Hp 1 holding the Phoenix is hit for
    At 2: they revive at Hp 5 (not 4: the extra 1 point is not lost), stay in
    the game, and the Phoenix goes to the used pile."""
    g = duel_pair()
    g.set_hp(1, 1)
    g.set_hand(1, ["phoenix"])
    g.duel(0)
    assert g.hp(1) == 5
    assert g.alive(1)
    assert g.hand(1) == []
    assert g.item_used() == [IT["phoenix"]]
    assert g.win == (L.WIN_NONE, -1)


def test_phoenix_outside_combat_and_elimination_without_it():
    """QM-RULING-02, QM-GAP-39/45: the Phoenix also saves from Hp 0 outside combat
    (a trap of Hp -3 at Hp 2 gives Hp 5); without one the player is out."""
    g = QGame(["robot", "priest", "wizard"])
    g.clear_hands()
    g.set_hp(0, 2)
    g.set_hand(0, ["phoenix", "sword"])
    g.lose(0, 3)
    assert g.hp(0) == 5 and g.alive(0)
    assert g.hand(0) == [IT["sword"]]
    g.set_hp(1, 2)
    g.lose(1, 3)
    assert g.hp(1) == 0 and not g.alive(1)


def test_fairy_bow_victim_chooses_the_discard():
    """QM-RULING-03, QM-GAP-46: the Fairy Bow (Mp 2, At +1) makes the combat
    opponent discard 1 Item card of the *opponent's* choice. The attacker is
    random (it plays the Bow in some seeds), the victim greedy (it always
    gives up its weakest card, the Sword, never the Shield +5): in every
    combat where the Bow was played the Sword went, at At 3."""
    played = 0
    for seed in range(20):
        g = QGame(["priest", "wizard"], policies=(RANDOM, GREEDY), seed=seed)
        g.clear_hands()
        g.no_abilities("priest", "wizard")
        g.fix_dice(2, CHEST)
        g.set_item_used([])
        g.set_hand(0, ["fairy_bow"])
        g.set_hand(1, ["sword", "shield_5"])
        g.clear_log()
        g.duel(0)
        if IT["fairy_bow"] in g.item_used():
            played += 1
            assert g.hand(1) == [IT["shield_5"]]
            assert g.item_used() == sorted([IT["fairy_bow"], IT["sword"]])
            assert g.events("damage") == [(1, 3, 0, 3, 0)]
        else:
            assert g.hand(1) == sorted([IT["sword"], IT["shield_5"]])
    assert played >= 4


def test_life_mirror_absorbs_attack_and_gains_hp():
    """QM-RULING-04, QM-GAP-44: the absorbing card ("changes the attack power")
    cancels the attack and the user gains its At: the attacker plays two
    Swords (Mp 0 each): At 2 + 1 + 1 = 4; the defender pays the Life Mirror
    (Mp 3): no damage, Hp +4."""
    g = duel_pair(red=SWORD, blue=3)
    g.set_hand(0, ["sword", "sword"])
    g.set_hand(1, ["life_mirror"])
    hp = g.hp(1)
    g.duel(0)
    assert g.events("absorb") == [(1, 4, L.GAIN_HP, 0, 0)]
    assert g.events("damage") == []
    assert g.hp(1) == hp + 4


@pytest.mark.parametrize("lone,robot_attacks", [(0, 1), (1, 2)])
def test_mana_mirror_absorbs_attack_and_gains_mp(lone, robot_attacks):
    """QM-RULING-04, QM-GAP-31/44: the Mana Mirror (Mp 2) absorbs an At 4 attack
    (At 2 + two Swords) and gives Mp 4 for this combat; the Robot pays Mp 2 for
    an At 2 attack. Then the Priest (Mp 0) is due and cannot pay, so the
    combat ends (QM-DUEL-12): the Priest loses 2. With toggle
    lone_attacker_continues the Robot attacks again: the Priest loses 4."""
    g = duel_pair("priest", "robot", red=SWORD, blue=2)
    g.T[TB.P_LONE_ATTACKER_CONTINUES] = lone
    g.set_hand(0, ["sword", "sword"])
    g.set_hand(1, ["mana_mirror"])
    g.duel(0)
    assert g.events("absorb") == [(1, 4, L.GAIN_MP, 0, 0)]
    assert g.events("attack") == [(0, 1, 2, 0, 0), (1, 0, 2, 2, 2), (1, 0, 2, 2, 0)][:1 + robot_attacks]
    assert g.hp(1) == 23
    assert g.hp(0) == RS.characters["priest"].hp - 2 * robot_attacks


def test_attack_cards_only_while_attacking_shield_cards_only_while_defending():
    """QM-CARD-04, QM-CARD-05, QM-CARD-07, QM-CARD-08, QM-DUEL-06: a defender cannot use an attack card and an
    attacker cannot use a shield card; red (foot) cards are never combat
    cards. Attacker holds Shield +2 and a Potion, defender a Battle Axe; all
    affordable (Mp 4 each): none is played, the free attack does 2."""
    g = duel_pair(red=4, blue=4)
    g.set_hand(0, ["shield_2", "potion"])
    g.set_hand(1, ["battle_axe"])
    g.T[TB.P_MAX_ATTACKS_PER_COMBAT] = 1
    g.duel(0)
    assert g.events("play_item") == []
    assert g.events("damage") == [(1, 2, 0, 2, 0)]
