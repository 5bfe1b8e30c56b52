"""Check candidate planner defaults at every level before adopting them: each
combination of the values a tuning run recommended, against the defaults of
behaviour v3, on the same games (paired) in all six cells (3 levels x solo
and four players). This is the check behind behaviour v4 (docs/mournequest/policies.md,
"Adopting a tuning run, checked at every level first").

    python docs/mournequest/examples/planner_candidates.py --games 3000

Prints, per cell, each candidate's win rate and its change against v3's
defaults with the normal 95% half-width of the paired difference.
"""
import argparse
import itertools
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np

CELLS = [(lv, p) for lv in ("easy", "medium", "hard") for p in (4, 1)]
# the v3 tuning run's recommendation, value by value (the rest as in v3)
TRIED = {"risk": (0.55, 0.45), "assign": (1.0, 0.0), "passes": (0.0, 1.0)}


def candidates():
    """{name: parameter vector}: every combination of ``TRIED``, v3 first."""
    from mournesim.policies import PLANNER_PARAMS, PLANNER_V3
    out = {}
    for combo in itertools.product(*TRIED.values()):
        p = list(PLANNER_V3)
        for name, v in zip(TRIED, combo):
            p[PLANNER_PARAMS.index(name)] = v
        key = "v3" if tuple(p) == PLANNER_V3 else " ".join(f"{n} {v:g}" for n, v in zip(TRIED, combo))
        out[key] = tuple(p)
    return dict(sorted(out.items(), key=lambda kv: kv[0] != "v3"))


def play(job):
    """Wins (0/1 per game) of one candidate in one cell."""
    level, players, params, seed, n = job
    from mournesim import layout as L
    from mournesim import sim
    r = sim.run_games(sim.prepare(), sim.Config(level=level, players=players, policy="planner", params=params),
                      seed, 0, n)
    return (r[:, L.RESULT_INDEX["outcome"]] == L.OUT_WIN).astype(float)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3000, help="games per cell and candidate")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    a = ap.parse_args()
    cand = candidates()
    jobs = [(lv, p, params, a.seed, a.games) for lv, p in CELLS for params in cand.values()]
    with ProcessPoolExecutor(a.workers) as ex:
        wins = dict(zip([(lv, p, name) for lv, p in CELLS for name in cand], ex.map(play, jobs)))
    for lv, p in CELLS:
        base = wins[(lv, p, "v3")]
        print(f"{lv} {'solo' if p == 1 else p}")
        for name in cand:
            d = wins[(lv, p, name)] - base
            print(f"  {name:28s} {wins[(lv, p, name)].mean():.3f}  {d.mean():+.3f} ± "
                  f"{1.96 * d.std(ddof=1) / np.sqrt(len(d)):.3f}")


if __name__ == "__main__":
    main()
