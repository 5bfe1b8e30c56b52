"""Quest Master: is rollout at least as strong as the planner? Seat 0 plays
rollout, then the planner, on the same games (same characters, seats,
decks), every other seat the planner; prints seat 0's win rates and the
paired difference rollout − planner with its 95% interval, per player count.

    python docs/questmaster/examples/qm_rollout.py --games 1000 --players 2,4,6 --seed 21

With ``--deep``, seat 0 plays rollout with ``deep`` 0 and then with ``deep``
1 (it searches the decisions other than movement too) instead, and the
difference is deep 1 − deep 0.
"""
from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np


def play(args):
    """Seat 0's wins (0/1 per game) with ``policy`` in seat 0, planners elsewhere."""
    policy, players, seed, first, n = args
    from questsim import layout as L
    from questsim import plugins, sim
    rules = sim.prepare()
    params = ()
    if policy.startswith("rollout"):
        info = plugins.get("rollout")
        deep = 1.0 if policy == "rollout_deep" else 0.0
        params = tuple(deep if k == "deep" else v for k, v in zip(info.param_names, info.defaults))
    cfg = sim.Config(players, (), (policy.removesuffix("_deep"),) + ("planner",) * (players - 1), params)
    rows = sim.run_games(rules, cfg, seed, first, n)
    return (policy, players, first), rows[:, L.RESULT_INDEX["winner_seat"]] == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", default="2,4,6")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--deep", action="store_true", help="compare rollout's deep 1 with deep 0")
    a = ap.parse_args()
    chunk = 100
    pair = ("rollout", "rollout_deep") if a.deep else ("planner", "rollout")
    jobs = [(pol, int(p), a.seed, f, min(chunk, a.games - f)) for p in a.players.split(",")
            for pol in pair for f in range(0, a.games, chunk)]
    won = {}
    with ProcessPoolExecutor(a.workers) as ex:
        for (pol, p, f), w in ex.map(play, jobs):
            won.setdefault((pol, p), {})[f] = w
    print(f"| players | {pair[0]} (seat 0) | {pair[1]} (seat 0) | paired difference |\n|---|---|---|---|")
    for p in map(int, a.players.split(",")):
        r, q = (np.concatenate([won[(pol, p)][f] for f in sorted(won[(pol, p)])]).astype(float)
                for pol in (pair[1], pair[0]))
        d = r - q
        h = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        print(f"| {p} | {q.mean():.3f} | {r.mean():.3f} | {d.mean():+.3f} ± {h:.3f} |")


if __name__ == "__main__":
    main()
