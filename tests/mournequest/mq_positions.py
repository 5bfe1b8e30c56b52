"""Hand-built positions shared by the rule tests (on mq_game.Game)."""
from mournesim import layout as L, tables as TB

from .mq_game import Game, MEDIUM, POLICY_FIRST


def quiet_game(R=None, level=MEDIUM, players=4, heroes=None, park=None, **kw):
    """A fresh game with every first turn already played and the heroes
    parked on the given spaces (default: their Start Points)."""
    if heroes is None:
        heroes = (0, 1, 2, 3)
    g = Game(R=R, level=level, players=players, heroes=heroes, policy=POLICY_FIRST, **kw)
    g.first_done_all()
    if park:
        g.park_heroes(*park)
    return g


def far_spaces():
    """Four outer-path spaces far from the Wall, one per hero."""
    return ("path_n1", "path_e4", "path_s3", "path_w2")


def final_battle(g, cast_out=(0, 1, 2, 3)):
    """Put ``g`` in a running Final Battle: the Moon has done two cycles and
    the Nightmares of the listed discs are Cast-out (so none is in play)."""
    s = g.s
    for d in cast_out:
        g.cast_out_state(d)
    s[L.G_FINAL] = L.FB_RUNNING
    s[L.G_MOON_STEPS] = int(g.T[TB.P_N_MOON_TRACK]) * int(g.T[TB.P_MOON_CYCLES])  # two full cycles
    s[L.G_MOON] = 0
    s[L.G_TOKENS] = 0
    s[L.G_SHIM_FACING] = 0
    s[L.G_FB_ROUND] = 1
    return g
