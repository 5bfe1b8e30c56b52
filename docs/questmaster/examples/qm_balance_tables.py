"""Print the Quest Master balance tables of docs/questmaster/readings-and-players.md from
one or two datasets written by ``questsim simulate --out``, per policy:
each character's win rate against its fair share, the first player's win
rate by player count, and the win-condition mix by player count.

    questsim simulate --games 50000 --players all --policy greedy,planner --seed 1 --out runs/qm
    python docs/questmaster/examples/qm_balance_tables.py runs/qm                 # one engine
    python docs/questmaster/examples/qm_balance_tables.py runs/qm-old runs/qm     # before | after, side by side

With two directories every table shows the first (``before``) and the second
(``after``) next to each other; rates are percentages, ``vs fair`` in
percentage points, intervals are Wilson 95%.
"""
from __future__ import annotations

import argparse

import pandas as pd

from questsim import report as rep
from simcore import store
from simcore.stats import wilson


def _pct(x):
    return f"{100 * x:.1f}"


def _pp(x):
    return f"{100 * x:+.1f}"


def characters(df):
    """{policy: {character: (vs_fair, win_rate, games)}}."""
    out = {}
    for pol, d in df.groupby("policy", observed=True):
        t = rep.by_character(d)
        out[pol] = {str(r.character): (r.vs_fair, r.win_rate, int(r.games)) for r in t.itertuples()}
    return out


def first_player(df):
    """{(policy, players): (rate, lo, hi)}."""
    out = {}
    for (pol, p), d in df.groupby(["policy", "players"], observed=True):
        k, n = int(d["first_player_won"].sum()), len(d)
        lo, hi = wilson(k, n)
        out[(pol, int(p))] = (k / n, lo, hi)
    return out


def conditions(df):
    """{(policy, players): {condition: share}}."""
    out = {}
    for (pol, p), d in df.groupby(["policy", "players"], observed=True):
        t = rep.win_conditions(d)
        out[(pol, int(p))] = {c: float(t[c].iloc[0]) for c in ("last_standing", "five_castles", "hp_over_40")}
        out[(pol, int(p))]["attacks"] = float(d["attacks"].mean())
        out[(pol, int(p))]["rounds"] = float(d["rounds"].median())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", help="one dataset, or two: before and after")
    a = ap.parse_args()
    dfs = [store.read_dataset(d) for d in a.dirs]
    two = len(dfs) == 2
    C = [characters(d) for d in dfs]
    F = [first_player(d) for d in dfs]
    W = [conditions(d) for d in dfs]
    for pol in C[-1]:
        print(f"\n### Characters, {pol}: win rate − fair share (pp), win rate (%)\n")
        if two:
            print("| character | before vs fair | after vs fair | before win % | after win % |")
            print("|---|---|---|---|---|")
        else:
            print("| character | vs fair | win % | seats |")
            print("|---|---|---|---|")
        order = sorted(C[-1][pol], key=lambda c: -C[-1][pol][c][0])
        for c in order:
            if two:
                b = C[0].get(pol, {}).get(c, (float("nan"),) * 3)
                n = C[1][pol][c]
                print(f"| {c} | {_pp(b[0])} | {_pp(n[0])} | {_pct(b[1])} | {_pct(n[1])} |")
            else:
                n = C[0][pol][c]
                print(f"| {c} | {_pp(n[0])} | {_pct(n[1])} | {n[2]:,} |")
    pols = list(C[-1])
    print("\n### First player's win rate (%) [95% interval], fair share 1/players\n")
    head = "| players | fair | " + " | ".join(
        f"{p} {tag}" for p in pols for tag in (("before", "after") if two else ("",))) + " |"
    print(head.replace("  |", " |"))
    print("|---" * (2 + len(pols) * (2 if two else 1)) + "|")
    for p in sorted({k[1] for k in F[-1]}):
        cells = []
        for pol in pols:
            for f in F:
                r = f.get((pol, p))
                cells.append("—" if r is None else f"{_pct(r[0])} [{_pct(r[1])}, {_pct(r[2])}]")
        print(f"| {p} | {_pct(1 / p)} | " + " | ".join(cells) + " |")
    print("\n### How games end (% of games): last standing / five castles / Hp over 40; mean attacks a game\n")
    for pol in pols:
        print(f"\n{pol}:\n")
        if two:
            print("| players | last standing | five castles | Hp > 40 | attacks/game |")
            print("|---|---|---|---|---|")
        else:
            print("| players | last standing | five castles | Hp > 40 | attacks/game | median rounds |")
            print("|---|---|---|---|---|---|")
        for p in sorted({k[1] for k in W[-1]}):
            if two:
                b, n = W[0].get((pol, p)), W[1][(pol, p)]
                cells = [f"{_pct(b[k])} → {_pct(n[k])}" for k in ("last_standing", "five_castles", "hp_over_40")]
                cells.append(f"{b['attacks']:.1f} → {n['attacks']:.1f}")
            else:
                n = W[0][(pol, p)]
                cells = [_pct(n[k]) for k in ("last_standing", "five_castles", "hp_over_40")]
                cells += [f"{n['attacks']:.1f}", f"{n['rounds']:g}"]
            print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    main()
