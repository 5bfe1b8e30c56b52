"""Set-up rules (MQ-SETUP, MQ-LEVEL, MQ-SOLO-01..04, MQ-HERO-03/04/06)."""
import numpy as np

from mournesim import core, layout as L, rules, tables as TB

from .mq_game import BEITH, COBS, EASY, HARD, IUR, JACK, MEDIUM, MOON_GREEN, MOON_GREY, MOON_RED, Game, fix_compass, get_rules


def test_discs_placed_at_random_one_nightmare_each():
    """"Place the four Nightmare Discs randomly around the board and place the
    matching miniature for each on the centre of each Disc."  MQ-SETUP-01, MQ-DISC-01.

    Each disc holds a different Nightmare, every Nightmare starts on its disc
    (not on the board), and the arrangement changes from game to game."""
    layouts = set()
    for i in range(12):
        g = Game(game_index=i)
        nms = [g.nm_at_disc(d) for d in range(4)]
        assert sorted(nms) == [0, 1, 2, 3]
        for d in range(4):
            k = nms[d]
            assert g.disc_state(d) == L.DS_ON
            assert g.nm_pos(k) == -1            # on its disc, not on the main board
            assert int(g.s[g.nm(k) + L.NM_DIR]) == d
        layouts.add(tuple(nms))
    assert len(layouts) > 1


def test_disc_start_marker_depends_on_level():
    """"Nightmare Discs are set at the Blue Marker (1 *) ... Light Green Marker (2*)
    ... Dark Green Marker (3*)".  MQ-SETUP-02, MQ-LEVEL-02..04.

    Every disc starts at the chosen level's marker: Easy farthest from
    release, Difficult nearest."""
    levels = get_rules().ruleset.levels
    got = {}
    for level, lv in ((EASY, levels.easy), (MEDIUM, levels.medium), (HARD, levels.hard)):
        for players in (1, 4):
            g = Game(level=level, players=players, heroes=(JACK, COBS, IUR, BEITH)[:2 if players == 1 else 4])
            assert {g.clicks(d) for d in range(4)} == {lv.disc_clicks}
        got[level] = lv.disc_clicks
    assert got[EASY] > got[MEDIUM] > got[HARD] > 0


def test_a_disc_length_per_player_count_is_a_rule_variant_the_setup_reads():
    """``levels.<level>.disc_clicks_by_players`` (not in the rulebook: a
    variant the balance study proposes) sets each player count's start
    marker; the other levels keep their one length."""
    R = get_rules("levels.medium.disc_clicks_by_players=[5, 6, 7, 8]")
    for players, want in ((1, 5), (2, 6), (3, 7), (4, 8)):
        g = Game(R, level=MEDIUM, players=players, heroes=(JACK, COBS, IUR, BEITH)[:max(2, players)])
        assert {g.clicks(d) for d in range(4)} == {want}
    assert {Game(R, level=EASY).clicks(d) for d in range(4)} == {R.ruleset.levels.easy.disc_clicks}


def test_discs_set_a_click_shorter_are_a_rule_variant_the_setup_reads():
    """``levels.<level>.short_discs_by_players`` (not in the rulebook: a
    finer step than a whole click for the balance study's targets) starts
    that many Discs, the first clockwise from North, one click shorter at
    each player count, whichever Nightmare stands on them; with it unset,
    or 0, every Disc starts at the level's length."""
    R = get_rules("levels.hard.disc_clicks_by_players=[5, 6, 6, 7]", "levels.hard.short_discs_by_players=[0, 1, 2, 3]")
    for players, length, short in ((1, 5, 0), (2, 6, 1), (3, 6, 2), (4, 7, 3)):
        for i in range(3):
            g = Game(R, level=HARD, players=players, heroes=(JACK, COBS, IUR, BEITH)[:max(2, players)], game_index=i)
            want = [length - 1] * short + [length] * (4 - short)
            assert [g.clicks(d) for d in range(4)] == want
            assert [int(g.s[g.disc(d) + L.D_START_CLICKS]) for d in range(4)] == want
    assert {Game(R, level=MEDIUM, players=4).clicks(d) for d in range(4)} == {R.ruleset.levels.medium.disc_clicks}


def test_moon_marker_starts_on_blood_moon():
    """"Place the Moon Marker with the white moon facing up on the Blood moon
    space at the North moon track."  MQ-SETUP-04."""
    g = Game()
    assert int(g.s[L.G_MOON]) == 0
    assert int(g.s[L.G_MOON_STEPS]) == 0
    assert int(g.T[TB.O_MOON + 0]) == L.RED
    assert MOON_RED == 0


def test_first_surplus_card_is_never_a_hag():
    """"Find and remove the 4 Hag Cards ... Draw the top card and place it face-up
    beside the Deck. This becomes the Surplus Deck. Shuffle the four Hag Cards
    back into the Equipment Deck".  MQ-SETUP-05."""
    cards = get_rules().tables.cards
    for i in range(25):
        g = Game(game_index=i)
        assert int(g.s[L.G_SURPLUS_N]) == 1
        assert cards[int(g.s[L.G_SURPLUS]), 0] >= 0          # not a Hag
        deck = [int(c) for c in g.s[L.G_EQ_DECK:L.G_EQ_DECK + int(g.s[L.G_EQ_N])]]
        assert len(deck) == 27                                # 28 - the Surplus card
        assert sum(1 for c in deck if cards[c, 0] < 0) == 4   # all Hags are back in


def test_relic_deck_and_supplies():
    """"1 Relic Deck (18 cards)" ... "4 Sets of 16 Charm Counters" ... "6
    MourneQuest Talismans".  MQ-SETUP-06, MQ-SETUP-09, MQ-CHARM-01."""
    g = Game()
    assert int(g.s[L.G_RELIC_N]) == 18
    assert sorted(int(x) for x in g.s[L.G_RELIC_DECK:L.G_RELIC_DECK + 18]) == list(range(18))
    assert g.pool() == [16, 16, 16, 16]
    assert int(g.s[L.G_TALISMANS]) == 0
    assert int(g.s[L.G_TALISMAN_SUPPLY]) == 6


def test_only_level1_tiles_start_in_the_bag():
    """"Place the Level 1 Encounter Tiles in the Encounter bag. Set the Level 2 and
    Level 3 Encounter Tiles to one side of the board."  MQ-SETUP-07."""
    g = Game(players=4)
    tiles = g.R.tables.tiles
    n = int(g.s[L.G_BAG_N])
    assert n == 13
    assert int(g.s[L.G_ENC_LEVEL]) == 1
    assert all(tiles[int(t), L.TL_LEVEL] == 1 for t in g.s[L.G_BAG:L.G_BAG + n])


def test_one_compass_die_and_grey_die_only():
    """"Select one Compass Die and the Level 1 (Grey Combat Die)."  MQ-SETUP-10,
    MQ-COMBAT-03."""
    g = Game()
    assert int(g.s[L.G_POOL]) == 1
    levels = np.zeros(8, np.int32)
    from mournesim import core
    assert core.dice_for_combat(g.s, g.T, levels, 0) == 1
    assert levels[0] == 0


def test_heroes_start_on_distinct_start_points_with_full_supplies():
    """"Players place their Hero miniature on one of the four Starting Locations."
    "Each Hero has 3 Life Points" "Each player receives 3 Skill Tokens".
    MQ-SETUP-11, MQ-HERO-04, MQ-HERO-06, MQ-HERO-03."""
    g = Game(players=4)
    pos = [g.pos(h) for h in range(4)]
    assert len(set(pos)) == 4
    assert all(g.R.tables.kind[p] == L.K_START for p in pos)
    for h in range(4):
        assert g.wounds(h) == 0
        assert int(g.s[g.hero_off(h) + L.H_SKILLS]) == 3
        assert g.charms(h) == [0, 0, 0, 0]
    assert int(g.T[TB.P_BACKPACK]) == 3 and int(g.T[TB.P_LIFE]) == 3


def test_two_player_game_removes_two_bogbeans_per_level():
    """"Two-Player Option: For a 2 player game, remove two Bogbeans from each Level
    of Encounter Tiles."  MQ-SOLO-01 (also solo: "Remove two Bogbeans from each
    Level of Encounter Tiles")."""
    tiles = get_rules().tables.tiles

    def kinds(g, lv):
        ids = g.s[L.G_LV_TILES + lv * 32:L.G_LV_TILES + lv * 32 + int(g.s[L.G_LV_N + lv])]
        bog = sum(1 for t in ids if tiles[int(t), L.TL_KIND] == L.TK_BOGBEAN)
        return bog, len(ids) - bog

    full = Game(players=4)
    three = Game(players=3)
    for players in (1, 2):
        g = Game(players=players)
        for lv in range(3):
            b4, o4 = kinds(full, lv)
            b, o = kinds(g, lv)
            assert b == b4 - 2 and o == o4, (players, lv)
            assert kinds(three, lv) == (b4, o4)
    assert [int(full.s[L.G_LV_N + lv]) for lv in range(3)] == [13, 17, 17]


def test_difficult_pregame_draw_is_optional_and_off_by_default():
    """"Optional: Four Encounter Tiles are drawn from the Encounter Bag ... before
    players take their first turn."  MQ-LEVEL-05 (MQ-GAP-75: off by default)."""
    g = Game(level=HARD)
    assert int(g.s[L.G_BAG_N]) == 13
    on = Game(R=get_rules("toggles.pregame_encounters=true"), level=HARD)
    drawn = 13 - int(on.s[L.G_BAG_N])
    assert drawn == 4
    med = Game(R=get_rules("toggles.pregame_encounters=true"), level=MEDIUM)
    assert int(med.s[L.G_BAG_N]) == 13


def test_solo_setup_two_heroes_opposite_with_level5_cards():
    """"Select 2 Hero Characters ... Place the Hero Miniatures on Start Locations on
    opposite sides of the Playing Board ... select 2 Level 5 equipment Cards and
    give one to each Hero."  MQ-SOLO-02, MQ-SOLO-03, MQ-SOLO-04."""
    cards = get_rules().tables.cards
    for i in range(4):
        g = Game(players=1, heroes=(0, 1), game_index=i)
        assert g.nheroes == 2
        a, b = g.name(g.pos(0)), g.name(g.pos(1))
        assert {a, b} == {"start_n", "start_s"}
        got = []
        for h in range(2):
            eq = [g.equipped(h, ab) for ab in range(3) if g.equipped(h, ab) >= 0]
            assert len(eq) == 1
            assert cards[eq[0], 1] == 5
            got.append(eq[0])
        assert got[0] != got[1]
        # the Level 5 cards are out of the decks
        deck = set(int(c) for c in g.s[L.G_EQ_DECK:L.G_EQ_DECK + int(g.s[L.G_EQ_N])])
        deck |= set(int(c) for c in g.s[L.G_SURPLUS:L.G_SURPLUS + int(g.s[L.G_SURPLUS_N])])
        assert not (set(got) & deck)
    # multi-player games give no starting equipment
    g4 = Game(players=4)
    assert all(g4.equipped(h, a) == -1 for h in range(4) for a in range(3))


# ---- Nightmare Cards, the Shimnavore set aside, Bogbean cards and miniatures ----------------

def test_nightmare_cards_beside_the_board_shimnavore_set_aside():
    """"Select the matching Nightmare Character Cards and set them to one side of the
    board." "Set the Shimnavore Card and Miniature to one side of the board."
    MQ-SETUP-03 (MQ-FINAL-01: it appears only after two moon cycles).

    At set-up the four Nightmares on the Discs are exactly the four Nightmare
    Cards in play, and each fights on its own card (the ruleset's values for its
    name, at every moon colour). The Shimnavore is not on the board: no Final
    Battle, no Wounds, and a Hero on a Key Stone with no enemy anywhere is not
    offered an attack on it, nor does a compass result make it act; placed on
    the board (the Final Battle running) the same Hero may attack it."""
    g = Game()
    rs = g.R.ruleset
    names = g.R.names.nightmares
    assert sorted(names) == sorted(rs.nightmares) and len(names) == 4
    assert sorted(g.nm_at_disc(d) for d in range(4)) == [0, 1, 2, 3]
    for moon, row in ((MOON_GREEN, "green"), (MOON_GREY, "grey"), (MOON_RED, "red")):
        g.s[L.G_MOON] = moon
        for k, name in enumerate(names):
            card = getattr(rs.nightmares[name], row)
            assert [int(rules.enemy_value(g.s, g.T, L.ENEMY_NM + k, a)) for a in range(3)] == list(card)
    g.s[L.G_MOON] = 0
    assert int(g.s[L.G_FINAL]) == L.FB_NONE
    assert [int(x) for x in g.s[L.G_SHIM_WOUNDS:L.G_SHIM_WOUNDS + 3]] == [0, 0, 0]
    assert len(g.events("shimnavore")) == 0 and len(g.events("final_battle")) == 0
    g.first_done_all()
    g.put(0, "keystone_n")
    g.begin_turn(0)
    assert [c for c in g.ops(0, L.A_ATTACK) if L.attack_target(c) == L.TGT_SHIM] == []
    fix_compass(g.T, 0)
    g.end_of_turn(0)                                    # a compass N: Disc N turns, the Shimnavore does nothing
    assert len(g.events("shimnavore")) == 0 and len(g.events("wall_roll")) == 0
    assert g.pos(0) == g.sp("keystone_n") and g.wounds(0) == 0
    g.s[L.G_FINAL] = L.FB_RUNNING                      # the Shimnavore has appeared
    for d in range(4):
        g.cast_out_state(d)
    g.begin_turn(0)
    assert sorted(L.attack_ability(c) for c in g.ops(0, L.A_ATTACK) if L.attack_target(c) == L.TGT_SHIM) == [0, 1, 2]


def test_bogbean_cards_and_miniatures_of_all_levels_wait_beside_the_board():
    """"Set the miniature and cards for all three levels of Bogbeans to one side of
    the board. Note: Keep the Level 1 Bogbean Character Card on top as it will be
    required first when playing." ("3 Bogbean Cards", "12 Bogbean miniatures (4 of
    each level)").  MQ-SETUP-08 (MQ-ENEMY-13, MQ-COMBAT-01).

    At set-up no Bogbean is on the board and all 4 miniatures of each level are
    free: a fifth Bogbean tile of a level finds no miniature (MQ-GAP-53). The
    three cards are the Snipe, Speedwell and Louse Wort (the rulebook's Snipe
    values, New Moon 8/9/7), needing 1, 1 and 2 wins. The Level 1 card is the one
    needed first: the first Bogbeans drawn are Snipes."""
    for i in range(6):
        g = Game(game_index=i)
        assert [int(x) for x in g.s[L.G_BOGS_IN_PLAY:L.G_BOGS_IN_PLAY + 3]] == [0, 0, 0]
        assert all(int(g.s[g.slot(c) + L.X_BOG_POS]) == -1 and g.slot_tile(c) == -1 for c in range(4))
        # the first Bogbeans to come into play are Level 1 (draw for every Nexus from set-up)
        g.first_done_all()
        g.park_heroes("path_n1", "path_e4", "path_s3", "path_w2")
        rules.draw_encounters(g.s, g.T, g.ev, g.rng, g.legal, g.pp)
        tiles = g.R.tables.tiles
        for c in range(4):
            t = g.slot_tile(c)
            if t >= 0 and tiles[t, L.TL_KIND] == L.TK_BOGBEAN:
                assert tiles[t, L.TL_LEVEL] == 1
    rs = get_rules().ruleset
    assert int(get_rules().T[TB.P_BOGBEANS_PER_LEVEL]) == 4 == rs.rules.bogbeans_per_level
    assert [rs.enemies[n].level for n in ("snipe", "speedwell", "louse_wort")] == [1, 2, 3]
    assert [rs.enemies[n].wins_needed for n in ("snipe", "speedwell", "louse_wort")] == [1, 1, 2]
    assert [int(x) for x in get_rules().T[TB.O_WINS_NEEDED:TB.O_WINS_NEEDED + 3]] == [1, 1, 2]
    g = Game()
    g.s[L.G_MOON] = MOON_GREEN
    assert [int(rules.enemy_value(g.s, g.T, L.ENEMY_BOG, a)) for a in range(3)] == [8, 9, 7]
    # four miniatures of each level: with all four on the board a fifth tile is discarded
    g.first_done_all()
    g.park_heroes("path_n1", "path_e4", "path_s3", "path_w2")
    for lv in (1, 2, 3):
        t = g.tile_id(lv)
        for c in range(4):
            rules.resolve_tile(g.s, g.T, g.ev, g.rng, g.legal, g.pp, c, t)
            assert g.bog_pos(c) == int(g.R.tables.nexus[c])
        assert int(g.s[L.G_BOGS_IN_PLAY + lv - 1]) == 4
        n = int(g.s[L.G_DISCARD_N])
        rules.resolve_tile(g.s, g.T, g.ev, g.rng, g.legal, g.pp, 0, t)
        assert int(g.s[L.G_BOGS_IN_PLAY + lv - 1]) == 4 and int(g.s[L.G_DISCARD_N]) == n + 1
        for c in range(4):
            core.remove_bogbean(g.s, g.T, g.ev, c, 0)
        assert int(g.s[L.G_BOGS_IN_PLAY + lv - 1]) == 0


# ---- each level's Disc start marker ---------------------------------------------------------

def _marker_check(level, name):
    """Every Disc of a ``level`` game starts at that level's marker: the
    ruleset's ``levels.<name>.disc_clicks`` from the final red pointer, so the
    Disc releases its Nightmare on exactly that many clicks and not one before.
    With that marker moved (an override of this level only) the set-up follows
    it, and the other levels' markers stay where they were."""
    R = get_rules()
    want = getattr(R.ruleset.levels, name).disc_clicks
    for i in range(4):
        g = Game(level=level, game_index=i)
        assert [g.clicks(d) for d in range(4)] == [want] * 4
        assert [int(g.s[g.disc(d) + L.D_START_CLICKS]) for d in range(4)] == [want] * 4
        assert [g.disc_state(d) for d in range(4)] == [L.DS_ON] * 4
    for d in range(4):
        for _ in range(want - 1):
            core.click_disc(g.s, g.T, g.ev, d, 1)
        assert g.disc_state(d) == L.DS_ON and g.clicks(d) == 1
        core.click_disc(g.s, g.T, g.ev, d, 1)
        assert g.disc_state(d) == L.DS_RELEASED
    moved = get_rules(f"levels.{name}.disc_clicks={want - 2}")
    assert {Game(R=moved, level=level).clicks(d) for d in range(4)} == {want - 2}
    for other, oname in ((EASY, "easy"), (MEDIUM, "medium"), (HARD, "hard")):
        if other != level:
            assert {Game(R=moved, level=other).clicks(d) for d in range(4)} == \
                {getattr(R.ruleset.levels, oname).disc_clicks}
    return want


def test_medium_discs_start_at_the_light_green_marker():
    """"MEDIUM (LEVEL 2*) - Nightmare Discs are set at the Light Green Marker (2*) on
    each Disc."  MQ-LEVEL-03 (MQ-SETUP-02; MQ-GAP-22: the marker's distance to
    release is data, levels.medium.disc_clicks).

    The Light Green marker lies between the Blue (Easy) and the Dark Green
    (Difficult) ones: nearer release than Easy's, farther than Difficult's."""
    want = _marker_check(MEDIUM, "medium")
    levels = get_rules().ruleset.levels
    assert levels.easy.disc_clicks > want > levels.hard.disc_clicks


def test_difficult_discs_start_at_the_dark_green_marker():
    """"DIFFICULT (LEVEL 3 *) - Nightmare Discs are set at the Dark Green Marker (3*)
    on each Disc."  MQ-LEVEL-04 (MQ-SETUP-02, MQ-GAP-22).

    The Dark Green marker is the nearest to release of the three."""
    want = _marker_check(HARD, "hard")
    levels = get_rules().ruleset.levels
    assert 0 < want < levels.medium.disc_clicks < levels.easy.disc_clicks
