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


def add_rules_commands(main, game, module, example):
    """Add ``rules show`` and ``rules check`` to click group ``main`` for a
    game whose ruleset ``module`` (imported on use, to keep start-up quick)
    has load_ruleset, effective_rows and ruleset_hash."""
    import importlib
    import json

    @main.group()
    def rules():
        """Show or check a ruleset."""

    @rules.command("show")
    @click.option("--format", "fmt", default="text", show_default=True,
                  type=click.Choice(["text", "json", "markdown"]))
    @ruleset_options(example)
    def rules_show(fmt, ruleset, overrides):
        """Print the effective ruleset, every value with its provenance."""
        ruleset_module = importlib.import_module(module)
        rs = ruleset_module.load_ruleset(ruleset, overrides)
        rows = ruleset_module.effective_rows(rs)
        if fmt == "json":
            click.echo(json.dumps([{"path": p, "value": v, "provenance": s} for p, v, s in rows], indent=1))
        elif fmt == "markdown":
            click.echo("| key | value | provenance |\n|---|---|---|")
            for p, v, s in rows:
                click.echo(f"| `{p}` | `{json.dumps(v)}` | {s.replace('|', '/')} |")
        else:
            click.echo(f"# {game} ruleset {rs.meta.rules_version}  hash {ruleset_module.ruleset_hash(rs)}")
            for p, v, s in rows:
                click.echo(f"{p} = {json.dumps(v)}    # {s}")

    @rules.command("check")
    @click.argument("file", type=click.Path(dir_okay=False))
    @click.option("--set", "overrides", multiple=True, metavar="PATH=VALUE", help="Override a value before checking.")
    def rules_check(file, overrides):
        """Validate a ruleset file: exit 0 if valid, else one line per problem and exit 2."""
        ruleset_module = importlib.import_module(module)
        rs = ruleset_module.load_ruleset(file, overrides)
        click.echo(f"{file}: valid (rules hash {ruleset_module.ruleset_hash(rs)})")

    return rules


def interrupted(prog, e):
    """Report an Interrupted batch run (simcore.batch) on one line; exit 130."""
    where = (f"{e.done} of {e.total} batches kept in {e.out}; finish with: {prog} simulate --resume {e.out}"
             if e.out else "nothing kept (use --out DIR to keep finished batches)")
    click.echo(f"{prog}: interrupted: {where}", err=True)
    sys.exit(130)


def check_resume(ctx, grid_options, out):
    """``--resume`` takes the run's own settings: no grid option and no --out with it."""
    given = [o for o in grid_options if ctx.get_parameter_source(o) == click.core.ParameterSource.COMMANDLINE]
    if given or out:
        opt = "--out" if out else "--" + given[0].replace("_", "-")
        raise InputError(f"--resume continues a run with its own settings: drop {opt}")


def add_experiment_command(main, prog):
    """Add ``experiment FILE`` (simcore.experiment) to click group ``main``."""

    @main.command("experiment")
    @click.argument("file", type=click.Path(dir_okay=False))
    @click.option("--games", type=click.IntRange(2, None), default=None,
                  help="Games per cell and arm (default: the file's `games`).")
    @click.option("--workers", type=click.IntRange(1, None), default=None, help="Worker processes (default: all cores).")
    @click.option("--cluster", default=None, metavar="ADDRESS|local", help="Run the batches on a Dask cluster.")
    @click.option("--out", type=click.Path(file_okay=False), default=None,
                  help="Write the dataset, report.md, comparisons.csv and plots here; running the same "
                       "command again re-uses every finished batch.")
    @click.option("--quiet", is_flag=True, help="No progress bar.")
    def experiment(file, games, workers, cluster, out, quiet):
        """Run a what-if experiment file (experiments/README.md): paired
        variants, a sweep, a sensitivity screen or a tune; print its report."""
        from . import experiment as ex
        from . import experiment_report as rep
        exp = ex.load(file)
        game = ex.adapter(exp, prog)
        command = " ".join([prog, "experiment", *sys.argv[sys.argv.index("experiment") + 1:]]) \
            if "experiment" in sys.argv else f"{prog} experiment {file}"
        progress = not quiet and sys.stderr.isatty()
        from .batch import Interrupted
        try:
            res = ex.run(exp, game, out, workers, cluster, progress, games, command)
        except (KeyboardInterrupt, Interrupted):
            where = f"finished batches kept in {out}; run the same command again to go on" if out else \
                "nothing kept (use --out DIR to keep finished batches)"
            click.echo(f"{prog}: interrupted: {where}", err=True)
            sys.exit(130)
        if out:
            path = rep.write(res, game, out, command)
            click.echo(path.read_text())
            click.echo(f"report, plots and comparisons.csv in {out}; games in {res.dataset}", err=True)
        else:
            click.echo(rep.markdown(res, game, (), command))

    return experiment
