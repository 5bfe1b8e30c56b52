"""Moon track, compass dice, Compass Tokens, disc release and escape
(MQ-MOON, MQ-DISC)."""
import pytest

from mournesim import core, layout as L, rules, tables as TB

from .mq_game import (EASY, JACK, MOON_BLUE, MOON_GREEN, MOON_GREY, MOON_RED, POLICY_RANDOM, E, N, S, W, fix_compass,
                      fix_die, get_rules)
from .mq_positions import far_spaces, quiet_game



def _clicks(g):
    return [g.clicks(d) for d in range(4)]


def test_moon_moves_one_space_clockwise_each_turn():
    """"Each time a Hero takes a turn they end it by moving the Moon Marker one space
    clockwise."  MQ-MOON-02, MQ-MOON-03 (the track wraps to its start)."""
    g = quiet_game(park=far_spaces())
    fix_compass(g.T, L.FACE_BLANK)
    n = int(g.T[TB.P_N_MOON_TRACK])
    for i in range(n + 2):
        g.end_of_turn(i % 4)
        assert int(g.s[L.G_MOON_STEPS]) == i + 1
        assert int(g.s[L.G_MOON]) == (i + 1) % n


@pytest.mark.parametrize("face", [N, E, S, W])
def test_direction_turns_that_disc_one_click(face):
    """"N-North, S -South, E-East or W-West: Rotate the appropriate Nightmare Disc
    one click clockwise."  MQ-MOON-08."""
    g = quiet_game(park=far_spaces())
    before = _clicks(g)
    g.compass(face)
    after = _clicks(g)
    assert after[face] == before[face] - 1
    assert [after[d] for d in range(4) if d != face] == [before[d] for d in range(4) if d != face]


def test_blank_turns_nothing():
    """"Blank: No Nightmare Discs turn."  MQ-MOON-10."""
    g = quiet_game(park=far_spaces())
    before = _clicks(g)
    g.compass(L.FACE_BLANK)
    assert _clicks(g) == before and int(g.s[L.G_TOKENS]) == 0


def test_one_compass_die_in_first_cycle_two_in_second():
    """"During the 'first full rotation' of the Moon Cycle each Hero ends their turn
    by rolling One Compass Die." "Once the second Cycle of the Moon has begun, after
    every Player's turn, they must roll Two Compass Dice".  MQ-MOON-06, MQ-MOON-07
    (MQ-GAP-16: the turn whose move starts the second cycle rolls two)."""
    g = quiet_game(level=0, park=far_spaces())          # Easy: 15 clicks of room
    fix_compass(g.T, E)
    n = int(g.T[TB.P_N_MOON_TRACK])
    g.s[L.G_MOON_STEPS] = n - 2
    g.s[L.G_MOON] = n - 2
    c0 = g.clicks(E)
    g.end_of_turn(0)                                   # step n-1: still first cycle
    assert g.clicks(E) == c0 - 1
    g.end_of_turn(1)                                   # step n: marker back at start -> 2 dice
    assert int(g.s[L.G_MOON]) == 0
    assert g.clicks(E) == c0 - 3
    g.end_of_turn(2)
    assert g.clicks(E) == c0 - 5
    assert len(g.events("compass")) == 5


def test_sixth_compass_token_turns_every_disc():
    """"Compass Star: Select one of the 6 Compass Tokens and set it in the centre ...
    Once the 6th Compass Token is placed in the centre, all four Nightmare Discs are
    rotated clockwise by one click. The Compass Tokens are removed from the board and
    the process repeats."  MQ-MOON-09."""
    g = quiet_game(park=far_spaces())
    before = _clicks(g)
    for i in range(5):
        g.compass(L.FACE_STAR)
        assert int(g.s[L.G_TOKENS]) == i + 1
    assert _clicks(g) == before
    g.compass(L.FACE_STAR)
    assert int(g.s[L.G_TOKENS]) == 0
    assert _clicks(g) == [c - 1 for c in before]
    for i in range(6):
        g.compass(L.FACE_STAR)
    assert _clicks(g) == [c - 2 for c in before]


@pytest.mark.parametrize("players,tokens", [(1, 4), (2, 5), (3, 7), (4, 8)])
def test_compass_tokens_by_players_is_a_rule_variant(players, tokens):
    """``levels.<level>.compass_tokens_by_players`` (not in the rulebook: a
    step finer than a quarter click for the balance study's targets) sets
    how many Compass Tokens turn all four Discs at each player count, in
    place of MQ-MOON-09's 6; another level keeps the 6.  MQ-MOON-09."""
    R = get_rules("levels.medium.compass_tokens_by_players=[4, 5, 7, 8]")
    heroes = (0, 1, 2, 3)[:max(2, players)]
    g = quiet_game(R, players=players, heroes=heroes, park=far_spaces()[:len(heroes)])
    before = _clicks(g)
    for i in range(tokens - 1):
        g.compass(L.FACE_STAR)
        assert int(g.s[L.G_TOKENS]) == i + 1
    assert _clicks(g) == before
    g.compass(L.FACE_STAR)
    assert int(g.s[L.G_TOKENS]) == 0
    assert _clicks(g) == [c - 1 for c in before]
    g = quiet_game(R, level=EASY, players=players, heroes=heroes, park=far_spaces()[:len(heroes)])
    g.s[L.G_TOKENS] = 5
    before = _clicks(g)
    g.compass(L.FACE_STAR)
    assert _clicks(g) == [c - 1 for c in before]


def test_sixth_token_clicks_of_empty_discs_are_lost():
    """The 6th token turns "all four" discs; a Cast-out disc does not turn and its
    click is not passed on.  MQ-MOON-09, MQ-MOON-11 (MQ-GAP-20)."""
    g = quiet_game(park=far_spaces())
    g.cast_out_state(N)
    before = _clicks(g)
    g.s[L.G_TOKENS] = 5
    g.compass(L.FACE_STAR)
    after = _clicks(g)
    assert after[N] == before[N]
    assert after[1:] == [c - 1 for c in before[1:]]


def test_roll_over_to_next_occupied_disc_clockwise():
    """"If a Nightmare has been 'Cast-out' or has emerged onto the board, the result
    from the Compass Dice rolls over onto the next occupied Nightmare Disc clockwise."
    (N empty -> E turns; N and E empty -> S turns.)  MQ-MOON-11."""
    g = quiet_game(park=far_spaces())
    g.cast_out_state(N)
    before = _clicks(g)
    g.compass(N)
    assert _clicks(g)[E] == before[E] - 1
    g.nightmare_to_board(E, "path_e1")
    before = _clicks(g)
    g.compass(N)
    after = _clicks(g)
    assert after[S] == before[S] - 1 and after[W] == before[W]
    # W wraps round to the next occupied disc after N, E: S
    g.compass(W)
    assert _clicks(g)[W] == before[W] - 1
    g.cast_out_state(W)
    before = _clicks(g)
    g.compass(W)                                       # W, N, E empty -> S
    assert _clicks(g)[S] == before[S] - 1


def test_released_disc_still_occupied_and_ignores_clicks():
    """"If a Nightmare Disc has been rotated so the final red pointer is facing the
    Key Stone ... the Nightmare is under the full control of the Shimnavore."
    MQ-DISC-03 (MQ-GAP-21: still occupied, further clicks ignored)."""
    g = quiet_game(park=far_spaces())
    g.set_clicks(N, 1)
    g.compass(N)
    assert g.clicks(N) == 0 and g.disc_state(N) == L.DS_RELEASED
    before = _clicks(g)
    g.compass(N)
    assert _clicks(g) == before                       # no roll-over to E


DULLAHAN = 2      # its assumed Evil Power is an extra move


def _plain_disc(g):
    """A disc whose Nightmare's Evil Power does not move it."""
    return next(d for d in range(4) if g.nm_at_disc(d) != DULLAHAN)


def test_nightmare_escapes_in_enemy_phase_onto_its_keystone():
    """"On the Enemy Phase the Nightmare will escape from the magical prison of its
    Disc into the Kingdom of Mourne and move onto the Key Stone".  MQ-DISC-04,
    MQ-ENC-01 (a Nightmare escaping adds the next tiles), MQ-GAP-25/26/27: the
    Hero on the Key Stone is not knocked back (that is written for the Final
    Battle only), and in its escape round the Nightmare neither moves nor attacks."""
    g = quiet_game(park=far_spaces())
    d = _plain_disc(g)
    ks = ("keystone_n", "keystone_e", "keystone_s", "keystone_w")[d]
    g.put(0, ks)
    k = g.nm_at_disc(d)
    g.s[g.disc(d) + L.D_DEP + 0] = 1                    # a Granite already deposited
    g.s[L.G_POOL_CHARMS + 0] -= 1
    g.set_clicks(d, 0)
    g.enemy_phase(draws=False)
    assert g.nm_pos(k) == g.sp(ks)
    assert g.disc_state(d) == L.DS_BOARD
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_ESCAPED
    assert g.pool()[0] == 16                            # deposits go back
    assert g.pos(0) == g.sp(ks)                         # shares the Key Stone
    assert len(g.events("combat")) == 0 and g.wounds(0) == 0
    assert int(g.s[L.G_ENC_LEVEL]) == 2
    assert int(g.s[L.G_POOL]) == 1                      # an escape earns no die
    # it did not also take a normal move in the round it escaped
    assert len(g.events("enemy_move")) == 0


def test_nightmare_on_disc_does_not_move_but_escaped_one_hunts():
    """"excluding Nightmares still on their Nightmare Discs" ... "On any following
    rounds, during the Enemy Phase, the Nightmare will use its turns to follow and
    attack the Heroes."  MQ-DISC-02, MQ-DISC-05, MQ-ENEMY-03."""
    g = quiet_game(park=far_spaces())
    fix_die(g.T, 0, 6)                                  # heroes always fend off
    d = _plain_disc(g)
    for dd in range(4):
        assert g.nm_pos(g.nm_at_disc(dd)) == -1
    g.set_clicks(d, 0)
    g.enemy_phase(draws=False)
    k = g.nm_at_disc(d)
    tab = g.R.tables

    def nearest():
        return min(int(tab.dist_e[g.nm_pos(k), g.pos(h)]) for h in range(4))

    assert g.nm_pos(k) == int(tab.keystone[d])
    for dd in range(4):
        if dd != d:
            assert g.nm_pos(g.nm_at_disc(dd)) == -1
    before = nearest()
    assert before > 2
    g.enemy_phase(draws=False)
    assert nearest() == before - 2                      # two spaces nearer its nearest hero


def test_moon_phase_sets_enemy_values_and_blue_uses_green():
    """"On a GREY (Waxing or Waning Moon) the enemies will be at their standard
    levels. On GREEN (New Moon) the enemies are at their weakest. On a RED (Blood
    Moon) the enemies will be stronger than ever!" ... on a BLUE Moon "the enemies
    will fight at their weakest level (Green)".  MQ-MOON-01, MQ-MOON-04, MQ-MOON-05."""
    g = quiet_game()
    track = [int(x) for x in g.R.tables.moon]
    assert track.count(L.BLUE) == 1
    assert {L.GREEN, L.GREY, L.RED} <= set(track)
    val = {}
    for sp in (MOON_GREEN, MOON_GREY, MOON_RED, MOON_BLUE):
        g.s[L.G_MOON] = sp
        val[track[sp]] = [int(rules.enemy_value(g.s, g.T, L.ENEMY_BOG, a)) for a in range(3)]
    assert val[L.GREEN] == [8, 9, 7]                    # the rulebook's New Moon Snipe
    assert val[L.RED][0] == 13                          # Blood Moon Snipe Courage
    for a in range(3):
        assert val[L.GREEN][a] < val[L.GREY][a] < val[L.RED][a]
    assert val[L.BLUE] == val[L.GREEN]


def test_blue_moon_doubles_hero_dice():
    """"COBS' BIRTHDAY: On the rare occasion of a BLUE Moon, the enemies will fight at
    their weakest level (Green) and all dice rolls Heroes make are doubled."
    MQ-MOON-05 (MQ-GAP-40: the dice, not the Ability)."""
    g = quiet_game(heroes=(JACK, 1, 2, 3), park=far_spaces())
    fix_die(g.T, 0, 2)
    row = L.ENEMY_BOG + 2                                  # Louse Wort, green Courage 11
    g.s[L.G_MOON] = MOON_GREEN
    assert g.ability(0, 0) == 7
    assert g.combat(0, row, 0) is False                 # 7 + 2 = 9 < 11
    g.s[L.G_MOON] = MOON_BLUE
    assert g.combat(0, row, 0) is True                  # 7 + 2*2 = 11 >= 11
    g.s[L.G_MOON] = MOON_BLUE
    g.equip(0, 0, 1)
    fix_die(g.T, 0, 1)                                  # 8 + 2 = 10 < 11: Ability not doubled
    assert g.combat(0, row, 0) is False


def test_compass_die_can_be_rerolled_with_a_talisman():
    """"A MourneQuest Talisman can be discarded at any time to buy ONE RE-ROLL OF ANY
    ONE DIE."  MQ-CHARM-13 as ruled by MQ-GAP-28: a Talisman re-rolls any one die the
    players roll, Compass Dice included. With the first-legal policy the offer's
    first choice is to accept, so nothing is spent; with a policy choosing at random
    the offer is taken about half the time, and each one taken spends one Talisman."""
    spent_first = 0
    spent_random = 0
    for seed in range(20):
        g = quiet_game(park=far_spaces(), seed=seed)
        g.s[L.G_POLICY] = 2  # POLICY_FIRST: accept
        fix_compass(g.T, N)
        g.s[L.G_TALISMANS] = 1
        g.end_of_turn(0)
        spent_first += 1 - int(g.s[L.G_TALISMANS])
        g = quiet_game(park=far_spaces(), seed=seed)
        g.s[L.G_POLICY] = POLICY_RANDOM
        fix_compass(g.T, N)
        g.s[L.G_TALISMANS] = 1
        g.end_of_turn(0)
        spent_random += 1 - int(g.s[L.G_TALISMANS])
    assert spent_first == 0
    assert 3 <= spent_random <= 17


def test_a_released_disc_turns_neither_way():
    """"If a Nightmare Disc has been rotated so the final red pointer is facing the
    Key Stone, this signifies that the Nightmare is under the full control of the
    Shimnavore."  MQ-DISC-03, MQ-GAP-21: a released Disc ignores clicks either
    way, so a turn-back card (the Moon Dial relic) cannot target it, while a Disc
    still turning can be turned back."""
    g = quiet_game(park=far_spaces())
    d = _plain_disc(g)
    g.set_clicks(d, 0)
    other = next(x for x in range(4) if x != d)
    g.set_clicks(other, 3)
    r = g.R.names.relics.index("moon_dial")
    g.s[L.G_RELIC_OWNER + r] = 0
    g.begin_turn(0)
    targets = [L.code_arg(c) for c in g.legal_codes(0) if L.code_op(c) == L.A_RELIC and L.sub_owner(L.code_arg(c)) == r]
    assert [L.sub_target(t) for t in targets] == [other]
    core.click_disc(g.s, g.T, g.ev, d, -1)
    assert g.disc_state(d) == L.DS_RELEASED and g.clicks(d) == 0
    core.click_disc(g.s, g.T, g.ev, other, -1)
    assert g.clicks(other) == 4
