"""Paired comparisons: a variant's change in a measure against the baseline,
game by game on the same ``(seed, game)`` pairs (common random numbers).

For each pair the difference ``d = variant - baseline`` is formed; the change
is the mean of ``d`` with the normal 95% interval ``mean ± z·sd(d)/√n``. For a
win/loss measure this is the matched-pairs difference of proportions and the
test is McNemar's on the discordant pairs (exact binomial when there are
fewer than 25 of them); for a count or length it is the paired t-test.
``se_ratio`` says how much wider the interval would be had the two arms been
played on independent games (``sqrt(var(x)/n + var(y)/n) / (sd(d)/√n)``), and
``variance_reduction`` is ``1 - 1/se_ratio²``: the share of the unpaired
variance that pairing removed. Over several cells (the ``all`` rows) the
unpaired comparison is taken cell by cell (stratified).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import Z95

EXACT_BELOW = 25     # discordant pairs below which McNemar's test is exact


def compare(x, y, binary: bool) -> dict:
    """The paired comparison of arrays ``y`` (variant) and ``x`` (baseline)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = len(x)
    d = y - x
    mean = float(d.mean()) if n else float("nan")
    sd = float(d.std(ddof=1)) if n > 1 else float("nan")
    se = sd / np.sqrt(n) if n > 1 else float("nan")
    se_u = float(np.sqrt(x.var(ddof=1) / n + y.var(ddof=1) / n)) if n > 1 else float("nan")
    if binary:
        b = int(((x == 1) & (y == 0)).sum())
        c = int(((x == 0) & (y == 1)).sum())
        if b + c == 0:
            p = 1.0
        else:
            a = int(((x == 1) & (y == 1)).sum())
            table = [[a, b], [c, n - a - b - c]]
            # imported here: scipy.stats and statsmodels take about a second to
            # import, which a command refusing its input should not pay
            from statsmodels.stats.contingency_tables import mcnemar
            p = float(mcnemar(table, exact=b + c < EXACT_BELOW, correction=True).pvalue)
        test = "McNemar" + (" exact" if 0 < b + c < EXACT_BELOW else "")
    else:
        b = c = None
        from scipy import stats as sps
        p = 1.0 if not se > 0 else float(2 * sps.t.sf(abs(mean / se), n - 1))
        test = "paired t"
    ratio = se_u / se if se > 0 else float("nan")
    return dict(n=n, baseline=float(x.mean()) if n else float("nan"), value=float(y.mean()) if n else float("nan"),
                change=mean, ci95_low=mean - Z95 * se if se == se else mean,
                ci95_high=mean + Z95 * se if se == se else mean, half_width=Z95 * se if se == se else float("nan"),
                p_value=p, test=test, worse=b, better=c, se_unpaired=se_u, se_ratio=ratio,
                variance_reduction=1 - 1 / ratio ** 2 if ratio == ratio and ratio > 0 else float("nan"))


def table(df: pd.DataFrame, measures: dict, keys, baseline="baseline", pooled=True) -> pd.DataFrame:
    """Every arm against ``baseline`` for every measure, within each cell of
    ``keys`` (and over all cells as ``all`` when there are several).

    ``df`` has one row per (arm, cell, game) with an ``arm`` column, the
    ``keys`` columns, ``game`` and one numeric column per measure;
    ``measures`` maps a measure name to True when it is a 0/1 outcome."""
    keys = list(keys)
    base = df[df["arm"] == baseline]
    rows = []
    cells = list(base[keys].drop_duplicates().sort_values(keys).itertuples(index=False, name=None)) if keys else [()]
    if pooled and len(cells) > 1:
        cells.append(None)
    for arm in [a for a in df["arm"].unique() if a != baseline]:
        other = df[df["arm"] == arm]
        merged = base.merge(other, on=keys + ["game"], suffixes=("_b", "_v"))
        for cell in cells:
            m = merged
            if cell is not None and keys:
                sel = np.ones(len(m), bool)
                for k, v in zip(keys, cell):
                    sel &= (m[k] == v).to_numpy()
                m = m[sel]
            label = dict(zip(keys, cell)) if cell is not None else {k: "all" for k in keys}
            for name, binary in measures.items():
                r = compare(m[name + "_b"].to_numpy(), m[name + "_v"].to_numpy(), binary)
                if cell is None and keys:
                    _stratify(r, [x for x in rows if x["arm"] == arm and x["measure"] == name])
                rows.append(dict(arm=arm, **label, measure=name, **r))
    return pd.DataFrame(rows)


def _stratify(pooled, cells):
    """Over several cells, independent games would be compared cell by cell
    (stratified), so the unpaired standard error of the pooled change is
    ``sqrt(sum((n_c/N)^2 se_c^2))``, not the one of the mixed games (which
    counts the differences between cells as noise)."""
    n = sum(c["n"] for c in cells)
    se_u = float(np.sqrt(sum((c["n"] / n) ** 2 * c["se_unpaired"] ** 2 for c in cells)))
    se = pooled["half_width"] / Z95
    pooled["se_unpaired"] = se_u
    pooled["se_ratio"] = se_u / se if se > 0 else float("nan")
    r = pooled["se_ratio"]
    pooled["variance_reduction"] = 1 - 1 / r ** 2 if r == r and r > 0 else float("nan")


def mean_interval(values, binary: bool):
    """(mean, low, high) of one arm's measure: Wilson for a 0/1 outcome,
    normal for a count."""
    from .stats import wilson
    v = np.asarray(values, float)
    n = len(v)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    if binary:
        lo, hi = wilson(v.sum(), n)
        return float(v.mean()), lo, hi
    h = Z95 * v.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
    return float(v.mean()), float(v.mean() - h), float(v.mean() + h)


def turned(frame: pd.DataFrame, measure: str, arm: str, baseline="baseline", k=3) -> dict:
    """The games of one cell whose win/loss ``measure`` the ``arm`` turned,
    the first ``k`` each way: ``won`` (0 in the baseline, 1 in the arm) and
    ``lost`` (the reverse), by game number; ``frame``: the cell's games of
    both arms (columns ``arm``, ``game`` and ``measure``)."""
    by = frame[frame["arm"].isin([baseline, arm])].pivot_table(index="game", columns="arm", values=measure)
    if baseline not in by or arm not in by:
        return {"won": [], "lost": []}
    d = (by[arm] - by[baseline]).dropna()
    return {"won": [int(g) for g in d.index[d > 0][:k]], "lost": [int(g) for g in d.index[d < 0][:k]]}
