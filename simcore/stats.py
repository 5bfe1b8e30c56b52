"""Confidence intervals for the rates every report prints."""
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
