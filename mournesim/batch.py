"""MourneQuest grid runs: the product of levels × player counts × policies,
played in batches by the shared driver (simcore.batch) on every core or a
Dask cluster, into memory or a Parquet dataset (docs/common/results.md).

    >>> from mournesim import batch
    >>> df, cells = batch.run_grid(games=2000, levels=("easy", "hard"), players=(1, 4))
"""
from __future__ import annotations

import sys
from pathlib import Path

from simcore import batch as driver
from simcore import identity, store
from simcore.errors import InputError
from simcore.rulesets import record_path, resume_rules
from . import __version__, plugins
from .ruleset import normalise_level
from .sim import Config, Rules, prepare, replay as replay_game, run_games, to_frame

LEVELS = ("easy", "medium", "hard")
HEURISTIC = ("random", "greedy", "planner")   # what ``--policy all`` means
DEFAULT_BATCH = 10_000


def parse_list(text, kind):
    """``"a,b"`` or ``"all"`` → tuple of values for ``--level/--players/--policy``."""
    text = str(text).strip().lower()
    if kind == "level":
        try:
            vals = LEVELS if text == "all" else tuple(dict.fromkeys(normalise_level(x.strip()) for x in text.split(",")))
        except InputError as e:
            raise InputError(f"--level: {e}") from None
    elif kind == "players":
        if text == "all":
            return (1, 2, 3, 4)
        try:
            vals = tuple(dict.fromkeys(int(x) for x in text.split(",")))
        except ValueError:
            raise InputError(f"--players {text!r}: expected 1-4, a comma list like 1,4, or all") from None
        bad = [p for p in vals if not 1 <= p <= 4]
        if bad:
            raise InputError(f"--players {bad[0]}: MourneQuest takes 1 to 4 players")
    else:
        vals = HEURISTIC if text == "all" else tuple(dict.fromkeys(x.strip() for x in text.split(",")))
        for v in vals:
            plugins.get(v)   # unknown policy: bad input
    if not vals or "" in vals:
        raise InputError(f"--{kind}: empty value")
    return vals


def plugin_specs():
    """Files/modules the workers must load to know the registered plug-ins
    (the shipped rollout policy registers itself)."""
    return tuple(sorted({p.source if Path(p.source).is_file() else p.module
                         for p in plugins.policies() if p.builtin_id < 0 and p.name != "rollout"}))


def play_batch(payload, seed, first, n):
    """Worker entry point: games ``first .. first+n-1`` of one cell as rows."""
    rules, cfg, specs = payload
    for spec in specs:
        plugins.load_plugin(spec)
    return to_frame(run_games(rules, cfg, seed, first, n), rules, cfg, seed, first)


def _replay(kw, specs):
    """Child-process entry point: ``sim.replay(**kw)`` after loading the plug-ins."""
    for spec in specs:
        plugins.load_plugin(spec)
    return replay_game(**kw)


def replay(**kw):
    """``sim.replay(**kw)``; the game of a plug-in policy (user code that may
    never return) is played in a child process, so Ctrl-C stops it at once."""
    if plugins.get(kw.get("policy", "greedy")).builtin_id >= 0:
        return replay_game(**kw)
    return driver.call_in_child(_replay, kw, plugin_specs())


def make_plan(games=10_000, seed=1, levels=("medium",), players=(4,), policies=("greedy",), heroes=(),
              params=(), rules: Rules | None = None, ruleset=None, overrides=(), batch=None,
              target_ci=None, command=None, first=0) -> driver.Plan:
    """The cells of the grid (checked before anything runs) and the run's
    metadata; the games are ``first .. first+games-1`` of each cell."""
    rules = rules or prepare(ruleset, overrides)
    if heroes and len(players) > 1:
        raise InputError("--heroes with a fixed list needs a single --players value")
    if params and len(policies) > 1:
        raise InputError("--params sets one policy's parameters: give a single --policy")
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise InputError(f"--target-ci {target_ci}: expected a half-width between 0 and 0.5, e.g. 0.005")
    payloads, labels, batches = [], [], []
    specs = plugin_specs()
    for pol in policies:
        info = plugins.get(pol)
        for lv in levels:
            for p in players:
                cfg = Config(level=lv, players=p, heroes=tuple(heroes), policy=pol, params=tuple(params))
                _, _, _, pp, _ = cfg.resolved(rules)   # bad heroes/params fail here, before any game
                payloads.append((rules, cfg, specs))
                labels.append(dict(level=lv, players=p, policy=pol, params=[float(x) for x in pp],
                                   param_names=list(info.param_names), heroes=list(heroes) or "random"))
                batches.append(min(games, batch or info.meta.get("batch", DEFAULT_BATCH)))
    meta = dict(package="mournesim", version=__version__, **identity.engine("mournesim"),
                rules_version=rules.ruleset.meta.rules_version,
                ruleset_hash=rules.hash, ruleset=record_path(ruleset), overrides=list(overrides),
                plugins=list(specs), command=command or " ".join(sys.argv))
    return driver.Plan(payloads, labels, seed, games, batches, target_ci, meta, first,
                       isolate=any(plugins.get(p).builtin_id < 0 for p in policies))


def plan_from_run(run: dict, rules: Rules | None = None) -> driver.Plan:
    """Rebuild the plan of a stored run (for ``--resume``), checking that the
    ruleset and plug-ins still give the same games."""
    for spec in run.get("plugins", []):
        plugins.load_plugin(spec)
    rules = rules or resume_rules(run, prepare)
    if rules.hash != run.get("ruleset_hash"):
        raise InputError(f"cannot resume: the ruleset now hashes to {rules.hash}, the run used "
                         f"{run.get('ruleset_hash')} (restore the ruleset file it used)")
    specs = plugin_specs()
    try:
        payloads = []
        for c in run["cells"]:
            heroes = () if c["heroes"] == "random" else tuple(c["heroes"])
            cfg = Config(level=c["level"], players=int(c["players"]), heroes=heroes, policy=c["policy"],
                         params=tuple(c["params"]))
            cfg.resolved(rules)
            payloads.append((rules, cfg, specs))
        meta = {k: v for k, v in run.items() if k not in ("seed", "games", "batch", "target_ci", "cells")}
        meta.update(identity.engine("mournesim"))   # same behaviour version; this build finishes it
        return driver.Plan(payloads, run["cells"], int(run["seed"]), int(run["games"]), list(run["batch"]),
                           run.get("target_ci"), meta,
                           isolate=any(plugins.get(c["policy"]).builtin_id < 0 for c in run["cells"]))
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise InputError(f"corrupt run description: {type(e).__name__}: {e}") from None


def run_grid(games=10_000, seed=1, levels=("medium",), players=(4,), policies=("greedy",), heroes=(),
             params=(), rules=None, ruleset=None, overrides=(), batch=None, target_ci=None, out=None,
             workers=None, cluster=None, progress=None, command=None, note=None):
    """Plan and play a grid; returns ``(frame or None, cells)`` where
    ``cells`` is a list of (label dict, games, wins). ``note``: shows the
    user a line when the run seems stuck (simcore.batch.run)."""
    plan = make_plan(games, seed, levels, players, policies, heroes, params, rules, ruleset, overrides,
                     batch, target_ci, command)
    df, summary = driver.run(plan, play_batch, out, workers, cluster, progress, note=note)
    return df, _cells(plan, summary)


def resume(out, workers=None, cluster=None, progress=None, note=None):
    """Finish the interrupted run in ``out``; returns its cells like run_grid."""
    run = store.read_run(out)
    identity.check_same(run, "mournesim", out)
    plan = plan_from_run(run)
    _, summary = driver.run(plan, play_batch, out, workers, cluster, progress, resume=True, note=note)
    return None, _cells(plan, summary)


def _cells(plan, summary):
    """(label, games, wins) per cell, with the run's ``seed`` and the games
    ``played_now`` (simcore.batch.Summary)."""
    return driver.Summary([(lab, n, w) for lab, (n, w) in zip(plan.labels, summary)], summary.seed,
                          summary.played_now)
