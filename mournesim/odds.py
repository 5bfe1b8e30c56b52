"""Exact combat odds by enumerating every face combination of the dice rolled
(no simulation). Used by the heuristic policies and by the ``odds`` tooling;
tests check it against the engine's own dice."""
import numpy as np
from numba import njit

from . import tables as TB
from .core import score_roll


@njit(cache=True)
def p_win(T, levels, n, ability, bonus, target, blue, defending):
    """Probability that a hero with ``ability`` (+``bonus``) beats ``target``
    rolling dice ``levels[:n]`` once (no re-rolls), each face equally likely."""
    if n == 0:
        return 1.0 if ability + bonus >= target else 0.0
    idx = np.zeros(n, np.int64)
    faces = np.zeros(n, np.int32)
    total = 1
    for i in range(n):
        total *= T[TB.O_DICE_NF + (levels[i])]
    wins = 0
    for _ in range(total):
        for i in range(n):
            faces[i] = T[TB.O_DICE + (levels[i]) * 12 + (idx[i])]
        w, _v = score_roll(T, faces, n, ability, bonus, target, blue, defending)
        if w:
            wins += 1
        # odometer
        for i in range(n):
            idx[i] += 1
            if idx[i] < T[TB.O_DICE_NF + (levels[i])]:
                break
            idx[i] = 0
    return wins / total
