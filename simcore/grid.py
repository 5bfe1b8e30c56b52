"""Grid runs of any game (simcore.game.Game): the cells of a grid checked
before anything runs, played in batches by the driver (simcore.batch) on every
core or a Dask cluster, into memory or a Parquet dataset, and resumed from a
stored run. A game's ``batch.py`` only parses its own axes into cells."""
from __future__ import annotations

import sys

from . import __version__, identity, store
from . import batch as driver
from .errors import InputError
from .rulesets import record_path, resume_rules


def play_batch(payload, seed, first, n):
    """Worker entry point: games ``first .. first+n-1`` of one cell as rows.
    ``payload`` is ``(game, rules, config, plug-in specs)``."""
    game, rules, cfg, specs = payload
    for spec in specs:
        game.registry.load_plugin(spec)
    return game.play(rules, cfg, seed, first, n)


def _replay(game, kw, specs):
    """Child-process entry point: the game's replay after loading the
    plug-ins (what they print goes to standard error, as in every worker:
    simcore.shutdown.worker_init)."""
    for spec in specs:
        game.registry.load_plugin(spec)
    return game.replay(**kw)


def replay(game, policies, kw: dict):
    """``game.replay(**kw)`` (``kw`` holds the game's index as ``game``); a
    game with a plug-in policy among ``policies``
    (user code that may never return) is played in a child process, so
    Ctrl-C stops it at once."""
    if not game.registry.plugs_in(policies):
        return game.replay(**kw)
    return driver.call_in_child(_replay, game, kw, game.registry.specs())


def _call(game, play, specs):
    """Child-process entry point: ``play()`` after loading the plug-ins."""
    for spec in specs:
        game.registry.load_plugin(spec)
    return play()


def warm_up(game, plays):
    """Play each warm-up game of a command, ``plays`` being ``[(policies,
    play)]``: ``play()`` (picklable: a module function with its arguments
    bound) plays one game whose players are ``policies``. A game of built-in
    policies plays here; one with a plug-in among them plays in a child
    process, as every game of a plug-in does, so Ctrl-C and SIGTERM stop a
    policy that never returns, and a policy that ends its process is
    reported rather than ending the command."""
    for policies, play in plays:
        if game.registry.plugs_in(policies):
            names = ", ".join(p for p in policies if game.registry.plugs_in((p,)))
            driver.call_in_child(_call, game, play, game.registry.specs(),
                                 what=f"the first game of plug-in policy {names}")
        else:
            play()


def check_target(target_ci):
    """``--target-ci``: a half-width between 0 and 0.5."""
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise InputError(f"--target-ci {target_ci}: expected a half-width between 0 and 0.5, e.g. 0.005")


def plan(game, rules, cells, games, seed=1, ruleset=None, overrides=(), target_ci=None, command=None,
         first=0) -> driver.Plan:
    """The driver plan of ``cells``: ``(config, label, batch)`` each, checked
    by the game; the games are ``first .. first+games-1`` of each cell."""
    check_target(target_ci)
    reg = game.registry
    specs = reg.specs()
    meta = dict(package=game.package, version=__version__, **identity.engine(game.package),
                rules_version=rules.ruleset.meta.rules_version,
                ruleset_hash=rules.hash, ruleset=record_path(ruleset), overrides=list(overrides),
                plugins=list(specs), command=command or " ".join(sys.argv))
    labels = [lab for _, lab, _ in cells]
    return driver.Plan([(game, rules, cfg, specs) for cfg, _, _ in cells], labels, seed, games,
                       [min(games, b) for _, _, b in cells], target_ci, meta, first,
                       isolate=reg.plugs_in(p for lab in labels for p in game.cell_policies(lab)))


def plan_from_run(game, run: dict, rules=None) -> driver.Plan:
    """Rebuild the plan of a stored run (for ``--resume``), checking that the
    ruleset and plug-ins still give the same games."""
    reg = game.registry
    for spec in run.get("plugins", []):
        reg.load_plugin(spec)
    rules = rules or resume_rules(run, game.prepare)
    if rules.hash != run.get("ruleset_hash"):
        raise InputError(f"cannot resume: the ruleset now hashes to {rules.hash}, the run used "
                         f"{run.get('ruleset_hash')} (restore the ruleset file it used)")
    specs = reg.specs()
    try:
        payloads = []
        for c in run["cells"]:
            cfg = game.cell_config(c)
            cfg.resolved(rules)
            payloads.append((game, rules, cfg, specs))
        meta = {k: v for k, v in run.items() if k not in ("seed", "games", "batch", "target_ci", "cells")}
        meta.update(identity.engine(game.package))   # same behaviour version; this build finishes it
        return driver.Plan(payloads, run["cells"], int(run["seed"]), int(run["games"]), list(run["batch"]),
                           run.get("target_ci"), meta,
                           isolate=reg.plugs_in(p for c in run["cells"] for p in game.cell_policies(c)))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise InputError(f"corrupt run description: {type(e).__name__}: {e}") from None


def run(plan, out=None, workers=None, cluster=None, progress=None, note=None, resume=False):
    """Play ``plan``; returns ``(frame or None, cells)`` where ``cells`` is a
    list of (label dict, games, wins) with the run's ``seed``, the games
    ``played_now`` and the workers' ``startup`` seconds
    (simcore.batch.Summary). ``note``: shows the user a line when the run
    seems stuck (simcore.batch.run). A cold engine is compiled on every
    core first (simcore.warmup), unless the batches go to a Dask cluster."""
    if cluster is None and plan.payloads:
        from .warmup import compile_cold
        game = plan.payloads[0][0]
        compile_cold(game, game.module("engine").run_batch, workers)
    df, summary = driver.run(plan, play_batch, out, workers, cluster, progress, resume=resume, note=note)
    return df, driver.Summary([(lab, n, w) for lab, (n, w) in zip(plan.labels, summary)], summary.seed,
                              summary.played_now, summary.startup)


def resume(game, out, workers=None, cluster=None, progress=None, note=None):
    """Finish the interrupted run in ``out``; returns its cells like :func:`run`."""
    stored = store.read_run(out)
    identity.check_same(stored, game.package, out)
    if stored.get("experiment") is not None:    # its arms' rules are the experiment file's, not one ruleset
        raise InputError(f"{out}: holds the games of experiment {stored['experiment']!r}; an experiment "
                         f"goes on by running its own command again: {stored.get('command') or 'the same command'}")
    _, cells = run(plan_from_run(game, stored), out, workers, cluster, progress, note, resume=True)
    return None, cells
