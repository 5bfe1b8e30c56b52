"""MourneQuest's side of the replay viewer (``mournesim replay --format html``).

The board is drawn from the ruleset's board graph: every space of
``[board.spaces]`` at its ``at = [x, y]``, the ``paths``, the tunnel, and
the moon track in a ring around it, so a designer's own board file draws
without code changes. The pieces are the heroes, the four nightmares (on
their discs until they escape or emerge), the bogbean beside each nexus,
the Magical Pots and the Shimnavore.

Positions after every event come from ``Pieces``: set from a turn's
snapshot (the engine's state copy) and moved by the events that move a
miniature. Tests check that, fed only the events, it arrives at every
turn's snapshot exactly (tests/common/test_viewer.py).
"""
from __future__ import annotations

import copy
import re

from simcore import viewer as V
from simcore.present import named

from . import layout as L
from .events import CORN, DIRS, _Ctx, decode_events
from .replay_text import text_lines

SCALE = 34.0     # screen units per board unit of ``at``

HERO_COLOURS = ("#1f6feb", "#2da44e", "#d4720c", "#8250df")
NIGHTMARE_COLOUR = "#6e1423"
BOGBEAN_COLOUR = "#7a6a1a"
POT_COLOUR = "#e3b341"
SHIM_COLOUR = "#111111"
MOON_FILL = {"R": "#d1242f", "M": "#8c959f", "G": "#2da44e", "B": "#218bff"}
MOON_NAME = {"R": "Blood Moon (red)", "M": "waxing/waning (grey)", "G": "New Moon (green)", "B": "Blue Moon"}

STYLE = {
    "centre": {"fill": "#24292f", "r": 20, "shape": "circle"},
    "disc": {"fill": "#f0e6d2", "r": 17, "stroke": "#6e1423", "width": 2},
    "keystone": {"fill": "#c9b79c", "r": 16, "shape": "square", "stroke": "#5a4a2f", "width": 2},
    "crossroads": {"fill": "#ddf4ff", "r": 14, "shape": "diamond"},
    "cache": {"r": 14, "shape": "square"},
    "nexus": {"fill": "#fbefff", "r": 17, "stroke": "#8250df", "width": 2.5},
    "path": {"fill": "#f6f8fa", "r": 11},
    "start": {"fill": "#dafbe1", "r": 14, "stroke": "#1a7f37", "width": 2.5},
    "tunnel": {"fill": "#8c959f", "r": 13, "stroke": "#24292f", "width": 2},
    "trading_post": {"fill": "#fff8c5", "r": 13, "shape": "square", "stroke": "#9a6700", "width": 2},
    "edge:path": {"stroke": "#afb8c1", "width": 4},
    "edge:tunnel": {"stroke": "#24292f", "width": 2, "dash": "6 5", "opacity": 0.7},
    "edge:disc": {"stroke": "#6e1423", "width": 1.5, "dash": "2 4", "opacity": 0.6},
}
# the legend's words for each kind of space (the swatches are STYLE's)
KINDS = {"start": "start point", "path": "path space", "crossroads": "crossroads", "nexus": "nexus",
         "cache": "charm cache", "trading_post": "trading post", "tunnel": "Dunnywater Tunnel", "disc": "disc",
         "keystone": "key stone", "centre": "the centre (the Shimnavore)"}
CACHE_FILL = {"granite": "#8c959f", "gold": "#e3b341", "blackthorn": "#57606a", "flax": "#a5d6ff"}


def board(rules):
    """The board's nodes, edges and style from the ruleset's board graph."""
    rs = rules.ruleset
    names = list(rs.board.spaces)
    idx = {n: i for i, n in enumerate(names)}
    shown = rules.display_names()
    nodes = []
    for name, sp in rs.board.spaces.items():
        node = {"id": name, "x": sp.at[0] * SCALE, "y": -sp.at[1] * SCALE, "kind": sp.kind,
                "label": shown[name], "title": f"{shown[name]} ({sp.kind})"}
        if sp.kind == "cache" and sp.charm:
            node["fill"] = CACHE_FILL.get(sp.charm, "#eee")
            node["title"] = f"{shown[name]}: charm cache ({sp.charm})"
        nodes.append(node)
    edges = []
    for p in rs.board.paths:
        a, b = p.split("-")
        edges.append([idx[a], idx[b], "path"])
    t0, t1 = rs.board.tunnel
    edges.append([idx[t0], idx[t1], "tunnel"])
    # each disc beside its key stone (reached only by knock-back)
    T = rules.tables
    for d in range(4):
        edges.append([int(T.disc[d]), int(T.keystone[d]), "disc"])
    vb = V.viewbox(nodes, pad=60)
    # the moon track in a ring outside the board
    cx, cy = vb[0] + vb[2] / 2, vb[1] + vb[3] / 2
    radius = max(vb[2], vb[3]) / 2 + 10
    track = {"cx": cx, "cy": cy, "radius": radius, "r": 8,
             "cells": [{"fill": MOON_FILL.get(c, "#ccc"), "title": f"moon space {i}: {MOON_NAME.get(c, c)}"}
                       for i, c in enumerate(rs.moon.track)]}
    big = radius + 20
    vb = [cx - big, cy - big, 2 * big, 2 * big]
    return {"nodes": nodes, "edges": edges, "style": STYLE, "viewbox": vb, "centre": [cx, cy]}, track


class Pieces:
    """Where every miniature stands: piece ids and their space index (-1: off
    the board), moved event by event. ``from_state`` reads a raw state
    vector (a turn's snapshot), ``apply`` one decoded record."""

    def __init__(self, rp):
        self.rp = rp
        T = rp.rules.tables
        self.T = T
        s = rp.final_state
        nh = int(s[L.G_NHEROES])
        ctx = _Ctx(rp)
        self.nh = nh
        self.heroes = [ctx.hero(h) for h in range(nh)]
        self.nightmares = list(rp.rules.names.nightmares)
        self.ids = (self.heroes + self.nightmares + [f"bogbean_{c}" for c in CORN] + [f"pot_{c}" for c in CORN]
                    + ["shimnavore"])
        self.index = {p: i for i, p in enumerate(self.ids)}
        self.space_index = {n: i for i, n in enumerate(rp.rules.names.spaces)}
        self.centre = next(i for i, sp in enumerate(rp.rules.ruleset.board.spaces.values()) if sp.kind == "centre")
        self.pos = [-1] * len(self.ids)
        self.disc_of = {}         # nightmare -> disc space, from the set-up
        for h in range(nh):      # before the first turn every hero is on its start point
            self.pos[h] = int(s[L.G_HERO + h * L.HS + L.H_START])
        # every disc starts at the level's marker, some a click shorter in the
        # rule variant short_discs_by_players (the set-up record says so too,
        # but set-up steps come before it)
        level = getattr(rp.rules.ruleset.levels, L.LEVEL_NAMES[int(s[L.G_LEVEL])])
        self.lengths = level.disc_lengths(int(s[L.G_PLAYERS]))
        self.clicks = list(self.lengths)
        self.state = ["on disc"] * 4
        self.wall = [0] * 4
        self.moon = 0

    # ---- from the engine's state ------------------------------------------------
    def from_state(self, s):
        """Set every position (and the disc and wall marks) from state vector ``s``."""
        T = self.T
        pos = [-1] * len(self.ids)
        for h in range(self.nh):
            pos[h] = int(s[L.G_HERO + h * L.HS + L.H_POS])
        for d in range(4):
            o = L.G_DISC + d * L.DSZ
            k = int(s[o + L.D_NM])
            st = int(s[o + L.D_STATE])
            if k < 0:
                continue
            self.disc_of[self.nightmares[k]] = int(T.disc[d])
            n = int(s[L.G_NM + k * L.NSZ + L.NM_POS])
            if n >= 0:
                pos[len(self.heroes) + k] = n
            elif st in (L.DS_ON, L.DS_RELEASED):
                pos[len(self.heroes) + k] = int(T.disc[d])
            self.clicks[d] = int(s[o + L.D_CLICKS])
            self.state[d] = L.DISC_STATE_NAMES[st]
            self.wall[d] = int(s[L.G_WALL + d])
        base = len(self.heroes) + 4
        for c in range(4):
            o = L.G_NEX + c * L.XSZ
            pos[base + c] = int(s[o + L.X_BOG_POS])
            pos[base + 4 + c] = int(T.crossroads[c]) if s[o + L.X_POT] else -1
        pos[-1] = self.centre if s[L.G_FINAL] != L.FB_NONE else -1
        self.pos = pos
        self.moon = int(s[L.G_MOON])

    # ---- from the events -------------------------------------------------------------
    def _sp(self, name):
        return self.space_index[name] if name is not None else -1

    def _set(self, piece, space):
        self.pos[self.index[piece]] = space

    def apply(self, r):
        """Move the pieces as record ``r`` says (records that move nothing are ignored)."""
        ev = r["event"]
        T = self.T
        if ev == "setup":
            self.clicks = list(self.lengths)
            for d, nm in r["discs"].items():
                dd = DIRS.index(d)
                self.disc_of[nm] = int(T.disc[dd])
                self._set(nm, int(T.disc[dd]))
        elif ev in ("move", "tunnel", "knock_back"):
            self._set(r["actor"], self._sp(r["to"]))
        elif ev in ("escape", "emerge") and not r["blocked"]:
            self._set(r["actor"], self._sp(r["to"]))
            self.state[DIRS.index(r["disc"])] = "on board"
        elif ev in ("cast_out", "nightmare_defeated"):
            self._set(r["actor"], -1)
            self.state[DIRS.index(r["disc"])] = "cast out" if ev == "cast_out" else "defeated"
        elif ev == "enemy_move":
            if r["enemy"] in self.index:
                self._set(r["enemy"], self._sp(r["to"]))
            else:                                       # "snipe of NE": the bogbean of that nexus
                self._set(f"bogbean_{r['enemy'].rsplit(' ', 1)[1]}", self._sp(r["to"]))
        elif ev == "encounter" and r["placed"]:
            c = CORN.index(r["nexus"])
            if r["kind"] == "bogbean":
                self._set(f"bogbean_{r['nexus']}", int(T.nexus[c]))
            else:
                self._set(f"pot_{r['nexus']}", int(T.crossroads[c]))
        elif ev == "flee":
            self._set(f"bogbean_{r['bogbean_of']}", -1)
        elif ev == "pot":
            self._set(f"pot_{r['nexus']}", -1)
        elif ev == "final_battle" and r["step"] != "begins":
            self._set("shimnavore", self.centre)
        elif ev == "disc_click":
            d = DIRS.index(r["disc"])
            self.clicks[d] = r["clicks_left"]
            self.state[d] = r["state"]
        elif ev == "wall_damage":
            self.wall[DIRS.index(r["section"])] = 2 if r["result"] == "destroyed" else 1
        elif ev == "wall_repair":
            self.wall[DIRS.index(r["section"])] = 0
        elif ev == "moon":
            self.moon = r["space"]

    def marks(self):
        """Short texts beside spaces: clicks left on each disc, damaged wall."""
        T = self.T
        out = {}
        for d in range(4):
            st = self.state[d]
            if st == "on disc":
                out[str(int(T.disc[d]))] = f"{self.clicks[d]} clicks"
            elif st == "released":
                out[str(int(T.disc[d]))] = "released"
            if self.wall[d]:
                out[str(int(T.keystone[d]))] = "wall destroyed" if self.wall[d] == 2 else "wall damaged"
        return out


def _panel(sn):
    """A turn's snapshot as the viewer's panel sections."""
    def ch(d):
        return ", ".join(f"{v} {k}" for k, v in d.items() if v) or "-"
    moon = sn["moon"]
    team = [f"moon: {moon['colour']} (space {moon['space']}, cycle {moon['cycle']})"
            + ("; FINAL BATTLE" if sn["final_battle"] == "running" else
               "; the Shimnavore has appeared" if sn["final_battle"] == "triggered" else ""),
            f"dice pool {sn['dice_pool']}; talismans {sn['talismans']}; compass tokens {sn['compass_tokens']}; "
            f"encounter level {sn['encounter_level']} ({sn['encounter_bag']} tiles in the bag)",
            f"charm pool: {ch(sn['charm_pool'])}; equipment deck {sn['equipment_deck']}, surplus {sn['surplus']}, "
            f"relics {sn['relic_deck']}"]
    if sn["wall_damaged"]:
        team.append("wall damaged at " + ", ".join(sn["wall_damaged"]))
    if sn["final_battle"] != "no":
        team.append("Shimnavore beaten: " + ch(sn["shimnavore_wounds"]))
    heroes = [[h["hero"], h["space"], str(h["life"]),
               f"{h['abilities']['courage']}/{h['abilities']['strength']}/{h['abilities']['magic']}",
               ch(h["charms"]), ", ".join(h["cards"]) or "-", ", ".join(h["relics"]) or "-", str(h["skill_tokens"])]
              for h in sn["heroes"]]
    discs = [[d["disc"], d["nightmare"], d["state"],
              str(d["clicks_left"]) if d["state"] in ("on disc", "released") else "",
              ch(d["needed"]) if d["state"] in ("on disc", "released") else "", ch(d["deposited"])]
             for d in sn["discs"]]
    enemies = ([[n["nightmare"], n["space"], ", ".join(n["wounded"]) or "-"] for n in sn["nightmares_on_board"]]
               + [[b["name"], b["space"], ", ".join(b["wounded"]) or "-"] for b in sn["bogbeans"]])
    out = [{"title": "After this step", "text": "the team, heroes' places, life, charms and skills, and the discs; "
            "cards, relics, abilities and enemies as at the start of the turn (the board shows every piece now)"},
           {"title": "Team and moon", "text": team},
           {"title": "Heroes", "columns": ["hero", "space", "life", "C/S/M", "charms", "cards", "relics", "skills"],
            "rows": heroes},
           {"title": "Discs", "columns": ["disc", "nightmare", "state", "clicks left", "still needed", "deposited"],
            "rows": discs}]
    if enemies:
        out.append({"title": "Enemies on the board", "columns": ["enemy", "space", "beaten on"], "rows": enemies})
    if sn["magical_pots"]:
        out.append({"title": "Magical Pots", "text": ", ".join(sn["magical_pots"])})
    return out


# what the panel follows step by step (the rest is shown as at the start of
# the turn); tests/mournequest/test_viewer_panel.py checks that, fed a turn's
# events, these reach the next turn's snapshot exactly
TRACKED = ("moon", "final_battle", "dice_pool", "talismans", "compass_tokens", "wall_damaged",
           "shimnavore_wounds")
HERO_TRACKED = ("space", "life", "charms", "skill_tokens")
DISC_TRACKED = ("clicks_left", "state", "deposited", "needed")


def advance(sn, r, cycles):
    """Snapshot dict ``sn`` (ids, as ``events.snapshot_dict`` makes it)
    brought past record ``r``, for the values :data:`TRACKED` and the heroes'
    and discs' tracked columns; ``cycles``: the ruleset's moon cycles."""
    ev = r["event"]
    hero = next((h for h in sn["heroes"] if h["hero"] == r["actor"]), None)
    disc = next((d for d in sn["discs"] if d["disc"] == r.get("disc")), None)
    if ev in ("move", "tunnel", "knock_back") and hero is not None:
        hero["space"] = r["to"]
    elif ev == "life" and hero is not None:
        hero["life"] = r["life"]
    elif ev in ("charm_gain", "charm_loss") and hero is not None:
        n = hero["charms"].get(r["charm"], 0) + (r["count"] if ev == "charm_gain" else -r["count"])
        hero["charms"] = {c: v for c, v in {**hero["charms"], r["charm"]: n}.items() if v}
    elif ev == "skill_token_lost" and hero is not None:
        hero["skill_tokens"] -= r["lost"]
    elif ev == "skill_used" and hero is not None:
        hero["skill_tokens"] -= 1
    elif ev == "deposit":
        left = hero["charms"].get(r["charm"], 0) - r["count"]       # from the depositing hero's backpack
        hero["charms"] = {c: v for c, v in {**hero["charms"], r["charm"]: left}.items() if v}
        disc["deposited"] = {**disc["deposited"], r["charm"]: disc["deposited"].get(r["charm"], 0) + r["count"]}
        disc["needed"] = dict(r["still_needed"])
    elif ev == "disc_click":
        disc["clicks_left"], disc["state"] = r["clicks_left"], r["state"]
    elif ev in ("cast_out", "nightmare_defeated") or (ev in ("escape", "emerge") and not r["blocked"]):
        disc["state"] = {"cast_out": "cast out", "nightmare_defeated": "defeated"}.get(ev, "on board")
        disc["needed"] = {}
        if ev in ("escape", "emerge"):   # the charms on the disc are lost when its nightmare gets out
            disc["deposited"] = {}
        if ev == "cast_out":            # the charms leave the disc with the nightmare
            sn["talismans"], disc["deposited"] = r["talismans"], {}
    elif ev == "talisman":
        sn["talismans"] -= 1
    elif ev == "dice_pool":
        sn["dice_pool"] = r["dice"]
    elif ev == "compass_token":
        sn["compass_tokens"] = r["tokens"]
    elif ev == "all_discs":
        sn["compass_tokens"] = 0
    elif ev == "moon":
        sn["moon"] = {"space": r["space"], "colour": r["colour"], "cycle": min(r["cycles_done"] + 1, cycles)}
    elif ev == "wall_damage":
        sn["wall_damaged"] = [d for d in DIRS if d in sn["wall_damaged"] or d == r["section"]]
    elif ev == "wall_repair":
        sn["wall_damaged"] = [d for d in sn["wall_damaged"] if d != r["section"]]
    elif ev == "final_battle":
        sn["final_battle"] = "running" if r["step"] == "begins" else "triggered"
        if r["step"] == "begins":      # the compass tokens leave the board when the Final Battle begins
            sn["compass_tokens"] = 0
    elif ev == "shimnavore_wound":
        sn["shimnavore_wounds"] = {**sn["shimnavore_wounds"], r["ability"]: r["wins_on_ability"]}


def _highlight(r, space_index):
    """Spaces the step touches (moved from and to, where it happens)."""
    out = []
    for key in ("from", "to", "at"):
        v = r.get(key)
        if isinstance(v, str) and v in space_index:
            out.append(space_index[v])
    return out


def data(rp):
    """The viewer page's data for MourneQuest Replay ``rp`` (simcore.viewer)."""
    recs = decode_events(rp)
    lines = text_lines(rp, recs)
    bd, track = board(rp.rules)
    pieces = Pieces(rp)
    shown = rp.rules.display_names()
    colours = []
    labels = V.short_labels([shown.get(n, n) for n in pieces.heroes + pieces.nightmares])
    for h, name in enumerate(pieces.heroes):
        colours.append({"id": name, "name": f"{shown.get(name, name)} (seat {h + 1})",
                        "label": labels[h], "colour": HERO_COLOURS[h % 4]})
    for k, name in enumerate(pieces.nightmares):
        colours.append({"id": name, "name": f"{shown.get(name, name)} (nightmare)",
                        "label": labels[len(pieces.heroes) + k].upper(), "colour": NIGHTMARE_COLOUR})
    for c in CORN:
        colours.append({"id": f"bogbean_{c}", "name": f"bogbean of {c}", "label": "b" + c[0] + c[1].lower(),
                        "colour": BOGBEAN_COLOUR, "r": 8})
    for c in CORN:
        colours.append({"id": f"pot_{c}", "name": f"Magical Pot ({c})", "label": "P", "colour": POT_COLOUR, "r": 7})
    colours.append({"id": "shimnavore", "name": "the Shimnavore", "label": "SH", "colour": SHIM_COLOUR, "r": 12})
    # one step per record that has text; the records after it until the next
    # step (an action's mirror event) move pieces within the same step
    by_rec = {}
    order = []
    for k, line in lines:
        if k not in by_rec:
            by_rec[k] = []
            order.append(k)
        by_rec[k].append(line)
    steps, turns = [], []
    cycles = rp.rules.ruleset.rules.moon_cycles
    sn, shown_panel = None, {}
    nxt = {order[j]: (order[j + 1] if j + 1 < len(order) else len(recs)) for j in range(len(order))}
    first = order[0] if order else 0
    for k in range(first):
        pieces.apply(recs[k])
    for k in order:
        r = recs[k]
        hl = []
        for j in range(k, nxt[k]):
            rj = recs[j]
            if rj["event"] == "turn_start":
                pieces.from_state(rp.snapshots[len(turns)])
                sn = copy.deepcopy(rj["snapshot"])
            else:
                pieces.apply(rj)
                if sn is not None:
                    advance(sn, rj, cycles)
            hl += _highlight(rj, pieces.space_index)
        text = "\n".join(line for line in by_rec[k] if line.strip())
        step = {"x": text, "p": list(pieces.pos), "m": pieces.marks(), "k": pieces.moon}
        if hl:
            step["h"] = sorted(set(hl))
        if sn is not None:
            label = (f"round {r['round']} \u00b7 {shown.get(r['actor'], r['actor'])}'s turn"
                     if r["event"] == "turn_start" else None)
            shown_panel = V.show_panel(step, _panel(named(sn, shown)), turns, len(steps), shown_panel, label)
        steps.append(step)
    cfg = rp.config
    outcome = recs[-1].get("outcome") if recs and recs[-1]["event"] == "game_end" else rp.outcome
    if rp.paused >= 0:
        outcome = "not yet known (a person's decision is next)"
    out = {
        "title": f"MourneQuest replay \u2014 seed {rp.seed}, game {rp.game}",
        "subtitle": (f"{cfg.level}, {cfg.players} player(s), policy {cfg.policy}; heroes "
                     f"{', '.join(pieces.heroes)}; outcome {outcome}; rules {rp.rules.hash}"),
        "board": bd, "track": track, "pieces": colours, "steps": V.compact_steps(steps), "turns": turns,
        "kinds": V.kinds(STYLE, KINDS),
        "legend": ["ring: the moon track (gold ring: the moon marker)", "marks: clicks left on a disc, wall damage"],
    }
    if rp.script is not None:
        _decisions(out, rp, V.record_steps(order, len(recs)), shown)
    return out


def _decisions(out, rp, rec_step, shown):
    """The viewer's data ``out`` with the decisions of witnessed Replay ``rp`` (simcore.viewer.add_decisions)."""
    from . import explain, plugins
    labels = explain.Labels(rp)
    pp = rp.config.params or plugins.get(rp.config.policy).defaults
    names = labels.ctx

    def text(d, c):      # the ruleset's ids in a label by their names, as in the step lines
        return re.sub(r"\b[a-z][a-z0-9_]*\b", lambda m: shown.get(m.group(0), m.group(0)), labels.text(d, c))
    return V.add_decisions(out, rp, rec_step, text, lambda d: explain.scores(rp, d, pp),
                           lambda h: shown.get(names.hero(h), names.hero(h)))


def html(rp, play=None) -> str:
    """The self-contained viewer page of MourneQuest Replay ``rp``; ``play``: the
    studio's address of the game and its script (simcore.viewer)."""
    return V.page(data(rp), play)
