"""The ``mournesim`` command line: simulate, replay, bench, odds and the
commands every game has (``policies``, ``rules show/check``, ``report``,
``experiment``: simcore.cli.game_cli).

Bad input (an unknown option value, a malformed ruleset, a bad ``--set``)
prints one clear line per problem and exits with status 2, never a traceback.
"""
from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import click

from simcore.cli import check_resume, compile_once, game_cli, play_grid, print_replay, \
    ruleset_options as ruleset_options_for, script, timed_start
from simcore import identity
from simcore.errors import InputError
from simcore.inputs import MAX_SEED, MAX_WORKERS, batch_option, cluster_address, game_index_option, games_option, \
    parse_floats
from .gamedef import GAME
from .policies import BUILTIN_POLICIES


PROG = "mournesim"
EXAMPLE_SET = "heroes.jack.courage=8"   # an example --set in help texts
ruleset_options = ruleset_options_for(EXAMPLE_SET)
main = game_cli(GAME, "MourneQuest balance simulator: seeded Monte Carlo games with error bars.", EXAMPLE_SET)
run = script(main)       # the console script and `python -m mournesim`


def game_options(f):
    f = click.option("--params", default="", metavar="X,Y",
                     help="Policy parameters, comma separated (see docs/mournequest/policies.md).")(f)
    f = click.option("--policy", default="greedy", show_default=True,
                     help="Player policy: random, greedy, or a plug-in's name (see `mournesim policies`).")(f)
    f = click.option("--heroes", default="random", show_default=True, metavar="a,b,..|random",
                     help="Heroes by seat (solo: two), or random.")(f)
    f = click.option("--players", default=4, show_default=True, type=click.IntRange(1, 4),
                     help="Number of players (1 = solo with two heroes).")(f)
    f = click.option("--level", default="medium", show_default=True,
                     type=click.Choice(["easy", "medium", "hard", "difficult"], case_sensitive=False),
                     help="Game level.")(f)
    return ruleset_options(f)


def _heroes(text):
    return () if text.strip().lower() in ("", "random") else tuple(h.strip().lower() for h in text.split(","))


def _params(text):
    return parse_floats(text, "--params")


# abilities and enemy values far beyond any ruleset's (heroes 0..30, cards
# 0..20, enemies 0..60), and small enough for the engine's 32-bit integers
ODDS_MAX = 1000

GRID_OPTIONS = ("games", "seed", "level", "players", "policy", "heroes", "params", "batch", "target_ci",
                "ruleset", "overrides")


@main.command()
@click.option("--games", default=10000, show_default=True, type=games_option(),
              help="Games per configuration cell (the cap with --target-ci).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, MAX_SEED), help="Master seed.")
@click.option("--level", default="medium", show_default=True, metavar="LEVEL[,LEVEL..]|all",
              help="easy, medium, hard (alias difficult); several or all make a grid.")
@click.option("--players", default="4", show_default=True, metavar="N[,N..]|all",
              help="1-4 players (1 = solo with two heroes); several or all make a grid.")
@click.option("--policy", default="greedy", show_default=True, metavar="NAME[,NAME..]|all",
              help="Player policies (see `mournesim policies`); all = random,greedy,planner.")
@click.option("--heroes", default="random", show_default=True, metavar="a,b,..|random",
              help="random: each game draws distinct heroes uniformly; or fixed heroes by seat.")
@click.option("--params", default="", metavar="X,Y", help="Policy parameters (one --policy only).")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
              help="Worker processes [default: all cores].")
@click.option("--batch", type=batch_option(), default=None,
              help="Games per batch [default: 10000; 50 for rollout].")
@click.option("--target-ci", type=float, default=None, metavar="X",
              help="Add batches until every cell's win-rate 95% interval half-width is <= X.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write a Parquet dataset (docs/common/results.md) here instead of printing the full report.")
@click.option("--resume", type=click.Path(file_okay=False), default=None,
              help="Finish the interrupted run in this directory.")
@click.option("--cluster", default=None, metavar="ADDRESS|local",
              help="Run the batches on a Dask cluster (scheduler address, or local).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@ruleset_options
@click.pass_context
def simulate(ctx, games, seed, level, players, policy, heroes, params, workers, batch, target_ci, out, resume,
             cluster, quiet, ruleset, overrides):
    """Play seeded games over a grid of levels x players x policies and
    print the balance report (or write a dataset with --out)."""
    from . import batch as grid, sim
    from .report import headline, standard_report
    from simcore.report import render
    if resume:
        check_resume(ctx, GRID_OPTIONS, out)
    cluster = cluster_address(cluster)
    compiled = 0.0
    rules = None
    if not resume:   # the options are checked, then the engine made ready, before the clock starts
        rules = sim.prepare(ruleset, overrides)
        grid_axes = dict(levels=grid.parse_list(level, "level"), players=grid.parse_list(players, "players"),
                         policies=grid.parse_list(policy, "policy"), heroes=_heroes(heroes), params=_params(params))
        from .game import run_batch
        from .plugins import compile_entries
        from simcore.grid import warm_up
        # the policies played (one game each) and no other: each built-in's entry
        # point compiles here while the workers compile the engine
        pols = grid_axes["policies"]
        compiled = compile_once(GAME, run_batch, lambda: warm_up(GAME, [((p,), partial(sim.simulate, games=1, rules=rules,
                                                                                       policy=p)) for p in pols]),
                                workers, during=lambda: compile_entries(pols))
    grid_kw = None if resume else dict(games=games, seed=seed, **grid_axes, rules=rules, ruleset=ruleset,
                                       overrides=overrides, batch=batch, target_ci=target_ci, out=out)
    df, cells, out, speed = play_grid(GAME, grid_kw, resume, workers, cluster, quiet, compiled)
    if out:
        click.echo(render({"win rate by cell": _cell_table(cells)}, "table",
                          f"MourneQuest run in {out}  seed={cells.seed}  ({speed})\n{identity.describe(PROG)}",
                          rules.display_names() if rules else None))
        click.echo(f"full report: mournesim report {out}")
        return
    title = (f"MourneQuest  level={level} players={players} policy={policy} heroes={heroes} "
             f"games={games} seed={seed} rules={rules.hash}  ({speed})\n{identity.describe(PROG)}\n{headline(df)}")
    click.echo(render(standard_report(df, names := rules.display_names()), "table", title, names), nl=False)


def _cell_table(cells):
    import pandas as pd
    from simcore.report import with_interval
    t = pd.DataFrame([dict(policy=lab["policy"], level=lab["level"], players=lab["players"], games=n, wins=w)
                      for lab, n, w in cells])
    return with_interval(t)


@main.command()
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, MAX_SEED), help="Master seed.")
@click.option("--game", default=0, show_default=True, type=game_index_option(), help="Game index.")
@click.option("--format", "fmt", default="text", show_default=True, type=click.Choice(["text", "jsonl", "html"]),
              help="html: a self-contained page that shows the game on the board, step by step.")
@game_options
def replay(seed, game, fmt, level, players, heroes, policy, params, ruleset, overrides):
    """Replay one game (seed, index) with its full event log."""
    from . import batch as grid, sim
    sim.prepare(ruleset, overrides)         # a bad ruleset is refused before a compile
    print_replay(GAME, lambda: grid.replay(seed=seed, game=game, level=level, players=players, heroes=_heroes(heroes),
                                           policy=policy, params=_params(params), ruleset=ruleset,
                                           overrides=overrides), [policy], fmt)


@main.command()
@click.option("--games", default=20000, show_default=True, type=games_option(100),
              help="Games per heuristic policy on one core.")
@click.option("--search-games", default=100, show_default=True, type=games_option(0),
              help="Games for each search policy, rollout and expert (0 skips them; they are 100-300x slower).")
@click.option("--scale-games", default=100_000, show_default=True, type=games_option(0),
              help="Games of the default policy through the batch driver at 1 and all workers (0 skips).")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
              help="'All workers' [default: all cores].")
@click.option("--cold", is_flag=True,
              help="Also time a cold compile (an empty numba cache, on --workers cores; about a minute).")
@click.option("--level", default="medium", show_default=True, type=click.Choice(["easy", "medium", "hard"]))
@click.option("--players", default=4, show_default=True, type=click.IntRange(1, 4))
@ruleset_options
def bench(games, search_games, scale_games, workers, cold, level, players, ruleset, overrides):
    """Measure speed: CLI warm start, games/s per policy on one core, the
    batch driver at 1 and all workers, compile time and peak memory."""
    import os
    import resource
    import tempfile
    from . import batch as grid, sim
    rules = sim.prepare(ruleset, overrides)      # a bad ruleset is refused before any timing
    workers = workers or os.cpu_count() or 1
    click.echo(f"MourneQuest bench: {level}, {players} players, {os.cpu_count()} cores")
    if cold:
        click.echo(f"cold start (empty numba cache, compiles the engine on {workers} cores): "
                   f"{timed_start(PROG, workers, cold=True):6.1f}s")
    click.echo(f"warm start of the CLI (simulate --games 1):             {timed_start(PROG):6.1f}s")
    runs = [(pol, games) for _pid, pol, _names, _defaults in BUILTIN_POLICIES]
    for pol in ("rollout", "expert") if search_games else ():
        t0 = time.perf_counter()
        sim.simulate(games=1, seed=0, level=level, players=players, policy=pol, rules=rules)
        click.echo(f"{pol} entry point ready in {time.perf_counter() - t0:.1f}s")
        runs.append((pol, search_games))
    click.echo("one core, in process:")
    rate = {}
    for pol, n in runs:
        t = time.perf_counter()
        df = sim.simulate(games=n, seed=1, level=level, players=players, policy=pol, rules=rules)
        dt = time.perf_counter() - t
        rate[pol] = n / dt
        click.echo(f"  {pol:<8} {n:>9,} games  {dt:7.2f}s  {n / dt:10,.1f} games/s  win rate {df['win'].mean():.3f}")
    if "expert" in rate:
        click.echo(f"  expert at its default budget: 1/{rate['planner'] / rate['expert']:.0f} of the planner's "
                   "games per second in this run")
    if scale_games:
        click.echo(f"batch driver, default policy (greedy), Parquet output, {scale_games:,} games:")
        base = None
        for w in sorted({1, workers}):
            with tempfile.TemporaryDirectory() as d:
                t = time.perf_counter()
                grid.run_grid(games=scale_games, seed=1, levels=(level,), players=(players,), rules=rules,
                              out=Path(d) / "run", workers=w)
                dt = time.perf_counter() - t
            base = base or dt
            click.echo(f"  {w} worker{'s' if w > 1 else ' '} {dt:7.2f}s  {scale_games / dt:10,.0f} games/s  "
                       f"speed-up {base / dt:4.2f}x")
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    click.echo(f"peak memory: this process {me:.0f} MiB, largest worker {kids:.0f} MiB")


@main.command()
@click.option("--hero", default="jack", show_default=True, help="Hero whose printed abilities the table uses.")
@click.option("--ability", type=click.IntRange(0, ODDS_MAX), default=None, help="One roll: the hero's ability total.")
@click.option("--target", type=click.IntRange(0, ODDS_MAX), default=None, help="One roll: the enemy's value.")
@click.option("--dice", default="grey", show_default=True, metavar="grey,green,..",
              help="One roll: the combat dice rolled (grey, green, orange, red).")
@click.option("--blue", is_flag=True, help="On the Blue Moon (hero dice doubled; MQ-MOON-05).")
@click.option("--defending", is_flag=True, help="Fending off an attack instead of attacking.")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "markdown", "csv", "json"]))
@ruleset_options
def odds(hero, ability, target, dice, blue, defending, fmt, ruleset, overrides):
    """Exact combat odds by enumerating every face of the dice (no
    simulation): one roll with --ability, --target and --dice, or the
    designer's table for a hero: every enemy, moon phase, ability and dice pool."""
    from simcore.report import render
    from . import odds as O, sim
    rules = sim.prepare(ruleset, overrides)
    if (ability is None) != (target is None):
        raise InputError("--ability and --target go together (one roll); give both, or neither for the table")
    if ability is not None:
        names = [d.strip().lower() for d in dice.split(",") if d.strip()]
        bad = [d for d in names if d not in O.DICE_NAMES]
        if bad or not names or len(set(names)) != len(names):
            raise InputError(f"--dice {dice!r}: expected distinct dice from {', '.join(O.DICE_NAMES)}")
        p = O.combat_odds(rules, ability, target, [O.DICE_NAMES.index(d) for d in names], 0, blue, defending)
        if fmt == "table":
            click.echo(f"{'defending' if defending else 'attacking'} with ability {ability} against {target}, "
                       f"rolling {', '.join(names)}{' on the Blue Moon' if blue else ''}: {p:.6f}")
        else:
            import pandas as pd
            one = pd.DataFrame([dict(ability=ability, target=target, dice=",".join(names), blue_moon=blue,
                                     defending=defending, p_win=p)])
            click.echo(render({"combat odds": one}, fmt, "Exact chance of winning one roll"), nl=False)
        return
    t = O.combat_table(rules, hero.lower(), defending=defending)
    title = (f"Exact chance that {hero} ({'defending' if defending else 'attacking'}, no equipment) wins one roll, "
             "by enemy, moon phase, ability and dice pool (4 dice: the best 3)")
    click.echo(render({"combat odds": t}, fmt, title), nl=False)


if __name__ == "__main__":
    main()
