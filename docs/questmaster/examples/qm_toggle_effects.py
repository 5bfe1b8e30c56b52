"""Measure what each Quest Master reading (toggle) changes, on paired games.

Each arm flips one reading of the shipped rules (the last puts back the
character data of behaviour v1, before the Hp budget); every arm plays
games 0..N-1 of the same seed, so the same characters sit in the same seats
with the same dice streams, and each change is the mean of per-game
differences with a normal 95% interval.

    python docs/questmaster/examples/qm_toggle_effects.py --games 10000 --players 2,4,6 --policies greedy,planner

Prints Markdown: for every arm and cell, the change in the share of games
ended by each win condition and in attacks per game, and each character's
change in win rate (percentage points; the fair share is the same in both
arms, so this is also the change against fair share).
"""
from __future__ import annotations

import argparse

import numpy as np

from questsim import batch, sim

# name -> overrides (each compared with the shipped rules)
ARMS = {
    "lone attacker (lone_attacker_continues = true)": ["toggles.lone_attacker_continues=true"],
    "a decline ends the combat (attacker_continues_after_decline = false)":
        ["toggles.attacker_continues_after_decline=false"],
    "Shoe on one's own roll only (shoe_any_player = false)": ["toggles.shoe_any_player=false"],
    "optional Item/Event squares (square_cards_optional = true)": ["toggles.square_cards_optional=true"],
    "two symbols may pass (two_symbols_may_pass = true)": ["toggles.two_symbols_may_pass=true"],
    "the character data of behaviour v1": [
        "characters.swordsman.hp=20", "characters.knight.hp=22", "characters.knight.abilities.guard.cost=2",
        "characters.knight.abilities.guard.effects.0.n=2", "characters.wizard.hp=18", "characters.witch.hp=19",
        "characters.witch.abilities.conjure.cost=2", "characters.priest.hp=21",
        "characters.priest.abilities.prayer.effects.0.n=2", "characters.demon.hp=24", "characters.ghost.hp=17",
        "characters.ghost.abilities.vanish.cost=3", "characters.ghost.abilities.vanish.per_combat=1"],
}
CONDITIONS = ("last_standing", "five_castles", "hp_over_40")


def play(overrides, games, seed, players, policies, workers):
    rules = sim.prepare(overrides=overrides)
    df, _ = batch.run_grid(games=games, seed=seed, players=tuple(players), tables=tuple((p,) for p in policies),
                           rules=rules, overrides=tuple(overrides), workers=workers)
    return df.sort_values(["policy", "players", "game"], ignore_index=True)


def paired(x, y):
    """Mean of y - x and the half-width of its normal 95% interval."""
    d = np.asarray(y, float) - np.asarray(x, float)
    return d.mean(), 1.96 * d.std(ddof=1) / np.sqrt(len(d))


def fmt(m, h, scale=100.0, unit=""):
    return f"{scale * m:+.1f} ± {scale * h:.1f}{unit}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="2,4,6")
    ap.add_argument("--policies", default="greedy,planner")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--arms", default="", help="comma list of arm numbers (1-based) to run; default all")
    a = ap.parse_args()
    players = [int(x) for x in a.players.split(",")]
    pols = a.policies.split(",")
    base = play([], a.games, a.seed, players, pols, a.workers)
    chars = sorted(set(base["char1"].astype(str)))
    arms = list(ARMS.items())
    if a.arms:
        arms = [arms[int(i) - 1] for i in a.arms.split(",")]
    print(f"Paired changes against the shipped rules, {a.games:,} games per cell, seed {a.seed}, characters drawn "
          f"at random; 95% intervals; percentage points unless marked.\n")
    for name, ov in arms:
        var = play(ov, a.games, a.seed, players, pols, a.workers)
        assert (var["char1"].astype(str).to_numpy() == base["char1"].astype(str).to_numpy()).all()
        print(f"\n#### {name}\n")
        print("| policy | players | last standing | five castles | Hp > 40 | attacks/game |")
        print("|---|---|---|---|---|---|")
        for pol in pols:
            for p in players:
                m = (base["policy"] == pol) & (base["players"] == p)
                b, v = base[m], var[m]
                cells = [fmt(*paired(b["win_condition"].astype(str) == c, v["win_condition"].astype(str) == c))
                         for c in CONDITIONS]
                cells.append(fmt(*paired(b["attacks"], v["attacks"]), scale=1.0))
                print(f"| {pol} | {p} | " + " | ".join(cells) + " |")
        print("\nWin rate by character, all cells pooled (pp):\n")
        print("| character | " + " | ".join(pols) + " |")
        print("|---" * (1 + len(pols)) + "|")
        for c in chars:
            row = []
            for pol in pols:
                m = (base["policy"] == pol).to_numpy()
                b, v = base[m], var[m]
                seats = [(b[f"char{i}"].astype(str) == c).to_numpy() for i in range(1, 7)]
                at = np.any(seats, axis=0)
                wb = (b["winner_character"].astype(str) == c).to_numpy()[at]
                wv = (v["winner_character"].astype(str) == c).to_numpy()[at]
                row.append(fmt(*paired(wb, wv)))
            print(f"| {c} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
