"""Enemy phase: movement, Nightmare v Bogbean, attacks, theft, encounter tiles
(MQ-ENEMY, MQ-ENC, MQ-COMBAT-21..23)."""
from collections import Counter, defaultdict

import pytest

from mournesim import core, layout as L, rules, tables as TB
from mournesim.replay import replay

from .mq_game import NE, SE, SW, NW, COURAGE, STRENGTH, JACK, MOON_GREEN, MOON_RED, fix_all_dice, fix_die, get_rules
from .mq_positions import far_spaces, final_battle, quiet_game



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


# ---- the Enemy Phase in real games: step order, Evil Powers, the discard pile -------------------
#
# Logged games (replay, decoded records as in docs/mournequest/replay.md): a
# greedy Difficult game has escapes, Evil Powers and a Final Battle; a random
# two-player Medium game has the two-player tile removal and many thefts.

LOGGED = (("hard", "greedy", 4), ("medium", "random", 2))
LOGGED_GAMES = 40
LOG_SEED = 20250301


@pytest.fixture(scope="module")
def logged_games():
    R = get_rules()
    out = []
    for level, policy, players in LOGGED:
        for i in range(LOGGED_GAMES):
            rp = replay(seed=LOG_SEED, game=i, level=level, players=players, policy=policy, rules=R)
            out.append((rp, rp.records()))
    return out


def _extra_move_powers():
    return {n for n, p in get_rules().ruleset.powers.items() if p.effect.kind == "extra_move"}


ENEMY_STEP = {"escape": 0, "emerge": 0, "enemy_move": 1, "enemy_stay": 1, "evil_power": 2, "attack": 3}
STEP_NAMES = ("escapes", "movement", "Evil Powers", "attacks", "encounter draws")


def _step_kind(r):
    if r["event"] == "enemy_phase":
        return "attack" if r["step"] in ("nightmare attacks", "bogbean attacks") else None
    return r["event"] if r["event"] in ENEMY_STEP or r["event"] == "encounter" else None


def _enemy_phases(recs):
    """(round, records) of every Enemy Phase (Final Battle enemy steps included):
    from its 'begins' record to the next turn, Final Battle start or game end."""
    out, cur = [], None
    for r in recs:
        if r["event"] == "enemy_phase" and r["step"] == "begins":
            cur = []
            out.append((r["round"], cur))
            continue
        if r["event"] in ("turn_start", "game_end", "final_battle"):
            cur = None
        if cur is not None:
            cur.append(r)
    return out


def _order_problems(phase, extra_move):
    """Steps of one Enemy Phase out of the order escapes (MQ-GAP-26), movement,
    Evil Powers, attacks, encounter draws. After the draws begin, only a
    Movement tile may move enemies or make them attack (MQ-ENC-08..10); an
    extra-move Evil Power moves its own Nightmare within the powers step.
    Returns (problems, steps seen)."""
    probs, step, mover, tile, seen = [], 0, None, None, set()
    for r in phase:
        k = _step_kind(r)
        if k is None:
            continue
        if tile is not None:
            if k == "encounter":
                tile = r["kind"]
            elif not (k in ("enemy_move", "enemy_stay", "attack") and tile in ("move1", "move2")):
                probs.append(f"{k} (record {r['i']}) after the encounter draws began (last tile {tile})")
            continue
        if k == "encounter":
            tile = r["kind"]
            seen.add(4)
            continue
        if k in ("enemy_move", "enemy_stay") and step == 2 and r["enemy"] == mover:
            continue
        if ENEMY_STEP[k] < step:
            probs.append(f"{k} (record {r['i']}) after the {STEP_NAMES[step]} step")
        step = max(step, ENEMY_STEP[k])
        seen.add(ENEMY_STEP[k])
        if k == "evil_power":
            mover = r["actor"] if r["power"] in extra_move else None
    return probs, seen


def test_enemy_phase_steps_run_in_order_in_real_games(logged_games):
    """"Enemy Phase - Enemy Movement ... - Nightmare Evil Powers ... - Enemy Attack ...
    - Draw Encounter Tiles: Once all Enemies have acted, players must draw".
    MQ-ENEMY-01 (MQ-GAP-26: escapes first; MQ-ENC-10: a Movement tile moves and
    attacks at once; MQ-FINAL-08, MQ-GAP-29: the same order in the Final Battle).

    In every Enemy Phase of 80 logged games the steps never go backwards, and
    after the first encounter draw enemies move or attack only under a Movement
    tile. Over a hundred phases have all four steps, so the order is seen; the
    checker itself flags a real phase with its Evil Power moved after the
    attacks, or its draws moved before the movement."""
    extra = _extra_move_powers()
    probs, full = [], []
    for rp, recs in logged_games:
        for rnd, phase in _enemy_phases(recs):
            p, seen = _order_problems(phase, extra)
            probs += [f"game {rp.game} round {rnd}: {x}" for x in p]
            if {1, 2, 3, 4} <= seen:
                full.append(phase)
    assert not probs, probs[:5]
    assert len(full) >= 50
    # the check can fail: the same phases with two steps swapped
    ph = full[0]
    kinds = [_step_kind(r) for r in ph]
    powers = [r for r, k in zip(ph, kinds) if k == "evil_power"]
    swapped = [r for r in ph if r not in powers]
    last_attack = max(i for i, r in enumerate(swapped) if _step_kind(r) == "attack")
    swapped = swapped[:last_attack + 1] + powers + swapped[last_attack + 1:]
    assert _order_problems(swapped, extra)[0]
    draws = [r for r in ph if _step_kind(r) == "encounter"]
    assert _order_problems(draws + [r for r in ph if r not in draws], extra)[0]


def test_enemy_phase_steps_in_order_on_a_built_position():
    """MQ-ENEMY-01 on one position where every step acts:

        nexus_ne:  a Nightmare (2 spaces from Hero 0 on path_e2)
        tunnel_s:  a Snipe (1 space from Hero 1 on path_s3)
        the bag:   Magical Pot tiles only; NE, SE and NW get a draw

    The log reads: the Nightmare's two steps and the Snipe's step, then the
    Nightmare's Evil Power, then the Nightmare's and the Snipe's attacks (the
    Snipe, fended off, runs away), then the draws NE, SE, SW, NW."""
    g = quiet_game(park=("path_e2", "path_s3", "path_w2", "path_n1"))
    fix_all_dice(g.T, L.FACE_DANDELION)                 # every defence holds
    d = next(d for d in range(4) if g.R.names.nightmares[g.nm_at_disc(d)] not in _extra_move_nightmares())
    k = g.nightmare_to_board(d, "nexus_ne")
    g.place_bogbean(SW, 1, "tunnel_s")
    pot = g.tile_id(1, L.TK_POT)
    _set_bag(g, [pot] * 6)
    g.clear_events()
    g.enemy_phase(draws=True)
    steps = []
    for e in g.events():
        name = L.EVENT_NAMES[int(e[0])]
        if name == "enemy_move":
            steps.append(("move", "nm" if e[3] else "bog"))
        elif name == "evil_power":
            steps.append(("power", -1 - int(e[2])))
        elif name == "enemy_phase" and int(e[3]) in (1, 2):
            steps.append(("attack", "nm" if int(e[3]) == 1 else "bog"))
        elif name == "encounter":
            steps.append(("draw", int(e[3])))
    assert steps == [("move", "nm"), ("move", "nm"), ("move", "bog"), ("power", k),
                     ("attack", "nm"), ("attack", "bog"), ("draw", NE), ("draw", SE), ("draw", SW), ("draw", NW)]


def _extra_move_nightmares():
    """Nightmares whose Evil Power is an extra move (it would add a move to the powers step)."""
    rs = get_rules().ruleset
    return {n for n, nm in rs.nightmares.items() if rs.powers[nm.power].effect.kind == "extra_move"}


def _power_problems(recs):
    """Evil Power uses of one logged game against the Nightmares on the main
    board: exactly one use per round for each Nightmare on the board as the
    Enemy Phase begins, none in the round it escaped (MQ-GAP-26), none outside
    an Enemy Phase. (A Nightmare whose Final Battle emergence waited and came
    in an enemy step, MQ-GAP-27, may use it in that step.) Returns (problems,
    uses, phases with two or more Nightmares on the board)."""
    probs, on_board, at_start = [], set(), {}
    escaped, emerged, uses = defaultdict(set), defaultdict(set), Counter()
    in_phase = False
    for r in recs:
        ev, rnd = r["event"], r["round"]
        if ev == "enemy_phase" and r["step"] == "begins":
            at_start[rnd] = set(on_board)
            in_phase = True
        elif ev in ("turn_start", "game_end", "final_battle"):
            in_phase = False
        if ev in ("escape", "emerge") and not r["blocked"]:
            on_board.add(r["actor"])
            if in_phase:
                (escaped if ev == "escape" else emerged)[rnd].add(r["actor"])
        elif ev == "nightmare_defeated":
            on_board.discard(r["actor"])
        elif ev == "evil_power":
            uses[(rnd, r["actor"])] += 1
    for (rnd, k), n in uses.items():
        if rnd not in at_start:
            probs.append(f"round {rnd}: {k} used its Evil Power outside an Enemy Phase")
        elif n != 1:
            probs.append(f"round {rnd}: {k} used its Evil Power {n} times")
        elif k not in at_start[rnd] | emerged[rnd]:
            probs.append(f"round {rnd}: {k} used its Evil Power off the main board"
                         + (" in its escape round" if k in escaped[rnd] else ""))
    for rnd, ks in at_start.items():
        for k in ks:
            if uses[(rnd, k)] != 1:
                probs.append(f"round {rnd}: {k}, on the board, used its Evil Power {uses[(rnd, k)]} times")
    return probs, sum(uses.values()), sum(len(v) >= 2 for v in at_start.values())


def test_each_nightmare_on_the_board_uses_its_evil_power_once_a_round(logged_games):
    """"Nightmare Evil Powers: Any Nightmares in play on the main board will activate
    the 'Evil Power' on their Nightmare Card." "It will also use its Evil Power
    once per round." "activated once per round if the Nightmare is in play on the
    board."  MQ-ENEMY-05 (MQ-DISC-02: none on its Disc; MQ-GAP-26: none in the
    escape round; MQ-GAP-29: in the Final Battle enemy step too).

    Counted per round and Nightmare over 80 logged games: hundreds of uses, many
    rounds with two or more Nightmares on the board, and every Nightmare on the
    board used its power exactly once in each round's Enemy Phase."""
    probs, uses, multi = [], 0, 0
    for rp, recs in logged_games:
        p, u, m = _power_problems(recs)
        probs += [f"game {rp.game}: {x}" for x in p]
        uses += u
        multi += m
    assert not probs, probs[:5]
    assert uses >= 200 and multi >= 30


def test_evil_power_once_per_round_per_nightmare_on_a_built_position():
    """MQ-ENEMY-05, MQ-DISC-02 on a position: two Nightmares on the main board and
    two on their Discs. Each Enemy Phase logs exactly one Evil Power for each
    Nightmare on the board and none for those on their Discs; a Nightmare that
    escapes in a phase first uses its power the round after (MQ-GAP-26)."""
    g = quiet_game(park=far_spaces())
    fix_all_dice(g.T, L.FACE_DANDELION)                 # every defence holds
    on = [g.nightmare_to_board(0, "keystone_n"), g.nightmare_to_board(1, "keystone_e")]
    late, waiting = g.nm_at_disc(2), g.nm_at_disc(3)
    for rnd in (1, 2, 3):
        if rnd == 2:
            g.set_clicks(2, 0)                          # disc S released: it escapes this phase
        g.s[L.G_ROUND] = rnd
        g.clear_events()
        g.enemy_phase(draws=False)
        used = Counter(-1 - int(e[2]) for e in g.events("evil_power"))
        assert used == Counter(on + ([late] if rnd == 3 else [])), (rnd, used)
        assert {int(e[1]) for e in g.events("evil_power")} == {rnd}
    assert g.nm_pos(late) >= 0 and g.nm_pos(waiting) == -1


# ---- the discard pile ---------------------------------------------------------------------------

def _tile_problems(s):
    """Every Encounter Tile of the game is in exactly one place: the bag, the
    discard pile, beside a Nexus Point, or in a set not yet added to the bag.
    Returns a list of problems."""
    lv_n = [int(s[L.G_LV_N + lv]) for lv in range(3)]

    def level_set(lv):
        return [int(t) for t in s[L.G_LV_TILES + lv * 32:L.G_LV_TILES + lv * 32 + lv_n[lv]]]

    game = Counter(t for lv in range(3) for t in level_set(lv))
    where = Counter(int(t) for t in s[L.G_BAG:L.G_BAG + int(s[L.G_BAG_N])])
    where.update(int(t) for t in s[L.G_DISCARD:L.G_DISCARD + int(s[L.G_DISCARD_N])])
    where.update(int(s[core.xb(c) + L.X_TILE]) for c in range(4) if int(s[core.xb(c) + L.X_TILE]) >= 0)
    for lv in range(int(s[L.G_ENC_LEVEL]), 3):
        where.update(level_set(lv))
    probs = []
    if game and max(game.values()) > 1:
        probs.append("a tile twice in the game's sets")
    if where != game:
        probs.append(f"missing {sorted((game - where).elements())}, extra {sorted((where - game).elements())}")
    return probs


def test_tiles_are_conserved_through_the_discard_pile_in_real_games(logged_games):
    """"sets the Bogbean Encounter Tile in the discard pile" "discard its Encounter Tile
    to the discard pile".  MQ-ENC-13 (MQ-ENC-11, MQ-SOLO-01: the two-player sets
    are two Bogbeans short from the start).

    In every turn snapshot and final state of 80 logged games: bag + discard pile
    + tiles beside the Nexus Points + sets not yet added = the game's tiles, each
    exactly once, so no tile that leaves play is lost (and the pile fills up)."""
    probs, biggest = [], 0
    for rp, _ in logged_games:
        for j, s in enumerate(list(rp.snapshots) + [rp.final_state]):
            probs += [f"game {rp.game} snapshot {j}: {p}" for p in _tile_problems(s)]
            biggest = max(biggest, int(s[L.G_DISCARD_N]))
    assert not probs, probs[:5]
    assert biggest >= 20


def test_every_way_out_of_play_puts_the_tile_on_the_discard_pile():
    """MQ-ENC-13 (MQ-COMBAT-18, MQ-COMBAT-21, MQ-ENEMY-12, MQ-FINAL-15, MQ-ENC-07,
    MQ-ENC-08, MQ-GAP-50) on built positions: a Bogbean beaten in an attack, one
    that steals, one that flees a Nightmare, one that runs from the Shimnavore's
    Wall section, a Magical Pot tile with no room, a Movement tile, and a Pot
    picked up: each tile goes on top of the discard pile, and the tiles stay
    conserved. With all three sets in, an empty bag stays empty and the pile
    stays where it is (the other value of toggle bag_reuses_discards:
    tests/mournequest/test_toggles_enemies.py)."""
    g = quiet_game(heroes=(JACK, 1, 2, 3), park=("path_e1",) + far_spaces()[1:])
    fix_die(g.T, 0, L.FACE_DANDELION)
    tiles = g.R.tables.tiles

    def on_top(t):
        assert int(g.s[L.G_DISCARD + int(g.s[L.G_DISCARD_N]) - 1]) == t
        assert not _tile_problems(g.s)

    def from_bag(game, kind):
        """A tile of ``kind`` taken out of the bag (as a draw would take it)."""
        bag = [int(x) for x in game.s[L.G_BAG:L.G_BAG + int(game.s[L.G_BAG_N])]]
        t = next(x for x in bag if tiles[x, L.TL_KIND] == kind)
        bag.remove(t)
        _set_bag(game, bag)
        return t

    def bogbean(game, c, where):
        t = from_bag(game, L.TK_BOGBEAN)
        game.place_bogbean(c, 1, where)
        game.s[game.slot(c) + L.X_TILE] = t
        return t

    assert not _tile_problems(g.s) and int(g.s[L.G_DISCARD_N]) == 0
    # beaten in an attack
    t = bogbean(g, NE, "path_e1")
    assert not _tile_problems(g.s)
    g.begin_turn(0)
    g.act(0, L.A_ATTACK, L.attack_arg(L.TGT_BOGBEAN + NE, COURAGE))
    on_top(t)
    # stealing from a defender
    fix_die(g.T, 0, L.FACE_FAIL)
    t = bogbean(g, SE, "path_e1")
    rules.bogbean_attack(g.s, g.T, g.ev, g.rng, g.legal, g.pp, SE)
    assert len(g.events("theft")) == 1 and g.bog_pos(SE) == -1
    on_top(t)
    # fleeing a Nightmare
    t = bogbean(g, SW, "path_e2")
    g.put(1, "path_s1")
    k = g.nightmare_to_board(0, "start_e")              # Hero 0 on path_e1 is 2 spaces away
    rules.enemy_step(g.s, g.T, g.ev, True, k, -1)
    assert g.nm_pos(k) == g.sp("path_e2") and g.bog_pos(SW) == -1
    on_top(t)
    # a Pot tile with its Crossroads taken, and a Movement tile
    t = from_bag(g, L.TK_POT)
    g.put(1, "crossroads_nw")
    _tile(g, NW, t)
    on_top(t)
    t = from_bag(g, L.TK_MOVE1)
    _tile(g, NW, t)
    on_top(t)
    # a Pot placed, then picked up by a Hero moving onto it
    t = from_bag(g, L.TK_POT)
    g.put(1, "cache_flax")
    _tile(g, NW, t)
    assert g.slot_tile(NW) == t
    g.begin_turn(1)
    g.act(1, L.A_MOVE, g.sp("crossroads_nw"))
    on_top(t)
    # the Shimnavore's Wall section
    g2 = quiet_game(park=far_spaces())
    final_battle(g2)
    fix_die(g2.T, 0, 2)
    t = bogbean(g2, SE, "keystone_s")
    g2.shim(2)
    assert g2.bog_pos(SE) == -1
    assert int(g2.s[L.G_DISCARD + int(g2.s[L.G_DISCARD_N]) - 1]) == t and not _tile_problems(g2.s)
    # with all three sets in the bag and the bag empty: nothing is drawn, the pile stays
    g.s[L.G_ENC_LEVEL] = 3
    pile = [int(x) for x in g.s[L.G_DISCARD:L.G_DISCARD + int(g.s[L.G_DISCARD_N])]]
    rest = [int(x) for x in g.s[L.G_BAG:L.G_BAG + int(g.s[L.G_BAG_N])]]
    rest += [int(x) for lv in (1, 2) for x in g.s[L.G_LV_TILES + lv * 32:L.G_LV_TILES + lv * 32 + int(g.s[L.G_LV_N + lv])]]
    g.s[L.G_DISCARD:L.G_DISCARD + len(pile) + len(rest)] = pile + rest    # all the rest discarded too
    g.s[L.G_DISCARD_N] = len(pile) + len(rest)
    _set_bag(g, [])
    assert not _tile_problems(g.s)
    assert int(g.T[TB.P_BAG_REUSES_DISCARDS]) == 0
    assert rules.draw_tile(g.s, g.T, g.ev, g.rng) == -1
    assert int(g.s[L.G_DISCARD_N]) == len(pile) + len(rest) and int(g.s[L.G_BAG_N]) == 0
    assert not _tile_problems(g.s)
