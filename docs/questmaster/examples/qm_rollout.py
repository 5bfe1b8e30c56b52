"""Quest Master: is a search player stronger than the planner? Seat 1 plays
each policy in turn on the same games (same characters, seats, decks), every
other seat the planner; prints seat 1's win rates and the paired difference
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

``--characters`` also writes ``<out>-characters.csv``: seat 1's character's
effect for every policy (seat 1's win rate in the games it plays the
character minus in the games it plays another, per table size, and over all
table sizes weighted by the character's games) and, for every paired
difference, how much the effect moves between the two policies on the same
games (``policy`` ``expert-planner``), each with a 95% interval.
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
    """Seat 1's wins (0/1 per game) with ``policy`` in seat 1, planners elsewhere, and the seconds."""
    policy, players, seed, first, n, ruleset = args
    from questsim import layout as L
    from questsim import sim
    rules = sim.prepare(ruleset)
    name, params = _params(policy)
    cfg = sim.Config(players, (), (name,) + ("planner",) * (players - 1), params)
    t = time.perf_counter()
    rows = sim.run_games(rules, cfg, seed, first, n)
    return ((policy, players, first), rows[:, L.RESULT_INDEX["winner_seat"]] == 0,
            rows[:, L.RESULT_INDEX["char1"]].copy(), time.perf_counter() - t)


def character_effects(values, chars, cells, names):
    """Per character of seat 1: its games, and the mean of ``values`` (a win,
    or a paired difference of wins) in them minus in seat 1's other games,
    within each cell (table size), averaged over cells weighted by the
    character's games; with the half-width of its 95% interval
    (simcore.skill.within_cell_effect)."""
    from simcore.skill import within_cell_effect
    rows = []
    for k, name in enumerate(names):
        got = within_cell_effect(values, chars == k, cells)
        if got:
            rows.append(dict(character=name, games=got[0], effect=got[1], half=got[2]))
    return rows


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
    ap.add_argument("--characters", action="store_true",
                    help="also write seat 1's character effects per policy to <out>-characters.csv")
    a = ap.parse_args()
    pols = ("rollout", "rollout_deep") if a.deep else tuple(a.policies.split(","))
    if a.characters and not a.out:
        ap.error("--characters needs --out")
    char_file = Path(a.out).with_name(Path(a.out).stem + "-characters.csv") if a.out else None
    if a.out:
        from simcore import outdir
        outdir.check_files_or_exit(Path(a.out).with_suffix(".json"), [a.out] + ([char_file] if a.characters else []),
                                   "qm_rollout.py")     # before any game: never over a file of the user's
    chunk = 100
    jobs = [(pol, int(p), a.seed, f, min(chunk, a.games - f), a.ruleset) for p in a.players.split(",")
            for pol in pols for f in range(0, a.games, chunk)]
    won, chars, secs = {}, {}, {}
    with ProcessPoolExecutor(a.workers) as ex:
        for (pol, p, f), w, ch, dt in ex.map(play, jobs):
            won.setdefault((pol, p), {})[f] = w
            chars.setdefault(p, {})[f] = ch        # the same games for every policy: the same characters
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
    print(f"| players | policy (seat 1) | win rate | paired difference against {pols[0]} | games/s (one worker) |")
    print("|---|---|---|---|---|")
    for r in rows:
        diff = "" if r["policy"] == pols[0] else f"{r['paired_diff']:+.3f} ± {r['paired_half']:.3f}"
        print(f"| {r['players']} | {r['policy']} | {r['win_rate']:.3f} | {diff} | {r['games_per_s']:,.1f} |")
    if a.out:
        import pandas as pd
        from questsim import sim
        from simcore import identity, outdir
        rules = sim.prepare(a.ruleset)
        writes = {a.out: lambda tmp: pd.DataFrame(rows).to_csv(tmp, index=False)}
        if a.characters:
            char_df = pd.DataFrame(_character_rows(a.players, pols, won, chars, list(rules.names.characters)),
                                   columns=["policy", "players", "character", "games", "effect", "half"])
            writes[str(char_file)] = lambda tmp: char_df.to_csv(tmp, index=False)
        stamp = dict(identity.engine("questsim"), ruleset_hash=rules.hash, ruleset=a.ruleset,
                     overrides=[], seed=a.seed, games=a.games, characters=a.characters,
                     policies=",".join(pols), players=a.players, command=" ".join(["python"] + sys.argv))
        outdir.write_files(Path(a.out).with_suffix(".json"), writes, stamp, "qm_rollout.py")


def _character_rows(players, pols, won, chars, names):
    """Seat 1's character effects: per policy (its wins) and per paired
    difference against the base policy, at each table size and over all."""
    sizes = list(map(int, players.split(",")))
    joined = {p: np.concatenate([chars[p][f] for f in sorted(chars[p])]) for p in sizes}
    wins = {(pol, p): np.concatenate([won[(pol, p)][f] for f in sorted(won[(pol, p)])]).astype(float)
            for pol in pols for p in sizes}
    values = {pol: (lambda p, pol=pol: wins[(pol, p)]) for pol in pols}
    values.update({f"{pol}-{pols[0]}": (lambda p, pol=pol: wins[(pol, p)] - wins[(pols[0], p)]) for pol in pols[1:]})
    out = []
    for label, value_of in values.items():
        for p in sizes:
            out += [dict(policy=label, players=str(p), **r)
                    for r in character_effects(value_of(p), joined[p], np.zeros(len(joined[p])), names)]
        out += [dict(policy=label, players="all", **r)
                for r in character_effects(np.concatenate([value_of(p) for p in sizes]),
                                           np.concatenate([joined[p] for p in sizes]),
                                           np.concatenate([np.full(len(joined[p]), p) for p in sizes]), names)]
    return out


if __name__ == "__main__":
    main()
