"""Command-line plumbing both games share: the click group that turns bad
input into one clear line and exit status 2 (never a traceback), and Ctrl-C
into one line and exit status 130."""
from __future__ import annotations

import sys

import click

from .errors import InputError


def fail(prog, msg):
    """Print ``msg`` as ``prog: error: ...`` lines on stderr and exit 2."""
    for line in str(msg).splitlines():
        click.echo(f"{prog}: error: {line}", err=True)
    sys.exit(2)


def error_group(prog):
    """A click.Group class for command ``prog`` with the bad-input contract."""

    class Group(click.Group):
        def main(self, *a, standalone_mode=True, **kw):
            try:
                return super().main(*a, standalone_mode=False, **kw)
            except InputError as e:
                fail(prog, e)
            except click.exceptions.Abort:
                click.echo(f"{prog}: interrupted", err=True)
                sys.exit(130)
            except click.ClickException as e:
                fail(prog, e.format_message())
            except click.exceptions.Exit as e:
                sys.exit(e.exit_code)

    return Group


def ruleset_options(example):
    """Decorator adding ``--ruleset FILE`` and repeatable ``--set PATH=VALUE``."""
    def deco(f):
        f = click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE",
                         help=f"Override a ruleset value, e.g. --set {example} (repeatable).")(f)
        return click.option("--ruleset", type=click.Path(dir_okay=False), default=None,
                            help="Ruleset TOML file (default: the shipped ruleset).")(f)
    return deco
