"""Exact dice odds of Quest Master (``questsim odds``), by enumerating the
faces of the red and blue dice (no simulation): what a movement roll offers
(QM-MOVE-01..08) and the Mp a duellist rolls (attacker red, defender blue;
QM-GAP-30, symbols count ``rules.mp_symbol_value``)."""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import pandas as pd


def _faces(rules):
    d = rules.ruleset.dice
    return d.red, d.blue


def roll_cases(rules) -> pd.DataFrame:
    """Every kind of movement roll and its exact chance: two numbers (move
    the sum), a number and a symbol (move the number or take the symbol),
    two symbols (take one, or stay)."""
    red, blue = _faces(rules)
    p1 = Fraction(1, len(red) * len(blue))
    cases = {}
    for r, b in product(red, blue):
        nums = [x for x in (r, b) if isinstance(x, int)]
        syms = [x for x in (r, b) if not isinstance(x, int)]
        if len(nums) == 2:
            key = ("two numbers", f"move {r + b}")
        elif nums:
            key = ("a number and a symbol", f"move {nums[0]} or take {syms[0]}")
        else:
            key = ("two symbols", f"take {r} or {b}")
        cases[key] = cases.get(key, 0) + p1
    rows = [dict(roll=k[0], choice=k[1], chance=float(p), exact=str(p)) for k, p in cases.items()]
    return pd.DataFrame(rows).sort_values(["roll", "choice"], ignore_index=True)


def movement_distribution(rules) -> dict:
    """Exact chance of each number of squares moved when the player always
    moves when a number shows and stays on two symbols: ``{k: Fraction}``."""
    red, blue = _faces(rules)
    dist = {}
    for r, b in product(red, blue):
        k = (r if isinstance(r, int) else 0) + (b if isinstance(b, int) else 0)
        dist[k] = dist.get(k, 0) + Fraction(1, len(red) * len(blue))
    return dict(sorted(dist.items()))


def mp_distribution(rules, die) -> dict:
    """Exact Mp of a duellist rolling ``die`` ("red": the attacker, "blue":
    the defender): ``{mp: Fraction}``."""
    faces = _faces(rules)[0 if die == "red" else 1]
    sym = rules.ruleset.rules.mp_symbol_value
    dist = {}
    for f in faces:
        v = f if isinstance(f, int) else sym
        dist[v] = dist.get(v, 0) + Fraction(1, len(faces))
    return dict(sorted(dist.items()))


def tables(rules) -> dict:
    """The named tables ``questsim odds`` prints."""
    move = movement_distribution(rules)
    red, blue = mp_distribution(rules, "red"), mp_distribution(rules, "blue")
    mps = sorted(set(red) | set(blue))
    duel = pd.DataFrame([dict(mp=m, attacker_red=float(red.get(m, 0)), defender_blue=float(blue.get(m, 0)),
                              exact=f"{red.get(m, 0)} / {blue.get(m, 0)}") for m in mps])
    both = sum(pr * pb for (a, pr) in red.items() for (d, pb) in blue.items() if a > d)
    return {
        "movement roll (red + blue die)": roll_cases(rules),
        "squares moved (always move on a number, stay on two symbols)":
            pd.DataFrame([dict(squares=k, chance=float(p), exact=str(p)) for k, p in move.items()]),
        f"duel Mp (attacker more Mp than defender: {float(both):.3f})": duel,
    }


# ---- the studio's dice calculator ---------------------------------------------

CALCULATOR = (
    dict(name="roll", kind="choice", default="movement", choices=("movement", "duel"),
         help="movement: squares moved by the red and blue dice; duel: the Mp each duellist rolls"),
)


def calculate(rules, values: dict) -> dict:
    """The studio's dice calculator: the exact distribution of a movement
    roll (squares moved, always moving on a number) or of the duellists' Mp
    (attacker red, defender blue)."""
    from simcore.errors import InputError
    if values["roll"] == "movement":
        dist = movement_distribution(rules)
        return {"title": "squares moved by a movement roll (a number moves, two symbols stay)",
                "bars": [dict(label=str(k), p=float(p), exact=str(p), hit=k > 0) for k, p in dist.items()],
                "summary": [f"stays (two symbols): {float(dist.get(0, 0)):.1%} ({dist.get(0, 0)})",
                            f"squares on average: {float(sum(k * p for k, p in dist.items())):.2f}"]}
    if values["roll"] == "duel":
        red, blue = mp_distribution(rules, "red"), mp_distribution(rules, "blue")
        more = sum(pr * pb for a, pr in red.items() for d, pb in blue.items() if a > d)
        return {"title": "Mp rolled in a duel: the attacker's red die (the defender's blue die below)",
                "bars": [dict(label=f"red {k}", p=float(p), exact=str(p), hit=True) for k, p in red.items()]
                + [dict(label=f"blue {k}", p=float(p), exact=str(p), hit=False) for k, p in blue.items()],
                "summary": [f"the attacker rolls more Mp: {float(more):.1%} ({more})"]}
    raise InputError(f"roll: {values['roll']!r}: movement or duel")
