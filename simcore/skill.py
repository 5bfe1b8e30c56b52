"""Does a balance conclusion survive better play? Helpers for the reports'
"across skill" tables: the agreement of two rankings (Spearman's rank
correlation with a 95% interval) and a plain-words verdict.

A ranking here is a set of estimated effects (a hero's effect on the win
rate, a character's win rate against its fair share), each with a standard
error. The interval of the rank correlation is found by simulation: both sets
of effects are redrawn from their normal sampling distributions many times
and the correlation recomputed, so a ranking of effects that are all within
noise of each other gets a wide interval, however the point estimate falls.
"""
from __future__ import annotations

import numpy as np

DRAWS = 2000


def rank_agreement(a, se_a, b, se_b, seed=1):
    """(rho, low, high): Spearman's correlation of effects ``a`` and ``b``
    (same items, same order) and its simulated 95% interval."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    se_a, se_b = np.asarray(se_a, float), np.asarray(se_b, float)
    if len(a) < 3:
        return np.nan, np.nan, np.nan
    from scipy.stats import spearmanr   # here: importing scipy.stats costs every command ~2.7 s
    rho = float(spearmanr(a, b).statistic)
    rng = np.random.default_rng(seed)
    xa = a + rng.standard_normal((DRAWS, len(a))) * se_a
    xb = b + rng.standard_normal((DRAWS, len(b))) * se_b
    ra = np.argsort(np.argsort(xa, axis=1), axis=1).astype(float)
    rb = np.argsort(np.argsort(xb, axis=1), axis=1).astype(float)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    sims = (ra * rb).sum(axis=1) / np.sqrt((ra ** 2).sum(axis=1) * (rb ** 2).sum(axis=1))
    lo, hi = np.quantile(sims, [0.025, 0.975])
    return rho, float(lo), float(hi)


def ranking_verdict(rho, lo, hi) -> str:
    """Plain words for a rank correlation's interval."""
    if rho != rho:
        return "too few items to rank"
    if lo > 0.5:
        return "holds: the order is the same"
    if hi < 0.5:
        return "changes with skill: the order differs"
    return "uncertain: the interval spans agreement and disagreement"


def binary_se(p, n):
    """Standard error of a rate ``p`` over ``n`` games."""
    p, n = np.asarray(p, float), np.asarray(n, float)
    return np.sqrt(np.clip(p * (1 - p), 1e-12, None) / np.maximum(n, 1))


def within_cell_effect(values, has, cells):
    """The effect of a hero or character on ``values`` (a win, or a paired
    difference of wins, per game): in each cell the mean of the games that
    ``has`` it minus the mean of the others, averaged over cells weighted by
    its games; ``(games, effect, half)`` with the half-width of the 95%
    interval (the two means' variances, per cell), or None when no cell has
    two games with it and two without."""
    n_all, total, var = 0, 0.0, 0.0
    for c in np.unique(cells):
        inc = cells == c
        a, b = values[inc & has], values[inc & ~has]
        if len(a) < 2 or len(b) < 2:
            continue
        n_all += len(a)
        total += len(a) * (a.mean() - b.mean())
        var += len(a) ** 2 * (a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return (n_all, total / n_all, 1.96 * np.sqrt(var) / n_all) if n_all else None
