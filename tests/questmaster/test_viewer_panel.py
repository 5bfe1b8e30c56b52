"""The replay viewer's panel shows the position after the current step
(questsim.viewer.advance): fed only the events of a turn, the values it
follows reach the next turn's snapshot (the engine's own state) exactly.
"""
from __future__ import annotations

import copy

import pytest

from questsim import sim, viewer
from questsim.replay import replay

RULES = sim.prepare()


def _tracked(sn):
    """All a snapshot holds but whose turn it is (the next turn's own)."""
    return {k: v for k, v in sn.items() if k not in ("round", "turn_of")}


@pytest.mark.parametrize("players,policies", [(4, ("greedy",)), (2, ("planner",)), (6, ("random",)),
                                              (3, ("planner", "greedy", "random"))])
def test_events_carry_the_panel_from_one_turn_snapshot_to_the_next(players, policies):
    checked = 0
    for game in range(5):
        rp = replay(seed=23, game=game, players=players, policies=policies, rules=RULES)
        sn = None
        for r in rp.records():
            if r["event"] == "turn" and r["snapshot"]:
                if sn is not None:
                    assert _tracked(sn) == _tracked(r["snapshot"]), (game, r["i"])
                    checked += 1
                sn = copy.deepcopy(r["snapshot"])
            elif sn is not None:
                viewer.advance(sn, r, RULES.names)
    assert checked > 50
