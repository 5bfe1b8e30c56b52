"""The balance plots (matplotlib, PNG), each drawn from one table of the
standard report (named in its docstring, the figure's caption) so a figure
and its table always agree, with the ruleset's names for levels, heroes and endings:

- ``win_rate_by_level.png``: win rate by level and player count, 95% bars;
- ``hero_forest.png``: each hero's effect within cells, with its interval;
- ``dice_pool.png``: win rate by the dice pool reached at the Final Battle;
- ``loss_causes.png``: how games end, stacked by level;
- ``game_length.png``: distribution of game length in rounds by level.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from simcore import plots as simcore_plots   # sets the file-only backend
from simcore.present import name_of

from . import layout as L
from . import report as rep

OUTCOME_COLOURS = {"win": "#2e7d32", "hero_died": "#c62828", "wall_destroyed": "#6d4c41", "cap": "#9e9e9e"}
LEVEL_COLOURS = {"easy": "#43a047", "medium": "#fb8c00", "hard": "#8e24aa"}


def _err(t):
    # clipped: at a rate of exactly 0 or 1 rounding can leave a -1e-17 bar
    return np.clip(np.vstack([t["win_rate"] - t["ci95_low"], t["ci95_high"] - t["win_rate"]]), 0, None)


def _percent(ax, axis="y"):
    from matplotlib.ticker import PercentFormatter
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0))


def win_rate_by_level(df, ax, names=None):
    """Win rate by level and player count (and policy), with 95% intervals
    (the table "win rate by level and players")."""
    t = rep.by_level_players(df)
    series = [c for c in ("policy", "players") if c in t.columns]
    groups = t.groupby(series, sort=True) if series else [((), t)]
    levels = [lv for lv in L.LEVEL_NAMES if lv in set(t["level"])]
    keys = list(groups)
    width = 0.8 / max(1, len(keys))
    for i, (key, g) in enumerate(keys):
        g = g.set_index("level").reindex(levels)
        x = np.arange(len(levels)) + (i - (len(keys) - 1) / 2) * width
        key = key if isinstance(key, tuple) else (key,)
        label = " ".join(f"{k} player{'s' if k != 1 else ''}" if s == "players" else str(k)
                         for s, k in zip(series, key))
        ax.bar(x, g["win_rate"], width, yerr=_err(g), capsize=3, label=label)
    ax.set_xticks(np.arange(len(levels)), [name_of(names, lv) for lv in levels])
    ax.set_xlabel("level")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    _percent(ax)
    ax.set_title("Win rate by level and player count")
    ax.legend(fontsize="small", ncols=2)


def hero_forest(df, ax, names=None):
    """Each hero's effect: the win rate of games with the hero minus games
    without, within each cell, with its 95% interval (the table "win rate
    by hero")."""
    t = rep.by_hero(df).sort_values("effect")
    y = np.arange(len(t))
    err = np.clip(np.vstack([t["effect"] - t["effect_low"], t["effect_high"] - t["effect"]]), 0, None)
    ax.errorbar(t["effect"], y, xerr=err, fmt="o", capsize=3, color="#1565c0")
    ax.axvline(0, ls="--", color="grey", label="no effect")
    ax.set_yticks(y, [f"{name_of(names, h)}  (n={n:,})" for h, n in zip(t["hero"], t["games"])])
    ax.set_xlabel("win rate with the hero minus without, within each cell (95% interval)")
    ax.set_ylabel("hero (games played)")
    simcore_plots.points_axis(ax)
    ax.set_title("Hero choice: the effect of having each hero")
    ax.legend(fontsize="small")


def dice_pool(df, ax, names=None):
    """Win rate by the dice pool at the Final Battle, with its 95% interval
    and the games of each pool (the table "win rate by dice pool at the
    Final Battle")."""
    t = rep.by_dice_pool(df)
    if t.empty:
        ax.text(0.5, 0.5, "no game reached the Final Battle", ha="center", transform=ax.transAxes)
    else:
        ax.bar(t["dice_pool"].astype(str), t["win_rate"], yerr=_err(t), capsize=3, color="#00838f")
        for x, (r, n) in enumerate(zip(t["win_rate"], t["games"])):
            ax.annotate(f"n={n:,}", (x, r), textcoords="offset points", xytext=(0, 12), ha="center",
                        fontsize="small")
    ax.set_xlabel("dice pool at the start of the Final Battle")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    _percent(ax)
    ax.set_title("Dice pool effect (games that reached the Final Battle)")


def loss_causes(df, ax, names=None):
    """How games end, by level: the share of games won and lost each way
    (the table "how games end, by level")."""
    t = rep.loss_causes(df)
    bottom = np.zeros(len(t))
    nm = partial(name_of, names)
    for o in L.OUTCOME_NAMES[1:]:
        ax.bar([nm(lv) for lv in t["level"]], t[o], bottom=bottom, label=nm(o), color=OUTCOME_COLOURS[o])
        bottom += t[o].to_numpy()
    ax.set_xlabel("level")
    ax.set_ylabel("share of games")
    ax.set_ylim(0, 1)
    _percent(ax)
    ax.set_title("How games end")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))


def game_length(df, ax, names=None):
    """How many rounds games last: the share of games of each length, by
    level (colour) and player count (line style); the distribution behind
    the table "game length in rounds"."""
    lo, hi = int(df["rounds"].min()), int(df["rounds"].max())
    bins = np.arange(lo - 0.5, hi + 1.5)
    styles = {1: "-", 2: "--", 3: "-.", 4: ":"}
    for lv in [lv for lv in L.LEVEL_NAMES if lv in set(df["level"])]:
        for p in sorted(set(df["players"])):
            r = df.loc[(df["level"] == lv) & (df["players"] == p), "rounds"]
            if len(r):
                ax.hist(r, bins=bins, histtype="step", lw=2, density=True, ls=styles[p], color=LEVEL_COLOURS[lv],
                        label=f"{name_of(names, lv)}, {p} player{'s' if p > 1 else ''} (median {r.median():g})")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("share of games")
    ax.set_title("Game length")
    ax.legend(fontsize="small")


PLOTS = {"win_rate_by_level": win_rate_by_level, "hero_forest": hero_forest, "dice_pool": dice_pool,
         "loss_causes": loss_causes, "game_length": game_length}


def write_plots(df, outdir, names=None) -> list:
    """Draw every plot of the module docstring into ``outdir`` (``names``:
    the ruleset's, id -> name); returns the paths."""
    return simcore_plots.write_plots(df, outdir, PLOTS, names)
