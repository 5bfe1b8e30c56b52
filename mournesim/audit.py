"""The blunder audit (numba): choices that are wrong on the rules and the exact
odds alone, counted by the rule kernels when a choice is carried out (never by
a policy, never on a policy's own scores) into the ``blunder_*`` counters of
the result row (layout.BLUNDERS; defined in docs/mournequest/results.md).

Each judgement is conservative: where the engine cannot see for certain that
a choice was wrong (a path that may be blocked, a reaction whose every
outcome it has not enumerated), it does not count it.
"""
import numpy as np

from simcore.jit import inlined, kernel, needs_nrt
from . import layout as L
from . import tables as TB
from .core import fumbled, hb, life_left, score_roll
from .layout import code_arg, code_op

# =============================================================================
# a reaction spent on a combat that can no longer be won
# =============================================================================


@needs_nrt
def combat_winnable(s, T, legal, k, faces, levels, n, rolled, ability, bonus, target, blue, defending):
    """Whether hero's combat roll ``faces[:n]`` (the first ``rolled`` rolled
    together) can still be won with what the reaction window ``legal[:k]``
    offers (MQ-COMBAT-11/12, MQ-CHARM-13, MQ-CARD-13, MQ-HERO-07).

    Every combat bonus on offer is added (a Skill as often as its tokens
    allow); a Talisman may change one die to any of its faces, a re-roll
    every die; each extra die may add any face of the next die up. The roll
    can be won if any such outcome wins (``any_outcome_wins``). An extra
    die's level is read from the dice left, so a roll with more than five
    dice in play counts as winnable (never judged)."""
    tal = s[L.G_TALISMANS]
    bonus, reroll_all, extra = help_on_offer(s, T, legal, k, bonus)
    changes = n if reroll_all else min(tal, n)
    ne, spare = extra_dice(s, T, levels, n, extra)
    if changes == 0 and ne == 0:
        # the common window: only bonuses on offer, so the roll as it stands
        # (nothing allocated: this runs at every reaction window)
        win, _v = score_roll(T, faces, n, ability, bonus, target, blue, defending)
        return win and not (n > rolled and fumbled(T, faces, rolled, defending))
    lv_extra = np.full(4, -1, np.int64)
    k2 = 0
    for lv in range(3, -1, -1):
        if (spare >> lv) & 1:
            lv_extra[k2] = lv
            k2 += 1
    m = n + ne
    if m > 5:
        return True
    return any_outcome_wins(T, faces, levels, n, rolled, lv_extra, m, changes, reroll_all, ability, bonus, target,
                            blue, defending)


@inlined
def help_on_offer(s, T, legal, k, bonus):
    """``combat_winnable``'s reading of the reaction window ``legal[:k]``: the
    roll's ``bonus`` with every combat bonus on offer added (a Skill as
    often as its tokens allow), whether a re-roll of every die is on offer,
    and how many extra dice."""
    reroll_all = False
    extra = 0
    for i in range(1, k):
        op = code_op(legal[i])
        arg = code_arg(legal[i])
        e = -1
        uses = 1
        if op == L.R_RELIC:
            e = T[TB.O_RELICS + arg * TB.RELIC_W + TB.RL_EFFECT]
        elif op == L.R_SKILL:
            e = T[TB.O_HERO_SKILL + (s[hb(arg) + L.H_ID])]
            uses = s[hb(arg) + L.H_SKILLS]
        if e < 0:
            continue
        kind = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_KIND]
        amt = T[TB.O_EFFECTS + e * L.EF_COLS + L.EF_AMOUNT]
        if kind == L.EK_COMBAT_BONUS:
            bonus += amt * uses
        elif kind == L.EK_REROLL:
            reroll_all = True
        elif kind == L.EK_EXTRA_DIE:
            extra += amt * uses
    return bonus, reroll_all, extra


@inlined
def extra_dice(s, T, levels, n, extra):
    """``combat_winnable``'s extra dice: up to ``extra`` of the unlocked levels
    not among ``levels[:n]``, highest first. Returns how many, and their
    levels as bits."""
    top = 3 if T[TB.P_EXTRA_DIE_ANY_LEVEL] == 1 else s[L.G_POOL] - 1
    ne = 0
    spare = 0   # the extra dice's levels, as bits
    for lv in range(top, -1, -1):
        if ne >= extra:
            break
        used = False
        for j in range(n):
            if levels[j] == lv:
                used = True
        if not used:
            spare |= 1 << lv
            ne += 1
    return ne, spare


@inlined
def any_outcome_wins(T, faces, levels, n, rolled, lv_extra, m, changes, reroll_all, ability, bonus, target, blue,
                     defending):
    """``combat_winnable``'s search: whether any outcome of changing at most
    ``changes`` of the dice ``faces[:n]`` and adding any of the extra dice
    of levels ``lv_extra`` (``m`` dice in all) wins."""
    # odometer over each die's choice: 0 keeps it (an extra die: not added),
    # j >= 1 gives it face j - 1
    idx = np.zeros(m, np.int64)
    nf = np.zeros(m, np.int64)
    lvl = np.zeros(m, np.int64)
    f2 = np.zeros(m, np.int32)
    for i in range(m):
        lvl[i] = levels[i] if i < n else lv_extra[i - n]
        nf[i] = T[TB.O_DICE_NF + lvl[i]]
    while True:
        changed = 0
        cnt = 0
        for i in range(n):
            if idx[i] == 0:
                f2[cnt] = faces[i]
            else:
                changed += 1
                f2[cnt] = T[TB.O_DICE + lvl[i] * TB.DIE_W + (idx[i] - 1)]
            cnt += 1
        added = 0
        for i in range(n, m):
            if idx[i] > 0:
                f2[cnt] = T[TB.O_DICE + lvl[i] * TB.DIE_W + (idx[i] - 1)]
                cnt += 1
                added += 1
        if changed <= changes:
            win, _v = score_roll(T, f2, cnt, ability, bonus, target, blue, defending)
            first = n if reroll_all and changed > 0 else rolled
            if win and not (cnt > first and fumbled(T, f2, first, defending)):
                return True
        i = 0
        while i < m:
            idx[i] += 1
            if idx[i] <= nf[i]:
                break
            idx[i] = 0
            i += 1
        if i == m:
            return False


# =============================================================================
# within a turn: undone moves, charms found and thrown away, idle actions
# =============================================================================


@kernel
def turn_begins(s, T, h):
    """Forget the last turn's moves and finds; note each damaged wall section
    hero ``h`` could reach and rebuild with its Granite this turn (MQ-FINAL-21),
    unless it is on its last life point."""
    s[L.G_AU_BACK] = -1
    s[L.G_AU_UNDO] = 0
    for t in range(4):
        s[L.G_AU_FOUND + t] = 0
    o = hb(h)
    if s[o + L.H_CH] < T[TB.P_GRANITE_FOR_REPAIR] or life_left(s, T, h) <= 1:
        # on its last life point a hero weighs the wall against its own
        # life (a hero's death loses the game too): a judgement, not a blunder
        return
    pos = s[o + L.H_POS]
    for d in range(4):
        if s[L.G_WALL + d] != 1:
            continue
        ks = T[TB.O_KEYSTONE + d]
        if T[TB.O_KIND + pos] == L.K_DISC:
            steps = T[TB.P_DISC_RETURN_COST] + T[TB.O_DIST_H + T[TB.O_KEYSTONE + T[TB.O_COMPASS + pos]] * TB.DIST_W + ks]
        else:
            steps = T[TB.O_DIST_H + pos * TB.DIST_W + ks]
        if steps + 1 <= s[L.G_ACTS]:
            s[L.G_AU_REPAIRABLE + h] |= 1 << d


@kernel
def wall_falls(s, d):
    """The Shimnavore destroys section ``d``: a blunder if a hero could have
    rebuilt it earlier this round and rebuilt no other section instead."""
    for h in range(4):
        if (s[L.G_AU_REPAIRABLE + h] >> d) & 1:
            s[L.CNT_BLUNDER_REPAIRS_MISSED] += 1   # noqa: F821 (layout makes it)
            return


@kernel
def wall_rebuilt(s, d, h):
    """Section ``d`` was rebuilt, by hero ``h``'s Granite (``h`` -1: by a
    card): nobody missed it, and a hero who spent its Granite on one section
    missed no other."""
    for g in range(4):
        s[L.G_AU_REPAIRABLE + g] &= ~(1 << d)
    if h >= 0:
        s[L.G_AU_REPAIRABLE + h] = 0


@kernel
def charm_found(s, h, t, n):
    """Hero ``h`` found ``n`` charms of type ``t`` by a Skill or Relic."""
    if h == s[L.G_CUR]:
        s[L.G_AU_FOUND + t] += n


@kernel
def charm_discarded(s, t):
    """The active hero discards a charm of type ``t`` (MQ-CHARM-05): a
    blunder if it was found by a Skill or Relic this turn."""
    if s[L.G_AU_FOUND + t] > 0:
        s[L.G_AU_FOUND + t] -= 1
        s[L.CNT_BLUNDER_FOUND_DISCARDED] += 1   # noqa: F821


@kernel
def move_made(s, T, frm, to, quiet, forced):
    """The active hero moved from ``frm`` to ``to``; ``quiet`` if nothing
    happened on arrival (no tunnel, no Pot), ``forced`` if the rules required
    the move (the first-turn arrow, MQ-MOVE-10). A move straight back to
    where an unforced, quiet move started undoes it, unless the return opens
    a Nexus draw the hero could not take before (MQ-CARD-03: a draw needs a
    move onto the Nexus); it is a blunder once the hero's next step is not a
    further move (a path through the space is not an undo)."""
    s[L.G_AU_UNDO] = 0
    if to == s[L.G_AU_BACK]:
        opens = T[TB.O_KIND + to] == L.K_NEXUS and s[L.G_NEXUS_USED] == 0 and s[L.G_EQ_N] > 0
        if not opens:
            s[L.G_AU_UNDO] = 1
    s[L.G_AU_BACK] = frm if quiet and not forced else -1


@kernel
def settle_undo(s):
    """The hero's step after a move straight back was not a move: count it."""
    if s[L.G_AU_UNDO] == 1:
        s[L.G_AU_UNDO] = 0
        s[L.CNT_BLUNDER_MOVES_UNDONE] += 1   # noqa: F821


@kernel
def other_action(s):
    """Any action but a move: a move back before it undid the move before."""
    settle_undo(s)
    s[L.G_AU_BACK] = -1


@kernel
def turn_ends(s, legal, n):
    """The active hero ends the turn with actions left while ``legal[:n]``
    holds a deposit of a needed Charm (other than Granite in the Final
    Battle, kept for repairs), a Granite repair or a heal (MQ-CHARM-07,
    MQ-FINAL-21, MQ-ACT-05): a blunder. A move straight back just before
    ending the turn undid the move before."""
    settle_undo(s)
    if s[L.G_ACTS] <= 0 or s[L.G_TURN_OVER] != 0:
        return
    for i in range(n):
        op = code_op(legal[i])
        if op == L.A_REPAIR or op == L.A_HEAL or (
                op == L.A_DEPOSIT and not (code_arg(legal[i]) == 0 and s[L.G_FINAL] != L.FB_NONE)):
            s[L.CNT_BLUNDER_IDLE_TURNS] += 1   # noqa: F821
            return
