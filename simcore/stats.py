"""Confidence intervals for the rates every report prints, and the
corrections for many comparisons read together (Holm, Benjamini–Hochberg)."""
from math import erfc, sqrt

import numpy as np

Z95 = 1.959963984540054


def wilson_arrays(k, n, z=Z95):
    """Wilson score interval, vectorised: arrays (low, high) for ``k``
    successes of ``n`` trials; where ``n == 0`` the interval is [0, 1]."""
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    hi = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return lo, hi


def wilson(successes, n, z=Z95):
    """Wilson score interval (low, high) for ``successes`` out of ``n`` trials.

    With ``n == 0`` the interval is the whole of [0, 1]."""
    lo, hi = wilson_arrays(successes, n, z)
    return float(lo), float(hi)


def normal_p(estimate, half, z=Z95) -> float:
    """Two-sided p-value of an estimate whose 95% interval is ``estimate ±
    half`` (a normal approximation: its standard error is half / 1.96)."""
    if not half > 0:
        return 0.0 if estimate != 0 else 1.0
    return erfc(abs(estimate) / (half / z) / sqrt(2))


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values for a family of comparisons: a
    comparison whose adjusted p is below 5% stays apart from zero with the
    chance of any false finding in the whole family held at 5%."""
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini–Hochberg q-values: the comparisons with q below 5% are a
    set in which at most 5% are false findings, on average."""
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    q = np.minimum(1.0, p[order] * m / np.arange(1, m + 1))
    q = np.minimum.accumulate(q[::-1])[::-1]
    out = np.empty(m)
    out[order] = q
    return out
