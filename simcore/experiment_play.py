"""Playing a designer experiment (simcore.experiment): its arms as cells of
one batch-driver plan on paired seeds (:class:`Runner`), rounds under a
target interval, the tune and policy-tune searches, and the rows read into
each arm's measures (:func:`run` returns a :class:`Result`)."""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import batch as driver
from . import identity, paired, store
from .errors import InputError
from .experiment import (BASELINE, Arm, Experiment, value_text, override, arms, base_raw, lookup, policy_grid)

FIRST_ROUND = 2_000          # games per cell in the first round under target_ci


def play_arm(payload, seed, first, n):
    """Batch-driver entry point: one batch of one arm's cell, tagged with the arm."""
    arm, play, inner = payload
    df = play(inner, seed, first, n)
    df.insert(0, "arm", arm)
    return df


@dataclass
class Runner:
    """Plays arms of an experiment on paired seeds; keeps every round's games
    on disk under ``out/data`` when ``out`` is given.

    Every round plays on the same worker processes (or Dask client), started
    by the first round that needs them and stopped by :meth:`close`: a tune
    plays tens of rounds, and starting the workers (each loading the engine)
    took about two seconds of every round. A round of one batch plays in
    this process, as any one-batch run does."""
    exp: Experiment
    game: object
    out: Path | None = None
    workers: int | None = None
    cluster: str | None = None
    progress: bool = False
    games: int | None = None          # the --games override
    command: str = ""
    note: object = None               # shows the user a line when the run seems stuck (simcore.batch.run)
    backend: object = field(default=None, init=False)   # the rounds' workers, from the first round on

    @property
    def n_games(self):
        return self.games or self.exp.games

    def plan(self, arm_list, games, first=0, base=None) -> driver.Plan:
        """One driver plan holding every arm's cells."""
        base = dict(self.exp.base if base is None else base)
        payloads, labels, batches, meta, isolate = [], [], [], {}, False
        for arm in arm_list:
            overrides = tuple(base.get("set", [])) + arm.overrides
            b = dict(base, params=",".join(repr(float(x)) for x in arm.params)) if arm.params else base
            try:
                p = self.game.plan(b, overrides, games, self.exp.seed, first, self.exp.batch)
            except InputError as e:
                raise InputError(f"arm {arm.name!r}: {e}") from None
            payloads += [(arm.name, self.game.play_batch, pl) for pl in p.payloads]
            labels += [dict(arm=arm.name, overrides=list(overrides), ruleset_hash=p.meta["ruleset_hash"], **lab)
                       for lab in p.labels]
            batches += p.batch
            meta = p.meta
            isolate |= p.isolate
        meta = dict(meta, experiment=self.exp.title, kind=self.exp.kind, command=self.command or " ".join(sys.argv))
        meta.pop("ruleset_hash", None)
        meta.pop("overrides", None)
        return driver.Plan(payloads, labels, self.exp.seed, games, batches, None, meta, first,
                           resume_hint="run the same experiment command again", isolate=isolate)

    def play(self, arm_list, games, first=0, tag="data", base=None) -> pd.DataFrame:
        """Play (or re-use from disk) games ``first .. first+games-1`` of every arm."""
        plan = self.plan(arm_list, games, first, base)
        if self.backend is None:
            self.backend = driver.backend(self.workers, self.cluster, plan.isolate)
        bar = self._bar(plan)
        try:
            if self.out is None:
                df, _ = driver.run(plan, play_arm, None, self.workers, self.cluster, bar, note=self.note,
                                   shared=self.backend)
                return df
            where = self.out / "data" / tag
            key = _plan_key(plan)
            resume = False
            if (where / store.RUN_FILE).exists():
                run = store.read_run(where)
                identity.check_same(run, plan.meta["package"], where, "re-use the games in")
                if run.get("key") != key:
                    raise InputError(f"{where}: holds games of another experiment (or other --games, or another ruleset); "
                                     "choose another --out (or delete that directory)")
                resume = True
                if run.get("complete"):
                    return store.read_dataset(where)
            plan.meta["key"] = key
            driver.run(plan, play_arm, where, self.workers, self.cluster, bar, resume=resume, note=self.note,
                       shared=self.backend)
            return store.read_dataset(where)
        finally:
            if bar is not None:
                bar.close()

    def close(self, cancel=False):
        """Stop the rounds' workers (``cancel``: at once, dropping any work)."""
        if self.backend is not None:
            self.backend.close(cancel)

    def _bar(self, plan):
        if not self.progress:
            return None
        from tqdm import tqdm
        return tqdm(total=0, unit="game", unit_scale=True, dynamic_ncols=True, file=sys.stderr,
                    desc=f"{len(plan.payloads)} cells", smoothing=0.1)


def _plan_key(plan):
    # the exact build does not matter, the behaviour version does (identity.check_same)
    rec = {k: v for k, v in plan.run_record().items() if k not in ("command", "engine_hash")}
    return hashlib.sha256(json.dumps(rec, sort_keys=True, default=str).encode()).hexdigest()[:16]


def measures_frame(df, game, names, keys) -> pd.DataFrame:
    """The rows reduced to arm, cell keys, game and one column per measure."""
    out = df[["arm", *keys, "game"]].copy()
    for n in names:
        out[n] = np.asarray(game.MEASURES[n][2](df), float)
    return out


def measure_names(exp, game):
    """The measures the report shows (the first is the primary one)."""
    names = exp.measures or list(game.DEFAULT_MEASURES)
    bad = [n for n in names if n not in game.MEASURES]
    if bad:
        raise InputError(f"measures: unknown measure {bad[0]!r} (choose from {', '.join(game.MEASURES)})")
    for kind in ("tune", "policy_tune"):
        m = getattr(exp, kind).measure if exp.kind == kind else None
        if m is not None and m not in game.MEASURES:
            raise InputError(f"{kind}.measure: unknown measure {m!r} (choose from {', '.join(game.MEASURES)})")
        if m is not None and not game.MEASURES[m][0]:
            rates = [n for n, v in game.MEASURES.items() if v[0]]
            raise InputError(f"{kind}.measure: {m!r} is a count per game, not a 0/1 outcome, so it has "
                             f"no rate to aim at (use one of {', '.join(rates)})")
    return names


@dataclass
class Result:
    """What an experiment produced: its games (as measures), the paired
    comparison table, and for a tune the solutions."""
    exp: Experiment
    arms: list
    frame: pd.DataFrame
    keys: list
    measures: list
    comparisons: pd.DataFrame
    rounds: list = field(default_factory=list)     # (games per cell, max half-width) under target_ci
    tune: list = field(default_factory=list)       # per target: dict with tries, solution
    dataset: Path | None = None


def run(exp: Experiment, game, out=None, workers=None, cluster=None, progress=False, games=None,
        command="", note=None) -> Result:
    """Play the experiment and compare every arm with the baseline. With
    ``out`` (a path, or a directory already held as the tool's own:
    simcore.outdir) the games land in ``out/data``."""
    from .outdir import Owned, owned
    if out is not None and not isinstance(out, Owned):
        with owned(out, "experiment --out") as held:
            return run(exp, game, held, workers, cluster, progress, games, command, note)
    names = measure_names(exp, game)
    if out is not None:
        out.datasets("data")            # the arms' games, one dataset per round
    runner = Runner(exp, game, out.path if out else None, workers, cluster, progress, games, command, note)
    try:
        result = _run(exp, game, runner, names)
    except BaseException:
        runner.close(cancel=True)       # Ctrl-C or a failure between rounds: stop the workers at once
        raise
    runner.close()
    return result


def _run(exp, game, runner, names) -> Result:
    """:func:`run` with its runner."""
    keys = list(game.CELL)
    binary = {n: game.MEASURES[n][0] for n in names}
    if exp.kind == "tune":
        return _run_tune(exp, game, runner, names, keys, binary)
    if exp.kind == "policy_tune":
        return _run_policy_tune(exp, game, runner, names, keys, binary)
    arm_list = arms(exp, game)
    frames, rounds = [], []
    total, cap = 0, runner.n_games
    size = cap if exp.target_ci is None else min(cap, max(FIRST_ROUND, exp.batch or 0))
    k = 0
    while total < cap:
        k += 1
        tag = "data" if exp.target_ci is None else f"round-{k:02d}"
        frames.append(measures_frame(runner.play(arm_list, size, total, tag), game, names, keys))
        total += size
        if exp.target_ci is None:
            break
        frame = pd.concat(frames, ignore_index=True)
        comp = paired.table(frame, {names[0]: binary[names[0]]}, keys, pooled=False)
        worst = float(comp["half_width"].max())
        rounds.append((total, worst))
        if worst <= exp.target_ci:
            break
        size = min(total, cap - total)       # double the games each round
    frame = pd.concat(frames, ignore_index=True)
    comp = paired.table(frame, binary, keys)
    return Result(exp, arm_list, frame, keys, names, comp, rounds,
                  dataset=runner.out / "data" if runner.out else None)


def _run_tune(exp, game, runner, names, keys, binary) -> Result:
    """Bisection on each target's parameter; every try plays the same games."""
    measure = exp.tune.measure
    raw = base_raw(exp, game)
    check_tune(exp, runner, raw)
    solutions, frames = [], []
    for i, t in enumerate(exp.tune.target):
        cur = lookup(raw, t.param)
        integer = isinstance(cur, int) and all(isinstance(x, int) for x in t.range)
        base = dict(exp.base, **t.cell)
        tries = {}

        def rate_at(v, i=i, t=t, base=base, tries=tries):
            if v not in tries:
                arm = Arm(f"{t.param}={value_text(v)}", (override(t.param, v),), {t.param: v})
                df = runner.play([arm], runner.n_games, 0, f"tune-{i + 1:02d}-{value_text(v)}", base)
                m = measures_frame(df, game, names, keys)
                m["target"] = t.name or t.param
                frames.append(m)
                r, lo, hi = paired.mean_interval(m[measure], binary.get(measure, True))
                tries[v] = (r, lo, hi, len(m))
            return tries[v][0]

        lo, hi = t.range
        r_lo, r_hi = rate_at(lo), rate_at(hi)
        up = r_hi >= r_lo                      # the rate rises with the parameter
        tol = 1 if integer else (exp.tune.tolerance or (hi - lo) / 64)
        reachable = min(r_lo, r_hi) <= t.rate <= max(r_lo, r_hi)
        if reachable:
            while hi - lo > tol:
                mid = (lo + hi) // 2 if integer else (lo + hi) / 2
                if (rate_at(mid) < t.rate) == up:
                    lo = mid
                else:
                    hi = mid
        best = min(tries, key=lambda v: (abs(tries[v][0] - t.rate), v))
        solutions.append(dict(name=t.name or t.param, param=t.param, cell=t.cell, target=t.rate, current=cur,
                              value=best, rate=tries[best][0], ci95_low=tries[best][1], ci95_high=tries[best][2],
                              games=tries[best][3], reachable=reachable,
                              tries=sorted((v, *x) for v, x in tries.items())))
    frame = pd.concat(frames, ignore_index=True)
    return Result(exp, [], frame, keys, names, pd.DataFrame(), [], solutions,
                  runner.out / "data" if runner.out else None)


def check_tune(exp, runner, raw):
    """Every tune target checked before any game is played: its parameter is
    a number of the ruleset, its cell is made of base keys, and the ruleset
    is valid at both ends of its range (so no try is refused half-way)."""
    for i, t in enumerate(exp.tune.target):
        where = f"tune.target.{i}"
        cur = lookup(raw, t.param)
        if isinstance(cur, bool) or not isinstance(cur, (int, float)):
            raise InputError(f"{where}.param: {t.param} is {json.dumps(cur)}, not a number")
        base = dict(exp.base, **t.cell)
        for end, v in zip(("low", "high"), t.range):
            try:
                runner.plan([Arm(f"{t.param}={value_text(v)}", (override(t.param, v),))], 2, 0, base)
            except InputError as e:
                raise InputError(f"{where}.range: the {end} end {value_text(v)} is not a valid {t.param} "
                                 f"({str(e).splitlines()[0]})") from None


def _run_policy_tune(exp, game, runner, names, keys, binary) -> Result:
    """NTBEA over the policy's parameter grid, then the recommendation and the
    starting parameters on fresh paired games."""
    from .ntbea import NTBEA
    pt = exp.policy_tune
    policy, pnames, start, idx, grids = policy_grid(exp, game)
    measure = pt.measure
    per_eval = min(pt.games_per_eval, runner.n_games)    # --games caps the search's games too

    def params_of(point):
        v = list(start)
        for k, (i, j) in enumerate(zip(idx, point)):
            v[i] = grids[k][j]
        return tuple(v)

    # start the search at the grid point nearest the starting parameters
    first_point = tuple(min(range(len(g)), key=lambda j, g=g, i=i: abs(g[j] - start[i])) for g, i in zip(grids, idx))
    search = NTBEA([len(g) for g in grids], seed=exp.seed, k=pt.k, neighbours=pt.neighbours, start=first_point)
    trace = []
    step = 0
    while search.n < pt.budget:
        points = search.propose(min(pt.batch, pt.budget - search.n))
        arm_list = [Arm(f"try-{search.n + j + 1:04d}", params=params_of(x)) for j, x in enumerate(points)]
        df = runner.play(arm_list, per_eval, step * per_eval, f"search-{step + 1:04d}")
        m = measures_frame(df, game, [measure], keys)
        for arm, x in zip(arm_list, points):
            f = float(m.loc[m["arm"] == arm.name, measure].mean())
            search.update(x, f)
            trace.append(dict(eval=len(trace) + 1, step=step + 1, fitness=f, games=int((m["arm"] == arm.name).sum()),
                              **{pnames[i]: v for i, v in enumerate(arm.params) if i in idx}))
        step += 1
    best = search.recommend()
    tuned = params_of(best)
    est, _ = search.estimate(best)
    # the check: fresh games after every game the search played, paired
    base_arm = Arm(BASELINE, params=tuple(start))
    check = [base_arm] + ([Arm("tuned", params=tuned)] if tuned != tuple(start) else [])
    first = step * per_eval
    df = runner.play(check, runner.n_games, first, "check")
    frame = measures_frame(df, game, names, keys)
    comp = paired.table(frame, binary, keys) if len(check) > 1 else pd.DataFrame()
    info = dict(policy=policy, names=pnames, start=list(start), tuned=list(tuned), tuned_names=[pnames[i] for i in idx],
                games_per_eval=per_eval,
                estimate=est, evaluations=search.n, check_first=first, trace=trace,
                grids={pnames[i]: g for i, g in zip(idx, grids)})
    return Result(exp, check, frame, keys, names, comp, [], [info],
                  runner.out / "data" if runner.out else None)
