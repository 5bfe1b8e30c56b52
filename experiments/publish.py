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
  ``mq-rollout``, rollout against the planner; ``mq-planner``, the planner
  against its v3 and v2 defaults and without each part; and
  ``experiments/results/qm-ladder``, the mixed tables: seat 1 played by
  each policy against greedy seats, 2-6 players);
- ``experiments``: every shipped experiment file (``experiments/*.toml``) into
  ``experiments/results/<name>/``;
- ``notebooks``: the three notebooks, executed in place;
- ``tables``: every generated block of the docs (``experiments.tables``),
  which the balance study (``docs/*/balance.md``) and the other docs read.

Every step records what made each artefact in ``experiments/results/
published.json``: engine, behaviour version, source hash, ruleset hash, seed,
policies and games. ``--check`` compares that with the installed engine and
the current rulesets and lists every artefact whose behaviour version or
ruleset no longer matches (exit 1), without playing a game. A refactor that
keeps every game identical keeps the behaviour version, so it leaves nothing
stale.

Resumable: games land on disk batch by batch (``data/`` directories, not
committed), and a step whose artefacts are already current for the same
settings is skipped; after Ctrl-C the same command goes on where it stopped.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = "experiments/results/published.json"
FULL = dict(mq_grid=50_000, qm_grid=50_000, mq_ladder=100_000, qm_ladder=100_000, experiment=None,
            notebooks=None, mq_parts=20_000, mq_ablation=5_000, mq_rollout=600)
QUICK = dict(mq_grid=60, qm_grid=60, mq_ladder=100, qm_ladder=100, experiment=20, mq_parts=40, mq_ablation=20,
             mq_rollout=2,
             notebooks={"mournequest-balance": "GAMES = 60", "questmaster-balance": "GAMES = 200",
                        "what-if": "GAMES = 150"})

QUICK_BUDGET = 8          # --quick: a policy_tune's evaluations

# Quest Master's ladder: seat 1 played by each (the v2 players are the same
# policies with their issue-15 parts off, so old and new stand side by side)
QM_LADDER = ("random", "greedy_v2", "greedy", "planner_v2", "planner")


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

    def path(self, rel) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
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


def _grid(ctx, package, name, games, **kw):
    """Play (or finish) one standard-report grid into ``<name>/data``; write
    ``report.md`` and the plots. Returns the manifest entry."""
    from importlib import import_module
    from simcore import store
    from simcore.errors import InputError
    from simcore.report import render
    grid = import_module(f"{package}.batch")
    rep = import_module(f"{package}.report")
    plots = import_module(f"{package}.plots")
    out = ctx.path(f"experiments/results/{name}/data")
    ruleset = ctx.rulesets.get(package)
    if ctx.again and out.exists():
        shutil.rmtree(out)
    if (out / store.RUN_FILE).exists():
        run = store.read_run(out)
        stale = run.get("games") != games or run.get("ruleset") != (str(ruleset) if ruleset else None)
        try:
            from simcore import identity
            identity.check_same(run, package, out)
        except InputError:
            stale = True
        if stale or _rules_changed(run, package):
            shutil.rmtree(out)
        elif not run.get("complete"):
            grid.resume(out, ctx.workers, ctx.cluster, _bar(name))
    if not (out / store.RUN_FILE).exists():
        grid.run_grid(games=games, out=out, workers=ctx.workers, cluster=ctx.cluster, progress=_bar(name),
                      ruleset=ruleset, command=f"python -m experiments.publish ({name})", **kw)
    run = store.read_run(out)
    df = store.read_dataset(out)
    policies = sorted({c["policy"] for c in run["cells"]})
    stamp = _stamp(package, ruleset, seed=run["seed"], games=games, policies=policies)
    title = f"{name}: the standard balance report"
    tables = rep.standard_report(df)
    text = render(tables, "markdown", title)
    report = ctx.path(f"experiments/results/{name}/report.md")
    report.write_text(text.replace("\n", "\n\n" + _header(stamp) + "\n", 1))
    _write_tables(tables, report.parent / "tables")
    for pol in policies:            # each policy's own tables, for the balance study's side-by-side figures
        _write_tables(rep.standard_report(df[df["policy"] == pol]), report.parent / "tables" / pol)
    pngs = plots.write_plots(df, report.parent)
    # the same report as one page to open or mail, its plots inside
    from simcore import atomic
    from simcore.html_report import tables_page
    page = tables_page(f"{title}\n{_header(stamp)}", tables, [(p.stem, p.read_bytes()) for p in pngs])
    atomic.write_text(report.parent / "index.html", page)
    return {f"experiments/results/{name}/report.md": stamp}


def slug(title: str) -> str:
    """A report table's file name: its title's words up to the first
    bracket, lower case, joined by hyphens."""
    import re
    return "-".join(re.findall(r"[a-z0-9]+", title.split("(")[0].lower()))


def _write_tables(tables: dict, out: Path) -> None:
    """Each table of a report as ``out/<slug>.csv``, so the docs' generated
    blocks (experiments.tables) read the figures, never retype them."""
    from simcore import atomic
    out.mkdir(parents=True, exist_ok=True)
    for title, t in tables.items():
        atomic.write_text(out / f"{slug(title)}.csv", t.to_csv(index=False))


def _rules_changed(run, package):
    from importlib import import_module
    sim = import_module(f"{package}.sim")
    return sim.prepare(run.get("ruleset"), tuple(run.get("overrides", ()))).hash != run.get("ruleset_hash")


def _bar(name):
    from tqdm import tqdm
    return tqdm(total=0, unit="game", unit_scale=True, desc=name, file=sys.stderr, dynamic_ncols=True,
                disable=None)


def step_mq_grid(ctx):
    return _grid(ctx, "mournesim", "mq-grid", ctx.n["mq_grid"], levels=("easy", "medium", "hard"),
                 players=(1, 2, 3, 4), policies=("greedy", "planner"))


def step_qm_grid(ctx):
    return _grid(ctx, "questsim", "qm-grid", ctx.n["qm_grid"], players=(2, 3, 4, 5, 6),
                 tables=(("greedy",), ("planner",)))


def step_ladders(ctx):
    """The skill ladders: MourneQuest (random/greedy/planner x level x 4p and
    solo; rollout against the planner with four players; the planner against
    its earlier versions and without each of its parts) and Quest Master
    (seat 1 played by each policy, the others by greedy, at 2-6 players)."""
    n = ctx.n
    entries = {}
    entries.update(_mq_script(ctx, "mq-ladder/ladder.csv", "docs/mournequest/examples/ladder.py", n["mq_ladder"],
                              ["--games", str(n["mq_ladder"]), "--policies", "random,greedy,planner"],
                              "random,greedy,planner"))
    entries.update(_mq_script(ctx, "mq-rollout/ladder.csv", "docs/mournequest/examples/ladder.py", n["mq_rollout"],
                              ["--games", str(n["mq_rollout"]), "--search-games", str(n["mq_rollout"]),
                               "--players", "4", "--policies", "planner,rollout"], "planner,rollout"))
    entries.update(_mq_script(ctx, "mq-planner/planner-parts.csv", "docs/mournequest/examples/planner_parts.py",
                              n["mq_parts"],
                              ["--games", str(n["mq_parts"]), "--ablation-games", str(n["mq_ablation"]),
                               "--seed", "15", "--quiet"], "planner arms, greedy, greedy v2"))
    entries.update(_qm_ladder(ctx))
    return entries


def _mq_script(ctx, rel, script, games, args, policies):
    """Run one of the MourneQuest example scripts into
    ``experiments/results/<rel>`` unless its stamp says it is current."""
    import subprocess
    out = ctx.path(f"experiments/results/{rel}")
    ruleset = ctx.rulesets.get("mournesim")
    meta = out.with_suffix(".json")
    if not _current(ctx, meta, "mournesim", games, ruleset):
        cmd = [sys.executable, str(ROOT / script)] + args + ["--out", str(out)] + \
            (["--ruleset", ruleset] if ruleset else [])
        if ctx.workers:
            cmd += ["--workers", str(ctx.workers)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        m = json.loads(meta.read_text())       # the command as a reader runs it, from the repository
        m["command"] = " ".join(["python", script] + [x for x in args if x != "--quiet"] +
                                ["--out", f"experiments/results/{rel}"])
        meta.write_text(json.dumps(m, indent=1) + "\n")
    stamp = json.loads(meta.read_text())
    return {f"experiments/results/{rel}": _stamp("mournesim", ruleset, seed=stamp["seed"], games=games,
                                                 policies=policies)}


def _current(ctx, meta: Path, package, games, ruleset):
    """A ladder's sidecar says it was made by this engine, ruleset and size."""
    if ctx.again or not meta.exists():
        return False
    m = json.loads(meta.read_text())
    if m.get("ruleset") != (str(ruleset) if ruleset else None):
        return False
    from importlib import import_module
    from simcore import identity
    return (m.get("behaviour_version") == identity.engine(package)["behaviour_version"] and m.get("games") == games
            and m.get("ruleset_hash") == import_module(f"{package}.sim").prepare(m.get("ruleset")).hash)


def _qm_ladder(ctx):
    import pandas as pd
    from questsim import batch
    from simcore.report import with_interval
    games = ctx.n["qm_ladder"]
    out = ctx.path("experiments/results/qm-ladder/ladder.csv")
    meta = out.with_suffix(".json")
    ruleset = ctx.rulesets.get("questsim")
    if not _current(ctx, meta, "questsim", games, ruleset):
        rows = []
        for p in (2, 3, 4, 5, 6):
            tables = tuple((pol,) + ("greedy",) * (p - 1) for pol in QM_LADDER)
            t0 = time.perf_counter()
            df, _ = batch.run_grid(games=games, seed=11, players=(p,), tables=tables, ruleset=ruleset,
                                   workers=ctx.workers, cluster=ctx.cluster, progress=_bar(f"qm-ladder {p}p"))
            dt = time.perf_counter() - t0
            for pol, g in df.groupby("policy", observed=True):
                rows.append(dict(policy=pol.split("+")[0], players=p, games=len(g),
                                 wins=int((g["winner_seat"] == 0).sum()), fair_share=1 / p,
                                 seconds=dt / len(tables)))
        t = with_interval(pd.DataFrame(rows))
        t.to_csv(out, index=False)
        meta.write_text(json.dumps(_stamp("questsim", ruleset, seed=11, games=games,
                                          policies=f"{'/'.join(QM_LADDER)} in seat 1, greedy elsewhere",
                                          command="python -m experiments.publish --only ladders"), indent=1) + "\n")
    return {"experiments/results/qm-ladder/ladder.csv": json.loads(meta.read_text())}


def step_experiments(ctx):
    """Every shipped experiment file, into ``experiments/results/<name>``."""
    from simcore import experiment as ex
    from simcore import experiment_report as rep
    from simcore import game as games_by_key
    entries = {}
    for f in sorted((ROOT / "experiments").glob("*.toml")):
        exp = ex.load(f)
        if ctx.quick and exp.policy_tune is not None:
            # the same search on a small budget: each evaluation starts the batch driver anew
            exp.policy_tune.budget = min(exp.policy_tune.budget, QUICK_BUDGET)
        game = ex.adapter(exp, games_by_key.get(exp.game).package)
        out = ctx.path(f"experiments/results/{f.stem}/report.md").parent
        games = ctx.n["experiment"]
        command = f"{game.PROG} experiment experiments/{f.name} --out experiments/results/{f.stem}" + \
            (f" --games {games}" if games else "")
        if ctx.again and (out / "data").exists():
            shutil.rmtree(out / "data")
        try:
            res = ex.run(exp, game, out, ctx.workers, ctx.cluster, sys.stderr.isatty(), games, command)
        except ex.InputError as e:
            if "holds games of another" not in str(e) and "cannot re-use" not in str(e):
                raise
            shutil.rmtree(out / "data")          # another engine, ruleset or size: play again
            res = ex.run(exp, game, out, ctx.workers, ctx.cluster, sys.stderr.isatty(), games, command)
        rep.write(res, game, out, command)
        package = game.PROG
        entries[f"experiments/results/{f.stem}/report.md"] = _stamp(
            package, exp.base.get("ruleset"), exp.base.get("set", []), seed=exp.seed,
            games=games or exp.games, policies=str(exp.base.get("policy", "default")), command=command)
    return entries


def step_notebooks(ctx):
    """Execute each notebook in place (its own parameters, or small ones)."""
    import nbformat
    from nbclient import NotebookClient
    entries = {}
    small = ctx.n["notebooks"] or {}
    for src in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(src, as_version=4)
        if src.stem in small:
            i = next(k for k, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
            nb.cells.insert(i + 1, nbformat.v4.new_code_cell(small[src.stem] + "\nWORKERS = 1"))
        NotebookClient(nb, timeout=7200, kernel_name="python3",
                       resources={"metadata": {"path": str(ctx.path("notebooks/x").parent)}}).execute()
        dst = ctx.path(f"notebooks/{src.name}")
        tmp = dst.with_suffix(".tmp")
        nbformat.write(nb, tmp)
        tmp.replace(dst)
        package = "mournesim" if src.stem in ("mournequest-balance", "what-if") else "questsim"
        entries[f"notebooks/{src.name}"] = _stamp(package, None, seed=1, games=small.get(src.stem, "as in the notebook"),
                                                  policies="as in the notebook")
    return entries


def step_tables(ctx):
    """Rewrite the generated blocks of the docs from the artefacts."""
    from experiments import tables
    tables.main(["--root", str(ctx.root)])
    return {}


STEPS = {"mq-grid": step_mq_grid, "qm-grid": step_qm_grid, "ladders": step_ladders,
         "experiments": step_experiments, "notebooks": step_notebooks, "tables": step_tables}


def stale(root=ROOT, rulesets=None) -> list[str]:
    """Published artefacts whose engine behaviour version or ruleset no longer
    matches the installed engine and the current rulesets (plays nothing)."""
    from importlib import import_module
    from simcore import identity
    rulesets = rulesets or {}
    f = Path(root) / MANIFEST
    if not f.exists():
        return [f"{MANIFEST}: missing; run python -m experiments.publish"]
    out = []
    for path, st in sorted(json.loads(f.read_text()).items()):
        pkg = st.get("engine")
        now = identity.engine(pkg)
        if st.get("behaviour_version") != now["behaviour_version"]:
            out.append(f"{path}: made by {pkg} behaviour v{st.get('behaviour_version')}, "
                       f"the engine is v{now['behaviour_version']}")
            continue
        sim = import_module(f"{pkg}.sim")
        h = sim.prepare(rulesets.get(pkg, st.get("ruleset")), tuple(st.get("overrides", ()))).hash
        if h != st.get("ruleset_hash"):
            out.append(f"{path}: made with ruleset {st.get('ruleset_hash')}, the ruleset is now {h}")
        if not (Path(root) / path).exists():
            out.append(f"{path}: listed but missing")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.publish", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="list stale published artefacts; play nothing")
    ap.add_argument("--quick", action="store_true", help="the same pipeline on small game counts")
    ap.add_argument("--root", type=Path, default=None,
                    help="write here instead of the repository (required with --quick)")
    ap.add_argument("--only", default=None, help=f"comma list of steps ({', '.join(STEPS)})")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--cluster", default=None)
    ap.add_argument("--again", action="store_true",
                    help="play every step again, even where its artefacts are current (a full regeneration)")
    ap.add_argument("--ruleset", action="append", default=[], metavar="PACKAGE=FILE",
                    help="publish with another ruleset file for a game (e.g. mournesim=my.toml)")
    a = ap.parse_args(argv)
    rulesets = dict(x.split("=", 1) for x in a.ruleset)
    root = (a.root or ROOT).resolve()
    if a.check:
        problems = stale(root, rulesets)
        for p in problems:
            print(p)
        print(f"{len(problems)} stale published artefact(s)" if problems else "every published artefact is current")
        return 1 if problems else 0
    if a.quick and a.root is None:
        ap.error("--quick needs --root DIR (it must not overwrite the published artefacts)")
    if root != ROOT:
        for d in ("docs", "notebooks", "experiments"):
            if not (root / d).exists():
                shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("data", "__pycache__"))
    ctx = Ctx(root, QUICK if a.quick else FULL, a.workers, a.cluster, a.quick, rulesets, a.again)
    names = list(STEPS) if not a.only else [s.strip() for s in a.only.split(",")]
    bad = [n for n in names if n not in STEPS]
    if bad:
        ap.error(f"--only {bad[0]}: no such step ({', '.join(STEPS)})")
    man = root / MANIFEST
    manifest = json.loads(man.read_text()) if man.exists() else {}
    t0 = time.perf_counter()
    for name in names:
        t = time.perf_counter()
        print(f"publish: {name} ...", file=sys.stderr, flush=True)
        manifest.update(STEPS[name](ctx))
        man.parent.mkdir(parents=True, exist_ok=True)
        man.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        print(f"publish: {name} done in {time.perf_counter() - t:.0f}s", file=sys.stderr, flush=True)
    print(f"publish: {len(names)} step(s) in {time.perf_counter() - t0:.0f}s; manifest {man}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
