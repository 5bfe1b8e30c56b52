"""The toggles that read the enemies, the escape and the encounter bag
(MQ-GAP-10, -26, -27, -49, -50, -57, -60, -65, -75): each played from a
hand-built position with the toggle false and true, the documented difference
asserted (the table of all eighteen: test_toggles.py).
"""
import pytest

from mournesim import core, layout as L, rules, tables as TB

from .mq_game import (EASY, GOLD, HARD, JACK, MEDIUM, MOON_GREY, NE, NW, SE, STRENGTH, SW, E, Game, fix_compass,
                      fix_die)
from .mq_positions import far_spaces, quiet_game
from .mq_toggles import F, GAME_ACTOR, both, combats, plain_disc, toggled


# ---- MQ-GAP-10 enemies_use_tunnel --------------------------------------------------------

def _tunnel_game(R, hero_at, enemy_at):
    """Two heroes: hero 0 on ``hero_at``, hero 1 on a disc (never hunted); a
    Level 1 Bogbean of the NE slot on ``enemy_at``."""
    g = quiet_game(R=R, players=2, heroes=(JACK, 2), park=(hero_at, "disc_n"))
    g.place_bogbean(NE, 1, enemy_at)
    return g


def test_enemies_use_tunnel_reach_a_hero_beyond_it():
    """Toggle ``enemies_use_tunnel`` (MQ-GAP-10). "If a Hero miniature is moved to
    one entrance of the tunnel they automatically appear at the other tunnel exit
    'at no action cost.'"

    true: enemies use the Dunnywater Tunnel (one step from end to end) and their distances count it, so a
    Bogbean beside tunnel_n hunts a Hero beside tunnel_s through the tunnel and
    reaches it. false: it goes round by the Wall and is still far away."""
    lo, hi = both("enemies_use_tunnel")
    tab_lo, tab_hi = lo.tables, hi.tables
    g = _tunnel_game(lo, "nexus_sw", "path_n3")
    a, b = g.sp("path_n3"), g.sp("nexus_sw")
    assert int(tab_hi.dist_e[a, b]) < int(tab_lo.dist_e[a, b])     # the tunnel shortens the hunt
    # false: three single steps round by the Wall, nowhere near the hero
    rules.move_enemy(g.s, g.T, g.ev, False, NE, 3)
    assert g.name(g.bog_pos(NE)) not in ("tunnel_n", "tunnel_s", "nexus_sw")
    assert int(tab_lo.dist_e[g.bog_pos(NE), b]) == int(tab_lo.dist_e[a, b]) - 3
    # true: through the tunnel and onto the hero within three steps
    g = _tunnel_game(hi, "nexus_sw", "path_n3")
    rules.move_enemy(g.s, g.T, g.ev, False, NE, 3)
    assert g.name(g.bog_pos(NE)) == "nexus_sw"
    # and in a whole Enemy Phase of a Nightmare (two moves) from the tunnel mouth
    # it arrives on the hero and attacks
    g = quiet_game(R=hi, players=2, heroes=(JACK, 2), park=("nexus_sw", "disc_n"))
    fix_die(g.T, 0, 6)
    d = plain_disc(g)
    k = g.nightmare_to_board(d, "tunnel_n")
    g.s[g.nm(k) + L.NM_ESCAPED] = 1
    g.enemy_phase(draws=False)
    assert g.name(g.nm_pos(k)) == "nexus_sw"
    assert len(combats(g)) == 1


@pytest.mark.parametrize("value", [
    False,
    True,
])
def test_enemy_at_a_tunnel_mouth_is_never_stuck(value):
    """Toggle ``enemies_use_tunnel`` (MQ-GAP-10). "If a Hero miniature is moved to
    one entrance of the tunnel they automatically appear at the other tunnel exit
    'at no action cost.'"

    With either reading, a Bogbean standing on a tunnel entrance, with room
    everywhere, always makes progress towards its nearest Hero (by its own enemy
    distances) wherever that Hero is: it is never stuck on the tunnel mouth."""
    R = toggled("enemies_use_tunnel", value)
    tab = R.tables
    names = R.names.spaces
    stuck = []
    for mouth in ("tunnel_n", "tunnel_s"):
        for target in names:
            t = names.index(target)
            if target == mouth or int(tab.kind[t]) in (L.K_DISC, L.K_CENTRE):
                continue
            g = _tunnel_game(R, target, mouth)
            m = g.sp(mouth)
            d0 = int(tab.dist_e[m, t])
            assert d0 < 10 ** 6
            r = int(rules.enemy_step(g.s, g.T, g.ev, False, NE, -1))
            p = g.bog_pos(NE)
            if r == -1 or not (p == t or int(tab.dist_e[p, t]) < d0):
                stuck.append((mouth, target, g.name(p)))
    assert stuck == []


# ---- MQ-GAP-27 escape_knocks_back ----------------------------------------------------------

def test_escape_knocks_back():
    """Toggle ``escape_knocks_back`` (MQ-GAP-27). "If a Hero is on the Keystone
    when this happens they are knocked back and must start their next turn on their
    original Start Location."

    true: a Nightmare escaping in a normal round knocks a Hero on its Key Stone
    back to that Hero's Start Point. false: the Hero stays (knock-back only at the
    Final Battle emergence)."""
    lo, hi = both("escape_knocks_back")
    for R, knocked in ((lo, False), (hi, True)):
        g = quiet_game(R=R, park=far_spaces())
        d = plain_disc(g)
        ks = ("keystone_n", "keystone_e", "keystone_s", "keystone_w")[d]
        g.put(0, ks)
        k = g.nm_at_disc(d)
        g.set_clicks(d, 0)
        rules.escapes(g.s, g.T, g.ev)
        assert g.nm_pos(k) == g.sp(ks)
        home = int(g.s[g.hero_off(0) + L.H_START])
        if knocked:
            assert g.pos(0) == home and len(g.events("knock_back")) == 1
        else:
            assert g.pos(0) == g.sp(ks) and len(g.events("knock_back")) == 0


def test_escape_knocks_back_false_still_knocks_back_at_final_battle_emergence():
    """Toggle ``escape_knocks_back`` (MQ-GAP-27). "Nightmares that have not been
    Cast-out ... will emerge onto the board and are placed on the Key Stone in front
    of their Disc. If a Hero is on the Keystone when this happens they are knocked
    back and must start their next turn on their original Start Location."

    The toggle only concerns normal-round escapes: with either value the Final
    Battle emergence knocks the Hero back."""
    for R in both("escape_knocks_back"):
        g = quiet_game(R=R, park=("keystone_e", "path_e4", "path_s3", "path_w2"))
        fix_compass(g.T, L.FACE_BLANK)
        g.s[L.G_FINAL] = L.FB_TRIGGERED
        rules.start_final_battle(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
        assert g.nm_pos(g.nm_at_disc(E)) == g.sp("keystone_e")
        assert g.pos(0) == int(g.s[g.hero_off(0) + L.H_START])


# ---- MQ-GAP-50 bag_reuses_discards --------------------------------------------------------------------

def test_bag_reuses_discards():
    """Toggle ``bag_reuses_discards`` (MQ-GAP-50). "all Encounter Tiles in the
    Encounter bag are exhausted"

    With all three levels in the bag and the bag empty: true - the discarded tiles
    go back into the bag and drawing continues; false - drawing stops."""
    lo, hi = both("bag_reuses_discards")
    for R in (lo, hi):
        g = quiet_game(R=R, park=far_spaces())
        disc = [g.tile_id(1, L.TK_BOGBEAN), g.tile_id(2, L.TK_BOGBEAN), g.tile_id(1, L.TK_POT)]
        g.s[L.G_ENC_LEVEL] = 3
        g.s[L.G_BAG_N] = 0
        g.s[L.G_DISCARD:L.G_DISCARD + 3] = disc
        g.s[L.G_DISCARD_N] = 3
        t = int(rules.draw_tile(g.s, g.T, g.ev, g.rng))
        if R is hi:
            assert t in disc
            assert int(g.s[L.G_BAG_N]) == 2 and int(g.s[L.G_DISCARD_N]) == 0
        else:
            assert t == -1
            assert int(g.s[L.G_BAG_N]) == 0 and int(g.s[L.G_DISCARD_N]) == 3
    # a whole Encounter draw: four empty Nexus Points, an empty bag, three discards
    for R, drawn in ((lo, 0), (hi, 3)):
        g = quiet_game(R=R, park=far_spaces())
        g.s[L.G_ENC_LEVEL] = 3
        g.s[L.G_BAG_N] = 0
        g.s[L.G_DISCARD:L.G_DISCARD + 3] = [g.tile_id(1, L.TK_BOGBEAN, drop=d) for d in (0, 1, 2)]
        g.s[L.G_DISCARD_N] = 3
        rules.draw_encounters(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
        assert len(g.events("encounter")) == drawn
        assert sum(g.slot_tile(c) >= 0 for c in range(4)) == drawn


# ---- MQ-GAP-57 partial_theft_takes_charms ---------------------------------------------------------------

def test_partial_theft_takes_charms():
    """Toggle ``partial_theft_takes_charms`` (MQ-GAP-57). "If the Hero is not
    carrying enough Charms, the player must discard one of their Hero's Equipment or
    Relic cards instead. (Remove the card to the relevant Discard Pile)."

    A Louse Wort (steals 2 Charms) beats Jack, who holds 1 Gold and a Strength
    card. false: he loses the card and keeps the Gold ("instead"). true: he loses
    the card and the Gold."""
    lo, hi = both("partial_theft_takes_charms")
    steals = [int(lo.tables.tiles[t, L.TL_STEAL]) for t in range(len(lo.tables.tiles))]
    for R, charms in ((lo, [0, 1, 0, 0]), (hi, [0, 0, 0, 0])):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        fix_die(g.T, 0, F)
        g.set_charms(0, gold=1)
        g.equip(0, STRENGTH, 2)
        t = g.place_bogbean(NE, 2, "path_e1")
        assert steals[t] == 2
        pool = g.pool()
        rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, NE)
        assert g.equipped(0, STRENGTH) == -1
        assert g.charms(0) == charms
        assert g.pool()[GOLD] == pool[GOLD] + (1 - charms[GOLD])
        assert g.wounds(0) == 0
        assert g.bog_pos(NE) == -1
    # enough charms: exactly the demanded charms go, the card stays, either value
    for R in (lo, hi):
        g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
        g.s[L.G_MOON] = MOON_GREY
        fix_die(g.T, 0, F)
        g.set_charms(0, gold=3)
        g.equip(0, STRENGTH, 2)
        g.place_bogbean(NE, 2, "path_e1")
        rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, NE)
        assert g.charms(0) == [0, 1, 0, 0] and g.equipped(0, STRENGTH) >= 0


# ---- MQ-GAP-65 transition_enemy_phase ---------------------------------------------------------------------

def _enemy_phases(g):
    return [e for e in g.events("enemy_phase") if e[2] == GAME_ACTOR and e[3] == 0]


def _transition_round(R):
    """Play the round in which the Moon ends its second cycle (on the last
    hero's turn). The Nightmare of a plain disc is released and waiting to
    escape; the heroes stand far from every Nexus and do nothing."""
    g = quiet_game(R=R, park=far_spaces())
    fix_compass(g.T, L.FACE_BLANK)
    fix_die(g.T, 0, 6)
    d = plain_disc(g)
    g.set_clicks(d, 0)
    n = int(g.T[TB.P_N_MOON_TRACK]) * int(g.T[TB.P_MOON_CYCLES])
    g.s[L.G_MOON_STEPS] = n - 1
    g.s[L.G_MOON] = int(g.T[TB.P_N_MOON_TRACK]) - 1
    g.s[L.G_ROUND] = 10
    g.T[TB.P_SAFETY_CAP_ROUNDS] = 11            # exactly one more round
    g.clear_events()
    g.play()
    return g, d


def _index(g, name, pred=lambda e: True):
    ev = g.events()
    for i in range(len(ev)):
        if ev[i][0] == L.EVENT[name] and pred(ev[i]):
            return i
    return -1


def test_transition_enemy_phase():
    """Toggle ``transition_enemy_phase`` (MQ-GAP-65). "Once the Shimnavore has been
    placed on the board – when all players have taken their turn in that round, the
    Final Battle begins"

    false: no Enemy Phase in the round whose Moon move ends the second cycle; a
    released Nightmare emerges with the others as the Final Battle begins. true:
    that round still has its Enemy Phase first, so the released Nightmare escapes
    (and counts as escaped) before the Final Battle starts."""
    lo, hi = both("transition_enemy_phase")
    g, d = _transition_round(lo)
    k = g.nm_at_disc(d)
    assert int(g.s[L.G_FINAL]) == L.FB_RUNNING
    assert len(_enemy_phases(g)) == 0
    assert len(g.events("escape")) == 0
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_EMERGED
    assert len(g.events("emerge")) == 4
    assert int(g.s[L.G_ESCAPED]) == 0

    g, d = _transition_round(hi)
    k = g.nm_at_disc(d)
    assert int(g.s[L.G_FINAL]) == L.FB_RUNNING
    assert len(_enemy_phases(g)) == 1
    assert len(g.events("escape")) == 1
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_ESCAPED
    assert int(g.s[L.G_ESCAPED]) == 1
    assert len(g.events("emerge")) == 3                 # the other three emerge
    # order: Shimnavore appears, Enemy Phase with the escape, then the Final Battle
    trig = _index(g, "final_battle", lambda e: e[3] == 0)
    ph = _index(g, "enemy_phase", lambda e: e[2] == GAME_ACTOR and e[3] == 0)
    esc = _index(g, "escape")
    start = _index(g, "final_battle", lambda e: e[3] == 1)
    assert 0 <= trig < ph < esc < start
    assert len(g.events("moon")) == 4


def test_transition_enemy_phase_draws_encounter_tiles():
    """Toggle ``transition_enemy_phase`` (MQ-GAP-65). "Once the Shimnavore has been
    placed on the board – when all players have taken their turn in that round, the
    Final Battle begins"

    true: the round's normal Enemy Phase is played, and a normal Enemy Phase ends
    with the Encounter draw ("At the end of each Enemy Phase, one Player should draw
    an Encounter Tile ... for every Nexus Point"): with four empty Nexus Points
    tiles are drawn before the Final Battle begins. false: none are drawn."""
    lo, hi = both("transition_enemy_phase")
    g, _ = _transition_round(lo)
    assert len(g.events("encounter")) == 0
    g, _ = _transition_round(hi)
    enc = _index(g, "encounter")
    start = _index(g, "final_battle", lambda e: e[3] == 1)
    assert len(g.events("encounter")) >= 1
    assert 0 <= enc < start


# ---- MQ-GAP-75 / MQ-LEVEL-05 pregame_encounters -------------------------------------------------------------

def test_pregame_encounters():
    """Toggle ``pregame_encounters`` (MQ-GAP-75, MQ-LEVEL-05; Difficult only).
    "Optional: Four Encounter Tiles are drawn from the Encounter Bag and any
    resulting enemies or Magical pots are placed on the Board before players take
    their first turn."

    true, on Difficult: set-up draws one tile for each Nexus Point, NE, SE, SW, NW,
    before the first turn. false: none. Easy and Medium never draw before play."""
    lo, hi = both("pregame_encounters")
    for i in range(6):
        g = Game(R=lo, level=HARD, game_index=i)
        assert len(g.events("encounter")) == 0
        assert int(g.s[L.G_BAG_N]) == int(g.s[L.G_LV_N])
        assert all(g.slot_tile(c) == -1 for c in range(4))
        g = Game(R=hi, level=HARD, game_index=i)
        enc = g.events("encounter")
        assert [int(e[3]) for e in enc] == [NE, SE, SW, NW]
        assert int(g.s[L.G_BAG_N]) == int(g.s[L.G_LV_N]) - 4
        assert int(g.s[L.G_ROUND]) == 0 and int(g.s[L.G_TURNS]) == 0
        for level in (EASY, MEDIUM):
            g = Game(R=hi, level=level, game_index=i)
            assert len(g.events("encounter")) == 0
            assert int(g.s[L.G_BAG_N]) == int(g.s[L.G_LV_N])


# ---- MQ-GAP-26 escape_round_active ----------------------------------------------------------------------

def _escape_with_hero(R):
    """A released Nightmare whose Key Stone holds Jack; one Enemy Phase."""
    g = quiet_game(R=R, heroes=(JACK, 1, 2, 3), park=far_spaces())
    fix_die(g.T, 0, 6)
    d = plain_disc(g)
    ks = ("keystone_n", "keystone_e", "keystone_s", "keystone_w")[d]
    g.put(0, ks)
    g.set_clicks(d, 0)
    g.clear_events()
    g.enemy_phase(draws=False)
    return g, g.nm_at_disc(d), ks


def test_escape_round_active():
    """Toggle ``escape_round_active`` (MQ-GAP-26). "On any following rounds, during
    the Enemy Phase, the Nightmare will use its turns to follow and attack the
    Heroes." (MQ-DISC-04/05)

    false: in the round it escapes the Nightmare lands on its Key Stone beside the
    Hero there but uses no Evil Power and makes no attack; it attacks in the next
    round's Enemy Phase. true: it uses its Evil Power and attacks at once."""
    lo, hi = both("escape_round_active")
    g, k, ks = _escape_with_hero(lo)
    assert g.nm_pos(k) == g.sp(ks) and g.pos(0) == g.sp(ks)
    assert len(g.events("evil_power")) == 0 and len(g.events("combat")) == 0
    g.clear_events()
    g.enemy_phase(draws=False)                      # the following round
    assert len(g.events("evil_power")) == 1 and len(g.events("combat")) == 1
    g, k, ks = _escape_with_hero(hi)
    assert g.nm_pos(k) == g.sp(ks)
    assert len(g.events("evil_power")) == 1 and len(g.events("combat")) == 1


def test_escape_onto_a_full_key_stone_waits():
    """MQ-GAP-27, MQ-MOVE-07: "A space may be occupied by a maximum of two
    miniatures". Without escape_knocks_back nobody makes way for an escaping
    Nightmare but fleeing Bogbeans: with two Heroes on its Key Stone it stays
    on its released Disc, and escapes at the first Enemy Phase with room. With the
    toggle, the Heroes are knocked back and it escapes at once."""
    lo, hi = both("escape_knocks_back")
    g = quiet_game(R=lo, park=far_spaces())
    d = plain_disc(g)
    ks = ("keystone_n", "keystone_e", "keystone_s", "keystone_w")[d]
    k = g.nm_at_disc(d)
    g.put(0, ks)
    g.put(1, ks)
    g.set_clicks(d, 0)
    rules.escapes(g.s, g.T, g.ev)
    assert g.nm_pos(k) == -1 and g.disc_state(d) == L.DS_RELEASED
    assert int(g.s[L.G_ESCAPED]) == 0 and len(g.events("knock_back")) == 0
    assert [int(e[5]) for e in g.events("escape")] == [1]          # logged as blocked
    g.put(1, "path_n1")
    rules.escapes(g.s, g.T, g.ev)
    assert g.nm_pos(k) == g.sp(ks) and int(g.s[L.G_ESCAPED]) == 1
    g = quiet_game(R=hi, park=far_spaces())
    g.put(0, ks)
    g.put(1, ks)
    g.set_clicks(d, 0)
    rules.escapes(g.s, g.T, g.ev)
    assert g.nm_pos(g.nm_at_disc(d)) == g.sp(ks) and len(g.events("knock_back")) == 2


# ---- MQ-GAP-49 encounter_level_per_trigger ----------------------------------------------------------------

def test_encounter_level_per_trigger():
    """Toggle ``encounter_level_per_trigger`` (MQ-GAP-49). "The Level 3 tiles are
    added, when either: the Heroes Cast-out or defeat a second Nightmare in Combat;
    all Encounter Tiles in the Encounter bag are exhausted; or a second Nightmare
    escapes onto the playing board." (MQ-ENC-01/02)

    false: after an exhausted bag brought in Level 2, the first Cast-out adds
    nothing and the second adds Level 3; one Cast-out and one escape are not "a
    second Nightmare". true: every trigger adds the next level."""
    lo, hi = both("encounter_level_per_trigger")
    for R, after_first in ((lo, 2), (hi, 3)):
        g = quiet_game(R=R, park=far_spaces())
        core.raise_encounter_level(g.s, g.T, g.ev)      # the bag ran out: Level 2
        assert int(g.s[L.G_ENC_LEVEL]) == 2
        g.s[L.G_CASTOUT] += 1
        core.encounter_trigger(g.s, g.T, g.ev, 1)
        assert int(g.s[L.G_ENC_LEVEL]) == after_first
        core.encounter_trigger(g.s, g.T, g.ev, 2)
        assert int(g.s[L.G_ENC_LEVEL]) == 3
    # mixed causes: one Cast-out, then one escape
    g = quiet_game(R=lo, park=far_spaces())
    core.encounter_trigger(g.s, g.T, g.ev, 1)            # first Cast-out
    assert int(g.s[L.G_ENC_LEVEL]) == 2
    d = plain_disc(g)
    g.set_clicks(d, 0)
    rules.escapes(g.s, g.T, g.ev)                        # first escape
    assert int(g.s[L.G_ESCAPED]) == 1 and int(g.s[L.G_ENC_LEVEL]) == 2


# ---- MQ-GAP-60 nexus_draw_when_standing ----------------------------------------------------------------------

def test_nexus_draw_when_standing():
    """Toggle ``nexus_draw_when_standing`` (MQ-GAP-60). "When a Hero moves on to a
    Nexus Point they can choose to either: Lift the top face-down Equipment Card as
    a free action, or Spend one action to pick up the top face-up card from the
    Surplus Deck." (MQ-CARD-03/04)

    false: a Hero who starts the turn on a Nexus takes no card there until they
    move off and back on (then one, face-down or Surplus). true: standing there is
    enough. Either way one card a turn."""
    lo, hi = both("nexus_draw_when_standing")
    for R, at_once in ((lo, False), (hi, True)):
        g = quiet_game(R=R, park=("nexus_ne",) + far_spaces()[1:])
        g.begin_turn(0)
        assert (g.ops(0, L.A_DRAW_EQ) == [0]) is at_once
        assert (g.ops(0, L.A_SURPLUS) == [0]) is at_once
        g.act(0, L.A_MOVE, g.sp("path_e1"))
        assert g.ops(0, L.A_DRAW_EQ) == []
        g.act(0, L.A_MOVE, g.sp("nexus_ne"))
        assert g.ops(0, L.A_DRAW_EQ) == [0] and g.ops(0, L.A_SURPLUS) == [0]
        g.act(0, L.A_DRAW_EQ)
        assert g.ops(0, L.A_DRAW_EQ) == [] and g.ops(0, L.A_SURPLUS) == []
