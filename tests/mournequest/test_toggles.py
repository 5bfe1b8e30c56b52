"""The eighteen ``[toggles]`` of the ruleset: each is one reading of an
ambiguous rule (docs/mournequest/rulings.md, docs/mournequest/ruleset.md). For every toggle a
hand-built position is played with the toggle false and with it true, and
the documented difference is asserted, so a toggle that does nothing (or the
wrong thing) fails here. The last tests play whole games with every toggle
at its non-default value and check that they all end.

Each docstring names the toggle, its gap and quotes the rulebook sentence the
gap is about (the quote given in docs/mournequest/rulings.md).
"""
import numpy as np
import pytest

from mournesim import core, layout as L, rules, sim, tables as TB

from .mq_game import (COURAGE, EASY, GOLD, HARD, JACK, MEDIUM, MOON_GREY, NE, NW, POLICY_FIRST, POLICY_RANDOM,
                      SE, STRENGTH, SW, E, Game, N, W, fix_all_dice, fix_compass, fix_die, get_rules)
from .mq_positions import far_spaces, final_battle, quiet_game

F, D2, DD = L.FACE_FAIL, L.FACE_DOUBLE, L.FACE_DANDELION
GAME_ACTOR = L.ACTOR_GAME
DULLAHAN = 2      # the Nightmare whose assumed Evil Power is an extra move

TOGGLES = {       # name: default (mournesim/data/ruleset.toml)
    "first_turn_arrow": True,
    "enemies_use_tunnel": False,
    "star_clicks_roll_over": False,
    "escape_knocks_back": False,
    "escape_round_active": False,
    "shimnavore_skips_beaten": False,
    "defend_with_courage": False,
    "defence_any_fail_loses": True,
    "extra_die_any_level": False,
    "doubles_stack": False,
    "dandelion_beats_fumble": True,
    "enemy_on_hero_attacks": True,
    "encounter_level_per_trigger": False,
    "bag_reuses_discards": False,
    "partial_theft_takes_charms": False,
    "nexus_draw_when_standing": False,
    "transition_enemy_phase": False,
    "pregame_encounters": False,
}
# name: its row in the compiled rules vector T, found by its ruleset path
P_INDEX = {name: TB.RULE_ROWS.index(f"toggles.{name}") for name in TOGGLES}
FLIPPED = tuple(f"toggles.{k}={'false' if v else 'true'}" for k, v in TOGGLES.items())


def toggled(name, value):
    """The default ruleset with toggle ``name`` set to ``value`` (cached)."""
    assert name in TOGGLES
    return get_rules(f"toggles.{name}={'true' if value else 'false'}")


def both(name):
    """(rules with the toggle false, rules with it true)."""
    return toggled(name, False), toggled(name, True)


def score(T, faces, ability=5, target=10, bonus=0, blue=False, defending=False):
    f = np.zeros(8, np.int32)
    f[:len(faces)] = faces
    win, total = core.score_roll(T, f, int(len(faces)), int(ability), int(bonus), int(target),
                                  bool(blue), bool(defending))
    return bool(win), int(total)


def combats(g):
    return g.events("combat")


def _plain_disc(g):
    """A disc whose Nightmare's Evil Power does not move it."""
    return next(d for d in range(4) if g.nm_at_disc(d) != DULLAHAN)


def test_toggle_table_matches_the_ruleset_and_the_compiled_parameters():
    """All eighteen toggles (MQ-GAP-06 ... MQ-GAP-75, see ``TOGGLES``): every key of
    ``[toggles]`` is covered in this file with its documented default, and flipping
    any one of them changes the compiled rules vector ``T`` (its ``P_T_*`` entry)."""
    R = get_rules()
    assert set(type(R.ruleset.toggles).model_fields) == set(TOGGLES)
    assert len(set(P_INDEX.values())) == len(TOGGLES)
    for name, default in TOGGLES.items():
        assert getattr(R.ruleset.toggles, name) is default, name
        assert int(R.T[P_INDEX[name]]) == int(default), name
        lo, hi = both(name)
        assert (int(lo.T[P_INDEX[name]]), int(hi.T[P_INDEX[name]])) == (0, 1), name
        diff = set(int(i) for i in np.nonzero(lo.T != hi.T)[0])
        assert P_INDEX[name] in diff
        # besides its own entry only derived tables may change: the enemy
        # distances (enemies_use_tunnel) and the attack odds the policies read
        # (the combat toggles of an attack roll)
        derived = set(range(TB.O_ODDS, TB.O_ODDS + 5 * 2 * TB.ODDS_W))
        if name == "enemies_use_tunnel":
            derived = set(range(TB.O_DIST_E, TB.O_DIST_E + TB.MAX_S * TB.MAX_S))
        assert diff - {P_INDEX[name]} <= derived, (name, sorted(diff - derived)[:5])


# ---- MQ-GAP-06 first_turn_arrow ---------------------------------------------------------

def test_first_turn_arrow():
    """Toggle ``first_turn_arrow`` (MQ-GAP-06). "IMPORTANT (First Round): On each
    player's first turn, they must move in the direction of the arrow marked on
    their Starting Point."

    true: the first action of a Hero's first turn is a move along its Start Point's
    arrow and the turn cannot end before it. false: no obligation at all - the
    Hero may end the turn at once or move anywhere."""
    lo, hi = both("first_turn_arrow")
    # scripted policy (always the first legal choice): with the obligation the
    # first choice is the arrow move; without it, ending the turn is legal and first
    for R, want_arrow in ((hi, True), (lo, False)):
        g = Game(R=R, heroes=(JACK, 2, 3, 5), policy=POLICY_FIRST)
        tab = g.R.tables
        for h in range(4):
            st = g.pos(h)
            done = g.run_turn(h, policy=POLICY_FIRST)
            if want_arrow:
                assert done[:1] == [(L.A_MOVE, int(tab.arrow[st]))], (h, done)
            else:
                assert done == [] and g.pos(h) == st, (h, done)
    # random policy over many seeds: true always starts with the arrow move;
    # false lets the first move go elsewhere (or the hero not move at all)
    off_arrow = 0
    for R, want_arrow in ((hi, True), (lo, False)):
        for seed in range(10):
            g = Game(R=R, heroes=(JACK, 2, 3, 5), seed=seed, policy=POLICY_RANDOM)
            tab = g.R.tables
            for h in range(4):
                st = g.pos(h)
                done = g.run_turn(h, policy=POLICY_RANDOM)
                paid = [a for a in done if a[0] not in (L.A_SKILL, L.A_RELIC, L.A_DISCARD_CHARM, L.A_DRAW_EQ)]
                if want_arrow:
                    assert paid and paid[0] == (L.A_MOVE, int(tab.arrow[st])), (seed, h, done)
                elif not paid or paid[0] != (L.A_MOVE, int(tab.arrow[st])):
                    off_arrow += 1
    assert off_arrow >= 5


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
    d = _plain_disc(g)
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


# ---- MQ-GAP-20 star_clicks_roll_over -----------------------------------------------------

def test_star_clicks_roll_over():
    """Toggle ``star_clicks_roll_over`` (MQ-GAP-20). "Once the 6th Compass Token is
    placed in the centre, all four Nightmare Discs are rotated clockwise by one
    click." ... "the result from the Compass Dice rolls over onto the next occupied
    Nightmare Disc clockwise."

    false: each occupied Disc turns one click and an empty Disc's click is lost.
    true: the empty Disc's click rolls over clockwise onto the next occupied Disc."""
    lo, hi = both("star_clicks_roll_over")
    got = {}
    for R in (lo, hi):
        g = quiet_game(R=R, park=far_spaces())
        g.cast_out_state(N)
        before = [g.clicks(d) for d in range(4)]
        g.s[L.G_TOKENS] = 5
        g.compass(L.FACE_STAR)
        assert int(g.s[L.G_TOKENS]) == 0
        got[R is hi] = [b - g.clicks(d) for d, b in enumerate(before)]
    assert got[False] == [0, 1, 1, 1]          # N's click is lost
    assert got[True] == [0, 2, 1, 1]           # N's click rolls over onto E
    # two empty discs side by side: W and N both roll over onto E
    for R, want in ((lo, [0, 1, 1, 0]), (hi, [0, 3, 1, 0])):
        g = quiet_game(R=R, park=far_spaces())
        g.cast_out_state(N)
        g.cast_out_state(W)
        before = [g.clicks(d) for d in range(4)]
        g.s[L.G_TOKENS] = 5
        g.compass(L.FACE_STAR)
        assert [b - g.clicks(d) for d, b in enumerate(before)] == want, R is hi


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
        d = _plain_disc(g)
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
        d = _plain_disc(g)
        k = g.nightmare_to_board(d, "path_e1")
        g.enemy_phase(draws=False)
        if R is hi:
            assert g.nm_pos(k) == g.sp("path_e1")
            assert len(combats(g)) == 1 and int(combats(g)[0][2]) == 0
        else:
            assert g.nm_pos(k) != g.sp("path_e1")
            assert all(int(c[2]) != 0 for c in combats(g))


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
    d = _plain_disc(g)
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
    d = _plain_disc(g)
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
    d = _plain_disc(g)
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


# ---- MQ-GAP-36 extra_die_any_level ------------------------------------------------------------------------

def _offered(g, r):
    """Attack a Snipe with every legal list cleared first; True if the last
    reaction window (the scripted policy accepts at once) offered relic ``r``."""
    g.legal[:] = -1
    g.combat(0, L.ENEMY_BOG, STRENGTH)
    return code_of(L.R_RELIC, r) in [int(x) for x in g.legal]


def code_of(op, arg):
    return int(op) * L.OP_BASE + int(arg)


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
    d = _plain_disc(g)
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


# ---- whole games with every toggle flipped ---------------------------------------------------------------------

@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_games_end_with_every_toggle_flipped(level, players):
    """All eighteen toggles at their non-default values at once: first_turn_arrow,
    enemies_use_tunnel, star_clicks_roll_over, escape_knocks_back,
    escape_round_active, shimnavore_skips_beaten, defend_with_courage,
    defence_any_fail_loses, extra_die_any_level, doubles_stack,
    dandelion_beats_fumble, enemy_on_hero_attacks, encounter_level_per_trigger,
    bag_reuses_discards, partial_theft_takes_charms, nexus_draw_when_standing,
    transition_enemy_phase, pregame_encounters (MQ-GAP-06, -10, -20, -26, -27,
    -32, -33, -34, -36, -39, -41, -44, -49, -50, -57, -60, -65, -75). "To escape, the Shimnavore must destroy just one of the
    four sections of the Mourne Wall. If this happens, or a Hero is killed, the
    game ends and the Heroes have lost." (MQ-END-01..04)

    Every game of a batch (greedy, planner and random policies) ends with an
    outcome other than 'running', and the round cap stays an exception; no
    policy ever returns an illegal choice (``sim.run_games`` raises if one
    does)."""
    R = get_rules(*FLIPPED)
    for name, default in TOGGLES.items():
        assert getattr(R.ruleset.toggles, name) is (not default)
    df = sim.simulate(games=100, seed=11, level=level, players=players, rules=R)
    assert len(df) == 100
    assert (df["outcome"] != "running").all()
    assert (df["outcome"] == "cap").mean() < 0.05
    df = sim.simulate(games=30, seed=12, level=level, players=players, policy="random", rules=R)
    assert (df["outcome"] != "running").all()
    assert (df["outcome"] == "cap").mean() < 0.05
    df = sim.simulate(games=60, seed=13, level=level, players=players, policy="planner", rules=R)
    assert (df["outcome"] != "running").all() and (df["illegal_choices"] == 0).all()
    assert (df["outcome"] == "cap").mean() < 0.05


@pytest.mark.parametrize("name", list(TOGGLES))
def test_games_end_with_one_toggle_flipped(name):
    """Each toggle alone at its non-default value (its MQ-GAP as listed in
    ``TOGGLES`` / docs/mournequest/ruleset.md). "To escape, the Shimnavore must destroy just
    one of the four sections of the Mourne Wall. If this happens, or a Hero is
    killed, the game ends and the Heroes have lost." (MQ-END-01..04)

    Every game of a small batch at each level ends with an outcome other than
    'running'."""
    R = toggled(name, not TOGGLES[name])
    for level in ("easy", "medium", "hard"):
        df = sim.simulate(games=40, seed=5, level=level, players=4, rules=R)
        assert (df["outcome"] != "running").all(), (name, level)
        assert (df["outcome"] == "cap").mean() < 0.05, (name, level)
        df = sim.simulate(games=20, seed=5, level=level, players=1 + (level == "medium"), policy="planner", rules=R)
        assert (df["outcome"] != "running").all() and (df["illegal_choices"] == 0).all(), (name, level)
