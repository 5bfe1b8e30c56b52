"""Replay one Quest Master game with its event log, as readable text or JSON
lines (schema in docs/replay.md, section Quest Master). Game ``i`` of seed
``S`` is the same game as row ``i`` of a batch run with the same options.

Every turn record carries a snapshot of the position at the start of that
turn (each player's Hp, Mp, square, castles landed on and hand, and the
decks), decoded from a copy of the engine state the logged run keeps."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from simcore.plugins import policy_guard

from . import layout as L
from .sim import Config, Rules, illegal, prepare

FIELDS = {   # names of the event columns a, b, c, d, by event
    "setup": ("players",), "start_roll": ("total", "red", "blue"), "turn": ("hp", "square", "snapshot"),
    "roll": ("red", "blue"), "choice": ("action", "arg"), "move": ("steps", "square"), "warp": ("from", "to"),
    "no_warp": ("square",), "land": ("square", "kind", "by_card"), "castle": ("castle", "home_race"),
    "draw_item": ("item",), "discard": ("item",), "play_item": ("item", "cost", "mp_left"), "event": ("card",),
    "die": ("die", "face", "value"), "hp": ("change", "hp"), "fight": ("defender", "mp_attacker", "mp_defender"),
    "attack": ("defender", "at", "cost", "mp_left"), "damage": ("at", "shield", "damage"), "absorb": ("at", "gain"),
    "eliminated": (), "revive": ("item", "hp"), "win": ("condition",), "reshuffle": ("deck", "cards"),
    "go_home": ("square",), "decline": ("opponent", "mp_left"), "cannot_pay": ("mp", "cost"),
    "duel_end": ("defender", "reason", "attacks"), "extra_move": ("added", "steps"),
    "decline_square": ("square", "kind"),
}
KINDS = ("castle", "event", "item", "sword", "warp", "plain")
DICE = ("red", "blue")


def _face(f):
    """A die face as rolled: its number, or the symbol's name."""
    return int(f) if f > 0 else L.SYMBOL_NAMES[-int(f)]


def snapshot_dict(s, names, turn_seat):
    """The position in state ``s`` (a copy taken at the start of a turn):
    round, whose turn, the decks, and per seat its character, race, Hp, Mp
    (0 outside a combat: Mp is rolled per combat and lost at its end,
    QM-GAP-31), square, whether still in the game, castles landed on (names,
    in ruleset order) and hand (Item card names)."""
    players = []
    for p in range(int(s[L.G_NP])):
        b = L.G_P + p * L.PS
        hand = [names.items[int(k)] for k in s[b + L.P_HAND: b + L.P_HAND + int(s[b + L.P_HAND_N])]]
        castles = [c for i, c in enumerate(names.castles) if (int(s[b + L.P_CASTLES]) >> i) & 1]
        players.append({"seat": p, "character": names.characters[int(s[b + L.P_CHAR])],
                        "race": names.races[int(s[b + L.P_RACE])], "hp": int(s[b + L.P_HP]),
                        "mp": int(s[b + L.P_MP]), "square": int(s[b + L.P_POS]), "alive": bool(s[b + L.P_ALIVE]),
                        "castles": castles, "hand": sorted(hand)})
    return {"round": int(s[L.G_ROUND]), "turn_of": int(turn_seat), "item_deck": int(s[L.G_ITEM_N]),
            "item_used": int(s[L.G_ITEM_USED_N]), "event_deck": int(s[L.G_EVENT_N]),
            "event_used": int(s[L.G_EVENT_USED_N]), "players": players}


@dataclass
class Replay:
    """One game's events, the turn snapshots and the final state."""
    seed: int
    game: int
    config: Config
    rules: Rules
    events: np.ndarray
    final_state: np.ndarray
    snapshots: np.ndarray | None = None

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
                ch = self._character(r["seat"])
                r["ability_name"] = list(self.rules.ruleset.characters[ch].abilities)[r["ability"]]
            if name == "revive":
                r["item_name"] = names.items[r["item"]]
            if name == "event":
                r["card_name"] = names.events[r["card"]]
            if name == "castle":
                r["castle_name"] = names.castles[r["castle"]]
            if name in ("land", "decline_square"):
                r["kind"] = KINDS[r["kind"]]
            if name == "win":
                r["condition"] = L.WIN_NAMES[r["condition"]]
            if name == "choice":
                r["action"] = L.ACTION_NAMES[r["action"]]
            if name == "die":
                r["die"] = DICE[r["die"]]
                r["face"] = _face(r["face"])
            if name == "roll":
                r["red"], r["blue"] = _face(r["red"]), _face(r["blue"])
            if name == "start_roll":
                r["red"] = _face(r["red"])
                r["blue"] = _face(r["blue"]) if r["blue"] != 0 else None
            if name == "absorb":
                r["gain"] = L.GAIN_NAMES[r["gain"]]
            if name == "reshuffle":
                r["deck"] = L.DECK_NAMES[r["deck"]]
            if name == "duel_end":
                r["reason"] = L.END_NAMES[r["reason"]]
            if name == "turn":
                k = r["snapshot"]
                ok = self.snapshots is not None and 0 <= k < len(self.snapshots)
                r["snapshot"] = snapshot_dict(self.snapshots[k], names, r["seat"]) if ok else None
            out.append(r)
        return out

    def _character(self, seat):
        s = self.final_state
        return self.rules.names.characters[int(s[L.G_P + seat * L.PS + L.P_CHAR])]

    def to_jsonl(self):
        return "\n".join(json.dumps(r, separators=(",", ":")) for r in self.records()) + "\n"

    def to_text(self):
        """Readable text: before each turn a block with the position (every
        player's Hp, square, castles and hand, and the decks), then one line
        per event."""
        chars = self.rules.names.characters
        s = self.final_state
        seats = [f"seat {p}: {chars[s[L.G_P + p * L.PS + L.P_CHAR]]}" for p in range(s[L.G_NP])]
        ncast = len(self.rules.names.castles)
        lines = [f"Quest Master replay  seed={self.seed} game={self.game}  " + ", ".join(seats)]
        for r in self.records():
            if r["event"] == "turn" and r["snapshot"] is not None:
                sn = r["snapshot"]
                me = sn["players"][r["seat"]]
                lines.append(f"== round {sn['round']} - seat {r['seat']} ({me['character']})'s turn - "
                             f"Item deck {sn['item_deck']} (used {sn['item_used']}), "
                             f"Event deck {sn['event_deck']} (used {sn['event_used']})")
                for pl in sn["players"]:
                    if not pl["alive"]:
                        lines.append(f"   seat {pl['seat']} {pl['character']:<10} out")
                        continue
                    lines.append(f"   seat {pl['seat']} {pl['character']:<10} Hp {pl['hp']:>2}  square {pl['square']:>3}"
                                 f"  castles {len(pl['castles'])}/{ncast} {','.join(pl['castles']) or '-'}"
                                 f"  hand {', '.join(pl['hand']) or '-'}")
            detail = " ".join(f"{k}={v}" for k, v in r.items()
                              if k not in ("i", "round", "event", "seat", "snapshot"))
            who = f"seat {r['seat']}" if r["seat"] >= 0 else "game"
            lines.append(f"r{r['round']:>3}  {who:<7} {r['event']:<14} {detail}")
        w = s[L.G_WINNER]
        lines.append(f"result: {L.WIN_NAMES[s[L.G_WIN]]}" + (f", seat {w} ({chars[s[L.G_P + w * L.PS + L.P_CHAR]]}) wins"
                                                             if w >= 0 else ""))
        return "\n".join(lines) + "\n"


def replay(seed=1, game=0, players=4, characters=(), policies=("greedy",), params=(), ruleset=None,
           overrides=(), rules: Rules | None = None, max_events=200_000) -> Replay:
    """Replay game ``game`` of ``seed`` with its full event log and a
    snapshot at the start of every turn."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(players, tuple(characters), tuple(policies), tuple(params))
    chars, pids, pp, engine = cfg.resolved(rules)
    ev = np.zeros((max_events, L.EV_COLS), np.int32)
    snaps = np.zeros((int(rules.ruleset.rules.safety_cap_rounds) * players + 1, L.STATE_SIZE), np.int32)
    final = np.zeros(L.STATE_SIZE, np.int32)
    with policy_guard("+".join(cfg.policies)):
        n = engine.play_logged(np.uint64(seed), game, players, chars, pids, pp, rules.T, ev, snaps, final)
    if final[L.G_ILLEGAL] > 0:      # refused as in a batch run, never shown as if legal
        raise illegal(cfg.policies, int(final[L.G_ILLEGAL]), 1)
    k = int(final[L.G_NSNAP])
    return Replay(seed, game, cfg, rules, ev[:n].copy(), final, snaps[:k].copy())
