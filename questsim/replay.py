"""Replay one Quest Master game with its event log, as readable text or JSON
lines (schema in docs/replay.md, section Quest Master). Game ``i`` of seed
``S`` is the same game as row ``i`` of a batch run with the same options."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from simcore.plugins import policy_guard

from . import layout as L
from .sim import Config, Rules, illegal, prepare

FIELDS = {   # names of the event columns a, b, c, d, by event
    "setup": ("players",), "start_roll": ("total",), "turn": ("hp", "square"), "roll": ("red", "blue"),
    "choice": ("action", "arg"), "move": ("steps", "square"), "warp": ("from", "to"),
    "land": ("square", "kind", "by_card"), "castle": ("castle", "home_race"), "draw_item": ("item",),
    "discard": ("item",), "play_item": ("item", "cost", "mp_left"), "event": ("card",), "die": ("die", "face"),
    "hp": ("change", "hp"), "fight": ("defender", "mp_attacker", "mp_defender"), "attack": ("defender", "at", "mp_left"),
    "damage": ("at", "shield", "damage"), "absorb": ("at", "gain"), "eliminated": (), "revive": ("item", "hp"),
    "win": ("condition",), "reshuffle": ("deck", "cards"), "go_home": ("square",),
}
KINDS = ("castle", "event", "item", "sword", "warp", "plain")


@dataclass
class Replay:
    """One game's events and final state."""
    seed: int
    game: int
    config: Config
    rules: Rules
    events: np.ndarray
    final_state: np.ndarray

    def records(self):
        """The log as dicts: i, round, event, seat, and the event's fields."""
        names = self.rules.names
        out = []
        for i, row in enumerate(self.events):
            name = L.EVENT_NAMES[row[0]]
            r = {"i": i, "round": int(row[1]), "event": name, "seat": int(row[2])}
            for k, f in enumerate(FIELDS.get(name, ())):
                r[f] = int(row[3 + k])
            if name in ("draw_item", "discard") or (name == "play_item" and r["item"] >= 0):
                r["item_name"] = names.items[r["item"]]
            elif name == "play_item":
                r["ability"] = -1 - r.pop("item")
            if name == "event":
                r["card_name"] = names.events[r["card"]]
            if name == "castle":
                r["castle_name"] = names.castles[r["castle"]]
            if name == "land":
                r["kind"] = KINDS[r["kind"]]
            if name == "win":
                r["condition"] = L.WIN_NAMES[r["condition"]]
            if name == "choice":
                r["action"] = L.ACTION_NAMES[r["action"]]
            if name == "die" or name == "roll":
                for f in ("face", "red", "blue"):
                    if f in r and r[f] < 0:
                        r[f] = L.SYMBOL_NAMES[-r[f]]
            out.append(r)
        return out

    def to_jsonl(self):
        return "\n".join(json.dumps(r, separators=(",", ":")) for r in self.records()) + "\n"

    def to_text(self):
        chars = self.rules.names.characters
        s = self.final_state
        seats = [f"seat {p}: {chars[s[L.G_P + p * L.PS + L.P_CHAR]]}" for p in range(s[L.G_NP])]
        lines = [f"Quest Master replay  seed={self.seed} game={self.game}  " + ", ".join(seats)]
        for r in self.records():
            detail = " ".join(f"{k}={v}" for k, v in r.items() if k not in ("i", "round", "event", "seat"))
            who = f"seat {r['seat']}" if r["seat"] >= 0 else "game"
            lines.append(f"r{r['round']:>3}  {who:<7} {r['event']:<11} {detail}")
        w = s[L.G_WINNER]
        lines.append(f"result: {L.WIN_NAMES[s[L.G_WIN]]}" + (f", seat {w} ({chars[s[L.G_P + w * L.PS + L.P_CHAR]]}) wins"
                                                             if w >= 0 else ""))
        return "\n".join(lines) + "\n"


def replay(seed=1, game=0, players=4, characters=(), policies=("greedy",), params=(), ruleset=None,
           overrides=(), rules: Rules | None = None, max_events=200_000) -> Replay:
    """Replay game ``game`` of ``seed`` with its full event log."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(players, tuple(characters), tuple(policies), tuple(params))
    chars, pids, pp, engine = cfg.resolved(rules)
    ev = np.zeros((max_events, L.EV_COLS), np.int32)
    final = np.zeros(L.STATE_SIZE, np.int32)
    with policy_guard("+".join(cfg.policies)):
        n = engine.play_logged(np.uint64(seed), game, players, chars, pids, pp, rules.T, ev, final)
    if final[L.G_ILLEGAL] > 0:      # refused as in a batch run, never shown as if legal
        raise illegal(cfg.policies, int(final[L.G_ILLEGAL]), 1)
    return Replay(seed, game, cfg, rules, ev[:n].copy(), final)
