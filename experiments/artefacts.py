"""What the published study is made of: every artefact, the game counts,
seeds, cells and policies that define it (``FULL`` for the study, ``QUICK``
for ``--quick``), and what makes each ladder. ``experiments.publish`` plays
them; ``experiments.manifest`` checks the published ones against them."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = "experiments/results/published.json"
FULL = dict(mq_grid=50_000, qm_grid=50_000, mq_again=50_000, qm_again=50_000, again_experiment=None, mq_ladder=100_000, qm_ladder=100_000, experiment=None, search_experiment=None,
            notebooks=None, mq_parts=20_000, mq_ablation=5_000, mq_rollout=600, mq_expert=2_000, mq_confirm=40_000,
            mq_budget=300,
            qm_expert=4_000, qm_budget=400, budget_steps=None)
QUICK = dict(mq_grid=60, qm_grid=60, mq_again=60, qm_again=60, again_experiment=20, mq_ladder=100, qm_ladder=100, experiment=20, search_experiment=4,
             mq_parts=40, mq_ablation=20,
             mq_rollout=2, mq_expert=2, mq_confirm=2, mq_budget=2, qm_expert=4, qm_budget=4, budget_steps=2,
             notebooks={"mournequest-balance": "GAMES = 60", "questmaster-balance": "GAMES = 200",
                        "what-if": "GAMES = 150"})

QUICK_BUDGET = 4          # --quick: a policy_tune's evaluations
# ``budget_steps``: how many of a budget curve's budgets are played (None:
# all); --quick plays the first two, the pipeline is the same and the larger
# budgets cost most of its time

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
QM_BUDGETS = (0.5, 1, 2, 4, 8)
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
AGAIN_EXPERIMENTS = ("mq-readings", "rules-sensitivity", "two-combat-dice", "disc-lengths-by-players",
                     "disc-quarter-clicks-skilled")
NOTEBOOK_SEED = 1
NOTEBOOK_GAMES = "as in the notebook"      # a full run leaves each notebook's own parameters
NOTEBOOK_PACKAGES = {"mournequest-balance": "mournesim", "what-if": "mournesim"}   # the others: questsim


def _grid_policies(kw) -> list:
    """The policies of a grid's cells, as its manifest entry records them."""
    return sorted(kw["policies"]) if "policies" in kw else sorted({"+".join(t) for t in kw["tables"]})


def _ladders(n) -> dict:
    """The ladders at counts ``n``: artefact -> what makes it (script and
    arguments for the MourneQuest ones) and what defines it (games, seed,
    policies and, in ``sidecar``, further values its JSON sidecar records)."""
    mq, qm = "docs/mournequest/examples/", "docs/questmaster/examples/"
    steps = n["budget_steps"]
    mq_budget = ",".join(["planner"] + [f"expert@{b}" for b in BUDGETS[:steps]])
    qm_budget = ",".join(["planner"] + [f"expert@{b}" for b in QM_BUDGETS[:steps]])
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


def _searches(exp) -> bool:
    """Whether experiment ``exp`` is played by a search policy (slow: it gets the smaller counts)."""
    return str(exp.base.get("policy", "")) in ("rollout", "expert")


def _experiment_games(n, exp):
    """Games per cell and arm of experiment ``exp`` at counts ``n`` (None:
    the file's own); one played by a search policy gets the smaller count."""
    return n["search_experiment" if _searches(exp) else "experiment"]


def _again_games(n, exp):
    """Games per cell and arm of experiment ``exp`` played again on the
    independent seed (None: the file's own, as the study plays it); one
    played by a search policy gets the smaller count, as on the first seed."""
    return _experiment_games(n, exp) if _searches(exp) else n["again_experiment"] or _experiment_games(n, exp)


def _experiment_files() -> list:
    """Every shipped experiment file with its loaded description."""
    from simcore import experiment as ex
    return [(f, ex.load(f)) for f in sorted((ROOT / "experiments").glob("*.toml"))]


def experiment_spec(f) -> str:
    """A digest of experiment file ``f``'s settings (the parsed TOML, so
    comments and layout are left out): a changed arm, cell, count or seed
    makes its artefacts stale, a reworded comment does not."""
    import hashlib
    import json
    import tomllib
    data = tomllib.loads(Path(f).read_text(encoding="utf-8"))
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


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
        spec = experiment_spec(f)
        out[f"experiments/results/{f.stem}/report.md"] = dict(
            games=_experiment_games(n, exp) or exp.games, seed=exp.seed, policies=str(exp.base.get("policy", "default")),
            spec=spec)
        if f.stem in AGAIN_EXPERIMENTS:
            out[f"experiments/results/{f.stem}-again/report.md"] = dict(
                games=_again_games(n, exp) or exp.games, seed=AGAIN_SEED,
                policies=str(exp.base.get("policy", "default")), spec=spec)
    small = n["notebooks"] or {}
    for src in sorted((ROOT / "notebooks").glob("*.ipynb")):
        out[f"notebooks/{src.name}"] = dict(games=small.get(src.stem, NOTEBOOK_GAMES), seed=NOTEBOOK_SEED,
                                            policies="as in the notebook")
    return out
