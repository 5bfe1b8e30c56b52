"""The ``questsim`` command line: simulate, replay, bench, odds and the
commands every game has (``policies``, ``rules show/check``, ``report``,
``experiment``: simcore.cli.game_cli).

Bad input (an unknown option value, a malformed ruleset, a bad ``--set``)
prints one ``questsim: error: ...`` line per problem on stderr and exits with
status 2, never a traceback (the same contract as ``mournesim``).
"""
from __future__ import annotations

from functools import partial

import click

from simcore.cli import check_resume, compile_once, game_cli, play_grid, print_replay, \
    ruleset_options as ruleset_options_for, script, timed_start
from simcore import identity
from simcore.errors import InputError
from simcore.inputs import MAX_SEED, MAX_WORKERS, batch_option, cluster_address, game_index_option, games_option, \
    parse_floats

from .gamedef import GAME

PROG = "questsim"
EXAMPLE_SET = "characters.robot.hp=25"   # an example --set in help texts
ruleset_options = ruleset_options_for(EXAMPLE_SET)
main = game_cli(GAME, "Quest Master balance simulator: seeded Monte Carlo games with error bars.", EXAMPLE_SET)
run = script(main)       # the console script and `python -m questsim`


GRID_OPTIONS = ("games", "seed", "players", "policy", "characters", "params", "batch", "target_ci", "ruleset",
                "overrides")


@main.command()
@click.option("--games", default=10000, show_default=True, type=games_option(),
              help="Games per configuration cell (the cap with --target-ci).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, MAX_SEED), help="Master seed.")
@click.option("--players", default="4", show_default=True, metavar="N[,N..]|all",
              help="2-6 players; several or all make a grid.")
@click.option("--policy", default="greedy", show_default=True, metavar="NAME[+NAME..][,..]|all",
              help="random, greedy, planner (or first) for every seat, or one per seat joined by + (planner+greedy+greedy); "
                   "comma-separated alternatives make a grid.")
@click.option("--characters", default="random", show_default=True, metavar="a,b,..|random",
              help="random: each game draws distinct characters; or fixed by seat.")
@click.option("--params", default="", metavar="X,Y",
              help="Parameters of the first seat's policy (every seat playing it); one --policy only.")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
              help="Worker processes [default: all cores].")
@click.option("--batch", type=batch_option(), default=None, help="Games per batch [default: 20000].")
@click.option("--target-ci", type=float, default=None, metavar="X",
              help="Add batches until the share of decided games has a 95% half-width <= X in every cell.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write a Parquet dataset here instead of printing the full report.")
@click.option("--resume", type=click.Path(file_okay=False), default=None,
              help="Finish the interrupted run in this directory.")
@click.option("--cluster", default=None, metavar="ADDRESS|local", help="Run the batches on a Dask cluster.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@ruleset_options
@click.pass_context
def simulate(ctx, games, seed, players, policy, characters, params, workers, batch, target_ci, out, resume,
             cluster, quiet, ruleset, overrides):
    """Play seeded Quest Master games over player counts x policy tables and
    print the balance report (or write a dataset with --out)."""
    from simcore.report import render, with_interval
    from . import batch as grid, sim
    from .report import headline, standard_report
    import pandas as pd
    if resume:
        check_resume(ctx, GRID_OPTIONS, out)
    cluster = cluster_address(cluster)
    compiled = 0.0
    rules = None
    if not resume:   # the options are checked, then the engine made ready, before the clock starts
        rules = sim.prepare(ruleset, overrides)
        grid_axes = dict(players=grid.parse_players(players, rules), tables=grid.parse_tables(policy),
                         characters=() if characters.strip().lower() == "random" else
                         tuple(c.strip().lower() for c in characters.split(",")),
                         params=parse_floats(params, "--params"))
        from .engine import run_batch
        from .plugins import compile_entries
        from simcore.grid import warm_up
        # the tables played (one game each) and no other policy: each built-in's
        # entry point compiles here while the workers compile the engine
        tabs = grid_axes["tables"]
        compiled = compile_once(GAME, run_batch, lambda: warm_up(GAME, [(t, partial(sim.simulate, games=1, rules=rules,
                                                                                    players=max(2, len(t)), policies=t))
                                                                        for t in tabs]),
                                workers, during=lambda: compile_entries({p for t in tabs for p in t}))
    grid_kw = None if resume else dict(games=games, seed=seed, **grid_axes, rules=rules, ruleset=ruleset,
                                       overrides=overrides, batch=batch, target_ci=target_ci, out=out)
    df, cells, out, speed = play_grid(GAME, grid_kw, resume, workers, cluster, quiet, compiled)
    if out:
        t = pd.DataFrame([dict(policy=lab["policy"], players=lab["players"], games=n, wins=w) for lab, n, w in cells])
        t = with_interval(t, name="decided_rate")
        click.echo(render({"games with a winner, by cell": t}, "table",
                            f"Quest Master run in {out}  seed={cells.seed}  ({speed})\n{identity.describe(PROG)}",
                            rules.display_names() if rules else None))
        click.echo(f"full report: questsim report {out}")
        return
    title = f"Quest Master  players={players} policy={policy} games={games} seed={seed} rules={rules.hash}  " \
            f"({speed})\n{identity.describe(PROG)}\n{headline(df)}"
    click.echo(render(standard_report(df, names := rules.display_names()), "table", title, names), nl=False)


@main.command()
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, MAX_SEED), help="Master seed.")
@click.option("--game", default=0, show_default=True, type=game_index_option(), help="Game index.")
@click.option("--players", default=4, show_default=True, type=click.IntRange(1, 99), help="Players (2-6).")
@click.option("--policy", default="greedy", show_default=True, metavar="NAME[+NAME..]",
              help="One policy, or one per seat joined by +.")
@click.option("--characters", default="random", show_default=True, metavar="a,b,..|random")
@click.option("--params", default="", metavar="X,Y")
@click.option("--format", "fmt", default="text", show_default=True, type=click.Choice(["text", "jsonl", "html"]),
              help="html: a self-contained page that shows the game on the board, step by step.")
@ruleset_options
def replay(seed, game, players, policy, characters, params, fmt, ruleset, overrides):
    """Replay one game (seed, index) with its full event log."""
    from . import batch as grid
    tables = grid.parse_tables(policy)
    if len(tables) != 1:
        raise InputError("--policy: replay plays one table (use + between seats, not commas)")
    chars = () if characters.strip().lower() == "random" else tuple(c.strip().lower() for c in characters.split(","))
    pars = parse_floats(params, "--params")
    from . import sim
    sim.prepare(ruleset, overrides)         # a bad ruleset is refused before a compile
    print_replay(GAME, lambda: grid.replay(seed=seed, game=game, players=players, characters=chars,
                                           policies=tables[0], params=pars, ruleset=ruleset, overrides=overrides),
                 tables[0], fmt)


@main.command()
@click.option("--games", default=100_000, show_default=True, type=games_option(100),
              help="Games per policy on one core.")
@click.option("--scale-games", default=1_000_000, show_default=True, type=games_option(0),
              help="Greedy games through the batch driver at 1 and all workers (0 skips).")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
              help="'All workers' [default: all cores].")
@click.option("--search-games", default=100, show_default=True, type=games_option(0),
              help="Games for each search policy, rollout (every seat) and the expert (seat 1, the planner "
                   "elsewhere, as its ladder plays it); 0 skips them.")
@click.option("--cold", is_flag=True,
              help="Also time a cold compile (an empty numba cache, on --workers cores; about a minute).")
@click.option("--players", default=4, show_default=True, type=click.IntRange(2, 6))
@ruleset_options
def bench(games, scale_games, workers, search_games, cold, players, ruleset, overrides):
    """Measure speed: warm start (and with --cold a cold compile), games/s per
    policy on one core (the search policies included, the expert beside the
    planner as a ratio), the batch driver at 1 and all workers, peak memory."""
    import os
    import resource
    import tempfile
    import time
    from pathlib import Path
    from . import batch as grid, sim
    rules = sim.prepare(ruleset, overrides)      # a bad ruleset is refused before any timing
    workers = workers or os.cpu_count() or 1
    click.echo(f"Quest Master bench: {players} players, {os.cpu_count()} cores")
    if cold:
        click.echo(f"cold start (empty numba cache, compiles the engine on {workers} cores): "
                   f"{timed_start(PROG, workers, cold=True):.1f}s")
    click.echo(f"warm start of the CLI (simulate --games 1): {timed_start(PROG):.1f}s")
    runs = [(pol, (pol,), games) for pol in ("random", "greedy", "planner")]
    searches = (("rollout", ("rollout",)), ("expert", ("expert",) + ("planner",) * (players - 1)))
    for pol, table in searches if search_games else ():
        t = time.perf_counter()
        sim.simulate(games=1, seed=0, players=players, policies=table, rules=rules)
        click.echo(f"{pol} entry point ready in {time.perf_counter() - t:.1f}s")
        runs.append((pol, table, search_games))
    rate = {}
    for pol, table, n in runs:
        t = time.perf_counter()
        df = sim.simulate(games=n, seed=1, players=players, policies=table, rules=rules)
        dt = time.perf_counter() - t
        rate[pol] = n / dt
        click.echo(f"  {pol:<8} {n:>9,} games  {dt:7.2f}s  {n / dt:10,.1f} games/s  "
                   f"median {df['rounds'].median():g} rounds  (1 core)")
    if "expert" in rate:
        click.echo(f"  expert (seat 1) at its default budget: 1/{rate['planner'] / rate['expert']:.0f} of the "
                   "planner's games per second in this run")
    if scale_games:
        base = None
        for w in sorted({1, workers}):
            with tempfile.TemporaryDirectory() as d:
                t = time.perf_counter()
                grid.run_grid(games=scale_games, seed=1, players=(players,), rules=rules, out=Path(d) / "run",
                              workers=w)
                dt = time.perf_counter() - t
            base = base or dt
            click.echo(f"  batch driver, greedy, Parquet: {w} worker{'s' if w > 1 else ' '} {scale_games:,} games "
                       f"{dt:7.1f}s  {scale_games / dt:10,.0f} games/s  speed-up {base / dt:4.2f}x")
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    click.echo(f"peak memory: this process {me:.0f} MiB, largest worker {kids:.0f} MiB")


@main.command()
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "markdown", "csv", "json"]))
@ruleset_options
def odds(fmt, ruleset, overrides):
    """Exact dice odds by enumerating the faces (no simulation): what a
    movement roll offers, squares moved, and the duel Mp distributions."""
    from simcore.report import render
    from . import odds as O, sim
    rules = sim.prepare(ruleset, overrides)
    click.echo(render(O.tables(rules), fmt, "Quest Master exact dice odds"), nl=False)


if __name__ == "__main__":
    main()
