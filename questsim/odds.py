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
