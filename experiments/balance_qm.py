"""The Quest Master blocks of the balance study (``docs/questmaster/balance.md``):
the characters pooled and at each table size with the two-player
head-to-head matrix, the skilled seat's character effects, the seats, how
games end and how close they are, read from the published artefacts as
``experiments.balance`` reads MourneQuest's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.balance import (COMPETENT, HOLDS, POLICIES, RES, _by_count, _effect, _moved, _skill_table, _table,
                                 _verdicts, holm_note, name)


def qm_characters(root) -> str:
    """Each character's win rate against its fair share, per policy."""
    tabs = {pol: _table(root, "qm-grid", "win-rate-by-character", pol).set_index("character") for pol in POLICIES}
    order = tabs[COMPETENT].sort_values("vs_fair", ascending=False).index
    lines = ["| character | greedy: win rate − fair share | planner: win rate − fair share |", "|---|---|---|"]
    # each column is a family: its characters read together, Holm-corrected
    holds = {pol: {c: v != "par" for c, v in _verdicts(_vs_fair_table(tabs[pol].reset_index()),
                                                         ("favoured", "disfavoured", "par")).items()}
             for pol in POLICIES}
    for ch in order:
        cells = []
        for pol in POLICIES:
            r = tabs[pol].loc[ch]
            cells.append(f"{100 * r['vs_fair']:+.1f} pp [{100 * (r['ci95_low'] - r['fair_share']):+.1f}, "
                         f"{100 * (r['ci95_high'] - r['fair_share']):+.1f}]" + (HOLDS if holds[pol][ch] else ""))
        lines.append(f"| {name(ch)} | " + " | ".join(cells) + " |")
    lines.append("\n" + holm_note(sum(sum(v.values()) for v in holds.values()),
                                  f"the {len(order)} characters of each column"))
    t = tabs[COMPETENT]
    fav = [c for c in order if t.loc[c, "ci95_low"] > t.loc[c, "fair_share"]]
    dis = [c for c in order if t.loc[c, "ci95_high"] < t.loc[c, "fair_share"]]
    kept = [c for c in fav + dis if holds[COMPETENT][c]]
    # a pooled verdict is read with the table sizes where it reverses (the next table's flips)
    by_size = _vs_fair_table(_table(root, "qm-grid", "win-rate-by-character-and-player-count", COMPETENT))
    flips = _by_count(_vs_fair_table(t.reset_index()), by_size, "character", ("favoured", "disfavoured", "par"),
                      str, "")[1]

    def flagged(chars, opposite):
        at = {c: [p for k, p in flips if k == c] for c in chars}
        return ", ".join(name(c) + (f" (but {opposite} at {', '.join(map(str, at[c]))} players)" if at[c] else "")
                         for c in chars) or "none"
    text = (f"Among planners (2–6 players pooled), favoured characters: {flagged(fav, 'disfavoured')}; "
            f"disfavoured: {flagged(dis, 'favoured')} (interval entirely above or below the fair "
            f"share); after Holm's correction over the {len(order)}: {', '.join(map(name, kept)) or 'none'}. Pooled over table "
            f"sizes, so a verdict holds as a whole only where no size reverses it; each size is the next table.")
    out = text + "\n\n" + "\n".join(lines)
    skilled = _skilled_characters(root)
    return out + "\n\n" + _skilled_characters_text(skilled, order) if skilled else out


def _vs_fair_table(t: pd.DataFrame) -> pd.DataFrame:
    """A character table as :func:`_by_count` reads it: the win rate less
    the fair share, with the win rate's interval moved by it."""
    return pd.DataFrame(dict(key=t["character"], players=t.get("players", 0), effect=t["win_rate"] - t["fair_share"],
                             low=t["ci95_low"] - t["fair_share"], high=t["ci95_high"] - t["fair_share"]))


def qm_characters_by_players(root) -> str:
    """Each character against its fair share at every table size (the
    planner's tables), whether the pooled verdict holds at each, flips
    flagged, and the two-player head-to-head matrix."""
    pooled = _vs_fair_table(_table(root, "qm-grid", "win-rate-by-character", COMPETENT))
    t = _table(root, "qm-grid", "win-rate-by-character-and-player-count", COMPETENT)
    lines, flips, n_holds, n = _by_count(pooled, _vs_fair_table(t), "character", ("favoured", "disfavoured", "par"),
                                         lambda p: f"{p} players", "holds at every size?")
    order = list(pooled.sort_values("effect", ascending=False)["key"])
    text = (f"The pooled verdict (favoured, disfavoured or par: apart from the fair share after Holm's correction "
            f"over the {n} characters, or not) holds at every table size for {n_holds} of {n} "
            f"characters among planners; a ✓ marks a character apart from its fair share at that size after "
            f"Holm's correction over the {n}. " +
            ("Flips, where a character favoured pooled is disfavoured at a table size or the reverse: " +
             ", ".join(f"**{name(c)}** at {p} players" for c, p in flips) + ". A designer balancing one table size "
             "should read its column, not the pooled verdict." if flips else
             "No character is favoured pooled and disfavoured at a table size, or the reverse."))
    m = _table(root, "qm-grid", "head-to-head-2-player-games", COMPETENT).set_index("character")
    two = int(t.loc[t["players"] == 2, "games"].sum() // 2)
    pairs = len(m) * (len(m) - 1) // 2
    half = 100 * 1.96 * np.sqrt(0.25 / max(1, two / pairs))
    mat = ["| row beats column (2 players) | " + " | ".join(m.columns) + " |", "|---" * (len(m.columns) + 1) + "|"]
    for ch in order:
        mat.append(f"| {name(ch)} | " + " | ".join("–" if pd.isna(v) else f"{100 * v:.1f}%" for v in m.loc[ch, order]) + " |")
    mat[0] = "| row beats column (2 players) | " + " | ".join(map(name, order)) + " |"
    return (text + "\n\n" + "\n".join(lines) + f"\n\nHead to head in the {two:,} two-player planner games: how "
            f"often the row's character beats the column's (about {two // pairs:,} games a pair, so each rate is "
            f"within about ±{half:.1f} points of its own long-run value).\n\n" + "\n".join(mat))


def _skilled_characters(root) -> dict:
    """Seat 1's character effects over all table sizes when the expert or the
    planner plays it among planners, and the move between them on the same
    games (``policy`` ``expert-planner``), per seed of the expert's ladder
    (``qm-expert/ladder-characters.csv``, ``replication-characters.csv``):
    seed name -> table indexed by (policy, character); {} before the ladders
    step made them."""
    out = {}
    for seed in ("ladder", "replication"):
        f = Path(root) / RES / "qm-expert" / f"{seed}-characters.csv"
        if f.exists():
            t = pd.read_csv(f, dtype={"players": str})
            t = t[t["players"] == "all"]
            if (t["policy"] == "expert").any():      # a tiny run may leave no table with and without a character
                out[seed] = t.set_index(["policy", "character"])
    return out


def _skilled_characters_text(skilled, order) -> str:
    """What the expert's ladder says about the characters: the effect of each
    in a skilled seat and how far it moves from the planner's on the same
    games, apart from zero on the ladder's seed and the same way on the
    independent one."""
    sk = skilled["ladder"]
    games = int(sk.loc["expert", "games"].sum())
    rows = ["| character | seat 1 a planner: effect | seat 1 the expert: effect | planner → expert (same games) |",
            "|---|---|---|---|"]
    for ch in order:
        cells = [_effect(sk.loc[(p, ch), "effect"], sk.loc[(p, ch), "half"]) if (p, ch) in sk.index else "–"
                 for p in ("planner", "expert", "expert-planner")]
        rows.append(f"| {name(ch)} | " + " | ".join(cells) + " |")
    moved = _moved(skilled, order)
    rep = "replication" in skilled
    return ("For a skilled player, seat 1 of the expert's ladder (the expert or the planner in seat 1 among "
            f"planners, 2–6 players, {games:,} games over all table sizes, "
            "`experiments/results/qm-expert/ladder-characters.csv`) gives each character's effect (seat 1's win "
            "rate with the character minus with another, within each table size) and how far it moves when the "
            "expert plays it, on the same games. " +
            ("Characters whose effect moves from the competent player to the skilled one (apart from zero on "
             "the same games, on both seeds): " + "; ".join(moved) + "." if moved else
             "No character's effect moves from the competent player to the skilled one with an interval apart "
             "from zero" + (" on both seeds" if rep else "") + ".") + "\n\n" + "\n".join(rows))


def qm_seats(root) -> str:
    """The first player's win rate against the fair share, per player count."""
    lines = ["| players | fair share | greedy: first player wins | planner: first player wins |", "|---|---|---|---|"]
    tabs = {pol: _table(root, "qm-grid", "first-player-s-win-rate", pol).set_index("players") for pol in POLICIES}
    for p in tabs[COMPETENT].index:
        lines.append(f"| {p} | {100 / p:.1f}% | " + " | ".join(
            f"{100 * tabs[pol].loc[p, 'first_player_win_rate']:.1f}% [{100 * tabs[pol].loc[p, 'ci95_low']:.1f}, "
            f"{100 * tabs[pol].loc[p, 'ci95_high']:.1f}]" for pol in POLICIES) + " |")
    t = tabs[COMPETENT]
    above = [int(p) for p in t.index if t.loc[p, "ci95_low"] > 1 / p]
    below = [int(p) for p in t.index if t.loc[p, "ci95_high"] < 1 / p]
    def counts(ps):
        return "no table size" if not ps else ", ".join(map(str, ps)) + " players"
    text = (f"Going first, among planners, is an advantage (interval above the fair share) at {counts(above)} "
            f"and a disadvantage at {counts(below)}; elsewhere the first player wins its fair share within noise.")
    again = Path(root) / RES / "qm-grid-again" / "tables" / COMPETENT / "first-player-s-win-rate.csv"
    if again.exists():
        a = pd.read_csv(again).set_index("players")
        lost = [p for p in above + below if not ((a.loc[p, "ci95_low"] > 1 / p) if p in above
                                                 else (a.loc[p, "ci95_high"] < 1 / p))]
        text += (" On independent games (seed 2) " + (
            "each of those replicates." if not lost else
            "the edge at " + counts(lost) + " does not replicate (" + "; ".join(
                f"{p} players {100 * (a.loc[p, 'first_player_win_rate'] - 1 / p):+.1f} pp "
                f"[{100 * (a.loc[p, 'ci95_low'] - 1 / p):+.1f}, {100 * (a.loc[p, 'ci95_high'] - 1 / p):+.1f}]"
                for p in lost) + "), so the study does not count it as a finding."))
    return text + "\n\n" + "\n".join(lines) + "\n\n" + _every_seat(root)


def _every_seat(root) -> str:
    """Every seat, not only the first, against its fair share at each table
    size among planners (Holm over the seats of each size), and whether
    each seat apart from it is apart the same way on the independent seed."""
    def seats(grid):
        f = Path(root) / RES / grid / "tables" / COMPETENT / "win-rate-by-turn-position.csv"
        if not f.exists():
            return None
        t = pd.read_csv(f)
        return t.assign(key=t["position"], effect=t["win_rate"] - t["fair_share"], low=t["ci95_low"] - t["fair_share"],
                        high=t["ci95_high"] - t["fair_share"])
    t, again = seats("qm-grid"), seats("qm-grid-again")
    sizes = sorted(t["players"].unique())
    most = int(t["position"].max())
    lines = ["| players | " + " | ".join(f"seat {k}" for k in range(1, most + 1)) + " |", "|---" * (most + 1) + "|"]
    found = []
    for p in sizes:
        g = t[t["players"] == p].set_index("key")
        v = _verdicts(g.reset_index(), ("above", "below", "fair"))
        va = (_verdicts(again[again["players"] == p], ("above", "below", "fair"))
              if again is not None else {})
        found += [(p, k, v[k], va.get(k) == v[k]) for k in g.index if v[k] != "fair"]
        lines.append(f"| {p} | " + " | ".join(
            _effect(g.loc[k, "effect"], g.loc[k, "effect"] - g.loc[k, "low"]) + (HOLDS if v[k] != "fair" else "")
            if k in g.index else "–" for k in range(1, most + 1)) + " |")
    said = "; ".join(f"seat {k} at {p} players {w} it" + ("" if again is None else
                                                           " (replicates)" if ok else " (does not replicate on seed 2)")
                     for p, k, w, ok in found)
    return ("Every seat, among planners: its win rate minus its fair share (1/players), with its 95% interval; "
            + HOLDS.strip() + ": apart from the fair share after Holm's correction over the seats of that table "
            "size. " + (f"Apart from it: {said}." if found else "No seat is apart from its fair share at any size.")
            + "\n\n" + "\n".join(lines))


def qm_endings(root) -> str:
    """Which win condition ends the planners' games, by player count."""
    t = _table(root, "qm-grid", "how-games-end", COMPETENT)
    cols = [c for c in t.columns if c not in ("players", "games")]
    lines = ["| players | games | " + " | ".join(map(name, cols)) + " |", "|---" * (len(cols) + 2) + "|"]
    for r in t.to_dict("records"):
        lines.append(f"| {r['players']} | {r['games']:,} | " + " | ".join(f"{100 * r[c]:.1f}%" for c in cols) + " |")
    main = max(cols, key=lambda c: t[c].mean())
    return (f"Most of the planners' games end by **{name(main)}** ({100 * t[main].mean():.1f}% "
            "averaged over player counts). By player count:\n\n" + "\n".join(lines))


def qm_closeness(root) -> str:
    """How close the planners' games end, by table size: the runner-up's
    castles, one castle short, runaways, and the rounds a game lasts."""
    t = _table(root, "qm-grid", "how-close-games-end-by-player-count", COMPETENT)
    lines = ["| players | games | runner-up's castles (mean) | a loser one castle short | a runaway (no loser above "
             "two) | lead changes a game | a comeback (the winner once two castles behind) | rounds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in t.to_dict("records"):
        lines.append(f"| {r['players']} | {r['games']:,} | {r['runner_up_castles']:.2f} | "
                     f"{100 * r['one_castle_short']:.1f}% | {100 * r['runaway']:.1f}% | {r['lead_changes']:.2f} | "
                     f"{100 * r['comeback']:.1f}% | {r['rounds']:.1f} |")
    lo, hi = t.iloc[0], t.iloc[-1]
    return (f"How close a game between planners comes: the runner-up is the losing seat with the most castles at "
            f"the end; the lead is the living seat alone ahead in castles, looked at each time a castle is landed "
            f"on. With {int(lo['players'])} players {100 * lo['runaway']:.0f}% of games are runaways (no loser above two "
            f"castles), a loser is one castle short in {100 * lo['one_castle_short']:.0f}%, the lead changes "
            f"{lo['lead_changes']:.1f} times a game and {100 * lo['comeback']:.0f}% are won from two castles "
            f"behind; with {int(hi['players'])}: {100 * hi['runaway']:.0f}%, {100 * hi['one_castle_short']:.0f}%, "
            f"{hi['lead_changes']:.1f} and {100 * hi['comeback']:.0f}%. A game lasts "
            + (f"about {t['rounds'].mean():.0f} rounds at every size" if t['rounds'].max() - t['rounds'].min() < 1
               else f"{t['rounds'].min():.0f}–{t['rounds'].max():.0f} rounds") + ".\n\n" + "\n".join(lines))


def qm_skill(root) -> str:
    return _skill_table(root, "qm-grid")


def characters_frame(root) -> pd.DataFrame:
    """Each character's win rate minus its fair share with its interval, per skill, in the block's order."""
    tabs = {pol: _vs_fair_table(_table(root, "qm-grid", "win-rate-by-character", pol)).set_index("key")
            for pol in POLICIES}
    order = tabs[COMPETENT].sort_values("effect", ascending=False).index
    return pd.DataFrame([dict(character=ch, policy=pol, effect=tabs[pol].loc[ch, "effect"],
                              low=tabs[pol].loc[ch, "low"], high=tabs[pol].loc[ch, "high"])
                         for ch in order for pol in POLICIES])
