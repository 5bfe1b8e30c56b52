"""Reproduce the skill-ladder table of docs/mournequest/policies.md.

    python docs/mournequest/examples/ladder.py --games 100000 --search-games 2000 --out ladder.csv

Every cell plays games 0..N-1 of the same seed, so the policies meet the same
set-ups and (where their play coincides) the same dice: the rollout-vs-planner
difference is a paired comparison. Cells run in parallel, one per core, in
chunks so a long run shows its progress.

``rollout_deep`` in ``--policies`` is rollout with ``deep`` 1 (it searches
the decisions inside a turn too); with ``rollout`` beside it the paired
difference is ``rollout_deep`` − ``rollout``:

    python docs/mournequest/examples/ladder.py --games 600 --search-games 600 --players 4 --policies rollout,rollout_deep

``expert@B`` is the expert at budget B (``expert`` alone: its default); its
paired difference is against the planner, so a budget curve is

    python docs/mournequest/examples/ladder.py --search-games 400 --levels medium,hard --players 4,1 \
        --policies planner,expert@1,expert@2,expert@4,expert@8 --games 400

``--heroes`` also writes ``<out>-heroes.csv``: each hero's effect for every
policy (the win rate of the games with the hero minus the games without,
within a level and player count, averaged over cells weighted by the hero's
games, as the balance report's) and, for every paired difference above, how
much the effect moves between the two policies on the same games (``policy``
``expert-planner``), each with a 95% interval.
"""
import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.stats import wilson

CHUNK = 20_000


def cell(args):
    """Play one chunk of one cell; returns (key, first game, wins array,
    heroes array (games x 4, -1 for an empty seat), seconds)."""
    policy, level, players, seed, first, n, ruleset = args
    from mournesim import plugins, sim   # imported in the worker
    t = time.perf_counter()
    rules = sim.prepare(ruleset)
    params = ()
    name = policy.removesuffix("_deep").partition("@")[0]
    if policy == "rollout_deep":
        info = plugins.get("rollout")
        params = tuple(1.0 if k == "deep" else v for k, v in zip(info.param_names, info.defaults))
    if "@" in policy:
        info = plugins.get(name)
        budget = float(policy.partition("@")[2])
        params = tuple(budget if k == "budget" else v for k, v in zip(info.param_names, info.defaults))
    config = sim.Config(level=level, players=players, policy=name, params=params)
    rows = sim.run_games(rules, config, seed, first, n)
    from mournesim import layout as L
    wins = rows[:, L.RESULT_INDEX["outcome"]] == L.OUT_WIN
    heroes = rows[:, L.RESULT_INDEX["hero1"]:L.RESULT_INDEX["hero1"] + 4].copy()
    return (policy, level, players), first, wins, heroes, time.perf_counter() - t


def hero_effects(values, heroes, cells, names):
    """Per hero: the games with the hero, and the mean of ``values`` (a win,
    or a paired difference of wins) in them minus in the games without, within
    each cell, averaged over cells weighted by the hero's games; with the
    half-width of its 95% interval (simcore.skill.within_cell_effect)."""
    from simcore.skill import within_cell_effect
    rows = []
    for k, name in enumerate(names):
        got = within_cell_effect(values, (heroes == k).any(axis=1), cells)
        if got:
            rows.append(dict(hero=name, games=got[0], effect=got[1], half=got[2]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="games per heuristic cell")
    ap.add_argument("--search-games", type=int, default=2_000, help="games per rollout cell")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--policies", default="random,greedy,planner,rollout")
    ap.add_argument("--out", default="ladder.csv")
    ap.add_argument("--ruleset", default=None, help="ruleset TOML file (default: the shipped one)")
    ap.add_argument("--players", default="4,1", type=lambda t: [int(x) for x in t.split(",")],
                    help="player counts (default 4,1: four players and solo)")
    ap.add_argument("--levels", default="easy,medium,hard", help="levels (default all three)")
    ap.add_argument("--cells", default=None,
                    help="level:players pairs instead of every level x player count, e.g. easy:2,medium:1")
    ap.add_argument("--heroes", action="store_true", help="also write each hero's effect per policy to <out>-heroes.csv")
    a = ap.parse_args()
    cells = [(lv, p) for lv in a.levels.split(",") for p in a.players]
    if a.cells:
        try:
            cells = [(lv, int(p)) for lv, _, p in (c.partition(":") for c in a.cells.split(","))]
        except ValueError:
            ap.error(f"--cells {a.cells!r}: expected level:players pairs such as easy:2,medium:1")
    from simcore import outdir
    stamp_file = Path(a.out).with_suffix(".json")
    hero_file = Path(a.out).with_name(Path(a.out).stem + "-heroes.csv")
    outdir.check_files_or_exit(stamp_file, [a.out] + ([hero_file] if a.heroes else []), "ladder.py")     # before any game: never over a file of the user's
    jobs = []
    for policy in a.policies.split(","):
        search = policy.startswith(("rollout", "expert"))
        n = a.search_games if search else a.games
        chunk = 200 if search else CHUNK
        for level, players in cells:
            for first in range(0, n, chunk):
                jobs.append((policy, level, players, a.seed, first, min(chunk, n - first), a.ruleset))
    results, teams = {}, {}
    secs = {}
    with ProcessPoolExecutor(a.workers) as ex:
        for key, first, won, heroes, dt in ex.map(cell, jobs):
            results.setdefault(key, {})[first] = won
            teams.setdefault(key, {})[first] = heroes
            secs[key] = secs.get(key, 0.0) + dt
            print(key, first, f"{dt:.1f}s", flush=True)
    # each cell's chunks in game order
    wins = {k: np.concatenate([parts[f] for f in sorted(parts)]) for k, parts in results.items()}
    teams = {k: np.concatenate([parts[f] for f in sorted(parts)]) for k, parts in teams.items()}
    rows = []
    for key, w in wins.items():
        lo, hi = wilson(int(w.sum()), len(w))
        rows.append(dict(policy=key[0], level=key[1], players=key[2], games=len(w), wins=int(w.sum()),
                         win_rate=w.mean(), low=lo, high=hi, games_per_s=len(w) / secs[key]))
    df = pd.DataFrame(rows)
    pairs = []
    # paired differences on the search's games: rollout - planner, rollout_deep - rollout, expert - planner
    for key, w in wins.items():
        base = "planner" if key[0].startswith("expert") else {"rollout": "planner", "rollout_deep": "rollout"}.get(key[0])
        if base is None or (base,) + key[1:] not in wins:
            continue
        p = wins[(base,) + key[1:]]
        d = w.astype(float) - p[:len(w)].astype(float)
        pairs.append((key, base, d))
        m = (df.policy == key[0]) & (df.level == key[1]) & (df.players == key[2])
        df.loc[m, "paired_diff"] = d.mean()
        df.loc[m, "paired_half"] = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    # a budget curve: each expert@B against the budget before it in --policies, on the same games
    budgets = [p for p in a.policies.split(",") if p.startswith("expert@")]
    for lower, higher in zip(budgets, budgets[1:]):
        for lv, players in cells:
            hi_, lo_ = (wins[(k, lv, players)].astype(float) for k in (higher, lower))
            d = hi_ - lo_
            m = (df.policy == higher) & (df.level == lv) & (df.players == players)
            df.loc[m, "step_diff"] = d.mean()
            df.loc[m, "step_half"] = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    # which engine, ruleset and games made these figures
    from mournesim import sim
    from simcore import identity
    rules = sim.prepare(a.ruleset)
    writes = {a.out: lambda tmp: df.to_csv(tmp, index=False)}
    if a.heroes:
        names = list(rules.names.heroes)
        hero_rows = []

        def add(label, keys, value_of):
            keys = sorted(keys, key=lambda k: (k[1], k[2]))
            heroes = np.concatenate([teams[k] for k in keys])
            cells = np.concatenate([np.full(len(teams[k]), i) for i, k in enumerate(keys)])
            values = np.concatenate([value_of(k) for k in keys])
            hero_rows.extend(dict(policy=label, **r) for r in hero_effects(values, heroes, cells, names))

        for policy in dict.fromkeys(k[0] for k in wins):
            add(policy, [k for k in wins if k[0] == policy], lambda k: wins[k].astype(float))
        by_pair = {}
        for key, base, d in pairs:
            by_pair.setdefault((key[0], base), {})[key] = d
        for (policy, base), ds in by_pair.items():
            add(f"{policy}-{base}", list(ds), lambda k: ds[k])
        heroes_df = pd.DataFrame(hero_rows, columns=["policy", "hero", "games", "effect", "half"])
        writes[str(hero_file)] = lambda tmp: heroes_df.to_csv(tmp, index=False)
    stamp = dict(identity.engine("mournesim"), ruleset_hash=rules.hash,
                 ruleset=a.ruleset, overrides=[], seed=a.seed, games=a.games,
                 search_games=a.search_games, policies=a.policies, levels=a.levels, players=a.players, cells=a.cells,
                 heroes=a.heroes, command=" ".join(["python"] + sys.argv))
    outdir.write_files(stamp_file, writes, stamp, "ladder.py")
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
