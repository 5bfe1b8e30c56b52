"""Board and movement rules (MQ-MOVE)."""
import pytest

from mournesim import layout as L

from .mq_game import IUR, JACK, BEITH, TESS, POLICY_RANDOM, Game, get_rules
from .mq_positions import quiet_game


@pytest.fixture(scope="module")
def tab():
    return get_rules().tables


@pytest.fixture(scope="module")
def board():
    g = Game()
    return g


def test_board_feature_counts(tab):
    """"Starting Point (x4) ... Key Stone (x4) ... Nexus Point (x4) ... Crossroads
    (x4) ... Dunnywater Tunnel (x2) ... Trading Post (x2) ... Charm Cache (x4)
    (one for each type of Charm)" and four Nightmare Discs.  MQ-MOVE-01."""
    kinds = list(tab.kind)
    count = {k: kinds.count(k) for k in range(9)}
    assert count[L.K_START] == 4
    assert count[L.K_KEYSTONE] == 4
    assert count[L.K_NEXUS] == 4
    assert count[L.K_CROSSROADS] == 4
    assert count[L.K_TUNNEL] == 2
    assert count[L.K_POST] == 2
    assert count[L.K_CACHE] == 4
    assert count[L.K_DISC] == 4
    assert sorted(int(tab.charm[i]) for i in range(len(kinds)) if kinds[i] == L.K_CACHE) == [0, 1, 2, 3]


def test_keystones_in_front_of_discs_and_clockwise_order(tab, board):
    """"Each Key Stone is positioned in front of a Nightmare Disc"; clockwise runs
    N -> E -> S -> W and NE -> SE -> SW -> NW.  MQ-MOVE-02, MQ-MOVE-03, MQ-MOVE-04."""
    for d, nm in enumerate("nesw"):
        assert board.name(tab.keystone[d]) == f"keystone_{nm}"
        assert board.name(tab.disc[d]) == f"disc_{nm}"
    for c, nm in enumerate(("ne", "se", "sw", "nw")):
        assert board.name(tab.nexus[c]) == f"nexus_{nm}"
    kb = [int(tab.bearing[tab.keystone[d]]) for d in range(4)]
    nb_ = [int(tab.bearing[tab.nexus[c]]) for c in range(4)]
    assert kb == sorted(kb) and nb_ == sorted(nb_)      # clockwise = increasing bearing
    # the disc lies directly behind its key stone (same bearing, nearer the centre)
    for d in range(4):
        assert tab.bearing[tab.disc[d]] == tab.bearing[tab.keystone[d]]


def test_pot_crossroads_in_line_with_each_nexus(board):
    """"place a Magical Pot Token onto the Crossroad location directly in line
    with that Nexus Point".  MQ-MOVE-05: the crossroads of each corner is its
    closest crossroads."""
    tab = board.R.tables
    for c in range(4):
        nx = tab.nexus[c]
        d = [int(tab.dist_h[nx, tab.crossroads[j]]) for j in range(4)]
        assert d[c] == min(d) and d.count(min(d)) == 1


def test_example_of_play_board_facts(board):
    """Example of Play: Jack moves from a Crossroads to the Flax Cache, then to the
    NW Nexus; Cobs goes Blackthorn Cache -> Crossroads -> East Key Stone; Grace
    goes Crossroads -> (Speedwell) -> SE Nexus; Beith goes Crossroads -> Start.
    MQ-MOVE-15, MQ-MOVE-16, MQ-MOVE-17, MQ-MOVE-18, MQ-MOVE-19, MQ-MOVE-20."""
    g = board
    tab = g.R.tables
    xr = [int(x) for x in tab.crossroads]
    flax, black = int(tab.cache_of[3]), int(tab.cache_of[2])
    # MQ-MOVE-15 / -16
    assert any(g.adjacent(x, flax) for x in xr)
    assert g.adjacent(flax, "nexus_nw")
    # MQ-MOVE-17 / -18
    xb = [x for x in xr if g.adjacent(black, x)]
    assert xb and any(g.adjacent(x, "keystone_e") for x in xb)
    # MQ-MOVE-19: some crossroads - one space - SE nexus
    se = g.sp("nexus_se")
    assert any(int(tab.dist_h[x, se]) == 2 and int(tab.dist_e[x, se]) == 2 for x in xr)
    # MQ-MOVE-20
    assert any(g.adjacent(x, st) for x in xr for st in tab.start)


def test_move_costs_one_action_per_adjacent_space():
    """"Move along one of the Mourne pathways. Each space counts as 1 Action."
    MQ-MOVE-06, MQ-ACT-03."""
    g = quiet_game(park=("crossroads_ne", "path_n1", "path_s3", "path_w2"))
    g.begin_turn(0)
    assert g.move_names(0) == {"keystone_n", "keystone_e", "cache_blackthorn", "start_e"}
    g.act(0, L.A_MOVE, g.sp("cache_blackthorn"))
    assert g.acts() == 2 and g.name(g.pos(0)) == "cache_blackthorn"
    g.act(0, L.A_MOVE, g.sp("nexus_ne"))
    g.act(0, L.A_MOVE, g.sp("path_e1"))
    assert g.acts() == 0
    assert g.ops(0, L.A_MOVE) == []          # no 4th move


def test_two_miniature_limit_and_moving_onto_enemies():
    """"A space may be occupied by a maximum of two miniatures" and a Hero may move
    onto an enemy's space to attack it.  MQ-MOVE-07, MQ-MOVE-12."""
    g = quiet_game(park=("crossroads_ne", "keystone_n", "keystone_n", "path_w2"))
    g.begin_turn(0)
    assert "keystone_n" not in g.move_names(0)          # two heroes already there
    g.place_bogbean(0, 1, "keystone_e")
    assert "keystone_e" in g.move_names(0)              # hero may join a lone bogbean
    g.place_bogbean(1, 1, "keystone_e")
    assert "keystone_e" not in g.move_names(0)          # two bogbeans fill it


def test_must_move_off_a_shared_space_first():
    """"If a Hero begins their turn on a space with another Hero, their first
    action must be to move off that space. They cannot return to the same space
    on that turn."  MQ-MOVE-09."""
    # whole turns played by the random policy: whenever the hero acts, its
    # first action is a move off the shared cache and it never comes back
    acted = 0
    for seed in range(12):
        g = quiet_game(park=("cache_flax", "cache_flax", "path_s3", "path_w2"),
                       heroes=(JACK, IUR, BEITH, TESS), seed=seed)
        done = g.run_turn(0)
        if done:
            acted += 1
            assert done[0][0] == L.A_MOVE, done
            assert all(not (op == L.A_MOVE and arg == g.sp("cache_flax")) for op, arg in done)
            assert all(op != L.A_PICKUP for op, arg in done)
    assert acted >= 3
    # the same obligation, step by step
    g = quiet_game(park=("cache_flax", "cache_flax", "path_s3", "path_w2"))
    g.begin_turn(0)
    g.s[L.G_MUST_MOVE] = 1
    assert g.ops(0, L.A_PICKUP) == []
    g.act(0, L.A_MOVE, g.sp("nexus_nw"))
    assert "cache_flax" not in g.move_names(0)
    # the hero left alone on the cache may pick up at once on its turn
    g.begin_turn(1)
    assert g.ops(1, L.A_PICKUP) != []


def test_first_turn_follows_start_arrow():
    """"On each player's first turn, they must move in the direction of the arrow
    marked on their Starting Point."  MQ-MOVE-10 (MQ-GAP-06: the first action is
    a move along the arrow; the rest of the turn is free)."""
    for seed in range(6):
        g = Game(heroes=(JACK, IUR, BEITH, TESS), seed=seed, policy=POLICY_RANDOM)
        tab = g.R.tables
        for h in range(4):
            st = g.pos(h)
            assert int(tab.deg[st]) > 1
            done = g.run_turn(h)
            # free actions (skills, relics) may come first; the first action is the arrow move
            paid = [a for a in done if a[0] not in (L.A_SKILL, L.A_RELIC, L.A_DISCARD_CHARM, L.A_DRAW_EQ)]
            assert paid and paid[0] == (L.A_MOVE, int(tab.arrow[st])), (h, done)
        # second turn: any neighbour may be chosen first
        g.begin_turn(0)
        assert len(g.moves(0)) == int(tab.deg[g.pos(0)])


def test_tunnel_transfers_for_free():
    """"If a Hero miniature is moved to one entrance of the tunnel they
    automatically appear at the other tunnel exit 'at no action cost.'"  MQ-MOVE-11."""
    g = quiet_game(park=("path_n3", "path_e1", "path_s1", "path_w2"))
    g.begin_turn(0)
    g.act(0, L.A_MOVE, g.sp("tunnel_n"))
    assert g.name(g.pos(0)) == "tunnel_s"
    assert g.acts() == 2
    # next move goes on from the far exit
    assert "nexus_sw" in g.move_names(0)


def test_tunnel_full_exit_leaves_hero_on_entrance():
    """Tunnel exit with two miniatures: the Hero stays (two-miniature limit).
    MQ-MOVE-11, MQ-MOVE-07 (MQ-GAP-10)."""
    g = quiet_game(park=("path_n3", "tunnel_s", "tunnel_s", "path_w2"))
    g.begin_turn(0)
    g.act(0, L.A_MOVE, g.sp("tunnel_n"))
    assert g.name(g.pos(0)) == "tunnel_n"


def test_disc_return_costs_two_actions_and_discs_are_not_entered():
    """"It will cost the Hero 2 Actions to move from the Nightmare Disc back onto
    the Key Stone Location."  MQ-MOVE-14 (MQ-GAP-69: no voluntary entry)."""
    g = quiet_game(park=("disc_n", "keystone_e", "path_s3", "path_w2"))
    g.begin_turn(0)
    assert g.move_names(0) == {"keystone_n"}
    g.act(0, L.A_MOVE, g.sp("keystone_n"))
    assert g.acts() == 1
    assert "disc_n" not in g.move_names(0)
    g.begin_turn(1)
    assert "disc_e" not in g.move_names(1)
    # with one action left a Hero on a disc cannot get back
    g.put(0, "disc_n")
    g.begin_turn(0, acts=1)
    assert g.moves(0) == set()


def test_damaged_wall_section_can_be_entered():
    """"Players can move through and stop on Wall Sections that have been damaged
    by the Shimnavore."  MQ-MOVE-13."""
    g = quiet_game(park=("crossroads_ne", "path_e1", "path_s3", "path_w2"))
    g.s[L.G_WALL + 0] = 1
    g.s[L.G_FINAL] = L.FB_RUNNING
    g.begin_turn(0)
    g.act(0, L.A_MOVE, g.sp("keystone_n"))
    assert g.name(g.pos(0)) == "keystone_n"
    assert "crossroads_nw" in g.move_names(0)
