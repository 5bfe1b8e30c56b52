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
from simcore.errors import InputError
from simcore.warmup import compile_cold
from simcore.witness import Recorder, Script, kind_of
from . import layout as L, plugins
from .events import decode_events
from .decision import ARG_SPEC
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
    # with a script (simcore.witness): every decision, and the one the game
    # paused at for the person's seat (-1: played to the end)
    script: Script | None = None
    decisions: list = field(default_factory=list)
    paused: int = -1

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
           ruleset=None, overrides=(), rules: Rules | None = None, max_events=200_000,
           script: Script | None = None) -> Replay:
    """Replay game ``game`` of ``seed`` with its full event log. The game is
    identical to row ``game`` of a batch run with the same configuration.
    With a ``script`` (simcore.witness) every decision is recorded, the
    script's choices are played, and a game whose person's hero (the
    script's ``seat``) is to choose is shown up to that decision."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(level=level, players=players, heroes=tuple(heroes), policy=policy, params=tuple(params))
    # checked, then a cold engine compiled (and the policy's entry point meanwhile)
    compile_cold(GAME, cfg.resolved(rules, entry=False)[-1].play_logged,
                 during=lambda: plugins.compile_entries([policy]))
    lv, hero_ids, pid, pp, engine = cfg.resolved(rules)
    ev = np.zeros((max_events, L.EV_COLS), np.int32)
    snaps = np.zeros((max_events // 20, L.STATE_SIZE), np.int32)
    final = np.zeros(L.STATE_SIZE, np.int32)
    rec = None
    if script is not None:
        if not -1 <= script.seat < (2 if players == 1 else players):
            raise InputError(f"seat {script.seat}: the address counts heroes from 0, and this game has "
                             f"{2 if players == 1 else players}")
        rec = Recorder(script, [kind_of(pid)] * 4, L.STATE_SIZE, L.G_LOGN, ARG_SPEC)
        asked, pp = rec.policy_id(pid), rec.row(pp)
    else:
        asked = pid
    with policy_guard(policy):
        ne, ns = engine.play_logged(np.uint64(seed), game, lv, players, hero_ids, asked, pp, rules.T, ev, snaps,
                                    final)
    refuse_bad_choices(final[L.G_ILLEGAL], policy)      # refused as in a batch run, never shown as if legal
    rp = Replay(seed, game, cfg, rules, ev[:ne].copy(), snaps[:ns].copy(), final)
    if rec is not None:
        rec.finish(rp, {L.G_POLICY: pid}, L.G_SNAPN)
    return rp
