"""Quest Master grid runs: player counts × policy tables, played in batches
by the shared driver (simcore.batch) on every core or a Dask cluster, into
memory or a Parquet dataset (docs/common/results.md).

A policy table is one policy for every seat (``greedy``) or one per seat
joined by ``+`` (``greedy+random+random+random``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from simcore import batch as driver
from simcore import identity, store
from simcore.errors import InputError
from simcore.rulesets import record_path, resume_rules
from . import __version__
from . import plugins
from .replay import replay as replay_game
from .sim import Config, Rules, prepare, run_games, to_frame

DEFAULT_BATCH = 20_000


def parse_players(text, rules: Rules):
    """``--players 4``, ``2,3,6`` or ``all`` → tuple of counts."""
    r = rules.ruleset.rules
    text = str(text).strip().lower()
    if text == "all":
        return tuple(range(r.min_players, r.max_players + 1))
    try:
        vals = tuple(dict.fromkeys(int(x) for x in text.split(",")))
    except ValueError:
        raise InputError(f"--players {text!r}: expected a count, a comma list like 2,4,6, or all") from None
    for p in vals:
        if not r.min_players <= p <= r.max_players:
            raise InputError(f"--players {p}: Quest Master takes {r.min_players} to {r.max_players} players")
    return vals


def parse_tables(text):
    """``--policy greedy,random`` (alternatives) with ``+`` for per-seat tables."""
    text = str(text).strip().lower()
    if text == "all":
        return (("random",), ("greedy",), ("planner",))
    tables = []
    for alt in text.split(","):
        seats = tuple(x.strip() for x in alt.split("+"))
        for name in seats:
            plugins.get(name)    # unknown: one clear line
        tables.append(seats)
    return tuple(dict.fromkeys(tables))


def play_batch(payload, seed, first, n):
    """Worker entry point: games ``first .. first+n-1`` of one cell as rows."""
    rules, cfg, specs = payload
    for spec in specs:
        plugins.load_plugin(spec)
    return to_frame(run_games(rules, cfg, seed, first, n), rules, cfg, seed, first)


def _replay(kw, specs):
    """Child-process entry point: ``replay(**kw)`` after loading the plug-ins."""
    for spec in specs:
        plugins.load_plugin(spec)
    return replay_game(**kw)


def replay(**kw):
    """``questsim.replay.replay(**kw)``; a table with a plug-in policy (user
    code that may never return) is played in a child process, so Ctrl-C
    stops it at once."""
    if not _plugs_in(kw.get("policies", ("greedy",))):
        return replay_game(**kw)
    return driver.call_in_child(_replay, kw, plugin_specs())


def make_plan(games=10_000, seed=1, players=(4,), tables=(("greedy",),), characters=(), params=(),
              rules: Rules | None = None, ruleset=None, overrides=(), batch=None, target_ci=None,
              command=None, first=0) -> driver.Plan:
    """The cells of the grid, checked before anything runs; the games are
    ``first .. first+games-1`` of each cell."""
    rules = rules or prepare(ruleset, overrides)
    if characters and len(players) > 1:
        raise InputError("--characters with a fixed list needs a single --players value")
    if params and len(tables) > 1:
        raise InputError("--params sets one policy's parameters: give a single --policy")
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise InputError(f"--target-ci {target_ci}: expected a half-width between 0 and 0.5, e.g. 0.005")
    payloads, labels = [], []
    for tab in tables:
        for p in players:
            if len(tab) not in (1, p):
                raise InputError(f"--policy {'+'.join(tab)}: {len(tab)} seats given for {p} players")
            cfg = Config(players=p, characters=tuple(characters), policies=tab, params=tuple(params))
            cfg.resolved(rules)
            payloads.append((rules, cfg, plugin_specs()))
            labels.append(dict(players=p, policy="+".join(tab), characters=list(characters) or "random",
                               params=list(params)))
    meta = dict(package="questsim", version=__version__, **identity.engine("questsim"),
                rules_version=rules.ruleset.meta.rules_version,
                ruleset_hash=rules.hash, ruleset=record_path(ruleset), overrides=list(overrides),
                plugins=list(plugin_specs()), command=command or " ".join(sys.argv))
    return driver.Plan(payloads, labels, seed, games, [min(games, batch or DEFAULT_BATCH)] * len(payloads),
                       target_ci, meta, first, isolate=_plugs_in(t for tab in tables for t in tab))


def _plugs_in(names):
    """Whether a plug-in policy (user code, or the rollout search) plays."""
    return any(plugins.get(n).builtin_id < 0 for n in names)


def plugin_specs():
    """Plug-in files/modules workers must load (the shipped rollout registers itself)."""
    return tuple(sorted({p.source if Path(p.source).is_file() else p.module
                         for p in plugins.policies() if p.builtin_id < 0 and p.name != "rollout"}))


def plan_from_run(run: dict) -> driver.Plan:
    """Rebuild the plan of a stored run (``--resume``); the ruleset must
    still hash the same."""
    for spec in run.get("plugins", []):
        plugins.load_plugin(spec)
    rules = resume_rules(run, prepare)
    if rules.hash != run.get("ruleset_hash"):
        raise InputError(f"cannot resume: the ruleset now hashes to {rules.hash}, the run used "
                         f"{run.get('ruleset_hash')} (restore the ruleset file it used)")
    try:
        payloads = []
        for c in run["cells"]:
            chars = () if c["characters"] == "random" else tuple(c["characters"])
            cfg = Config(players=int(c["players"]), characters=chars, policies=tuple(c["policy"].split("+")),
                         params=tuple(c["params"]))
            cfg.resolved(rules)
            payloads.append((rules, cfg, plugin_specs()))
        meta = {k: v for k, v in run.items() if k not in ("seed", "games", "batch", "target_ci", "cells")}
        meta.update(identity.engine("questsim"))   # same behaviour version; this build finishes it
        return driver.Plan(payloads, run["cells"], int(run["seed"]), int(run["games"]), list(run["batch"]),
                           run.get("target_ci"), meta,
                           isolate=_plugs_in(p for c in run["cells"] for p in c["policy"].split("+")))
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise InputError(f"corrupt run description: {type(e).__name__}: {e}") from None


def run_grid(out=None, workers=None, cluster=None, progress=None, note=None, **kw):
    """Plan (``make_plan`` keywords) and play a grid; returns ``(frame or
    None, cells)`` with ``cells`` a list of (label, games, games decided).
    ``note``: shows the user a line when the run seems stuck."""
    plan = make_plan(**kw)
    df, summary = driver.run(plan, play_batch, out, workers, cluster, progress, note=note)
    return df, _cells(plan, summary)


def resume(out, workers=None, cluster=None, progress=None, note=None):
    """Finish the interrupted run in ``out``."""
    run = store.read_run(out)
    identity.check_same(run, "questsim", out)
    plan = plan_from_run(run)
    _, summary = driver.run(plan, play_batch, out, workers, cluster, progress, resume=True, note=note)
    return None, _cells(plan, summary)


def _cells(plan, summary):
    """(label, games, wins) per cell, with the run's ``seed`` and the games
    ``played_now`` (simcore.batch.Summary)."""
    return driver.Summary([(lab, n, w) for lab, (n, w) in zip(plan.labels, summary)], summary.seed,
                          summary.played_now)
