"""The Final Battle, the end of the game and solo play (MQ-FINAL, MQ-END, MQ-SOLO)."""
import pytest

from mournesim import layout as L, rules, tables as TB

from .mq_game import N, E, S, W, COURAGE, STRENGTH, MAGIC, MOON_GREY, fix_compass, fix_die
from .mq_positions import far_spaces, final_battle, quiet_game

F, DD = L.FACE_FAIL, L.FACE_DANDELION


def _fb(park=far_spaces(), cast_out=(0, 1, 2, 3), **kw):
    g = quiet_game(park=park, **kw)
    final_battle(g, cast_out)
    g.s[L.G_MOON] = MOON_GREY
    return g


GAME_ACTOR = getattr(L, "ACTOR_GAME", -1)     # actor id of events logged by the game itself


def _enemy_phases(g):
    return [e for e in g.events("enemy_phase") if e[2] == GAME_ACTOR and e[3] == 0]


def _one_round(g):
    """Let ``game.play`` run exactly one more round."""
    r = int(g.s[L.G_ROUND])
    g.T[TB.P_SAFETY_CAP_ROUNDS] = r + 1
    g.clear_events()
    g.play()


# ---- the Shimnavore appears ---------------------------------------------------------------

def test_shimnavore_appears_after_two_moon_cycles():
    """"Once the Moon Marker has completed its second full cycle (returning to its
    starting position for the second time) the Shimnavore breaks through" "The
    Shimnavore will take no further action until the current Hero Phase has ended."
    MQ-FINAL-01, MQ-FINAL-02 (MQ-GAP-16: no more disc rolls that Hero Phase)."""
    g = quiet_game(level=0, park=far_spaces())
    fix_compass(g.T, N)
    n = int(g.T[TB.P_N_MOON_TRACK]) * int(g.T[TB.P_MOON_CYCLES])
    assert n == 56
    g.s[L.G_MOON_STEPS] = n - 2
    g.s[L.G_MOON] = int(g.T[TB.P_N_MOON_TRACK]) - 2
    g.end_of_turn(0)
    assert int(g.s[L.G_FINAL]) == L.FB_NONE
    c = g.clicks(N)
    g.clear_events()
    g.end_of_turn(1)
    assert int(g.s[L.G_FINAL]) == L.FB_TRIGGERED
    assert int(g.s[L.G_MOON]) == 0
    g.end_of_turn(2)
    assert g.clicks(N) == c                             # no compass roll any more
    assert len(g.events("compass")) == 0 and len(g.events("shimnavore")) == 0


def test_round_that_ends_the_second_cycle_goes_straight_to_the_final_battle():
    """"Once the Shimnavore has been placed on the board – when all players have taken
    their turn in that round, the Final Battle begins".  MQ-FINAL-02, MQ-FINAL-03,
    MQ-FINAL-06 (MQ-GAP-65: no compass rolls after the trigger, no Enemy Phase that
    round, emergence and then the opening roll)."""
    g = quiet_game(park=far_spaces())
    fix_compass(g.T, L.FACE_BLANK)
    n = int(g.T[TB.P_N_MOON_TRACK]) * int(g.T[TB.P_MOON_CYCLES])
    g.s[L.G_MOON_STEPS] = n - 1
    g.s[L.G_MOON] = int(g.T[TB.P_N_MOON_TRACK]) - 1
    g.s[L.G_ROUND] = 10
    _one_round(g)
    assert int(g.s[L.G_FINAL]) == L.FB_RUNNING
    assert len(g.events("moon")) == 4                   # every player still moves the Moon
    assert len(g.events("compass")) == 1                # only the opening roll
    assert len(_enemy_phases(g)) == 0
    assert len(g.events("emerge")) == 4
    assert len(g.events("encounter")) == 0


def test_remaining_nightmares_emerge_and_knock_heroes_back():
    """"Nightmares that have not been Cast-out ... will emerge onto the board and are
    placed on the Key Stone in front of their Disc. If a Hero is on the Keystone when
    this happens they are knocked back and must start their next turn on their
    original Start Location."  MQ-FINAL-03, MQ-FINAL-04 (MQ-GAP-19: tokens cleared)."""
    g = quiet_game(park=("keystone_e", "path_e4", "path_s3", "path_w2"))
    fix_compass(g.T, L.FACE_BLANK)
    g.cast_out_state(N)
    g.s[L.G_TOKENS] = 4
    g.s[L.G_FINAL] = L.FB_TRIGGERED
    rules.start_final_battle(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
    assert int(g.s[L.G_FINAL]) == L.FB_RUNNING
    assert int(g.s[L.G_TOKENS]) == 0
    for d in (E, S, W):
        k = g.nm_at_disc(d)
        assert g.nm_pos(k) == int(g.R.tables.keystone[d])
        assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_EMERGED
    assert g.nm_pos(g.nm_at_disc(N)) == -1
    assert g.pos(0) == int(g.s[g.hero_off(0) + L.H_START])


def test_opening_roll_lets_the_shimnavore_attack():
    """"A random player rolls ONE Compass Die and applies the effects of the result."
    then "SHIMNAVORE ATTACKS".  MQ-FINAL-06."""
    g = quiet_game(park=far_spaces())
    fix_compass(g.T, S)
    fix_die(g.T, 0, 2)
    for d in range(4):
        g.cast_out_state(d)
    g.s[L.G_FINAL] = L.FB_TRIGGERED
    rules.start_final_battle(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
    assert [int(x) for x in g.s[L.G_WALL:L.G_WALL + 4]] == [0, 0, 1, 0]


def test_final_battle_turn_rolls_one_compass_die_and_no_tiles():
    """"Player 1 takes their 3 actions then moves the Moon Marker ... rolls ONE Compass
    die" ... "Once the Final Battle begins, Encounter Tokens are NO LONGER drawn".
    MQ-FINAL-07, MQ-FINAL-08, MQ-FINAL-09, MQ-FINAL-10."""
    g = _fb()
    fix_compass(g.T, L.FACE_BLANK)
    g.s[L.G_ROUND] = 40
    _one_round(g)
    assert len(g.events("compass")) == 4                # one die per hero turn, no opening roll
    assert len(g.events("shimnavore")) == 4
    assert len(g.events("moon")) == 4
    assert len(g.events("encounter")) == 0
    assert len(_enemy_phases(g)) == 1


# ---- the Shimnavore attacks ---------------------------------------------------------------

def test_blank_does_nothing():
    """"Blank: The Shimnavore does not attack. Nothing happens."  MQ-FINAL-13."""
    g = _fb(park=("keystone_n",) + far_spaces()[1:])
    fix_die(g.T, 0, 3)
    g.shim(L.FACE_BLANK)
    assert g.pos(0) == g.sp("keystone_n") and g.wounds(0) == 0
    assert [int(x) for x in g.s[L.G_WALL:L.G_WALL + 4]] == [0, 0, 0, 0]


def test_howl_knocks_heroes_onto_discs_and_no_attack():
    """"Compass Star: The Shimnavore releases a Mighty Howl ... knocks any Heroes
    standing on a Key Stone/Wall location backwards onto the Nightmare Disc directly
    behind them ... The Shimnavore will not attack on this turn."  MQ-FINAL-12,
    MQ-MOVE-14."""
    g = _fb(park=("keystone_n", "keystone_w", "crossroads_ne", "path_w2"))
    fix_die(g.T, 0, 3)
    g.shim(L.FACE_STAR)
    assert g.name(g.pos(0)) == "disc_n" and g.name(g.pos(1)) == "disc_w"
    assert g.name(g.pos(2)) == "crossroads_ne"
    assert [int(x) for x in g.s[L.G_WALL:L.G_WALL + 4]] == [0, 0, 0, 0]
    assert g.wounds(0) == 0
    g.begin_turn(0)
    g.act(0, L.A_MOVE, g.sp("keystone_n"))
    assert g.acts() == 1


@pytest.mark.parametrize("face,damaged", [(F, 0), (DD, 0), (1, 1), (4, 1)])
def test_attack_on_empty_section(face, damaged):
    """"One player rolls the Level 1 Combat die. If the roll is a FAIL or DANDELION
    the Shimnavore has failed to destroy that section of the wall. Nothing happens.
    On ANY OTHER RESULT the Shimnavore is successful and damages that section".
    MQ-FINAL-11, MQ-FINAL-14."""
    g = _fb()
    fix_die(g.T, 0, face)
    g.shim(E)
    assert int(g.s[L.G_SHIM_FACING]) == E
    assert [int(x) for x in g.s[L.G_WALL:L.G_WALL + 4]] == [0, damaged, 0, 0]
    assert g.outcome == L.OUT_RUNNING


@pytest.mark.parametrize("face,outcome", [(F, L.OUT_RUNNING), (DD, L.OUT_RUNNING), (3, L.OUT_WALL_DESTROYED)])
def test_attack_on_damaged_section(face, outcome):
    """"If a targeted Wall Section is already Damaged ... If the roll is a FAIL or
    DANDELION, nothing happens. On ANY OTHER RESULT the wall is destroyed and the
    Shimnavore is set free. THE GAME ENDS – PLAYERS LOSE."  MQ-FINAL-19, MQ-END-02."""
    g = _fb()
    fix_die(g.T, 0, face)
    g.s[L.G_WALL + W] = 1
    g.shim(W)
    assert g.outcome == outcome


def test_bogbean_on_section_runs_away_and_wall_is_attacked():
    """"BOGBEAN RUNS AWAY ... Remove Bogbean miniature and encounter tile ... This leaves
    the Wall Section empty so the Shimnavore will attack the Wall on this turn."
    MQ-FINAL-15."""
    g = _fb()
    fix_die(g.T, 0, 2)
    g.place_bogbean(1, 2, "keystone_s")
    g.shim(S)
    assert g.bog_pos(1) == -1 and g.slot_tile(1) == -1
    assert int(g.s[L.G_WALL + S]) == 1


def test_nightmare_on_section_stops_the_attack_even_with_a_hero():
    """"If a Nightmare is on the targeted Wall Section - SHIMNAVORE DOES NOT ATTACK."
    MQ-FINAL-16 (MQ-GAP-67: also when a Hero shares the section)."""
    g = _fb(park=("keystone_n",) + far_spaces()[1:], cast_out=(1, 2, 3))
    fix_die(g.T, 0, 2)
    g.nightmare_to_board(N, "keystone_n")
    g.shim(N)
    assert int(g.s[L.G_WALL + N]) == 0
    assert g.wounds(0) == 0 and g.pos(0) == g.sp("keystone_n")
    assert len(g.events("combat")) == 0


def test_hero_on_section_defends_against_strongest_ability():
    """"The Hero must defend. (normal Combat rules apply). The Shimnavore will always
    attack using its strongest Ability ... If the Hero wins in Combat ... Nothing
    Happens. If the Hero fails in Combat they lose 1 Life Point and are knocked-back
    onto the Nightmare Disc directly behind them."  MQ-FINAL-17, MQ-FINAL-18
    (MQ-GAP-68: a Hero on a damaged section defends it, no escape roll)."""
    g = _fb(park=("keystone_e",) + far_spaces()[1:])
    vals = [int(rules.enemy_value(g.s, g.T, L.ENEMY_SHIM, a)) for a in range(3)]
    fix_die(g.T, 0, DD)
    g.s[L.G_WALL + E] = 1
    g.shim(E)
    c = g.events("combat")[-1]
    assert c[4] == vals.index(max(vals))
    assert g.pos(0) == g.sp("keystone_e") and g.wounds(0) == 0
    assert g.outcome == L.OUT_RUNNING and int(g.s[L.G_WALL + E]) == 1
    fix_die(g.T, 0, 1)                                  # too weak: loses
    g.shim(E)
    assert g.wounds(0) == 1 and g.name(g.pos(0)) == "disc_e"
    assert g.outcome == L.OUT_RUNNING                     # the Wall was not attacked


def test_shimnavore_always_attacks_with_its_strongest_ability():
    """"The Shimnavore will always attack using its strongest Ability depending on
    the current phase of the Moon."  MQ-FINAL-17 (MQ-GAP-32): it keeps its
    strongest Ability even once beaten twice (the other value of toggle
    shimnavore_skips_beaten: tests/mournequest/test_toggles_combat.py)."""
    g = _fb(park=("keystone_e",) + far_spaces()[1:])
    vals = [int(rules.enemy_value(g.s, g.T, L.ENEMY_SHIM, a)) for a in range(3)]
    order = sorted(range(3), key=lambda a: (-vals[a], a))
    fix_die(g.T, 0, DD)
    g.s[L.G_SHIM_WOUNDS + order[0]] = 2
    g.shim(E)
    assert int(g.events("combat")[-1][4]) == order[0]


def test_granite_repair_on_the_damaged_section():
    """"if a player is carrying 3 Granite Charms they can rebuild a damaged Wall
    section ... the Hero must move onto the damaged Wall section to make the repair."
    MQ-FINAL-21, MQ-FINAL-22 (MQ-GAP-70: 1 action, the Granite goes back)."""
    g = _fb(park=("crossroads_ne",) + far_spaces()[1:])
    g.s[L.G_WALL + N] = 1
    g.set_charms(0, granite=3)
    g.begin_turn(0)
    assert g.ops(0, L.A_REPAIR) == []
    g.act(0, L.A_MOVE, g.sp("keystone_n"))
    assert g.ops(0, L.A_REPAIR) == [N]
    g.act(0, L.A_REPAIR, N)
    assert int(g.s[L.G_WALL + N]) == 0
    assert g.charms(0) == [0, 0, 0, 0] and g.pool()[0] == 16
    assert g.acts() == 1
    g.s[L.G_WALL + N] = 1
    g.set_charms(0, granite=2)
    assert g.ops(0, L.A_REPAIR) == []


def test_relic_repairs_any_section():
    """"there are a number of Relic Cards which will magically repair a damaged wall
    section any where on the board".  MQ-FINAL-20."""
    g = _fb()
    rid = g.R.names.relics.index("mending_stone")
    g.s[L.G_RELIC_OWNER + rid] = 0
    g.s[L.G_WALL + S] = 1
    g.begin_turn(0)
    arg = rid * 64 + S + 1
    assert arg in g.ops(0, L.A_RELIC)
    g.act(0, L.A_RELIC, arg)
    assert int(g.s[L.G_WALL + S]) == 0


# ---- heroes attack the Shimnavore -----------------------------------------------------------

SHIM = L.TGT_SHIM * 4


def test_shimnavore_attack_only_from_keystone_and_after_enemies_are_gone():
    """"To attack the Shimnavore a Hero must be on one of the four Key Stone spaces."
    "THE HEROES MUST DEFEAT ANY NIGHTMARES OR BOGBEANS IN PLAY BEFORE THEY CAN ATTACK
    THE SHIMNAVORE."  MQ-FINAL-05, MQ-FINAL-23."""
    g = _fb(park=("crossroads_ne",) + far_spaces()[1:])
    g.begin_turn(0)
    assert g.ops(0, L.A_ATTACK) == []
    g.act(0, L.A_MOVE, g.sp("keystone_e"))
    assert sorted(g.ops(0, L.A_ATTACK)) == [SHIM + COURAGE, SHIM + STRENGTH, SHIM + MAGIC]
    g.place_bogbean(3, 1, "nexus_sw")                   # a Bogbean anywhere on the board
    assert g.ops(0, L.A_ATTACK) == []


def test_one_shimnavore_attack_per_turn_and_wound_goes_on_the_ability():
    """"If the attack is successful: The Shimnavore takes 1 Wound. Place a Wound Marker
    below the targeted Ability" "A Hero may attack the Shimnavore only once on any
    turn."  MQ-FINAL-24, MQ-FINAL-25."""
    g = _fb(park=("keystone_s",) + far_spaces()[1:])
    fix_die(g.T, 0, DD)
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, SHIM + MAGIC)
    assert [int(x) for x in g.s[L.G_SHIM_WOUNDS:L.G_SHIM_WOUNDS + 3]] == [0, 0, 1]
    assert g.acts() == 2
    assert g.ops(0, L.A_ATTACK) == []
    g.begin_turn(0)                                     # next turn: allowed again
    assert g.ops(0, L.A_ATTACK) != []


def test_failed_shimnavore_attack_ends_turn_without_wound():
    """"If the attack fails: The Hero's turn ends immediately, but they do not lose a
    Life Point."  MQ-FINAL-26."""
    g = _fb(park=("keystone_s",) + far_spaces()[1:])
    fix_die(g.T, 0, F)
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, SHIM + STRENGTH)
    assert g.wounds(0) == 0
    assert int(g.s[L.G_TURN_OVER]) == 1 and g.ops(0, L.A_MOVE) == []
    assert [int(x) for x in g.s[L.G_SHIM_WOUNDS:L.G_SHIM_WOUNDS + 3]] == [0, 0, 0]


def test_six_wounds_win_the_game():
    """"The Shimnavore must be beaten twice on each of its 3 Combat Abilities (Courage,
    Strength and Magic)."  MQ-FINAL-27, MQ-END-01, MQ-GAP-56."""
    g = _fb(park=("keystone_s",) + far_spaces()[1:])
    fix_die(g.T, 0, DD)
    g.s[L.G_SHIM_WOUNDS:L.G_SHIM_WOUNDS + 3] = [2, 2, 1]
    g.begin_turn(0)
    assert sorted(g.ops(0, L.A_ATTACK)) == [SHIM + MAGIC]      # beaten-twice Abilities closed
    g.act(0, L.A_ATTACK, SHIM + MAGIC)
    assert g.outcome == L.OUT_WIN
    g2 = _fb(park=("keystone_s",) + far_spaces()[1:])
    fix_die(g2.T, 0, DD)
    g2.s[L.G_SHIM_WOUNDS:L.G_SHIM_WOUNDS + 3] = [2, 1, 1]
    g2.begin_turn(0)
    g2.act(0, L.A_ATTACK, SHIM + MAGIC)
    assert g2.outcome == L.OUT_RUNNING


# ---- end of the game ------------------------------------------------------------------------

def test_hero_death_ends_the_game():
    """"If all three Heart symbols are covered the Hero dies and the game ends…"
    "a Hero dies and the players Lose."  MQ-HERO-05, MQ-END-03, MQ-END-04."""
    g = _fb(park=("keystone_n",) + far_spaces()[1:])
    fix_die(g.T, 0, F)
    fix_compass(g.T, N)
    g.set_wounds(0, 2)
    g.s[L.G_ROUND] = 40
    _one_round(g)
    assert g.outcome == L.OUT_HERO_DIED
    assert g.wounds(0) == 3
    assert len(g.events("shimnavore")) == 1              # nothing happens after the death


def test_destroyed_wall_ends_the_game_at_once():
    """"If this happens the game ends and the Heroes have lost…"  MQ-END-02, MQ-END-04."""
    g = _fb()
    fix_die(g.T, 0, 2)
    fix_compass(g.T, E)
    g.s[L.G_WALL + E] = 1
    g.s[L.G_ROUND] = 40
    _one_round(g)
    assert g.outcome == L.OUT_WALL_DESTROYED
    assert len(g.events("shimnavore")) == 1


# ---- solo ---------------------------------------------------------------------------------------

def test_solo_moon_and_compass_after_each_hero_enemy_phase_once():
    """"During a Solo Game the Player must move the Moon Marker and roll the Compass
    Die/Dice after each Hero has completed their 3 Actions" "The Enemy Phase happens
    once each round".  MQ-SOLO-05, MQ-SOLO-06."""
    g = quiet_game(players=1, heroes=(0, 1))
    fix_compass(g.T, L.FACE_BLANK)
    g.s[L.G_ROUND] = 1
    _one_round(g)
    moon = g.events("moon")
    assert [int(e[2]) for e in moon] == [0, 1]
    assert [int(e[2]) for e in g.events("compass")] == [0, 1]
    assert len(_enemy_phases(g)) == 1
    order = [int(e[0]) for e in g.ev[:int(g.s[L.G_LOGN])]
             if e[0] in (L.EVENT["moon"], L.EVENT["compass"]) or (e[0] == L.EVENT["enemy_phase"] and e[3] == 0 and e[2] == GAME_ACTOR)]
    assert order == [L.EVENT["moon"], L.EVENT["compass"], L.EVENT["moon"], L.EVENT["compass"],
                     L.EVENT["enemy_phase"]]


def test_solo_final_battle_shimnavore_may_attack_twice_a_round():
    """"(This means that during the Final Battle, the Shimnavore may attack Twice on the
    same round)."  MQ-SOLO-05, MQ-SOLO-07."""
    g = quiet_game(players=1, heroes=(0, 1), park=("path_n1", "path_s3"))
    final_battle(g)
    fix_compass(g.T, N)
    fix_die(g.T, 0, F)                                  # the Wall holds
    g.s[L.G_ROUND] = 40
    _one_round(g)
    assert len(g.events("shimnavore")) == 2
    assert len(g.events("wall_roll")) == 2


# ---- a blocked emergence (a path real play never reaches) --------------------------------------

def test_emergence_onto_a_key_stone_held_by_two_nightmares_waits_on_the_disc():
    """"Nightmares that have not been Cast-out ... will emerge onto the board and are
    placed on the Key Stone in front of their Disc." "A space may be occupied by a
    maximum of two miniatures".  MQ-FINAL-03, MQ-MOVE-07, MQ-DISC-02 (MQ-GAP-27:
    "if two Nightmares stand there, the emerging one waits on its Disc the same
    way and emerges at the first Final Battle enemy step with room. Nothing else
    is moved aside."). Position as the Final Battle begins::

        keystone_n:  the Nightmares of discs E and S (escaped earlier)
        disc N:      its Nightmare, never released     <- must emerge here
        disc W:      Cast-out;  Heroes far from the Wall

    At the start of the Final Battle the Disc N Nightmare stays on its Disc (a
    blocked 'emerge'), the two on the Key Stone stay put, and it is not in play
    (no Evil Power). In the first enemy step the emergence is tried again before
    movement, still blocked; the two then move off towards the Heroes. At the
    next enemy step it emerges onto keystone_n, first thing in the step (what it
    does after that in the same step is not ruled, and not checked here)."""
    g = quiet_game(park=far_spaces())
    fix_compass(g.T, L.FACE_BLANK)                      # the opening roll does nothing
    fix_die(g.T, 0, DD)
    fix_die(g.T, 1, DD)
    ks = g.sp("keystone_n")
    g.cast_out_state(W)
    blockers = [g.nightmare_to_board(E, "keystone_n"), g.nightmare_to_board(S, "keystone_n")]
    k = g.nm_at_disc(N)
    g.s[L.G_FINAL] = L.FB_TRIGGERED
    rules.start_final_battle(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
    assert int(g.s[L.G_FINAL]) == L.FB_RUNNING
    em = g.events("emerge")
    assert [(int(e[2]), int(e[3]), int(e[5])) for e in em] == [(-1 - k, N, 1)]     # blocked
    assert g.nm_pos(k) == -1 and g.disc_state(N) == L.DS_ON
    assert int(g.s[g.nm(k) + L.NM_FATE]) != L.FATE_EMERGED
    assert [g.nm_pos(b) for b in blockers] == [ks, ks]  # nobody moved aside
    assert all(g.pos(h) != ks for h in range(4))
    # the first Final Battle enemy step: still no room when it is tried, then the two move off
    g.clear_events()
    g.s[L.G_ROUND] += 1
    g.enemy_phase(draws=False)
    assert [int(e[5]) for e in g.events("emerge")] == [1]
    assert g.nm_pos(k) == -1
    assert -1 - k not in [int(e[2]) for e in g.events("evil_power")]
    assert all(g.nm_pos(b) not in (ks, -1) for b in blockers)
    assert len(g.events("encounter")) == 0
    # the next enemy step: room, it emerges onto its Key Stone before anything moves
    g.clear_events()
    g.s[L.G_ROUND] += 1
    g.enemy_phase(draws=False)
    steps = [e for e in g.events() if int(e[0]) in (L.EVENT["emerge"], L.EVENT["enemy_move"])]
    assert [int(x) for x in steps[0][[0, 2, 3, 4, 5]]] == [L.EVENT["emerge"], -1 - k, N, ks, 0]
    assert len(g.events("emerge")) == 1
    assert g.nm_pos(k) >= 0 and g.disc_state(N) == L.DS_BOARD
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_EMERGED


def _blocked_emergence(g):
    """The position above, with the Final Battle begun: disc N's Nightmare waits
    on its Disc behind the two on keystone_n. Returns (k, blockers)."""
    fix_compass(g.T, L.FACE_BLANK)
    fix_die(g.T, 0, DD)
    fix_die(g.T, 1, DD)
    g.cast_out_state(W)
    blockers = [g.nightmare_to_board(E, "keystone_n"), g.nightmare_to_board(S, "keystone_n")]
    k = g.nm_at_disc(N)
    g.s[L.G_FINAL] = L.FB_TRIGGERED
    rules.start_final_battle(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
    assert g.nm_pos(k) == -1 and g.disc_state(N) == L.DS_ON
    return k, blockers


def _shim_attacks(g, h):
    g.begin_turn(h)
    return sorted(L.attack_ability(c) for c in g.ops(h, L.A_ATTACK) if L.attack_target(c) == L.TGT_SHIM)


def test_a_nightmare_waiting_on_its_disc_is_in_play_until_beaten():
    """"Nightmares that have not been Cast-out from the Shimnavore's control will
    emerge onto the board" "THE HEROES MUST DEFEAT ANY NIGHTMARES OR BOGBEANS IN
    PLAY BEFORE THEY CAN ATTACK THE SHIMNAVORE."  MQ-FINAL-03, MQ-FINAL-05
    (MQ-GAP-27: a Nightmare waiting on its Disc for room is still in play).

    The two blockers are beaten, so nothing stands on the board, yet disc N's
    Nightmare has neither been Cast-out nor beaten: a Hero on keystone_e may
    not attack the Shimnavore. Once that Nightmare is beaten too, the three
    attacks are offered."""
    g = quiet_game(park=far_spaces())
    k, blockers = _blocked_emergence(g)
    g.put(0, "keystone_e")
    assert _shim_attacks(g, 0) == []                    # the blockers still stand
    for b in blockers:
        rules.nightmare_gone(g.s, g.T, g.ev, b, L.FATE_DEFEATED)
    assert all(g.nm_pos(b) == -1 for b in blockers)
    assert _shim_attacks(g, 0) == []                    # disc N's Nightmare is still in play
    g.s[g.nm(k) + L.NM_DIR] = N
    rules.nightmare_gone(g.s, g.T, g.ev, k, L.FATE_DEFEATED)
    assert _shim_attacks(g, 0) == [COURAGE, STRENGTH, MAGIC]


@pytest.mark.parametrize("active", [0, 1])
def test_a_late_emergence_only_arrives_in_its_enemy_step(active):
    """"On any following rounds, during the Enemy Phase, the Nightmare will use
    its turns to follow and attack the Heroes." "It will also use its Evil Power
    once per round."  MQ-FINAL-03, MQ-FINAL-08, MQ-ENEMY-05 (MQ-GAP-26, MQ-GAP-27:
    a Nightmare that emerges late, after waiting on its Disc, only arrives in that
    enemy step, like an escape; with toggle escape_round_active it uses its Evil
    Power at once, and moves from the next step either way).

    The blockers step off keystone_n in the first enemy step and are then beaten;
    in the second, disc N's Nightmare emerges. By default it neither moves nor
    uses its Evil Power in that step, and does both in the next. Its emergence is
    not counted as an escape."""
    g = quiet_game(park=far_spaces())
    g.T[TB.P_ESCAPE_ROUND_ACTIVE] = active
    k, blockers = _blocked_emergence(g)
    ks = g.sp("keystone_n")
    g.s[L.G_ROUND] += 1
    g.enemy_phase(draws=False)                          # the blockers move off
    assert g.nm_pos(k) == -1 and all(g.nm_pos(b) != ks for b in blockers)
    for b in blockers:
        rules.nightmare_gone(g.s, g.T, g.ev, b, L.FATE_DEFEATED)

    def own(name):
        if name == "enemy_move":                        # logged by the game: (is a Nightmare, its index)
            return [e for e in g.events(name) if int(e[3]) == 1 and int(e[4]) == k]
        return [e for e in g.events(name) if int(e[2]) == -1 - k]

    g.clear_events()
    g.s[L.G_ROUND] += 1
    g.enemy_phase(draws=False)                          # it emerges
    assert g.nm_pos(k) == ks and int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_EMERGED
    assert own("enemy_move") == []
    assert len(own("evil_power")) == active
    assert int(g.s[g.nm(k) + L.NM_ESCAPED]) == 0        # an emergence, not an escape
    g.clear_events()
    g.s[L.G_ROUND] += 1
    g.enemy_phase(draws=False)                          # from the next step on it hunts
    assert len(own("enemy_move")) >= 1 and g.nm_pos(k) != ks
    assert len(own("evil_power")) == 1
