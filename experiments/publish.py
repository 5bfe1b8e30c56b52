"""Regenerate every published figure of both games with one command, and
say which published figures are stale.

    python -m experiments.publish                 # everything, on every core
    python -m experiments.publish --cluster tcp://scheduler:8786
    python -m experiments.publish --only mq-grid,ladders
    python -m experiments.publish --check         # stale artefacts? (plays nothing)
    python -m experiments.publish --again         # play everything again, current or not
    python -m experiments.publish --quick --root /tmp/pub   # the same pipeline, small counts

The steps (``STEPS``), in order:

- ``mq-grid``: the MourneQuest standard report over 3 levels x 1-4 players x
  greedy and planner (``experiments/results/mq-grid/report.md``, plots);
- ``qm-grid``: the Quest Master standard report over 2-6 players x greedy
  and planner tables (``experiments/results/qm-grid/report.md``);
- ``ladders``: both skill ladders (``experiments/results/mq-ladder``;
  ``mq-rollout``, rollout against the planner; ``mq-expert``, the expert
  against the planner in every cell with each hero's effect for both, again
  on an independent seed, the cells those two leave open on a third seed
  with many more games, and its budget curves; ``mq-planner``,
  the planner against its v3 and v2 defaults and without each part;
  ``experiments/results/qm-ladder``, the mixed tables: seat 1 played by
  each policy against greedy seats, 2-6 players; and ``qm-expert``, seat 1
  played by the expert or the planner among planners, and its budget curves);
- ``experiments``: every shipped experiment file (``experiments/*.toml``) into
  ``experiments/results/<name>/``;
- ``replications``: the grids (``<grid>-again``) and the experiments the
  study leads with (``AGAIN_EXPERIMENTS``, ``<name>-again``) played again on
  an independent seed, so that each headline finding is measured twice
  (``experiments.replication``);
- ``notebooks``: the three notebooks, executed in place;
- ``tables``: every generated block of the docs (``experiments.tables``),
  which the balance study (``docs/*/balance.md``) and the other docs read.

What each artefact is (game counts, seeds, cells, policies) is in
``experiments.artefacts``; the manifest and ``--check`` in
``experiments.manifest``. Every step records what made each artefact in
``experiments/results/published.json``: engine, behaviour version, source hash, ruleset hash, seed,
policies and games (and ``quick`` for a ``--quick`` artefact). ``--check``
plays no game; it lists (exit 1) every artefact whose behaviour version or
ruleset no longer matches the installed engine and the current rulesets,
whose games per cell, seed or policies are not what the study (``FULL``,
the steps' seeds and policies; in a ``--quick`` root, its quick artefacts
against ``QUICK``) makes, whose step was cut short while rewriting it, or
whose own stamp (the ``> Made by`` line of a grid's report.md and
index.html, a ladder's JSON sidecar, an experiment report's set-up line)
disagrees with the manifest. A refactor that keeps every game identical
keeps the behaviour version, so it leaves nothing stale.

Every file is written atomically (simcore.atomic), and an artefact's stamp
is written to the manifest only after all its files: before a step rewrites
an artefact its entry is marked ``pending``, so a run cut short never leaves
the manifest claiming an old stamp for a half-rewritten artefact.

Only what is stale is played: a grid or an experiment whose artefact is
current (``--check``'s test for that artefact alone; an experiment's stamp
holds a digest of its file's settings) is skipped, even from a fresh clone,
where its games are not on disk; so are current ladders (their sidecars).
Resumable: games land on disk batch by batch (``data/`` directories, not
committed); after Ctrl-C (exit 130) or SIGTERM (exit 143) the same command
goes on where it stopped. Bad input is one ``publish: error:`` line
and exit status 2. ``--quick`` never writes into the repository's published
tree, and ``--root DIR`` writes only into a new or empty directory or one
publish wrote before.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from simcore.errors import InputError

from experiments.artefacts import (AGAIN_EXPERIMENTS, AGAIN_SEED, FULL, GRIDS, MANIFEST, NOTEBOOK_GAMES,
                                   NOTEBOOK_PACKAGES, NOTEBOOK_SEED, QM_LADDER, QUICK, QUICK_BUDGET, ROOT,
                                   _again_games, _experiment_files, _experiment_games, _grid_policies, _ladders,
                                   experiment_spec)
from experiments.manifest import Manifest, _header, stale

PROG = "publish"
ROOT_MARK = ".publish-root"      # written into a --root directory before anything else
# the folders of the repository that hold the published study (a --root may not lie inside them)
PUBLISHED = ("experiments", "docs", "notebooks")
@dataclass
class Ctx:
    """Where and how big: ``root`` is the repository (or a scratch copy for
    --quick), ``n`` the game counts, ``workers``/``cluster`` the batch driver."""
    root: Path
    n: dict
    workers: int | None
    cluster: str | None
    quick: bool
    rulesets: dict        # game package -> ruleset file (None: the shipped one)
    again: bool = False   # play everything again, even artefacts that are current
    manifest: Manifest | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.manifest is None:
            self.manifest = Manifest(self.root)

    @property
    def mode(self) -> dict:
        """What a stamp records of the run's size beyond its counts."""
        return {"quick": True} if self.quick else {}

    def path(self, rel) -> Path:
        from simcore import atomic
        p = self.root / rel
        atomic.make_dir(p.parent)
        return p


def _stamp(package, ruleset, overrides=(), **extra) -> dict:
    """What made an artefact: engine identity and ruleset hash, plus ``extra``."""
    from importlib import import_module
    from simcore import identity
    sim = import_module(f"{package}.sim")
    rules = sim.prepare(ruleset, tuple(overrides))
    return dict(identity.engine(package), ruleset_hash=rules.hash, ruleset=str(ruleset) if ruleset else None,
                overrides=list(overrides), **extra)


def _grid(ctx, name):
    """Play (or finish) one standard-report grid into ``<name>/data``; write
    ``report.md``, its tables, the plots and ``index.html``, then its stamp.
    Returns the manifest entry."""
    from importlib import import_module
    from simcore import atomic, identity, store
    from simcore.html_report import tables_page
    from simcore.plots import caption
    from simcore.report import render
    package, key, kw, seed = GRIDS[name]
    games = ctx.n[key]
    rel = f"experiments/results/{name}/report.md"
    if _current_artefact(ctx, rel):
        return {rel: ctx.manifest.entries[rel]}
    grid = import_module(f"{package}.batch")
    rep = import_module(f"{package}.report")
    plots = import_module(f"{package}.plots")
    from simcore import outdir
    folder = atomic.make_dir(ctx.path(f"experiments/results/{name}/report.md").parent)
    ruleset = ctx.rulesets.get(package)
    with outdir.owned(folder, "publish") as own:
        out = own.dataset("data")
        if ctx.again and out.exists():
            shutil.rmtree(out)
        if (out / store.RUN_FILE).exists():
            run = store.read_run(out)
            stale = (run.get("games") != games or run.get("ruleset") != (str(ruleset) if ruleset else None)
                     or run.get("seed") != seed
                     or sorted({c.get("policy") for c in run.get("cells", [])}) != _grid_policies(kw))
            try:
                identity.check_same(run, package, out)
            except InputError:
                stale = True
            if stale or _rules_changed(run, package):
                shutil.rmtree(out)
            elif not run.get("complete"):
                grid.resume(out, ctx.workers, ctx.cluster, _bar(name))
        if not (out / store.RUN_FILE).exists():
            grid.run_grid(games=games, seed=seed, out=out, workers=ctx.workers, cluster=ctx.cluster,
                          progress=_bar(name), ruleset=ruleset, command=f"python -m experiments.publish ({name})",
                          **kw)
        run = store.read_run(out)
        df = store.read_dataset(out)
        policies = sorted({c["policy"] for c in run["cells"]})
        stamp = _stamp(package, ruleset, seed=run["seed"], games=games, policies=policies, **ctx.mode)
        title = f"{name}: the standard balance report"
        rs = import_module(f"{package}.ruleset")
        names = rs.names_of(rs.load_ruleset(ruleset))
        tables = rep.standard_report(df, names)
        text = render(tables, "markdown", title, names)
        ctx.manifest.begin(rel)
        own.write_text("report.md", text.replace("\n", "\n\n" + _header(stamp) + "\n", 1))
        _write_tables(own, tables, "tables")
        for pol in policies:        # each policy's own tables, for the balance study's side-by-side figures
            _write_tables(own, rep.standard_report(df[df["policy"] == pol], names), f"tables/{pol}")
        pngs = plots.write_plots(df, own, names)
        # the same report as one page to open or mail, its plots inside
        own.write_text("index.html", tables_page(f"{title}\n{_header(stamp)}", tables,
                                                 [(caption(plots.PLOTS[p.stem]), p.read_bytes()) for p in pngs],
                                                 names=names))
    ctx.manifest.done(rel, stamp)       # the stamp last, after every file of the artefact
    return {rel: stamp}


def _current_artefact(ctx, rel) -> bool:
    """Whether ``rel`` (a grid's or an experiment's report) is already what
    the study makes, so its games need not be played again: the check of
    ``--check`` for that artefact alone (engine behaviour version, ruleset,
    games, seed, policies, an experiment file's settings, its own stamp).
    Never with ``--again``."""
    st = ctx.manifest.entries.get(rel)
    if ctx.again or st is None or bool(st.get("quick")) != ctx.quick:
        return False      # a --quick run never keeps a full artefact, nor a full run a quick one
    return not stale(ctx.root, ctx.rulesets, only={rel})


def slug(title: str) -> str:
    """A report table's file name: its title's words up to the first
    bracket, lower case, joined by hyphens."""
    return "-".join(re.findall(r"[a-z0-9]+", title.split("(")[0].lower()))


def _write_tables(own, tables: dict, folder: str) -> None:
    """Each table of a report as ``folder/<slug>.csv`` in the held output
    folder ``own``, so the docs' generated blocks (experiments.tables) read
    the figures, never retype them."""
    for title, t in tables.items():
        own.write_text(f"{folder}/{slug(title)}.csv", t.to_csv(index=False))


def _rules_changed(run, package):
    from importlib import import_module
    sim = import_module(f"{package}.sim")
    try:
        return sim.prepare(run.get("ruleset"), tuple(run.get("overrides", ()))).hash != run.get("ruleset_hash")
    except InputError:      # the ruleset file it used is gone or changed into an invalid one: play again
        return True


def _bar(name):
    from tqdm import tqdm
    return tqdm(total=0, unit="game", unit_scale=True, desc=name, file=sys.stderr, dynamic_ncols=True,
                disable=None)


def step_mq_grid(ctx):
    return _grid(ctx, "mq-grid")


def step_qm_grid(ctx):
    return _grid(ctx, "qm-grid")


def step_ladders(ctx):
    """The skill ladders: MourneQuest (random/greedy/planner x level x 4p and
    solo; rollout against the planner with four players; the expert against
    the planner in every cell, and its budget curves; the planner against its
    earlier versions and without each of its parts) and Quest Master (seat 1
    played by each policy, the others by greedy, at 2-6 players; seat 1 the
    expert or the planner among planners, and the expert's budget curves)."""
    entries = {}
    for rel, spec in _ladders(ctx.n).items():
        entries.update(_script(ctx, rel, spec) if "script" in spec else _qm_ladder(ctx, rel, spec))
    return entries


def _script(ctx, rel, spec):
    """Run one of the games' example scripts into ``rel`` unless its
    sidecar says it is current. The script writes its table and then its
    sidecar (the digest of the table in it: simcore.outdir.write_files);
    the sidecar then gets the command as a reader runs it, and the stamp is
    written last."""
    from simcore import atomic
    out = ctx.path(rel)
    ruleset = ctx.rulesets.get(spec["package"])
    meta = out.with_suffix(".json")
    if not _current(ctx, out, spec["package"], ruleset, spec):
        cmd = [sys.executable, str(ROOT / spec["script"])] + spec["args"] + ["--out", str(out)] + \
            (["--ruleset", ruleset] if ruleset else [])
        if ctx.workers:
            cmd += ["--workers", str(ctx.workers)]
        ctx.manifest.begin(rel)
        _run_script(cmd, spec["script"])
        m = json.loads(meta.read_text())    # the command as a reader runs it, from the repository
        m["command"] = " ".join(["python", spec["script"]] + [x for x in spec["args"] if x != "--quiet"] +
                                ["--out", rel])
        m.update(ctx.mode)
        atomic.write_text(meta, json.dumps(m, indent=1) + "\n")
    m = json.loads(meta.read_text())
    # what made it is what its sidecar says (a ladder skipped as current keeps its own engine stamp)
    stamp = dict({k: m.get(k) for k in ("engine", "behaviour_version", "engine_hash", "ruleset_hash", "ruleset")},
                 overrides=list(m.get("overrides", [])), seed=m["seed"], games=m["games"],
                 policies=m.get("policies", spec["policies"]), **ctx.mode)
    ctx.manifest.done(rel, stamp)
    return {rel: stamp}


def _run_script(cmd, script):
    """Run an example script; its interruption is ours, its bad input one line."""
    import subprocess
    from simcore import shutdown
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    if rc in (-2, 130):
        raise KeyboardInterrupt
    if rc in (-15, 143):
        raise shutdown.Terminated
    if rc == 2:
        raise InputError(f"{script} stopped on bad input (its message is above)")
    if rc:
        raise RuntimeError(f"{script} failed with exit status {rc}")


def _current(ctx, out: Path, package, ruleset, spec):
    """A ladder's table and sidecar are there, made by this engine's
    behaviour version and ruleset, with the games, seed, policies (and the
    sidecar's other values) the study asks for."""
    meta = out.with_suffix(".json")
    if ctx.again or not meta.exists() or not out.exists():
        return False
    try:
        m = json.loads(meta.read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(m, dict) or m.get("ruleset") != (str(ruleset) if ruleset else None):
        return False
    if m.get("games") != spec["games"] or m.get("seed") != spec["seed"] or \
            m.get("policies", spec["policies"]) != spec["policies"] or \
            any(m.get(k) != v for k, v in spec["sidecar"].items()):
        return False
    from simcore import identity
    return (m.get("behaviour_version") == identity.engine(package)["behaviour_version"]
            and not _rules_changed(m, package))


def _qm_ladder(ctx, rel, spec):
    import pandas as pd
    from questsim import batch
    from simcore import outdir
    from simcore.report import with_interval
    games = spec["games"]
    out = ctx.path(rel)
    meta = out.with_suffix(".json")
    ruleset = ctx.rulesets.get("questsim")
    if not _current(ctx, out, "questsim", ruleset, spec):
        outdir.check_files(meta, [out], PROG)       # before any game: never over a file of the user's
        rows = []
        for p in (2, 3, 4, 5, 6):
            tables = tuple((pol,) + ("greedy",) * (p - 1) for pol in QM_LADDER)
            t0 = time.perf_counter()
            df, _ = batch.run_grid(games=games, seed=spec["seed"], players=(p,), tables=tables, ruleset=ruleset,
                                   workers=ctx.workers, cluster=ctx.cluster, progress=_bar(f"qm-ladder {p}p"))
            dt = time.perf_counter() - t0
            for pol, g in df.groupby("policy", observed=True):
                rows.append(dict(policy=pol.split("+")[0], players=p, games=len(g),
                                 wins=int((g["winner_seat"] == 0).sum()), fair_share=1 / p,
                                 seconds=dt / len(tables)))
        t = with_interval(pd.DataFrame(rows))
        stamp = _stamp("questsim", ruleset, seed=spec["seed"], games=games, policies=spec["policies"],
                       command="python -m experiments.publish --only ladders", **ctx.mode)
        ctx.manifest.begin(rel)
        outdir.write_files(meta, {out: lambda tmp: t.to_csv(tmp, index=False)}, stamp, PROG)
    stamp = {k: v for k, v in json.loads(meta.read_text()).items() if k != "written"}
    ctx.manifest.done(rel, stamp)
    return {rel: stamp}


def step_experiments(ctx):
    """Every shipped experiment file, into ``experiments/results/<name>``."""
    return {rel: _experiment(ctx, f, exp, f.stem, _experiment_games(ctx.n, exp)) for f, exp in _experiment_files()
            for rel in [f"experiments/results/{f.stem}/report.md"]}


def step_replications(ctx):
    """Each headline finding again on an independent seed: the grids
    (``<grid>-again``) and the experiments the study leads with
    (``AGAIN_EXPERIMENTS``, into ``<name>-again``)."""
    entries = {}
    for name in GRIDS:
        if name.endswith("-again"):
            entries.update(_grid(ctx, name))
    for f, exp in _experiment_files():
        if f.stem in AGAIN_EXPERIMENTS:
            exp.seed = AGAIN_SEED
            rel = f"experiments/results/{f.stem}-again/report.md"
            entries[rel] = _experiment(ctx, f, exp, f"{f.stem}-again", _again_games(ctx.n, exp))
    return entries


def _experiment(ctx, f, exp, folder, games):
    """Play (or re-use the finished batches of) experiment ``exp`` from file
    ``f`` into ``experiments/results/<folder>``; returns its stamp."""
    from simcore import experiment as ex, experiment_play as play
    from simcore import experiment_report as rep
    from simcore import game as games_by_key
    from simcore import outdir
    if ctx.quick and exp.policy_tune is not None:
        # the same search on a small budget: each evaluation starts the batch driver anew
        exp.policy_tune.budget = min(exp.policy_tune.budget, QUICK_BUDGET)
    rel = f"experiments/results/{folder}/report.md"
    if _current_artefact(ctx, rel):
        return ctx.manifest.entries[rel]
    game = ex.adapter(exp, games_by_key.get(exp.game).package)
    out = ctx.path(rel).parent
    command = f"{game.PROG} experiment experiments/{f.name} --out experiments/results/{folder}" + \
        (f" --games {games}" if games else "") + (f" --seed {exp.seed}" if folder != f.stem else "")
    args = (ctx.workers, ctx.cluster, sys.stderr.isatty(), games, command)
    with outdir.owned(out, PROG) as own:
        data = own.datasets("data")          # the arms' games (not committed)
        if ctx.again and data.exists():
            shutil.rmtree(data)
        try:
            res = play.run(exp, game, own, *args)
        except ex.InputError as e:
            if "holds games of another" not in str(e) and "cannot re-use" not in str(e):
                raise
            shutil.rmtree(data)               # another engine, ruleset or size: play again
            res = play.run(exp, game, own, *args)
        stamp = _stamp(game.PROG, exp.base.get("ruleset"), exp.base.get("set", []), seed=exp.seed,
                       games=games or exp.games, policies=str(exp.base.get("policy", "default")),
                       command=command, spec=experiment_spec(f), **ctx.mode)
        ctx.manifest.begin(rel)
        rep.write(res, game, own, command)
    ctx.manifest.done(rel, stamp)
    return stamp


def step_notebooks(ctx):
    """Execute each notebook in place (its own parameters, or small ones)."""
    import nbformat
    from nbclient import NotebookClient
    from simcore import atomic
    entries = {}
    small = ctx.n["notebooks"] or {}
    for src in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(src, as_version=4)
        if src.stem in small:
            i = next(k for k, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
            nb.cells.insert(i + 1, nbformat.v4.new_code_cell(small[src.stem] + "\nWORKERS = 1"))
        NotebookClient(nb, timeout=7200, kernel_name="python3",
                       resources={"metadata": {"path": str(ctx.path("notebooks/x").parent)}}).execute()
        rel = f"notebooks/{src.name}"
        dst = ctx.path(rel)
        stamp = _stamp(NOTEBOOK_PACKAGES.get(src.stem, "questsim"), None, seed=NOTEBOOK_SEED,
                       games=small.get(src.stem, NOTEBOOK_GAMES), policies="as in the notebook", **ctx.mode)
        ctx.manifest.begin(rel)
        atomic.write_with(dst, lambda tmp: nbformat.write(nb, str(tmp)))
        ctx.manifest.done(rel, stamp)
        entries[rel] = stamp
    return entries


def step_tables(ctx):
    """Rewrite the generated blocks of the docs from the artefacts."""
    from experiments import tables
    tables.main(["--root", str(ctx.root)])
    return {}


STEPS = {"mq-grid": step_mq_grid, "qm-grid": step_qm_grid, "ladders": step_ladders,
         "experiments": step_experiments, "replications": step_replications, "notebooks": step_notebooks,
         "tables": step_tables}


# ---- the command line: bad input one line (exit 2), Ctrl-C 130, SIGTERM 143 ---------------------------

class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors as one InputError line."""

    def error(self, message):
        raise InputError(f"{message} (see python -m experiments.publish --help)")


def _game_packages() -> dict:
    """What ``--ruleset NAME=FILE`` may name: a game package
    (``mournesim``) or a game's key (``mournequest``) -> the package."""
    from simcore.game import games
    found = games()
    return {**{g.package: g.package for g in found.values()}, **{k: g.package for k, g in found.items()}}


def parse_rulesets(specs) -> dict:
    """``--ruleset PACKAGE=FILE`` (repeatable) -> {package: FILE}; each file
    is loaded and validated now, before any game is played."""
    from importlib import import_module
    out = {}
    for spec in specs:
        name, sep, file = spec.partition("=")
        name, file = name.strip(), file.strip()
        if not sep or not name or not file:
            raise InputError(f"--ruleset {spec!r}: expected PACKAGE=FILE, e.g. mournesim=my-rules.toml")
        packages = _game_packages()
        if name not in packages:
            raise InputError(f"--ruleset {spec!r}: no game {name!r} (choose from {', '.join(sorted(packages))})")
        package = packages[name]
        if package in out:
            raise InputError(f"--ruleset: {package} given twice ({out[package]} and {file})")
        try:
            import_module(f"{package}.sim").prepare(file, ())
        except InputError as e:
            lines = str(e).splitlines() or [""]
            more = f" (and {len(lines) - 1} more problem(s): {package} rules check {file})" if len(lines) > 1 else ""
            raise InputError(f"--ruleset {name}={file}: {lines[0]}{more}") from None
        out[package] = file
    return out


def parse_workers(text):
    """``--workers``: 1..MAX_WORKERS, judged and worded as the game CLIs judge it."""
    if text is None:
        return None
    import click
    from simcore.inputs import MAX_WORKERS
    opt = click.Option(["--workers"], type=click.IntRange(1, MAX_WORKERS))
    try:
        return opt.type.convert(text, opt, None)
    except click.BadParameter as e:
        raise InputError(e.format_message()) from None


def parse_steps(text) -> list:
    """``--only a,b``: known step names, in the pipeline's order."""
    if text is None:
        return list(STEPS)
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise InputError(f"--only {text!r}: give one or more steps ({', '.join(STEPS)})")
    bad = [n for n in names if n not in STEPS]
    if bad:
        raise InputError(f"--only {bad[0]}: no such step ({', '.join(STEPS)})")
    return [n for n in STEPS if n in names]


def _inside_published(root: Path):
    """The repository folder holding published artefacts that ``root`` is
    (or lies inside), or None."""
    for d in PUBLISHED:
        top = ROOT / d
        if root == top or top in root.parents:
            return top
    return None


def check_root(root: Path, given, quick):
    """``--root``: never the repository's published tree for --quick, never
    a file, and (when not the repository) a new or empty directory or one
    publish wrote before (never a user's other files)."""
    if root.exists() and not root.is_dir():
        raise InputError(f"--root {given}: is a file, not a directory")
    if quick and root == ROOT:
        raise InputError(f"--quick --root {given}: that is the repository, whose published artefacts a quick run "
                         "would overwrite with small-count figures; give a scratch directory (e.g. /tmp/pub)")
    inside = _inside_published(root)
    if inside is not None and root != ROOT:
        raise InputError(f"--root {given}: lies inside the repository's published {inside.relative_to(ROOT)}/; "
                         "give a directory outside it (e.g. /tmp/pub)")
    if root == ROOT or not root.exists():
        return
    from simcore import atomic
    try:
        # the mark is written first: a write of it cut short is the only file of ours without it
        names = sorted(n for n in os.listdir(root) if n != atomic.tmp_name(root / ROOT_MARK).name)
    except OSError as e:
        raise InputError(f"--root {given}: cannot read ({atomic.cause(e)})") from None
    if names and not (root / ROOT_MARK).exists() and not (root / MANIFEST).exists():
        few = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        raise InputError(f"--root {given}: holds files publish did not write ({few}); it writes only into a new or "
                         "empty directory or one it wrote before: give another")


def prepare_root(root: Path):
    """Create ``root`` (not the repository): its mark first, then a copy of
    the repository's docs, notebooks and experiments (each copied under a
    temporary name and renamed, so a copy cut short is never taken for one)."""
    from simcore import atomic
    atomic.make_dir(root)
    if not (root / ROOT_MARK).exists():
        atomic.write_text(root / ROOT_MARK, "A publish root: written by python -m experiments.publish.\n")
    for d in ("docs", "notebooks", "experiments"):
        if not (root / d).exists():
            tmp = root / f".tmp-copy-{d}"
            if tmp.exists():
                shutil.rmtree(tmp)
            shutil.copytree(ROOT / d, tmp, ignore=shutil.ignore_patterns("data", "__pycache__", ".tmp-*"))
            os.replace(tmp, root / d)


def run(argv=None) -> int:
    """The command (raises InputError on bad input); returns the exit status."""
    from simcore.inputs import cluster_address
    ap = _Parser(prog="python -m experiments.publish", description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--check", action="store_true", help="list stale published artefacts; play nothing")
    ap.add_argument("--quick", action="store_true", help="the same pipeline on small game counts")
    ap.add_argument("--root", type=Path, default=None,
                    help="write here instead of the repository (required with --quick; a new or empty "
                         "directory, or one publish wrote before)")
    ap.add_argument("--only", default=None, help=f"comma list of steps ({', '.join(STEPS)})")
    ap.add_argument("--workers", default=None, metavar="N", help="worker processes (default: all cores)")
    ap.add_argument("--cluster", default=None, metavar="ADDRESS|local", help="run the batches on a Dask cluster")
    ap.add_argument("--again", action="store_true",
                    help="play every step again, even where its artefacts are current (a full regeneration)")
    ap.add_argument("--ruleset", action="append", default=[], metavar="PACKAGE=FILE",
                    help="publish with another ruleset file for a game (e.g. mournesim=my.toml)")
    a = ap.parse_args(argv)
    if a.check:
        given = [o for o, v in (("--quick", a.quick), ("--again", a.again), ("--only", a.only is not None),
                                ("--workers", a.workers is not None), ("--cluster", a.cluster is not None)) if v]
        if given:
            raise InputError(f"--check plays nothing: drop {given[0]}")
    workers = parse_workers(a.workers)
    cluster = cluster_address(a.cluster)
    names = parse_steps(a.only)
    if a.quick and a.root is None:
        raise InputError("--quick needs --root DIR (it must not overwrite the published artefacts)")
    root = (a.root or ROOT).expanduser().resolve()
    if a.check:
        if root.exists() and not root.is_dir():
            raise InputError(f"--root {a.root}: is a file, not a directory")
    else:
        check_root(root, a.root, a.quick)
    rulesets = parse_rulesets(a.ruleset)
    if a.check:
        problems = stale(root, rulesets)
        for p in problems:
            print(p)
        print(f"{len(problems)} stale published artefact(s)" if problems else "every published artefact is current")
        return 1 if problems else 0
    from simcore import atomic, outdir
    with outdir.held(atomic.make_dir(root)):       # one publish at a time into a root (one manifest)
        if root != ROOT:
            prepare_root(root)
        ctx = Ctx(root, QUICK if a.quick else FULL, workers, cluster, a.quick, rulesets, a.again)
        t0 = time.perf_counter()
        for name in names:
            t = time.perf_counter()
            print(f"{PROG}: {name} ...", file=sys.stderr, flush=True)
            ctx.manifest.update(STEPS[name](ctx))
            print(f"{PROG}: {name} done in {time.perf_counter() - t:.0f}s", file=sys.stderr, flush=True)
    print(f"{PROG}: {len(names)} step(s) in {time.perf_counter() - t0:.0f}s; manifest {ctx.manifest.path}",
          file=sys.stderr)
    return 0


def main(argv=None) -> int:
    """``run`` with the game CLIs' contract (simcore.cli): bad input one
    ``publish: error:`` line and exit 2; Ctrl-C 130, SIGTERM 143 (one line:
    run the same command again to go on); anything else is a bug, one
    ``internal error`` line and exit 1 (SIMCORE_TRACEBACK=1 shows where)."""
    import traceback
    from simcore import shutdown
    from simcore.atomic import cause
    from simcore.batch import Interrupted
    try:
        return run(argv)
    except InputError as e:
        for line in str(e).splitlines() or [""]:
            print(f"{PROG}: error: {line}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Interrupted) as e:
        status = e.status if isinstance(e, Interrupted) else shutdown.exit_status(e)
        print(f"{PROG}: {'terminated' if status == 143 else 'interrupted'}: every finished batch and artefact is "
              "kept; run the same command again to go on", file=sys.stderr)
        return status
    except OSError as e:           # a file the pipeline reads or copies (simcore.atomic words its own writes)
        print(f"{PROG}: error: {e.filename or 'a file'}: {cause(e)}", file=sys.stderr)
        return 2
    except Exception as e:         # a bug: one line, not a traceback
        if os.environ.get("SIMCORE_TRACEBACK"):
            traceback.print_exc()
        print(f"{PROG}: internal error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} (a bug: "
              "please report it with the command line; SIMCORE_TRACEBACK=1 shows where)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    from simcore import shutdown as _shutdown
    _shutdown.terminate_as_interrupt()
    sys.exit(main())
