"""The Quest Master balance report: is each character's chance fair, does
going first matter, which win condition ends games, how long they last —
every rate with its Wilson 95% interval (pandas at the edge).

A character's *fair share* is 1/players: in a fair game each seat wins that
often. ``vs_fair`` is the win rate minus the fair share of the games it
played, so characters can be compared across player counts (its interval
``vs_fair_low``, ``vs_fair_high``: the win rate's, less the fair share).
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from simcore.errors import InputError
from simcore.present import name_of, points_text
from simcore.report import decisions_by_policy, rates
from simcore.skill import binary_se, rank_agreement, ranking_verdict
from simcore.stats import wilson
from . import layout as L

SEATS = 6


def seats_long(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, seat in play): players, policy, character, turn
    position (0 = went first), won, castles landed, final Hp."""
    parts = []
    for i in range(SEATS):
        m = df["players"].to_numpy() > i
        if not m.any():
            continue
        d = df.loc[m]
        parts.append(pd.DataFrame({
            "players": d["players"].to_numpy(), "policy": d["policy"].to_numpy(),
            "character": d[f"char{i + 1}"].astype(str).to_numpy(), "position": d[f"pos{i + 1}"].to_numpy(),
            "win": (d["winner_seat"] == i).to_numpy(), "castles": d[f"castles{i + 1}"].to_numpy(),
            "hp": d[f"hp{i + 1}"].to_numpy()}))
    long = pd.concat(parts, ignore_index=True)
    long["character"] = long["character"].astype("category")
    return long


def by_character(df):
    """Each character's games and win rate, and ``vs_fair`` (see module docstring)."""
    long = seats_long(df)
    t = rates(long, "character")
    fair = (1.0 / long["players"]).groupby(long["character"], observed=True).mean()
    fair = {str(c): float(v) for c, v in fair.items()}
    t["fair_share"] = [fair[str(c)] for c in t["character"]]
    t["vs_fair"] = t["win_rate"] - t["fair_share"]
    # the fair share is fixed by the games' player counts: the win rate's interval, moved
    t["vs_fair_low"], t["vs_fair_high"] = t["ci95_low"] - t["fair_share"], t["ci95_high"] - t["fair_share"]
    return t.sort_values("vs_fair", ascending=False, ignore_index=True)


def by_character_players(df):
    long = seats_long(df)
    t = rates(long, ["players", "character"])
    t["fair_share"] = 1.0 / t["players"]
    return t


def by_position(df):
    """Win rate by turn position, by player count: ``position`` 1 is the
    start-roll winner, who goes first (numbered from 1, as MourneQuest's
    seats are; the result rows' ``pos`` columns count from 0)."""
    long = seats_long(df)
    t = rates(long, ["players", "position"])
    t["position"] += 1
    t["fair_share"] = 1.0 / t["players"]
    return t


def head_to_head(df):
    """2-player games: the row character's win rate against the column's."""
    two = df[df["players"] == 2]
    if two.empty:
        return pd.DataFrame()
    a = two["char1"].astype(str).to_numpy()
    b = two["char2"].astype(str).to_numpy()
    w = two["winner_seat"].to_numpy()
    rows = pd.DataFrame({"character": np.concatenate([a, b]), "opponent": np.concatenate([b, a]),
                         "win": np.concatenate([w == 0, w == 1])})
    t = rates(rows, ["character", "opponent"])
    return t


def head_to_head_matrix(df):
    t = head_to_head(df)
    if t.empty:
        return t
    return t.pivot(index="character", columns="opponent", values="win_rate").reset_index()


def win_conditions(df):
    """Share of games ended by each condition, by player count."""
    t = pd.crosstab(df["players"], df["win_condition"].astype(str))
    t = t.reindex(columns=list(L.WIN_NAMES[1:]), fill_value=0)
    n = t.sum(axis=1)
    out = pd.DataFrame({"players": t.index, "games": n.to_numpy()})
    for c in t.columns:
        out[c] = (t[c] / n).to_numpy()
    return out


def closeness(df):
    """How close games end, by player count: the runner-up's castles (the
    most any losing seat holds at the end), the share of games a losing seat
    was one castle short of a castle win (the most castles any seat holds in
    the games), the share where none had more than two (a runaway), the
    lead changes in the castle race, the share of comebacks (the winner was
    two or more castles behind at some point), and the rounds a game
    lasts."""
    seats = [c for c in (f"castles{k}" for k in range(1, L.MAX_PLAYERS + 1)) if c in df.columns]
    if not seats or "winner_seat" not in df.columns:
        return pd.DataFrame()
    castles = df[seats].to_numpy()
    lost = np.arange(len(seats))[None, :] != df["winner_seat"].to_numpy()[:, None]
    runner_up = np.where(lost, castles, -1).max(axis=1)
    need = int(castles.max())          # the castles a win needs (the ruleset's castles_to_win), as the games show
    t = pd.DataFrame({"players": df["players"].to_numpy(), "runner_up": runner_up})
    g = t.groupby("players", observed=True)["runner_up"]
    out = pd.DataFrame({"players": g.size().index, "games": g.size().to_numpy(),
                        "runner_up_castles": g.mean().to_numpy(),
                        "one_castle_short": g.apply(lambda x: (x == need - 1).mean()).to_numpy(),
                        "runaway": g.apply(lambda x: (x <= 2).mean()).to_numpy()})
    if {"lead_changes", "winner_deficit"} <= set(df.columns):     # datasets written before the counters lack them
        by = df.groupby("players", observed=True)
        out["lead_changes"] = by["lead_changes"].mean().to_numpy()
        out["comeback"] = by["winner_deficit"].apply(lambda x: (x >= 2).mean()).to_numpy()
    out["rounds"] = df.groupby("players", observed=True)["rounds"].mean().to_numpy()
    return out


def game_length(df):
    """Rounds, turns and duels per game, by player count."""
    g = df.groupby("players", observed=True)
    t = g.agg(games=("rounds", "size"), rounds_mean=("rounds", "mean"),
              rounds_p10=("rounds", lambda x: x.quantile(0.1)), rounds_median=("rounds", "median"),
              rounds_p90=("rounds", lambda x: x.quantile(0.9)), rounds_max=("rounds", "max"),
              turns_mean=("turns", "mean"), duels_mean=("duels", "mean"), attacks_mean=("attacks", "mean"),
              eliminated_mean=("eliminated", "mean")).reset_index()
    return t


def first_player(df):
    """Did the player who went first win? By player count, against 1/players."""
    t = rates(df, "players", col="first_player_won")
    t["fair_share"] = 1.0 / t["players"]
    return t.rename(columns={"win_rate": "first_player_win_rate"})


def decisions(df):
    """What the players did (the ``dec_*`` columns, layout.DECISIONS): the
    mean count per game of each kind of decision, one column per policy
    table; for the target kinds, the share of the fights with a choice of
    target. Empty for a dataset written before the counters existed."""
    shares = {n: "target_choices" for n in L.DEC_NAMES if n.startswith("target_") and n != "target_choices"}
    return decisions_by_policy(df, L.DECISIONS, "dec_", shares)


def blunders(df):
    """The blunders (the ``blunder_*`` columns, layout.BLUNDERS: choices
    wrong on the rules and what the chooser could see alone): the mean count
    per game of each kind, one column per policy table. Empty for a dataset
    written before the counters existed."""
    return decisions_by_policy(df, L.BLUNDERS).rename(columns={"decision": "blunder"})


def across_skill(df, names=None):
    """Which conclusions hold across player skill: the key answers of the
    homogeneous tables (every seat the same policy) side by side, least
    skilled first, each with a verdict; characters and win conditions in
    the answers read by ``names`` (id -> name)."""
    nm = partial(name_of, names or {})
    pols = [p for p in ("random", "greedy_v2", "greedy", "planner_v2", "planner", "rollout") if p in set(df["policy"])]
    pols += sorted(p for p in set(df["policy"]) if "+" not in p and p not in pols)
    if len(pols) < 2:
        return pd.DataFrame()
    rows = []

    def add(question, answers, verdict):
        rows.append({"conclusion": question, **{p: answers[p] for p in pols}, "across skill": verdict})

    eff = {}
    for pol in pols:
        t = by_character(df[df["policy"] == pol]).set_index("character")
        eff[pol] = (t["vs_fair"], pd.Series(binary_se(t["win_rate"], t["games"]), index=t.index))
    add("character ranking (win rate against fair share)",
        {pol: "best " + ", ".join(map(nm, eff[pol][0].index[:2])) + "; worst " + nm(eff[pol][0].index[-1])
         for pol in pols},
        "; ".join(f"{a}→{b} rank correlation {r:.2f} [{lo:.2f}, {hi:.2f}]: {ranking_verdict(r, lo, hi)}"
                  for a, b in zip(pols, pols[1:])
                  for r, lo, hi in [rank_agreement(eff[a][0], eff[a][1], eff[b][0].reindex(eff[a][0].index),
                                                   eff[b][1].reindex(eff[a][0].index))]))
    ans, adv = {}, []
    for pol in pols:
        d = df[df["policy"] == pol]
        fair = (1.0 / d["players"]).mean()
        k, n = int(d["first_player_won"].sum()), len(d)
        lo, hi = wilson(k, n)
        ans[pol] = f"{points_text(k / n - fair, lo - fair, hi - fair)} over fair"
        adv.append(1 if lo > fair else (-1 if hi < fair else 0))
    add("going first is an advantage", ans,
        "holds" if all(a == 1 for a in adv) else ("changes with skill" if len(set(adv)) > 1 else
                                                  "no advantage at any skill" if adv[0] == 0 else "a disadvantage"))
    ans, top = {}, []
    for pol in pols:
        vc = df.loc[df["policy"] == pol, "win_condition"].astype(str).value_counts(normalize=True)
        ans[pol] = ", ".join(f"{nm(c)} {v:.0%}" for c, v in vc.head(3).items())
        top.append(vc.index[0])
    add("which win condition ends most games", ans, "holds" if len(set(top)) == 1 else "changes with skill")
    return pd.DataFrame(rows)


REPLAY = "questsim replay --seed SEED --game GAME --players PLAYERS --policy POLICY --format html"


EXAMPLE_KEYS = ("players", "policy")      # the columns of example_games naming a table


def example_base(cell):
    """The studio's base settings (an experiment's ``base`` keys) that play
    a run's ``cell``, or None where they cannot (policy parameters of the
    run's own): the HTML report's links to example games
    (simcore.report.example_links)."""
    if cell.get("params"):
        return None
    chars = cell.get("characters", "random")
    return dict(players=int(cell["players"]), policy=cell["policy"],
                **({} if chars == "random" else {"characters": ",".join(chars)}))


def example_games(df):
    """Per table (players, policy): its seed and the first game that ended
    each way (a win condition), each one ``questsim replay`` opens
    (``REPLAY``)."""
    if not {"game", "seed"} <= set(df.columns):
        return pd.DataFrame()
    seen = set(df["win_condition"].astype(str))
    ends = [c for c in L.WIN_NAMES if c in seen]
    rows = []
    for (p, pol), g in df.groupby(["players", "policy"], observed=True, sort=True):
        first = g.groupby(g["win_condition"].astype(str), observed=True)["game"].min()
        rows.append(dict(players=p, policy=pol, seed=int(g["seed"].min()),
                         **{c: int(first[c]) if c in first.index else "–" for c in ends}))
    return pd.DataFrame(rows)


def standard_report(df: pd.DataFrame, names: dict | None = None) -> dict:
    """The standard Quest Master balance report: ``{title: table}``;
    ``names`` (id -> name) for the ids inside its sentences (the tables' id
    columns are named when they are shown: simcore.present)."""
    if df.empty:
        raise InputError("no games to report on")
    skill = across_skill(df, names) if df["policy"].nunique() > 1 else pd.DataFrame()
    return {
        **({"conclusions across player skill (policies from least to most skilled)": skill}
           if not skill.empty else {}),
        "win rate by character (fair share: 1/players averaged over its games; vs fair: the win rate less it)": by_character(df),
        "win rate by character and player count": by_character_players(df),
        "win rate by turn position (1 = went first)": by_position(df),
        "first player's win rate": first_player(df),
        "head to head, 2-player games (row character's win rate against the column)": head_to_head_matrix(df),
        "how games end (share of games)": win_conditions(df),
        "how close games end, by player count (runner-up: the most castles a losing seat holds; one castle "
        "short, a runaway with no loser above two, a comeback by a winner once two castles behind: shares of "
        "games; lead changes in the castle race per game)": closeness(df),
        "game length and duels per game": game_length(df),
        **({f"example games per table, the first to end each way (open one: {REPLAY})": ex}
           if not (ex := example_games(df)).empty else {}),
        **({"decisions by policy (per game; target kinds: share of the fights with a choice of target)": dec}
           if not (dec := decisions(df)).empty else {}),
        **({"blunders by policy (mean count per game)": bl} if not (bl := blunders(df)).empty else {}),
    }


def by_report(df, cols):
    """``report --by``: games decided by any columns; ``character`` and
    ``position`` group the seats."""
    cols = list(cols)
    if set(cols) & {"character", "position"}:
        long = seats_long(df)
        bad = [c for c in cols if c not in long.columns]
        if bad:
            raise InputError(f"--by {bad[0]}: with character/position use players, policy, character, position")
        return {f"win rate by {', '.join(cols)}": rates(long, cols)}
    bad = [c for c in cols if c not in df.columns]
    if bad:
        raise InputError(f"--by {bad[0]}: no such column (columns: character, position, {', '.join(df.columns)})")
    return {f"share of games with a winner by {', '.join(cols)}": rates(df, cols, col="decided")}


def headline(df) -> str:
    n = len(df)
    k = int(df["decided"].sum())
    top = df["win_condition"].astype(str).value_counts(normalize=True)
    return (f"{n:,} games, {k:,} with a winner; most end by {str(top.index[0]).replace('_', ' ')} ({top.iloc[0]:.1%}); "
            f"median {df['rounds'].median():g} rounds")

