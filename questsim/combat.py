"""The duel (QM-DUEL-*): choosing the target, the Mp roll, the free first
attack and the paid attacks in turn, each side's window of attack or
shield cards and abilities, damage and absorption; and the bookkeeping of
target choices.
"""
import numpy as np

from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .blunders import castle_count, free_defence, into_block
from .core import add_legal, ask, declined, log, over, pb, race_ok, roll
from .hand import discard_choice, draw_item, remove_card, to_used
from .life import gain_hp, lose_hp


@kernel
def combat_card_ok(T, kind, attacking, mp):
    """A blue card usable now: sword/sword-and-shield when attacking, shield
    or sword-and-shield when defending, casting cost within Mp (QM-CARD-04..08)."""
    o = TB.O_ITEM + kind * TB.IK
    if T[o + TB.IK_COLOUR] != 1 or T[o + TB.IK_COST] > mp:
        return False
    sym = T[o + TB.IK_SYMBOL]
    if sym == L.IS_SWORD_SHIELD:
        return True
    return sym == (L.IS_SWORD if attacking else L.IS_SHIELD)


@kernel
def combat_effects(s, T, ev, rng, legal, pp, seat, opp, start, count, attacking, card):
    """Apply the combat effects of a card (``card``) or ability: attack ops
    when attacking, defence ops when defending (a sword-and-shield card has
    both). Only a card's At bonus can last the combat (toggle)."""
    race = s[pb(seat) + L.S_RACE]
    for i in range(count):
        row = TB.O_EFF + (start + i) * L.EW
        if not race_ok(T, row, race):
            continue
        op = T[row + L.E_OP]
        n = T[row + L.E_N]
        if attacking and op == L.EK_ATTACK_BONUS:
            s[L.G_DUEL_AT] += n
            if T[TB.P_ATTACK_BONUS_LASTS_COMBAT] and card:
                s[pb(seat) + L.S_BONUS] += n
        elif attacking and op == L.EK_DESTROY_ITEMS:
            for _ in range(n):
                discard_choice(s, T, ev, rng, legal, pp, opp, L.CTX_DISCARD)
        elif not attacking and op == L.EK_SHIELD:
            if T[TB.P_SHIELDS_STACK]:
                s[L.G_DUEL_SHIELD] += n
            elif n > s[L.G_DUEL_SHIELD]:
                s[L.G_DUEL_SHIELD] = n
            if T[TB.P_SHIELD_LASTS_COMBAT]:
                s[pb(seat) + L.S_CARRY_SHIELD] = s[L.G_DUEL_SHIELD]
        elif not attacking and op == L.EK_ABSORB:
            s[L.G_DUEL_ABSORB] = T[row + L.E_ARG]
        elif op == L.EK_DRAW_ITEM:
            for _ in range(n):
                draw_item(s, T, ev, rng, legal, pp, seat)
        elif op == L.EK_GAIN_HP:
            gain_hp(s, T, ev, seat, n)


@inlined
def card_window(s, T, ev, rng, legal, pp, seat, opp, attacking):
    """The attacker adds attack cards and abilities, or the defender shield
    cards and abilities, each paid from Mp, until done (QM-DUEL-05/06, QM-GAP-20).
    Inlined into its two calls in ``duel_with``, as is ``count_target``:
    that wins back part of what calling the policies through an address
    costs (random 2.7%, greedy 1.3% more games/s; the same games)."""
    b = pb(seat)
    ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
    items = 0
    while not over(s) and s[b + L.S_ALIVE]:
        mp = s[b + L.S_MP]
        n = 0
        legal[n] = L.code(L.A_DONE, 0)
        n += 1
        if items == 0 or not T[TB.P_ONE_ITEM_PER_STEP]:   # the toggle limits Item cards, not abilities
            for i in range(s[b + L.S_HAND_N]):
                kind = s[b + L.S_HAND + i]
                if combat_card_ok(T, kind, attacking, mp):
                    n = add_legal(legal, n, L.code(L.A_PLAY, kind))
        if n == 1 and T[ch + TB.C_NAB] == 0:
            break
        for k in range(T[ch + TB.C_NAB]):
            o = ch + TB.C_AB + TB.AB * k
            if T[o + TB.AB_WHEN] == (0 if attacking else 1) and T[o + TB.AB_COST] <= mp and s[b + L.S_ABIL + k] < T[o + TB.AB_PER_COMBAT]:
                legal[n] = L.code(L.A_ABILITY, k)
                n += 1
        ctx = L.CTX_ATTACK_CARDS if attacking else L.CTX_DEFEND
        c = ask(s, T, legal, n, rng, pp, seat, ctx, s[L.G_DUEL_AT])
        # the blunder counters: the window closed on a sure win; an attack
        # card or ability that adds only At into a sure block; a defence
        # closed with a free ability that would still help. Each is judged
        # only where it can be true: a lone ``done`` (n == 1) means no
        # ability was on offer, so none was free either, and ``done`` adds
        # nothing to an attack
        if n > 1 and declined(s, T, legal, n, pp, seat, ctx, c):
            s[L.G_BL + L.BL_DECLINED_WIN] += 1
        if attacking and L.code_op(c) != L.A_DONE and into_block(s, T, np.int64(seat), np.int64(opp), np.int64(c)):
            s[L.G_BL + L.BL_ATTACK_INTO_BLOCK] += 1
        if not attacking and n > 1 and L.code_op(c) == L.A_DONE and free_defence(s, T, np.int64(seat)):
            s[L.G_BL + L.BL_FREE_DEFENCE_DECLINED] += 1
        if L.code_op(c) == L.A_DONE:
            break
        # the decision counters: which kind of option, and a shield or
        # absorb played when the attack is already stopped (absorbed, or its
        # At no more than the Shield), which cannot lessen the damage
        is_card = L.code_op(c) == L.A_PLAY
        if is_card:
            o = TB.O_ITEM + (L.code_arg(c)) * TB.IK
            start, count = T[o + TB.IK_EFF], T[o + TB.IK_EFF_N]
            s[L.G_DEC + (L.DEC_ATTACK_CARDS if attacking else L.DEC_DEFEND_CARDS)] += 1
        else:
            o = ch + TB.C_AB + TB.AB * (L.code_arg(c))
            start, count = T[o + TB.AB_EFF], T[o + TB.AB_EFF_N]
            s[L.G_DEC + (L.DEC_ATTACK_ABILITIES if attacking else L.DEC_DEFEND_ABILITIES)] += 1
        if not attacking and (s[L.G_DUEL_ABSORB] >= 0 or s[L.G_DUEL_AT] <= s[L.G_DUEL_SHIELD]) and \
                only_shields(T, start, count):
            s[L.G_DEC + L.DEC_DEFEND_WASTED] += 1
        if is_card:
            items += 1
            kind = L.code_arg(c)
            o = TB.O_ITEM + kind * TB.IK
            s[b + L.S_MP] -= T[o + TB.IK_COST]
            remove_card(s, seat, kind)
            to_used(s, kind)
            log(s, ev, L.EVT_PLAY_ITEM, seat, kind, T[o + TB.IK_COST], s[b + L.S_MP], 0)
            combat_effects(s, T, ev, rng, legal, pp, seat, opp, T[o + TB.IK_EFF], T[o + TB.IK_EFF_N], np.bool_(attacking), np.bool_(True))
        else:
            k = L.code_arg(c)
            o = ch + TB.C_AB + TB.AB * k
            s[b + L.S_MP] -= T[o + TB.AB_COST]
            s[b + L.S_ABIL + k] += 1
            log(s, ev, L.EVT_PLAY_ITEM, seat, -1 - k, T[o + TB.AB_COST], s[b + L.S_MP], 0)
            combat_effects(s, T, ev, rng, legal, pp, seat, opp, T[o + TB.AB_EFF], T[o + TB.AB_EFF_N], np.bool_(attacking), np.bool_(False))


@kernel
def only_shields(T, start, count):
    """Whether an effect list does nothing for a defender but shield or
    absorb the attack (a Shield card, Vanish; not Prayer's Hp): bookkeeping
    for the ``defend_wasted`` counter."""
    for i in range(count):
        op = T[TB.O_EFF + (start + i) * L.EW + L.E_OP]
        if op != L.EK_SHIELD and op != L.EK_ABSORB and op != L.EK_ATTACK_BONUS and op != L.EK_DESTROY_ITEMS:
            return False
    return True


@inlined
def one_attack(s, T, ev, rng, legal, pp, att, dfn, at, cost):
    """One attack at ``at`` (already paid: ``cost``): attack cards, then the
    defence, then damage = At - Shield, never below 0, or absorbed
    (QM-DUEL-05..07, QM-RULING-04). The attack counts, and is logged, as
    soon as it is declared: before its cards, so the log's Mp reads in order
    (Mp rolled, the attack's cost, each card's cost), and the result row's
    ``attacks`` agrees with the log even when the game ends in the defence."""
    s[L.G_DUEL_AT] = at + (s[pb(att) + L.S_BONUS] if T[TB.P_ATTACK_BONUS_LASTS_COMBAT] else 0)
    s[L.G_DUEL_SHIELD] = s[pb(dfn) + L.S_CARRY_SHIELD] if T[TB.P_SHIELD_LASTS_COMBAT] else 0
    s[L.G_DUEL_ABSORB] = -1
    s[L.G_ATTACKS] += 1
    log(s, ev, L.EVT_ATTACK, att, dfn, s[L.G_DUEL_AT], cost, s[pb(att) + L.S_MP])
    card_window(s, T, ev, rng, legal, pp, att, dfn, np.bool_(True))
    if over(s) or not s[pb(dfn) + L.S_ALIVE] or not s[pb(att) + L.S_ALIVE]:
        return
    card_window(s, T, ev, rng, legal, pp, dfn, att, np.bool_(False))
    if over(s) or not s[pb(dfn) + L.S_ALIVE]:
        return
    a = s[L.G_DUEL_AT]
    if s[L.G_DUEL_ABSORB] >= 0:
        log(s, ev, L.EVT_ABSORB, dfn, a, s[L.G_DUEL_ABSORB], 0, 0)
        if s[L.G_DUEL_ABSORB] == L.GAIN_HP:
            gain_hp(s, T, ev, dfn, a)
        elif s[L.G_DUEL_ABSORB] == L.GAIN_MP:
            s[pb(dfn) + L.S_MP] += a
        return
    dmg = a - s[L.G_DUEL_SHIELD]
    if dmg < 0:
        dmg = 0
    log(s, ev, L.EVT_DAMAGE, dfn, a, s[L.G_DUEL_SHIELD], dmg, 0)
    s[pb(att) + L.S_DAMAGE] += dmg
    lose_hp(s, T, ev, dfn, np.int64(dmg))


@inlined
def count_target(s, T, legal, n, att, dfn):
    """Count a fight's target choice by what the target was among the
    ``n`` opponents on offer (``legal``): the castle leader, within 5 Hp of
    the Hp win, the lowest or highest Hp, within reach of the free attack's
    At. Only a real choice (two or more opponents) counts; this is
    bookkeeping, not a rule."""
    if n < 2:
        return
    s[L.G_DEC + L.DEC_TARGET_CHOICES] += 1
    db = pb(dfn)
    hp, cas = s[db + L.S_HP], castle_count(T, s[db + L.S_CASTLES])
    lowest, highest, leader = True, True, cas > 0
    for i in range(n):
        q = pb(L.code_arg(legal[i]))
        if s[q + L.S_HP] < hp:
            lowest = False
        if s[q + L.S_HP] > hp:
            highest = False
        if castle_count(T, s[q + L.S_CASTLES]) > cas:
            leader = False
    s[L.G_DEC + L.DEC_TARGET_LEADER] += leader
    s[L.G_DEC + L.DEC_TARGET_NEAR_HP_WIN] += hp > T[TB.P_WIN_HP_ABOVE] - 6
    s[L.G_DEC + L.DEC_TARGET_LOWEST_HP] += lowest
    s[L.G_DEC + L.DEC_TARGET_HIGHEST_HP] += highest
    s[L.G_DEC + L.DEC_TARGET_KILLABLE] += hp <= T[TB.O_CHAR + s[pb(att) + L.S_CHAR] * TB.CH + TB.C_AT]


@inlined
def duel(s, T, ev, rng, legal, pp, att):
    """A combat started by ``att``, who chooses any other living player
    (QM-DUEL-01, QM-GAP-25); see duel_with."""
    n = 0
    for p in range(s[L.G_NP]):
        if p != att and s[pb(p) + L.S_ALIVE]:
            legal[n] = L.code(L.A_TARGET, p)
            n += 1
    if n == 0 or not s[pb(att) + L.S_ALIVE]:
        return
    dfn = L.code_arg(ask(s, T, legal, n, rng, pp, att, L.CTX_TARGET, 0))
    count_target(s, T, legal, np.int64(n), att, dfn)
    duel_with(s, T, ev, rng, legal, pp, att, dfn)


@inlined
def start_duel(s, T, ev, rng, att, dfn):
    """A combat's start (QM-DUEL-01/02, QM-GAP-30): each side rolls its Mp
    (the attacker the red die, the defender the blue; a symbol counts
    ``mp_symbol_value``), and its combat-long marks are cleared."""
    s[L.G_DUELS] += 1
    s[L.G_DUEL_A] = att
    s[L.G_DUEL_D] = dfn
    fa, fd = 0, 0
    for p in (att, dfn):
        b = pb(p)
        f = roll(T, rng, L.DIE_RED if p == att else L.DIE_BLUE)
        if p == att:
            fa = f
        else:
            fd = f
        s[b + L.S_MP] = f if f > 0 else T[TB.P_MP_SYMBOL_VALUE]
        s[b + L.S_OUT] = 0
        s[b + L.S_BONUS] = 0
        s[b + L.S_CARRY_SHIELD] = 0
        s[b + L.S_DUELS] += 1
        for k in range(4):
            s[b + L.S_ABIL + k] = 0
    log(s, ev, L.EVT_FIGHT, att, dfn, s[pb(att) + L.S_MP], s[pb(dfn) + L.S_MP], 0)
    log(s, ev, L.EVT_DIE, att, L.DIE_RED, fa, s[pb(att) + L.S_MP], 0)     # the Mp dice as rolled
    log(s, ev, L.EVT_DIE, dfn, L.DIE_BLUE, fd, s[pb(dfn) + L.S_MP], 0)


@inlined
def end_duel(s, ev, att, dfn, why, attacks):
    """A combat's end, logged with why it ended (``L.END_*``) and its
    number of attacks; Mp exists only within a combat (QM-GAP-31)."""
    log(s, ev, L.EVT_DUEL_END, att, dfn, why, attacks, 0)
    for p in (att, dfn):
        s[pb(p) + L.S_MP] = 0
    s[L.G_DUEL_A] = -1
    s[L.G_DUEL_D] = -1


@inlined
def attack_options(T, legal, ch, mp, first):
    """The attacks a side with ``mp`` Mp can pay for (its character's block
    at ``ch``): ``(n, cost, at, cheapest)``. The free first attack is
    compulsory (QM-RULING-01, QM-GAP-34): n is 1 with its cost and At, and
    only a ruleset that gives it a cost can make it unaffordable. A paid
    attack is a choice: its n codes go into ``legal`` (cost and At 0 until
    chosen). ``cheapest`` is the cheapest attack's cost, for the log."""
    cost = 0
    at = 0
    n = 0
    cheapest = 1 << 20
    if first:
        cheapest = T[TB.P_FREE_ATTACK_COST]
        if mp >= cheapest:
            cost = cheapest
            at = T[ch + TB.C_AT]
            n = 1
    else:
        for k in range(T[ch + TB.C_NATT]):
            c_k = T[ch + TB.C_ATT + 2 * k]
            if c_k < cheapest:
                cheapest = c_k
            if c_k <= mp:
                legal[n] = L.code(L.A_ATTACK, k)
                n += 1
    return n, cost, at, cheapest


@kernel
def duel_with(s, T, ev, rng, legal, pp, att, dfn):
    """The combat of ``att`` against ``dfn`` (QM-DUEL-01..12): roll Mp
    (attacker red, defender blue; QM-GAP-30), the compulsory free first
    attack at At (QM-RULING-01), then the sides alternate paid attacks.

    When the side due to attack cannot pay for any attack, the combat ends
    for both (QM-DUEL-12, step 9: "when a player can no longer attack because
    they have no Mp left"); toggle ``lone_attacker_continues`` lets the other
    side keep attacking instead. A side that declines a paid attack makes no
    more attacks (QM-DUEL-11) and the other keeps attacking until it stops or
    cannot pay ("when both players have stopped attacking"); toggle
    ``attacker_continues_after_decline`` false ends the combat at the
    decline. Every stop and the end are logged (``decline``, ``cannot_pay``,
    ``duel_end``)."""
    start_duel(s, T, ev, rng, att, dfn)
    cur = att
    attacks = 0
    first = True
    why = L.END_BOTH_STOPPED
    while True:
        if not s[pb(att) + L.S_ALIVE] or not s[pb(dfn) + L.S_ALIVE]:
            why = L.END_ELIMINATED
            break
        if over(s):
            why = L.END_GAME_OVER
            break
        if T[TB.P_MAX_ATTACKS_PER_COMBAT] > 0 and attacks >= T[TB.P_MAX_ATTACKS_PER_COMBAT]:
            why = L.END_CAP
            break
        opp = dfn if cur == att else att
        b = pb(cur)
        if s[b + L.S_OUT]:
            # this side has stopped; the other attacks again (only reached
            # while the other has not stopped too)
            if s[pb(opp) + L.S_OUT]:
                why = L.END_BOTH_STOPPED
                break
            cur = opp
            continue
        ch = TB.O_CHAR + s[b + L.S_CHAR] * TB.CH
        mp = s[b + L.S_MP]
        n, cost, at, cheapest = attack_options(T, legal, ch, mp, first)
        if n == 0:
            # cannot pay: step 9 ends the combat for both sides
            log(s, ev, L.EVT_CANNOT_PAY, cur, mp, cheapest, 0, 0)
            first = False
            if not T[TB.P_LONE_ATTACKER_CONTINUES]:
                why = L.END_CANNOT_PAY
                break
            s[b + L.S_OUT] = 1
            if s[pb(opp) + L.S_OUT]:
                why = L.END_BOTH_STOPPED
                break
            cur = opp
            continue
        if not first:
            legal[n] = L.code(L.A_DECLINE, 0)
            n += 1
            c = ask(s, T, legal, n, rng, pp, cur, L.CTX_ATTACK, 0)
            if L.code_op(c) == L.A_DECLINE:
                s[L.G_DEC + L.DEC_DECLINE_ATTACK] += 1
                log(s, ev, L.EVT_DECLINE, cur, opp, mp, 0, 0)
                s[b + L.S_OUT] = 1
                if not T[TB.P_ATTACKER_CONTINUES_AFTER_DECLINE]:
                    why = L.END_DECLINED
                    break
                if s[pb(opp) + L.S_OUT]:
                    why = L.END_BOTH_STOPPED
                    break
                cur = opp
                continue
            k = L.code_arg(c)
            cost = T[ch + TB.C_ATT + 2 * k]
            at = T[ch + TB.C_ATT + 2 * k + 1]
            s[L.G_DEC + L.DEC_PAID_ATTACKS] += 1
        s[b + L.S_MP] -= cost
        first = False
        attacks += 1
        one_attack(s, T, ev, rng, legal, pp, cur, opp, at, cost)
        if not s[pb(opp) + L.S_OUT]:
            cur = opp
    end_duel(s, ev, att, dfn, why, attacks)
