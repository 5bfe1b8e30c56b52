"""Hp and the end of the game: Hp gained (the Hp win, QM-END-05) and lost
(a Phoenix revives, QM-RULING-02), elimination (QM-END-02), the last player
standing (QM-END-03) and declaring a winner.
"""
from simcore.jit import kernel
from . import layout as L
from . import tables as TB
from .core import log, over, pb, race_ok
from .hand import remove_card, to_used


@kernel
def declare_win(s, ev, seat, how):
    if not over(s):
        s[L.G_WINNER] = seat
        s[L.G_WIN] = how
        log(s, ev, L.EVT_WIN, seat, how, 0, 0, 0)


@kernel
def gain_hp(s, T, ev, seat, n):
    """Hp up; above ``win_hp_above`` the player wins at once (QM-END-05)."""
    b = pb(seat)
    s[b + L.S_HP] += n
    if s[b + L.S_HP] > s[b + L.S_MAX_HP]:
        s[b + L.S_MAX_HP] = s[b + L.S_HP]
    log(s, ev, L.EVT_HP, seat, n, s[b + L.S_HP], 0, 0)
    if s[b + L.S_HP] > T[TB.P_WIN_HP_ABOVE]:
        declare_win(s, ev, seat, L.WIN_HP)


@kernel
def eliminate(s, T, ev, seat):
    """Hp 0: out at once; pawn off the board, hand to the used pile, skipped
    in turn order (QM-END-02, QM-GAP-39/40); the last one left wins (QM-END-03)."""
    b = pb(seat)
    s[b + L.S_ALIVE] = 0
    s[b + L.S_HP] = 0
    s[b + L.S_POS] = -1
    s[b + L.S_ELIM_ROUND] = s[L.G_ROUND]
    for i in range(s[b + L.S_HAND_N]):
        to_used(s, s[b + L.S_HAND + i])
    s[b + L.S_HAND_N] = 0
    s[L.G_ELIMINATED] += 1
    log(s, ev, L.EVT_ELIMINATED, seat, 0, 0, 0, 0)
    if s[L.G_DEFER_END] == 0:
        check_standing(s, ev)


@kernel
def check_standing(s, ev):
    """The last player left wins (QM-END-03); if the last players fell
    together, nobody does (QM-GAP-43)."""
    alive, last = 0, -1
    for p in range(s[L.G_NP]):
        if s[pb(p) + L.S_ALIVE]:
            alive += 1
            last = p
    if alive == 1:
        declare_win(s, ev, last, L.WIN_LAST_STANDING)
    elif alive == 0:
        declare_win(s, ev, -1, L.WIN_NOBODY)


@kernel
def lose_hp(s, T, ev, seat, n):
    """Hp down, never below 0; at 0 a held Phoenix (a foot card used
    ``hp_zero``) revives at once with no damage carried (QM-RULING-02,
    QM-GAP-45); otherwise the player is out."""
    b = pb(seat)
    if not s[b + L.S_ALIVE] or n <= 0:
        return
    hp = s[b + L.S_HP] - n
    if hp > 0:
        s[b + L.S_HP] = hp
        log(s, ev, L.EVT_HP, seat, -n, hp, 0, 0)
        return
    # the killing blow is logged too: the Hp change down to 0 (never below)
    log(s, ev, L.EVT_HP, seat, -s[b + L.S_HP], 0, 0, 0)
    s[b + L.S_HP] = 0
    for i in range(s[b + L.S_HAND_N]):
        kind = s[b + L.S_HAND + i]
        o = TB.O_ITEM + kind * TB.IK
        if T[o + TB.IK_WHEN] != L.W_HP_ZERO:
            continue
        for j in range(T[o + TB.IK_EFF_N]):
            row = TB.O_EFF + (T[o + TB.IK_EFF] + j) * L.EW
            if T[row + L.E_OP] == L.EK_REVIVE and race_ok(T, row, s[b + L.S_RACE]):
                # always played: it can only help (the card says "may")
                remove_card(s, seat, kind)
                to_used(s, kind)
                s[b + L.S_HP] = T[row + L.E_N]
                log(s, ev, L.EVT_REVIVE, seat, kind, s[b + L.S_HP], 0, 0)
                return
    eliminate(s, T, ev, seat)
