"""The two commands whose options are a game's own axes, written once:
``simulate`` (a grid of seeded games, its balance report or a dataset) and
``bench`` (speed: warm and cold start, games per second of every policy, the
batch driver at one and all workers, peak memory).

A game declares its axes as data in its ``cli.py`` (:class:`Axes` for
simulate, :class:`Bench` for bench) and calls :func:`add_simulate_command`
and :func:`add_bench_command` on its click group; everything else about
the two commands (the shared options, resume, the compile before the clock,
the report or the dataset, the timings) is here.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import click

from . import identity, yardstick
from .cli import check_resume, compile_once, play_grid, ruleset_options, timed_start
from .inputs import MAX_SEED, MAX_WORKERS, batch_option, cluster_address, games_option, parse_floats


@dataclass(frozen=True)
class Axes:
    """What a game's ``simulate`` takes beyond the options every game's has,
    and how its values become a grid.

    ``options`` are the click options of the axes (top to bottom, named
    ``names``); ``parse(rules, params, **values)`` gives the game's
    ``batch.run_grid`` axis keywords; ``warm(rules, axes)`` one game of each
    policy (or table) the grid plays, as ``[(key, callable)]``;
    ``policies(axes)`` the policy names whose entry points compile meanwhile;
    ``cells(cells)`` the tables printed for a run written with ``--out``."""
    grid: str                    # "levels x players x policies", for the help
    options: tuple
    names: tuple
    parse: Callable
    warm: Callable
    policies: Callable
    cells: Callable
    params_help: str
    batch_help: str
    target_help: str


def add_simulate_command(main, game, axes: Axes, example_set: str):
    """Add ``simulate`` to ``game``'s click group ``main``."""
    grid_options = ("games", "seed", *axes.names, "params", "batch", "target_ci", "ruleset", "overrides")

    def simulate(ctx, games, seed, params, workers, batch, target_ci, out, resume, cluster, quiet, ruleset,
                 overrides, **values):
        from .grid import warm_up
        from .report import render
        prog, sim = game.package, game.module("sim")
        report = game.module("report")
        if resume:
            check_resume(ctx, grid_options, out)
        cluster = cluster_address(cluster)
        compiled = 0.0
        rules = None
        if not resume:   # the options are checked, then the engine made ready, before the clock starts
            rules = sim.prepare(ruleset, overrides)
            grid_axes = axes.parse(rules, parse_floats(params, "--params"), **values)
            # the policies played (one game each) and no other: each built-in's
            # entry point compiles here while the workers compile the engine
            played = axes.policies(grid_axes)
            compiled = compile_once(game, game.module("engine").run_batch,
                                    lambda: warm_up(game, axes.warm(rules, grid_axes)), workers,
                                    during=lambda: game.registry.compile_entries(played))
        grid_kw = None if resume else dict(games=games, seed=seed, **grid_axes, rules=rules, ruleset=ruleset,
                                           overrides=overrides, batch=batch, target_ci=target_ci, out=out)
        df, cells, out, speed = play_grid(game, grid_kw, resume, workers, cluster, quiet, compiled)
        names = rules.display_names() if rules else None
        if out:
            click.echo(render(axes.cells(cells), "table",
                              f"{game.title} run in {out}  seed={cells.seed}  ({speed})\n{identity.describe(prog)}",
                              names))
            click.echo(f"full report: {prog} report {out}")
            return
        given = " ".join(f"{n}={values[n]}" for n in axes.names)
        title = (f"{game.title}  {given} games={games} seed={seed} rules={rules.hash}  ({speed})\n"
                 f"{identity.describe(prog)}\n{report.headline(df)}")
        click.echo(render(report.standard_report(df, names), "table", title, names), nl=False)

    f = ruleset_options(example_set)(click.pass_context(simulate))
    for opt in reversed((
            click.option("--games", default=10000, show_default=True, type=games_option(),
                         help="Games per configuration cell (the cap with --target-ci)."),
            click.option("--seed", default=1, show_default=True, type=click.IntRange(0, MAX_SEED),
                         help="Master seed."),
            *axes.options,
            click.option("--params", default="", metavar="X,Y", help=axes.params_help),
            click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
                         help="Worker processes [default: all cores]."),
            click.option("--batch", type=batch_option(), default=None, help=axes.batch_help),
            click.option("--target-ci", type=float, default=None, metavar="X", help=axes.target_help),
            click.option("--out", type=click.Path(file_okay=False), default=None,
                         help="Write a Parquet dataset (docs/common/results.md) here instead of printing "
                              "the full report."),
            click.option("--resume", type=click.Path(file_okay=False), default=None,
                         help="Finish the interrupted run in this directory."),
            click.option("--cluster", default=None, metavar="ADDRESS|local",
                         help="Run the batches on a Dask cluster (scheduler address, or local)."),
            click.option("--quiet", is_flag=True, help="No progress bar."))):
        f = opt(f)
    main.command("simulate", help=f"Play seeded games over a grid of {axes.grid} and print the balance "
                                  "report (or write a dataset with --out).")(f)


@dataclass(frozen=True)
class Bench:
    """What a game's ``bench`` plays. ``options`` are its axes' click options
    (one value each); ``runs(**values)`` the heuristic policies as
    ``[(label, simulate keywords)]`` and ``searches(**values)`` the search
    policies likewise; ``measure(df)`` a figure of each run's games shown
    beside its speed; ``grid(**values)`` the batch driver's axis keywords;
    ``describe(**values)`` the setting, for the first line."""
    options: tuple
    games: int
    scale_games: int
    runs: Callable
    searches: Callable
    measure: Callable
    grid: Callable
    describe: Callable
    search_help: str


def add_bench_command(main, game, bench: Bench, example_set: str):
    """Add ``bench`` to ``game``'s click group ``main``."""

    def run_bench(games, search_games, scale_games, workers, cold, ruleset, overrides, **values):
        import resource
        import tempfile
        prog, sim, grid = game.package, game.module("sim"), game.module("batch")
        rules = sim.prepare(ruleset, overrides)      # a bad ruleset is refused before any timing
        workers = workers or os.cpu_count() or 1
        click.echo(f"{game.title} bench: {bench.describe(**values)}, {os.cpu_count()} cores")
        if cold:
            click.echo(f"cold start (empty numba cache, compiles the engine on {workers} cores): "
                       f"{timed_start(prog, workers, cold=True):6.1f}s")
        click.echo(f"warm start of the CLI (simulate --games 1):             {timed_start(prog):6.1f}s")
        runs = [(label, kw, games) for label, kw in bench.runs(**values)]
        for label, kw in bench.searches(**values) if search_games else ():
            t = time.perf_counter()
            sim.simulate(games=1, seed=0, rules=rules, **kw)
            click.echo(f"{label} entry point ready in {time.perf_counter() - t:.1f}s")
            runs.append((label, kw, search_games))
        click.echo("one core, in process (ratio: games/s per million yardstick steps/s, timed before and "
                   "after each run; simcore/yardstick.py):")
        rate = {}
        before = yardstick.steps_per_second()
        for label, kw, n in runs:
            sim.simulate(games=1, seed=0, rules=rules, **kw)   # its entry point compiled or loaded, off the clock
            t = time.perf_counter()
            df = sim.simulate(games=n, seed=1, rules=rules, **kw)
            dt = time.perf_counter() - t
            after = yardstick.steps_per_second()
            rate[label] = n / dt
            click.echo(f"  {label:<8} {n:>9,} games  {dt:7.2f}s  {n / dt:10,.1f} games/s  "
                       f"ratio {n / dt / ((before + after) / 2):7.2f}  {bench.measure(df)}")
            before = after
        click.echo(f"  yardstick: {before:,.0f} million steps/s")
        if "expert" in rate and "planner" in rate:
            click.echo(f"  expert at its default budget: 1/{rate['planner'] / rate['expert']:.0f} of the planner's "
                       "games per second in this run")
        if scale_games:
            click.echo(f"batch driver, default policy (greedy), Parquet output, {scale_games:,} games:")
            base = None
            for w in sorted({1, workers}):
                with tempfile.TemporaryDirectory() as d:
                    t = time.perf_counter()
                    grid.run_grid(games=scale_games, seed=1, rules=rules, out=Path(d) / "run", workers=w,
                                  **bench.grid(**values))
                    dt = time.perf_counter() - t
                base = base or dt
                click.echo(f"  {w} worker{'s' if w > 1 else ' '} {dt:7.2f}s  {scale_games / dt:10,.0f} games/s  "
                           f"speed-up {base / dt:4.2f}x")
        me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        click.echo(f"peak memory: this process {me:.0f} MiB, largest worker {kids:.0f} MiB")

    f = ruleset_options(example_set)(run_bench)
    for opt in reversed((
            click.option("--games", default=bench.games, show_default=True, type=games_option(100),
                         help="Games per heuristic policy on one core."),
            click.option("--search-games", default=100, show_default=True, type=games_option(0),
                         help=bench.search_help),
            click.option("--scale-games", default=bench.scale_games, show_default=True, type=games_option(0),
                         help="Games of the default policy through the batch driver at 1 and all workers "
                              "(0 skips)."),
            click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
                         help="'All workers' [default: all cores]."),
            click.option("--cold", is_flag=True,
                         help="Also time a cold compile (an empty numba cache, on --workers cores; about a minute)."),
            *bench.options)):
        f = opt(f)
    main.command("bench", help="Measure speed: CLI warm start (and with --cold a cold compile), games/s per "
                               "policy on one core, the batch driver at 1 and all workers, peak memory.")(f)
