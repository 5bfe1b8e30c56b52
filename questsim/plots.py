"""The Quest Master balance plots (matplotlib, PNG), each drawn from one
table of the standard report (named in its docstring, the figure's caption),
with the ruleset's names for characters and win conditions:

- ``character_forest.png``: each character's win rate minus its fair share, 95% bars;
- ``turn_position.png``: win rate by turn position and player count, against 1/players;
- ``win_conditions.png``: how games end, stacked by player count;
- ``game_length.png``: rounds per game by player count.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import PercentFormatter

from simcore import plots as simcore_plots   # sets the file-only backend
from simcore.present import name_of

from . import layout as L
from . import report as rep

COND_COLOURS = {"last_standing": "#c62828", "five_castles": "#1565c0", "hp_over_40": "#2e7d32",
                "cap": "#9e9e9e", "no_winner": "#424242"}


def character_forest(df, ax, names=None):
    """Each character's win rate minus its fair share (1/players over its
    games), with its 95% interval (the table "win rate by character")."""
    t = rep.by_character(df).sort_values("vs_fair")
    y = np.arange(len(t))
    lo = t["vs_fair"] - (t["ci95_low"] - t["fair_share"])
    hi = (t["ci95_high"] - t["fair_share"]) - t["vs_fair"]
    ax.errorbar(t["vs_fair"], y, xerr=np.clip(np.vstack([lo, hi]), 0, None), fmt="o", capsize=3, color="#6a1b9a")
    ax.axvline(0, ls="--", color="grey", label="fair share (1/players)")
    ax.set_yticks(y, [f"{name_of(names, c)}  (n={n:,})" for c, n in zip(t["character"], t["games"])])
    ax.set_xlabel("win rate minus fair share (95% interval)")
    simcore_plots.points_axis(ax)
    ax.set_ylabel("character (seats played)")
    ax.set_title("Is each character's chance fair?")
    ax.legend(fontsize="small")


def turn_position(df, ax, names=None):
    """Win rate by turn position at each table size, with 95% intervals,
    against the fair 1/players (the table "win rate by turn position")."""
    t = rep.by_position(df)
    counts = sorted(t["players"].unique())
    width = 0.8 / max(1, len(counts))
    for i, p in enumerate(counts):
        g = t[t["players"] == p]
        x = g["position"].to_numpy() + (i - (len(counts) - 1) / 2) * width
        err = np.clip(np.vstack([g["win_rate"] - g["ci95_low"], g["ci95_high"] - g["win_rate"]]), 0, None)
        bars = ax.bar(x, g["win_rate"], width, yerr=err, capsize=2, label=f"{p} players")
        ax.hlines(1 / p, x.min() - width / 2, x.max() + width / 2, colors=bars[0].get_facecolor(), linestyles=":")
    ax.set_xlabel("turn position (1 = went first)")
    ax.set_ylabel("win rate (95% interval); dotted: 1/players")
    ax.set_title("Does going first matter?")
    ax.legend(fontsize="small", ncols=2)


def win_conditions(df, ax, names=None):
    """Which win condition ends games: the share of games each ends, by
    table size (the table "how games end")."""
    t = rep.win_conditions(df)
    bottom = np.zeros(len(t))
    x = t["players"].astype(str)
    for c in L.WIN_NAMES[1:]:
        ax.bar(x, t[c], bottom=bottom, label=name_of(names, c), color=COND_COLOURS[c])
        bottom += t[c].to_numpy()
    ax.set_xlabel("players")
    ax.set_ylabel("share of games")
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title("Which win condition ends games")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))


def game_length(df, ax, names=None):
    """How many rounds games last: the share of games of each length, by
    table size; the distribution behind the table "game length"."""
    hi = int(df["rounds"].quantile(0.995)) + 1
    bins = np.arange(0.5, hi + 1.5)
    for p in sorted(df["players"].unique()):
        r = df.loc[df["players"] == p, "rounds"]
        ax.hist(r.clip(upper=hi), bins=bins, histtype="step", lw=2, density=True,
                label=f"{p} players (median {r.median():g})")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("share of games")
    ax.set_title("Game length")
    ax.legend(fontsize="small")


PLOTS = {"character_forest": character_forest, "turn_position": turn_position, "win_conditions": win_conditions,
         "game_length": game_length}


def write_plots(df, outdir, names=None) -> list:
    """Draw every plot of the module docstring into ``outdir`` (``names``:
    the ruleset's, id -> name); returns the paths."""
    return simcore_plots.write_plots(df, outdir, PLOTS, names)
