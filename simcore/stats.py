"""Confidence intervals for the rates every report prints."""
import math


def wilson(successes, n, z=1.959963984540054):
    """Wilson score interval (low, high) for ``successes`` out of ``n`` trials.

    With ``n == 0`` the interval is the whole of [0, 1]."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
