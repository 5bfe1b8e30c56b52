"""Greedy's rules of thumb: where a hero heads and what each choice is worth.

The ``greedy`` policy (``policies.greedy``) plays the legal choice with the
best score here, ties drawn at random; the planner starts from the same scores
and goal and changes them (``plan``, ``plan_parts``). This module holds the
goal (``goal_space``), the scores of a turn action (``score_turn``) and of a
decision outside the turn (``score_other``, ``greedy_talisman``) and what they
read: a hero's exact chance against an enemy (``win_chance``), the charms the
team still needs (``team_need``, ``team_needs``), the danger of a space.
"""
from simcore.jit import inlined, kernel
from . import layout as L
from . import tables as TB
from .core import (ability_total, bog_level, charms_held, compass_tokens, db, disc_occupied, hb, life_left, moon_colour,
                   nb, xb)
from .layout import (attack_ability, attack_target, move_to_corner, move_to_hero, pass_hero, pass_slot,
                     relic_trade_count, sub_owner, sub_target, trade_give, trade_take)
from .odds import p_attack

INF = 1000000


@kernel
def win_chance(s, T, h, row, a):
    """Exact chance that hero ``h`` beats enemy row ``row`` attacking on ability ``a`` now."""
    mc = moon_colour(s, T)
    tgt = T[TB.O_ENEMY + row * TB.ENEMY_W + mc * TB.ABIL_W + a]
    return p_attack(T, s[L.G_POOL], tgt - ability_total(s, T, h, a), mc == L.BLUE)


@kernel
def team_need(s, T, t):
    """Charms of type ``t`` still wanted by discs that can be cast out, minus
    those the heroes already carry."""
    need = 0
    for d in range(4):
        if s[db(d) + L.D_STATE] == L.DS_ON:
            k = s[db(d) + L.D_NM]
            need += max(0, T[TB.O_NM_CHARMS + k * 4 + t] - s[db(d) + L.D_DEP + t])
    for g in range(s[L.G_NHEROES]):
        need -= s[hb(g) + L.H_CH + t]
    return need


@inlined
def team_needs(s, T):
    """``team_need`` of the four charm types at once, in one pass over the
    discs and heroes (the scoring of a turn reads it for many choices).
    Inlined, as ``danger_at``: a call passes the state and rules arrays field
    by field (both inlined: greedy 4% more games/s, the same games)."""
    n0 = 0
    n1 = 0
    n2 = 0
    n3 = 0
    for d in range(4):
        if s[db(d) + L.D_STATE] == L.DS_ON:
            want = TB.O_NM_CHARMS + s[db(d) + L.D_NM] * 4
            dep = db(d) + L.D_DEP
            n0 += max(0, T[want] - s[dep])
            n1 += max(0, T[want + 1] - s[dep + 1])
            n2 += max(0, T[want + 2] - s[dep + 2])
            n3 += max(0, T[want + 3] - s[dep + 3])
    for g in range(s[L.G_NHEROES]):
        o = hb(g) + L.H_CH
        n0 -= s[o]
        n1 -= s[o + 1]
        n2 -= s[o + 2]
        n3 -= s[o + 3]
    return (n0, n1, n2, n3)


@kernel
def nearest_of(T, pos, off):
    """The nearest (hero distance) of the four spaces listed at ``T[off:off+4]``."""
    best = T[off]
    for d in range(1, 4):
        sp = T[off + d]
        if T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + best]:
            best = sp
    return best


@kernel
def goal_space(s, T, h):
    """Where hero ``h`` wants to go now (a space index), or -1."""
    o = hb(h)
    pos = s[o + L.H_POS]
    if T[TB.O_KIND + pos] == L.K_DISC:
        return T[TB.O_KEYSTONE + (T[TB.O_COMPASS + pos])]
    # heal when one life point is left
    if life_left(s, T, h) <= 1:
        return nearest_of(T, pos, TB.O_START)
    if s[L.G_FINAL] != L.FB_NONE:
        # repair, then clear enemies, then attack the Shimnavore from a key stone
        if s[o + L.H_CH] >= T[TB.P_GRANITE_FOR_REPAIR]:
            for d in range(4):
                if s[L.G_WALL + d] == 1:
                    return T[TB.O_KEYSTONE + d]
        best = -1
        for k in range(4):
            sp = s[nb(k) + L.NM_POS]
            if sp >= 0 and (best < 0 or T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + best]):
                best = sp
        for c in range(4):
            sp = s[xb(c) + L.X_BOG_POS]
            if sp >= 0 and (best < 0 or T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + best]):
                best = sp
        if best >= 0:
            return best
        return nearest_of(T, pos, TB.O_KEYSTONE)
    # deliver charms a disc needs, most urgent disc first
    best = -1
    bc = INF
    for d in range(4):
        if s[db(d) + L.D_STATE] != L.DS_ON:
            continue
        k = s[db(d) + L.D_NM]
        useful = False
        for t in range(4):
            if s[o + L.H_CH + t] > 0 and T[TB.O_NM_CHARMS + k * 4 + t] - s[db(d) + L.D_DEP + t] > 0:
                useful = True
        if useful and s[db(d) + L.D_CLICKS] < bc:
            bc = s[db(d) + L.D_CLICKS]
            best = T[TB.O_KEYSTONE + d]
    if best >= 0 and (charms_held(s, h) >= T[TB.P_BACKPACK] or T[TB.O_DIST_H + pos * TB.DIST_W + best] <= 3):
        return best
    # fetch a charm the team still needs, nearest cache first
    if charms_held(s, h) < T[TB.P_BACKPACK]:
        cb = -1
        need = team_needs(s, T)
        for t in range(4):
            if need[t] > 0 and s[L.G_POOL_CHARMS + t] > 0:
                sp = T[TB.O_CACHE_OF + t]
                if cb < 0 or T[TB.O_DIST_H + pos * TB.DIST_W + sp] < T[TB.O_DIST_H + pos * TB.DIST_W + cb]:
                    cb = sp
        if cb >= 0:
            return cb
    if best >= 0:
        return best
    # otherwise gear up at the nearest nexus
    return nearest_of(T, pos, TB.O_NEXUS)


@inlined
def danger_at(s, T, h, sp, risk):
    """Penalty for stepping onto ``sp``: an enemy there the hero cannot beat
    (inlined: asked for every move scored, see ``team_needs``)."""
    pen = 0.0
    for k in range(4):
        if s[nb(k) + L.NM_POS] == sp:
            best = 0.0
            for a in range(3):
                if (s[nb(k) + L.NM_WOUNDS] >> a) & 1 == 0:
                    best = max(best, win_chance(s, T, h, L.ENEMY_NM + k, a))
            if best < risk:
                pen += 6.0
    for c in range(4):
        if s[xb(c) + L.X_BOG_POS] == sp:
            lv = bog_level(s, T, c)
            best = 0.0
            for a in range(3):
                best = max(best, win_chance(s, T, h, L.ENEMY_BOG + lv - 1, a))
            if best < risk:
                pen += 2.0
    return pen


# inlined into its two scoring loops: a call per scored choice, passing the
# state, rules and parameter arrays, cost about as much as the scoring
@inlined
def score_turn(s, T, h, op, arg, goal, pp, need, other_goal):
    """Score of turn action ``op``/``arg`` for hero ``h`` heading for ``goal``;
    ``need`` is ``team_needs`` now and ``other_goal`` the ``goal_space`` of the
    hero a move_to relic or skill would move (see ``moved_hero``). Attacks,
    moves and relics and skills are scored in their own parts (``score_attack``,
    ``score_move``, ``score_relic_skill``), inlined here."""
    o = hb(h)
    pos = s[o + L.H_POS]
    risk = pp[0] if pp.shape[0] > 0 else 0.55
    cw = pp[1] if pp.shape[0] > 1 else 1.0
    if op == L.A_END:
        # a compulsory first move (move off a shared space, the start arrow)
        # is made rather than giving up the turn
        return -50.0 if s[L.G_MUST_MOVE] != 0 else 0.0
    if op == L.A_DRAW_EQ:
        return 5.0
    if op == L.A_SURPLUS:
        c = s[L.G_SURPLUS + s[L.G_SURPLUS_N] - 1]
        cur = s[o + L.H_EQ + T[TB.O_CARDS + c * TB.CARD_W + TB.CD_ABILITY]]
        gain = T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] - (T[TB.O_CARDS + cur * TB.CARD_W + TB.CD_VALUE] if cur >= 0 else 0)
        return 1.0 + gain if gain > 0 else -1.0
    if op == L.A_PICKUP:
        nt = need[T[TB.O_CHARM + pos]]
        if nt <= 0:
            return -1.0
        return cw * (6.0 + min(arg, nt) - 0.5 * max(0, arg - nt))
    if op == L.A_DEPOSIT:
        return 10.0 * cw
    if op == L.A_HEAL:
        return 12.0 if life_left(s, T, h) <= 1 else 4.0
    if op == L.A_REPAIR:
        return 15.0
    if op == L.A_ATTACK:
        return score_attack(s, T, h, arg, risk)
    if op == L.A_MOVE:
        return score_move(s, T, h, pos, arg, goal, risk)
    if op == L.A_TRADE:
        a = trade_give(arg)
        b = trade_take(arg)
        if need[a] < 0 and need[b] > 0:
            return 3.0
        return -1.0
    if op == L.A_TRADE_RELIC:
        for t in range(4):
            if relic_trade_count(arg, t) > 0 and need[t] >= 0:
                return -1.0
        return 2.0
    if op == L.A_PASS:
        # worth an action when the receiver gains more than the giver loses
        a = pass_slot(arg)
        g = pass_hero(arg)
        c = s[o + L.H_EQ + a]
        cur = s[hb(g) + L.H_EQ + a]
        gain = T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] - (T[TB.O_CARDS + cur * TB.CARD_W + TB.CD_VALUE] if cur >= 0 else 0)
        return 0.5 * (gain - T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE]) + 0.5 if gain > T[TB.O_CARDS + c * TB.CARD_W + TB.CD_VALUE] else -1.0
    if op == L.A_DISCARD_CHARM:
        if need[arg] < 0 and charms_held(s, h) >= T[TB.P_BACKPACK]:
            return 0.5
        return -1.0
    if op == L.A_RELIC or op == L.A_SKILL:
        return score_relic_skill(s, T, h, op, arg, goal, need, other_goal)
    return -1.0


@inlined
def score_attack(s, T, h, arg, risk):
    """``score_turn``'s score of hero ``h``'s attack ``arg``: worth its exact
    chance of winning when that is at least ``risk`` (never on the last
    life point against a Nightmare, or a Bogbean that would take it); the
    Shimnavore always."""
    tgt = attack_target(arg)
    a = attack_ability(arg)
    if tgt < L.TGT_BOGBEAN:
        p = win_chance(s, T, h, L.ENEMY_NM + tgt, a)
        if life_left(s, T, h) <= 1:
            return -5.0
        return 9.0 * p - 6.0 * (1 - p) if p >= risk else -1.0
    if tgt < L.TGT_SHIM:
        c = tgt - L.TGT_BOGBEAN
        p = win_chance(s, T, h, L.ENEMY_BOG + bog_level(s, T, c) - 1, a)
        if charms_held(s, h) == 0 and cards_or_none(s, T, h) and life_left(s, T, h) <= 1:
            return -5.0
        return 5.0 * p - 3.0 * (1 - p) if p >= risk else -1.0
    p = win_chance(s, T, h, L.ENEMY_SHIM, a)
    return 3.0 + 10.0 * p


@inlined
def score_move(s, T, h, pos, arg, goal, risk):
    """``score_turn``'s score of hero ``h``'s move from ``pos`` to ``arg``: the
    steps it gains towards ``goal`` (a step off and back onto a Nexus to
    draw there), a Nexus on the way, less the danger of the space
    (``danger_at``)."""
    if goal < 0:
        return -0.5
    if (goal == pos and T[TB.O_KIND + pos] == L.K_NEXUS and s[L.G_ARRIVED] != pos and s[L.G_ACTS] >= 2
            and s[L.G_NEXUS_USED] == 0 and s[L.G_EQ_N] > 0 and T[TB.P_NEXUS_DRAW_WHEN_STANDING] == 0):
        # a Nexus gives Equipment to a hero who moves on to it (MQ-GAP-60):
        # step off, to step back on
        v = 0.5
    else:
        d0 = T[TB.O_DIST_H + pos * TB.DIST_W + goal]
        d1 = T[TB.O_DIST_H + arg * TB.DIST_W + goal]
        if T[TB.O_KIND + pos] == L.K_DISC:
            d0 = 3
            d1 = 0 if arg == goal else 2
        v = 1.0 + 2.0 * (d0 - d1)
        if T[TB.O_KIND + arg] == L.K_NEXUS and s[L.G_NEXUS_USED] == 0 and s[L.G_EQ_N] > 0:
            v += 1.5
    # one call site: danger_at is inlined
    return v - danger_at(s, T, h, arg, risk)


@inlined
def score_relic_skill(s, T, h, op, arg, goal, need, other_goal):
    """``score_turn``'s score of a relic or skill action (``op``) with
    argument ``arg``, by its effect's kind and target; ``other_goal`` is the
    goal of the hero a move_to would move when that is not ``h``."""
    if op == L.A_RELIC:
        e = T[TB.O_RELICS + sub_owner(arg) * TB.RELIC_W + TB.RL_EFFECT]
    else:
        e = T[TB.O_HERO_SKILL + (s[hb(sub_owner(arg)) + L.H_ID])]
    param = sub_target(arg)
    kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
    if kind == L.EK_HEAL:
        return 9.0 if life_left(s, T, param) <= 1 else -5.0
    if kind == L.EK_REPAIR_WALL:
        return 14.0
    if kind == L.EK_ROTATE_DISC:
        if T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT] < 0 and s[db(param) + L.D_CLICKS] <= 3:
            return 7.0
        return -5.0
    if kind == L.EK_EXTRA_ACTION:
        return 4.0 if s[L.G_ACTS] == 0 and s[L.G_TURN_OVER] == 0 else -5.0
    if kind == L.EK_GAIN_CHARM:
        return 5.0 if need[param] > 0 else -5.0
    if kind == L.EK_MOVE_TO:
        g = move_to_hero(param)
        gg = goal if g == h else other_goal
        if gg < 0:
            return -5.0
        gp = s[hb(g) + L.H_POS]
        sp = T[TB.O_CROSSROADS + move_to_corner(param)]
        return 4.0 if T[TB.O_DIST_H + gp * TB.DIST_W + gg] - T[TB.O_DIST_H + sp * TB.DIST_W + gg] >= 3 else -5.0
    return -5.0


@kernel
def cards_or_none(s, T, h):
    for a in range(3):
        if s[hb(h) + L.H_EQ + a] >= 0:
            return False
    for r in range(T[TB.P_N_RELICS]):
        if s[L.G_RELIC_OWNER + r] == h:
            return False
    return True


@kernel
def score_other(s, T, h, op, arg):
    """Scores for decisions outside the turn: reactions, cards, theft."""
    ctx = s[L.G_CTX]
    if op == L.R_ACCEPT:
        return 0.0
    if op == L.R_TALISMAN:
        if ctx == L.CTX_WALL:
            return 1.0
        if ctx == L.CTX_COMPASS:
            f = s[L.G_CTX_ARG]
            if s[L.G_FINAL] == L.FB_RUNNING:
                # worth it only against an unguarded, already damaged section
                if f < 4 and s[L.G_WALL + f] == 1:
                    ks = T[TB.O_KEYSTONE + f]
                    guarded = False
                    for g in range(s[L.G_NHEROES]):
                        if s[hb(g) + L.H_POS] == ks:
                            guarded = True
                    for k in range(4):
                        if s[nb(k) + L.NM_POS] == ks:
                            guarded = True
                    return -1.0 if guarded else 1.0
                return -1.0
            if f == L.FACE_STAR:
                return 1.0 if s[L.G_TOKENS] == compass_tokens(s, T) - 1 else -1.0
            if f < 4:
                for i in range(4):
                    d = (f + i) % 4
                    if disc_occupied(s, d):
                        return 1.0 if s[db(d) + L.D_STATE] == L.DS_ON and s[db(d) + L.D_CLICKS] <= 1 else -1.0
            return -1.0
        row = s[L.G_CTX_ARG]
        if row >= L.ENEMY_NM or life_left(s, T, h) <= 1:
            # re-roll the worst die: a Fail first, then the lowest number
            f = s[L.G_CTX_FACES + arg]
            if f == L.FACE_FAIL:
                return 1.9
            if f == L.FACE_DOUBLE or f == L.FACE_DANDELION:
                return 0.5
            return 1.0 + (6 - f) * 0.1
        return -1.0
    if op == L.R_RELIC or op == L.R_SKILL:
        row = s[L.G_CTX_ARG]
        if row >= L.ENEMY_NM or life_left(s, T, h) <= 1:
            return 2.0
        return -1.0
    if op == L.A_EQUIP:
        return 1.0
    if op == L.A_DISCARD_CARD:
        return 0.0
    if op == L.A_LOSE_CHARM:
        return -float(team_need(s, T, arg))
    if op == L.A_LOSE_CARD:
        if arg < 3:
            return -float(T[TB.O_CARDS + (s[hb(h) + L.H_EQ + arg]) * TB.CARD_W + TB.CD_VALUE])
        return -2.5
    if op == L.A_SOLO_PICK:
        return float(T[TB.O_HERO_ABIL + (s[hb(h) + L.H_ID]) * TB.ABIL_W + arg])
    if op == L.A_REWARD_EQUIPMENT:
        return 1.0
    if op == L.A_REWARD_DECLINED:
        return 0.0
    return 0.5


@kernel
def greedy_talisman(s, T, v):
    """Greedy's Talismans (its parameter ``talisman``, behaviour v3): none on a
    Compass Die before the Final Battle, and on the wall die only where a
    hit would destroy the wall (or with three or more left), so they are
    there when the wall needs them; ``v`` (score_other's) otherwise."""
    ctx = s[L.G_CTX]
    if ctx == L.CTX_COMPASS and s[L.G_FINAL] != L.FB_RUNNING:
        return -1.0
    if ctx == L.CTX_WALL:
        return 1.0 if s[L.G_WALL + s[L.G_SHIM_FACING]] == 1 or s[L.G_TALISMANS] >= 3 else -1.0
    return v
