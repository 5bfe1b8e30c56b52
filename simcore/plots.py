"""Writing a game's plots: each is a function ``draw(df, ax)``; this makes
one labelled PNG per plot (matplotlib's file-only Agg backend)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")   # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

from . import atomic  # noqa: E402
from .errors import InputError  # noqa: E402
from .store import RUN_FILE  # noqa: E402


def write_plots(df, outdir, plots: dict) -> list:
    """Draw every ``{name: draw}`` of ``plots`` into ``outdir/name.png``
    (each written atomically: simcore.atomic); returns the paths.

    A results directory is not a place for plots: it would then hold files
    its run did not write, and ``--resume`` would refuse it."""
    out = Path(outdir)
    if (out / RUN_FILE).exists():
        raise InputError(f"--plots {outdir}: that is a results directory; write the plots somewhere else")
    atomic.make_dir(out)
    paths = []
    for name, draw in plots.items():
        fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
        try:
            draw(df, ax)
            ax.grid(alpha=0.3)
            paths.append(atomic.save_figure(fig, out / f"{name}.png", dpi=110))
        finally:
            plt.close(fig)
    return paths
