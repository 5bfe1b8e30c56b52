"""The ``mournesim`` command line: simulate, replay, rules show / check.

Bad input (an unknown option value, a malformed ruleset, a bad ``--set``)
prints one clear line per problem and exits with status 2, never a traceback.
"""
from __future__ import annotations

import json
import sys
import time

import click

from simcore.errors import InputError
from . import __version__
from .policies import BUILTIN_POLICIES
from . import plugins


def _fail(msg):
    for line in str(msg).splitlines():
        click.echo(f"mournesim: error: {line}", err=True)
    sys.exit(2)


class Group(click.Group):
    """Turns InputError and click usage errors into one line and exit 2."""

    def main(self, *a, standalone_mode=True, **kw):
        try:
            return super().main(*a, standalone_mode=False, **kw)
        except InputError as e:
            _fail(e)
        except click.exceptions.Abort:
            click.echo("mournesim: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            _fail(e.format_message())
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)


def ruleset_options(f):
    f = click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE",
                     help="Override a ruleset value, e.g. --set heroes.jack.courage=8 (repeatable).")(f)
    f = click.option("--ruleset", type=click.Path(dir_okay=False), default=None,
                     help="Ruleset TOML file (default: the shipped MourneQuest ruleset).")(f)
    return f


def game_options(f):
    f = click.option("--params", default="", metavar="X,Y",
                     help="Policy parameters, comma separated (see docs/policies.md).")(f)
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
    if not text.strip():
        return ()
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"--params {text!r}: expected numbers separated by commas") from None


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mournesim")
@click.option("--plugin", "plugin_specs", multiple=True, metavar="FILE.py|MODULE",
              help="Load a module that registers policies (repeatable; also $MOURNESIM_PLUGINS).")
def main(plugin_specs):
    """MourneQuest balance simulator: seeded Monte Carlo games with error bars."""
    for spec in plugin_specs:
        plugins.load_plugin(spec)


@main.command("policies")
def policies_cmd():
    """List the registered policies, their parameters and defaults."""
    for p in plugins.policies():
        kind = "built-in" if p.builtin_id >= 0 else f"plug-in from {p.source}"
        params = ", ".join(f"{n}={v:g}" for n, v in zip(p.param_names, p.defaults)) or "no parameters"
        click.echo(f"{p.name:<12} {p.description}")
        click.echo(f"{'':<12} parameters: {params}  ({kind})")


@main.command()
@click.option("--games", default=10000, show_default=True, type=click.IntRange(1, None), help="Games to play.")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Master seed.")
@game_options
def simulate(games, seed, level, players, heroes, policy, params, ruleset, overrides):
    """Play seeded games and print the outcome breakdown with win rate."""
    from . import sim
    from .report import text_report
    rules = sim.prepare(ruleset, overrides)
    t0 = time.perf_counter()
    df = sim.simulate(games=games, seed=seed, level=level, players=players, heroes=_heroes(heroes),
                      policy=policy, params=_params(params), rules=rules)
    dt = time.perf_counter() - t0
    title = (f"MourneQuest  level={level} players={players} policy={policy} heroes={heroes} "
             f"games={games} seed={seed} rules={rules.hash}  ({dt:.1f}s, {games / dt:,.0f} games/s)")
    click.echo(text_report(df, title))


@main.command()
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, 2**64 - 1), help="Master seed.")
@click.option("--game", default=0, show_default=True, type=click.IntRange(0, None), help="Game index.")
@click.option("--format", "fmt", default="text", show_default=True, type=click.Choice(["text", "jsonl"]))
@game_options
def replay(seed, game, fmt, level, players, heroes, policy, params, ruleset, overrides):
    """Replay one game (seed, index) with its full event log."""
    from . import sim
    rp = sim.replay(seed=seed, game=game, level=level, players=players, heroes=_heroes(heroes),
                    policy=policy, params=_params(params), ruleset=ruleset, overrides=overrides)
    click.echo(rp.to_text() if fmt == "text" else rp.to_jsonl(), nl=False)


@main.command()
@click.option("--games", default=20000, show_default=True, type=click.IntRange(100, None),
              help="Games per policy.")
@click.option("--level", default="medium", show_default=True, type=click.Choice(["easy", "medium", "hard"]))
@click.option("--players", default=4, show_default=True, type=click.IntRange(1, 4))
@ruleset_options
def bench(games, level, players, ruleset, overrides):
    """Measure games per second of each built-in policy (one process, one core)."""
    import resource
    from . import sim
    t0 = time.perf_counter()
    rules = sim.prepare(ruleset, overrides)
    sim.simulate(games=1, seed=0, level=level, players=players, policy="random", rules=rules)
    sim.simulate(games=1, seed=0, level=level, players=players, policy="greedy", rules=rules)
    warm = time.perf_counter() - t0
    click.echo(f"engine ready in {warm:.1f}s (numba cache load, or compile when the cache is cold)")
    for _pid, pol, _names, _defaults in BUILTIN_POLICIES:
        t = time.perf_counter()
        df = sim.simulate(games=games, seed=1, level=level, players=players, policy=pol, rules=rules)
        dt = time.perf_counter() - t
        click.echo(f"{pol:<8} {games:>8,} games  {dt:7.2f}s  {games / dt:10,.0f} games/s  "
                   f"win rate {df['win'].mean():.3f}  ({level}, {players} players, 1 core)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    click.echo(f"peak memory {peak:.0f} MiB")


@main.group()
def rules():
    """Show or check a ruleset."""


@rules.command("show")
@click.option("--format", "fmt", default="text", show_default=True, type=click.Choice(["text", "json", "markdown"]))
@ruleset_options
def rules_show(fmt, ruleset, overrides):
    """Print the effective ruleset, every value with its provenance."""
    from .ruleset import effective_rows, load_ruleset, ruleset_hash
    rs = load_ruleset(ruleset, overrides)
    rows = effective_rows(rs)
    if fmt == "json":
        click.echo(json.dumps([{"path": p, "value": v, "provenance": s} for p, v, s in rows], indent=1))
    elif fmt == "markdown":
        click.echo("| key | value | provenance |\n|---|---|---|")
        for p, v, s in rows:
            click.echo(f"| `{p}` | `{json.dumps(v)}` | {s.replace('|', '/')} |")
    else:
        click.echo(f"# MourneQuest ruleset {rs.meta.rules_version}  hash {ruleset_hash(rs)}")
        for p, v, s in rows:
            click.echo(f"{p} = {json.dumps(v)}    # {s}")


@rules.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE", help="Override a value before checking.")
def rules_check(file, overrides):
    """Validate a ruleset file: exit 0 if valid, else one line per problem and exit 2."""
    from .ruleset import load_ruleset, ruleset_hash
    rs = load_ruleset(file, overrides)
    click.echo(f"{file}: valid (rules hash {ruleset_hash(rs)})")


if __name__ == "__main__":
    main()
