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
one cell and returns one row per game with a boolean ``win`` column; called
with ``n`` 0 when a worker process starts, it loads what a batch needs.
"""
from __future__ import annotations

import concurrent.futures as cf
import functools
import multiprocessing
import os
import socket
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import pandas as pd

from . import atomic, inputs, outdir, shutdown, store
from .errors import InputError
from .stats import wilson


# games per call of a batch played in the main process: a numba kernel holds
# the interpreter until it returns, so a chunk is the longest Ctrl-C waits
# (500 planner games, the slowest built-in policy: about 0.3 s on a busy core)
IN_PROCESS_CHUNK = 500
# seconds without a finished batch after which the user is told how to stop
STALL_NOTE = 120


class Interrupted(Exception):
    """The run was interrupted (Ctrl-C, SIGTERM); finished batches are kept.
    ``status`` is the exit status to end with (130, or 143 after SIGTERM)."""

    def __init__(self, done, total, out, status=130):
        super().__init__(f"interrupted after {done} of {total} batches")
        self.done, self.total, self.out, self.status = done, total, out, status


class Summary(list):
    """Per cell ``(games, wins)`` of a finished run, plus ``seed``,
    ``played_now``: the games played by this call (a resumed run re-uses the
    others), and ``startup``: the seconds its worker processes took to start
    and load the engine before any game (not play)."""

    def __init__(self, items, seed, played_now, startup=0.0):
        super().__init__(items)
        self.seed, self.played_now, self.startup = seed, played_now, startup


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
    resume_hint: str | None = None   # how to finish the run after a failed write (default: simulate --resume)
    # a plug-in policy plays (user code that may never return): its batches
    # always run in child processes, so Ctrl-C stops the run at once
    isolate: bool = False

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


class LocalBackend:
    """A process pool on this machine, or no pool at all for one worker
    unless ``isolate``: then even one worker plays in a child process, so
    the main process stays free to answer Ctrl-C at once whatever a policy
    does (a numba kernel never returns to Python until it finishes)."""

    def __init__(self, workers, isolate=False):
        self.workers = workers
        self.ex = None
        self.started = False
        if workers > 1 or isolate:
            self.ex = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=shutdown.worker_init, initargs=(os.getpid(),))

    def start(self, fn, *args) -> float:
        """Start the worker processes and have them load what a batch needs
        (``fn(*args)``, a batch of no games: imports, the engine from numba's
        cache, a plug-in's entry point), so that the clock of the games
        that follow times play alone. Returns the seconds it took (0 with no
        pool: the batches play in this process, or a pool started before)."""
        if self.ex is None or self.started:
            return 0.0
        self.started = True
        t = time.perf_counter()
        # each submit finds no idle worker and spawns one; each worker loads
        # the engine in its first task, so all start at about the same time
        for fut in [self.ex.submit(fn, *args) for _ in range(self.workers)]:
            fut.result()
        return time.perf_counter() - t

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

    def wait_first(self, pending, timeout=None):
        """The futures of ``pending`` that are done (empty after ``timeout`` s)."""
        return cf.wait(pending, timeout=timeout, return_when=cf.FIRST_COMPLETED)[0]

    def close(self, cancel=False):
        if self.ex is None:
            return
        ex, self.ex = self.ex, None     # closing twice (a shared pool) does nothing
        # a broken pool (a worker died) is being torn down by the pool's own
        # thread, which kills the workers and closes the pipe itself: doing
        # either here too raced it, and it printed a traceback at exit
        broken = bool(getattr(ex, "_broken", False))
        if cancel and not broken:
            for p in list((getattr(ex, "_processes", None) or {}).values()):
                p.terminate()
            # A payload is ~100 KB, more than a pipe holds: the pool's feeder
            # thread may be blocked writing one to the workers just killed,
            # and the interpreter would wait for it at exit forever. Closing
            # our end of the pipe unblocks it (CPython does the same for a
            # broken pool, gh-94777).
            try:
                ex._call_queue._reader.close()
            except (AttributeError, OSError):
                pass
        ex.shutdown(wait=broken or not cancel, cancel_futures=cancel)


CONNECT_SECONDS = 10     # --cluster: how long to wait for a scheduler to answer


def _reachable(address):
    """Raise OSError at once when nothing listens at ``address``'s host and
    port: Dask's client retries a refused connection until its timeout runs
    out, so a mistyped port would cost the whole wait before saying so."""
    from distributed.comm.addressing import parse_address, parse_host_port
    host, port = parse_host_port(parse_address(address)[1])
    socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()


class DaskBackend:
    """The same batches on a Dask distributed cluster: ``address`` is a
    scheduler address (``tcp://host:8786``) or ``local`` for a cluster of
    ``workers`` processes on this machine."""

    def __init__(self, address, workers):
        address = inputs.cluster_address(address)
        from distributed import Client, LocalCluster
        self.cluster = None
        try:
            if address == "local":
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None)
                self.client = Client(self.cluster)
            else:
                _reachable(address)
                self.client = Client(address, timeout=f"{CONNECT_SECONDS}s")
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise InputError(f"--cluster {address}: cannot connect ({type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else 'no answer'})") from None
        self.workers = max(1, len(self.client.scheduler_info()["workers"]))

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def wait_first(self, pending, timeout=None):
        """The futures of ``pending`` that are done (empty after ``timeout`` s)."""
        from distributed import wait
        try:
            return set(wait(list(pending), timeout=timeout, return_when="FIRST_COMPLETED").done)
        except TimeoutError:
            return set()

    def close(self, cancel=False):
        for part in ("client", "cluster"):
            obj = getattr(self, part, None)
            setattr(self, part, None)
            if obj is not None:
                try:
                    obj.close()
                except Exception:   # noqa: BLE001 - closing a broken connection: nothing left to do
                    pass


def call_in_child(fn, *args, what="the game"):
    """``fn(*args)`` in a child process (spawned, dying with this one): for
    a single game of a plug-in policy, which may never return; Ctrl-C stops
    it at once. A child that dies is one line naming ``what`` it played."""
    be = LocalBackend(1, isolate=True)
    try:
        result = be.submit(fn, *args).result()
    except BrokenProcessPool:
        be.close(cancel=True)
        raise InputError(f"the process playing {what} ended before the game did (the policy exited, "
                         "or the process was killed or ran out of memory)") from None
    except BaseException:
        be.close(cancel=True)
        raise
    be.close()
    return result


def backend(workers=None, cluster=None, isolate=False):
    """The backend for ``--workers`` / ``--cluster``."""
    workers = workers or os.cpu_count() or 1
    return DaskBackend(cluster, workers) if cluster else LocalBackend(workers, isolate)


def run(plan: Plan, play, out=None, workers=None, cluster=None, progress=None, resume=False, note=None,
        shared=None):
    """Play ``plan``; returns ``(frame or None, Summary)``: per cell
    ``(games, wins)``.

    With ``out`` every finished batch becomes a part file there and nothing
    is held in memory (the frame is None). The directory is held for the
    whole run (simcore.outdir): a fresh run refuses one holding anything it
    did not write; ``resume`` keeps the parts already there — each checked to
    belong to the run — and plays only the missing batches. ``progress`` is a
    tqdm-like bar (``update(n)``, ``total``) or None; ``note`` a function
    given one line to show the user when no batch has finished for
    STALL_NOTE seconds (a policy that never returns looks like that).

    Ctrl-C (and SIGTERM) stop a run within a moment: pool workers are
    killed; a batch played in this process (one worker) is played in chunks
    of IN_PROCESS_CHUNK games, so the interruption is seen between chunks
    (the rows are the same: a game depends only on its seed and index); and
    a plan with a plug-in policy (``plan.isolate``) always plays in child
    processes, since a user's policy may never return.

    ``shared`` is a backend (:func:`backend`) that plays this run and stays
    open after it, for a caller that runs many plans in a row (an
    experiment's rounds): its workers start once, not once a run. It is
    closed only when the run fails or is interrupted."""
    if out is None:
        return _play(plan, play, None, workers, cluster, progress, {}, note, shared)
    out = atomic.make_dir(out)
    with outdir.held(out):
        if resume:
            disk = store.read_run(out)
            why = store.differs(disk, plan.run_record())
            if why:
                raise InputError(f"cannot resume {out}: the run recorded there is another one ({why})")
            outdir.check_resumed_dataset(out)
            done = store.checked_parts(out, disk)
        else:
            outdir.check_new_dataset(out, plan.meta.get("package", "the game's command"))
            store.write_run(out, plan.run_record())
            done = {}
        return _play(plan, play, out, workers, cluster, progress, done, note, shared)


def _chunked(play, payload, seed, first, n):
    """``play`` of one batch, in chunks (see ``run``)."""
    if n <= IN_PROCESS_CHUNK:
        return play(payload, seed, first, n)
    end = first + n
    return pd.concat([play(payload, seed, f, min(IN_PROCESS_CHUNK, end - f))
                      for f in range(first, end, IN_PROCESS_CHUNK)], ignore_index=True)


def _result(get, label, out):
    """``get()`` (a batch's result), its failure as one InputError line."""
    try:
        return get()
    except InputError:
        raise
    except BrokenProcessPool:
        raise InputError("a worker process died (killed, or out of memory); finished batches "
                         + (f"are kept in {out}" if out else "are lost: use --out DIR to keep them")) from None
    except Exception as e:
        raise InputError(f"a batch of cell {label} failed: {type(e).__name__}: {e}") from None


def _schedule(plan, done, progress):
    """Each cell's scheduling state, the batches already ``done`` (a resumed
    run's parts) counted in it and in ``progress``."""
    cells = [_Cell(plan.games, b, plan.target_ci, plan.first) for b in plan.batch]
    for (c, f), path in done.items():
        cells[c].wins[f] = int(store.read_column(path, "win").sum())
    for c in cells:
        c.settle()
    if progress is not None:
        progress.total = sum(c.played for c in cells)
        progress.update(sum(c.sizes[f] for c in cells for f in c.wins if f < c.stop))
    return cells


def _issue(be, play, plan, cells, pending):
    """Keep every worker busy, one batch ahead, cells in turn."""
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


def _keep(plan, cells, ci, f, df, out, frames, progress):
    """Batch ``f`` of cell ``ci``, finished with rows ``df``, into the result
    (a part file in ``out``, or ``frames``); the games it adds (none when it
    was played speculatively past its cell's stopping point)."""
    c = cells[ci]
    if f >= c.stop:
        return 0
    if out is not None:       # a batch counts as kept once its part is on disk
        store.write_part(out, ci, f, df, dict(plan.run_record(), cell=ci, first=f, n=len(df)))
    else:
        frames[(ci, f)] = df
    c.wins[f] = int(df["win"].sum())
    before = c.stop
    c.settle()
    if progress is not None:
        if c.stop != before:
            progress.total -= before - c.stop
            progress.refresh()
        progress.update(len(df))
    return len(df)


def _finish(plan, cells, frames, out, summary):
    """The run's result once every batch is in: the rows in memory, or the
    dataset in ``out`` completed (its record written, batches past an early
    stop removed)."""
    if out is None:
        keep = [frames[k] for k in sorted(frames) if k[1] < cells[k[0]].stop]
        return (pd.concat(keep, ignore_index=True) if keep else pd.DataFrame()), summary
    # a batch written before its cell's early stop was known is not part of the result
    for (ci, f), path in store.parts(out).items():
        if ci < len(cells) and f >= cells[ci].stop:
            path.unlink()
    try:
        store.write_run(out, dict(plan.run_record(), complete=True,
                                  played=[dict(games=n, wins=w) for n, w in summary]))
    except atomic.OutputError as e:
        hint = plan.resume_hint or f"finish with: {plan.meta.get('package')} simulate --resume {out}"
        raise atomic.OutputError(f"{e}; every batch is kept in {out}; once it can be written, {hint}") from None
    return None, summary


def _play(plan, play, out, workers, cluster, progress, done, note=None, shared=None):
    """``run``'s work once its output (if any) is held: the batches not
    ``done`` played on a backend, each kept as it finishes."""
    cells = _schedule(plan, done, progress)
    frames = {}
    todo = sum(1 for c in cells for f in c.kept() if f not in c.wins)
    played_now = 0
    n = min(workers or os.cpu_count() or 1, max(1, todo))
    # a run that needs no pool (one batch, or one worker) plays in this
    # process even beside a shared pool: sending it to a worker costs more
    own = shared is None or not (isinstance(shared, DaskBackend)
                                 or ((n > 1 or plan.isolate) and shared.ex is not None))
    be = backend(n, cluster, plan.isolate) if own else shared
    if isinstance(be, LocalBackend) and be.ex is None:
        play = functools.partial(_chunked, play)
    pending = {}

    def kept():
        return sum(len([f for f in c.wins if f < c.stop]) for c in cells), sum(len(c.kept()) for c in cells)

    startup = 0.0
    try:
        if todo and hasattr(be, "start"):
            first = next(ci for ci, c in enumerate(cells) if c.next_batch() is not None)
            startup = _result(lambda: be.start(play, plan.payloads[first], plan.seed, cells[first].start, 0),
                              plan.labels[first], out)
        while True:
            _issue(be, play, plan, cells, pending)
            if not pending:
                break
            finished = be.wait_first(pending, STALL_NOTE)
            if not finished and note is not None:
                note(f"no batch has finished for {STALL_NOTE // 60} minutes (up to {max(plan.batch):,} games a "
                     "batch); if a policy never returns, Ctrl-C stops the run and keeps every finished batch")
                note = None      # said once
            for fut in finished:
                ci, f = pending.pop(fut)
                cells[ci].issued.discard(f)
                df = _result(fut.result, plan.labels[ci], out)
                played_now += _keep(plan, cells, ci, f, df, out, frames, progress)
    except KeyboardInterrupt as e:
        be.close(cancel=True)
        raise Interrupted(*kept(), out, shutdown.exit_status(e)) from None
    except atomic.OutputError as e:
        be.close(cancel=True)
        n, total = kept()
        hint = plan.resume_hint or f"finish with: {plan.meta.get('package')} simulate --resume {out}"
        raise atomic.OutputError(f"{e}; {n} of {total} batches kept in {out}; once it can be written, {hint}") \
            from None
    except BaseException:
        be.close(cancel=True)
        raise
    if own:
        be.close()
    summary = Summary([(c.played, sum(w for f, w in c.wins.items() if f < c.stop)) for c in cells],
                      plan.seed, played_now, startup)
    return _finish(plan, cells, frames, out, summary)
