"""The ``mournesim`` command line: simulate, replay, bench, odds and the
commands every game has (``policies``, ``rules show/check``, ``report``,
``experiment``: simcore.cli.game_cli).

Bad input (an unknown option value, a malformed ruleset, a bad ``--set``)
prints one clear line per problem and exits with status 2, never a traceback.
"""
from __future__ import annotations

from functools import partial

import click

from simcore.cli import game_cli, print_replay, ruleset_options as ruleset_options_for, script
from simcore.commands import Axes, Bench, add_bench_command, add_simulate_command
from simcore.errors import InputError
from simcore.inputs import MAX_SEED, game_index_option, parse_floats
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


def _grid_axes(rules, params, level, players, policy, heroes):
    from . import batch as grid
    return dict(levels=grid.parse_list(level, "level"), players=grid.parse_list(players, "players"),
                policies=grid.parse_list(policy, "policy"), heroes=_heroes(heroes), params=params)


def _warm(rules, axes):
    from . import sim
    return [((p,), partial(sim.simulate, games=1, rules=rules, policy=p)) for p in axes["policies"]]


def _cell_table(cells):
    import pandas as pd
    from simcore.report import with_interval
    t = pd.DataFrame([dict(policy=lab["policy"], level=lab["level"], players=lab["players"], games=n, wins=w)
                      for lab, n, w in cells])
    return {"win rate by cell": with_interval(t)}


add_simulate_command(main, GAME, Axes(
    grid="levels x players x policies",
    options=(click.option("--level", default="medium", show_default=True, metavar="LEVEL[,LEVEL..]|all",
                          help="easy, medium, hard (alias difficult); several or all make a grid."),
             click.option("--players", default="4", show_default=True, metavar="N[,N..]|all",
                          help="1-4 players (1 = solo with two heroes); several or all make a grid."),
             click.option("--policy", default="greedy", show_default=True, metavar="NAME[,NAME..]|all",
                          help="Player policies (see `mournesim policies`); all = random,greedy,planner."),
             click.option("--heroes", default="random", show_default=True, metavar="a,b,..|random",
                          help="random: each game draws distinct heroes uniformly; or fixed heroes by seat.")),
    names=("level", "players", "policy", "heroes"), parse=_grid_axes, warm=_warm,
    policies=lambda axes: axes["policies"], cells=_cell_table,
    params_help="Policy parameters (one --policy only).",
    batch_help="Games per batch [default: 10000; 50 for rollout].",
    target_help="Add batches until every cell's win-rate 95% interval half-width is <= X."), EXAMPLE_SET)

add_bench_command(main, GAME, Bench(
    options=(click.option("--level", default="medium", show_default=True,
                          type=click.Choice(["easy", "medium", "hard"])),
             click.option("--players", default=4, show_default=True, type=click.IntRange(1, 4))),
    games=20_000, scale_games=100_000,
    runs=lambda level, players: [(pol, dict(policy=pol, level=level, players=players))
                                 for _pid, pol, _names, _defaults in BUILTIN_POLICIES],
    searches=lambda level, players: [(pol, dict(policy=pol, level=level, players=players))
                                     for pol in ("rollout", "expert")],
    measure=lambda df: f"win rate {df['win'].mean():.3f}",
    grid=lambda level, players: dict(levels=(level,), players=(players,)),
    describe=lambda level, players: f"{level}, {players} players",
    search_help="Games for each search policy, rollout and expert (0 skips them; they are 100-300x slower)."),
    EXAMPLE_SET)


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
