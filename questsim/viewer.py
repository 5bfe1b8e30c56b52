"""Quest Master's side of the replay viewer (``questsim replay --format html``).

Quest Master squares have no coordinates, so the board is laid out from
the ruleset's board graph: the main loop (square 0 onward along each
square's first ``next``) on a ring, squares off it (the side paths of
forks) inside the ring between the squares they leave from and rejoin,
``next`` links as paths and ``warp_to`` links as chords, castles named.
A designer's own board file draws without code changes.

Pawn positions after every event come from ``Pawns``: set from a turn's
snapshot and moved by ``move``, ``warp``, ``go_home`` and ``eliminated``;
the panel beside the board shows the position after the current step
(:func:`advance`: the turn's snapshot carried forward by its events). Tests
check that the events alone reach every turn's snapshot.
"""
from __future__ import annotations

import copy
import math

from simcore import viewer as V
from simcore.present import named

from . import layout as L
from .ruleset import successors

SEAT_COLOURS = ("#1f6feb", "#cf222e", "#2da44e", "#8250df", "#d4720c", "#1b7c83")
STYLE = {
    "castle": {"fill": "#fff1c2", "r": 20, "shape": "square", "stroke": "#9a6700", "width": 2.5},
    "item": {"fill": "#dbeafe", "r": 12},
    "event": {"fill": "#ffe4e8", "r": 12},
    "sword": {"fill": "#e5e7eb", "r": 12, "shape": "diamond"},
    "warp": {"fill": "#ede4ff", "r": 13, "stroke": "#8250df", "width": 2.5},
    "plain": {"fill": "#f6f8fa", "r": 11},
    "edge:next": {"stroke": "#afb8c1", "width": 4},
    "edge:warp": {"stroke": "#8250df", "width": 1.5, "dash": "5 5", "opacity": 0.45},
}
# the legend's words for each kind of square (the swatches are STYLE's)
KINDS = {"castle": "castle", "item": "Item square (draw an Item card)", "event": "Event square (draw an Event card)",
         "sword": "sword square", "warp": "warp square", "plain": "plain square"}
RADIUS = 300.0


def layout(squares):
    """``{square: (x, y)}``: the main loop on a ring, other squares inside."""
    succ = successors(type("B", (), {"squares": squares})())
    n = len(squares)
    loop, seen = [], set()
    i = 0
    while i not in seen:
        seen.add(i)
        loop.append(i)
        i = succ[i][0]
    at = V.layout_ring(loop, RADIUS)
    # side paths: follow each unplaced successor until a placed square
    pending = True
    while pending:
        pending = False
        for f in list(at):
            for j in succ[f]:
                if j in at:
                    continue
                chain, x = [], j
                while x not in at and x not in chain:
                    chain.append(x)
                    x = succ[x][0]
                end = at.get(x, (at[f][0] * 0.4, at[f][1] * 0.4))
                a = at[f]
                for q, v in enumerate(chain, 1):
                    t = q / (len(chain) + 1)
                    px, py = a[0] + (end[0] - a[0]) * t, a[1] + (end[1] - a[1]) * t
                    # pulled towards the centre so the path shows inside the ring
                    pull = 0.72 + 0.1 * abs(t - 0.5)
                    at[v] = (px * pull, py * pull)
                pending = True
    # anything the walk never reached (a malformed board still draws)
    rest = [v for v in range(n) if v not in at]
    for q, v in enumerate(rest):
        ang = 2 * math.pi * q / max(len(rest), 1)
        at[v] = (0.3 * RADIUS * math.cos(ang), 0.3 * RADIUS * math.sin(ang))
    return at


def board(rules):
    """Nodes, edges and style of the Quest Master board from its ruleset."""
    squares = rules.ruleset.board.squares
    castles = rules.ruleset.castles
    at = layout(squares)
    nodes = []
    for i, sq in enumerate(squares):
        x, y = at[i]
        label = castles[sq.castle].name if sq.kind == "castle" and sq.castle in castles else str(i)
        title = f"square {i}: {sq.kind}" + (f" ({sq.castle})" if sq.kind == "castle" else "")
        if sq.kind == "warp":
            title += f", warps to {', '.join(map(str, sq.warp_to))}"
        nodes.append({"id": str(i), "x": x, "y": y, "kind": sq.kind, "label": label, "title": title})
    edges = []
    for i, nxt in enumerate(successors(rules.ruleset.board)):
        for j in nxt:
            edges.append([i, j, "next"])
    done = set()
    for i, sq in enumerate(squares):
        for j in sq.warp_to or ():
            if (j, i) not in done:
                edges.append([i, j, "warp"])
                done.add((i, j))
    return {"nodes": nodes, "edges": edges, "style": STYLE, "viewbox": V.viewbox(nodes, pad=70),
            "centre": [0, 0], "spread": 12}


class Pawns:
    """Each seat's square (-1: out of the game), moved event by event."""

    def __init__(self, rp):
        s = rp.final_state
        self.n = int(s[L.G_NP])
        self.pos = [-1] * self.n

    def from_snapshot(self, sn):
        """Set every pawn from a decoded turn snapshot."""
        self.pos = [p["square"] if p["alive"] else -1 for p in sn["players"]]

    def apply(self, r):
        """Move the pawn record ``r`` moves (others are ignored)."""
        ev, seat = r["event"], r["seat"]
        if ev == "move":
            self.pos[seat] = r["square"]
        elif ev == "warp":
            self.pos[seat] = r["to"]
        elif ev == "go_home":
            self.pos[seat] = r["square"]
        elif ev == "eliminated":
            self.pos[seat] = -1


def advance(sn, r, names):
    """Turn snapshot dict ``sn`` (ids, as ``replay.snapshot_dict`` makes it)
    brought past record ``r``: every player's Hp, Mp (a combat's; 0 outside
    one), square, whether in the game, castles and hand, and the decks'
    counts (``names``: the ruleset's ids)."""
    ev = r["event"]
    me = sn["players"][r["seat"]] if r.get("seat") is not None else None
    if ev in ("move", "go_home"):
        me["square"] = r["square"]
    elif ev == "warp":
        me["square"] = r["to"]
    elif ev == "hp":
        me["hp"] = r["hp"]
    elif ev == "revive":
        me["hp"] = r["hp"]
        _drop(sn, me, r["item_name"])
    elif ev == "eliminated":       # the hand goes to the used pile, unlogged card by card
        sn["item_used"] += len(me["hand"])
        me["alive"], me["square"], me["mp"], me["hand"] = False, None, 0, []
    elif ev == "castle":
        got = set(me["castles"]) | {names.castles[r["castle"]]}
        me["castles"] = [c for c in names.castles if c in got]
    elif ev == "draw_item":
        me["hand"] = sorted(me["hand"] + [r["item_name"]])
        sn["item_deck"] -= 1
    elif ev == "discard" or (ev == "play_item" and r.get("item_name")):
        _drop(sn, me, r["item_name"])
    elif ev == "event":
        sn["event_deck"] -= 1
        sn["event_used"] += 1
    elif ev == "reshuffle":
        sn[f"{r['deck']}_deck"], sn[f"{r['deck']}_used"] = r["cards"], 0
    elif ev == "fight":
        me["mp"], sn["players"][r["defender"]]["mp"] = r["mp_attacker"], r["mp_defender"]
    if ev in ("attack", "play_item", "decline") and r.get("mp_left") is not None:
        me["mp"] = r["mp_left"]
    elif ev == "duel_end":
        me["mp"] = sn["players"][r["defender"]]["mp"] = 0


def _drop(sn, me, item):
    """An Item card leaves ``me``'s hand for the used pile."""
    hand = list(me["hand"])
    hand.remove(item)
    me["hand"] = hand
    sn["item_used"] += 1


def _panel(sn, ncast):
    """A turn's snapshot as the viewer's panel sections (seats from 1)."""
    rows = [[str(p["seat"] + 1), p["character"], p["race"], str(p["hp"]) if p["alive"] else "out", str(p["mp"]),
             str(p["square"]) if p["alive"] else "-", f"{len(p['castles'])}/{ncast} " + (", ".join(p["castles"]) or "-"),
             ", ".join(p["hand"]) or "-"] for p in sn["players"]]
    return [{"title": "Players", "columns": ["seat", "character", "race", "Hp", "Mp", "square", "castles visited",
                                              "hand"], "rows": rows},
            {"title": "Decks", "text": f"Item deck {sn['item_deck']} (used {sn['item_used']}); "
                                        f"Event deck {sn['event_deck']} (used {sn['event_used']}). "
                                        "Mp is rolled for each combat and lost at its end."}]


def data(rp):
    """The viewer page's data for Quest Master Replay ``rp`` (simcore.viewer)."""
    recs = rp.records()
    lines = rp.text_lines(recs)
    bd = board(rp.rules)
    shown = rp.rules.display_names()
    who = rp.seat_names(shown)
    pawns = Pawns(rp)
    ncast = len(rp.rules.names.castles)
    labels = V.short_labels([who[p] for p in range(pawns.n)])
    pieces = [{"id": f"seat{p}", "name": f"seat {p + 1}: {who[p]}", "label": labels[p],
               "colour": SEAT_COLOURS[p % 6]} for p in range(pawns.n)]
    first_snap = next((r["snapshot"] for r in recs if r["event"] == "turn" and r["snapshot"]), None)
    if first_snap:
        pawns.from_snapshot(first_snap)     # before the first turn every pawn is at home
    by_rec, order = {}, []
    for k, line in lines:
        if k not in by_rec:
            by_rec[k] = []
            order.append(k)
        by_rec[k].append(line)
    steps, turns = [], []
    sn, shown_panel = None, {}
    ends = order[1:] + [len(recs)]
    for k, end in zip(order, ends):
        r = recs[k]
        # the records up to the next step's move pieces and change the panel within this step
        for rj in recs[k:end]:
            if rj["event"] == "turn" and rj["snapshot"]:
                pawns.from_snapshot(rj["snapshot"])
                sn = copy.deepcopy(rj["snapshot"])
            else:
                pawns.apply(rj)
                if sn is not None:
                    advance(sn, rj, rp.rules.names)
        hl = [v for key in ("square", "from", "to") if isinstance(v := r.get(key), int) and 0 <= v < len(bd["nodes"])]
        step = {"x": "\n".join(by_rec[k]).strip("\n"), "p": list(pawns.pos)}
        if hl and r["event"] != "turn":
            step["h"] = hl
        if sn is not None:
            label = (f"round {r['round']} \u00b7 seat {r['seat'] + 1} ({who[r['seat']]})"
                     if r["event"] == "turn" and r["snapshot"] else None)
            shown_panel = V.show_panel(step, _panel(named(sn, shown), ncast), turns, len(steps), shown_panel, label)
        steps.append(step)
    s = rp.final_state
    w = int(s[L.G_WINNER])
    result = L.WIN_NAMES[int(s[L.G_WIN])].replace("_", " ") + (f", seat {w + 1} ({who[w]}) wins" if w >= 0 else "")
    if rp.paused >= 0:
        result = "not yet known (a person's decision is next)"
    out = {
        "title": f"Quest Master replay \u2014 seed {rp.seed}, game {rp.game}",
        "subtitle": (f"{pawns.n} players, policies {'+'.join(rp.config.policies)}; result: {result}; "
                     f"rules {rp.rules.hash}"),
        "board": bd, "pieces": pieces, "steps": V.compact_steps(steps), "turns": turns,
        "kinds": V.kinds(STYLE, KINDS), "legend": ["dashed chords: warps"],
    }
    if rp.script is not None:
        from . import explain
        labels = explain.Labels(rp)
        pols = rp.config.policies or ("greedy",)
        seats = pols * rp.config.players if len(pols) == 1 else pols
        V.add_decisions(out, rp, V.record_steps(order, len(recs)), labels.text, lambda d: explain.scores(rp, d, seats),
                        lambda p: f"seat {p + 1} ({who.get(p, p)})")
    return out


def html(rp, play=None) -> str:
    """The self-contained viewer page of Quest Master Replay ``rp``; ``play``: the
    studio's address of the game and its script (simcore.viewer)."""
    return V.page(data(rp), play)
