"""Quest Master: is a search player stronger than the planner? Seat 0 plays
each policy in turn on the same games (same characters, seats, decks), every
other seat the planner; prints seat 0's win rates and the paired difference
against the first policy with its 95% interval, per player count.

    python docs/questmaster/examples/qm_rollout.py --games 1000 --players 2,4,6 --seed 21

``--policies`` lists the policies, the first the base (default
``planner,rollout``); ``rollout_deep`` is rollout with ``deep`` 1 (it searches
the decisions other than movement too) and ``expert@B`` the expert at budget
B; from the third policy on, each is also compared with the one before it
(``step_diff``: what a budget curve's doubling adds). ``--deep`` is short for ``--policies rollout,rollout_deep``. ``--out``
writes the table as CSV (with a JSON sidecar saying what made it):

    python docs/questmaster/examples/qm_rollout.py --games 1000 --players 2,3,4,5,6 \\
        --policies planner,expert --out experiments/results/qm-expert/ladder.csv
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np


def _params(policy):
    """The parameter vector of ``policy`` (``rollout_deep``, ``expert@B``, or a plain name)."""
    from questsim import plugins
    name = policy.removesuffix("_deep").partition("@")[0]
    if name == "planner":
        return name, ()
    info = plugins.get(name)
    over = {"deep": 1.0} if policy.endswith("_deep") else {}
    if "@" in policy:
        over["budget"] = float(policy.partition("@")[2])
    return name, tuple(over.get(k, v) for k, v in zip(info.param_names, info.defaults))


def play(args):
    """Seat 0's wins (0/1 per game) with ``policy`` in seat 0, planners elsewhere, and the seconds."""
    policy, players, seed, first, n, ruleset = args
    from questsim import layout as L
    from questsim import sim
    rules = sim.prepare(ruleset)
    name, params = _params(policy)
    cfg = sim.Config(players, (), (name,) + ("planner",) * (players - 1), params)
    t = time.perf_counter()
    rows = sim.run_games(rules, cfg, seed, first, n)
    return (policy, players, first), rows[:, L.RESULT_INDEX["winner_seat"]] == 0, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", default="2,4,6")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--policies", default="planner,rollout", help="the base first, then each policy compared with it")
    ap.add_argument("--deep", action="store_true", help="compare rollout's deep 1 with deep 0")
    ap.add_argument("--out", default=None, help="write the table as CSV here (and a JSON sidecar)")
    ap.add_argument("--ruleset", default=None, help="ruleset TOML file (default: the shipped one)")
    a = ap.parse_args()
    pols = ("rollout", "rollout_deep") if a.deep else tuple(a.policies.split(","))
    if a.out:
        from simcore import outdir
        outdir.check_files_or_exit(Path(a.out).with_suffix(".json"), [a.out], "qm_rollout.py")
    chunk = 100
    jobs = [(pol, int(p), a.seed, f, min(chunk, a.games - f), a.ruleset) for p in a.players.split(",")
            for pol in pols for f in range(0, a.games, chunk)]
    won, secs = {}, {}
    with ProcessPoolExecutor(a.workers) as ex:
        for (pol, p, f), w, dt in ex.map(play, jobs):
            won.setdefault((pol, p), {})[f] = w
            secs[(pol, p)] = secs.get((pol, p), 0.0) + dt
    rows = []
    for p in map(int, a.players.split(",")):
        wins = {pol: np.concatenate([won[(pol, p)][f] for f in sorted(won[(pol, p)])]).astype(float) for pol in pols}
        for i, pol in enumerate(pols):
            d = wins[pol] - wins[pols[0]]
            row = dict(players=p, policy=pol, games=len(d), win_rate=wins[pol].mean(), paired_diff=d.mean(),
                       paired_half=1.96 * d.std(ddof=1) / np.sqrt(len(d)), games_per_s=len(d) / secs[(pol, p)])
            if i >= 2:      # a budget curve: against the policy before it, on the same games
                step = wins[pol] - wins[pols[i - 1]]
                row.update(step_diff=step.mean(), step_half=1.96 * step.std(ddof=1) / np.sqrt(len(step)))
            rows.append(row)
    print(f"| players | policy (seat 0) | win rate | paired difference against {pols[0]} | games/s (one worker) |")
    print("|---|---|---|---|---|")
    for r in rows:
        diff = "" if r["policy"] == pols[0] else f"{r['paired_diff']:+.3f} ± {r['paired_half']:.3f}"
        print(f"| {r['players']} | {r['policy']} | {r['win_rate']:.3f} | {diff} | {r['games_per_s']:,.1f} |")
    if a.out:
        import pandas as pd
        from questsim import sim
        from simcore import identity, outdir
        stamp = dict(identity.engine("questsim"), ruleset_hash=sim.prepare(a.ruleset).hash, ruleset=a.ruleset,
                     overrides=[], seed=a.seed, games=a.games,
                     policies=",".join(pols), players=a.players, command=" ".join(["python"] + sys.argv))
        outdir.write_files(Path(a.out).with_suffix(".json"), {a.out: lambda tmp: pd.DataFrame(rows).to_csv(tmp, index=False)},
                           stamp, "qm_rollout.py")


if __name__ == "__main__":
    main()
