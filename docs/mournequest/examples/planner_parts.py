"""Reproduce the planner tables of docs/mournequest/policies.md: the planner against the
planner as shipped in behaviour v3 (the defaults before the tuning run) and
in behaviour v2 (every part added in behaviour v3 switched off), greedy against greedy
of behaviour v2 (its ``talisman`` part off), all on this same engine, and
the worth of each part of the planner (the planner with that part switched
off), paired on the same games.

    python docs/mournequest/examples/planner_parts.py --games 20000 --ablation-games 5000 --out planner-parts.csv

Every arm of a cell plays games 0..N-1 of the same seed: the same set-ups,
heroes, dice and tiles wherever the arms play alike, so each difference is
paired (simcore.paired: mean of the per-game difference, normal 95%
interval, McNemar's test). The ablation arms play the first
``--ablation-games`` of those games and are compared with the planner on
them. Cells run in parallel, one worker per core, in chunks. Writes the rows
as CSV and the engine stamp next to it as JSON.
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

CHUNK = 5000
CELLS = (("easy", 4), ("easy", 1), ("medium", 4), ("medium", 1), ("hard", 4), ("hard", 1))


def arms():
    """{arm name: (policy, parameters, the arm it is compared with, ablation arm?)}."""
    from mournesim.policies import BUILTIN_POLICIES, PLANNER_DEFAULTS, PLANNER_PARAMS, PLANNER_V2, PLANNER_V3
    new = list(PLANNER_DEFAULTS)
    greedy = list(next(d for _, name, _, d in BUILTIN_POLICIES if name == "greedy"))
    out = {"planner": ("planner", new, None, False),
           "planner v3": ("planner", list(PLANNER_V3), "planner", False),
           "planner v2": ("planner", list(PLANNER_V2), "planner", False),
           "greedy": ("greedy", greedy, None, False),
           "greedy v2": ("greedy", greedy[:2] + [0.0, 0.0], "greedy", False)}
    for i, name in enumerate(PLANNER_PARAMS[5:], start=5):
        p = list(new)
        p[i] = 0.0 if new[i] > 0 else 1.0
        out[("no " if new[i] > 0 else "with ") + name] = ("planner", p, "planner", True)
    return out


def play(job):
    """Result rows of one chunk of one (cell, arm)."""
    level, players, policy, params, seed, first, n, ruleset = job
    from mournesim import sim
    rules = sim.prepare(ruleset)
    t = time.perf_counter()
    rows = sim.run_games(rules, sim.Config(level=level, players=players, policy=policy, params=tuple(params)),
                         seed, first, n)
    return rows, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000, help="games per cell of the planner, greedy and their v2")
    ap.add_argument("--ablation-games", type=int, default=5_000, help="games per cell of each ablation arm")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--arms", default="all", help="comma list of arm names (default: all)")
    ap.add_argument("--out", default="planner-parts.csv")
    ap.add_argument("--ruleset", default=None, help="ruleset TOML file (default: the shipped one)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines and no table")
    a = ap.parse_args(argv)
    from simcore import outdir
    stamp_file = Path(a.out).with_suffix(".json")
    outdir.check_files_or_exit(stamp_file, [a.out], "planner_parts.py")     # before any game: never over a file of the user's
    every = arms()
    want = set(every) if a.arms == "all" else set(a.arms.split(","))
    chosen = {k: v for k, v in every.items() if k in want or any(v2[2] == k for n2, v2 in every.items() if n2 in want)}
    jobs, keys = [], []
    for level, players in CELLS:
        for name, (policy, params, _, ablation) in chosen.items():
            games = min(a.ablation_games, a.games) if ablation else a.games
            for first in range(0, games, CHUNK):
                jobs.append((level, players, policy, params, a.seed, first, min(CHUNK, games - first), a.ruleset))
                keys.append((level, players, name, first))
    rows, secs, played = {}, {}, {}
    with ProcessPoolExecutor(a.workers) as ex:
        for key, (r, dt) in zip(keys, ex.map(play, jobs)):
            rows[key] = r
            secs[key[2]] = secs.get(key[2], 0.0) + dt
            played[key[2]] = played.get(key[2], 0) + len(r)
            if not a.quiet:
                print(*key, f"{dt:.1f}s", flush=True, file=sys.stderr)
    from mournesim import layout as L
    from mournesim import sim
    from simcore import identity
    from simcore.paired import compare
    from simcore.stats import wilson
    W = L.RESULT_INDEX["outcome"]
    out = []
    for level, players in CELLS:
        cell = {name: np.concatenate([r for (lv, p, n, _), r in sorted(rows.items(), key=lambda kv: kv[0][3])
                                      if (lv, p, n) == (level, players, name)]) for name in chosen}
        for name, r in cell.items():
            win = (r[:, W] == L.OUT_WIN).astype(float)
            lo, hi = wilson(win.sum(), len(win))
            rec = dict(level=level, players=players, arm=name, policy=chosen[name][0], games=len(r), win=win.mean(),
                       win_low=lo, win_high=hi, hero_died=(r[:, W] == L.OUT_HERO_DIED).mean(),
                       wall_destroyed=(r[:, W] == L.OUT_WALL_DESTROYED).mean())
            ref = chosen[name][2]
            if ref is not None:
                # the reference arm (the shipped policy) minus this arm, on the same games
                b = cell[ref][:len(r)]
                c = compare(win, (b[:, W] == L.OUT_WIN).astype(float), True)
                rec.update(vs=ref, ref_win=c["value"], ref_minus_arm=c["change"], ci95_low=c["ci95_low"],
                           ci95_high=c["ci95_high"], p_value=c["p_value"])
            for col in L.COUNTER_NAMES + ("skills_left", "relics_left", "wall_damage", "wall_repairs", "cast_out",
                                          "talismans_left"):
                rec[col] = r[:, L.RESULT_INDEX[col]].mean()
            out.append(rec)
    df = pd.DataFrame(out)
    stamp = dict(identity.engine("mournesim"), ruleset_hash=sim.prepare(a.ruleset).hash, ruleset=a.ruleset,
                 seed=a.seed, games=a.games,
                 ablation_games=a.ablation_games, arms={k: {"policy": v[0], "params": v[1]} for k, v in chosen.items()},
                 command=" ".join(["python"] + sys.argv),
                 games_per_s_per_worker={k: played[k] / v for k, v in secs.items()})
    outdir.write_files(stamp_file, {a.out: lambda tmp: df.to_csv(tmp, index=False)}, stamp, "planner_parts.py")
    pd.set_option("display.width", 200)
    if not a.quiet:
        print(df[["level", "players", "arm", "games", "win", "ref_win", "ref_minus_arm", "ci95_low", "ci95_high"]]
              .round(4).to_string(index=False))


if __name__ == "__main__":
    main()
