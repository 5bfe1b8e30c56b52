"""Replay one game with its event log (:func:`replay`, :class:`Replay`):
the same game as the row of a batch run, with every event and a snapshot of
the position at each hero's turn.

The log decoded into JSON-ready records is ``mournesim/events.py``; the
readable text ``mournesim/replay_text.py``; the board page ``viewer.py``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from simcore.fnptr import refuse_bad_choices
from simcore.plugins import policy_guard
from simcore.warmup import compile_cold
from . import layout as L, plugins
from .events import decode_events
from .gamedef import GAME
from .replay_text import render_text
from .sim import Config, Rules, prepare


@dataclass
class Replay:
    """One game's event log (see docs/mournequest/replay.md)."""
    seed: int
    game: int
    config: Config
    rules: Rules
    events: np.ndarray
    snapshots: np.ndarray
    final_state: np.ndarray
    meta: dict = field(default_factory=dict)

    def records(self):
        """The log as a list of dicts (one per event), JSON-ready."""
        return decode_events(self)

    def to_jsonl(self):
        return "\n".join(json.dumps(r, separators=(",", ":")) for r in self.records()) + "\n"

    def to_text(self):
        return render_text(self)

    @property
    def outcome(self):
        return L.OUTCOME_NAMES[self.final_state[L.G_OUTCOME]]


def replay(seed=1, game=0, level="medium", players=4, heroes=(), policy="greedy", params=(),
           ruleset=None, overrides=(), rules: Rules | None = None, max_events=200_000) -> Replay:
    """Replay game ``game`` of ``seed`` with its full event log. The game is
    identical to row ``game`` of a batch run with the same configuration."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(level=level, players=players, heroes=tuple(heroes), policy=policy, params=tuple(params))
    # checked, then a cold engine compiled (and the policy's entry point meanwhile)
    compile_cold(GAME, cfg.resolved(rules, entry=False)[-1].play_logged,
                 during=lambda: plugins.compile_entries([policy]))
    lv, hero_ids, pid, pp, engine = cfg.resolved(rules)
    ev = np.zeros((max_events, L.EV_COLS), np.int32)
    snaps = np.zeros((max_events // 20, L.STATE_SIZE), np.int32)
    final = np.zeros(L.STATE_SIZE, np.int32)
    with policy_guard(policy):
        ne, ns = engine.play_logged(np.uint64(seed), game, lv, players, hero_ids, pid, pp, rules.T, ev, snaps,
                                    final)
    refuse_bad_choices(final[L.G_ILLEGAL], policy)      # refused as in a batch run, never shown as if legal
    return Replay(seed, game, cfg, rules, ev[:ne].copy(), snaps[:ns].copy(), final)
