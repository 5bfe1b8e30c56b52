"""Hero actions: charms, casting out, trading, equipment, Hags, Relics, Pots,
healing and passing (MQ-ACT, MQ-CHARM, MQ-CARD)."""
import pytest

from mournesim import layout as L

from .mq_game import COURAGE, STRENGTH, MAGIC, GRANITE, GOLD, BLACKTHORN, FLAX, EASY, HARD, MEDIUM
from .mq_positions import far_spaces, quiet_game



def _relic_on_top(g, name):
    """Put the first relic card called ``name`` on top of the Relic Deck."""
    rid = g.R.names.relics.index(name)
    n = int(g.s[L.G_RELIC_N])
    deck = g.s[L.G_RELIC_DECK:L.G_RELIC_DECK + n]
    j = [int(x) for x in deck].index(rid)
    deck[j], deck[n - 1] = deck[n - 1], deck[j]
    return rid


def _card_on_top(g, c):
    """Put equipment card ``c`` on top of the face-down Equipment Deck."""
    n = int(g.s[L.G_EQ_N])
    deck = g.s[L.G_EQ_DECK:L.G_EQ_DECK + n]
    lst = [int(x) for x in deck]
    if c in lst:
        j = lst.index(c)
        deck[j], deck[n - 1] = deck[n - 1], deck[j]
    else:
        deck[n - 1] = c


def _surplus(g):
    return [int(x) for x in g.s[L.G_SURPLUS:L.G_SURPLUS + int(g.s[L.G_SURPLUS_N])]]


# ---- charms ------------------------------------------------------------------------

@pytest.mark.parametrize("level", [EASY, MEDIUM])
def test_pickup_several_charms_as_one_action_on_easy_and_medium(level):
    """"In an Easy or Normal level game, players may pick up multiple Charm counters
    of the same Charm type. (e.g. two Gold Charms) as a single Action."
    MQ-CHARM-02, MQ-CHARM-03."""
    g = quiet_game(level=level, park=("cache_flax",) + far_spaces()[1:])
    g.begin_turn(0)
    assert sorted(g.ops(0, L.A_PICKUP)) == [1, 2, 3]
    g.act(0, L.A_PICKUP, 2)
    assert g.charms(0) == [0, 0, 0, 2]          # only Flax, from the Flax cache
    assert g.pool()[FLAX] == 14
    assert g.acts() == 2
    # the same cache again in the same turn: one more space left
    assert g.ops(0, L.A_PICKUP) == [1]


def test_pickup_costs_one_action_per_charm_on_difficult():
    """"In a Difficult level game each individual Charm will cost 1 action to pick
    up."  MQ-CHARM-04."""
    g = quiet_game(level=HARD, park=("cache_gold",) + far_spaces()[1:])
    g.begin_turn(0)
    assert g.ops(0, L.A_PICKUP) == [1]
    g.act(0, L.A_PICKUP, 1)
    g.act(0, L.A_PICKUP, 1)
    assert g.charms(0) == [0, 2, 0, 0] and g.acts() == 1


def test_backpack_holds_three_charms():
    """"Each Hero can carry a maximum of 3 Charms."  MQ-HERO-03."""
    g = quiet_game(park=("cache_granite",) + far_spaces()[1:])
    g.set_charms(0, gold=2)
    g.begin_turn(0)
    assert g.ops(0, L.A_PICKUP) == [1]
    g.set_charms(0, gold=2, flax=1)
    assert g.ops(0, L.A_PICKUP) == []


def test_discarding_a_charm_is_free():
    """"At any time on their turn, a Hero can choose to discard a Charm from their
    Backpack. This is a Free action ... Discarded Charms should be returned to the
    Charm Pool."  MQ-CHARM-05, MQ-ACT-09."""
    g = quiet_game(park=far_spaces())
    g.set_charms(0, gold=2, flax=1)
    g.begin_turn(0)
    assert sorted(g.ops(0, L.A_DISCARD_CHARM)) == [GOLD, FLAX]
    g.act(0, L.A_DISCARD_CHARM, GOLD)
    assert g.charms(0) == [0, 1, 0, 1]
    assert g.pool()[GOLD] == 15
    assert g.acts() == 3


def _keystone_game(level=MEDIUM):
    g = quiet_game(level=level, park=("keystone_n",) + far_spaces()[1:])
    k = g.nm_at_disc(0)
    need = [int(x) for x in g.R.tables.nm_charms[k]]
    return g, k, need


def test_deposit_only_from_the_keystone_in_front_of_the_disc():
    """"Deposit a Charm/s on a Nightmare Disc. (Hero must be on the Key Stone space
    immediately in front of the Nightmare Disc)".  MQ-CHARM-07 (MQ-GAP-25: only
    Charms the Disc still needs)."""
    g, k, need = _keystone_game()
    two = need.index(2)
    g.set_charms(0, **{("granite", "gold", "blackthorn", "flax")[two]: 2})
    g.begin_turn(0)
    assert g.ops(0, L.A_DEPOSIT) == [two]
    g.put(0, "crossroads_ne")
    assert g.ops(0, L.A_DEPOSIT) == []
    # a Charm the disc does not need any more cannot be deposited
    g.put(0, "keystone_n")
    g.s[g.disc(0) + L.D_DEP + two] = 2
    assert g.ops(0, L.A_DEPOSIT) == []


def test_deposit_several_of_a_type_as_one_action_on_medium():
    """"In an Easy or Normal level game, players may deposit multiple Charm counters
    of the same Charm type ... as a single Action."  MQ-CHARM-08."""
    g, k, need = _keystone_game(MEDIUM)
    two = need.index(2)
    ch = [0, 0, 0, 0]
    ch[two] = 2
    g.set_charms(0, *ch)
    g.begin_turn(0)
    g.act(0, L.A_DEPOSIT, two)
    assert g.charms(0)[two] == 0
    assert int(g.s[g.disc(0) + L.D_DEP + two]) == 2
    assert g.acts() == 2


def test_deposit_one_charm_per_action_on_difficult():
    """"In a Difficult level game each individual Charm will cost 1 Action to
    deposit."  MQ-CHARM-09."""
    g, k, need = _keystone_game(HARD)
    two = need.index(2)
    ch = [0, 0, 0, 0]
    ch[two] = 2
    g.set_charms(0, *ch)
    g.begin_turn(0)
    g.act(0, L.A_DEPOSIT, two)
    assert g.charms(0)[two] == 1 and int(g.s[g.disc(0) + L.D_DEP + two]) == 1
    g.act(0, L.A_DEPOSIT, two)
    assert int(g.s[g.disc(0) + L.D_DEP + two]) == 2 and g.acts() == 1


def test_cast_out_over_several_deposits():
    """"The required Charms may be collected and deposited in any order." ... "the
    Nightmare has been Cast-out ... the Charms are returned to the Charm Pool and a
    MourneQuest Talisman is placed" and the next dice / tiles are added.
    MQ-CHARM-06, MQ-CHARM-10, MQ-CHARM-11, MQ-CHARM-12, MQ-COMBAT-04, MQ-ENC-01."""
    g, k, need = _keystone_game(MEDIUM)
    assert sum(need) == 5
    # two heroes share the work over two turns; the first brings 3 Charms
    first = [0, 0, 0, 0]
    rest = list(need)
    left = 3
    for t in range(4):
        x = min(rest[t], left)
        first[t] = x
        rest[t] -= x
        left -= x
    g.set_charms(0, *first)
    g.begin_turn(0)
    for t in range(4):
        if first[t]:
            g.act(0, L.A_DEPOSIT, t)
    assert g.disc_state(0) == L.DS_ON
    bag_before = int(g.s[L.G_BAG_N])
    g.put(0, "path_n1")
    g.put(1, "keystone_n")
    g.set_charms(1, *rest)
    g.begin_turn(1)
    for t in range(4):
        if rest[t]:
            g.act(1, L.A_DEPOSIT, t)
    assert g.disc_state(0) == L.DS_CAST_OUT
    assert int(g.s[g.nm(k) + L.NM_FATE]) == L.FATE_CAST_OUT
    assert g.pool() == [16, 16, 16, 16]                   # deposited charms back in the pool
    assert [int(x) for x in g.s[g.disc(0) + L.D_DEP:g.disc(0) + L.D_DEP + 4]] == [0, 0, 0, 0]
    assert int(g.s[L.G_TALISMANS]) == 1
    assert int(g.s[L.G_CASTOUT]) == 1
    assert int(g.s[L.G_POOL]) == 2                        # green die joins the pool
    assert int(g.s[L.G_ENC_LEVEL]) == 2
    assert int(g.s[L.G_BAG_N]) == bag_before + int(g.s[L.G_LV_N + 1])


def test_no_deposit_once_disc_reached_release_position():
    """"If all the required Charm Counters are deposited onto a Nightmare disc before
    it has rotated to its final release position, the Nightmare has been
    Cast-out".  MQ-CHARM-11, MQ-DISC-03 (MQ-GAP-24 as changed: no deposit once the
    disc is at its release position)."""
    g, k, need = _keystone_game()
    g.set_charms(0, *[min(1, x) for x in need][:3], 0)
    g.begin_turn(0)
    assert g.ops(0, L.A_DEPOSIT) != []
    g.set_clicks(0, 0)
    assert g.disc_state(0) == L.DS_RELEASED
    assert g.ops(0, L.A_DEPOSIT) == []


# ---- trading posts ---------------------------------------------------------------------

def test_trading_post_two_identical_for_one_other():
    """"Heroes can exchange any two identical Charms for one Charm of any other type.
    This costs 1 Action."  MQ-ACT-07."""
    g = quiet_game(park=("post_e",) + far_spaces()[1:])
    g.set_charms(0, gold=2, flax=1)
    g.begin_turn(0)
    trades = set(g.ops(0, L.A_TRADE))
    assert trades == {L.trade_arg(GOLD, b) for b in (GRANITE, BLACKTHORN, FLAX)}   # only the pair, never Gold->Gold
    g.act(0, L.A_TRADE, L.trade_arg(GOLD, GRANITE))
    assert g.charms(0) == [1, 0, 0, 1]
    assert g.acts() == 2
    assert g.pool() == [15, 16, 16, 15]       # the pair goes back to the pool
    # not elsewhere
    g.put(0, "path_e4")
    g.set_charms(0, gold=2)
    assert g.ops(0, L.A_TRADE) == []


def test_trading_post_three_charms_for_a_relic():
    """"Heroes may also exchange three Charms (of any type) for a Relic Card drawn
    from the top of the Relic Deck. This costs 1 Action."  MQ-ACT-08."""
    g = quiet_game(park=("post_w",) + far_spaces()[1:])
    g.set_charms(0, granite=1, gold=1, flax=1)
    rid = _relic_on_top(g, "healing_potion")
    g.begin_turn(0)
    arg = 1 + 4 * 1 + 16 * 0 + 64 * 1
    assert g.ops(0, L.A_TRADE_RELIC) == [arg]
    g.act(0, L.A_TRADE_RELIC, arg)
    assert g.charms(0) == [0, 0, 0, 0]
    assert int(g.s[L.G_RELIC_OWNER + rid]) == 0
    assert int(g.s[L.G_RELIC_N]) == 17
    assert g.acts() == 2
    g.set_charms(0, gold=2)
    assert g.ops(0, L.A_TRADE_RELIC) == []            # two Charms are not enough


# ---- equipment ---------------------------------------------------------------------------

def test_nexus_face_down_draw_is_free_and_equips():
    """"When a Hero moves on to a Nexus Point they can choose to either: Lift the
    top face-down Equipment Card as a free action" ... "The value on the bottom of
    the Equipment Card is then added to the value shown for that Ability".
    MQ-CARD-01, MQ-CARD-03, MQ-CARD-05 (MQ-GAP-60)."""
    g = quiet_game(park=("path_e1",) + far_spaces()[1:])
    c = g.card_id(STRENGTH, 3)
    _card_on_top(g, c)
    base = g.ability(0, STRENGTH)
    g.begin_turn(0)
    assert g.ops(0, L.A_DRAW_EQ) == []
    g.act(0, L.A_MOVE, g.sp("nexus_ne"))
    g.act(0, L.A_DRAW_EQ)
    assert g.acts() == 2                               # the move only
    assert g.equipped(0, STRENGTH) == c
    assert g.ability(0, STRENGTH) == base + 3


def test_one_equipment_card_per_turn_and_surplus_costs_an_action():
    """"Spend one action to pick up the top face-up card from the Surplus Deck."
    "Heroes are limited to collecting only one Equipment Card from a Nexus Point on
    any one turn."  MQ-CARD-03, MQ-CARD-04, MQ-CARD-08."""
    g = quiet_game(park=("nexus_se",) + far_spaces()[1:])
    g.begin_turn(0, arrived=True)
    assert g.ops(0, L.A_DRAW_EQ) == [0] and g.ops(0, L.A_SURPLUS) == [0]
    top = _surplus(g)[-1]
    g.act(0, L.A_SURPLUS)
    assert g.acts() == 2
    assert top in [g.equipped(0, a) for a in range(3)]
    assert g.ops(0, L.A_DRAW_EQ) == [] and g.ops(0, L.A_SURPLUS) == []
    # the other way round: after a free draw no Surplus card
    g.begin_turn(0, arrived=True)
    g.act(0, L.A_DRAW_EQ)
    assert g.ops(0, L.A_SURPLUS) == [] and g.ops(0, L.A_DRAW_EQ) == []
    # not away from a Nexus
    g.put(0, "path_s1")
    g.begin_turn(0, arrived=True)
    assert g.ops(0, L.A_DRAW_EQ) == [] and g.ops(0, L.A_SURPLUS) == []


def test_higher_card_replaces_and_old_goes_to_surplus():
    """"If a player collects an Equipment Card with a higher value than one they have
    already equipped for that Ability, they can discard the lowest card, face-up,
    onto the 'Surplus Deck.' and replace it".  MQ-CARD-02, MQ-CARD-06."""
    g = quiet_game(park=("nexus_nw",) + far_spaces()[1:])
    old = g.equip(0, COURAGE, 2)
    new = g.card_id(COURAGE, 4)
    _card_on_top(g, new)
    g.begin_turn(0, arrived=True)
    g.act(0, L.A_DRAW_EQ)
    assert g.equipped(0, COURAGE) == new
    assert _surplus(g)[-1] == old


def test_equal_or_lower_card_cannot_replace_and_goes_to_surplus():
    """"If a player draws an Equipment Card of a lower value, they may discard it
    directly onto the Surplus Deck" (MQ-GAP-59 as changed: a card replaces an
    equipped one only if strictly higher).  MQ-CARD-02, MQ-CARD-07."""
    for drawn_value in (3, 2):
        g = quiet_game(park=("nexus_nw",) + far_spaces()[1:])
        have = g.equip(0, MAGIC, 3)
        drawn = g.card_id(MAGIC, drawn_value, nth=1 if drawn_value == 3 else 0)
        assert drawn != have
        _card_on_top(g, drawn)
        g.begin_turn(0, arrived=True)
        g.act(0, L.A_DRAW_EQ)                     # the scripted policy equips if it can
        assert g.equipped(0, MAGIC) == have
        assert _surplus(g)[-1] == drawn


def test_hag_card_acts_at_once_and_leaves_the_game():
    """"When a player draws a Hag Card ... they must immediately read it aloud and
    follow the instructions ... It is not placed in the Surplus Deck and will not
    return to the game."  MQ-CARD-09, MQ-CARD-10 (MQ-GAP-60: it uses up the card)."""
    g = quiet_game(park=("nexus_ne",) + far_spaces()[1:])
    hag = g.R.names.cards.index("cackling_hag")          # assumed effect: 1 wound
    _card_on_top(g, hag)
    surplus = _surplus(g)
    n = int(g.s[L.G_EQ_N])
    g.begin_turn(0, arrived=True)
    g.act(0, L.A_DRAW_EQ)
    assert g.wounds(0) == 1
    assert _surplus(g) == surplus
    assert int(g.s[L.G_EQ_N]) == n - 1
    assert hag not in [int(x) for x in g.s[L.G_EQ_DECK:L.G_EQ_DECK + n - 1]]
    assert all(g.equipped(0, a) != hag for a in range(3))
    assert g.ops(0, L.A_SURPLUS) == []


def test_pass_equipment_to_hero_on_same_space():
    """"Pass an Equipment Card to another Hero currently occupying the same space."
    (1 action).  MQ-ACT-06."""
    g = quiet_game(park=("path_e1", "path_e1", "path_s3", "path_w2"))
    c = g.equip(0, STRENGTH, 4)
    g.begin_turn(0)
    assert g.ops(0, L.A_PASS) == [L.pass_arg(STRENGTH, 1)]
    g.act(0, L.A_PASS, L.pass_arg(STRENGTH, 1))
    assert g.equipped(1, STRENGTH) == c and g.equipped(0, STRENGTH) == -1
    assert g.acts() == 2
    g.put(1, "path_e2")
    g.equip(0, COURAGE, 1)
    assert g.ops(0, L.A_PASS) == []


# ---- pots and relics ------------------------------------------------------------------------

def test_moving_onto_a_pot_draws_a_relic_for_free():
    """"Collect one Relic Card when they discover a Magical Pot. (Hero must move
    onto or through a crossroad space occupied by a Magical Pot Marker)" ... "A
    Magical Pot Encounter Tile is discarded once the Magical Pot Marker at the
    Crossroads has been collected".  MQ-CARD-11, MQ-ENC-12."""
    g = quiet_game(park=("keystone_n",) + far_spaces()[1:])
    g.place_pot(0)                                   # NE pot on crossroads_ne
    rid = _relic_on_top(g, "lucky_horseshoe")
    g.begin_turn(0)
    g.act(0, L.A_MOVE, g.sp("crossroads_ne"))
    assert g.acts() == 2
    assert int(g.s[L.G_RELIC_OWNER + rid]) == 0
    assert g.slot_tile(0) == -1 and int(g.s[g.slot(0) + L.X_POT]) == 0
    assert int(g.s[L.G_POTS_OUT]) == 0


def test_sabotaged_pot_applies_at_once():
    """"An occasional Pot may have been sabotaged. If so, the negative effect of the
    card is applied immediately."  MQ-CARD-12."""
    g = quiet_game(park=("keystone_s",) + far_spaces()[1:])
    g.place_pot(1)                                   # SE pot on crossroads_se
    rid = _relic_on_top(g, "bitter_brew")            # assumed effect: 1 wound
    g.begin_turn(0)
    g.act(0, L.A_MOVE, g.sp("crossroads_se"))
    assert g.wounds(0) == 1
    assert int(g.s[L.G_RELIC_OWNER + rid]) != 0      # not kept


def test_relic_usable_in_another_heros_turn_for_free():
    """"Use a Magical Relic Card. Relic Cards may be used at any time, even if it is
    not that Hero's turn."  MQ-CARD-13, MQ-ACT-09."""
    g = quiet_game(park=far_spaces())
    rid = g.R.names.relics.index("healing_potion")
    g.s[L.G_RELIC_OWNER + rid] = 1                   # held by hero 1
    g.set_wounds(0, 1)
    g.begin_turn(0)                                  # hero 0's turn
    arg = rid * 64 + 0 + 1                           # heal hero 0
    assert arg in g.ops(0, L.A_RELIC)
    g.act(0, L.A_RELIC, arg)
    assert g.wounds(0) == 0 and g.acts() == 3
    assert int(g.s[L.G_RELIC_OWNER + rid]) != 1


# ---- healing and passing -----------------------------------------------------------------------

def test_regain_life_on_any_start_point():
    """"Regain a Life Point. (Hero must be on any of the 4 Start locations)" - 1
    action; Beith in the Example moves there and heals on the same turn.  MQ-ACT-05."""
    g = quiet_game(park=("path_s2",) + far_spaces()[1:])
    g.set_wounds(0, 2)
    g.begin_turn(0)
    assert g.ops(0, L.A_HEAL) == []
    g.act(0, L.A_MOVE, g.sp("start_s"))              # not hero 0's own start
    g.act(0, L.A_HEAL)
    assert g.wounds(0) == 1 and g.acts() == 1
    g.act(0, L.A_HEAL)
    assert g.wounds(0) == 0 and g.acts() == 0
    g.begin_turn(0)
    assert g.ops(0, L.A_HEAL) == []                  # nothing to regain


def test_hero_may_end_turn_with_actions_left():
    """"Each Player may take up to 3 ACTIONS on their turn."  MQ-ACT-03."""
    g = quiet_game(park=far_spaces())
    g.begin_turn(0)
    assert g.legal_codes(0)[0] == 0                  # ending the turn is always offered
    g.act(0, L.A_MOVE, sorted(g.moves(0))[0])
    assert 0 in g.legal_codes(0)
