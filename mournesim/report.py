"""Readable reports of a batch of MourneQuest games (pandas at the edge).

Every rate carries a Wilson 95% interval (simcore.stats.wilson)."""
from __future__ import annotations

import pandas as pd

from simcore.stats import wilson
from . import layout as L


def rate_row(label, k, n):
    lo, hi = wilson(k, n)
    return {"what": label, "games": n, "count": k, "rate": k / n if n else float("nan"),
            "ci95_low": lo, "ci95_high": hi}


def _table(rows):
    t = pd.DataFrame(rows).set_index("what")
    t.index.name = None
    return t


def outcome_table(df: pd.DataFrame) -> pd.DataFrame:
    """Counts and rates of each outcome (and of reaching the Final Battle),
    with Wilson 95% intervals."""
    n = len(df)
    rows = [rate_row(name, int((df["outcome"] == name).sum()), n) for name in L.OUTCOME_NAMES[1:]]
    rows.append(rate_row("reached final battle", int(df["final_battle"].sum()), n))
    return _table(rows)


def milestones(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread of the per-game milestones."""
    cols = ["rounds", "hero_turns", "cast_out", "escaped", "defeated", "dice_pool_final",
            "final_battle_rounds", "wall_damage", "shimnavore_wounds", "combats", "min_life"]
    return df[cols].describe().T[["mean", "std", "min", "50%", "max"]].rename(columns={"50%": "median"})


def _fmt(df: pd.DataFrame) -> str:
    return df.to_string(float_format=lambda x: f"{x:.3f}")


def text_report(df: pd.DataFrame, title="") -> str:
    """The outcome breakdown printed by ``mournesim simulate``."""
    n = len(df)
    wins = int(df["win"].sum())
    lo, hi = wilson(wins, n)
    out = []
    if title:
        out.append(title)
    out.append(f"win rate {wins / n:.3f}  (95% CI {lo:.3f}-{hi:.3f}, {wins} of {n} games)" if n else "no games")
    out.append("")
    out.append("outcomes")
    out.append(_fmt(outcome_table(df)))
    out.append("")
    out.append("per game")
    out.append(_fmt(milestones(df)))
    fates = [c for c in df.columns if c.startswith("fate_")]
    if fates:
        out.append("")
        out.append("how nightmares ended (share of games)")
        t = pd.DataFrame({c[5:]: df[c].value_counts(normalize=True) for c in fates}).fillna(0.0).T
        out.append(_fmt(t))
    return "\n".join(out) + "\n"
