"""Report tables as a person reads them: the terminal, Markdown and HTML
reports show each table through :func:`readable`; CSV and JSON keep the raw
columns for a program.

- a rate and its Wilson 95% interval (``win_rate`` with ``ci95_low`` and
  ``ci95_high``) is one column, ``43.0% (40.7–45.4)``;
- an effect with its interval (``effect`` with ``effect_low`` and
  ``effect_high``) reads in percentage points, ``+4.1 pp (+3.1 to +5.2)``;
- a share (``fair_share``, the columns of ``SHARE_COLUMNS``, and every
  fraction of a table whose title says "share of games") is a percentage;
- ids (heroes, characters, teams, levels, end kinds as column names) read
  as the ruleset names them (its ``[names]``);
- column names are words, and an empty table says so instead of printing
  an empty frame.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

# columns whose values are ids, or teams of ids joined by " + "
ID_COLUMNS = ("hero", "character", "level", "pair", "heroes", "team", "nightmare", "outcome", "win_condition")
RAW_INTERVAL = ("ci95_low", "ci95_high")
# shares in tables that also hold counts or means (so their titles cannot
# say "share of games"): MourneQuest's losses and close games, Quest Master's closeness
SHARE_COLUMNS = ("fair_share", "before_final_battle", "in_it_to_the_wall", "in_it_a_hero_died", "one_win_short",
                 "under_four_dice", "games_won", "close_wins", "wall_damaged", "last_life_point", "one_castle_short",
                 "runaway", "comeback")
EMPTY = "(none in these games)"


def percent(x: float, digits: int = 1) -> str:
    """``0.43`` -> ``43.0%``."""
    return f"{100 * x:.{digits}f}%"


def rate_text(rate: float, low: float, high: float) -> str:
    """A rate with its interval: ``43.0% (40.7–45.4)``; finer where the
    interval is narrower than a tenth of a point, so it never reads
    ``82.0% (82.0–82.0)``."""
    digits = 2 if high - low < 0.002 else 1
    return f"{percent(rate, digits)} ({100 * low:.{digits}f}–{100 * high:.{digits}f})"


def points_text(d: float, low: float, high: float) -> str:
    """A difference of rates with its interval, in percentage points:
    ``+4.1 pp (+3.1 to +5.2)``."""
    return f"{_signed(100 * d)} pp ({_signed(100 * low)} to {_signed(100 * high)})"


def name_of(names: dict | None, v) -> str:
    """An id (or a team of ids joined by " + ") by its name; an id without
    one reads with spaces for underscores."""
    names = names or {}
    s = str(v)
    if " + " in s:
        return " + ".join(name_of(names, p) for p in s.split(" + "))
    return names.get(s, s.replace("_", " "))


def _signed(x: float) -> str:
    """A signed value to one place, never "-0.0"."""
    t = f"{x:+.1f}"
    return "+0.0" if t == "-0.0" else t


def readable(t: pd.DataFrame, names: dict | None = None, shares: bool = False) -> pd.DataFrame:
    """Table ``t`` as a person reads it (module docstring); ``names``: id ->
    display name; ``shares``: its fractions are shares of games."""
    names = names or {}
    t = t.copy()
    out = {}
    skip = set()
    for c in t.columns:
        if c in skip or c in RAW_INTERVAL:
            continue
        col = t[c]
        label = name_of(names, c)
        if (c == "win_rate" or c.endswith("_rate")) and all(k in t.columns for k in RAW_INTERVAL):
            out[f"{label} (95% CI)"] = [rate_text(r, lo, hi) if pd.notna(r) else "–"
                                        for r, lo, hi in zip(col, t["ci95_low"], t["ci95_high"])]
        elif f"{c}_low" in t.columns and f"{c}_high" in t.columns:
            skip |= {f"{c}_low", f"{c}_high"}
            out[f"{label} (95% CI)"] = [points_text(d, lo, hi) if pd.notna(d) and pd.notna(lo) else "–"
                                        for d, lo, hi in zip(col, t[f"{c}_low"], t[f"{c}_high"])]
        elif c in ID_COLUMNS:
            out[label] = [name_of(names, v) for v in col]
        elif pd.api.types.is_float_dtype(col) and (c in SHARE_COLUMNS or (shares and c not in ("games",))):
            out[label] = [percent(x) if pd.notna(x) else "–" for x in col]
        else:
            out[label] = col.to_numpy()
    return pd.DataFrame(out)


def is_share_table(title: str) -> bool:
    """Whether a report table's fractions are shares of games or win rates
    without intervals (a head-to-head matrix): its title says so."""
    return "(share of games)" in title or "win rate against the column" in title


def text_table(t: pd.DataFrame, float_format) -> str:
    """An aligned text table, or the line that says it is empty."""
    if t.empty:
        return EMPTY
    return t.to_string(index=False, float_format=float_format)


def is_number(x) -> bool:
    return isinstance(x, (float, np.floating))


def named(value, names: dict, keep=()):
    """``value`` (a replay record, or any str / list / dict in one) with
    every string that is an id of ``names`` replaced by its name; the keys
    in ``keep`` (the fields a reader's logic tests: event and action kinds)
    stay as they are."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [named(v, names) for v in value]
    if isinstance(value, dict):
        return {k: v if k in keep else named(v, names) for k, v in value.items()}
    return value
