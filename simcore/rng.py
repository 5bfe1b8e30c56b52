"""Per-game random streams: SplitMix64 seeding of xoshiro256**.

Every game owns its generator state, derived from ``(master_seed, game_index,
stream)``, so game ``i`` of seed ``S`` is the same whatever the number of
workers or the batch size, and two rule variants played on the same ``(S, i)``
see the same dice (common random numbers). Streams separate set-up shuffles,
dice and policy choices so a what-if change in one does not shift the others.

The state of one stream is four uint64 words in a caller-owned array.
"""
import numpy as np
from numba import njit

STREAM_SETUP = 0      # shuffles, random disc placement, hero draw
STREAM_DICE = 1       # combat, compass and wall dice
STREAM_POLICY = 2     # the policies' own randomness
STREAM_ENCOUNTER = 3  # encounter tiles drawn from the bag during play
N_STREAMS = 4

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, _nrt=False)
def _splitmix(x):
    """One SplitMix64 step: returns (new_state, output)."""
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return x, z ^ (z >> np.uint64(31))


@njit(cache=True, _nrt=False)
def seed_streams(master_seed, game_index, out):
    """Fill ``out`` (uint64[N_STREAMS*4]) with the streams of one game."""
    x = np.uint64(master_seed)
    x, a = _splitmix(x)
    x = a ^ (np.uint64(game_index) * np.uint64(0xD1B54A32D192ED03))
    for s in range(N_STREAMS):
        y = x ^ (np.uint64(s + 1) * _GOLDEN)
        for k in range(4):
            y, v = _splitmix(y)
            out[s * 4 + k] = v


@njit(cache=True, _nrt=False)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, _nrt=False)
def next_u64(st, s):
    """Next 64-bit output of stream ``s`` held in ``st``."""
    o = s * 4
    s0 = st[o]
    s1 = st[o + 1]
    s2 = st[o + 2]
    s3 = st[o + 3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    st[o] = s0
    st[o + 1] = s1
    st[o + 2] = s2
    st[o + 3] = s3
    return result


@njit(cache=True, _nrt=False)
def randint(st, s, n):
    """Uniform integer in [0, n) from stream ``s`` (Lemire's method, unbiased)."""
    bound = np.uint64(n)
    while True:
        r = next_u64(st, s)
        # 128-bit multiply via 32-bit halves: high word of r * bound
        rl = r & np.uint64(0xFFFFFFFF)
        rh = r >> np.uint64(32)
        bl = bound & np.uint64(0xFFFFFFFF)
        bh = bound >> np.uint64(32)
        ll = rl * bl
        lh = rl * bh
        hl = rh * bl
        hh = rh * bh
        mid = (ll >> np.uint64(32)) + (lh & np.uint64(0xFFFFFFFF)) + (hl & np.uint64(0xFFFFFFFF))
        hi = hh + (lh >> np.uint64(32)) + (hl >> np.uint64(32)) + (mid >> np.uint64(32))
        lo = r * bound
        # reject lo < (2**64 - bound) % bound; that threshold is below bound,
        # so its division is needed only in the rare case lo < bound
        if lo >= bound or lo >= (np.uint64(0) - bound) % bound:
            return np.int64(hi)


@njit(cache=True, _nrt=False)
def shuffle(st, s, arr, n):
    """Fisher-Yates shuffle of the first ``n`` entries of ``arr`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint(st, s, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
