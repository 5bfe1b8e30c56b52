"""The balance study's plots, each drawn from exactly the table it stands
beside: a figure's frame (``FIGURES``: the block it illustrates, the
function that reads its frame from the published artefacts, the function
that draws it) is the frame the block prints, so the plot and the table can
never disagree (tests/common/test_study_figures.py reads both).

``python -m experiments.tables`` writes the figures into
``experiments/results/study/`` with the blocks, and each block ends with its
figure's image.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments import balance, balance_levers, balance_qm

FOLDER = Path("experiments") / "results" / "study"
POLICY_COLOURS = {"greedy": "#8c959f", "planner": "#0969da", "expert": "#cf222e"}
# a tornado's bars beyond this many points are cut at it and labelled with their value
TORNADO_CLIP = 20.0


def _forest(t: pd.DataFrame, label: str, ax, what: str):
    """Effects with their intervals, one row per ``label``, a marker per policy."""
    order = list(dict.fromkeys(t[label]))
    pols = list(dict.fromkeys(t["policy"]))
    for k, pol in enumerate(pols):
        g = t[t["policy"] == pol].set_index(label).reindex(order)
        y = np.arange(len(order)) + (k - (len(pols) - 1) / 2) * 0.22
        x = 100 * g["effect"].to_numpy()
        err = 100 * np.vstack([g["effect"] - g["low"], g["high"] - g["effect"]])
        ax.errorbar(x, y, xerr=err, fmt="o", ms=4, capsize=2, color=POLICY_COLOURS.get(pol), label=pol)
    ax.axvline(0, color="#57606a", lw=0.8)
    ax.set_yticks(range(len(order)), [balance.name(k) for k in order])
    ax.invert_yaxis()
    ax.set_xlabel(f"{what}, percentage points (95% interval)")
    ax.legend(fontsize="small")


def draw_levels(t: pd.DataFrame, ax):
    """Win rate per level and player count, a marker per policy."""
    cells = list(dict.fromkeys(zip(t["level"], t["players"])))
    for pol, g in t.groupby("policy", sort=False):
        g = g.set_index(["level", "players"]).reindex(cells)
        x = np.arange(len(cells))
        err = 100 * np.vstack([g["win_rate"] - g["low"], g["high"] - g["win_rate"]])
        ax.errorbar(x, 100 * g["win_rate"], yerr=err, fmt="o-", ms=4, capsize=2, lw=0.8,
                    color=POLICY_COLOURS.get(pol), label=pol)
    ax.set_xticks(range(len(cells)), [f"{balance.name(lv)}\n{balance.PLAYERS_MQ[p]}" for lv, p in cells], fontsize="x-small")
    ax.set_ylabel("win rate, % (95% interval)")
    ax.set_ylim(0, 100)
    ax.set_title("MourneQuest: win rate by level and players, per skill")
    ax.legend(fontsize="small")


def draw_heroes(t: pd.DataFrame, ax):
    _forest(t, "hero", ax, "a hero's effect on the team's win rate")
    ax.set_title("MourneQuest: each hero's effect, per skill")


def draw_characters(t: pd.DataFrame, ax):
    _forest(t, "character", ax, "win rate minus the fair share")
    ax.set_title("Quest Master: each character against its fair share, per skill")


def draw_losses(t: pd.DataFrame, ax):
    """How the planner's games end, one stacked bar per level."""
    cols = [c for c in t.columns if c not in ("level", "games")]
    left = np.zeros(len(t))
    for c in cols:
        v = 100 * t[c].to_numpy()
        ax.barh([balance.name(lv) for lv in t["level"]], v, left=left, label=balance.name(c))
        left += v
    ax.invert_yaxis()
    ax.set_xlabel("share of games, %")
    ax.set_title("MourneQuest: how a competent team's games end")
    ax.legend(fontsize="small", ncols=len(cols), loc="upper center", bbox_to_anchor=(0.5, -0.3), frameon=False)


def draw_sensitivity(t: pd.DataFrame, ax):
    """Each family of numbers nudged down and up, solo and with four players:
    the change in win rate, bars cut at ±TORNADO_CLIP points (the longer ones
    carry their value)."""
    params = list(dict.fromkeys(t["param"]))
    counts = list(dict.fromkeys(t["players"]))
    bars = [(n, w) for n in counts for w in ("down", "up")]
    colours = {"down": ("#0969da", "#80b3ef"), "up": ("#cf222e", "#ec9aa0")}
    h = 0.8 / len(bars)
    for i, (n, way) in enumerate(bars):
        g = t[(t["players"] == n) & (t["way"] == way)].set_index("param").reindex(params)
        v = 100 * g["change"].to_numpy()
        y = np.arange(len(params)) - 0.4 + h * (i + 0.5)
        ax.barh(y, np.clip(v, -TORNADO_CLIP, TORNADO_CLIP), h * 0.95, color=colours[way][counts.index(n) % 2],
                label=f"{balance.PLAYERS_MQ[n]}, one step {way}")
        for yy, vv in zip(y, v):
            if abs(vv) > TORNADO_CLIP:
                ax.text(np.sign(vv) * TORNADO_CLIP, yy, f" {vv:+.1f} ", va="center",
                        ha="left" if vv < 0 else "right", fontsize="xx-small", color="white")
    ax.axvline(0, color="#57606a", lw=0.8)
    ax.set_yticks(range(len(params)), params, fontsize="x-small")
    ax.invert_yaxis()
    ax.set_xlim(-TORNADO_CLIP, TORNADO_CLIP)
    ax.set_xlabel(f"change in the planner's win rate, percentage points (cut at ±{TORNADO_CLIP:.0f})")
    ax.set_title("MourneQuest, Medium: what moves the win rate")
    ax.legend(fontsize="x-small", loc="lower right")


TEAM_COLOURS = {"competent": POLICY_COLOURS["planner"], "skilled": POLICY_COLOURS["expert"]}


def draw_quarters(t: pd.DataFrame, ax):
    """Each cell's win rate against its disc length in quarter clicks, a
    line per team, the aim a dashed line: one small panel per level and
    player count in the space of ``ax``."""
    fig = ax.figure
    levels, counts = list(dict.fromkeys(t["level"])), sorted(set(t["players"]))
    grid = ax.get_subplotspec().subgridspec(len(levels), len(counts), hspace=0.6, wspace=0.25)
    ax.remove()
    for i, lv in enumerate(levels):
        for j, p in enumerate(counts):
            a = fig.add_subplot(grid[i, j])
            g = t[(t["level"] == lv) & (t["players"] == p)]
            for team, h in g.groupby("team", sort=False):
                err = 100 * np.vstack([h["rate"] - h["low"], h["high"] - h["rate"]])
                a.errorbar(h["clicks"] / 4, 100 * h["rate"], yerr=err, fmt="o-", ms=2.5, lw=0.8, capsize=1.5,
                           color=TEAM_COLOURS[team.split(" (")[0]], label=team)
            a.axhline(100 * g["aim"].iloc[0], color="#57606a", lw=0.8, ls="--")
            a.set_title(f"{balance.name(lv)}, {balance.PLAYERS_MQ[p]}", fontsize="small")
            a.tick_params(labelsize="x-small")
            if j == 0:
                a.set_ylabel("win rate, %", fontsize="small")
            if i == len(levels) - 1:
                a.set_xlabel("Disc length, clicks", fontsize="small")
    fig.suptitle("MourneQuest: win rate by disc length in quarter clicks (dashed: the aim)", fontsize="medium")
    fig.axes[0].legend(fontsize="xx-small", loc="upper left")


# file -> (the block it illustrates, its frame from the artefacts, how it is drawn, the caption)
FIGURES = {
    "mq-levels.png": ("bal-mq-levels", balance.levels_frame, draw_levels, "win rate by level and players"),
    "mq-heroes.png": ("bal-mq-heroes", balance.heroes_frame, draw_heroes, "each hero's effect"),
    "mq-losses.png": ("bal-mq-losses", balance.losses_frame, draw_losses, "how games end"),
    "mq-sensitivity.png": ("bal-sensitivity", balance_levers.sensitivity_frame, draw_sensitivity,
                           "what moves the win rate"),
    "qm-characters.png": ("bal-qm-characters", balance_qm.characters_frame, draw_characters,
                          "each character against its fair share"),
    "mq-quarter-clicks.png": ("bal-quarters", balance_levers.quarters_frame, draw_quarters,
                              "win rate by disc length in quarter clicks, per team"),
}
BLOCK_FIGURE = {block: name for name, (block, *_rest) in FIGURES.items()}
# inches high: these two are fixed; the forests grow with their rows, the tornado with its families
HEIGHT = {"mq-levels.png": 5.0, "mq-losses.png": 3.4, "mq-quarter-clicks.png": 7.0}


def _height(name: str, t: pd.DataFrame) -> float:
    if name in HEIGHT:
        return HEIGHT[name]
    if name == "mq-sensitivity.png":
        return 0.42 * t["param"].nunique() + 1.8
    return 0.45 * max(6, len(t) // 2) + 1.5


def image_line(block: str, depth: str = "../..") -> str:
    """The Markdown image a block ends with (none for a block without a figure)."""
    name = BLOCK_FIGURE.get(block)
    return f"\n\n![{FIGURES[name][3]}]({depth}/{FOLDER.as_posix()}/{name})" if name else ""


def write(root: Path) -> list:
    """Draw every figure from its frame into ``root/experiments/results/study``."""
    from simcore import outdir
    from simcore.plots import plt
    folder = Path(root) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    with outdir.owned(folder, "publish") as own:
        for name, (_block, frame, draw, _caption) in FIGURES.items():
            t = frame(root)
            fig, ax = plt.subplots(figsize=(8, _height(name, t)))
            draw(t, ax)
            fig.tight_layout()
            out.append(own.save_figure(fig, name, dpi=110))
            plt.close(fig)
    return out
