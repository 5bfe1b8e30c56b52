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

Every step records what made each artefact in ``experiments/results/
published.json``: engine, behaviour version, source hash, ruleset hash, seed,
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

Resumable: games land on disk batch by batch (``data/`` directories, not
committed), and a step whose artefacts are already current for the same
settings is skipped; after Ctrl-C (exit 130) or SIGTERM (exit 143) the same
command goes on where it stopped. Bad input is one ``publish: error:`` line
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

PROG = "publish"
ROOT = Path(__file__).resolve().parents[1]
MANIFEST = "experiments/results/published.json"
ROOT_MARK = ".publish-root"      # written into a --root directory before anything else
FULL = dict(mq_grid=50_000, qm_grid=50_000, mq_again=50_000, qm_again=50_000, again_experiment=None, mq_ladder=100_000, qm_ladder=100_000, experiment=None, search_experiment=None,
            notebooks=None, mq_parts=20_000, mq_ablation=5_000, mq_rollout=600, mq_expert=2_000, mq_confirm=40_000,
            mq_budget=300,
            qm_expert=4_000, qm_budget=400)
QUICK = dict(mq_grid=60, qm_grid=60, mq_again=60, qm_again=60, again_experiment=20, mq_ladder=100, qm_ladder=100, experiment=20, search_experiment=4,
             mq_parts=40, mq_ablation=20,
             mq_rollout=2, mq_expert=2, mq_confirm=2, mq_budget=2, qm_expert=4, qm_budget=4,
             notebooks={"mournequest-balance": "GAMES = 60", "questmaster-balance": "GAMES = 200",
                        "what-if": "GAMES = 150"})

QUICK_BUDGET = 8          # --quick: a policy_tune's evaluations

# the expert's budget curves: budgets (MourneQuest's default is 0.5, Quest
# Master's 1) and, for MourneQuest, the cells (levels x player counts) they
# are measured in
BUDGETS = (0.5, 1, 2, 4, 8)
MQ_BUDGET_CELLS = ("medium,hard", "4,1")
# the expert ladder's cells that its two seeds leave open (the planner wins
# 94.5-95%, the expert's edge under a point), played again on a third seed
# with twenty times the games
MQ_CONFIRM_CELLS = "easy:2,medium:1"
MQ_CONFIRM_SEED = 3
QM_BUDGETS = (0.5, 1, 2, 4)
QM_BUDGET_PLAYERS = "2,4,6"

# Quest Master's ladder: seat 1 played by each (the v2 players are the same
# policies with their later parts off, so old and new stand side by side)
QM_LADDER = ("random", "greedy_v2", "greedy", "planner_v2", "planner")

# the standard-report grids: name -> (package, count key, the grid's cells, seed); each is played
# again on an independent seed (``-again``) with as many games, so that every headline finding of
# the study is measured twice, with the same power, before it is published (experiments.replication)
GRID_SEED = 1             # batch.run_grid's default seed, given explicitly
AGAIN_SEED = 2
_MQ_CELLS = dict(levels=("easy", "medium", "hard"), players=(1, 2, 3, 4), policies=("greedy", "planner"))
_QM_CELLS = dict(players=(2, 3, 4, 5, 6), tables=(("greedy",), ("planner",)))
GRIDS = {"mq-grid": ("mournesim", "mq_grid", _MQ_CELLS, GRID_SEED),
         "qm-grid": ("questsim", "qm_grid", _QM_CELLS, GRID_SEED),
         "mq-grid-again": ("mournesim", "mq_again", _MQ_CELLS, AGAIN_SEED),
         "qm-grid-again": ("questsim", "qm_again", _QM_CELLS, AGAIN_SEED)}
# the experiments whose findings the study leads with, played again on the independent seed
# (into experiments/results/<name>-again) with ``again_experiment`` games per cell and arm (None:
# as many as the study plays them with)
AGAIN_EXPERIMENTS = ("mq-readings", "rules-sensitivity", "two-combat-dice")
NOTEBOOK_SEED = 1
NOTEBOOK_GAMES = "as in the notebook"      # a full run leaves each notebook's own parameters
NOTEBOOK_PACKAGES = {"mournequest-balance": "mournesim", "what-if": "mournesim"}   # the others: questsim
# the folders of the repository that hold the published study (a --root may not lie inside them)
PUBLISHED = ("experiments", "docs", "notebooks")


def _grid_policies(kw) -> list:
    """The policies of a grid's cells, as its manifest entry records them."""
    return sorted(kw["policies"]) if "policies" in kw else sorted({"+".join(t) for t in kw["tables"]})


def _ladders(n) -> dict:
    """The ladders at counts ``n``: artefact -> what makes it (script and
    arguments for the MourneQuest ones) and what defines it (games, seed,
    policies and, in ``sidecar``, further values its JSON sidecar records)."""
    mq, qm = "docs/mournequest/examples/", "docs/questmaster/examples/"
    mq_budget = ",".join(["planner"] + [f"expert@{b}" for b in BUDGETS])
    qm_budget = ",".join(["planner"] + [f"expert@{b}" for b in QM_BUDGETS])
    return {
        "experiments/results/mq-ladder/ladder.csv": dict(
            package="mournesim", script=mq + "ladder.py", games=n["mq_ladder"], seed=1,   # the script's default seed
            policies="random,greedy,planner", sidecar={},
            args=["--games", str(n["mq_ladder"]), "--policies", "random,greedy,planner"]),
        "experiments/results/mq-rollout/ladder.csv": dict(
            package="mournesim", script=mq + "ladder.py", games=n["mq_rollout"], seed=1, policies="planner,rollout",
            sidecar=dict(search_games=n["mq_rollout"]),
            args=["--games", str(n["mq_rollout"]), "--search-games", str(n["mq_rollout"]), "--players", "4",
                  "--policies", "planner,rollout"]),
        "experiments/results/mq-expert/ladder.csv": dict(
            package="mournesim", script=mq + "ladder.py", games=n["mq_expert"], seed=1, policies="planner,expert",
            sidecar=dict(search_games=n["mq_expert"], heroes=True),
            args=["--games", str(n["mq_expert"]), "--search-games", str(n["mq_expert"]), "--players", "1,2,3,4",
                  "--policies", "planner,expert", "--heroes"]),
        "experiments/results/mq-expert/replication.csv": dict(
            package="mournesim", script=mq + "ladder.py", games=n["mq_expert"], seed=2, policies="planner,expert",
            sidecar=dict(search_games=n["mq_expert"], heroes=True),
            args=["--games", str(n["mq_expert"]), "--search-games", str(n["mq_expert"]), "--players", "1,2,3,4",
                  "--policies", "planner,expert", "--heroes", "--seed", "2"]),
        "experiments/results/mq-expert/confirm.csv": dict(
            package="mournesim", script=mq + "ladder.py", games=n["mq_confirm"], seed=MQ_CONFIRM_SEED,
            policies="planner,expert", sidecar=dict(search_games=n["mq_confirm"], cells=MQ_CONFIRM_CELLS),
            args=["--games", str(n["mq_confirm"]), "--search-games", str(n["mq_confirm"]), "--cells", MQ_CONFIRM_CELLS,
                  "--policies", "planner,expert", "--seed", str(MQ_CONFIRM_SEED)]),
        "experiments/results/mq-expert/budget.csv": dict(
            package="mournesim", script=mq + "ladder.py", games=n["mq_budget"], seed=1, policies=mq_budget,
            sidecar=dict(search_games=n["mq_budget"]),
            args=["--games", str(n["mq_budget"]), "--search-games", str(n["mq_budget"]),
                  "--levels", MQ_BUDGET_CELLS[0], "--players", MQ_BUDGET_CELLS[1], "--policies", mq_budget]),
        "experiments/results/qm-expert/ladder.csv": dict(
            package="questsim", script=qm + "qm_rollout.py", games=n["qm_expert"], seed=21, policies="planner,expert",
            sidecar=dict(characters=True), args=["--games", str(n["qm_expert"]), "--players", "2,3,4,5,6",
                                                 "--policies", "planner,expert", "--seed", "21", "--characters"]),
        "experiments/results/qm-expert/replication.csv": dict(
            package="questsim", script=qm + "qm_rollout.py", games=n["qm_expert"], seed=22, policies="planner,expert",
            sidecar=dict(characters=True), args=["--games", str(n["qm_expert"]), "--players", "2,3,4,5,6",
                                                 "--policies", "planner,expert", "--seed", "22", "--characters"]),
        "experiments/results/qm-expert/budget.csv": dict(
            package="questsim", script=qm + "qm_rollout.py", games=n["qm_budget"], seed=21, policies=qm_budget,
            sidecar={}, args=["--games", str(n["qm_budget"]), "--players", QM_BUDGET_PLAYERS, "--policies", qm_budget,
                              "--seed", "21"]),
        "experiments/results/mq-planner/planner-parts.csv": dict(
            package="mournesim", script=mq + "planner_parts.py", games=n["mq_parts"], seed=15,
            policies="planner arms, greedy, greedy v2", sidecar=dict(ablation_games=n["mq_ablation"]),
            args=["--games", str(n["mq_parts"]), "--ablation-games", str(n["mq_ablation"]), "--seed", "15", "--quiet"]),
        "experiments/results/qm-ladder/ladder.csv": dict(
            package="questsim", games=n["qm_ladder"], seed=11, sidecar={},
            policies=f"{'/'.join(QM_LADDER)} in seat 1, greedy elsewhere"),
    }


def _experiment_games(n, exp):
    """Games per cell and arm of experiment ``exp`` at counts ``n`` (None:
    the file's own); one played by a search policy gets the smaller count."""
    search = str(exp.base.get("policy", "")) in ("rollout", "expert")
    return n["search_experiment" if search else "experiment"]


def _again_games(n, exp):
    """Games per cell and arm of experiment ``exp`` played again on the
    independent seed (None: the file's own, as the study plays it)."""
    return n["again_experiment"] or _experiment_games(n, exp)


def _experiment_files() -> list:
    """Every shipped experiment file with its loaded description."""
    from simcore import experiment as ex
    return [(f, ex.load(f)) for f in sorted((ROOT / "experiments").glob("*.toml"))]


def _study(n, experiments) -> dict:
    """What the study at counts ``n`` makes: every artefact of every step
    (the manifest's keys) -> the games per cell, seed and policies that
    define it (``sidecar``: more values a ladder's JSON sidecar records)."""
    out = {}
    for name, (_pkg, key, kw, seed) in GRIDS.items():
        out[f"experiments/results/{name}/report.md"] = dict(games=n[key], seed=seed, policies=_grid_policies(kw))
    for rel, spec in _ladders(n).items():
        out[rel] = {k: spec[k] for k in ("games", "seed", "policies", "sidecar")}
    for f, exp in experiments:
        out[f"experiments/results/{f.stem}/report.md"] = dict(
            games=_experiment_games(n, exp) or exp.games, seed=exp.seed, policies=str(exp.base.get("policy", "default")))
        if f.stem in AGAIN_EXPERIMENTS:
            out[f"experiments/results/{f.stem}-again/report.md"] = dict(
                games=_again_games(n, exp) or exp.games, seed=AGAIN_SEED,
                policies=str(exp.base.get("policy", "default")))
    small = n["notebooks"] or {}
    for src in sorted((ROOT / "notebooks").glob("*.ipynb")):
        out[f"notebooks/{src.name}"] = dict(games=small.get(src.stem, NOTEBOOK_GAMES), seed=NOTEBOOK_SEED,
                                            policies="as in the notebook")
    return out


class Manifest:
    """``experiments/results/published.json`` of a root: artefact -> its
    stamp. Written atomically; an artefact about to be rewritten is marked
    ``pending`` first and gets its new stamp only after all its files."""

    def __init__(self, root: Path):
        self.path = Path(root) / MANIFEST
        self.entries = read_manifest(self.path) if self.path.exists() else {}

    def save(self):
        from simcore import atomic
        atomic.make_dir(self.path.parent)
        atomic.write_text(self.path, json.dumps(self.entries, indent=1, sort_keys=True) + "\n")

    def begin(self, rel):
        """``rel`` is about to be rewritten: its old stamp no longer holds."""
        st = self.entries.get(rel)
        if st is not None and not st.get("pending"):
            self.entries[rel] = dict(st, pending=True)
            self.save()

    def done(self, rel, stamp):
        """Every file of ``rel`` is written: record what made it."""
        self.entries[rel] = {k: v for k, v in stamp.items() if k != "pending"}
        self.save()

    def update(self, entries: dict):
        if any(self.entries.get(k) != v for k, v in entries.items()):
            for k, v in entries.items():
                self.entries[k] = {x: y for x, y in v.items() if x != "pending"}
            self.save()


def read_manifest(path) -> dict:
    """A manifest's entries; an unreadable one is one InputError line."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        from simcore.atomic import cause
        raise InputError(f"{path}: cannot read ({cause(e)})") from None
    except ValueError as e:
        raise InputError(f"{path}: not a publish manifest (not valid JSON: {e})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError(f"{path}: not a publish manifest (expected an object of artefact stamps)")
    return data


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


def _header(stamp) -> str:
    return (f"> Made by {stamp['engine']} behaviour v{stamp['behaviour_version']} (sources "
            f"{stamp['engine_hash']}), ruleset {stamp['ruleset_hash']}, seed {stamp.get('seed')}, "
            f"policies {stamp.get('policies')}, {stamp.get('games'):,} games per cell; regenerate with "
            f"`python -m experiments.publish`.\n")


def _grid(ctx, name):
    """Play (or finish) one standard-report grid into ``<name>/data``; write
    ``report.md``, its tables, the plots and ``index.html``, then its stamp.
    Returns the manifest entry."""
    from importlib import import_module
    from simcore import atomic, identity, store
    from simcore.html_report import tables_page
    from simcore.report import render
    package, key, kw, seed = GRIDS[name]
    games = ctx.n[key]
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
        rel = f"experiments/results/{name}/report.md"
        ctx.manifest.begin(rel)
        own.write_text("report.md", text.replace("\n", "\n\n" + _header(stamp) + "\n", 1))
        _write_tables(own, tables, "tables")
        for pol in policies:        # each policy's own tables, for the balance study's side-by-side figures
            _write_tables(own, rep.standard_report(df[df["policy"] == pol], names), f"tables/{pol}")
        pngs = plots.write_plots(df, own)
        # the same report as one page to open or mail, its plots inside
        own.write_text("index.html", tables_page(f"{title}\n{_header(stamp)}", tables,
                                                 [(p.stem, p.read_bytes()) for p in pngs], names=names))
    ctx.manifest.done(rel, stamp)       # the stamp last, after every file of the artefact
    return {rel: stamp}


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
    from simcore import experiment as ex
    from simcore import experiment_report as rep
    from simcore import game as games_by_key
    from simcore import outdir
    if ctx.quick and exp.policy_tune is not None:
        # the same search on a small budget: each evaluation starts the batch driver anew
        exp.policy_tune.budget = min(exp.policy_tune.budget, QUICK_BUDGET)
    game = ex.adapter(exp, games_by_key.get(exp.game).package)
    rel = f"experiments/results/{folder}/report.md"
    out = ctx.path(rel).parent
    command = f"{game.PROG} experiment experiments/{f.name} --out experiments/results/{folder}" + \
        (f" --games {games}" if games else "") + (f" --seed {exp.seed}" if folder != f.stem else "")
    args = (ctx.workers, ctx.cluster, sys.stderr.isatty(), games, command)
    with outdir.owned(out, PROG) as own:
        data = own.datasets("data")          # the arms' games (not committed)
        if ctx.again and data.exists():
            shutil.rmtree(data)
        try:
            res = ex.run(exp, game, own, *args)
        except ex.InputError as e:
            if "holds games of another" not in str(e) and "cannot re-use" not in str(e):
                raise
            shutil.rmtree(data)               # another engine, ruleset or size: play again
            res = ex.run(exp, game, own, *args)
        stamp = _stamp(game.PROG, exp.base.get("ruleset"), exp.base.get("set", []), seed=exp.seed,
                       games=games or exp.games, policies=str(exp.base.get("policy", "default")),
                       command=command, **ctx.mode)
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


# ---- --check: which published artefacts are stale (plays nothing) -------------------------------------

def _games_text(g) -> str:
    return f"{g:,} games per cell" if isinstance(g, int) and not isinstance(g, bool) else f"games {g!r}"


def _said(text) -> str:
    """The games per cell a stamp line of an artefact says (for a message)."""
    m = re.search(r"([\d,]+) games per cell", text or "")
    return f"{m.group(1)} games per cell" if m else "no stamp"


def _content(root: Path, rel: str, st: dict, want: dict) -> list[str]:
    """Where an artefact carries its own stamp, the problems of it
    disagreeing with the manifest entry ``st`` (or with the study's
    ``want``): a grid's report.md and index.html ``> Made by`` line, a
    ladder's JSON sidecar, an experiment's report.md and index.html set-up
    line."""
    import html
    out = []
    path = root / rel
    if rel.endswith("report.md") and Path(rel).parent.name in GRIDS:
        try:
            header = _header(st).rstrip("\n")
        except (KeyError, TypeError, ValueError):
            return [f"{rel}: its manifest entry is incomplete; run python -m experiments.publish"]
        text = path.read_text(encoding="utf-8", errors="replace")
        line = next((x for x in text.splitlines() if x.startswith("> Made by")), "")
        if line != header:
            out.append(f"{rel}: its '> Made by' line ({_said(line)}) does not match the manifest "
                       f"({_games_text(st.get('games'))}): a run was cut short; run python -m experiments.publish")
        page = path.parent / "index.html"
        if not page.exists():
            out.append(f"{page.relative_to(root)}: missing")
        else:
            body = page.read_text(encoding="utf-8", errors="replace")
            if html.escape(header) not in body:
                m = re.search(r"&gt; Made by[^<]*", body)
                out.append(f"{page.relative_to(root)}: its '> Made by' line ({_said(m.group(0) if m else '')}) does "
                           f"not match report.md and the manifest ({_games_text(st.get('games'))}): a run was cut "
                           "short; run python -m experiments.publish")
    elif rel.endswith(".csv"):
        meta = path.with_suffix(".json")
        try:
            m = json.loads(meta.read_text(encoding="utf-8"))
            assert isinstance(m, dict)
        except (OSError, ValueError, AssertionError):
            return [f"{meta.relative_to(root)}: missing or not JSON; run python -m experiments.publish"]
        for k in ("engine", "behaviour_version", "engine_hash", "ruleset_hash", "seed", "games", "policies"):
            if k in m and m[k] != st.get(k):
                out.append(f"{meta.relative_to(root)}: says {k} {m[k]!r}, the manifest {st.get(k)!r}: a run was "
                           "cut short; run python -m experiments.publish")
        for k, v in (want or {}).get("sidecar", {}).items():
            if m.get(k) != v:
                out.append(f"{rel}: made with {k} {m.get(k)!r}, the study uses {v!r}")
    elif rel.endswith("report.md"):         # an experiment's report
        pat = re.compile(r"seed (\d+); ([\d,]+) games per cell and arm")
        text = path.read_text(encoding="utf-8", errors="replace")
        m = pat.search(text)
        if m and str(st.get("seed")) != m.group(1):
            out.append(f"{rel}: says seed {m.group(1)}, the manifest {st.get('seed')}: a run was cut short; "
                       "run python -m experiments.publish")
        page = path.parent / "index.html"
        if page.exists():
            p = pat.search(page.read_text(encoding="utf-8", errors="replace"))
            if m and p and p.group(0) != m.group(0):
                out.append(f"{page.relative_to(root)}: says {p.group(2)} games per cell, report.md "
                           f"{m.group(2)}: a run was cut short; run python -m experiments.publish")
    return out


def stale(root=ROOT, rulesets=None) -> list[str]:
    """Published artefacts that are not what the current study makes (plays
    nothing): each artefact of the study is compared, through its manifest
    entry, with the installed engine's behaviour version, the current
    ruleset, and the games per cell, seed and policies of the full study
    (``FULL`` and the steps' own seeds and policies; in a root other than
    the repository, a ``--quick`` artefact with ``QUICK``); an entry whose
    step was cut short while rewriting it, and an artefact whose own stamp
    disagrees with its entry, are stale too."""
    from importlib import import_module
    from simcore import identity
    rulesets = rulesets or {}
    root = Path(root).resolve()
    f = root / MANIFEST
    if not f.exists():
        return [f"{MANIFEST}: missing; run python -m experiments.publish"]
    try:
        manifest = read_manifest(f)
    except InputError as e:
        return [str(e)]
    experiments = _experiment_files()
    full, quick = _study(FULL, experiments), _study(QUICK, experiments)
    in_repo = root == ROOT
    engines, hashes, out = {}, {}, []
    for path in sorted(set(full) | set(manifest)):
        st = manifest.get(path)
        if st is None:
            out.append(f"{path}: not in the manifest; run python -m experiments.publish")
            continue
        if st.get("pending"):
            out.append(f"{path}: its step was cut short while rewriting it (the stamp is from before); "
                       "run python -m experiments.publish")
            continue
        if not (root / path).exists():
            out.append(f"{path}: listed but missing")
            continue
        pkg = st.get("engine")
        if pkg not in engines:
            try:
                engines[pkg] = identity.engine(pkg)
            except (ImportError, TypeError, ValueError):
                engines[pkg] = None
        now = engines[pkg]
        if now is None:
            out.append(f"{path}: made by engine {pkg!r}, which is not installed")
            continue
        if st.get("behaviour_version") != now["behaviour_version"]:
            out.append(f"{path}: made by {pkg} behaviour v{st.get('behaviour_version')}, "
                       f"the engine is v{now['behaviour_version']}")
            continue
        key = (pkg, rulesets.get(pkg, st.get("ruleset")), tuple(st.get("overrides", ())))
        if key not in hashes:
            try:
                hashes[key] = import_module(f"{pkg}.sim").prepare(key[1], key[2]).hash
            except InputError as e:
                hashes[key] = f"unreadable ({str(e).splitlines()[0]})"
        h = hashes[key]
        if h != st.get("ruleset_hash"):
            out.append(f"{path}: made with ruleset {st.get('ruleset_hash')}, the ruleset is now {h}")
        is_quick = bool(st.get("quick")) and not in_repo      # the repository holds the full study only
        want = (quick if is_quick else full).get(path)
        study = "the --quick study" if is_quick else "the study"
        if want is not None:
            note = " (a --quick run)" if st.get("quick") and not is_quick else ""
            if st.get("games") != want["games"]:
                out.append(f"{path}: made with {_games_text(st.get('games'))}{note}, {study} uses "
                           f"{_games_text(want['games'])}")
            for k in ("seed", "policies"):
                if st.get(k) != want[k]:
                    out.append(f"{path}: made with {k} {st.get(k)!r}{note}, {study} uses {want[k]!r}")
        out += _content(root, path, st, want)
    return out


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
