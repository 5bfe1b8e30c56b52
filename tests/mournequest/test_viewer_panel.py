"""The replay viewer's panel shows the position after the current step
(mournesim.viewer.advance): fed only the events of a turn, the values it
follows reach the next turn's snapshot (the engine's own state) exactly.
"""
from __future__ import annotations

import copy

import pytest

from mournesim import sim, viewer
from mournesim.events import decode_events
from mournesim.replay import replay

RULES = sim.prepare()


def _tracked(sn):
    return ({k: sn[k] for k in viewer.TRACKED},
            [{k: h[k] for k in ("hero", *viewer.HERO_TRACKED)} for h in sn["heroes"]],
            [{k: d[k] for k in ("disc", *viewer.DISC_TRACKED)} for d in sn["discs"]])


@pytest.mark.parametrize("level,players,policy", [("easy", 4, "greedy"), ("hard", 1, "planner"),
                                                  ("medium", 2, "random"), ("easy", 3, "planner")])
def test_events_carry_the_panel_from_one_turn_snapshot_to_the_next(level, players, policy):
    cycles = RULES.ruleset.rules.moon_cycles
    checked = 0
    for game in range(6):
        rp = replay(seed=23, game=game, level=level, players=players, policy=policy, rules=RULES)
        sn = None
        for r in decode_events(rp):
            if r["event"] == "turn_start":
                if sn is not None:
                    assert _tracked(sn) == _tracked(r["snapshot"]), (game, r["i"])
                    checked += 1
                sn = copy.deepcopy(r["snapshot"])
            elif sn is not None:
                viewer.advance(sn, r, cycles)
    assert checked > 50
