"""The N-Tuple Bandit Evolutionary Algorithm (NTBEA) for tuning a policy's
parameters on noisy win rates.

Lucas, Liu and Perez-Liebana (2018), "The N-Tuple Bandit Evolutionary
Algorithm for Game Agent Optimisation", as used by the Tabletop Games
framework (TAG) to tune its agents. The parameters are discrete (each a list
of values). Every evaluation of a point is noisy (a win rate over a finite
number of games), so the search never trusts one evaluation: it keeps, for
every single parameter (1-tuples), every pair of parameters (2-tuples) and the
whole point (the D-tuple), the mean fitness of each combination of values it
has seen. A point's estimate is the average over its tuples, so evaluations of
*other* points that share a value inform it too — that sharing is what makes
NTBEA cope with noise on a budget of a few hundred evaluations, where a grid
would need thousands of points each played many times.

Each step mutates the current point into many neighbours, scores each with
its estimate plus an exploration bonus (UCB: ``k * sqrt(ln(N + 1) / (n + e))``,
``n`` the evaluations behind each tuple), and evaluates the best few
(``batch`` points at once, so a step's games run in parallel). The
recommendation is the evaluated point with the best estimate, without the
bonus. Everything is seeded, so a run is reproducible.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


class NTBEA:
    """The search over a grid of ``sizes[i]`` values per parameter."""

    def __init__(self, sizes, seed=1, k=0.5, epsilon=0.5, neighbours=50, mutation=None, pairs=True,
                 start=None):
        self.sizes = [int(s) for s in sizes]
        self.d = len(self.sizes)
        self.rng = np.random.default_rng(seed)
        self.k, self.eps, self.neighbours = k, epsilon, neighbours
        self.mutation = mutation if mutation is not None else 1.0 / max(1, self.d)
        dims = [(i,) for i in range(self.d)]
        if pairs and self.d > 2:
            dims += list(itertools.combinations(range(self.d), 2))
        if self.d > 1:
            dims.append(tuple(range(self.d)))
        self.tuples = dims
        self.stats = [dict() for _ in dims]      # per tuple: values -> [count, sum]
        self.n = 0
        self.seen = {}                            # point -> [count, sum] of its own evaluations
        self.current = tuple(int(x) for x in start) if start is not None else \
            tuple(int(self.rng.integers(s)) for s in self.sizes)

    def _parts(self, x):
        return [tuple(x[i] for i in t) for t in self.tuples]

    def estimate(self, x):
        """(mean estimate, upper confidence bound) of point ``x``."""
        means, bonus = [], []
        log_n = math.log(self.n + 1)
        for st, key in zip(self.stats, self._parts(x)):
            c, s = st.get(key, (0, 0.0))
            if c:
                means.append(s / c)
            bonus.append(self.k * math.sqrt(log_n / (c + self.eps)))
        mean = sum(means) / len(means) if means else 0.0
        return mean, mean + sum(bonus) / len(bonus)

    def update(self, x, fitness):
        """Record one evaluation of point ``x``."""
        x = tuple(int(v) for v in x)
        for st, key in zip(self.stats, self._parts(x)):
            c, s = st.get(key, (0, 0.0))
            st[key] = (c + 1, s + float(fitness))
        c, s = self.seen.get(x, (0, 0.0))
        self.seen[x] = (c + 1, s + float(fitness))
        self.n += 1

    def _mutate(self, x):
        y = list(x)
        changed = False
        for i in range(self.d):
            if self.sizes[i] > 1 and self.rng.random() < self.mutation:
                y[i] = int(self.rng.integers(self.sizes[i] - 1))
                if y[i] >= x[i]:
                    y[i] += 1
                changed = True
        if not changed:
            free = [i for i in range(self.d) if self.sizes[i] > 1]
            if free:
                i = free[int(self.rng.integers(len(free)))]
                y[i] = (x[i] + 1 + int(self.rng.integers(self.sizes[i] - 1))) % self.sizes[i]
        return tuple(y)

    def propose(self, batch=1):
        """The next ``batch`` points to evaluate (the first call: the start)."""
        if self.n == 0:
            out = [self.current]
            while len(out) < batch:
                y = self._mutate(self.current)
                if y not in out:
                    out.append(y)
                if len(out) >= math.prod(self.sizes):
                    break
            return out
        cands = {self._mutate(self.current) for _ in range(self.neighbours)}
        ranked = sorted(cands, key=lambda y: (-self.estimate(y)[1], y))
        out = ranked[:batch]
        self.current = out[0]
        return out

    def recommend(self):
        """The evaluated point with the best mean estimate (no exploration)."""
        return max(self.seen, key=lambda x: (self.estimate(x)[0], -sum(x)))
