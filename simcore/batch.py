"""The batch driver both games use: play the games of a grid of configuration
cells in batches on every core (a process pool) or on a Dask cluster, keep
every finished batch (in memory, or as a Parquet part on disk), resume an
interrupted run, and stop each cell early once its win-rate interval is as
tight as asked.

Determinism: a game depends only on ``(seed, game index)`` and its cell's
configuration, never on which worker or batch played it, so any number of
workers, any backend and any interruption give the same rows. The early stop
is decided on whole-batch prefixes of each cell (games ``0 .. k*batch-1``),
so it too is the same however the batches were scheduled; batches played
speculatively beyond a cell's stopping point are discarded.

A game package supplies ``play(payload, seed, first, n) -> DataFrame``, a
module-level (picklable) function that plays games ``first .. first+n-1`` of
one cell and returns one row per game with a boolean ``win`` column.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import store
from .errors import InputError
from .stats import wilson


class Interrupted(Exception):
    """The run was interrupted (Ctrl-C); finished batches are kept."""

    def __init__(self, done, total, out):
        super().__init__(f"interrupted after {done} of {total} batches")
        self.done, self.total, self.out = done, total, out


@dataclass
class Plan:
    """What to play: one payload per configuration cell (what ``play``
    needs), a readable label per cell, and how many games."""
    payloads: list
    labels: list                 # one dict per cell, JSON-ready
    seed: int
    games: int                   # games per cell (the cap under target_ci)
    batch: list                  # games per batch, per cell
    target_ci: float | None = None
    meta: dict = field(default_factory=dict)   # versions, ruleset hash, command line ...
    first: int = 0               # index of the first game (experiments add games in rounds)

    def run_record(self) -> dict:
        """The run description written to ``_run.json``."""
        extra = dict(first=self.first) if self.first else {}
        return dict(self.meta, seed=self.seed, games=self.games, batch=self.batch,
                    target_ci=self.target_ci, cells=self.labels, **extra)


def half_width(wins, n):
    """Half-width of the Wilson 95% interval of ``wins`` out of ``n``."""
    lo, hi = wilson(wins, n)
    return (hi - lo) / 2


class _Cell:
    """Scheduling state of one cell: which batches are done, where it stops."""

    def __init__(self, games, batch, target, start=0):
        end = start + games
        self.start = start
        self.firsts = list(range(start, end, batch))
        self.sizes = {f: min(batch, end - f) for f in self.firsts}
        self.target = target
        self.wins = {}              # first -> wins of a finished batch
        self.issued = set()
        self.stop = end             # end of the games in the final result (lowered by target_ci)
        self.stopped = False

    def settle(self):
        """Recompute the stopping point from the finished prefix of batches."""
        n = w = 0
        for f in self.firsts:
            if f not in self.wins:
                return
            n += self.sizes[f]
            w += self.wins[f]
            if self.target is not None and half_width(w, n) <= self.target:
                self.stop, self.stopped = f + self.sizes[f], True
                return
        self.stopped = True

    def next_batch(self):
        for f in self.firsts:
            if f >= self.stop:
                return None
            if f not in self.wins and f not in self.issued:
                return f
        return None

    @property
    def done(self):
        return self.stopped

    @property
    def played(self):
        """Games in the result (so far, or at the stopping point)."""
        return self.stop - self.start

    def kept(self):
        return [f for f in self.firsts if f < self.stop]


def _ignore_sigint():
    # Ctrl-C goes to the whole process group: the parent handles it, the
    # workers must not print tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalBackend:
    """A process pool on this machine (no pool at all for one worker)."""

    def __init__(self, workers):
        self.workers = workers
        self.ex = None
        if workers > 1:
            self.ex = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_ignore_sigint)

    def submit(self, fn, *args):
        if self.ex is None:
            f = cf.Future()
            try:
                f.set_result(fn(*args))
            except BaseException as e:   # noqa: BLE001 - re-raised by result()
                if isinstance(e, KeyboardInterrupt):
                    raise
                f.set_exception(e)
            return f
        return self.ex.submit(fn, *args)

    def wait_first(self, pending):
        return cf.wait(pending, return_when=cf.FIRST_COMPLETED)[0]

    def close(self, cancel=False):
        if self.ex is not None:
            if cancel:
                for p in list(getattr(self.ex, "_processes", {}).values()):
                    p.terminate()
            self.ex.shutdown(wait=not cancel, cancel_futures=cancel)


class DaskBackend:
    """The same batches on a Dask distributed cluster: ``address`` is a
    scheduler address (``tcp://host:8786``) or ``local`` for a cluster of
    ``workers`` processes on this machine."""

    def __init__(self, address, workers):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError("--cluster needs Dask distributed: pip install 'distributed'") from None
        self.cluster = None
        try:
            if address == "local":
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None)
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise InputError(f"--cluster {address}: cannot connect ({e})") from None
        self.workers = max(1, len(self.client.scheduler_info()["workers"]))

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def wait_first(self, pending):
        from distributed import wait
        return set(wait(list(pending), return_when="FIRST_COMPLETED").done)

    def close(self, cancel=False):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def backend(workers=None, cluster=None):
    """The backend for ``--workers`` / ``--cluster``."""
    workers = workers or os.cpu_count() or 1
    return DaskBackend(cluster, workers) if cluster else LocalBackend(workers)


def run(plan: Plan, play, out=None, workers=None, cluster=None, progress=None, resume=False):
    """Play ``plan``; returns ``(frame or None, per-cell (games, wins))``.

    With ``out`` every finished batch becomes a part file there and nothing
    is held in memory (the frame is None); ``resume`` keeps the parts already
    there and plays only the missing batches. ``progress`` is a tqdm-like bar
    (``update(n)``, ``total``) or None."""
    cells = [_Cell(plan.games, b, plan.target_ci, plan.first) for b in plan.batch]
    out = Path(out) if out else None
    frames = {}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        if resume:
            for (c, f), path in store.parts(out).items():
                if c < len(cells) and f in cells[c].sizes:
                    cells[c].wins[f] = int(store.read_column(path, "win").sum())
        else:
            store.write_run(out, plan.run_record())
    for c in cells:
        c.settle()
    if progress is not None:
        progress.total = sum(c.played for c in cells)
        progress.update(sum(c.sizes[f] for c in cells for f in c.wins if f < c.stop))
    todo = sum(1 for c in cells for f in c.kept() if f not in c.wins)
    be = backend(min(workers or os.cpu_count() or 1, max(1, todo)), cluster)
    pending = {}
    try:
        while True:
            # keep every worker busy, one batch ahead, cells in turn
            limit = 2 * be.workers
            progressed = True
            while len(pending) < limit and progressed:
                progressed = False
                for ci, c in enumerate(cells):
                    if len(pending) >= limit:
                        break
                    f = c.next_batch()
                    if f is None:
                        continue
                    c.issued.add(f)
                    fut = be.submit(play, plan.payloads[ci], plan.seed, f, c.sizes[f])
                    pending[fut] = (ci, f)
                    progressed = True
            if not pending:
                break
            for fut in be.wait_first(pending):
                ci, f = pending.pop(fut)
                c = cells[ci]
                c.issued.discard(f)
                try:
                    df = fut.result()
                except InputError:
                    raise
                except Exception as e:
                    raise InputError(f"a batch of cell {plan.labels[ci]} failed: {type(e).__name__}: {e}") from None
                if f >= c.stop:
                    continue     # played speculatively past the stopping point
                c.wins[f] = int(df["win"].sum())
                if out is not None:
                    store.write_part(out, ci, f, df, dict(plan.run_record(), cell=ci, first=f, n=len(df)))
                else:
                    frames[(ci, f)] = df
                before = c.stop
                c.settle()
                if progress is not None:
                    if c.stop != before:
                        progress.total -= before - c.stop
                        progress.refresh()
                    progress.update(len(df))
    except KeyboardInterrupt:
        be.close(cancel=True)
        done = sum(len([f for f in c.wins if f < c.stop]) for c in cells)
        raise Interrupted(done, sum(len(c.kept()) for c in cells), out) from None
    be.close()
    summary = [(c.played, sum(w for f, w in c.wins.items() if f < c.stop)) for c in cells]
    if out is None:
        keep = [frames[k] for k in sorted(frames) if k[1] < cells[k[0]].stop]
        return (pd.concat(keep, ignore_index=True) if keep else pd.DataFrame()), summary
    # a batch written before its cell's early stop was known is not part of the result
    for (ci, f), path in store.parts(out).items():
        if ci < len(cells) and f >= cells[ci].stop:
            path.unlink()
    store.write_run(out, dict(plan.run_record(), complete=True,
                              played=[dict(games=n, wins=w) for n, w in summary]))
    return None, summary
