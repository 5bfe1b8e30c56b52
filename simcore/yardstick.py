"""A fixed numba workload that measures the machine, so that a speed figure
holds across machines and across this machine's swings.

This machine's speed swings by a third from hour to hour and by half from
minute to minute when other work shares it. ``bench`` times the yardstick
beside the games and prints each policy's games per second divided by the
yardstick's millions of steps per second: a *ratio* that moves with the
engine, not with the machine. The workload is the kind of work the engines
do (a small int32 state read and written at computed offsets, data-dependent
branches, a xorshift generator) and never changes: a figure measured with it
compares with every other.
"""
import time

import numpy as np

from .jit import kernel


@kernel
def _steps(state, n, seed):
    """``n`` steps over ``state`` (64 int32 cells); returns a checksum so
    that nothing is optimised away."""
    x = np.uint64(seed) | np.uint64(1)
    acc = np.int64(0)
    for _ in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        i = np.int64(x & np.uint64(63))
        v = state[i]
        if v & 1:
            state[i] = v * 3 + 1
        elif v > 1000:
            state[(i + 7) & 63] -= v >> 2
        else:
            state[i] = v + (i ^ acc & 15)
        acc += state[(i * 5) & 63] & 255
    return acc


def steps_per_second(steps=20_000_000, repeats=3):
    """The yardstick's millions of steps per second on one core: the best of
    ``repeats`` timed runs of ``steps`` steps (compiled or loaded first,
    off the clock)."""
    state = np.arange(64, dtype=np.int32)
    _steps(state, 1000, 1)
    best = 0.0
    for r in range(repeats):
        state[:] = np.arange(64, dtype=np.int32)
        t = time.perf_counter()
        _steps(state, steps, r + 1)
        best = max(best, steps / (time.perf_counter() - t) / 1e6)
    return best
