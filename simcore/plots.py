"""Writing a game's plots: each is a function ``draw(df, ax, names)``
(``names``: id -> the name a person reads, the ruleset's ``[names]``) whose
docstring's first line is its caption; this makes one labelled PNG per plot
(matplotlib's file-only Agg backend)."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")   # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

from .errors import InputError  # noqa: E402
from .store import RUN_FILE  # noqa: E402


@contextmanager
def plots_dir(path):
    """Hold ``--plots`` directory ``path`` as the tool's own
    (simcore.outdir.owned: new, empty, or written by the tool before).

    A results directory is not a place for plots: it would then hold files
    its run did not write, and ``--resume`` would refuse it."""
    from .outdir import owned
    if (Path(path) / RUN_FILE).exists():
        raise InputError(f"--plots {path}: that is a results directory; write the plots somewhere else")
    with owned(path, "--plots") as held:
        yield held


def points_axis(ax):
    """The x axis of a difference of rates in percentage points (``+2.5 pp``)."""
    from matplotlib.ticker import FuncFormatter
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:+g} pp"))


def caption(draw) -> str:
    """What plot ``draw`` shows, for a person: its docstring's first paragraph."""
    return " ".join((draw.__doc__ or "").strip().split("\n\n")[0].split())


def write_plots(df, out, plots: dict, names: dict | None = None) -> list:
    """Draw every ``{name: draw}`` of ``plots`` as ``name.png`` into ``out``:
    an output directory held as the tool's own (simcore.outdir.Owned), or a
    path, then held here (:func:`plots_dir`); returns the paths."""
    from .outdir import Owned
    if not isinstance(out, Owned):
        with plots_dir(out) as held:
            return write_plots(df, held, plots, names)
    paths = []
    for name, draw in plots.items():
        fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
        try:
            draw(df, ax, names)
            ax.grid(alpha=0.3)
            paths.append(out.save_figure(fig, f"{name}.png", dpi=110))
        finally:
            plt.close(fig)
    return paths
