"""Reproduce the "What the players use" tables of docs/mournequest/policies.md.

1. The decisions table: the mean count per game of every decision counter
   of the result row (docs/mournequest/results.md) for random, greedy and the planner.
2. For each rule a heuristic policy (greedy, planner) never or almost never
   uses (below ``--rare`` a game), a paired run of that policy against the
   same policy forced to take that choice whenever it is legal
   (docs/mournequest/examples/forced_rule.py) on the same games: what the rule would
   have been worth to it.

    python docs/mournequest/examples/unused_rules.py --games 20000 --forced-games 5000 --out unused-rules

The forced policy is a plug-in: its engine copy compiles once (minutes).
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
CHUNK = 5000
CELLS = (("medium", 4), ("medium", 1))
# decision counter -> the operation a forced run takes whenever it is legal
# (mournesim.layout codes); None: no choice of its own to force
FORCE = {
    "trades_charm": "A_TRADE", "trades_relic": "A_TRADE_RELIC", "repairs_granite": "A_REPAIR",
    "repairs_relic": "A_RELIC", "equipment_passes": "A_PASS", "surplus_takes": "A_SURPLUS",
    "equipment_draws": "A_DRAW_EQ", "cards_declined": "A_DISCARD_CARD", "rewards_declined": "A_REWARD_DECLINED",
    "talisman_combat": "R_TALISMAN", "talisman_compass": "R_TALISMAN", "talisman_wall": "R_TALISMAN",
    "skills_used": "A_SKILL", "skills_final": None, "relics_used": "A_RELIC", "relics_final": None,
    "reactions_wasted": None, "attacks_bogbean": "A_ATTACK", "attacks_nightmare": "A_ATTACK",
    "attacks_shimnavore": "A_ATTACK", "heals": "A_HEAL", "pots": None, "charm_discards": "A_DISCARD_CHARM",
}


def play(job):
    """Result rows of one chunk: (policy, params or None, level, players, seed, first, n)."""
    policy, params, level, players, seed, first, n = job
    from mournesim import plugins, sim
    if policy == "forced":
        plugins.load_plugin(str(HERE / "forced_rule.py"))
    rules = sim.prepare()
    cfg = sim.Config(level=level, players=players, policy=policy, params=tuple(params or ()))
    t = time.perf_counter()
    rows = sim.run_games(rules, cfg, seed, first, n)
    return rows, time.perf_counter() - t


def run(jobs, workers):
    with ProcessPoolExecutor(workers) as ex:
        return list(ex.map(play, jobs))


def chunks(policy, params, level, players, seed, games):
    return [(policy, params, level, players, seed, f, min(CHUNK, games - f)) for f in range(0, games, CHUNK)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000, help="games per cell for the decisions table")
    ap.add_argument("--forced-games", type=int, default=5_000, help="games per cell for each forced run")
    ap.add_argument("--rare", type=float, default=0.05, help="a rule used less often a game counts as unused")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--out", default="unused-rules")
    a = ap.parse_args()
    from simcore import outdir
    stamp_file, outs = Path(f"{a.out}.json"), [Path(f"{a.out}-decisions.csv"), Path(f"{a.out}-forced.csv")]
    outdir.check_files_or_exit(stamp_file, outs, "unused_rules.py")     # before any game: never over a file of the user's
    from mournesim import layout as L
    from mournesim import sim
    from mournesim.policies import PLANNER_DEFAULTS
    from simcore import identity
    from simcore.paired import compare
    W = L.RESULT_INDEX["outcome"]
    # 1. what each policy does
    table, base_rows = [], {}
    for policy in ("random", "greedy", "planner"):
        for level, players in CELLS:
            r = np.concatenate([x for x, _ in run(chunks(policy, None, level, players, a.seed, a.games), a.workers)])
            base_rows[(policy, level, players)] = r
            rec = dict(policy=policy, level=level, players=players, games=len(r), win=(r[:, W] == L.OUT_WIN).mean())
            for c in L.COUNTER_NAMES + ("skills_left", "relics_left"):
                rec[c] = r[:, L.RESULT_INDEX[c]].mean()
            table.append(rec)
    dec = pd.DataFrame(table)
    # 2. the rules greedy and the planner leave (almost) unused, forced
    forced = []
    play(("forced", list(PLANNER_DEFAULTS) + [1.0, 0.0], "medium", 4, a.seed, 0, 1))   # compile its engine once
    for policy, base in (("greedy", 0.0), ("planner", 1.0)):
        d = dec[dec.policy == policy]
        for counter, op in FORCE.items():
            if op is None or (d[counter] >= a.rare).any():
                continue
            params = list(PLANNER_DEFAULTS) + [base, float(getattr(L, op))]
            for level, players in CELLS:
                n = a.forced_games
                r = np.concatenate([x for x, _ in run(chunks("forced", params, level, players, a.seed, n), a.workers)])
                b = base_rows[(policy, level, players)][:n]
                c = compare((b[:, W] == L.OUT_WIN).astype(float), (r[:, W] == L.OUT_WIN).astype(float), True)
                forced.append(dict(policy=policy, rule=counter, forced_op=op, level=level, players=players, games=n,
                                   uses_base=b[:, L.RESULT_INDEX[counter]].mean(),
                                   uses_forced=r[:, L.RESULT_INDEX[counter]].mean(),
                                   win_base=c["baseline"], win_forced=c["value"], change=c["change"],
                                   ci95_low=c["ci95_low"], ci95_high=c["ci95_high"], p_value=c["p_value"]))
                print(forced[-1], flush=True, file=sys.stderr)
    stamp = dict(identity.engine("mournesim"), ruleset_hash=sim.prepare().hash, seed=a.seed, games=a.games,
                 forced_games=a.forced_games, rare=a.rare, command=" ".join(["python"] + sys.argv))
    outdir.write_files(stamp_file, {outs[0]: lambda tmp: dec.to_csv(tmp, index=False),
                                    outs[1]: lambda tmp: pd.DataFrame(forced).to_csv(tmp, index=False)},
                       stamp, "unused_rules.py")
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    print(dec.round(3).T.to_string())
    print(pd.DataFrame(forced).round(4).to_string(index=False))


if __name__ == "__main__":
    main()
