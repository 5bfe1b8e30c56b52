"""The replay viewer both games share: one self-contained HTML page (no
server, no network) that draws a board graph, moves the pieces step by step
and shows each turn's snapshot beside the board.

A game supplies the page's data as plain dicts (``mournesim/viewer.py``,
``questsim/viewer.py``); this module checks its shape, lays it into the
template ``templates/viewer.html`` (inline CSS and JS) and returns the
page. The data:

- ``board``: ``nodes`` (``id``, ``x``, ``y`` in screen units, y down;
  ``kind``; optional ``label``, ``title``, ``fill``, ``r``), ``edges``
  (``[node index, node index, kind]``), ``style`` (by node kind, and
  ``"edge:<kind>"`` by edge kind), ``viewbox`` ``[x, y, w, h]``;
- ``pieces``: ``id``, ``name``, ``label`` (one or two letters), ``colour``;
- ``steps``: per step ``x`` (its text line), and only where they change
  ``p`` (the node index of every piece, -1 off the board), ``m`` (``{node
  index: mark text}``), ``k`` (the track marker); ``h`` (node indexes to
  highlight);
  ``q`` (the panel's sections this step changed, by title);
- ``turns``: ``step`` (the first step of the turn), ``label``, ``panel``
  (sections ``{title, text | columns + rows}``: the turn's snapshot; the
  page shows it with the steps' ``q`` applied up to the current step);
- optional ``track`` (cells in a ring beside the board), ``legend`` (texts),
  ``kinds`` (the space kinds' swatches: ``fill``, ``shape``, ``text``);
- optional ``decisions`` (a witnessed game's choices, :func:`decisions`),
  ``paused`` (the number of the decision a person is to make: the page
  opens at its step and offers its options) and ``play`` (the studio's
  address of this game, ``base``, with its ``choices`` as [decision, code]
  pairs and ``seat``: each option not played links to the game played on
  with it).
"""
from __future__ import annotations

import html
import json
import math
import re
from importlib.resources import files


def layout_ring(order, radius=300.0, start=-math.pi / 2):
    """Positions of the nodes ``order`` evenly round a ring, clockwise from
    the top: ``{node: (x, y)}``."""
    n = max(len(order), 1)
    return {v: (radius * math.cos(start + 2 * math.pi * i / n), radius * math.sin(start + 2 * math.pi * i / n))
            for i, v in enumerate(order)}


def viewbox(nodes, pad=40.0):
    """The ``[x, y, w, h]`` that holds every node with ``pad`` around it."""
    xs = [n["x"] for n in nodes]
    ys = [n["y"] for n in nodes]
    return [min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad]


def check(data: dict) -> None:
    """Raise ValueError if ``data`` is not a viewer page's data (a bug of the
    game's builder, found before a page that would not draw is written)."""
    nodes = data["board"]["nodes"]
    npieces = len(data["pieces"])
    for e in data["board"]["edges"]:
        if not (0 <= e[0] < len(nodes) and 0 <= e[1] < len(nodes)):
            raise ValueError(f"edge {e} names no node")
    if not data["steps"]:
        raise ValueError("a replay page needs at least one step")
    if "p" not in data["steps"][0]:
        raise ValueError("the first step must give every piece's position")
    for i, s in enumerate(data["steps"]):
        if "p" in s and (len(s["p"]) != npieces or any(not -1 <= v < len(nodes) for v in s["p"])):
            raise ValueError(f"step {i}: positions {s['p']} do not fit {npieces} pieces on {len(nodes)} nodes")
    for d in data.get("decisions", ()):
        if not (0 <= d["s"] < len(data["steps"]) and len(d["o"]) == len(d["k"]) and 0 <= d["c"] < len(d["o"])):
            raise ValueError(f"decision {d['i']}: step {d['s']} or options do not fit the page")
    last = -1
    for t in data["turns"]:
        if not last < t["step"] < len(data["steps"]):
            raise ValueError(f"turn {t['label']!r} starts at step {t['step']}, out of order")
        last = t["step"]


def _json_for_script(data) -> str:
    """JSON safe inside a <script> element: every ``<`` written ``\\u003c``,
    so no string in it can close the element (``</script>``) or open a
    comment (``<!--``); the element's text is raw, so nothing else in it is
    read as markup."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def page(data: dict, play: dict | None = None) -> str:
    """The viewer page for ``data`` (see the module docstring), one HTML string;
    ``play``: the studio's ``play`` entry, added to it. Every value is data:
    the title escaped as HTML text, the rest as JSON inside the page that
    its script shows as text (``textContent``), never as markup. The two
    placeholders are filled in one pass, so nothing in the title or the data
    can stand for the other."""
    if play is not None:       # the studio's address of the game (see the module docstring)
        data = dict(data, play=play)
    check(data)
    tpl = files("simcore").joinpath("templates/viewer.html").read_text(encoding="utf-8")
    fill = {"__TITLE__": html.escape(str(data["title"])), "__DATA__": _json_for_script(data)}
    return re.sub("__TITLE__|__DATA__", lambda m: fill[m.group(0)], tpl)


def short_labels(names):
    """Two-letter labels for ``names``, each unique: the first two letters,
    or where two names share them the first letter and the first letter
    where they differ (``witch``, ``wizard``: ``Wt``, ``Wz``)."""
    firsts = [n[:2].title() for n in names]
    out = []
    for n, f in zip(names, firsts):
        if firsts.count(f) > 1:
            others = [m for m in names if m != n and m[:2].title() == f]
            k = next((i for i in range(1, len(n)) if all(i >= len(m) or m[i] != n[i] for m in others)), 1)
            f = n[0].upper() + n[k].lower()
        out.append(f)
    return out


def kinds(style, names):
    """The legend's swatches of the space kinds ``names`` ({kind: text}) from
    a board ``style``."""
    return [{"fill": style.get(k, {}).get("fill", "#eee"), "shape": style.get(k, {}).get("shape", "circle"),
             "text": text} for k, text in names.items()]


def compact_steps(steps):
    """Drop each step's ``p``/``m``/``k`` where it equals the step before's
    (the page carries them forward), so a long game stays small."""
    prev = {}
    out = []
    for s in steps:
        s = dict(s)
        for key in ("p", "m", "k"):
            if key in s:
                if prev.get(key) == s[key]:
                    del s[key]
                else:
                    prev[key] = s[key]
        out.append(s)
    return out


def show_panel(step: dict, panel: list, turns: list, nstep: int, shown: dict, turn_label=None) -> dict:
    """The panel after step ``nstep`` (``step``, not yet appended): at a
    turn's first step (``turn_label``) the turn's snapshot panel, a new
    entry of ``turns``; at any other step the sections that differ from
    ``shown`` (the panel the page shows before it, by title) as the step's
    ``q``. Returns the panel now shown, by title."""
    if turn_label is not None:
        turns.append({"step": nstep, "label": turn_label, "panel": panel})
    else:
        changed = [sec for sec in panel if shown.get(sec["title"]) != sec]
        if changed:
            step["q"] = changed
    return {sec["title"]: sec for sec in panel}


def record_steps(order, nrec):
    """The step showing each of ``nrec`` records when step ``j`` begins at
    record ``order[j]`` and runs to the next step's (records before the
    first step: step 0)."""
    out, j = [0] * nrec, 0
    for r in range(nrec):
        while j + 1 < len(order) and order[j + 1] <= r:
            j += 1
        out[r] = j
    return out


def add_decisions(data: dict, rp, rec_step, labels, scores, who) -> dict:
    """``data`` with the ``decisions`` of a witnessed Replay ``rp``
    (:func:`decisions`) and, where the game paused for a person, ``paused``."""
    data["decisions"] = decisions(rp, rec_step, labels, scores, who)
    if rp.paused >= 0:
        data["paused"] = rp.paused
    return data


def decisions(rp, rec_step, labels, scores, who) -> list:
    """The viewer's decisions of a witnessed Replay ``rp`` (simcore.witness):
    per decision its step (the step showing the last event before it, so
    the position it was made in), number ``i``, who chose ``w``, the
    options in words ``o`` and as codes ``k``, the option played ``c``, the
    player's own ``p`` and, where the player scores its options, the scores
    ``v``. ``labels(d, code)``, ``scores(d)`` (None: no scores) and
    ``who(actor)`` are the game's."""
    out = []
    for d in rp.decisions:
        item = {"s": rec_step[d.events - 1] if d.events > 0 and rec_step else 0, "i": d.index, "w": who(d.actor),
                "o": [labels(d, c) for c in d.legal], "k": list(d.legal), "c": d.legal.index(d.played),
                "p": d.legal.index(d.policy) if d.policy in d.legal else -1}
        v = scores(d)
        if v is not None:
            item["v"] = v
        out.append(item)
    return out
