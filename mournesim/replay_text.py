"""The readable MourneQuest replay (``replay --format text``): the decoded
records of ``mournesim/replay.py`` written as the game reads at the table.

- a block per hero turn with the position from its snapshot;
- each action once, with its cost and the actions left *after* it, and its
  consequences indented below it; an event that only repeats the action
  (the move of a move) is folded into the action's line;
- names for every hero, card, tile, space and enemy (the ruleset's
  ``[names]``), the reason for each enemy
  move, stay and attack and for each discard, the charms a disc still needs,
  and the non-events (a click on a released disc, a blocked enemy).

``text_lines(rp)`` gives the lines as ``(record index, line)`` pairs: the
HTML viewer (``mournesim/viewer.py``) makes one step of each record's lines.
"""
from __future__ import annotations

import re

from simcore.present import named
from .events import decode_events

# the fields of a decoded record the lines below test (kinds, not ids): kept as they are
_KINDS = ("event", "action", "step", "charm")

def _named(r, names):
    """Record ``r`` with its ids by name: each field, and each id word of an
    action's ready-made ``text`` ("uses secret_pathways on iur to ...")."""
    r = named(r, names, _KINDS + ("text",))
    if "text" in r:
        r["text"] = re.sub(r"[a-z][a-z0-9_]*", lambda m: names.get(m.group(), m.group()), r["text"])
    return r


def _charms(d):
    """``{"granite": 2, "gold": 1}`` as ``2 granite, 1 gold`` (``-`` if empty)."""
    return ", ".join(f"{v} {k}" for k, v in d.items() if v) or "-"


def _plural(n, word):
    """``1 click``, ``2 clicks``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cost(r):
    """The cost part of an action line, known once the action is carried
    out: what it took and the actions left after it."""
    if r["action"] == "end_turn":
        return f"[{_plural(r['actions_left'], 'action')} unused]"
    if r["ends_turn"]:
        return f"[{_plural(r['cost'], 'action')}; lost: the turn ends]"
    if r["actions_gained"]:
        return f"[gains {_plural(r['actions_gained'], 'action')}; {r['actions_left']} left]"
    if r["cost"] == 0:
        return f"[free; {r['actions_left']} left]"
    return f"[{_plural(r['cost'], 'action')}; {r['actions_left']} left]"


# events that only repeat the action just before them: folded into its line
_MIRROR = {"move": "move", "pick_up": "charm_gain", "deposit": "deposit", "discard_charm": "charm_loss",
           "take_surplus": "surplus", "pass_equipment": "pass_equipment", "regain_life": "life",
           "use_relic": "relic_used", "use_skill": "skill_used", "repair_wall": "wall_repair"}


def _action_line(r, mirror):
    """One line for a hero's action, written as what happened."""
    who, act = r["actor"], r["action"]
    text = r["text"]
    if mirror is not None:
        if act == "move":
            text = f"moves {mirror['from']} -> {mirror['to']}"
        elif act == "pick_up":
            text = f"picks up {mirror['count']} {mirror['charm']}"
        elif act == "deposit":
            text = (f"deposits {mirror['count']} {mirror['charm']} on disc {mirror['disc']} "
                    f"(still needed: {_charms(mirror['still_needed']) if mirror['still_needed'] else 'none'})")
        elif act == "discard_charm":
            text = f"discards {mirror['count']} {mirror['charm']}"
        elif act == "take_surplus":
            text = f"takes {mirror['card']} from the Surplus Deck"
        elif act == "pass_equipment":
            text = f"passes {mirror['card']} to {mirror['to']}"
        elif act == "regain_life":
            text = f"regains {mirror['change']} life at the start point (life {mirror['life']})"
    return f"  {who} {text}   {_cost(r)}"


# How each event that is not a hero's action reads as a line: a template
# over the record's fields (and ``who``, its actor) where one line fits every
# case, else a function of the record (LINE_OF).
TEMPLATES = {
    "tunnel": "    {who} goes through the Dunnywater Tunnel {from} -> {to}",
    "tunnel_blocked": "    {who} stays at {from}: the tunnel's far end {to} is full",
    "charm_gain": "    {who} gains {count} {charm}",
    "charm_loss": "    {who} loses {count} {charm}",
    "deposit": "    {who} deposits {count} {charm} on disc {disc}",
    "nightmare_defeated": "    the {who} is DEFEATED (disc {disc})",
    "equipment_drawn": "    {who} draws {card}",
    "surplus": "    {who} takes {card} from the Surplus Deck",
    "pot": "    {who} collects the Magical Pot at {at} and draws a relic",
    "pass_equipment": "    {who} passes {card} to {to}",
    "reroll": "      every die is re-rolled ({dice})",
    "nightmare_wounded": "    the {target} is beaten on {ability}",
    "wort_wounded": "    the {target} is beaten on {ability}",
    "theft": "    the {bogbean} steals from {who}: it wants {demanded} charm(s), {who} has {charms_held}",
    "skill_token_lost": "    {who} loses {lost} skill token(s)",
    "moon": "  the moon moves to space {space} ({colour})",
    "disc_held": "    disc {disc} does not turn: it is already released",
    "compass_token": "    a compass token is placed ({tokens})",
    "all_discs": "    the last compass token: every occupied disc turns",
    "dice_pool": "    a combat die is unlocked: the pool is {dice} dice",
    "evil_power": "  the {who} uses its evil power {power} at {at}",
    "flee": "    the {bogbean} leaves the board at {at} ({reason})",
    "knock_back": "    {who} is knocked back {from} -> {to} ({reason})",
    "shimnavore": "  the Shimnavore acts on {face}",
    "shimnavore_attack": "    the Shimnavore attacks {who} at {key_stone} (the key stone it faces) on {ability}, "
                         "its strongest ability",
    "shimnavore_held": "    the Shimnavore does nothing: the {nightmare} stands on key stone {key_stone}",
    "wall_repair": "    {who} repairs the wall at {section} ({by})",
    "shimnavore_wound": "    the Shimnavore is beaten on {ability} ({wins_on_ability} win(s) on it)",
    "game_end": "GAME OVER: {outcome} after {rounds} rounds",
}


def _setup(r, who):
    return (f"  set-up: {r['level']}, {r['players']} player(s); discs "
            + ", ".join(f"{k} {v}" for k, v in r["discs"].items()) + f"; Surplus card {r['first_surplus']}")


def _move(r, who):
    return f"    {who} is moved {r['from']} -> {r['to']}" + (" (skill or relic)" if r["by_skill"] else "")


def _cast_out(r, who):
    return (f"    the {who} is CAST OUT (disc {r['disc']})"
            + (f"; the team gains a talisman ({r['talismans']})" if r["talisman_gained"] else ""))


def _equip(r, who):
    card = r["card"] if r["card"] == f"{r['ability']} +{r['value']}" else f"{r['card']} ({r['ability']} +{r['value']})"
    if r["equipped"]:
        return f"    {who} equips {card}"
    why = f"no better than {r['held']}, which {who} holds" if r["held"] else f"{who}'s choice"
    return f"    {who} discards {card} to the Surplus Deck ({why})"


def _hag(r, who):
    return f"    the Hag {r['card']} acts on {who}" + (f": {r['effect']}" if r["effect"] != r["card"] else "")


def _relic_drawn(r, who):
    return f"    {who} draws the relic {r['relic']}" + (" - sabotaged, it acts at once" if r["sabotaged"] else "")


def _relic_used(r, who):
    eff = f" ({r['effect']})" if r["effect"] != r["relic"] else ""
    return f"    {who} uses the relic {r['relic']}{eff}" + (f" for {r['target']}" if r["target"] else "")


def _skill_used(r, who):
    return f"    {who} uses a skill token: {r['effect']}" + (f" for {r['target']}" if r["target"] else "")


def _trade(r, who):
    return f"    {who} trades {_charms(r['gave'])} for {r['for']}"


def _dice(r, who):
    res = r["result"] if r["result"] != "score" else str(r["total"])
    bonus = f" (bonus {r['bonus']:+d})" if r["bonus"] else ""
    return f"      roll {', '.join(r['dice'])}: {', '.join(r['faces'])} -> {res}{bonus}"


def _talisman(r, who):
    if r["for"] == "combat":
        return f"      a talisman re-rolls die {r['die'] + 1} (was {r['face_rerolled']})"
    return f"      a talisman re-rolls the {r['for']} die (was {r['face_rerolled']})"


def _combat(r, who):
    res = r["result"] if r["result"] != "score" else str(r["total"])
    verdict = "WON" if r["won"] else "LOST"
    side = f"defends against the {r['enemy']}" if r["defending"] else f"against the {r['enemy']}"
    return f"    {who} {side} on {r['ability']}: {res} vs {r['target']} - {verdict}"


def _bogbean_defeated(r, who):
    return f"    the {r['bogbean']} is {'beaten' if r['by_attack'] else 'fended off'}"


def _card_lost(r, who):
    kind = "relic" if r["kind"] == "relic" else "Equipment card"
    return f"    {who} loses the {kind} {r['card']}" + (" to the Surplus Deck" if r["to_surplus"] else "")


def _life(r, who):
    return f"    {who} {'regains' if r['change'] > 0 else 'loses'} {abs(r['change'])} life (life {r['life']})"


def _compass(r, who):
    return f"  compass die: {r['face']}" + (" (re-rolled)" if r["reroll"] else "")


def _disc_click(r, who):
    n = abs(r["clicks"])
    turn = (f"turns {n} click{'s' if n > 1 else ''}" + (" back" if r["clicks"] < 0 else "")) if n else "turns"
    return f"    disc {r['disc']} {turn}: {r['clicks_left']} left" + (
        " - RELEASED, its nightmare escapes in the enemy phase" if r["state"] == "released" else "")


def _encounter_level(r, who):
    if r["discards_reused"]:
        return f"    the empty bag is refilled from the discards ({r['tiles_added']} tiles)"
    return f"    level {r['level']} encounter tiles go into the bag ({r['tiles_added']})"


def _enemy_phase(r, who):
    if r["step"] == "nightmare attacks":
        return f"  the {who} attacks {r['hero']} (on its space) on {r['ability']}, its strongest ability not yet beaten"
    return f"  the {r['bogbean']} attacks {r['hero']} (on its space) on {r['ability']}, its strongest ability"


def _leaves_disc(verb):
    def line(r, who):
        if r["blocked"]:
            return f"  the {who} cannot {verb}: key stone {r['to']} is full, it waits on disc {r['disc']}"
        return f"  the {who} {'ESCAPES' if verb == 'escape' else 'emerges'} from disc {r['disc']} onto {r['to']}"
    return line


def _enemy_move(r, who):
    why = f" (towards the nearest hero, {r['hunting']}, {_plural(r['distance'], 'step')} away)" if r["hunting"] else ""
    return f"  the {r['enemy']} moves {r['from']} -> {r['to']}{why}"


def _enemy_stay(r, who):
    return f"  the {r['enemy']} stays at {r['at']}: {r['reason']}" + (f" ({r['hero']})" if r["hero"] else "")


def _encounter(r, who):
    what = r.get("bogbean") or r["kind"]
    if r["placed"]:
        where = "its nexus" if r["kind"] == "bogbean" else "the crossroads"
        return f"  encounter tile for {r['nexus']}: {r['tile']} - the {what} is placed at {where}"
    return f"  encounter tile for {r['nexus']}: {r['tile']} - discarded: {r['reason']}"


def _wall_roll(r, who):
    return f"    wall die at {r['section']}: {r['face']} - {'hit' if r['hit'] else 'miss'}"


def _wall_damage(r, who):
    return f"    the wall at {r['section']} is {r['result'].upper()}"


LINE_OF = {"setup": _setup, "move": _move, "cast_out": _cast_out, "equip": _equip, "hag": _hag,
           "relic_drawn": _relic_drawn, "relic_used": _relic_used, "skill_used": _skill_used, "trade": _trade,
           "dice": _dice, "talisman": _talisman, "combat": _combat, "bogbean_defeated": _bogbean_defeated,
           "card_lost": _card_lost, "life": _life, "compass": _compass, "disc_click": _disc_click,
           "encounter_level": _encounter_level, "enemy_phase": _enemy_phase, "escape": _leaves_disc("escape"),
           "emerge": _leaves_disc("emerge"), "enemy_move": _enemy_move, "enemy_stay": _enemy_stay,
           "encounter": _encounter, "wall_roll": _wall_roll, "wall_damage": _wall_damage}


def _event_line(r):
    """One line for an event that is not a hero's action (None: not shown)."""
    ev, who = r["event"], r["actor"]
    if ev in TEMPLATES:
        return TEMPLATES[ev].format_map(dict(r, who=who))
    if ev in LINE_OF:
        return LINE_OF[ev](r, who)
    rest = ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("i", "round", "event", "actor", "snapshot"))
    return f"  {ev} {who} {rest}"


def turn_header(r):
    """The block that opens a hero's turn: the position from its snapshot."""
    sn = r["snapshot"]
    lines = ["", f"== round {r['round']} - {r['actor']}'s turn - moon {sn['moon']['colour']} "
             f"(space {sn['moon']['space']}, cycle {sn['moon']['cycle']}) - dice pool "
             f"{sn['dice_pool']} - talismans {sn['talismans']} - compass tokens {sn['compass_tokens']}"
             + (" - FINAL BATTLE" if sn["final_battle"] == "running" else "")]
    for h in sn["heroes"]:
        lines.append(f"   {h['hero']:<7} at {h['space']:<16} life {h['life']}  "
                     f"C/S/M {h['abilities']['courage']}/{h['abilities']['strength']}/"
                     f"{h['abilities']['magic']}  skill tokens {h['skill_tokens']}  "
                     f"charms {_charms(h['charms'])}  cards {', '.join(h['cards']) or '-'}  "
                     f"relics {', '.join(h['relics']) or '-'}")
    parts = []
    for d in sn["discs"]:
        if d["state"] in ("on disc", "released"):
            need = _charms(d["needed"]) if d["needed"] else "none"
            parts.append(f"{d['disc']} {d['nightmare']} {d['state']}, {_plural(d['clicks_left'], 'click')} left, "
                         f"needs {need}" + (f" (has {_charms(d['deposited'])})" if d["deposited"] else ""))
        else:
            parts.append(f"{d['disc']} {d['nightmare']} {d['state']}")
    lines.append("   discs: " + "; ".join(parts))
    if sn["nightmares_on_board"] or sn["bogbeans"] or sn["magical_pots"]:
        lines.append("   enemies: " + "; ".join(
            [f"{n['nightmare']} at {n['space']}" + (f" (beaten on {', '.join(n['wounded'])})" if n['wounded'] else "")
             for n in sn["nightmares_on_board"]]
            + [f"{b['name']} at {b['space']}" + (f" (beaten on {', '.join(b['wounded'])})" if b['wounded'] else "")
               for b in sn["bogbeans"]])
            + ("  pots: " + ", ".join(sn["magical_pots"]) if sn["magical_pots"] else ""))
    if sn["wall_damaged"] or any(sn["shimnavore_wounds"].values()):
        lines.append(f"   wall damaged: {', '.join(sn['wall_damaged']) or '-'}  "
                     f"shimnavore beaten: {_charms(sn['shimnavore_wounds'])}")
    return lines


def text_lines(rp, records=None):
    """The readable replay as ``(record index, line)`` pairs, in order. A
    turn's header lines carry its ``turn_start`` index; an event that only
    repeats the action before it has no line of its own (its action's line
    says it). Section headers carry the index of the record that opens them."""
    names = rp.rules.display_names()
    recs = [_named(r, names) for r in (records if records is not None else decode_events(rp))]
    out = []
    skip = set()
    for k, r in enumerate(recs):
        if k in skip:
            continue
        ev = r["event"]
        if k == 0:
            out.append((k, "-- set-up"))
        if r["round"] == 0 and ev != "turn_start":
            # set-up lines stand on their own, not under an action
            out.append((k, "  " + _event_line(r).lstrip()))
            continue
        if ev == "charm_loss":
            # a theft takes charms one at a time: one line for each kind lost
            j = k + 1
            while j < len(recs) and recs[j]["event"] == "charm_loss" and recs[j]["actor"] == r["actor"] \
                    and recs[j]["charm"] == r["charm"]:
                skip.add(j)
                j += 1
            if j > k + 1:
                r = dict(r, count=sum(recs[q]["count"] for q in range(k, j)))
        if ev == "turn_start":
            out += [(k, line) for line in turn_header(r)]
        elif ev == "action":
            mirror = None
            want = _MIRROR.get(r["action"])
            if want and k + 1 < len(recs) and recs[k + 1]["event"] == want:
                mirror = recs[k + 1]
                skip.add(k + 1)
            out.append((k, _action_line(r, mirror)))
        elif ev == "final_battle":
            out.append((k, ""))
            out.append((k, "-- THE SHIMNAVORE APPEARS (the moon has completed its cycles)" if r["step"] != "begins"
                        else "-- FINAL BATTLE BEGINS: remaining nightmares emerge, then the opening compass roll"))
        elif ev == "enemy_phase" and r.get("step") == "begins":
            idle = k + 1 < len(recs) and recs[k + 1]["event"] in ("turn_start", "game_end")
            out.append((k, ""))
            out.append((k, f"-- round {r['round']} enemy phase" + (": no enemy acts" if idle else "")))
        else:
            out.append((k, _event_line(r)))
    return out


def render_text(rp):
    """Readable text of a whole game: a snapshot per turn, then its events."""
    head = (f"MourneQuest replay  seed={rp.seed} game={rp.game} level={rp.config.level} "
            f"players={rp.config.players} policy={rp.config.policy}  rules {rp.rules.hash}")
    return "\n".join([head] + [line for _, line in text_lines(rp)]) + "\n"
