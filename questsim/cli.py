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

from simcore.cli import game_cli, print_replay, ruleset_options as ruleset_options_for, script
from simcore.commands import Axes, Bench, add_bench_command, add_simulate_command
from simcore.errors import InputError
from simcore.inputs import MAX_SEED, game_index_option, parse_floats

from .gamedef import GAME

PROG = "questsim"
EXAMPLE_SET = "characters.robot.hp=25"   # an example --set in help texts
ruleset_options = ruleset_options_for(EXAMPLE_SET)
main = game_cli(GAME, "Quest Master balance simulator: seeded Monte Carlo games with error bars.", EXAMPLE_SET)
run = script(main)       # the console script and `python -m questsim`


def _characters(text):
    return () if text.strip().lower() == "random" else tuple(c.strip().lower() for c in text.split(","))


def _grid_axes(rules, params, players, policy, characters):
    from . import batch as grid
    return dict(players=grid.parse_players(players, rules), tables=grid.parse_tables(policy),
                characters=_characters(characters), params=params)


def _warm(rules, axes):
    from . import sim
    return [(t, partial(sim.simulate, games=1, rules=rules, players=max(2, len(t)), policies=t))
            for t in axes["tables"]]


def _cell_table(cells):
    import pandas as pd
    from simcore.report import with_interval
    t = pd.DataFrame([dict(policy=lab["policy"], players=lab["players"], games=n, wins=w) for lab, n, w in cells])
    return {"games with a winner, by cell": with_interval(t, name="decided_rate")}


add_simulate_command(main, GAME, Axes(
    grid="player counts x policy tables",
    options=(click.option("--players", default="4", show_default=True, metavar="N[,N..]|all",
                          help="2-6 players; several or all make a grid."),
             click.option("--policy", default="greedy", show_default=True, metavar="NAME[+NAME..][,..]|all",
                          help="random, greedy, planner (or first) for every seat, or one per seat joined by + "
                               "(planner+greedy+greedy); comma-separated alternatives make a grid."),
             click.option("--characters", default="random", show_default=True, metavar="a,b,..|random",
                          help="random: each game draws distinct characters; or fixed by seat.")),
    names=("players", "policy", "characters"), parse=_grid_axes, warm=_warm,
    policies=lambda axes: {p for t in axes["tables"] for p in t}, cells=_cell_table,
    params_help="Parameters of the first seat's policy (every seat playing it); one --policy only.",
    batch_help="Games per batch [default: 20000].",
    target_help="Add batches until the share of decided games has a 95% half-width <= X in every cell."),
    EXAMPLE_SET)

add_bench_command(main, GAME, Bench(
    options=(click.option("--players", default=4, show_default=True, type=click.IntRange(2, 6)),),
    games=100_000, scale_games=1_000_000,
    runs=lambda players: [(pol, dict(policies=(pol,), players=players)) for pol in ("random", "greedy", "planner")],
    searches=lambda players: [("rollout", dict(policies=("rollout",), players=players)),
                              ("expert", dict(policies=("expert",) + ("planner",) * (players - 1), players=players))],
    measure=lambda df: f"median {df['rounds'].median():g} rounds",
    grid=lambda players: dict(players=(players,)),
    describe=lambda players: f"{players} players",
    search_help="Games for each search policy, rollout (every seat) and the expert (seat 1, the planner "
                "elsewhere, as its ladder plays it); 0 skips them."), EXAMPLE_SET)


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
    chars = _characters(characters)
    pars = parse_floats(params, "--params")
    from . import sim
    sim.prepare(ruleset, overrides)         # a bad ruleset is refused before a compile
    print_replay(GAME, lambda: grid.replay(seed=seed, game=game, players=players, characters=chars,
                                           policies=tables[0], params=pars, ruleset=ruleset, overrides=overrides),
                 tables[0], fmt)


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
