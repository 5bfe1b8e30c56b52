"""The blunder audit (mournesim/audit.py): each kind counted on a hand-built
position where the choice is wrong on the rules alone, and not counted on a
near miss that looks like it but is not one."""
import numpy as np

from mournesim import audit, core, layout as L, tables as TB

from .mq_game import FINIAS, JACK, POLICY_FIRST, POLICY_RANDOM, TESS, code, fix_all_dice, fix_die
from .mq_positions import final_battle, quiet_game

STRENGTH = 1


def blunders(g, name):
    return int(g.s[L.G_CNT + L.COUNTER_NAMES.index("blunder_" + name)])


def set_enemy(g, row, a, value):
    """Enemy-table row ``row`` has ``value`` on ability ``a`` at every moon colour."""
    for colour in range(TB.ENEMY_W // TB.ABIL_W):
        g.T[TB.O_ENEMY + row * TB.ENEMY_W + colour * TB.ABIL_W + a] = value


# ---- futile reactions (MQ-COMBAT-11, MQ-CHARM-13, MQ-HERO-07) -------------------

def _fights(g, need_over, tokens=3, talismans=0, fights=40):
    """Jack (Brave Heart: +2 per Skill token) fights a Level 1 Bogbean on
    Strength, every die face a 1 (one die: +1), the enemy ``need_over`` above
    what the roll and every token give; the random policy reacts at will.
    Returns (reactions spent, futile ones counted)."""
    fix_all_dice(g.T, 1)
    ab = int(g.ability(0, STRENGTH))
    set_enemy(g, L.ENEMY_BOG, STRENGTH, ab + 1 + 2 * tokens + need_over)
    g.s[L.G_POLICY] = POLICY_RANDOM
    spent = 0
    for _ in range(fights):
        g.s[g.hero_off(0) + L.H_SKILLS] = tokens
        g.s[L.G_TALISMANS] = talismans
        before = int(g.s[L.G_CNT + L.COUNTER_NAMES.index("skills_used")]) + \
            int(g.s[L.G_CNT + L.COUNTER_NAMES.index("talisman_combat")])
        g.combat(0, L.ENEMY_BOG, STRENGTH)
        spent += int(g.s[L.G_CNT + L.COUNTER_NAMES.index("skills_used")]) + \
            int(g.s[L.G_CNT + L.COUNTER_NAMES.index("talisman_combat")]) - before
    return spent, blunders(g, "futile_reactions")


def test_every_bonus_spent_on_a_roll_out_of_reach_is_futile():
    """MQ-COMBAT-11, MQ-HERO-07: one short of what all three +2 tokens can
    add: every token spent is spent on a fight already lost."""
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    spent, futile = _fights(g, need_over=1)
    assert spent > 0 and futile == spent


def test_a_bonus_that_needs_every_token_is_not_futile():
    """MQ-COMBAT-11, MQ-HERO-07: the near miss: all three tokens together
    just reach the enemy, so no token spent is futile (a Skill counts as
    often as its tokens allow)."""
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    spent, futile = _fights(g, need_over=0)
    assert spent > 0 and futile == 0


def test_a_talisman_that_cannot_change_the_roll_is_futile_one_that_can_is_not():
    """MQ-CHARM-13: a Talisman re-rolls one die. Every face a 1: re-rolling
    cannot help, so each Talisman spent is futile. With a Dandelion (an
    automatic win, MQ-COMBAT-09) on the die, a re-roll may win: not futile."""
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    spent, futile = _fights(g, need_over=1, tokens=0, talismans=2)
    assert spent > 0 and futile == spent
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    fix_all_dice(g.T, 1)
    g.T[TB.O_DICE + 0 * TB.DIE_W + 0] = L.FACE_DANDELION
    faces = np.array([1, 0, 0, 0, 0, 0, 0, 0], np.int32)
    levels = np.zeros(8, np.int32)
    legal = np.array([code(L.R_ACCEPT), code(L.R_TALISMAN, 0)] + [0] * 6, np.int32)
    g.s[L.G_TALISMANS] = 1
    assert audit.combat_winnable(g.s, g.T, legal, 2, faces, levels, 1, 1, 3, 0, 99, False, False)
    g.s[L.G_TALISMANS] = 0
    assert not audit.combat_winnable(g.s, g.T, legal, 1, faces, levels, 1, 1, 3, 0, 99, False, False)


def test_a_fumble_cannot_be_undone_by_a_bonus():
    """MQ-COMBAT-12: two Fails fumble whatever is added: a bonus on a fumble
    is futile, though the bonus would cover the total."""
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    g.s[g.hero_off(0) + L.H_SKILLS] = 3
    faces = np.array([L.FACE_FAIL, L.FACE_FAIL, 0, 0, 0, 0, 0, 0], np.int32)
    levels = np.array([1, 0, 0, 0, 0, 0, 0, 0], np.int32)
    legal = np.array([code(L.R_ACCEPT), code(L.R_SKILL, 0)] + [0] * 6, np.int32)
    assert not audit.combat_winnable(g.s, g.T, legal, 2, faces, levels, 2, 2, 5, 0, 6, False, False)
    faces[1] = 2   # one Fail is no fumble with two dice: 5 + 2 + a bonus wins
    assert audit.combat_winnable(g.s, g.T, legal, 2, faces, levels, 2, 2, 5, 0, 9, False, False)


# ---- charms found and discarded (MQ-CHARM-05, MQ-HERO-06) ------------------------

FLAX, GOLD = 3, 1


def test_a_charm_found_by_a_skill_and_discarded_that_turn_is_a_blunder():
    """MQ-HERO-06, MQ-CHARM-05: Finias spends a Skill token on a Flax and
    throws it away in the same turn."""
    g = quiet_game(heroes=(FINIAS, 1, 2, 3))
    g.begin_turn(0)
    audit.turn_begins(g.s, g.T, 0)
    g.act(0, L.A_SKILL, L.sub_arg(0, FLAX))
    g.act(0, L.A_DISCARD_CHARM, FLAX)
    assert blunders(g, "found_discarded") == 1


def test_discarding_a_charm_held_from_before_is_not():
    """The near miss: Finias finds a Gold but discards a Flax he already held;
    and a Flax found on an earlier turn may be discarded later."""
    g = quiet_game(heroes=(FINIAS, 1, 2, 3))
    g.set_charms(0, flax=1)
    g.begin_turn(0)
    audit.turn_begins(g.s, g.T, 0)
    g.act(0, L.A_SKILL, L.sub_arg(0, GOLD))
    g.act(0, L.A_DISCARD_CHARM, FLAX)
    g.act(0, L.A_SKILL, L.sub_arg(0, FLAX))
    g.begin_turn(0)
    audit.turn_begins(g.s, g.T, 0)
    g.act(0, L.A_DISCARD_CHARM, FLAX)
    assert blunders(g, "found_discarded") == 0


# ---- moves undone (MQ-ACT-04, MQ-MOVE-10, MQ-CARD-03) ----------------------------

def _walker(start="path_n2"):
    g = quiet_game(heroes=(JACK, 1, 2, 3), park=("path_n1", "path_e4", "path_s3", "path_w2"))
    g.put(0, start)
    g.begin_turn(0)
    audit.turn_begins(g.s, g.T, 0)
    return g


def _plain_neighbour(g, frm, avoid=()):
    for j in range(int(g.T[TB.O_DEG + frm])):
        b = int(g.T[TB.O_ADJ + frm * 8 + j])
        if int(g.T[TB.O_KIND + b]) not in (L.K_NEXUS, L.K_TUNNEL, L.K_DISC) and b not in avoid:
            return b
    raise AssertionError("no plain neighbour")


def test_there_and_back_then_stopping_is_an_undone_move():
    """A move straight back, then an action that is not a move: the two moves
    did nothing."""
    g = _walker()
    a = g.pos(0)
    b = _plain_neighbour(g, a)
    g.act(0, L.A_MOVE, b)
    g.act(0, L.A_MOVE, a)
    audit.turn_ends(g.s, g.legal, 0)
    assert blunders(g, "moves_undone") == 1


def test_a_path_back_through_a_space_or_a_forced_first_step_is_not():
    """The near misses: back through the space and on (a path), and a first
    move the start arrow forced (MQ-MOVE-10) followed by the way back."""
    g = _walker()
    a = g.pos(0)
    b = _plain_neighbour(g, a)
    g.act(0, L.A_MOVE, b)
    g.act(0, L.A_MOVE, a)
    g.act(0, L.A_MOVE, _plain_neighbour(g, a, avoid=(b,)))
    audit.turn_ends(g.s, g.legal, 0)
    assert blunders(g, "moves_undone") == 0
    g = _walker()
    a = g.pos(0)
    b = _plain_neighbour(g, a)
    g.s[L.G_MUST_MOVE] = 2
    g.force(0, L.A_MOVE, b)
    g.act(0, L.A_MOVE, a)
    audit.turn_ends(g.s, g.legal, 0)
    assert blunders(g, "moves_undone") == 0


def test_stepping_off_a_nexus_and_back_to_draw_is_not_an_undo():
    """MQ-CARD-03: a Hero draws at a Nexus only after moving onto it, so
    stepping off and back opens a draw."""
    g = _walker(start="nexus_sw")
    a = g.pos(0)
    g.act(0, L.A_MOVE, _plain_neighbour(g, a))
    g.act(0, L.A_MOVE, a)
    audit.turn_ends(g.s, g.legal, 0)
    assert blunders(g, "moves_undone") == 0


# ---- idle turns (MQ-ACT-05, MQ-CHARM-07) ------------------------------------------

def test_ending_a_turn_wounded_on_a_start_point_with_actions_left_is_idle():
    """MQ-ACT-05: a heal was one action away; the turn ends with all three."""
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    g.set_wounds(0, 1)
    g.run_turn(0, POLICY_FIRST)        # POLICY_FIRST ends the turn at once
    assert blunders(g, "idle_turns") == 1


def test_ending_a_turn_unwounded_or_off_a_start_point_is_not_idle():
    """The near misses: nothing to heal; or wounded, but on a path."""
    g = quiet_game(heroes=(JACK, 1, 2, 3))
    g.run_turn(0, POLICY_FIRST)
    assert blunders(g, "idle_turns") == 0
    g = quiet_game(heroes=(JACK, 1, 2, 3), park=("path_n1", "path_e4", "path_s3", "path_w2"))
    g.set_wounds(0, 1)
    g.run_turn(0, POLICY_FIRST)
    assert blunders(g, "idle_turns") == 0


# ---- repairs missed (MQ-FINAL-19, MQ-FINAL-21) ---------------------------------------

def _wall_game(where):
    """A Final Battle, wall section N (0) damaged, Tess on ``where`` holding
    three Granite, the others far off; every wall roll hits."""
    g = final_battle(quiet_game(heroes=(TESS, 1, 2, 3), park=("path_e4", "path_e4", "path_s3", "path_w2")))
    g.put(1, "path_s2")
    g.put(0, where)
    g.set_charms(0, granite=3)
    g.s[L.G_WALL + 0] = 1
    fix_die(g.T, 0, 4)
    g.T[TB.P_SHIMNAVORE_SKIPS_BEATEN] = 0
    return g


def test_a_wall_lost_where_a_hero_could_have_rebuilt_it_that_round_is_a_blunder():
    """MQ-FINAL-21: Tess, a step from the damaged section with three Granite,
    ends her turn; the Shimnavore then destroys that section."""
    g = _wall_game("crossroads_ne")
    assert int(g.T[TB.O_DIST_H + g.sp("crossroads_ne") * TB.DIST_W + g.T[TB.O_KEYSTONE + 0]]) + 1 <= 3
    g.run_turn(0, POLICY_FIRST)
    g.shim(0)
    assert int(g.s[L.G_OUTCOME]) == L.OUT_WALL_DESTROYED
    assert blunders(g, "repairs_missed") == 1


def test_a_wall_lost_out_of_every_heros_reach_is_not():
    """The near miss: Tess holds the Granite but is too far to reach the
    section and rebuild it within her three actions."""
    g = _wall_game("path_s3")
    assert int(g.T[TB.O_DIST_H + g.sp("path_s3") * TB.DIST_W + g.T[TB.O_KEYSTONE + 0]]) + 1 > 3
    g.run_turn(0, POLICY_FIRST)
    g.shim(0)
    assert int(g.s[L.G_OUTCOME]) == L.OUT_WALL_DESTROYED
    assert blunders(g, "repairs_missed") == 0


def test_a_hero_on_its_last_life_point_is_not_held_to_the_repair():
    """The near miss: Tess is in reach with the Granite but on her last life
    point; whether to heal or rebuild is a judgement (a hero's death also
    loses the game), so the lost wall is not counted against her."""
    g = _wall_game("crossroads_ne")
    g.set_wounds(0, int(g.T[TB.P_LIFE]) - 1)
    assert int(core.life_left(g.s, g.T, 0)) == 1
    g.run_turn(0, POLICY_FIRST)
    g.shim(0)
    assert int(g.s[L.G_OUTCOME]) == L.OUT_WALL_DESTROYED
    assert blunders(g, "repairs_missed") == 0


def test_a_hero_who_rebuilt_another_section_missed_none():
    """The near miss: N and W are both damaged and both in Tess's reach;
    her three Granite rebuild N, and the Shimnavore then destroys W."""
    g = _wall_game("crossroads_nw")
    g.s[L.G_WALL + 3] = 1
    ks_w = int(g.T[TB.O_KEYSTONE + 3])
    assert int(g.T[TB.O_DIST_H + g.sp("crossroads_nw") * TB.DIST_W + ks_w]) + 1 <= 3
    g.begin_turn(0)
    audit.turn_begins(g.s, g.T, 0)
    g.act(0, L.A_MOVE, int(g.T[TB.O_KEYSTONE + 0]))
    g.act(0, L.A_REPAIR, 0)
    g.shim(3)
    assert int(g.s[L.G_OUTCOME]) == L.OUT_WALL_DESTROYED
    assert blunders(g, "repairs_missed") == 0


# ---- greedy and the planner without them --------------------------------------------

def test_greedy_and_the_planner_make_none_of_the_blunders_they_avoid():
    """With ``blunders`` on (the default) neither policy spends a reaction on
    a roll nothing can win, discards a charm it found that turn, or undoes a
    move, over 150 four-player games on Difficult (where reactions are spent
    most); with it off the same games show the first two."""
    from mournesim import sim
    from mournesim.plan import PLANNER_DEFAULTS, PLANNER_PARAMS
    rules = sim.prepare()
    kinds = [L.RESULT_INDEX["blunder_" + k] for k in ("futile_reactions", "found_discarded", "moves_undone")]
    off = {"greedy": (0.55, 1.0, 1.0, 0.0),
           "planner": PLANNER_DEFAULTS[:PLANNER_PARAMS.index("blunders")] + (0.0,)}
    for policy in ("greedy", "planner"):
        on_rows = sim.run_games(rules, sim.Config(level="hard", players=4, policy=policy), 3, 0, 150)
        assert on_rows[:, kinds].sum() == 0, policy
        off_rows = sim.run_games(rules, sim.Config(level="hard", players=4, policy=policy, params=off[policy]), 3, 0, 150)
        assert off_rows[:, kinds[0]].sum() > 0 and off_rows[:, kinds[1]].sum() > 0, policy
