"""The hero turn (numba): legal actions, attacks, applying an action, casting
out and defeating nightmares, and the turn loop. Every player choice goes
through ``decision.decide`` with a list of legal action codes generated here
and in the modules below (never by the policy).

The rule kernels live by concern — ``effects`` (cards, effects, arrival),
``combat``, ``enemies`` (the Enemy Phase), ``final`` (moon, compass, Final
Battle) and this module; ``rules`` re-exports them all so ``rules.X`` names
any rule kernel. Rule IDs (MQ-*) refer to shared/rules/mournequest-rules.md;
MQ-GAP rulings to docs/mournequest/rulings.md.
"""

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .combat import bogbean_drops, bogbean_theft, enemy_value, hero_combat, strongest_ability  # noqa: F401
from .core import (
    bog_level,
    charm_multi,
    charms_held,
    count_use,
    db,
    drop_charms,
    encounter_trigger,
    enemies_in_play,
    gain_charms,
    hb,
    heal,
    heroes_at,
    log,
    log_patch,
    lose_life,
    minis_at,
    nb,
    nightmare_at,
    running,
    snapshot,
    unlock_die,
    xb,
)
from .effects import (  # noqa: F401
    apply_effect,
    apply_simple_effect,
    arrive,
    can_enter,
    draw_equipment,
    draw_relic,
    effect_targets,
    hero_near,
    offer_card,
)
from .enemies import (  # noqa: F401
    bogbean_attack,
    clear_entered,
    draw_encounters,
    draw_tile,
    enemy_attacks,
    enemy_phase,
    emergences,
    enemy_step,
    escapes,
    evil_powers,
    move_all_enemies,
    move_enemy,
    movement_tile,
    nearest_hero,
    nightmare_attack,
    place_nightmare,
    resolve_tile,
)
from .final import compass_result, end_of_turn, reroll_offer, shimnavore_acts, start_final_battle, wall_roll  # noqa: F401
from .audit import charm_discarded, move_made, other_action, turn_begins, turn_ends, wall_rebuilt
from .decision import decide
from .layout import (
    attack_ability,
    attack_arg,
    attack_target,
    code,
    code_arg,
    code_op,
    pass_arg,
    pass_hero,
    pass_slot,
    relic_trade_arg,
    relic_trade_count,
    sub_code,
    sub_owner,
    sub_target,
    trade_arg,
    trade_give,
    trade_take,
)

# =============================================================================
# casting out and defeating nightmares
# =============================================================================


@kernel
def nightmare_gone(s, T, ev, k, fate):
    """Nightmare ``k`` is cast out or defeated: the next die and tile level
    unlock; a cast-out leaves a Talisman (MQ-CHARM-12, MQ-COMBAT-26)."""
    d = s[nb(k) + L.NM_DIR]
    s[nb(k) + L.NM_POS] = -1
    s[nb(k) + L.NM_FATE] = fate
    if fate == L.FATE_CAST_OUT:
        s[db(d) + L.D_STATE] = L.DS_CAST_OUT
        for t in range(4):
            s[L.G_POOL_CHARMS + t] += s[db(d) + L.D_DEP + t]
            s[db(d) + L.D_DEP + t] = 0
        s[L.G_CASTOUT] += 1
        got = 0
        if s[L.G_TALISMAN_SUPPLY] > 0:
            s[L.G_TALISMAN_SUPPLY] -= 1
            s[L.G_TALISMANS] += 1
            got = 1
        log(s, ev, L.EVT_CAST_OUT, -1 - k, d, got, s[L.G_TALISMANS], 0, 0)
    else:
        s[db(d) + L.D_STATE] = L.DS_DEFEATED
        s[L.G_DEFEATED] += 1
        log(s, ev, L.EVT_NIGHTMARE_DEFEATED, -1 - k, d, 0, 0, 0, 0)
    unlock_die(s, ev)
    encounter_trigger(s, T, ev, s[L.G_CASTOUT] + s[L.G_DEFEATED])


@kernel
def charms_needed(s, T, d, t):
    """Charms of type ``t`` the disc at ``d`` still requires."""
    k = s[db(d) + L.D_NM]
    if k < 0:
        return 0
    return T[TB.O_NM_CHARMS + k * 4 + t] - s[db(d) + L.D_DEP + t]

# =============================================================================
# the hero turn
# =============================================================================


@kernel
def add(legal, n, op, arg):
    """Append the action code of ``op`` with ``arg`` to ``legal[:n]``; returns the new count."""
    legal[n] = code(op, arg)
    return n + 1


@kernel
def nexus_open(s, T, pos):
    """The active hero on ``pos`` may still take an Equipment card there:
    "When a Hero moves on to a Nexus Point they can choose to either..." —
    only after moving onto it this turn (MQ-CARD-03, MQ-GAP-60; the toggle
    nexus_draw_when_standing lets a hero standing there draw too), and only
    one card a turn (MQ-CARD-04)."""
    if T[TB.O_KIND + pos] != L.K_NEXUS or s[L.G_NEXUS_USED] != 0:
        return False
    return pos == s[L.G_ARRIVED] or T[TB.P_NEXUS_DRAW_WHEN_STANDING] == 1


@kernel
def legal_turn(s, T, h, legal):
    """Every legal action for hero ``h`` now (MQ-ACT-04, MQ-ACT-09): its moves,
    what its space offers (``legal_space_actions``), trades and passes,
    attacks, free actions, and the relics and skills any hero may use."""
    n = 0
    o = hb(h)
    pos = s[o + L.H_POS]
    acts = s[L.G_ACTS]
    over = s[L.G_TURN_OVER] == 1
    must = s[L.G_MUST_MOVE]
    kind = T[TB.O_KIND + pos]
    n = add(legal, n, L.A_END, 0)
    # the first-turn arrow is an obligation to move (MQ-MOVE-10): no ending
    # the turn before that move while it can be made
    if (must & 2) != 0 and acts > 0 and not over:
        n = 0
    if acts > 0 and not over:
        n = legal_moves(s, T, h, legal, n, o, pos, acts, must, kind)
        if must == 0:
            n = legal_space_actions(s, T, h, legal, n, o, pos, kind)
            n = legal_trades(s, T, h, legal, n, o, pos, kind)
            n = legal_attacks(s, T, legal, n, pos, kind)
    if not over:
        # free actions (MQ-ACT-09) are not actions, so a compulsory first move
        # does not block them; none once a lost attack has ended the turn
        if nexus_open(s, T, pos) and s[L.G_EQ_N] > 0:
            n = add(legal, n, L.A_DRAW_EQ, 0)
        for t in range(4):
            if s[o + L.H_CH + t] > 0:
                n = add(legal, n, L.A_DISCARD_CHARM, t)
    return legal_relics_skills(s, T, h, legal, n)


@inlined
def legal_moves(s, T, h, legal, n, o, pos, acts, must, kind):
    """``legal_turn``'s moves of hero ``h`` (block ``o``) from ``pos``, ``acts``
    actions left (MQ-MOVE-06/07/09/10/14): from a disc back to its key stone,
    else to each neighbour it may enter (only along the start arrow while
    ``must`` has bit 2). Appends to ``legal[:n]``; returns the new count."""
    if kind == L.K_DISC:
        d = T[TB.O_COMPASS + pos]
        if acts >= T[TB.P_DISC_RETURN_COST] and minis_at(s, T[TB.O_KEYSTONE + d]) < T[TB.P_MINIATURES_PER_SPACE]:
            n = add(legal, n, L.A_MOVE, T[TB.O_KEYSTONE + d])
    else:
        arrow_ok = False
        if (must & 2) != 0:
            tgt = T[TB.O_ARROW + (s[o + L.H_START])]
            if pos == s[o + L.H_START] and tgt >= 0 and can_enter(s, T, h, tgt):
                arrow_ok = True
        for j in range(T[TB.O_DEG + pos]):
            nx = T[TB.O_ADJ + pos * 8 + j]
            if arrow_ok and nx != T[TB.O_ARROW + (s[o + L.H_START])]:
                continue
            if can_enter(s, T, h, nx):
                n = add(legal, n, L.A_MOVE, nx)
    return n


@inlined
def legal_space_actions(s, T, h, legal, n, o, pos, kind):
    """``legal_turn``'s actions the space ``pos`` of hero ``h`` (block ``o``)
    offers: picking up charms at a cache (MQ-CHARM-02..04), depositing them
    and rebuilding the wall at a key stone, the Surplus card at an open
    nexus (MQ-CARD-03), regaining life at a start point (MQ-ACT-05). Appends
    to ``legal[:n]``; returns the new count."""
    if kind == L.K_CACHE:
        t = T[TB.O_CHARM + pos]
        room = min(T[TB.P_BACKPACK] - charms_held(s, h), s[L.G_POOL_CHARMS + t])
        if room > 0:
            if charm_multi(s, T):
                for k in range(1, room + 1):
                    n = add(legal, n, L.A_PICKUP, k)
            else:
                n = add(legal, n, L.A_PICKUP, 1)
    if kind == L.K_KEYSTONE:
        d = T[TB.O_COMPASS + pos]
        if s[db(d) + L.D_STATE] == L.DS_ON:
            for t in range(4):
                if s[o + L.H_CH + t] > 0 and charms_needed(s, T, d, t) > 0:
                    n = add(legal, n, L.A_DEPOSIT, t)
        if s[L.G_WALL + d] == 1 and s[o + L.H_CH + 0] >= T[TB.P_GRANITE_FOR_REPAIR]:
            n = add(legal, n, L.A_REPAIR, d)
    if nexus_open(s, T, pos) and s[L.G_SURPLUS_N] > 0:
        n = add(legal, n, L.A_SURPLUS, 0)
    if kind == L.K_START and s[o + L.H_WOUNDS] > 0:
        n = add(legal, n, L.A_HEAL, 0)
    return n


@inlined
def legal_trades(s, T, h, legal, n, o, pos, kind):
    """``legal_turn``'s trades of hero ``h`` (block ``o``) at a Trading Post:
    two charms for another (MQ-ACT-07), three for a relic (MQ-ACT-08); and
    its equipment passed to a hero on the same space (MQ-ACT-06). Appends
    to ``legal[:n]``; returns the new count."""
    if kind == L.K_POST:
        for a in range(4):
            if s[o + L.H_CH + a] >= 2:
                for b in range(4):
                    if b != a and s[L.G_POOL_CHARMS + b] > 0:
                        n = add(legal, n, L.A_TRADE, trade_arg(a, b))
        if charms_held(s, h) >= 3 and s[L.G_RELIC_N] > 0:
            c0 = s[o + L.H_CH]
            c1 = s[o + L.H_CH + 1]
            c2 = s[o + L.H_CH + 2]
            for x0 in range(min(c0, 3) + 1):
                for x1 in range(min(c1, 3 - x0) + 1):
                    for x2 in range(min(c2, 3 - x0 - x1) + 1):
                        x3 = 3 - x0 - x1 - x2
                        if x3 <= s[o + L.H_CH + 3]:
                            n = add(legal, n, L.A_TRADE_RELIC, relic_trade_arg(x0, x1, x2, x3))
    for g in range(s[L.G_NHEROES]):
        if g != h and s[hb(g) + L.H_POS] == pos:
            for a in range(3):
                if s[o + L.H_EQ + a] >= 0:
                    n = add(legal, n, L.A_PASS, pass_arg(a, g))
    return n


@inlined
def legal_attacks(s, T, legal, n, pos, kind):
    """``legal_turn``'s attacks from ``pos`` (MQ-COMBAT-14, MQ-FINAL-05/23/25):
    a nightmare or bogbean there on each ability it has not lost on, and in
    the Final Battle the Shimnavore from a key stone once no other enemy is
    in play. Appends to ``legal[:n]``; returns the new count."""
    k = nightmare_at(s, pos)
    if k >= 0:
        for a in range(3):
            if (s[nb(k) + L.NM_WOUNDS] >> a) & 1 == 0:
                n = add(legal, n, L.A_ATTACK, attack_arg(L.TGT_NIGHTMARE + k, a))
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == pos:
            for a in range(3):
                if (s[xb(c) + L.X_BOG_WOUNDS] >> a) & 1 == 0:
                    n = add(legal, n, L.A_ATTACK, attack_arg(L.TGT_BOGBEAN + c, a))
    if (s[L.G_FINAL] == L.FB_RUNNING and kind == L.K_KEYSTONE and s[L.G_SHIM_ATTACKED] == 0
            and enemies_in_play(s) == 0):
        for a in range(3):
            if s[L.G_SHIM_WOUNDS + a] < T[TB.P_SHIMNAVORE_WINS_PER_ABILITY]:
                n = add(legal, n, L.A_ATTACK, attack_arg(L.TGT_SHIM, a))
    return n


@inlined
def legal_relics_skills(s, T, h, legal, n):
    """``legal_turn``'s relics and skills with a turn-window effect: any
    hero's, at any time in a turn (MQ-GAP-03), one action per target
    (``effect_targets``). Appends to ``legal[:n]``; returns the new count."""
    for r in range(T[TB.P_N_RELICS]):
        u = s[L.G_RELIC_OWNER + r]
        if u >= 0 and T[TB.O_EFFECTS + (T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT]) * L.EF_COLS + L.EF_WHEN] == L.WHEN_TURN:
            n = effect_targets(s, T, T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT], u, h, legal, n, code(L.A_RELIC, sub_code(r)))
    for u in range(s[L.G_NHEROES]):
        if s[hb(u) + L.H_SKILLS] > 0:
            e = T[TB.O_HERO_SKILL + (s[hb(u) + L.H_ID])]
            if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_WHEN] == L.WHEN_TURN:
                n = effect_targets(s, T, e, u, h, legal, n, code(L.A_SKILL, sub_code(u)))
    return n


@kernel
def attack(s, T, ev, rng, legal, pp, h, arg):
    """Hero ``h`` attacks (MQ-COMBAT-13..27, MQ-FINAL-23..27)."""
    tgt = attack_target(arg)
    a = attack_ability(arg)
    if tgt < L.TGT_BOGBEAN:
        s[L.CNT_ATTACKS_NIGHTMARE] += 1
        k = tgt - L.TGT_NIGHTMARE
        if hero_combat(s, T, ev, rng, legal, pp, h, L.ENEMY_NM + k, a, False):
            s[nb(k) + L.NM_WOUNDS] |= 1 << a
            log(s, ev, L.EVT_NIGHTMARE_WOUNDED, h, k, a, s[nb(k) + L.NM_WOUNDS], 0, 0)
            if s[nb(k) + L.NM_WOUNDS] == 7:
                nightmare_gone(s, T, ev, k, L.FATE_DEFEATED)
        else:
            lose_life(s, T, ev, h, 1)
            s[L.G_TURN_OVER] = 1
    elif tgt < L.TGT_SHIM:
        s[L.CNT_ATTACKS_BOGBEAN] += 1
        c = tgt - L.TGT_BOGBEAN
        lv = bog_level(s, T, c)
        if hero_combat(s, T, ev, rng, legal, pp, h, L.ENEMY_BOG + lv - 1, a, False):
            s[xb(c) + L.X_BOG_WOUNDS] |= 1 << a
            w = s[xb(c) + L.X_BOG_WOUNDS]
            wins = (w & 1) + ((w >> 1) & 1) + ((w >> 2) & 1)
            if wins >= T[TB.O_WINS_NEEDED + (lv - 1)]:
                bogbean_drops(s, T, ev, rng, legal, pp, h, c, True)
            else:
                log(s, ev, L.EVT_WORT_WOUNDED, h, c, a, w, 0, 0)
        else:
            bogbean_theft(s, T, ev, rng, legal, pp, h, c)
            s[L.G_TURN_OVER] = 1
    else:
        s[L.CNT_ATTACKS_SHIMNAVORE] += 1
        s[L.G_SHIM_ATTACKED] = 1
        if hero_combat(s, T, ev, rng, legal, pp, h, L.ENEMY_SHIM, a, False):
            s[L.G_SHIM_WOUNDS + a] += 1
            log(s, ev, L.EVT_SHIMNAVORE_WOUND, h, a, s[L.G_SHIM_WOUNDS + a], 0, 0, 0)
            done = True
            for b in range(3):
                if s[L.G_SHIM_WOUNDS + b] < T[TB.P_SHIMNAVORE_WINS_PER_ABILITY]:
                    done = False
            if done and running(s):
                s[L.G_OUTCOME] = L.OUT_WIN
        else:
            s[L.G_TURN_OVER] = 1


@kernel
def apply_turn(s, T, ev, rng, legal, pp, h, ch):
    """Carry out turn action ``ch`` of hero ``h``: the larger actions in their
    own parts below (``apply_move``, ``apply_deposit`` ...), logged as one
    action record."""
    op = code_op(ch)
    arg = code_arg(ch)
    o = hb(h)
    pos = s[o + L.H_POS]
    i0 = s[L.G_LOGN]
    log(s, ev, L.EVT_ACTION, h, op, arg, s[L.G_ACTS], 0, 0)
    if op != L.A_MOVE:
        other_action(s)
    if op == L.A_MOVE:
        apply_move(s, T, ev, rng, legal, pp, h, o, pos, arg)
    elif op == L.A_PICKUP:
        s[L.G_ACTS] -= 1
        gain_charms(s, T, ev, h, T[TB.O_CHARM + pos], arg)
    elif op == L.A_DEPOSIT:
        apply_deposit(s, T, ev, h, o, pos, arg)
    elif op == L.A_SURPLUS:
        apply_surplus(s, T, ev, rng, legal, pp, h)
    elif op == L.A_PASS:
        apply_pass(s, T, ev, rng, legal, pp, h, o, arg)
    elif op == L.A_HEAL:
        s[L.G_ACTS] -= 1
        s[L.CNT_HEALS] += 1
        heal(s, T, ev, h, 1)
    elif op == L.A_TRADE:
        apply_trade(s, T, ev, h, arg)
    elif op == L.A_TRADE_RELIC:
        apply_relic_trade(s, T, ev, rng, legal, pp, h, arg)
    elif op == L.A_ATTACK:
        s[L.G_ACTS] -= 1
        attack(s, T, ev, rng, legal, pp, h, arg)
    elif op == L.A_REPAIR:
        apply_repair(s, T, ev, h, arg)
    elif op == L.A_DRAW_EQ:
        s[L.G_NEXUS_USED] = 1
        s[L.CNT_EQUIPMENT_DRAWS] += 1
        draw_equipment(s, T, ev, rng, legal, pp, h)
    elif op == L.A_DISCARD_CHARM:
        s[L.CNT_CHARM_DISCARDS] += 1
        charm_discarded(s, arg)
        drop_charms(s, ev, h, arg, 1)
    elif op == L.A_RELIC:
        apply_relic(s, T, ev, rng, legal, pp, arg)
    elif op == L.A_SKILL:
        apply_skill(s, T, ev, rng, legal, pp, arg)
    # the record learns what the action cost: the actions left after it, and
    # whether it ended the turn (a lost attack)
    log_patch(s, ev, i0, 6, s[L.G_ACTS])
    log_patch(s, ev, i0, 7, s[L.G_TURN_OVER])


@inlined
def apply_move(s, T, ev, rng, legal, pp, h, o, pos, arg):
    """``apply_turn``'s move of hero ``h`` (block ``o``) from ``pos`` to space
    ``arg``: its cost (more off a disc), the obligations it meets, what the
    hero finds on arrival (``arrive``) and the blunder audit's note."""
    cost = 1
    if T[TB.O_KIND + pos] == L.K_DISC:
        cost = T[TB.P_DISC_RETURN_COST]
    s[L.G_ACTS] -= cost
    forced = s[L.G_MUST_MOVE] != 0
    if (s[L.G_MUST_MOVE] & 1) != 0:
        s[L.G_FORBID] = pos
    s[L.G_MUST_MOVE] = 0
    s[o + L.H_POS] = arg
    log(s, ev, L.EVT_MOVE, h, pos, arg, 0, 0, 0)
    pots = s[L.CNT_POTS]
    arrive(s, T, ev, rng, legal, pp, h)
    move_made(s, T, pos, arg, s[o + L.H_POS] == arg and s[L.CNT_POTS] == pots, forced)


@inlined
def apply_deposit(s, T, ev, h, o, pos, arg):
    """``apply_turn``'s deposit by hero ``h`` (block ``o``) of charm type
    ``arg`` on the disc of the key stone ``pos`` (all it needs with
    multi-charm actions, else one: MQ-CHARM-07..09); a disc with all its
    charms casts its nightmare out (MQ-CHARM-11)."""
    s[L.G_ACTS] -= 1
    d = T[TB.O_COMPASS + pos]
    k = min(s[o + L.H_CH + arg], charms_needed(s, T, d, arg))
    if not charm_multi(s, T):
        k = 1
    s[o + L.H_CH + arg] -= k
    s[db(d) + L.D_DEP + arg] += k
    done = True
    still = 0    # charms the disc still needs, 4 bits a type (for the log)
    for t in range(4):
        if charms_needed(s, T, d, t) > 0:
            done = False
            still += min(charms_needed(s, T, d, t), 15) << (4 * t)
    log(s, ev, L.EVT_DEPOSIT, h, d, arg, k, still, 0)
    if done:
        nightmare_gone(s, T, ev, s[db(d) + L.D_NM], L.FATE_CAST_OUT)


@inlined
def apply_surplus(s, T, ev, rng, legal, pp, h):
    """``apply_turn``'s take of the top Surplus card at a nexus by hero ``h``
    (MQ-CARD-03), offered to it to equip or discard (``offer_card``)."""
    s[L.G_ACTS] -= 1
    s[L.CNT_SURPLUS_TAKES] += 1
    s[L.G_NEXUS_USED] = 1
    s[L.G_SURPLUS_N] -= 1
    c = s[L.G_SURPLUS + s[L.G_SURPLUS_N]]
    log(s, ev, L.EVT_SURPLUS, h, c, 0, 0, 0, 0)
    offer_card(s, T, ev, rng, legal, pp, h, c)


@inlined
def apply_pass(s, T, ev, rng, legal, pp, h, o, arg):
    """``apply_turn``'s pass of hero ``h``'s (block ``o``) card under the
    ability ``pass_slot(arg)`` to hero ``pass_hero(arg)``, who may equip it
    (MQ-ACT-06)."""
    s[L.G_ACTS] -= 1
    a = pass_slot(arg)
    g = pass_hero(arg)
    c = s[o + L.H_EQ + a]
    s[o + L.H_EQ + a] = -1
    s[L.CNT_EQUIPMENT_PASSES] += 1
    log(s, ev, L.EVT_PASS_EQUIPMENT, h, g, c, 0, 0, 0)
    offer_card(s, T, ev, rng, legal, pp, g, c)


@inlined
def apply_trade(s, T, ev, h, arg):
    """``apply_turn``'s trade at a Trading Post by hero ``h``: two charms of
    type ``trade_give(arg)`` for one of ``trade_take(arg)`` (MQ-ACT-07)."""
    s[L.G_ACTS] -= 1
    a = trade_give(arg)
    b = trade_take(arg)
    drop_charms(s, ev, h, a, 2)
    gain_charms(s, T, ev, h, b, 1)
    s[L.CNT_TRADES_CHARM] += 1
    log(s, ev, L.EVT_TRADE, h, a, b, 0, 0, 0)


@inlined
def apply_relic_trade(s, T, ev, rng, legal, pp, h, arg):
    """``apply_turn``'s trade of three charms (``relic_trade_count(arg, t)``
    of each type) for the top relic by hero ``h`` (MQ-ACT-08)."""
    s[L.G_ACTS] -= 1
    for t in range(4):
        drop_charms(s, ev, h, t, relic_trade_count(arg, t))
    s[L.CNT_TRADES_RELIC] += 1
    log(s, ev, L.EVT_TRADE, h, -1, arg, 0, 0, 0)
    draw_relic(s, T, ev, rng, legal, pp, h)


@inlined
def apply_repair(s, T, ev, h, arg):
    """``apply_turn``'s rebuilding of wall section ``arg`` with hero ``h``'s
    Granite (MQ-FINAL-21)."""
    s[L.G_ACTS] -= 1
    drop_charms(s, ev, h, 0, T[TB.P_GRANITE_FOR_REPAIR])
    s[L.G_WALL + arg] = 0
    s[L.G_WALL_REPAIRS] += 1
    s[L.CNT_REPAIRS_GRANITE] += 1
    wall_rebuilt(s, arg, h)
    log(s, ev, L.EVT_WALL_REPAIR, h, arg, 1, 0, 0, 0)


@inlined
def apply_relic(s, T, ev, rng, legal, pp, arg):
    """``apply_turn``'s use of relic ``sub_owner(arg)`` on target
    ``sub_target(arg)``: the card leaves the game and its effect acts for
    the hero holding it (MQ-CARD-13, MQ-GAP-03)."""
    r = sub_owner(arg)
    param = sub_target(arg)
    u = s[L.G_RELIC_OWNER + r]
    s[L.G_RELIC_OWNER + r] = -2
    count_use(s, L.CNT_RELICS_USED)
    log(s, ev, L.EVT_RELIC_USED, u, r, T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT], param, 0, 0)
    apply_effect(s, T, ev, rng, legal, pp, T[TB.O_RELICS + r * TB.RELIC_W + TB.RL_EFFECT], u, param)


@inlined
def apply_skill(s, T, ev, rng, legal, pp, arg):
    """``apply_turn``'s use of a skill token of hero ``sub_owner(arg)`` on
    target ``sub_target(arg)`` (MQ-HERO-07, MQ-GAP-03)."""
    u = sub_owner(arg)
    param = sub_target(arg)
    s[hb(u) + L.H_SKILLS] -= 1
    count_use(s, L.CNT_SKILLS_USED)
    e = T[TB.O_HERO_SKILL + (s[hb(u) + L.H_ID])]
    log(s, ev, L.EVT_SKILL_USED, u, e, param, 0, 0, 0)
    apply_effect(s, T, ev, rng, legal, pp, e, u, param)


@kernel
def hero_turn(s, T, ev, snaps, rng, legal, pp, h):
    """One hero's actions (MQ-ACT-02/03), ending when the policy ends the turn,
    an attack is lost, or the game ends."""
    o = hb(h)
    s[L.G_CUR] = h
    s[L.G_ACTS] = T[TB.P_ACTIONS_PER_TURN]
    s[L.G_NEXUS_USED] = 0
    s[L.G_ARRIVED] = -1
    s[L.G_SHIM_ATTACKED] = 0
    s[L.G_TURN_OVER] = 0
    s[L.G_FORBID] = -1
    s[L.G_MUST_MOVE] = 0
    pos = s[o + L.H_POS]
    if T[TB.O_KIND + pos] != L.K_DISC and heroes_at(s, pos) > 1:
        s[L.G_MUST_MOVE] |= 1   # MQ-MOVE-09: move off a shared space first
    if s[o + L.H_FIRST_DONE] == 0 and T[TB.P_FIRST_TURN_ARROW] == 1:
        s[L.G_MUST_MOVE] |= 2   # MQ-MOVE-10: follow the start arrow
    s[o + L.H_FIRST_DONE] = 1
    s[L.G_TURNS] += 1
    turn_begins(s, T, h)
    snapshot(s, ev, snaps, h)
    turn_actions(s, T, ev, rng, legal, pp, h)


@kernel
def turn_actions(s, T, ev, rng, legal, pp, h):
    """Ask for and apply hero ``h``'s actions until the turn ends. A search
    policy resumes a copied game here after applying a candidate action."""
    guard = 0
    while running(s):
        n = legal_turn(s, T, h, legal)
        if s[L.G_MUST_MOVE] != 0:
            can_move = False
            for i in range(n):
                if code_op(legal[i]) == L.A_MOVE:
                    can_move = True
            if not can_move:
                # no legal move off the space: the obligation lapses
                s[L.G_MUST_MOVE] = 0
                n = legal_turn(s, T, h, legal)
        ch = decide(s, T, legal, n, rng, pp, h)
        if code_op(ch) == L.A_END:
            turn_ends(s, legal, n)
            if s[L.G_ACTS] > 0 and s[L.G_TURN_OVER] == 0:
                # a non-event a reader needs: the hero stops with actions unused
                log(s, ev, L.EVT_ACTION, h, L.A_END, 0, s[L.G_ACTS], s[L.G_ACTS], 0)
            break
        apply_turn(s, T, ev, rng, legal, pp, h, ch)
        guard += 1
        if guard > 200:
            break
    s[L.G_MUST_MOVE] = 0
