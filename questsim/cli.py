"""The ``questsim`` command line: ``rules show`` / ``rules check`` for now;
``main`` is a click group so that simulate, replay, report and bench join it.

Bad input (an unknown option value, a malformed ruleset, a bad ``--set``)
prints one ``questsim: error: ...`` line per problem on stderr and exits with
status 2, never a traceback (the same contract as ``mournesim``).
"""
from __future__ import annotations

import json
import sys

import click

from simcore.errors import InputError

from . import __version__

PROG = "questsim"


def _fail(msg):
    for line in str(msg).splitlines():
        click.echo(f"{PROG}: error: {line}", err=True)
    sys.exit(2)


class Group(click.Group):
    """Turns InputError and click usage errors into one line each and exit 2."""

    def main(self, *a, standalone_mode=True, **kw):
        try:
            return super().main(*a, standalone_mode=False, **kw)
        except InputError as e:
            _fail(e)
        except click.exceptions.Abort:
            click.echo(f"{PROG}: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            _fail(e.format_message())
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)


def ruleset_options(f):
    """``--ruleset FILE`` and repeatable ``--set PATH=VALUE``, for every command
    that plays or shows the rules."""
    f = click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE",
                     help="Override a ruleset value, e.g. --set characters.robot.hp=25 (repeatable).")(f)
    f = click.option("--ruleset", type=click.Path(dir_okay=False), default=None,
                     help="Ruleset TOML file (default: the shipped Quest Master ruleset).")(f)
    return f


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG)
def main():
    """Quest Master balance simulator: seeded Monte Carlo games with error bars."""


@main.group()
def rules():
    """Show or check a Quest Master ruleset."""


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
        click.echo(f"# Quest Master ruleset {rs.meta.rules_version}  hash {ruleset_hash(rs)}")
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
