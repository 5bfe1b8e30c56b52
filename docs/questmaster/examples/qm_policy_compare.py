"""Quest Master's players of behaviour v2 and v3, side by side, on paired games.

greedy_v2 / planner_v2 (the players of behaviour v2) against greedy /
planner (behaviour v3 on: they aim), on paired games (game i of every cell
has the same set-up: characters, seats, decks), every rate with its 95%
interval. Prints Markdown for docs/questmaster/policies.md and
docs/questmaster/readings-and-players.md.

    python docs/questmaster/examples/qm_policy_compare.py tables  --games 10000   # every seat one policy, 2-6 players
    python docs/questmaster/examples/qm_policy_compare.py seats   --games 10000   # one new seat against old players
    python docs/questmaster/examples/qm_policy_compare.py parts   --games 20000 --players 4   # each new part off
    python docs/questmaster/examples/qm_policy_compare.py sure    --games 10000 --seed 7   # sure wins off and on
    python docs/questmaster/examples/qm_policy_compare.py toggles --games 10000   # the declining readings, flipped
    python docs/questmaster/examples/qm_policy_compare.py ladder --games 100000 --players 2,4,6 \
        --policies random,greedy_v2,greedy,planner_v2,planner         # seat 1 against greedy players

``tables``: greedy_v2 / greedy / planner_v2 / planner at every seat: each
character's win rate against its fair share (1/players, all table sizes
pooled), the first player's win rate, how games end, and the decisions the
players took (per game). ``seats``: seat 1 plays the new policy, the others
its v2 version; the change in seat 1's win rate against the all-v2 table is
the paired difference per game. ``toggles``: each declining reading flipped
from the shipped ruleset, paired against it: how often the players take the
option (per game) and what it changes.
"""
from __future__ import annotations

import argparse

import numpy as np

from questsim import batch, sim
from questsim.report import seats_long
from simcore.stats import wilson_arrays

POLICIES = ("greedy_v2", "greedy", "planner_v2", "planner")
CONDITIONS = ("last_standing", "five_castles", "hp_over_40")
TOGGLES = {
    "square_cards_optional = true": ("toggles.square_cards_optional=true", "decline_square"),
    "two_symbols_may_pass = true": ("toggles.two_symbols_may_pass=true", "stay"),
    "attacker_continues_after_decline = false": ("toggles.attacker_continues_after_decline=false",
                                                 "decline_attack"),
}


def play(tables, players, games, seed, workers, overrides=()):
    rules = sim.prepare(overrides=list(overrides))
    df, _ = batch.run_grid(games=games, seed=seed, players=tuple(players), tables=tuple(tables), rules=rules,
                           overrides=tuple(overrides), workers=workers)
    return df.sort_values(["policy", "players", "game"], ignore_index=True)


def rate(k, n):
    """'p [lo, hi]' in percent, Wilson 95%."""
    lo, hi = wilson_arrays(k, n)
    return f"{100 * k / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def mean_ci(x, scale=100.0, signed=True, digits=1):
    """'m ± h' of the mean of ``x`` (a paired difference), normal 95%."""
    x = np.asarray(x, float)
    m, h = x.mean(), 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    sign = "+" if signed else ""
    return f"{scale * m:{sign}.{digits}f} ± {scale * h:.{digits}f}"


def tables(a):
    df = play([(p,) for p in a.policies], a.players, a.games, a.seed, a.workers)
    pols = a.policies
    print(f"Every seat one policy, {a.games:,} games per cell, players {a.players[0]}–{a.players[-1]}, seed "
          f"{a.seed}, characters drawn at random; 95% intervals.\n")
    print("**Each character's win rate minus its fair share** (percentage points, all table sizes pooled):\n")
    long = seats_long(df)
    long["d"] = long["win"].astype(float) - 1.0 / long["players"]
    chars = sorted(set(long["character"].astype(str)))
    print("| character | " + " | ".join(pols) + " |")
    print("|---" * (1 + len(pols)) + "|")
    for c in chars:
        cells = [mean_ci(long.loc[(long["policy"] == p) & (long["character"].astype(str) == c), "d"]) for p in pols]
        print(f"| {c} | " + " | ".join(cells) + " |")
    spread = {p: long[long["policy"] == p].groupby("character", observed=True)["d"].mean() for p in pols}
    print("| spread (best − worst) | " + " | ".join(f"{100 * (s.max() - s.min()):.1f}" for s in spread.values())
          + " |")
    print("\n**First player's win rate** (%):\n")
    print("| players | fair | " + " | ".join(pols) + " |")
    print("|---" * (2 + len(pols)) + "|")
    for n in a.players:
        cells = []
        for p in pols:
            d = df[(df["policy"] == p) & (df["players"] == n)]
            cells.append(rate(int((d["winner_position"] == 0).sum()), len(d)))
        print(f"| {n} | {100 / n:.1f} | " + " | ".join(cells) + " |")
    print("\n**How games end** (% of games: last standing / five castles / Hp over 40; ± 95%):\n")
    print("| players | " + " | ".join(pols) + " |")
    print("|---" * (1 + len(pols)) + "|")
    for n in a.players:
        cells = []
        for p in pols:
            w = df.loc[(df["policy"] == p) & (df["players"] == n), "win_condition"].astype(str)
            cells.append(" / ".join(mean_ci(w == c, signed=False) for c in CONDITIONS))
        print(f"| {n} | " + " | ".join(cells) + " |")
    print("\n**Decisions per game** (all seats; target kinds as a share of the fights with a choice of target):\n")
    from questsim.report import decisions
    dec = decisions(df)
    print("| decision | " + " | ".join(pols) + " |")
    print("|---" * (1 + len(pols)) + "|")
    for _, r in dec.iterrows():
        print(f"| {r['decision']} | " + " | ".join(str(r[p]) for p in pols) + " |")


def seats(a):
    print(f"Seat 1 against v2 players, {a.games:,} games per cell, seed {a.seed}; the change is seat 1's win "
          "(new − v2) per game on the same games, with its 95% interval.\n")
    print("| players | fair | policy | seat 1 v2 (all-v2 table) | seat 1 new | change (pp) |")
    print("|---|---|---|---|---|---|")
    for new in ("greedy", "planner"):
        old = new + "_v2"
        for n in a.players:
            base = play([(old,)], [n], a.games, a.seed, a.workers)
            var = play([(new,) + (old,) * (n - 1)], [n], a.games, a.seed, a.workers)
            assert (base["char1"].astype(str).to_numpy() == var["char1"].astype(str).to_numpy()).all()
            b = (base["winner_seat"] == 0).to_numpy()
            v = (var["winner_seat"] == 0).to_numpy()
            print(f"| {n} | {100 / n:.1f} | {new} | {rate(int(b.sum()), len(b))} | {rate(int(v.sum()), len(v))} | "
                  f"{mean_ci(v.astype(float) - b)} |")


def parts(a):
    """Each parameter added in behaviour v3 switched back to 0 (its v2
    play), the rest at the defaults: seat 1 against v2 players, paired with
    the defaults on the same games."""
    from questsim.policies import BUILTIN_POLICIES, NEW_PARAMS
    print(f"What each part is worth: seat 1 with one parameter at 0 (its v2 play) minus seat 1 with the "
          f"defaults, against v2 players, {a.games:,} games per cell, seed {a.seed}, paired; pp, 95%.\n")
    print("| policy | players | " + " | ".join(f"`{p}` off" for p in NEW_PARAMS) + " |")
    print("|---" * (2 + len(NEW_PARAMS)) + "|")
    for new in ("greedy", "planner"):
        names, dflt = next((n, d) for _i, name, n, d in BUILTIN_POLICIES if name == new)
        for n in a.players:
            tab = [(new,) + (new + "_v2",) * (n - 1)]
            rules = sim.prepare()

            def won(params):
                df, _ = batch.run_grid(games=a.games, seed=a.seed, players=(n,), tables=tab, params=params,
                                       rules=rules, workers=a.workers)
                return (df.sort_values("game")["winner_seat"] == 0).to_numpy().astype(float)
            base = won(tuple(dflt))
            cells = []
            for p in NEW_PARAMS:
                i = names.index(p)
                if dflt[i] == 0:
                    cells.append("(off)")
                    continue
                cells.append(mean_ci(won(tuple(dflt[:i]) + (0.0,) + tuple(dflt[i + 1:])) - base))
            print(f"| {new} | {n} | " + " | ".join(cells) + " |")


def sure(a):
    """Greedy and the planner with ``sure`` off (as before behaviour v5) and
    on (shipped), on the same games. First every seat plays the policy:
    blunders per 100 games, and how often a game ends on five castles.
    Then seat 1 alone switches, against v2 players (as ``parts``): its win
    rate old -> new, the paired change with its 95% interval."""
    from questsim.layout import BL_NAMES
    from questsim.policies import BUILTIN_POLICIES
    print(f"`sure` off (old) and on (shipped), {a.games:,} games per cell, seed {a.seed}, the same games; "
          "per 100 games, every seat playing the policy:\n")
    print("| policy | players | " + " | ".join(f"`{b}`" for b in BL_NAMES) + " | five-castle endings (%) |")
    print("|---" * (3 + len(BL_NAMES)) + "|")
    wins = []
    for new in ("greedy", "planner"):
        names, dflt = next((n, d) for _i, name, n, d in BUILTIN_POLICIES if name == new)
        off = tuple(dflt[:names.index("sure")]) + (0.0,)
        rules = sim.prepare()

        def run(tab, n, params):
            df, _ = batch.run_grid(games=a.games, seed=a.seed, players=(n,), tables=[tab], params=params,
                                   rules=rules, workers=a.workers)
            return df.sort_values("game", ignore_index=True)
        for n in a.players:
            old, now = run((new,), n, off), run((new,), n, tuple(dflt))
            cells = [f"{100 * old[b].mean():.1f} → {100 * now[b].mean():.1f}" for b in BL_NAMES]
            five = [(d["win_condition"].astype(str) == "five_castles").to_numpy().astype(float) for d in (old, now)]
            cells.append(f"{100 * five[0].mean():.1f} → {100 * five[1].mean():.1f} ({mean_ci(five[1] - five[0])})")
            print(f"| {new} | {n} | " + " | ".join(cells) + " |")
            tab = (new,) + (new + "_v2",) * (n - 1)
            w = [(run(tab, n, pp)["winner_seat"] == 0).to_numpy().astype(float) for pp in (off, tuple(dflt))]
            d = w[1] - w[0]
            m, h = d.mean(), 1.96 * d.std(ddof=1) / np.sqrt(len(d))
            lo, hi = m - h, m + h
            bold = "**" if lo > 0 or hi < 0 else ""
            wins.append(f"| {new} | {n} | {bold}{100 * w[0].mean():.1f} → {100 * w[1].mean():.1f} "
                        f"({100 * m:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]){bold} |")
    print("\nSeat 1 alone with `sure` off and on, the other seats the v2 players, the same games: its win rate "
          "(%), old → new (paired change, pp, 95%; bold where the interval leaves out zero):\n")
    print("| policy | players | seat 1's win rate |")
    print("|---|---|---|")
    print("\n".join(wins))


def ladder(a):
    """Seat 1 played by each policy of ``--policies``, the other seats by
    greedy (as shipped), the same games for every policy; games per second
    of this one process (CPU time) for each policy's cells."""
    import time
    print(f"Seat 1 played by each policy, the other seats by greedy; {a.games:,} games per cell, seed {a.seed}, "
          "characters drawn at random; Wilson 95% intervals. A fair seat wins 1/players.\n")
    print("| players | " + " | ".join(a.policies) + " | fair share |")
    print("|---" * (2 + len(a.policies)) + "|")
    speed = {p: [0, 0.0] for p in a.policies}
    for n in a.players:
        cells = []
        for p in a.policies:
            t0 = time.process_time()
            df = play([(p,) + ("greedy",) * (n - 1)], [n], a.games, a.seed, a.workers)
            speed[p][0] += len(df)
            speed[p][1] += time.process_time() - t0
            cells.append(rate(int((df["winner_seat"] == 0).sum()), len(df)))
        print(f"| {n} | " + " | ".join(cells) + f" | {100 / n:.1f} |")
    print("\nGames per CPU-second of one process, all cells of the policy's seat together (the other seats "
          "are greedy): " + ", ".join(f"{p} {g / s:,.0f}" for p, (g, s) in speed.items()) + ".")


def toggles(a):
    print(f"Each reading flipped from the shipped ruleset, {a.games:,} games per cell, seed {a.seed}, paired; "
          "percentage points (attacks per game: counts); the option's use per game in the flipped arm.\n")
    base = play([(p,) for p in a.policies], a.players, a.games, a.seed, a.workers)
    for name, (ov, col) in TOGGLES.items():
        var = play([(p,) for p in a.policies], a.players, a.games, a.seed, a.workers, (ov,))
        print(f"\n#### `{name}`\n")
        print(f"| policy | players | `{col}` per game | last standing | five castles | Hp over 40 | attacks/game |")
        print("|---|---|---|---|---|---|---|")
        for p in a.policies:
            for n in a.players:
                m = ((base["policy"] == p) & (base["players"] == n)).to_numpy()
                b, v = base[m], var[m]
                cells = [mean_ci((v["win_condition"].astype(str) == c).to_numpy().astype(float)
                                 - (b["win_condition"].astype(str) == c).to_numpy()) for c in CONDITIONS]
                cells.append(mean_ci(v["attacks"].to_numpy() - b["attacks"].to_numpy(), scale=1.0))
                print(f"| {p} | {n} | {mean_ci(v[f'dec_{col}'], scale=1.0, signed=False, digits=3)} | " + " | ".join(cells)
                      + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("tables", "seats", "parts", "sure", "toggles", "ladder"))
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="2,3,4,5,6")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    a.players = [int(x) for x in a.players.split(",")]
    a.policies = a.policies.split(",")
    {"tables": tables, "seats": seats, "parts": parts, "sure": sure, "toggles": toggles, "ladder": ladder}[a.what](a)


if __name__ == "__main__":
    main()
