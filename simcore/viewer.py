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
  ``kinds`` (the space kinds' swatches: ``fill``, ``shape``, ``text``).
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


def page(data: dict) -> str:
    """The viewer page for ``data`` (see the module docstring), one HTML string.
    Every value is data: the title escaped as HTML text, the rest as JSON
    inside the page that its script shows as text (``textContent``), never
    as markup. The two placeholders are filled in one pass, so nothing in
    the title or the data can stand for the other."""
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
