"""MourneQuest fixtures: a fresh game and the shipped rules (positions are
built with ``mq_game.py`` and ``mq_positions.py``), and the faulty plug-in
the plug-in tests play."""
from __future__ import annotations

import pytest

from .mq_game import Game, get_rules


@pytest.fixture(scope="session")
def R():
    return get_rules()


@pytest.fixture
def g():
    """A fresh 4-player Medium game (Jack, Cobs, Iur, Beith), scripted policy."""
    return Game()


# ---- a plug-in for the plug-in tests -----------------------------------------

FAULTY_PLUGIN = '''"""A test plug-in: greedy, or a fault on request (parameter `fault`):
1 returns an illegal choice, 2 raises inside the policy, 3 never returns."""
from numba import njit

from mournesim.plugins import register_policy
from mournesim.policies import greedy


@njit(cache=True)
def greedy_copy(s, T, legal, n, rng, pp, h):
    fault = pp[4]
    if fault == 1.0:
        return legal[0] + 1000000
    if fault == 2.0:
        raise ValueError("the policy broke on purpose")
    if fault == 3.0:
        k = 1
        while k != 0:          # Park-Miller never reaches 0: an endless loop
            k = (k * 16807) % 2147483647
        return legal[k]
    return greedy(s, T, legal, n, rng, pp, h)


register_policy("greedy_copy", greedy_copy, params={"risk": 0.55, "charm_weight": 1.0, "talisman": 1.0,
                                                   "blunders": 1.0, "fault": 0.0},
                ranges={"fault": (0.0, 3.0)})
'''


@pytest.fixture(scope="session")
def faulty_plugin(plugin_cache):
    """The path of FAULTY_PLUGIN: one module (so one compile per session)
    for every test of a plug-in that plays, misplays or breaks. Written
    atomically: the xdist workers write the same file side by side."""
    import os
    f = plugin_cache / "faulty_greedy.py"
    tmp = plugin_cache / f"faulty_greedy.{os.getpid()}.tmp"
    tmp.write_text(FAULTY_PLUGIN)
    os.replace(tmp, f)
    return f
