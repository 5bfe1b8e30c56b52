"""Command-line plumbing both games share: the click group that turns bad
input and faults into one clear line and exit status 2 (never a traceback),
Ctrl-C into one line and exit status 130 (143 after SIGTERM), and the
commands and checks both command lines have.

The group's contract, whatever happens inside a command:

- bad input (``InputError``) and a click usage error: ``prog: error: ...``
  lines on stderr, exit 2;
- a write that fails, standard output included (``/dev/full``, a closed
  pipe): one line naming what could not be written and why, exit 2;
- Ctrl-C or SIGTERM: one ``prog: interrupted`` line, exit 130 / 143;
- anything else is a bug: one ``prog: internal error`` line, exit 1 (set
  ``SIMCORE_TRACEBACK=1`` to see the traceback).
"""
from __future__ import annotations

import errno
import os
import sys
import traceback

import click

from . import shutdown
from .atomic import cause
from .errors import InputError

EXPERIMENT_MAX_GAMES = 100_000_000     # as an experiment file's `games`


def fail(prog, msg):
    """Print ``msg`` as ``prog: error: ...`` lines on stderr and exit 2."""
    for line in str(msg).splitlines():
        click.echo(f"{prog}: error: {line}", err=True)
    sys.exit(2)


def _os_error_message(e: OSError) -> str:
    # the files the commands read and write are checked where they are
    # opened; what reaches here unnamed is standard output
    if e.filename:
        return f"{e.filename}: {cause(e)}"
    return f"cannot write to standard output: {cause(e)}"


def _silence_stdout():
    """Point standard output at /dev/null, so the interpreter's last flush of
    output that could not be written does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def error_group(prog):
    """A click.Group class for command ``prog`` with the bad-input contract."""

    class Group(click.Group):
        def invoke(self, ctx):
            # runs the whole command chain: OSError and Ctrl-C are turned into
            # our own errors here, before click's main would exit 1 silently
            # on a closed pipe or print a blank line on Ctrl-C
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt as e:
                raise click.exceptions.Abort() from e
            except OSError as e:
                raise _WriteError(_os_error_message(e)) from None

        def main(self, *a, standalone_mode=True, **kw):
            shutdown.terminate_as_interrupt()
            if sys.stdout is None:      # started with standard output closed (>&-): refused before any work
                fail(prog, f"cannot write to standard output: {os.strerror(errno.EBADF)} (it is closed)")
            try:
                rv = super().main(*a, standalone_mode=False, **kw)
                sys.stdout.flush()
            except _WriteError as e:
                _silence_stdout()
                fail(prog, e)
            except InputError as e:
                fail(prog, e)
            except click.exceptions.Abort as e:
                click.echo(f"{prog}: {'terminated' if shutdown.exit_status(e) == 143 else 'interrupted'}",
                           err=True)
                sys.exit(shutdown.exit_status(e))
            except click.ClickException as e:
                fail(prog, e.format_message())
            except click.exceptions.Exit as e:
                sys.exit(e.exit_code)
            except OSError as e:            # the final flush of standard output
                _silence_stdout()
                fail(prog, _os_error_message(e))
            except Exception as e:          # a bug: one line, not a traceback
                if os.environ.get("SIMCORE_TRACEBACK"):
                    traceback.print_exc()
                click.echo(f"{prog}: internal error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                           " (a bug: please report it with the command line; SIMCORE_TRACEBACK=1 shows where)",
                           err=True)
                sys.exit(1)
            if isinstance(rv, int) and not isinstance(rv, bool):
                sys.exit(rv)        # click returns ctx.exit(code) codes in non-standalone mode
            return rv

    return Group


class _WriteError(InputError):
    """Output could not be written (raised by Group.invoke from an OSError)."""


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
    """Report an Interrupted batch run (simcore.batch) on one line; exit 130
    (143 after SIGTERM)."""
    where = (f"{e.done} of {e.total} batches kept in {e.out}; finish with: {prog} simulate --resume {e.out}"
             if e.out else "nothing kept (use --out DIR to keep finished batches)")
    click.echo(f"{prog}: {'terminated' if e.status == 143 else 'interrupted'}: {where}", err=True)
    sys.exit(e.status)


def note_for(prog):
    """A function showing one ``prog: note: ...`` line on stderr."""
    return lambda msg: click.echo(f"{prog}: note: {msg}", err=True)


def run_summary(cells, seconds, compiled=0.0) -> str:
    """``N games played in Ts, R games/s`` for a run's summary line; after
    ``--resume`` only the games this command played count, and the games
    kept from before are said; ``compiled``: seconds of a one-time engine
    compile before the run (not in ``seconds``), said when there was one;
    the worker processes' start (``cells.startup``, in ``seconds``) is taken
    out of the play time and said."""
    total = sum(n for _lab, n, _w in cells)
    now = getattr(cells, "played_now", total)
    start = getattr(cells, "startup", 0.0)
    play = max(seconds - start, 1e-9)
    line = f"{now:,} games played in {play:.1f}s, {now / play:,.0f} games/s"
    if now != total:
        line += f"; {total - now:,} of its {total:,} games kept from before"
    if start >= 0.05:
        line += f"; the worker processes took {start:.1f}s to start before them"
    if compiled:
        line += f"; the one-time engine compile before them took {compiled:.0f}s"
    return line


def compile_once(game, dispatcher, warm, workers=None, during=None) -> float:
    """Compile (or load from numba's cache) ``game``'s engine before a run is
    timed, by calling ``warm`` (one game), so the run's summary counts only
    play. A cold ``dispatcher`` (the engine's entry point) is compiled on
    ``workers`` cores first and announced on stderr
    (:func:`simcore.warmup.compile_cold`), and then the user is told how long
    it took; ``during`` runs meanwhile (compile_cold). Returns the compile's
    seconds, or 0 when the engine came from the cache."""
    import time
    from .warmup import compile_cold
    t = time.perf_counter()
    with shutdown.interrupts_kept():     # a Ctrl-C inside one of LLVM's callbacks is not lost
        cold = compile_cold(game, dispatcher, workers, say=lambda line: click.echo(line, err=True), during=during)
        warm()
    seconds = time.perf_counter() - t
    if cold:
        click.echo(f"{game.package}: engine compiled and cached in {seconds:.0f}s", err=True)
        return seconds
    return 0.0


def play_grid(game, grid_kw, resume, workers, cluster, quiet, compiled):
    """``prog simulate``'s run, for every game: the grid ``grid_kw`` (the
    game's ``batch.run_grid`` arguments but where it runs) or, with
    ``resume``, the rest of that interrupted run, played with a progress bar
    on stderr; an interruption ends the command with one line. Returns
    ``(rows, cells, out, summary)``: ``out`` the run's directory (None
    without one), ``summary`` the line of games per second of play alone
    (``compiled``: the seconds of a one-time compile before it)."""
    import time
    from tqdm import tqdm
    from .batch import Interrupted
    grid, prog = game.module("batch"), game.package
    t0 = time.perf_counter()
    bar = tqdm(disable=True if quiet else None, unit="game", unit_scale=True, file=sys.stderr, dynamic_ncols=True,
               desc="games")
    try:
        if resume:
            df, cells = grid.resume(resume, workers, cluster, bar, note=note_for(prog))
            out = resume
        else:
            df, cells = grid.run_grid(**grid_kw, workers=workers, cluster=cluster, progress=bar,
                                      command=" ".join([prog] + sys.argv[1:]), note=note_for(prog))
            out = grid_kw.get("out")
    except Interrupted as e:
        bar.close()
        interrupted(prog, e)
    bar.close()
    return df, cells, out, run_summary(cells, time.perf_counter() - t0, compiled)


def print_replay(game, play, policies, fmt):
    """``prog replay``'s end, for every game: play one logged game with
    ``play()`` (after a cold engine's compile on every core, while this
    process compiles the entry points of ``policies``) and print it as
    ``fmt``: ``text``, ``jsonl`` or ``html`` (the board viewer)."""
    played = []       # the replay itself finishes a cold compile (a plan lacking a kernel: it compiles here)
    compile_once(game, game.module("engine").play_logged, lambda: played.append(play()),
                 during=lambda: game.registry.compile_entries(policies))
    rp = played[0]
    if fmt == "html":
        click.echo(game.module("viewer").html(rp), nl=False)
    else:
        click.echo(rp.to_text() if fmt == "text" else rp.to_jsonl(), nl=False)


def script(main):
    """The console script (and ``python -m``) of a game's click group
    ``main``: the command, in a process that ends after it, so without the
    interpreter's final garbage collections (shutdown.skip_final_collection).
    Tests call ``main`` itself."""
    def run():
        shutdown.skip_final_collection()
        main()
    return run


def timed_start(prog, workers=1, cold=False) -> float:
    """Seconds of ``prog simulate --games 1`` in a new process (``bench``):
    the warm start, or with ``cold`` the engine compiled from an empty numba
    cache on ``workers`` cores."""
    import os
    import subprocess
    import tempfile
    import time
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d) if cold else None
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", prog, "simulate", "--games", "1", "--quiet", "--workers", str(workers)],
                       check=True, capture_output=True, env=env)
        return time.perf_counter() - t


def check_resume(ctx, grid_options, out):
    """``--resume`` takes the run's own settings: no grid option and no --out with it."""
    given = [o for o in grid_options if ctx.get_parameter_source(o) == click.core.ParameterSource.COMMANDLINE]
    if given or out:
        opt = "--out" if out else "--" + given[0].replace("_", "-")
        raise InputError(f"--resume continues a run with its own settings: drop {opt}")


def add_experiment_command(main, prog):
    """Add ``experiment FILE`` (simcore.experiment) to click group ``main``."""
    from .inputs import MAX_WORKERS, cluster_address

    @main.command("experiment")
    @click.argument("file", type=click.Path(dir_okay=False))
    @click.option("--games", type=click.IntRange(2, EXPERIMENT_MAX_GAMES), default=None,
                  help="Games per cell and arm (default: the file's `games`).")
    @click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=None,
                  help="Play on this seed instead of the file's `seed` (the same experiment on independent "
                       "games, to see whether a finding replicates).")
    @click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
                  help="Worker processes (default: all cores).")
    @click.option("--cluster", default=None, metavar="ADDRESS|local", help="Run the batches on a Dask cluster.")
    @click.option("--out", type=click.Path(file_okay=False), default=None,
                  help="Write the dataset, report.md, index.html (the report as one page), comparisons.csv "
                       "and plots here; running the same "
                       "command again re-uses every finished batch.")
    @click.option("--quiet", is_flag=True, help="No progress bar.")
    def experiment(file, games, seed, workers, cluster, out, quiet):
        """Run a what-if experiment file (experiments/README.md): paired
        variants, a sweep, a sensitivity screen or a tune; print its report."""
        from contextlib import nullcontext
        from . import experiment as ex, experiment_play as play
        from . import experiment_report as rep
        from .batch import Interrupted
        from .outdir import owned
        cluster = cluster_address(cluster)
        exp = ex.load(file)
        if seed is not None:
            exp.seed = seed
        game = ex.adapter(exp, prog)
        if cluster in (None, "local"):  # a cold engine compiled once on every core, not in each batch worker
            from .game import get
            g = get(exp.game)
            compile_once(g, g.module("engine").run_batch, lambda: None, workers)
        command = " ".join([prog, "experiment", *sys.argv[sys.argv.index("experiment") + 1:]]) \
            if "experiment" in sys.argv else f"{prog} experiment {file}"
        progress = not quiet and sys.stderr.isatty()
        with owned(out, "experiment --out") if out else nullcontext() as held_out:
            try:
                res = play.run(exp, game, held_out, workers, cluster, progress, games, command, note_for(prog))
            except (KeyboardInterrupt, Interrupted) as e:
                where = f"finished batches kept in {out}; run the same command again to go on" if out else \
                    "nothing kept (use --out DIR to keep finished batches)"
                status = getattr(e, "status", None) or shutdown.exit_status(e)
                click.echo(f"{prog}: {'terminated' if status == 143 else 'interrupted'}: {where}", err=True)
                sys.exit(status)
            if out:
                path = rep.write(res, game, held_out, command)
                click.echo(path.read_text(encoding="utf-8"))
                click.echo(f"report (report.md, index.html), plots and comparisons.csv in {out}; games in {res.dataset}",
                           err=True)
            else:
                click.echo(rep.markdown(res, game, (), command))

    return experiment


def add_report_command(main, game):
    """``prog report DIRECTORY [--by COL,..]``: the balance report of a
    dataset written by ``simulate --out`` (or an experiment), from the
    game's report module: ``standard_report``, ``by_report``, ``headline``
    and, where a big dataset should be read in part, ``columns_read(names,
    by)`` (the columns to load, out of the dataset's ``names``)."""
    prog = game.package

    @main.command()
    @click.argument("directory", type=click.Path())
    @click.option("--by", default=None, metavar="COL[,COL..]",
                  help=f"Win rate by these columns ({game.report_by}) instead of the standard report.")
    @click.option("--format", "fmt", default="table", show_default=True,
                  type=click.Choice(["table", "markdown", "csv", "json", "html"]),
                  help="html: one self-contained page (tables and plots) to open in a browser or mail.")
    @click.option("--plots", type=click.Path(file_okay=False), default=None, help="Also write the PNG plots here.")
    def report(directory, by, fmt, plots):
        """The balance report of a results directory written by simulate --out."""
        cols = None if by is None else [c.strip() for c in by.split(",") if c.strip()]
        if cols is not None and not cols:
            raise InputError("--by: give at least one column")
        run = _open_report(prog, directory, cols, plots)
        if plots:       # held before the report is made: a folder of the user's own is refused
            from .plots import plots_dir
            with plots_dir(plots) as held:
                _report(game, directory, fmt, cols, run, held)
        else:
            _report(game, directory, fmt, cols, run, None)

    return report


def _report(game, directory, fmt, cols, run, plots):
    """``report``'s output: the tables in ``fmt`` and, with ``plots`` (an
    output directory held as the tool's own), the plot files."""
    from . import identity, store
    from .report import render
    prog, rep = game.package, game.module("report")
    wanted = None
    if hasattr(rep, "columns_read"):
        wanted = rep.columns_read(store.column_names(directory, prog), cols)
    df = store.read_dataset(directory, columns=wanted, package=prog)
    if not run.get("complete"):
        click.echo(f"{prog}: note: the run in {directory} is unfinished; this report covers its finished "
                   f"batches (finish with: {prog} simulate --resume {directory})", err=True)
    title = (f"{game.title} balance report: {directory}  seed={run['seed']} rules={run.get('rules_version')} "
             f"hash={run.get('ruleset_hash')}\n{identity.describe(prog, run)}\n{_headline_of(run, df, rep.headline)}")
    names = run_names(game, run)
    tables = rep.standard_report(df, names) if cols is None else rep.by_report(df, cols)
    from .report import example_links
    links = example_links(run, rep.EXAMPLE_KEYS, rep.example_base) if hasattr(rep, "example_base") else None
    if fmt == "html":
        from .html_report import figures, tables_page
        click.echo(tables_page(title, tables, figures(df, game.module("plots").PLOTS, names), names=names, examples=links),
                   nl=False)
    else:
        click.echo(render(tables, fmt, title, names, examples=links), nl=False)
    if plots:       # the plots module (matplotlib) only when plots are drawn
        for path in game.module("plots").write_plots(df, plots, names):
            click.echo(f"wrote {path}", err=True)


def run_names(game, run) -> dict:
    """The names a person reads for the ids of a run's games: its ruleset's
    ``[names]`` (the shipped ruleset's when the run's file is gone)."""
    rs = game.module("ruleset")
    try:
        rules = rs.load_ruleset(run.get("ruleset"), tuple(run.get("overrides", ())))
    except InputError:
        rules = rs.load_ruleset()
    return rs.names_of(rules)


def _open_report(prog, directory, by, plots=None):
    """The run description behind ``prog report DIRECTORY [--by ...]``: the
    directory must hold this game's dataset, and the games of an
    experiment's arms (each with its own rules) are never pooled into one
    rate: they are reported only ``--by arm``, and not plotted."""
    from . import store
    run = store.read_run(directory, prog)
    arms = _arm_names(run)
    if len(arms) > 1 and ("arm" not in (by or []) or plots):
        raise InputError(f"{directory}: holds the {len(arms)} arms of experiment {run.get('experiment', '')!r}, "
                         "each with its own rules; one rate or plot over them would mix them: use "
                         "--by arm[,COL..] without --plots (the experiment's own report and plots are in its --out)")
    return run


def _arm_names(run) -> list:
    """The experiment arms a dataset holds (empty for a simulate run)."""
    return sorted({c["arm"] for c in run["cells"] if isinstance(c, dict) and c.get("arm") is not None})


def _headline_of(run, df, headline) -> str:
    """The report title's one-line summary: ``headline(df)``, except over an
    experiment's arms, which have no pooled rate."""
    arms = _arm_names(run)
    if len(arms) > 1:
        return f"{len(df):,} games of the {len(arms)} arms of experiment {run.get('experiment', '')!r}: rates by arm below"
    return headline(df)


def game_cli(game, help_text, example):
    """The click group of ``game``'s command (a simcore.game.Game): the
    bad-input contract, ``--version``, ``--plugin``, and the commands every
    game has (``policies``, ``rules show/check``, ``report``,
    ``experiment``). The game adds its own commands (simulate, replay,
    bench...) to it."""
    from . import __version__
    prog = game.package

    @click.group(cls=error_group(prog), help=help_text, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, prog_name=prog)
    @click.option("--plugin", "plugin_specs", multiple=True, metavar="FILE.py|MODULE",
                  help=f"Load a module that registers policies (repeatable; also ${prog.upper()}_PLUGINS).")
    def main(plugin_specs):
        for spec in plugin_specs:
            game.registry.load_plugin(spec)

    @main.command("policies")
    def policies_cmd():
        """List the registered policies, their parameters and defaults."""
        for p in game.registry.policies():
            kind = "built-in" if p.builtin_id >= 0 else f"plug-in from {p.source}"
            params = ", ".join(f"{n}={v:g}" for n, v in zip(p.param_names, p.defaults)) or "no parameters"
            click.echo(f"{p.name:<12} {p.description}")
            click.echo(f"{'':<12} parameters: {params}  ({kind})")

    add_rules_commands(main, game.title, game.parts["ruleset"], example)
    add_report_command(main, game)
    add_experiment_command(main, prog)
    add_studio_command(main, game)
    return main


def add_studio_command(main, game):
    """Add ``studio`` (simcore.studio: the what-if web application) to click group ``main``."""
    from .inputs import MAX_WORKERS

    @main.command("studio")
    @click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="The port to listen on.")
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="The address to listen on; another than 127.0.0.1 serves the studio to other machines.")
    @click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
                  help="Worker processes for the what-ifs (default: all cores).")
    @click.option("--saves", type=click.Path(file_okay=False), default="studio-saves", show_default=True,
                  help="Where Save writes a what-if's ruleset and experiment files (a folder of the tool's own).")
    def studio(port, host, workers, saves):
        """Open the studio: a local web page where a changed ruleset value is
        played against the base on paired games, its interval narrowing as
        the games come in. Ctrl-C stops it; finished rounds are kept."""
        import socket
        from pathlib import Path
        from . import studio as st
        try:
            if not host.strip():
                raise OSError
            socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise InputError(f"--host {host!r}: not an address of this machine") from None
        if not saves or (Path(saves).exists() and not Path(saves).is_dir()):
            raise InputError(f"--saves {saves!r}: must be a folder (new, or one the studio wrote)")
        compile_once(game, game.module("engine").run_batch, lambda: None, workers)
        try:
            st.serve(game, host, port, workers, saves, ready=lambda url: click.echo(
                f"{game.package} studio: open {url} (Ctrl-C stops it)", err=True))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise InputError(f"--port {port}: already in use on {host} (choose another)") from None
            raise InputError(f"--host {host} --port {port}: cannot listen there ({e.strerror or e})") from None
