"""Enemy phase: movement, Nightmare v Bogbean, attacks, theft, encounter tiles
(MQ-ENEMY, MQ-ENC, MQ-COMBAT-21..23)."""

from mournesim import core, layout as L, rules

from .mq_game import JACK, MOON_GREEN, MOON_RED, fix_die
from .mq_positions import far_spaces, quiet_game

NE, SE, SW, NW = range(4)
COURAGE, STRENGTH, MAGIC = range(3)


def _tile(g, c, t):
    rules.resolve_tile(g.s, g.T, g.ev, g.rng, g.legal, g.pp, int(c), int(t))


def _set_bag(g, tiles):
    g.s[L.G_BAG:L.G_BAG + len(tiles)] = tiles
    g.s[L.G_BAG_N] = len(tiles)


# ---- movement --------------------------------------------------------------------------

def test_bogbean_moves_one_space_towards_nearest_hero():
    """"Any Bogbeans or Nightmares already on the playing board ... must be moved
    towards the Hero who is nearest to them on the board. Bogbeans move 1 space."
    MQ-ENEMY-02, MQ-ENEMY-03."""
    g = quiet_game(park=("path_e2", "path_s3", "path_w2", "path_n1"))
    g.place_bogbean(NE, 1, "nexus_ne")
    g.enemy_phase(draws=False)
    assert g.name(g.bog_pos(NE)) == "path_e1"


def test_equal_distance_tie_goes_clockwise():
    """"If two Heroes are an equal distance from the Bogbean/Nightmare it will move
    towards the Hero who is nearest to them in a clockwise direction."  MQ-ENEMY-04
    (MQ-GAP-42: clockwise from the enemy's own bearing)."""
    g = quiet_game(park=("crossroads_nw", "crossroads_ne", "path_s3", "path_w2"))
    g.place_bogbean(NE, 1, "keystone_n")
    assert rules.enemy_step(g.s, g.T, g.ev, False, NE, -1) == 1
    assert g.name(g.bog_pos(NE)) == "crossroads_ne"      # N -> NE is clockwise
    # the same on the South Key Stone: clockwise from S is SW, not SE
    g = quiet_game(park=("crossroads_se", "crossroads_sw", "path_n1", "path_e1"))
    g.place_bogbean(NE, 1, "keystone_s")
    assert rules.enemy_step(g.s, g.T, g.ev, False, NE, -1) == 1
    assert g.name(g.bog_pos(NE)) == "crossroads_sw"


def test_bogbean_never_enters_a_nightmares_space():
    """"A Bogbean cannot share a space with a Nightmare."  MQ-MOVE-08 (MQ-GAP-09:
    it waits)."""
    g = quiet_game(park=("nexus_ne", "path_s3", "path_w2", "path_n1"))
    fix_die(g.T, 0, 6)
    g.place_bogbean(NE, 1, "path_e2")
    d = next(d for d in range(4) if g.nm_at_disc(d) != 2)
    g.nightmare_to_board(d, "path_e1")
    g.s[g.nm(g.nm_at_disc(d)) + L.NM_POS] = g.sp("path_e1")
    pos = g.sp("path_e2")
    # move only the bogbean (one step) - the Nightmare stays put
    r = rules.enemy_step(g.s, g.T, g.ev, False, NE, -1)
    assert r == -1 and g.bog_pos(NE) == pos


def test_nightmare_makes_bogbeans_flee():
    """"If a Bogbean is on the board, either alone or is occupying the same location
    as a Hero ... and a Nightmare moves onto that location, the Nightmare takes
    precedence, and the Bogbean will flee from the board! (Remove the Bogbean and
    the corresponding Encounter Tile".  MQ-ENEMY-12, MQ-ENC-11."""
    g = quiet_game(park=("path_e2", "path_s3", "path_w2", "path_n3"))
    fix_die(g.T, 0, 6)
    g.place_bogbean(NE, 1, "path_e2")                  # sharing with hero 0
    d = next(d for d in range(4) if g.nm_at_disc(d) != 2)
    k = g.nightmare_to_board(d, "nexus_ne")
    rules.enemy_step(g.s, g.T, g.ev, True, k, -1)
    assert g.name(g.nm_pos(k)) == "path_e1"
    rules.enemy_step(g.s, g.T, g.ev, True, k, -1)
    assert g.name(g.nm_pos(k)) == "path_e2"
    assert g.bog_pos(NE) == -1 and g.slot_tile(NE) == -1
    assert int(g.s[L.G_BOGS_IN_PLAY]) == 0


def test_enemy_stays_on_heros_space_and_attacks():
    """"If a Bogbean or Nightmare moves onto a location occupied by a Hero, they will
    attack in the Enemy Phase".  MQ-ENEMY-06 (MQ-GAP-43: it stops on the Hero;
    MQ-GAP-44: one already there stays and attacks)."""
    g = quiet_game(park=("path_e1", "path_s3", "path_w2", "path_n1"))
    fix_die(g.T, 0, 6)
    g.place_bogbean(NE, 1, "nexus_ne")
    g.s[L.G_MOON] = MOON_GREEN
    g.enemy_phase(draws=False)
    assert len(g.events("combat")) == 1
    assert g.bog_pos(NE) == -1                          # fended off, ran away
    # a bogbean already on the hero's space does not move on; it attacks
    g.place_bogbean(SE, 1, "path_e1")
    g.enemy_phase(draws=False)
    assert len(g.events("combat")) == 2
    assert len([e for e in g.events("enemy_move") if e[4] == SE]) == 0


# ---- enemy attacks -----------------------------------------------------------------------

def _snipe_attack(face, charms=None, card=False):
    g = quiet_game(heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
    g.s[L.G_MOON] = MOON_RED
    fix_die(g.T, 0, face)
    if charms:
        g.set_charms(0, *charms)
    if card:
        g.equip(0, STRENGTH, 2)
    g.place_bogbean(NE, 1, "path_e1", drop=1)          # drops 1 Gold
    rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, NE)
    return g


def test_enemy_attacks_on_strongest_ability_and_fended_off_bogbean_drops_charm():
    """"A Snipe, attacking on a Blood Moon, will attack on Courage with a score of 13."
    "If the total is equal to or higher than the Bogbean's score, they have fended
    off the attack ... The Bogbean drops the Charm shown on their Encounter Tile and
    the Hero collects it".  MQ-ENEMY-07, MQ-ENEMY-09, MQ-ENEMY-10, MQ-COMBAT-02."""
    g = _snipe_attack(6)                                # Jack Courage 7 + 6 = 13
    c = g.events("combat")[-1]
    assert c[3] == L.ENEMY_BOG and c[4] == COURAGE and c[5] == 13  # Snipe, Courage, target 13
    assert g.charms(0) == [0, 1, 0, 0]
    assert g.bog_pos(NE) == -1 and g.slot_tile(NE) == -1


def test_theft_takes_charms_first():
    """"The Bogbean steals the Charm/s or Items indicated on the Bogbean Encounter
    Tile from the Hero's supply and runs away."  MQ-COMBAT-21."""
    g = _snipe_attack(5, charms=(0, 0, 2, 0), card=True)   # 7 + 5 = 12 < 13
    assert g.charms(0) == [0, 0, 1, 0]
    assert g.equipped(0, STRENGTH) >= 0
    assert g.wounds(0) == 0
    assert g.bog_pos(NE) == -1 and g.slot_tile(NE) == -1


def test_theft_takes_a_card_when_no_charms():
    """"If the Hero is not carrying enough Charms, the player must discard one of their
    Hero's Equipment or Relic cards instead. (Remove the card to the relevant Discard
    Pile)."  MQ-COMBAT-22 (MQ-GAP-57: out of play, not onto the Surplus)."""
    g = _snipe_attack(5, card=True)
    surplus_n = int(g.s[L.G_SURPLUS_N])
    assert g.equipped(0, STRENGTH) == -1
    assert g.wounds(0) == 0
    assert int(g.s[L.G_SURPLUS_N]) == surplus_n == 1


def test_theft_takes_a_life_point_when_nothing_to_steal():
    """"If the Hero has no Charms and does not have an Equipment or Relic Card, they
    lose 1 Life Point".  MQ-COMBAT-23."""
    g = _snipe_attack(5)
    assert g.wounds(0) == 1
    assert g.bog_pos(NE) == -1


def test_nightmare_attack_costs_a_life_or_nothing():
    """"If the Hero is successful, they have fended off the attack. (Neither the
    Nightmare nor the Hero are wounded). If the Hero is unsuccessful, they lose 1
    Life Point".  MQ-ENEMY-11, MQ-COMBAT-27."""
    for face, wounds in ((L.FACE_DANDELION, 0), (L.FACE_FAIL, 1)):
        g = quiet_game(park=("path_e1",) + far_spaces()[1:])
        fix_die(g.T, 0, face)
        k = g.nightmare_to_board(0, "path_e1")
        rules.nightmare_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, k)
        assert g.wounds(0) == wounds
        assert int(g.s[g.nm(k) + L.NM_WOUNDS]) == 0
        assert g.nm_pos(k) == g.sp("path_e1")


def test_wounded_nightmare_attacks_with_next_strongest():
    """"The Nightmare can no longer attack using that Ability and will use its next
    strongest when it next attacks."  MQ-ENEMY-08."""
    g = quiet_game(park=("path_e1",) + far_spaces()[1:])
    fix_die(g.T, 0, L.FACE_DANDELION)
    k = g.nightmare_to_board(0, "path_e1")
    vals = [int(rules.enemy_value(g.s, g.T, L.ENEMY_NM + k, a)) for a in range(3)]
    order = sorted(range(3), key=lambda a: (-vals[a], a))
    g.s[g.nm(k) + L.NM_WOUNDS] = 1 << order[0]
    rules.nightmare_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, k)
    assert int(g.events("combat")[-1][4]) == order[1]


# ---- encounter tiles -----------------------------------------------------------------------

def test_encounter_draw_order_and_both_conditions():
    """"draw an Encounter Tile from the Encounter Bag for every Nexus Point that: is
    not already occupied by a miniature or does not have an Encounter Tile already
    placed beside it. This should always begin with the NE Nexus Point, and continue
    clockwise, drawing for the NW Nexus Point last."  MQ-ENC-04, MQ-ENC-05
    (MQ-GAP-48: both conditions)."""
    g = quiet_game(park=far_spaces())
    bog = [g.tile_id(1, L.TK_BOGBEAN)] * 8
    _set_bag(g, bog)
    rules.draw_encounters(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
    assert [int(e[3]) for e in g.events("encounter")] == [NE, SE, SW, NW]
    # second round: NE has a hero (no tile), SE has a tile but no miniature,
    # SW is free of both, NW has neither tile nor miniature
    g = quiet_game(park=("nexus_ne",) + far_spaces()[1:])
    _set_bag(g, bog)
    g.place_pot(SE)
    g.clear_events()
    rules.draw_encounters(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
    assert [int(e[3]) for e in g.events("encounter")] == [SW, NW]
    assert int(g.s[L.G_BAG_N]) == 6


def test_bogbean_tile_places_a_miniature_on_its_nexus():
    """"When a Bogbean Tile is drawn ... place the Encounter Tile beside the Nexus
    Point and place a miniature for the matching Bogbean level onto the Nexus
    Point."  MQ-ENC-06 (MQ-GAP-53: no miniature left -> discarded)."""
    g = quiet_game(park=far_spaces())
    t = g.tile_id(2, L.TK_BOGBEAN)
    _tile(g, SW, t)
    assert g.bog_pos(SW) == g.sp("nexus_sw") and g.slot_tile(SW) == t
    assert int(g.s[L.G_BOGS_IN_PLAY + 1]) == 1
    g.s[L.G_BOGS_IN_PLAY + 1] = 4
    _tile(g, NW, t)
    assert g.bog_pos(NW) == -1 and g.slot_tile(NW) == -1


def test_pot_tile_goes_to_the_crossroads_unless_occupied():
    """"place a Magical Pot Token onto the Crossroad location directly in line with
    that Nexus Point. Note: If the Crossroads is already occupied by either a Hero, a
    Bogbean or Nightmare, or a Magical Pot Token, then the Encounter Tile is
    discarded."  MQ-ENC-07."""
    g = quiet_game(park=("crossroads_sw",) + far_spaces()[1:])
    pot = g.tile_id(1, L.TK_POT)
    _tile(g, NE, pot)
    assert int(g.s[g.slot(NE) + L.X_POT]) == 1 and g.slot_tile(NE) == pot
    assert core.pot_at(g.s, g.T, g.sp("crossroads_ne")) == NE
    disc = int(g.s[L.G_DISCARD_N])
    _tile(g, SW, pot)                                   # hero on crossroads_sw
    assert g.slot_tile(SW) == -1 and int(g.s[L.G_DISCARD_N]) == disc + 1
    g.place_bogbean(SW, 1, "crossroads_se")
    _tile(g, SE, pot)                                   # bogbean on crossroads_se
    assert g.slot_tile(SE) == -1
    d = next(d for d in range(4) if g.nm_at_disc(d) != 2)
    g.nightmare_to_board(d, "crossroads_nw")
    _tile(g, NW, pot)                                   # nightmare on crossroads_nw
    assert g.slot_tile(NW) == -1 and int(g.s[g.slot(NW) + L.X_POT]) == 0
    assert int(g.s[L.G_POTS_OUT]) == 1


def test_movement_tile_moves_every_enemy_and_is_discarded():
    """"A Movement Tile marked with a single chevron: all Bogbeans and Nightmares in
    play move 1 Space. ... double chevron ... move 2 Spaces." "even Bogbeans that have
    just been drawn and placed in this round will move." "The tile is discarded".
    MQ-ENC-08, MQ-ENC-09 (MQ-GAP-47: that Nexus stays empty)."""
    g = quiet_game(park=far_spaces())
    tab = g.R.tables

    def near(c):
        return min(int(tab.dist_e[g.bog_pos(c), g.pos(h)]) for h in range(4))

    _tile(g, NE, g.tile_id(1, L.TK_BOGBEAN))            # placed this round at nexus_ne
    g.place_bogbean(SW, 1, "keystone_n")                # one already on the board
    assert g.bog_pos(NE) == g.sp("nexus_ne")
    before = (near(NE), near(SW))
    move1 = g.tile_id(1, L.TK_MOVE1)
    _tile(g, SE, move1)
    assert (near(NE), near(SW)) == (before[0] - 1, before[1] - 1)
    assert g.slot_tile(SE) == -1
    assert int(g.s[L.G_DISCARD + int(g.s[L.G_DISCARD_N]) - 1]) == move1
    before = (near(NE), near(SW))
    assert min(before) > 2
    _tile(g, SE, g.tile_id(1, L.TK_MOVE2))
    assert (near(NE), near(SW)) == (before[0] - 2, before[1] - 2)
    assert g.slot_tile(SE) == -1


def test_movement_tile_attack_happens_at_once():
    """"Movement Tiles drawn from the Encounter Bag should be activated immediately
    and can mean that Bogbeans/Nightmares may move and Attack more than once in a
    round."  MQ-ENC-10 (MQ-GAP-46)."""
    g = quiet_game(park=("path_e1", "path_s3", "path_w2", "path_n1"))
    fix_die(g.T, 0, 6)
    g.place_bogbean(NE, 1, "nexus_ne")
    _tile(g, SE, g.tile_id(1, L.TK_MOVE1))
    assert len(g.events("combat")) == 1
    assert g.bog_pos(NE) == -1


def test_empty_bag_adds_next_level():
    """"The Level 2 tiles are added, when either: ... all Encounter Tiles in the
    Encounter bag are exhausted".  MQ-ENC-01, MQ-ENC-02 (MQ-GAP-50)."""
    g = quiet_game(park=far_spaces())
    g.s[L.G_BAG_N] = 0
    t = rules.draw_tile(g.s, g.T, g.ev, g.rng)
    assert int(g.s[L.G_ENC_LEVEL]) == 2
    assert g.R.tables.tiles[t, L.TL_LEVEL] == 2
    assert int(g.s[L.G_BAG_N]) == int(g.s[L.G_LV_N + 1]) - 1


def test_second_nightmare_adds_level3_tiles():
    """"The Level 3 tiles are added, when either: the Heroes Cast-out or defeat a
    second Nightmare in Combat ... or a second Nightmare escapes".  MQ-ENC-02,
    MQ-ENC-01 (MQ-GAP-49: every trigger counts)."""
    g = quiet_game(park=far_spaces())
    g.set_clicks(0, 0)
    g.set_clicks(1, 0)
    rules.escapes(g.s, g.T, g.ev)
    assert int(g.s[L.G_ENC_LEVEL]) == 3
    n = int(g.s[L.G_LV_N]) + int(g.s[L.G_LV_N + 1]) + int(g.s[L.G_LV_N + 2])
    assert int(g.s[L.G_BAG_N]) == n
    rules.nightmare_gone(g.s, g.T, g.ev, g.nm_at_disc(2), L.FATE_CAST_OUT)
    assert int(g.s[L.G_ENC_LEVEL]) == 3 and int(g.s[L.G_BAG_N]) == n
