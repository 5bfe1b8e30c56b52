"""Replay one Quest Master game with its event log, as readable text or JSON
lines (schema in docs/questmaster/replay.md). Game ``i`` of seed
``S`` is the same game as row ``i`` of a batch run with the same options.

Every turn record carries a snapshot of the position at the start of that
turn (each player's Hp, Mp, square, castles landed on and hand, and the
decks), decoded from a copy of the engine state the logged run keeps."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from simcore.fnptr import refuse_bad_choices
from simcore.plugins import policy_guard
from simcore.present import named
from simcore.errors import InputError
from simcore.warmup import compile_cold
from simcore.witness import KIND_CALL, Recorder, Script, kind_of

from . import layout as L, plugins
from .decision import ARG_SPEC
from .gamedef import GAME
from .sim import Config, Rules, prepare

# Every event type: its fields (the log's columns a, b, c, d, in order) and
# when it is logged. The jsonl records, the text replay and the viewer read
# the fields by these names; docs/questmaster/replay.md's table is written
# from this (python -m experiments.tables, block qm-events).
EVENTS = (
    ("setup", ("players",), "the set-up"),
    ("start_roll", ("total", "red", "blue"),
     "a start roll (the faces as rolled; `blue` is null when one die is rolled)"),
    ("turn", ("hp", "square", "snapshot"), "a turn begins"),
    ("roll", ("red", "blue"), "the movement roll"),
    ("choice", ("action", "arg"),
     "the roller's choice: `move` (squares), `symbol` (1 sword, 2 bomb, 3 chest) or `stay`"),
    ("extra_move", ("added", "steps"),
     "Yellow Bird Shoes were played on this roll: `added` squares, so the move is now `steps` squares (a "
     "chosen symbol is replaced by the move)"),
    ("move", ("steps", "square"), "the pawn moved (negative steps: back)"),
    ("warp", ("from", "to"), "the pawn warped"),
    ("no_warp", ("square",), "a warp was offered on this Warp square and declined"),
    ("land", ("square", "kind", "by_card"), "a square takes effect"),
    ("decline_square", ("square", "kind"), "an Item or Event square was declined (toggle `square_cards_optional`)"),
    ("castle", ("castle", "home_race"), "a castle's ability (`home_race` 1: the lower one)"),
    ("draw_item", ("item",), "an Item card drawn"),
    ("discard", ("item",), "an Item card discarded (hand limit, a thief, a Fairy Bow)"),
    ("play_item", ("item", "cost", "mp_left"),
     "an Item card (or an ability) played; in a combat `mp_left` is the Mp after paying `cost`"),
    ("event", ("card",), "an Event card opened"),
    ("die", ("die", "face", "value"),
     "a single die rolled (`red` or `blue`): an effect's die (the Church, the Haunted House, a card's "
     "roll) or a combatant's Mp die; `face` as rolled, `value` what it counts for (a symbol counts the "
     "effect's value: 1 at the Church, 0 at the Haunted House and for Mp; for a roll that picks a branch, "
     "the number or 0)"),
    ("hp", ("change", "hp"), "Hp changed; a blow that takes Hp to 0 is logged too (`hp` 0, `change` the Hp lost)"),
    ("fight", ("defender", "mp_attacker", "mp_defender"), "a combat starts (the Mp dice follow as `die` records)"),
    ("attack", ("defender", "at", "cost", "mp_left"),
     "an attack is declared: its own At (before the cards played with it), its Mp cost (0 for the free "
     "attack) and the Mp left after paying; the cards follow as `play_item` records, the result as "
     "`damage` or `absorb` (with the final At)"),
    ("damage", ("at", "shield", "damage"), "the attack's final At, the shield against it, the Hp lost"),
    ("absorb", ("at", "gain"), "the attack was absorbed; `gain`: `hp`, `mp` or `none`"),
    ("decline", ("opponent", "mp_left"),
     "a side able to pay declined its attack (it makes no more attacks this combat)"),
    ("cannot_pay", ("mp", "cost"), "the side due to attack has `mp`, less than its cheapest attack's `cost`"),
    ("duel_end", ("defender", "reason", "attacks"),
     "the combat ended: `reason` `cannot_pay`, `both_stopped`, `declined` (toggle "
     "`attacker_continues_after_decline` false), `eliminated`, `game_over` (a win during the combat) or "
     "`attack_cap`; `attacks` made in it"),
    ("eliminated", (), "the player is out"),
    ("revive", ("item", "hp"), "a Phoenix saved the player"),
    ("win", ("condition",), "the game is won"),
    ("reshuffle", ("deck", "cards"),
     "an empty deck (`item` or `event`) was rebuilt from its used pile of `cards` cards"),
    ("go_home", ("square",), "a card sent the pawn home"),
)
FIELDS = {name: fields for name, fields, _when in EVENTS}   # an event's fields by its name
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
        hand = [names.items[int(k)] for k in s[b + L.S_HAND: b + L.S_HAND + int(s[b + L.S_HAND_N])]]
        castles = [c for i, c in enumerate(names.castles) if (int(s[b + L.S_CASTLES]) >> i) & 1]
        players.append({"seat": p, "character": names.characters[int(s[b + L.S_CHAR])],
                        "race": names.races[int(s[b + L.S_RACE])], "hp": int(s[b + L.S_HP]),
                        # a player out of the game stands nowhere: null
                        "mp": int(s[b + L.S_MP]), "square": int(s[b + L.S_POS]) if s[b + L.S_ALIVE] else None,
                        "alive": bool(s[b + L.S_ALIVE]),
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
    # with a script (simcore.witness): every decision, and the one the game
    # paused at for the person's seat (-1: played to the end)
    script: Script | None = None
    decisions: list = field(default_factory=list)
    paused: int = -1

    def records(self):
        """The log as dicts: i, round, event, seat, and the event's fields."""
        names = self.rules.names
        out = []
        for i, row in enumerate(self.events):
            name = L.EVENT_NAMES[row[0]]
            # the game itself (set-up, a reshuffle, a win by nobody) has no seat: null
            r = {"i": i, "round": int(row[1]), "event": name, "seat": int(row[2]) if row[2] >= 0 else None}
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
        return self.rules.names.characters[int(s[L.G_P + seat * L.PS + L.S_CHAR])]

    def to_jsonl(self):
        return "\n".join(json.dumps(r, separators=(",", ":")) for r in self.records()) + "\n"

    def text_lines(self, records=None):
        """The readable replay as ``(record index, line)`` pairs: before each
        turn a block with the position (every player's Hp, square, castles
        and hand, and the decks), then one line per event, players named by
        character, squares by number and kind, characters, castles and cards
        by the ruleset's names, seats numbered from 1 (as MourneQuest's). The
        HTML viewer (``questsim/viewer.py``) shows the same line for each step."""
        names = self.rules.display_names()
        who = self.seat_names(names)
        squares = [_Square(sq.kind, names.get(sq.castle, sq.castle)) for sq in self.rules.ruleset.board.squares]
        ncast = len(self.rules.names.castles)
        out = []
        for r in (records if records is not None else self.records()):
            k = r["i"]
            r = named(r, names, _KINDS)
            if r["event"] == "turn":
                sn = r["snapshot"]
                if sn is None:
                    continue
                me = sn["players"][r["seat"]]
                out.append((k, f"== round {sn['round']} - seat {r['seat'] + 1} ({me['character']})'s turn - "
                               f"Item deck {sn['item_deck']} (used {sn['item_used']}), "
                               f"Event deck {sn['event_deck']} (used {sn['event_used']})"))
                for pl in sn["players"]:
                    if not pl["alive"]:
                        out.append((k, f"   seat {pl['seat'] + 1} {pl['character']:<10} out"))
                        continue
                    out.append((k, f"   seat {pl['seat'] + 1} {pl['character']:<10} Hp {pl['hp']:>2}  square "
                                   f"{pl['square']:>3}  castles {len(pl['castles'])}/{ncast} "
                                   f"{', '.join(pl['castles']) or '-'}  hand {', '.join(pl['hand']) or '-'}"))
                continue
            out.append((k, "  " + _qm_line(r, who.get(r["seat"], "the game"), who, squares)))
        s = self.final_state
        w = s[L.G_WINNER]
        out.append((len(self.events) - 1 if len(self.events) else 0,
                    f"result: {L.WIN_NAMES[s[L.G_WIN]].replace('_', ' ')}"
                    + (f", seat {w + 1} ({who[int(w)]}) wins" if w >= 0 else "")))
        return out

    def seat_names(self, names):
        """Seat -> its character's name."""
        chars = self.rules.names.characters
        s = self.final_state
        return {p: names.get(chars[s[L.G_P + p * L.PS + L.S_CHAR]]) for p in range(s[L.G_NP])}

    def to_text(self):
        """Readable text: before each turn a block with the position, then
        one line per event, and the result (see ``text_lines``)."""
        who = self.seat_names(self.rules.display_names())
        seats = [f"seat {p + 1}: {c}" for p, c in who.items()]
        lines = [f"Quest Master replay  seed={self.seed} game={self.game}  " + ", ".join(seats)]
        return "\n".join(lines + [line for _, line in self.text_lines()]) + "\n"


@dataclass(frozen=True)
class _Square:
    """A square as the text names it: its kind and, on a castle, the castle's name."""
    kind: str
    castle: str | None


# the fields of a record the lines test or spell themselves (kinds, not ids): kept as they are
_KINDS = ("event", "action", "kind", "condition", "reason", "die", "deck", "gain", "face", "red", "blue")


def _square(i, squares):
    """Square ``i`` in words: its number and kind (a castle by name)."""
    if not 0 <= i < len(squares):
        return f"square {i}"
    sq = squares[i]
    return f"square {i} ({sq.castle})" if sq.kind == "castle" else f"square {i} ({sq.kind})"


SYMBOL_CHOICE = {1: "sword", 2: "bomb", 3: "chest"}


def _qm_line(r, me, who, squares):
    """One event of a Quest Master replay as a sentence."""
    ev = r["event"]

    def opp(p):
        return who.get(p, f"seat {p + 1}")

    if ev == "setup":
        return f"set-up: {r['players']} players"
    if ev == "start_roll":
        dice = f"red {r['red']}" + (f", blue {r['blue']}" if r["blue"] is not None else "")
        return f"{me} start roll: {dice} = {r['total']}"
    if ev == "roll":
        return f"{me} rolls red {r['red']}, blue {r['blue']}"
    if ev == "choice":
        if r["action"] == "move":
            return f"{me} chooses to move {r['arg']} squares"
        if r["action"] == "symbol":
            return f"{me} chooses the {SYMBOL_CHOICE.get(r['arg'], r['arg'])} symbol"
        return f"{me} chooses to {r['action']}"
    if ev == "extra_move":
        return f"{me} plays Yellow Bird Shoes: +{r['added']}, the move is now {r['steps']} squares"
    if ev == "move":
        return f"{me} moves {r['steps']:+d} to {_square(r['square'], squares)}"
    if ev == "warp":
        return f"{me} warps from {_square(r['from'], squares)} to {_square(r['to'], squares)}"
    if ev == "no_warp":
        return f"{me} passes the warp at {_square(r['square'], squares)} without warping"
    if ev == "land":
        return f"{me} lands on {_square(r['square'], squares)}" + (" (moved by a card)" if r["by_card"] else "")
    if ev == "decline_square":
        return f"{me} declines the {r['kind']} square {r['square']}"
    if ev == "castle":
        return f"{me} uses the castle {r['castle_name']}'s " + ("lower (home race) ability" if r["home_race"]
                                                                 else "upper ability")
    if ev == "draw_item":
        return f"{me} draws the item {r['item_name']}"
    if ev == "discard":
        return f"{me} discards {r['item_name']}"
    if ev == "play_item":
        name = r.get("item_name") or f"ability {r.get('ability_name')}"
        return f"{me} plays {name}" + (f" (cost {r['cost']} Mp, {r['mp_left']} Mp left)" if r["cost"] else "")
    if ev == "event":
        return f"{me} opens the event card {r['card_name']}"
    if ev == "die":
        return f"{me} rolls the {r['die']} die: {r['face']} (counts {r['value']})"
    if ev == "hp":
        verb = "gains" if r["change"] > 0 else "loses"
        return f"{me} {verb} {abs(r['change'])} Hp (Hp {r['hp']})"
    if ev == "fight":
        return f"{me} fights {opp(r['defender'])}: Mp {r['mp_attacker']} against {r['mp_defender']}"
    if ev == "attack":
        cost = f"cost {r['cost']} Mp, {r['mp_left']} left" if r["cost"] else f"the free attack, {r['mp_left']} Mp"
        return f"  {me} attacks {opp(r['defender'])} with At {r['at']} ({cost})"
    if ev == "damage":
        return f"  the blow lands: At {r['at']} against shield {r['shield']}, {r['damage']} Hp lost"
    if ev == "absorb":
        return f"  the attack (At {r['at']}) is absorbed; gains {r['gain']}"
    if ev == "decline":
        return f"  {me} declines to attack {opp(r['opponent'])} ({r['mp_left']} Mp left)"
    if ev == "cannot_pay":
        return f"  {me} cannot pay: {r['mp']} Mp, the cheapest attack costs {r['cost']}"
    if ev == "duel_end":
        return f"the duel with {opp(r['defender'])} ends: {r['reason'].replace('_', ' ')} after {r['attacks']} attack{'' if r['attacks'] == 1 else 's'}"
    if ev == "eliminated":
        return f"{me} is OUT of the game"
    if ev == "revive":
        return f"{me} is saved by {r['item_name']}: Hp {r['hp']}"
    if ev == "win":
        return (f"{me} WINS ({r['condition'].replace('_', ' ')})" if r["seat"] is not None
                else f"nobody wins ({r['condition'].replace('_', ' ')})")
    if ev == "reshuffle":
        return f"the {r['deck']} deck is rebuilt from its {r['cards']} used cards"
    if ev == "go_home":
        return f"{me} is sent home to {_square(r['square'], squares)}"
    rest = " ".join(f"{k}={v}" for k, v in r.items() if k not in ("i", "round", "event", "seat", "snapshot"))
    return f"{me} {ev} {rest}"


def replay(seed=1, game=0, players=4, characters=(), policies=("greedy",), params=(), ruleset=None,
           overrides=(), rules: Rules | None = None, max_events=200_000, script: Script | None = None) -> Replay:
    """Replay game ``game`` of ``seed`` with its full event log and a
    snapshot at the start of every turn. With a ``script``
    (simcore.witness) every decision is recorded, the script's choices are
    played, and a game whose person's seat (the script's ``seat``) is to
    choose is shown up to that decision."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(players, tuple(characters), tuple(policies), tuple(params))
    # checked, then a cold engine compiled (and the policies' entry points meanwhile)
    compile_cold(GAME, cfg.resolved(rules, entry=False)[-1].play_logged,
                 during=lambda: plugins.compile_entries(cfg.policies or ("greedy",)))
    chars, pids, pp, engine = cfg.resolved(rules)
    ev = np.zeros((max_events, L.EV_COLS), np.int32)
    snaps = np.zeros((int(rules.ruleset.rules.safety_cap_rounds) * players + 1, L.STATE_SIZE), np.int32)
    final = np.zeros(L.STATE_SIZE, np.int32)
    rec, asked = None, pids
    if script is not None:
        if not -1 <= script.seat < players:
            raise InputError(f"seat {script.seat}: the address counts seats from 0, and this game has {players}")
        # a search replays the other seats by their policy ids: random and
        # first seats stay the engine's own there (their choices unrecorded)
        search = any(plugins.get(name).meta.get("scratch", 0) for name in (cfg.policies or ("greedy",)))
        kinds = [kind_of(p) if not search else KIND_CALL for p in pids]
        rec = Recorder(script, kinds, L.STATE_SIZE, L.G_LOGN, ARG_SPEC)
        asked = np.array([p if search else rec.policy_id(p) for p in pids], np.int32)
        pp = np.stack([rec.row(r) for r in pp])
    with policy_guard("+".join(cfg.policies)):
        n = engine.play_logged(np.uint64(seed), game, players, chars, asked, pp, rules.T, ev, snaps, final)
    refuse_bad_choices(final[L.G_ILLEGAL], "+".join(cfg.policies))      # refused as in a batch run, never shown as if legal
    k = int(final[L.G_NSNAP])
    rp = Replay(seed, game, cfg, rules, ev[:n].copy(), final, snaps[:k].copy())
    if rec is not None:
        rec.finish(rp, {L.G_P + p * L.PS + L.S_POLICY: pids[p] for p in range(players)}, L.G_NSNAP)
    return rp
