"""The MourneQuest balance report: named tables of win rates (each with its
Wilson 95% interval) by the groups designers think in, computed from the
per-game rows of docs/mournequest/results.md (pandas at the edge).

``standard_report(df)`` is what ``mournesim simulate`` and ``mournesim
report DIR`` print; ``by_report(df, cols)`` is ``report --by``.
"""
from __future__ import annotations

from functools import partial
from itertools import combinations

import numpy as np
import pandas as pd

from simcore.errors import InputError
from simcore.report import decisions_by_policy, rates, with_interval
from simcore.present import name_of, percent, rate_text
from simcore.skill import rank_agreement, ranking_verdict
from simcore.stats import wilson
from . import layout as L

HERO_COLS = ("hero1", "hero2", "hero3", "hero4")
MIN_TEAM_GAMES = 30     # a pair or team needs this many games to be ranked
TOP = 5                 # best and worst pairs/teams shown

# the columns the standard report reads (a big dataset is loaded with only these)
COLUMNS = ["game", "seed", "level", "players", "policy", "outcome", "win", "rounds", "hero_turns", "dice_pool_final",
           "final_battle", "shimnavore_wounds", "wall_damage", "wall_repairs", "min_life", "cast_out", "escaped",
           "defeated", *HERO_COLS]


def columns_read(names, by=None) -> list:
    """The columns ``mournesim report`` loads out of a dataset's ``names``:
    :data:`COLUMNS`, each enemy's fate, the decision and blunder counters
    (their tables), and the ``--by`` columns ``by``."""
    extra = [c for c in names if c.startswith(("fate_", "escaped_"))] + list(L.COUNTER_NAMES)
    wanted = COLUMNS + extra + [c for c in (by or []) if c in names and c not in COLUMNS]
    return [c for c in wanted if c in names]


def _grid_keys(df):
    """The configuration columns that vary in this dataset (level and players always)."""
    keys = ["policy"] if df["policy"].nunique() > 1 else []
    return keys + ["level", "players"]


def by_level_players(df):
    return _level_order(rates(df, _grid_keys(df)))


def by_policy(df):
    return _level_order(rates(df, ["policy", "level"]))


def _cells(df):
    """Per game, an integer id of its configuration cell (policy, level, players)."""
    keys = [c for c in ("policy", "level", "players") if c in df.columns]
    return df.groupby(keys, observed=True, sort=False).ngroup().to_numpy(np.int32)


def hero_long(df):
    """One row per (game, hero seat): ``cell`` (see _cells), ``win`` and
    ``hero``; empty seats dropped. Kept to small integer and categorical
    columns: it has up to four rows per game."""
    from pandas.api.types import union_categoricals
    hero = union_categoricals([df[c].astype("category") for c in HERO_COLS], ignore_order=True)
    long = pd.DataFrame({"cell": np.tile(_cells(df), len(HERO_COLS)),
                         "win": np.tile(df["win"].to_numpy(), len(HERO_COLS)), "hero": hero})
    long = long[long["hero"] != ""]
    long["hero"] = long["hero"].cat.remove_unused_categories()
    return long


def by_hero(df):
    """Each hero's games and win rate, and ``effect``: the difference between
    the games with and without that hero within the same configuration cell
    (policy, level, players), averaged over cells weighted by the hero's
    games; so a grid mixing solo and 4-player games does not bias it. Its
    95% interval (``effect_low``, ``effect_high``) adds the two win rates'
    binomial variances in each cell, weighted as the effect is."""
    long = hero_long(df)
    t = rates(long, "hero")
    cell = _cells(df)
    n_cell = np.bincount(cell)
    w_cell = np.bincount(cell, weights=df["win"].to_numpy())
    per = long.groupby(["cell", "hero"], observed=True)["win"].agg(n="size", w="sum").reset_index()
    out_n = n_cell[per["cell"]] - per["n"]
    out_w = w_cell[per["cell"]] - per["w"]
    p_in, p_out = per["w"] / per["n"], out_w / out_n.where(out_n > 0)
    per["diff"] = p_in - p_out
    per["var"] = per["n"] ** 2 * (p_in * (1 - p_in) / per["n"] + p_out * (1 - p_out) / out_n.where(out_n > 0))
    per = per[out_n > 0]
    by = per.groupby("hero", observed=True)
    n_sum = by["n"].sum()
    eff = (per["diff"] * per["n"]).groupby(per["hero"], observed=True).sum() / n_sum
    half = 1.96 * np.sqrt(by["var"].sum()) / n_sum
    eff, half = ({str(h): float(v) for h, v in x.items()} for x in (eff, half))
    t["effect"] = [eff.get(str(h), np.nan) for h in t["hero"]]
    t["effect_low"] = t["effect"] - [half.get(str(h), np.nan) for h in t["hero"]]
    t["effect_high"] = 2 * t["effect"] - t["effect_low"]
    return t.sort_values("win_rate", ascending=False, ignore_index=True)


def by_hero_players(df):
    """:func:`by_hero` at each player count: whether a hero's effect holds
    at every table size (solo plays two heroes)."""
    parts = [by_hero(g).assign(players=p) for p, g in df.groupby("players", sort=True)]
    t = pd.concat(parts, ignore_index=True) if parts else by_hero(df).assign(players=0)
    return t[["players"] + [c for c in t.columns if c != "players"]]


def hero_sets(df, size):
    """Games and wins of every set of ``size`` heroes that played together
    (vectorised over team bit masks, so millions of games are quick)."""
    names = sorted(set().union(*(set(df[c].unique()) for c in HERO_COLS)) - {""})
    mask = np.zeros(len(df), np.int64)
    for c in HERO_COLS:
        col = df[c].astype("category")   # compare small integer codes, not strings
        bit = np.array([1 << names.index(h) if h in names else 0 for h in col.cat.categories] + [0], np.int64)
        mask |= bit[col.cat.codes.to_numpy()]
    win = df["win"].to_numpy()
    rows = []
    for combo in combinations(range(len(names)), size):
        bits = sum(1 << i for i in combo)
        has = (mask & bits) == bits
        rows.append((" + ".join(names[i] for i in combo), int(has.sum()), int(win[has].sum())))
    return with_interval(pd.DataFrame(rows, columns=["heroes", "games", "wins"]))


def best_and_worst(df, size, what):
    """The ``TOP`` best and worst hero sets of ``size`` by win rate, among
    sets with at least MIN_TEAM_GAMES games."""
    if df.empty:
        return pd.DataFrame()
    t = hero_sets(df, size)
    t = t[t["games"] >= MIN_TEAM_GAMES].sort_values("win_rate", ascending=False)
    if t.empty:
        return t
    top = t.head(TOP).assign(rank="best")
    bottom = t.tail(min(TOP, max(0, len(t) - TOP))).assign(rank="worst")
    return pd.concat([top, bottom], ignore_index=True)[["rank", "heroes", "games", "wins", "win_rate",
                                                         "ci95_low", "ci95_high"]].rename(columns={"heroes": what})


def by_dice_pool(df):
    """Win rate by the dice pool the heroes reached at the Final Battle."""
    fb = df[df["final_battle"]]
    return rates(fb, "dice_pool_final").rename(columns={"dice_pool_final": "dice_pool"})


def loss_causes(df):
    """How the games ended, by level: games and share of each outcome."""
    t = pd.crosstab(df["level"], df["outcome"].astype(str))
    t = t.reindex(columns=[o for o in L.OUTCOME_NAMES[1:]], fill_value=0)
    n = t.sum(axis=1)
    out = pd.DataFrame({"level": t.index, "games": n.to_numpy()})
    for o in t.columns:
        out[o] = (t[o] / n).to_numpy()
    return _level_order(out)


def game_length(df):
    """Rounds per game by level and outcome: mean and spread."""
    g = df.groupby(["level", df["outcome"].astype(str)], observed=True)["rounds"]
    t = g.agg(games="size", mean="mean", p10=lambda x: x.quantile(0.1), median="median",
              p90=lambda x: x.quantile(0.9), max="max").reset_index()
    return _level_order(t)


def nightmare_fates(df):
    """For each nightmare: share of games in which it was cast out, defeated,
    escaped (and stayed out), still on its disc or emerged at the end, and in
    which it escaped at any time. Sorted by escapes, most first."""
    rows = []
    for c in [c for c in df.columns if c.startswith("fate_")]:
        name = c[len("fate_"):]
        vc = df[c].astype(str).value_counts(normalize=True)
        row = {"nightmare": name, "games": len(df)}
        row.update({f: float(vc.get(f, 0.0)) for f in L.FATE_NAMES})
        esc = int(df[f"escaped_{name}"].sum())
        row["ever_escaped"] = esc / len(df) if len(df) else np.nan
        rows.append(row)
    if not rows:
        return pd.DataFrame()
    return pd.DataFrame(rows).sort_values("ever_escaped", ascending=False, ignore_index=True)


def how_far(df):
    """How far games get, by level: Final Battle reached (with interval),
    Shimnavore wounds at the end, wall damage, nightmares cast out."""
    g = df.groupby("level", observed=True)
    t = g.agg(games=("win", "size"), reached=("final_battle", "sum"),
              shimnavore_wounds=("shimnavore_wounds", "mean"), wall_damage=("wall_damage", "mean"),
              cast_out=("cast_out", "mean"), escaped=("escaped", "mean")).reset_index()
    t["reached"] = t["reached"].astype(np.int64)
    t = with_interval(t, k="reached", name="final_battle_rate")
    cols = ["level", "games", "final_battle_rate", "ci95_low", "ci95_high", "shimnavore_wounds",
            "wall_damage", "cast_out", "escaped"]
    return _level_order(t[cols])


REPLAY = "mournesim replay --seed SEED --game GAME --level LEVEL --players PLAYERS --policy POLICY --format html"


EXAMPLE_KEYS = ("level", "players", "policy")      # the columns of example_games naming a cell


def example_base(cell):
    """The studio's base settings (an experiment's ``base`` keys) that play
    a run's ``cell``, or None where they cannot (policy parameters of the
    run's own, a policy the studio does not know): the HTML report's links
    to example games (simcore.report.example_links)."""
    from simcore.errors import InputError
    from . import plugins
    try:
        defaults = tuple(plugins.get(cell["policy"]).defaults)
    except InputError:
        return None
    if tuple(cell.get("params") or defaults) != defaults:
        return None
    heroes = cell.get("heroes", "random")
    return dict(level=cell["level"], players=int(cell["players"]), policy=cell["policy"],
                **({} if heroes == "random" else {"heroes": ",".join(heroes)}))


def example_games(df):
    """Per cell (level, players, policy): its seed and the first game won and
    the first lost, each one ``mournesim replay`` opens (``REPLAY``)."""
    if not {"game", "seed"} <= set(df.columns):
        return pd.DataFrame()
    won = df["win"].astype(bool)
    rows = []
    for (lv, p, pol), g in df.groupby(["level", "players", "policy"], observed=True, sort=False):
        w, lo = g.loc[won[g.index], "game"], g.loc[~won[g.index], "game"]
        rows.append(dict(level=lv, players=p, policy=pol, seed=int(g["seed"].min()),
                         won=int(w.min()) if len(w) else "–", lost=int(lo.min()) if len(lo) else "–"))
    return _level_order(pd.DataFrame(rows))


def loss_anatomy(df):
    """Where and how games are lost, by level: the losses (share of games),
    the share of them before the Final Battle and in it (to the wall or a
    hero's death), and of those in it how close the team came: the mean
    wins against the Shimnavore, the share one win short of the wins a won
    game ends with (MQ-FINAL-27: twice on each Ability, the ruleset's
    ``shimnavore_wins_per_ability``), and the share that arrived with fewer
    than four combat dice."""
    won = df["win"].astype(bool)
    need = df.loc[won, "shimnavore_wounds"].max() if won.any() else np.nan     # every won game ends with them
    d = df[~won]
    fb = d[d["final_battle"].astype(bool)]
    rows = []
    for lv in dict.fromkeys(df["level"]):
        a, f = d[d["level"] == lv], fb[fb["level"] == lv]
        n, m = len(a), len(f)
        out = f["outcome"].astype(str)
        rows.append(dict(level=lv, games=int((df["level"] == lv).sum()), losses=n,
                         before_final_battle=(n - m) / n if n else np.nan,
                         in_it_to_the_wall=(out == "wall_destroyed").sum() / n if n else np.nan,
                         in_it_a_hero_died=(out == "hero_died").sum() / n if n else np.nan,
                         shimnavore_wins_when_lost=f["shimnavore_wounds"].mean() if m else np.nan,
                         one_win_short=(f["shimnavore_wounds"] == need - 1).mean() if m else np.nan,
                         under_four_dice=(f["dice_pool_final"] < 4).mean() if m else np.nan))
    return _level_order(pd.DataFrame(rows))



def close_games(df):
    """How close games came, by level and player count. Of the games won:
    the share that ended with a wall section damaged (one more successful
    wall roll on it, MQ-FINAL-19, and the Shimnavore escapes; a won game's
    damaged sections are its successful wall rolls less its repairs, since
    none of them destroyed a section) or with a hero on their last life
    point, and either (``close_wins``). Of the games lost: the share lost
    before the Final Battle, and of the Final Battles lost the share one
    win short (as in loss_anatomy)."""
    won = df["win"].astype(bool)
    need = df.loc[won, "shimnavore_wounds"].max() if won.any() else np.nan
    damaged = (df["wall_damage"] - df["wall_repairs"]) > 0
    last = df["min_life"] == 1
    rows = []
    for (lv, p), g in df.groupby(["level", "players"], observed=True, sort=False):
        w, lo = won[g.index], ~won[g.index]
        nw, nl = int(w.sum()), int(lo.sum())
        fb = g[lo & g["final_battle"].astype(bool)]
        rows.append(dict(level=lv, players=int(p), games=len(g), games_won=nw / len(g),
                         close_wins=(damaged[g.index] | last[g.index])[w].mean() if nw else np.nan,
                         wall_damaged=damaged[g.index][w].mean() if nw else np.nan,
                         last_life_point=last[g.index][w].mean() if nw else np.nan,
                         before_final_battle=(nl - len(fb)) / nl if nl else np.nan,
                         one_win_short=(fb["shimnavore_wounds"] == need - 1).mean() if len(fb) else np.nan))
    return _level_order(pd.DataFrame(rows))


def wounds_distribution(df):
    """Share of games ending with each number of wins against the Shimnavore, by level."""
    t = pd.crosstab(df["level"], df["shimnavore_wounds"], normalize="index")
    t.columns = [f"wounds_{c}" for c in t.columns]
    return _level_order(t.reset_index())


def _level_order(t):
    """Sort a table by its key columns (those before ``games``), levels in
    game order (easy, medium, hard) rather than alphabetically."""
    if "level" not in t.columns:
        return t
    cols = list(t.columns)
    keys = cols[:cols.index("games")] if "games" in cols else ["level"]
    order = {lv: i for i, lv in enumerate(L.LEVEL_NAMES)}
    return t.sort_values(keys, key=lambda s: s.map(order) if s.name == "level" else s, kind="stable",
                         ignore_index=True)


def skilled_policies(df):
    """The policies of the dataset that win at all (random never does), in
    the order of their overall win rate (least skilled first)."""
    w = df.groupby("policy", observed=True)["win"].mean()
    return [p for p in w.sort_values().index if w[p] > 0]


def across_skill(df, names=None):
    """Which conclusions hold across player skill: the key answers side by
    side per policy, with a verdict for each (shared/design.md: "balance is
    reported per policy because it depends on how well people play");
    levels and heroes in the answers read by ``names`` (id -> name)."""
    nm = partial(name_of, names or {})
    pols = skilled_policies(df)
    if len(pols) < 2:
        return pd.DataFrame()
    rows = []

    def add(question, answers, verdict):
        rows.append({"conclusion": question, **{p: answers[p] for p in pols}, "across skill": verdict})

    # difficulty order of the levels, per player count
    for p, label in ((4, "4 players"), (1, "solo")):
        d = df[df["players"] == p]
        if d["level"].nunique() < 2:
            continue
        ans, ok = {}, []
        for pol in pols:
            r = d[d["policy"] == pol].groupby("level", observed=True)["win"].mean().reindex(L.LEVEL_NAMES).dropna()
            ans[pol] = " > ".join(f"{nm(lv)} {percent(v, 0)}" for lv, v in r.items())
            ok.append(bool((np.diff(r.to_numpy()) < 0).all()))
        add(f"each level is harder than the one before ({label})", ans,
            "holds" if all(ok) else ("changes with skill" if any(ok) else "fails for every policy"))
    # solo against four players
    if {1, 4} <= set(df["players"]):
        ans, ok = {}, []
        for pol in pols:
            d = df[df["policy"] == pol]
            a, b = d.loc[d["players"] == 1, "win"].mean(), d.loc[d["players"] == 4, "win"].mean()
            ans[pol] = f"solo {percent(a, 0)} vs 4 players {percent(b, 0)}"
            ok.append(a > b)
        add("solo is easier than four players", ans, "holds" if all(ok) or not any(ok) else "changes with skill")
    # the hero ranking
    eff = {}
    for pol in pols:
        d = df[df["policy"] == pol]
        t = by_hero(d).set_index("hero")
        p_all = d["win"].mean()
        n_out = len(d) - t["games"]
        eff[pol] = (t["effect"], np.sqrt(p_all * (1 - p_all) * (1 / t["games"] + 1 / n_out.clip(lower=1))))
    ans = {pol: "best " + ", ".join(map(nm, eff[pol][0].sort_values(ascending=False).index[:2])) +
           "; worst " + nm(eff[pol][0].sort_values().index[0]) for pol in pols}
    verdicts = []
    for i in range(len(pols) - 1):
        a, b = pols[i], pols[i + 1]
        common = eff[a][0].index.intersection(eff[b][0].index)
        rho, lo, hi = rank_agreement(eff[a][0][common], eff[a][1][common], eff[b][0][common], eff[b][1][common])
        verdicts.append(f"{a}→{b} rank correlation {rho:.2f} [{lo:.2f}, {hi:.2f}]: {ranking_verdict(rho, lo, hi)}")
    add("the hero ranking (effect within cells)", ans, "; ".join(verdicts))
    # dice pool at the Final Battle
    ans, ok = {}, []
    for pol in pols:
        t = by_dice_pool(df[df["policy"] == pol])
        t = t[t["games"] >= MIN_TEAM_GAMES]
        if len(t) < 2:
            ans[pol] = "too few Final Battles"
            continue
        lo_, hi_ = t.iloc[0], t.iloc[-1]
        ans[pol] = (f"{_dice(lo_['dice_pool'])} {percent(lo_['win_rate'], 0)} → "
                    f"{_dice(hi_['dice_pool'])} {percent(hi_['win_rate'], 0)}")
        ok.append(hi_["ci95_low"] > lo_["ci95_high"])
    add("more combat dice at the Final Battle win more often", ans,
        "holds" if ok and all(ok) else ("uncertain or changes with skill" if ok else "not measured"))
    return pd.DataFrame(rows)


def _dice(n) -> str:
    return f"{int(n)} {'die' if int(n) == 1 else 'dice'}"


def standard_report(df: pd.DataFrame, names: dict | None = None) -> dict:
    """The standard balance report: ``{title: table}``; ``names`` (id ->
    name) for the ids inside its sentences (the tables' id columns are named
    when they are shown: simcore.present)."""
    if df.empty:
        raise InputError("no games to report on")
    four = df[df["players"] == 4]
    skill = across_skill(df, names) if df["policy"].nunique() > 1 else pd.DataFrame()
    return {
        **({"conclusions across player skill (policies from least to most skilled)": skill}
           if not skill.empty else {}),
        "win rate by level and players": by_level_players(df),
        "win rate by policy and level": by_policy(df),
        "win rate by hero (effect: with minus without the hero, within each cell)": by_hero(df),
        "win rate by hero and player count": by_hero_players(df),
        "best and worst hero pairs (games with both)": best_and_worst(df, 2, "pair"),
        "best and worst four-hero teams (4 players)": best_and_worst(four, 4, "team"),
        "win rate by dice pool at the Final Battle": by_dice_pool(df),
        "how games end, by level (share of games)": loss_causes(df),
        "where and how games are lost, by level (shares of the losses)": loss_anatomy(df),
        **({"how close games came, by level and players (shares of the games won, then of those lost)":
            close_games(df)} if {"wall_repairs", "min_life"} <= set(df.columns) else {}),
        "game length in rounds, by level and outcome": game_length(df),
        **({f"example games per cell (open one: {REPLAY})": ex} if not (ex := example_games(df)).empty else {}),
        "how the nightmares ended (share of games)": nightmare_fates(df),
        "how far games get, by level (means per game)": how_far(df),
        "wins against the Shimnavore at the end, by level (share of games)": wounds_distribution(df),
        **({"decisions by policy (mean count per game)": dec} if not (dec := decisions(df)).empty else {}),
        **({"blunders by policy (mean count per game)": bl} if not (bl := blunders(df)).empty else {}),
    }


def decisions(df):
    """What the players did (the decision counters of the result row,
    layout.DECISIONS): the mean count per game of each kind, one column per
    policy. Empty for a dataset written before the counters existed."""
    return decisions_by_policy(df, L.DECISIONS)


def blunders(df):
    """The blunder audit (layout.BLUNDERS, docs/mournequest/results.md): the
    mean count per game of each kind of choice that is wrong on the rules and
    the exact odds alone, one column per policy. Empty for a dataset written
    before the audit existed."""
    return decisions_by_policy(df, L.BLUNDERS).rename(columns={"decision": "blunder"})


def by_report(df: pd.DataFrame, cols) -> dict:
    """``report --by a,b``: win rate by any columns of the dataset; ``hero``
    groups by each hero in the team."""
    cols = list(cols)
    if "hero" in cols:
        if cols != ["hero"]:
            raise InputError("--by hero cannot be combined with other columns")
        return {"win rate by hero": by_hero(df)}
    bad = [c for c in cols if c not in df.columns]
    if bad:
        raise InputError(f"--by {bad[0]}: no such column (columns: hero, {', '.join(df.columns)})")
    return {f"win rate by {', '.join(cols)}": _level_order(rates(df, cols))}


def headline(df: pd.DataFrame) -> str:
    """One line: the overall win rate with its interval."""
    n, k = len(df), int(df["win"].sum())
    lo, hi = wilson(k, n)
    return f"win rate {rate_text(k / n, lo, hi)}  (95% interval; {k:,} of {n:,} games)"
