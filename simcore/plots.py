"""Writing a game's plots: each is a function ``draw(df, ax)``; this makes
one labelled PNG per plot (matplotlib's file-only Agg backend)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")   # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402


def write_plots(df, outdir, plots: dict) -> list:
    """Draw every ``{name: draw}`` of ``plots`` into ``outdir/name.png``; returns the paths."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, draw in plots.items():
        fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
        draw(df, ax)
        ax.grid(alpha=0.3)
        path = out / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
