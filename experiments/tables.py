"""Tables in the docs that are generated from committed experiment results,
so that no figure in them is typed by hand.

    python -m experiments.tables          # rewrite every generated block
    python -m experiments.tables --check  # exit 1 if a block is out of date
    python -m experiments.tables --root DIR   # another copy of the docs and results

A generated block sits between ``<!-- generated:NAME -->`` and
``<!-- /generated:NAME -->`` in a Markdown file; ``BLOCKS`` says which
function fills it from which results.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import balance, balance_levers, balance_qm, replication

ROOT = Path(__file__).resolve().parents[1]


def _pp(row) -> str:
    return f"{100 * row.change:+.1f} [{100 * row.ci95_low:+.1f}, {100 * row.ci95_high:+.1f}]"


def _setup(report: Path) -> str:
    """The engine / seed / games line of an experiment report."""
    text = report.read_text()
    engine = re.search(r"^- (engine: .*)$", text, re.M)
    setup = re.search(r"^- game: .*?seed (\d+); ([\d,]+) games per cell and arm", text, re.M)
    return (f"{engine.group(1) if engine else 'engine: unknown'}; seed {setup.group(1)}, "
            f"{setup.group(2)} paired games per cell and arm" if setup else "")


def readings(root: Path) -> str:
    """The ranked effect of every MourneQuest reading toggle on the win rate
    (experiments/mq-readings.toml)."""
    d = root / "experiments" / "results" / "mq-readings"
    c = pd.read_csv(d / "comparisons.csv", dtype={"players": str})
    c = c[c.measure == "win"]
    desc = balance.arm_descriptions(d / "report.md")
    cells = [(lv, p) for lv in ("easy", "medium", "hard") for p in ("1", "4")]
    rows = []
    for arm, g in c.groupby("arm", sort=False):
        by = {(r.level, r.players): r for r in g.itertuples()}
        size = max(abs(by[k].change) for k in cells)
        rows.append((size, arm, by))
    rows.sort(key=lambda r: -r[0])
    head = ("| rank | reading (gap) | " + " | ".join(f"{balance.name(lv)} {'solo' if p == '1' else '4p'}"
                                                 for lv, p in cells) + " | all cells |\n|---|---|" + "---|" * 7)
    lines = [head]
    # every cell of every reading is one family, Holm-corrected
    keys = [(arm, k) for _s, arm, _by in rows for k in cells + [("all", "all")]]
    holds = dict(zip(keys, balance.survivors([by[k].p_value for _s, _a, by in rows for k in cells + [("all", "all")]])))

    def cell(arm, by, k):
        return _pp(by[k]) + (balance.HOLDS if holds[(arm, k)] else "")
    for i, (_size, arm, by) in enumerate(rows, 1):
        name, _, value = arm.partition("=")
        gap, _, what = desc.get(arm, ": ").partition(": ")
        lines.append(f"| {i} | `{name}` → {value} ({gap}): {what} | "
                     + " | ".join(cell(arm, by, k) for k in cells) + f" | {cell(arm, by, ('all', 'all'))} |")
    lines.append("\n" + balance.holm_note(sum(holds.values()), f"the table's {len(keys)} changes"))
    base = c[(c.level == "all")].iloc[0]
    top = "; ".join(f"`{arm}` ({100 * by[('all', 'all')].change:+.1f} pp over all cells)" for _s, arm, by in rows[:3])
    lines.append(f"\nThe readings worth settling first in the next printing, by this ranking: {top}.")
    return (f"Change in the planner's win rate, percentage points, when one toggle takes its other value "
            f"(variant − default on the same games, 95% interval); ranked by the largest change in any cell. "
            f"Defaults: win rate {100 * base.baseline:.1f}% over all cells. Made by "
            f"`mournesim experiment experiments/mq-readings.toml` ({_setup(d / 'report.md')}); the full report "
            f"with the other measures is `experiments/results/mq-readings/report.md`.\n\n" + "\n".join(lines))


QM_READING_MEASURES = (("win_hp", "Hp over 40"), ("win_castles", "five castles"),
                       ("win_last_standing", "last standing"), ("first_player_won", "first player wins"))


def qm_readings(root: Path) -> str:
    """The effect of every Quest Master reading toggle on how games end, the
    first seat's edge and the length of a game (experiments/qm-readings.toml)."""
    d = root / "experiments" / "results" / "qm-readings"
    c = pd.read_csv(d / "comparisons.csv", dtype={"players": str})
    c = c[c.players != "all"]
    desc = balance.arm_descriptions(d / "report.md")
    shares = [m for m, _ in QM_READING_MEASURES]
    rows = []
    for arm, g in c.groupby("arm", sort=False):
        by = {(r.measure, r.players): r for r in g.itertuples()}
        size = max(abs(r.change) for r in g.itertuples() if r.measure in shares)
        rows.append((size, arm, by, sorted(g.players.unique(), key=int)))
    rows.sort(key=lambda r: -r[0])
    head = ("| rank | reading (gap) | players | " + " | ".join(label for _m, label in QM_READING_MEASURES)
            + " | rounds |\n|---|---|---|" + "---|" * (len(QM_READING_MEASURES) + 1))
    lines = [head]
    for i, (_size, arm, by, players) in enumerate(rows, 1):
        name, _, value = arm.partition("=")
        gap, _, what = desc.get(arm, ": ").partition(": ")
        for j, p in enumerate(players):
            first = f"| {i} | `{name}` → {value} ({gap}): {what} | " if j == 0 else "| | | "
            r = by[("rounds", p)]
            lines.append(first + f"{p} | " + " | ".join(_pp(by[(m, p)]) for m in shares)
                         + f" | {r.change:+.1f} [{r.ci95_low:+.1f}, {r.ci95_high:+.1f}] |")
    base = {(r.measure, r.players): r.baseline for r in c[c.arm == rows[0][1]].itertuples()}
    ps = rows[0][3]
    mix = "; ".join(f"{p} players: " + ", ".join(f"{label} {100 * base[(m, p)]:.1f}%"
                                               for m, label in QM_READING_MEASURES[:3]) for p in ps)
    return (f"Change when one toggle takes its other value (variant − default on the same games, 95% interval): "
            f"the share of games won each way and by the first player, in percentage points, and the rounds a "
            f"game lasts; ranked by the largest change in any share. The planner in every seat. Defaults: {mix}. "
            f"Made by `questsim experiment experiments/qm-readings.toml` ({_setup(d / 'report.md')}); the full "
            f"report is `experiments/results/qm-readings/report.md`.\n\n" + "\n".join(lines))


def _stamp(meta: dict) -> str:
    return (f"{meta['engine']} behaviour v{meta['behaviour_version']} (sources {meta['engine_hash']}), "
            f"ruleset {meta['ruleset_hash']}, seed {meta['seed']}")


def mq_ladder(root: Path) -> str:
    """The MourneQuest skill ladder (docs/mournequest/examples/ladder.py)."""
    d = root / "experiments" / "results" / "mq-ladder"
    df = pd.read_csv(d / "ladder.csv")
    meta = __import__("json").loads((d / "ladder.json").read_text())
    pols = [p for p in ("random", "greedy", "planner") if p in set(df.policy)]
    lines = ["| level | players | " + " | ".join(pols) + " |", "|---|---|" + "---|" * len(pols)]
    for lv, p in _cells(df):
        cells = []
        for pol in pols:
            r = df[(df.policy == pol) & (df.level == lv) & (df.players == p)].iloc[0]
            cells.append(_rate(r.win_rate, r.low, r.high))
        lines.append(f"| {balance.name(lv)} | {_who(p)} | " + " | ".join(cells) + " |")
    speed = ", ".join(f"{pol} {df[df.policy == pol].games_per_s.mean():,.0f}" for pol in pols)
    return (f"Win rate (Wilson 95% interval), **{int(df.games.min()):,} games per cell**, games 0 … N−1 of the "
            f"seed in every cell (the policies meet the same set-ups), heroes drawn at random, default "
            f"parameters. Made by {_stamp(meta)}: `{meta['command']}`. Games per second of one worker process "
            f"in this run (mean over its cells; other jobs may have shared the machine, see "
            f"docs/mournequest/performance.md for quiet measurements): {speed}.\n\n" + "\n".join(lines))


def qm_ladder(root: Path) -> str:
    """The Quest Master skill ladder (experiments.publish, step ladders)."""
    d = root / "experiments" / "results" / "qm-ladder"
    df = pd.read_csv(d / "ladder.csv")
    meta = __import__("json").loads((d / "ladder.json").read_text())
    pols = [p for p in ("random", "greedy_v2", "greedy", "planner_v2", "planner") if p in set(df.policy)]
    lines = ["| players | " + " | ".join(pols) + " | fair share |", "|---|" + "---|" * (len(pols) + 1)]
    for p, g in df.groupby("players"):
        g = g.set_index("policy")
        lines.append(f"| {p} | " + " | ".join(
            f"{100 * g.loc[pol, 'win_rate']:.1f} [{100 * g.loc[pol, 'ci95_low']:.1f}, {100 * g.loc[pol, 'ci95_high']:.1f}]"
            for pol in pols) + f" | {100 / p:.1f} |")
    # the tables of one player count run together, so the time is shared
    # among them: a speed per table size, not per policy
    per_p = df.groupby("players")[["games", "seconds"]].sum()
    speed = ", ".join(f"{p} players {r.games / r.seconds:,.0f}" for p, r in per_p.iterrows())
    return (f"Seat 1's win rate in per cent (Wilson 95% interval) when it is played by each policy and every "
            f"other seat by greedy; **{int(df.games.min()):,} games per cell**, characters drawn at random; a fair "
            f"seat wins 1/players. `greedy_v2` and `planner_v2` are the players of behaviour v2 (the same "
            f"policies with the parameters behaviour v3 added at 0). Made by {_stamp(meta)}: `{meta['command']}`. Games per "
            f"second on every core of this machine, all of a table size's tables together (the greedy seats "
            f"dominate; per-policy speeds are in docs/questmaster/performance.md): {speed}.\n\n" + "\n".join(lines))


def _decisions(root: Path, grid: str, report: str, table="decisions", key="decision") -> str:
    """A grid's decisions-by-policy (or blunders-by-policy) table, the
    standard report's, stamped."""
    d = root / "experiments" / "results" / grid
    t = pd.read_csv(d / "tables" / f"{table}-by-policy.csv", dtype=str)
    st = __import__("json").loads((root / "experiments" / "results" / "published.json").read_text())
    st = st[f"experiments/results/{grid}/report.md"]
    pols = [c for c in t.columns if c not in (key, "what")]
    lines = [f"| {key} | what | " + " | ".join(pols) + " |", "|---|---|" + "---|" * len(pols)]
    lines += [f"| `{getattr(r, key)}` | {r.what} | " + " | ".join(str(getattr(r, p)) for p in pols) + " |"
              for r in t.itertuples()]
    return (f"Mean count per game over the whole published grid ({st['games']:,} games per cell; "
            f"`{report}` shows the same table for any dataset). Made by {_stamp(st)}.\n\n" + "\n".join(lines))


def mq_decisions(root: Path) -> str:
    return _decisions(root, "mq-grid", "mournesim report")


def qm_decisions(root: Path) -> str:
    return _decisions(root, "qm-grid", "questsim report")


def mq_blunders(root: Path) -> str:
    return _decisions(root, "mq-grid", "mournesim report", "blunders", "blunder")


def qm_blunders(root: Path) -> str:
    return _decisions(root, "qm-grid", "questsim report", "blunders", "blunder")


def _parts(root: Path):
    import json
    d = root / "experiments" / "results" / "mq-planner"
    return pd.read_csv(d / "planner-parts.csv"), json.loads((d / "planner-parts.json").read_text())


def _cells(df):
    return [(lv, p) for lv in ("easy", "medium", "hard") for p in (4, 1) if ((df.level == lv) & (df.players == p)).any()]


def _who(p) -> str:
    return "solo" if p == 1 else str(p)


def _change(r) -> str:
    """A paired change (``ref_minus_arm`` with its interval), bold when the
    interval leaves out zero."""
    t = f"{100 * r.ref_minus_arm:+.1f} pp [{100 * r.ci95_low:+.1f}, {100 * r.ci95_high:+.1f}]"
    return f"**{t}**" if r.ci95_low > 0 or r.ci95_high < 0 else t


def mq_planner_change(root: Path) -> str:
    """The planner against the planner as shipped in v3 and v2, and greedy
    against greedy of v2, paired (docs/mournequest/examples/planner_parts.py)."""
    df, meta = _parts(root)
    cols = ["planner v2", "planner v3", "planner", "greedy v2", "greedy"]
    lines = ["| level | players | planner v2 | planner v3 | planner (v4) | v4 − v3 | v4 − v2 | greedy v2 | "
             "greedy | greedy − greedy v2 |", "|---|---|" + "---|" * 8]
    for lv, p in _cells(df):
        c = df[(df.level == lv) & (df.players == p)].set_index("arm")
        rate = {a: _rate(c.loc[a, 'win'], c.loc[a, 'win_low'], c.loc[a, 'win_high']) for a in cols}
        lines.append(f"| {balance.name(lv)} | {_who(p)} | {rate['planner v2']} | {rate['planner v3']} | {rate['planner']} | "
                     f"{_change(c.loc['planner v3'])} | {_change(c.loc['planner v2'])} | {rate['greedy v2']} | "
                     f"{rate['greedy']} | {_change(c.loc['greedy v2'])} |")
    return (f"Win rate with its Wilson 95% interval, **{meta['games']:,} games per cell**: every arm plays games "
            f"0 … N−1 of seed {meta['seed']} (the same set-ups, heroes, dice and tiles wherever they play alike), "
            f"on this same engine; the change is the mean of the per-game difference with its normal 95% interval "
            f"(`simcore.paired`), bold where it leaves out zero. Made by {_stamp(meta)}, heroes at random: "
            f"`{meta['command']}`.\n\n" + "\n".join(lines))


def mq_planner_parts(root: Path) -> str:
    """What each part of the planner is worth: the planner minus the planner
    with that part off, paired (docs/mournequest/examples/planner_parts.py)."""
    df, meta = _parts(root)
    abl = [a for a in meta["arms"] if a.startswith(("no ", "with "))]
    cells = _cells(df)
    lines = ["| part | " + " | ".join(f"{balance.name(lv)} {_who(p)}" for lv, p in cells) + " |", "|---|" + "---|" * len(cells)]
    for a in abl:
        out = []
        for lv, p in cells:
            r = df[(df.level == lv) & (df.players == p) & (df.arm == a)].iloc[0]
            out.append(_diff(r.ref_minus_arm, (r.ci95_high - r.ci95_low) / 2, r.ci95_low > 0 or r.ci95_high < 0))
        lines.append(f"| {a} | " + " | ".join(out) + " |")
    return (f"The planner minus the planner with that one part switched off, on the first "
            f"{meta['ablation_games']:,} games of the same cells: what the team loses without the part (negative: "
            f"the part costs games). Bold: the 95% interval leaves out zero. Made by {_stamp(meta)}.\n\n"
            + "\n".join(lines))


def mq_rollout(root: Path) -> str:
    """Rollout against the planner on the same games (docs/mournequest/examples/ladder.py)."""
    import json
    d = root / "experiments" / "results" / "mq-rollout"
    df = pd.read_csv(d / "ladder.csv")
    meta = json.loads((d / "ladder.json").read_text())
    lines = ["| level | players | planner (same games) | rollout | paired difference rollout − planner |",
             "|---|---|---|---|---|"]
    for lv, p in _cells(df):
        c = df[(df.level == lv) & (df.players == p)].set_index("policy")
        r = c.loc["rollout"]
        rate = {k: _rate(c.loc[k, 'win_rate'], c.loc[k, 'low'], c.loc[k, 'high']) for k in ("planner", "rollout")}
        lines.append(f"| {balance.name(lv)} | {_who(p)} | {rate['planner']} | {rate['rollout']} | "
                     f"{_diff(r.paired_diff, r.paired_half)} |")
    speed = ", ".join(f"{k} {df[df.policy == k].games_per_s.mean():,.1f}" for k in ("planner", "rollout"))
    return (f"**{int(df.games.min()):,} games per cell**, games 0 … N−1 of seed {meta['seed']} for both (paired: "
            f"the same set-ups, heroes and, where play agrees, dice); bold where the 95% interval leaves out zero. "
            f"Made by {_stamp(meta)}: `{meta['command']}`. Games per second of one worker: {speed}.\n\n"
            + "\n".join(lines))


def _rate(p, low, high) -> str:
    """A win rate with its 95% interval, in per cent: ``49.3% [48.7, 50.0]``."""
    return f"{100 * p:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _diff(d, h, apart=None) -> str:
    """A paired difference with its 95% half-width, in percentage points,
    bold when the interval leaves out zero (``apart``: said by the caller
    when the interval is not symmetric)."""
    t = f"{100 * d:+.1f} ± {100 * h:.1f} pp"
    return f"**{t}**" if (abs(d) > h if apart is None else apart) else t


RESULTS = Path("experiments") / "results"


def _result(root: Path, rel: str):
    """An example script's table and its JSON sidecar."""
    import json
    f = root / RESULTS / rel
    return pd.read_csv(f), json.loads(f.with_suffix(".json").read_text())


def _seeds(root: Path, name: str):
    """An expert ladder's table and stamp (``<name>/ladder.csv``) and those
    of its independent seed (``replication.csv``; None before it is made)."""
    df, meta = _result(root, f"{name}/ladder.csv")
    if not (root / RESULTS / name / "replication.csv").exists():
        return df, meta, None, None
    return (df, meta) + _result(root, f"{name}/replication.csv")


def _pooled(e, again):
    """The expert's row ``e`` on the ladder's seed with its row on the other
    seed (a one-row frame, or None): that seed's difference as text, the
    pooled difference and half-width (two independent samples of the same
    size: the mean of the means), the pooled text, and whether both seeds
    are ahead."""
    if again is None:
        return "–", e.paired_diff, e.paired_half, "–", True
    r = again.iloc[0]
    d, h = (e.paired_diff + r.paired_diff) / 2, np.hypot(e.paired_half, r.paired_half) / 2
    return (_diff(r.paired_diff, r.paired_half), d, h, _diff(d, h),
            bool(e.paired_diff > 0 and r.paired_diff > 0))


def mq_expert(root: Path) -> str:
    """The expert against the planner on the same games in every cell, again
    on an independent seed and pooled, and whether it beats it where the
    planner wins less than 95%; a cell the two seeds leave open is settled by
    a third seed with many more games (``confirm.csv``), when it is made."""
    df, meta, df2, meta2 = _seeds(root, "mq-expert")
    confirm, meta3 = (_result(root, "mq-expert/confirm.csv") if (root / RESULTS / "mq-expert/confirm.csv").exists()
                      else (None, None))
    seed2 = f"seed {meta2['seed']}" if meta2 else "another seed (not made yet)"
    lines = [f"| level | players | planner, seed {meta['seed']} | expert, seed {meta['seed']} | expert − planner, "
             f"seed {meta['seed']} | again, {seed2} | both seeds pooled | planner below 95%: expert above it? |",
             "|---|---|---|---|---|---|---|---|"]
    need = met = 0
    for lv in ("easy", "medium", "hard"):
        for p in sorted(set(df.players)):
            c = df[(df.level == lv) & (df.players == p)].set_index("policy")
            e, pl = c.loc["expert"], c.loc["planner"]
            again, d, h, pooled, same_sign = _pooled(
                e, None if df2 is None else df2[(df2.level == lv) & (df2.players == p) & (df2.policy == "expert")])
            required = pl.win_rate < 0.95
            ok = d - h > 0 and same_sign
            verdict = "yes" if ok else "not shown"
            third = None if confirm is None else confirm[(confirm.level == lv) & (confirm.players == p) &
                                                         (confirm.policy == "expert")]
            if not ok and third is not None and len(third):
                r = third.iloc[0]
                ok = r.paired_diff - r.paired_half > 0
                verdict = (f"{'yes' if ok else 'not shown'}: seed {meta3['seed']}, {int(r.games):,} games, "
                           f"{_diff(r.paired_diff, r.paired_half)}")
            need, met = need + required, met + (required and ok)
            lines.append(f"| {balance.name(lv)} | {_who(p)} | {_rate(pl.win_rate, pl.low, pl.high)} | "
                         f"{_rate(e.win_rate, e.low, e.high)} | {_diff(e.paired_diff, e.paired_half)} | "
                         f"{again} | {pooled} | {verdict if required else '(planner ≥ 95%)'} |")
    speed = ", ".join(f"{_who(p)} {df[(df.policy == 'expert') & (df.players == p)].games_per_s.mean():,.1f}"
                      for p in sorted(set(df.players)))
    made = f"`{meta['command']}`" + (f" and `{meta2['command']}`" if meta2 else "") + \
        (f"; the third seed: `{meta3['command']}`" if meta3 else "")
    return (f"**{int(df.games.min()):,} games per cell** on each seed, games 0 … N−1 for both policies (paired); "
            f"bold where the 95% interval leaves out zero. \"Above it\" means the pooled interval is above zero "
            f"and the expert is ahead on each seed alone, or, in a cell those two seeds leave open, the interval "
            f"on a third seed with many more games is above zero: so in **{met} of the {need} cells** where the "
            f"planner wins less than 95%. Made by {_stamp(meta)}: {made}. The expert's games per second of one "
            f"worker (mean over the levels; two workers shared the machine): {speed}.\n\n" + "\n".join(lines))


def _budget_rows(df, cells, label):
    """Rows of a budget curve: each cell's planner, then each budget against
    the planner and against the budget before it, with its speed."""
    lines = []
    for key, name in cells:
        c = df[key].set_index("policy")
        lines.append(f"| {name} | planner | {100 * c.loc['planner', 'win_rate']:.1f}% | | | "
                     f"{c.loc['planner', 'games_per_s']:,.0f} |")
        for pol in [q for q in c.index if q.startswith("expert@")]:
            r = c.loc[pol]
            step = _diff(r.step_diff, r.step_half) if "step_diff" in c and pd.notna(r.get("step_diff")) else "–"
            lines.append(f"| {name} | {label} {pol.partition('@')[2]} | {100 * r.win_rate:.1f}% | "
                         f"{_diff(r.paired_diff, r.paired_half)} | {step} | {r.games_per_s:,.1f} |")
    return lines


def mq_expert_budget(root: Path) -> str:
    """The expert's strength against its budget (0.5, the default, to 8)."""
    df, meta = _result(root, "mq-expert/budget.csv")
    cells = [((df.level == lv) & (df.players == p), f"{balance.name(lv)} {_who(p)}")
             for lv in ("medium", "hard") for p in (4, 1) if ((df.level == lv) & (df.players == p)).any()]
    head = ["| cell | player | win rate | against the planner | what the doubling adds | games/s (one worker) |",
            "|---|---|---|---|---|---|"]
    return (f"**{int(df.games.min()):,} games per cell**, the same games for every budget (seed {meta['seed']}); "
            f"each budget against the planner and against the budget before it (paired), bold where the 95% "
            f"interval leaves out zero. Made by {_stamp(meta)}: `{meta['command']}`.\n\n"
            + "\n".join(head + _budget_rows(df, cells, "expert, budget")))


def qm_expert(root: Path) -> str:
    """Quest Master: seat 1 played by the expert or the planner among
    planners, on the same games, again on an independent seed and pooled."""
    df, meta, df2, meta2 = _seeds(root, "qm-expert")
    seed2 = f"seed {meta2['seed']}" if meta2 else "another seed (not made yet)"
    lines = [f"| players | fair share | planner in seat 1, seed {meta['seed']} | expert in seat 1 | expert − planner, "
             f"seed {meta['seed']} | again, {seed2} | both seeds pooled | expert above the planner? | expert games/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    need = met = 0
    for p, g in df.groupby("players"):
        g = g.set_index("policy")
        e = g.loc["expert"]
        again, d, h, pooled, same_sign = _pooled(
            e, None if df2 is None else df2[(df2.players == p) & (df2.policy == "expert")])
        ok = d - h > 0 and same_sign
        need, met = need + 1, met + ok
        lines.append(f"| {p} | {100 / p:.1f}% | {100 * g.loc['planner', 'win_rate']:.1f}% | {100 * e.win_rate:.1f}% | "
                     f"{_diff(e.paired_diff, e.paired_half)} | {again} | {pooled} | {'yes' if ok else 'not shown'} | "
                     f"{e.games_per_s:,.1f} |")
    made = f"`{meta['command']}`" + (f" and `{meta2['command']}`" if meta2 else "")
    return (f"**{int(df.games.min()):,} games per table size** on each seed, games 0 … N−1, every other seat the "
            f"planner (paired: the same characters, seats and decks); bold where the 95% interval leaves out zero. "
            f"\"Above\" means the pooled interval is above zero and the expert is ahead on each seed alone: so at "
            f"**{met} of {need}** table sizes. Made by {_stamp(meta)}: {made}. Games per second of one worker (two "
            f"workers shared the machine).\n\n" + "\n".join(lines))


def qm_expert_budget(root: Path) -> str:
    """Quest Master: the expert's strength in seat 1 against its budget."""
    df, meta = _result(root, "qm-expert/budget.csv")
    cells = [(df.players == p, f"{p} players") for p in sorted(set(df.players))]
    head = ["| table | seat 1 | win rate | against the planner | what the doubling adds | games/s (one worker) |",
            "|---|---|---|---|---|---|"]
    return (f"**{int(df.games.min()):,} games per table size**, the same games for every budget (seed "
            f"{meta['seed']}), every other seat the planner; paired differences, bold where the 95% interval "
            f"leaves out zero. Made by {_stamp(meta)}: `{meta['command']}`.\n\n"
            + "\n".join(head + _budget_rows(df, cells, "expert, budget")))


# block name -> (the Markdown file it sits in, the function that writes it)
MQ, QM, COMMON = "docs/mournequest", "docs/questmaster", "docs/common"
def qm_events(root: Path) -> str:
    """Quest Master's event types, their fields and when each is logged,
    from their one declaration (questsim.replay.EVENTS)."""
    from questsim.replay import EVENTS
    lines = ["| event | fields | when |", "|---|---|---|"]
    for name, fields, when in EVENTS:
        lines.append(f"| `{name}` | {', '.join(f'`{f}`' for f in fields) or '—'} | {when} |")
    return "\n".join(lines)


def mq_events(root: Path) -> str:
    """MourneQuest's event types, their fields and when each is logged, from
    their one declaration (mournesim.events: the fields as decoded, DOCS the
    notes and when)."""
    from mournesim.events import DOCS, fields_of
    lines = ["| event | fields | when |", "|---|---|---|"]
    for names, when, notes in DOCS:
        fields = ", ".join(f"`{f}` ({notes[f]})" if f in notes else f"`{f}`" for f in fields_of(names[0]))
        lines.append(f"| {', '.join(f'`{n}`' for n in names)} | {fields or '—'} | {when} |")
    return "\n".join(lines)


BLOCKS = {"readings": (f"{MQ}/rulings.md", readings),
          "mq-events": (f"{MQ}/replay.md", mq_events),
          "qm-events": (f"{QM}/replay.md", qm_events),
          "qm-readings": (f"{QM}/rulings.md", qm_readings),
          "mq-ladder": (f"{MQ}/policies.md", mq_ladder),
          "qm-ladder": (f"{QM}/policies.md", qm_ladder),
          "mq-decisions": (f"{MQ}/policies.md", mq_decisions),
          "qm-decisions": (f"{QM}/policies.md", qm_decisions),
          "mq-blunders": (f"{MQ}/policies.md", mq_blunders),
          "qm-blunders": (f"{QM}/policies.md", qm_blunders),
          "mq-planner-change": (f"{MQ}/policies.md", mq_planner_change),
          "mq-planner-parts": (f"{MQ}/policies.md", mq_planner_parts),
          "mq-rollout": (f"{MQ}/policies.md", mq_rollout),
          "mq-expert": (f"{MQ}/policies.md", mq_expert),
          "mq-expert-budget": (f"{MQ}/policies.md", mq_expert_budget),
          "qm-expert": (f"{QM}/policies.md", qm_expert),
          "qm-expert-budget": (f"{QM}/policies.md", qm_expert_budget)}
# the balance study (docs/common/balance.md, with one page per game): experiments/balance.py
BLOCKS.update({f"bal-{name.replace('_', '-')}": (f"{where}/balance.md", fn) for where, name, fn in (
    (COMMON, "stamp", balance.stamp), (MQ, "mq_levels", balance.mq_levels), (MQ, "mq_heroes", balance.mq_heroes),
    (MQ, "mq_heroes_by_players", balance.mq_heroes_by_players),
    (MQ, "mq_dice", balance.mq_dice), (MQ, "mq_odds", balance.mq_odds), (MQ, "mq_losses", balance.mq_losses),
    (MQ, "mq_loss_anatomy", balance.mq_loss_anatomy), (MQ, "mq_close_games", balance.mq_close_games),
    (MQ, "mq_skill", balance.mq_skill),
    (QM, "qm_characters", balance_qm.qm_characters), (QM, "qm_characters_by_players", balance_qm.qm_characters_by_players),
    (QM, "qm_seats", balance_qm.qm_seats),
    (QM, "qm_endings", balance_qm.qm_endings), (QM, "qm_closeness", balance_qm.qm_closeness), (QM, "qm_skill", balance_qm.qm_skill), (MQ, "readings", readings),
    (MQ, "sensitivity", balance_levers.sensitivity), (MQ, "targets", balance_levers.targets), (MQ, "quarters", balance_levers.quarters),
    (MQ, "mq_replication", replication.mq), (QM, "qm_replication", replication.qm))})


def render(text: str, name: str, body: str) -> str:
    """``text`` with the generated block ``name`` replaced by ``body``."""
    pat = re.compile(rf"(<!-- generated:{name} -->\n)(?:.*?\n)?(<!-- /generated:{name} -->)", re.S)
    if not pat.search(text):
        raise KeyError(f"no generated:{name} block")
    return pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.tables", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report out-of-date blocks, write nothing")
    ap.add_argument("--root", type=Path, default=ROOT, help="the copy of docs/ and experiments/ to use")
    a = ap.parse_args(argv)
    from experiments import figures
    stale = 0
    for name, (rel, fn) in BLOCKS.items():
        path = a.root / rel
        old = path.read_text()
        new = render(old, name, fn(a.root) + figures.image_line(name))
        if new != old:
            stale += 1
            if a.check:
                print(f"{rel}: generated block {name!r} is out of date")
            else:
                from simcore import atomic      # whole or absent, whatever stops the process
                atomic.write_text(path, new)
                print(f"{rel}: rewrote {name!r}")
    if not a.check:
        figures.write(a.root)       # each drawn from the frame its block prints
    return 1 if a.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
