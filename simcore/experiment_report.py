"""The report of an experiment (simcore.experiment): Markdown tables of every
change with its 95% interval and test, how much pairing tightened them, and
the plots (a forest plot of the changes, a sweep curve or grid, a tornado
chart, the tune curves).

Every value a user supplied (title, question, names, descriptions, settings,
overrides, paths, the command line) goes into report.md through ``md_text``
or ``md_code``, so it reads as exactly that text there and in index.html,
and into a plot through ``_plot_text``."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import identity, paired
from .errors import InputError
from .experiment import BASELINE, base_raw
from .experiment_play import Result
from .present import name_of


# line breaks and other control characters: one space in a report line
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
# what Markdown would read as markup inside a line: escapes, code, emphasis,
# links and images, HTML, headings' closing hashes, table cells,
# strikethrough, and an underscore that is not between two letters or
# digits (win_hp_above stays as it is); a character reference (&lt;) is
# kept as text by writing its & as &amp;
_MD_ACTIVE = re.compile(r"[\\`*\[\]<#|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MD_ENTITY = re.compile(r"&(?=#?\w+;)")


def md_text(value) -> str:
    """``value`` (a user's text) as Markdown that shows exactly that text,
    on one line: every character Markdown would read as markup escaped with
    a backslash (as in CommonMark; simcore.html_report renders the same),
    the ``&`` of a character reference written ``&amp;``, line breaks made
    spaces, so no value can add markup, a heading or a table cell."""
    s = _MD_ENTITY.sub("&amp;", _CONTROL.sub(" ", str(value)).strip())
    return _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), s)


def md_code(value) -> str:
    """``value`` as a Markdown code span: fenced with one backtick more than
    its longest run of backticks (padded where it starts or ends with one),
    line breaks made spaces, so nothing in it can end the span."""
    s = _CONTROL.sub(" ", str(value))
    fence = "`" * (max(map(len, re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s[:1] in ("`", " ") or s[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _plot_text(value) -> str:
    """A user's text in a plot title or label: ``$`` kept as a dollar sign,
    never starting matplotlib's math text (which could fail the report)."""
    return str(value).replace("$", "\\$")


def _pct(x):
    return "" if x != x else f"{100 * x:+.1f} pp"


def _num(x, binary):
    if x != x:
        return ""
    return f"{100 * x:.1f}%" if binary else f"{x:.2f}"


def _change(r, binary):
    if binary:
        return f"{100 * r.change:+.1f} pp [{100 * r.ci95_low:+.1f}, {100 * r.ci95_high:+.1f}]"
    return f"{r.change:+.2f} [{r.ci95_low:+.2f}, {r.ci95_high:+.2f}]"


def _p(p):
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _md(t: pd.DataFrame, literal=()) -> str:
    """``t`` as a Markdown table; the columns named in ``literal`` (those that
    hold a user's values) are escaped with ``md_text``, heading and cells."""
    lit = [c in literal for c in t.columns]
    cell = [md_text if x else str for x in lit]
    lines = ["| " + " | ".join(f(c) for f, c in zip(cell, t.columns)) + " |", "|" + "---|" * len(t.columns)]
    lines += ["| " + " | ".join(f(x) for f, x in zip(cell, row)) + " |" for row in t.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _names(res: Result, game) -> dict:
    """The base ruleset's ``[names]`` (id -> the name a person reads), for
    the cells' ids (a level reads ``Medium``, not ``medium``); none when
    the ruleset file has gone since the games were played."""
    try:
        return dict(base_raw(res.exp, game).get("names", {}))
    except InputError:
        return {}


def comparison_table(res: Result, game, measure) -> pd.DataFrame:
    """One measure's paired changes, readable: cell (ids by their names),
    arm, baseline, variant, change [95% interval], test and p, pairs,
    interval tightening."""
    c = res.comparisons
    c = c[c["measure"] == measure]
    binary = game.MEASURES[measure][0]
    names = _names(res, game)
    rows = []
    for r in c.itertuples(index=False):
        d = r._asdict()
        rows.append({**{k: name_of(names, d[k]) for k in res.keys}, "arm": r.arm, "games": f"{r.n:,}",
                     "baseline": _num(r.baseline, binary), "variant": _num(r.value, binary),
                     "change [95% CI]": _change(r, binary), "test": r.test, "p": _p(r.p_value),
                     "paired CI tighter": "" if r.se_ratio != r.se_ratio else f"{r.se_ratio:.2f}×"})
    return pd.DataFrame(rows)


def summary(res: Result, game) -> str:
    """One line per arm: its change in the primary measure over all cells,
    and the smallest and largest change among the cells."""
    m = res.measures[0]
    binary = game.MEASURES[m][0]
    c = res.comparisons[res.comparisons["measure"] == m]
    lines = ["## Summary\n"]
    names = _names(res, game)
    for arm, g in c.groupby("arm", sort=False):
        pooled = g[g[res.keys[0]] == "all"] if res.keys and (g[res.keys[0]] == "all").any() else g.iloc[:1]
        cells = g.drop(pooled.index)
        r = pooled.iloc[0]
        line = f"- **{md_text(arm)}**: {m} {_num(r.baseline, binary)} → {_num(r.value, binary)}, " \
               f"change {_change(r, binary)} (p {_p(r.p_value)})"
        if len(cells) > 1:
            lo, hi = cells.loc[cells["change"].idxmin()], cells.loc[cells["change"].idxmax()]
            line += (f"; by cell from {_change(lo, binary).split(' [')[0]} "
                     f"({md_text(_cells_label(lo, res.keys, names))}) "
                     f"to {_change(hi, binary).split(' [')[0]} ({md_text(_cells_label(hi, res.keys, names))})")
        lines.append(line)
    return "\n".join(lines) + "\n"


def pairing_summary(res: Result) -> str:
    """A sentence on the variance reduction pairing gave (primary measure)."""
    c = res.comparisons
    if c.empty:
        return ""
    c = c[(c["measure"] == res.measures[0]) & c["se_ratio"].notna()]
    if res.keys and (c[res.keys[0]] != "all").any():
        c = c[c[res.keys[0]] != "all"]          # one figure per cell of games
    if c.empty:
        return ""
    ratio = float(np.median(c["se_ratio"]))
    vr = float(np.median(c["variance_reduction"]))
    return (f"**Pairing.** Every arm played the same `(seed, game)` pairs as the baseline. For "
            f"{md_code(res.measures[0])}, the paired intervals are a median **{ratio:.2f}× narrower** than "
            f"independent games would give (range {c['se_ratio'].min():.2f}–{c['se_ratio'].max():.2f}×): "
            f"pairing removed {100 * vr:.0f}% of the variance, worth about {ratio ** 2:.1f}× as many "
            f"unpaired games.\n")


def arm_levels(res: Result, game, measure) -> pd.DataFrame:
    """Each arm's own value of a measure per cell, with its interval."""
    binary = game.MEASURES[measure][0]
    rows = []
    for key, g in res.frame.groupby(["arm", *res.keys], observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        m, lo, hi = paired.mean_interval(g[measure], binary)
        rows.append(dict(zip(["arm", *res.keys], key), games=len(g), value=m, ci95_low=lo, ci95_high=hi))
    return pd.DataFrame(rows)


def markdown(res: Result, game, plots=(), command="") -> str:
    """The whole report as Markdown."""
    e = res.exp
    out = [f"# {md_text(e.title)}\n"]
    if md_text(e.question):
        out.append(f"*{md_text(e.question)}*\n")
    base = {k: v for k, v in e.base.items() if k != "ruleset"}
    out.append("## Set-up\n")
    out.append(f"- game: {md_text(e.game)}; kind: {e.kind}; seed {e.seed}; "
               f"{res.frame.groupby(['arm', *res.keys], observed=True).size().max() if len(res.frame) else 0:,} "
               "games per cell and arm"
               + (f" (target half-width {e.target_ci}: rounds " +
                  ", ".join(f"{n:,} games → ±{100 * w:.2f} pp" for n, w in res.rounds) + ")" if res.rounds else ""))
    out.append(f"- base: {md_code(json.dumps(base))}" + (f"; ruleset {md_code(Path(str(e.base['ruleset'])).name)}"
                                                           if e.base.get("ruleset") else "; the shipped ruleset"))
    out.append(f"- {identity.describe(game.PROG)}")
    if command:
        out.append(f"- command: {md_code(command)}")
    notes = {v.name: v.description for v in e.variant or []}
    notes.update({f"{f.name} {way}": f.description for f in (e.sensitivity.family if e.sensitivity else [])
                  for way in ("down", "up")})
    for a in res.arms:
        if a.name != BASELINE and e.kind != "policy_tune":
            out.append(f"- arm **{md_text(a.name)}**: " + ", ".join(md_code(o) for o in a.overrides)
                       + (f" — {md_text(notes[a.name])}" if md_text(notes.get(a.name, "")) else ""))
    out.append("")
    if e.kind == "tune":
        out.append(_tune_md(res, game))
    elif e.kind == "policy_tune":
        out.append(_policy_tune_md(res, game))
        if not res.comparisons.empty:
            out.append(summary(res, game))
            for m in res.measures:
                out.append(f"## {md_text(m)}: {md_text(game.MEASURES[m][1])}\n")
                out.append(_md(comparison_table(res, game, m), ["arm", *res.keys]))
    else:
        if e.kind == "sensitivity":
            out.append("## Ranking (tornado)\n")
            out.append(_md(tornado_table(res, game), ["parameter", "value", "down to", "up to"]))
        out.append(summary(res, game))
        out.append(pairing_summary(res))
        for m in res.measures:
            out.append(f"## {md_text(m)}: {md_text(game.MEASURES[m][1])}\n")
            out.append(_md(comparison_table(res, game, m), ["arm", *res.keys]))
    if not (t := turned_games(res, game)).empty:
        out.append("## Games the change turned\n")
        out.append(f"For each arm and cell, the first games (by number, seed {e.seed}) whose "
                   f"{md_text(res.measures[0])} the arm changed, each way. A number opens that game in the studio's "
                   f"replay viewer as the arm played it, its decisions listed (start the studio first: "
                   f"{md_code(game.PROG + ' studio')}); the baseline's play of it is the same address without "
                   "the arm's overrides.\n")
        out.append(_md(t, ["arm", *res.keys]))
    if plots:
        out.append("## Plots\n")
        out += [f"![{md_text(Path(p).stem)}]({Path(p).name})\n" for p in plots]
    out.append("Changes are variant − baseline on the same games; 95% intervals are normal intervals of the "
               "paired differences; p is McNemar's test (win/loss measures) or the paired t-test. "
               "Rates are Wilson 95% intervals.\n")
    return "\n".join(out)


TURNED = 2        # games shown each way per arm and cell


def turned_games(res: Result, game) -> pd.DataFrame:
    """Per variant arm and cell, the first games whose primary (win/loss)
    measure the arm turned, each way (simcore.paired.turned), each number a
    Markdown link to the studio's replay of that game as the arm played it
    where the studio can play it (:func:`play_address`); empty for a count
    measure or a tune."""
    m = res.measures[0] if res.measures else None
    if m is None or not game.MEASURES[m][0] or res.frame.empty or res.exp.kind in ("tune", "policy_tune"):
        return pd.DataFrame()
    names = _names(res, game)
    rows = []
    for a in res.arms:
        if a.name == BASELINE:
            continue
        for cell, g in res.frame.groupby(res.keys, observed=True, sort=False):
            cell = dict(zip(res.keys, cell if isinstance(cell, tuple) else (cell,)))
            t = paired.turned(g, m, a.name, BASELINE, TURNED)
            links = {way: ", ".join(f"[{n}]({url})" if (url := play_address(res, game, a, cell, n)) else str(n)
                                    for n in games) or "–" for way, games in t.items()}
            rows.append({**{k: name_of(names, v) for k, v in cell.items()}, "arm": a.name,
                         f"{m} with the arm, not in the baseline": links["won"],
                         f"{m} in the baseline, not with the arm": links["lost"]})
    return pd.DataFrame(rows)


def play_address(res: Result, game, arm, cell: dict, number: int):
    """The studio's address of game ``number`` of ``cell`` as ``arm`` played
    it (``/play``: the experiment's base with the cell's values, its seed,
    the base's and the arm's overrides), or None where the studio cannot
    play it (a ruleset file, policy parameters of the arm's own)."""
    from .report import play_url
    e = res.exp
    if e.base.get("ruleset") or arm.params or e.base.get("params"):
        return None
    base = {k: v for k, v in e.base.items() if k in game.BASE and k not in ("ruleset", "set", "params")}
    base.update(cell)
    if any(isinstance(v, (list, tuple)) for v in base.values()):
        return None          # a grid axis the table does not name
    sets = list(e.base.get("set", [])) + list(arm.overrides)
    return play_url(base, e.seed, int(number), sets)


def tornado_table(res: Result, game) -> pd.DataFrame:
    """Sensitivity: each parameter's change down and up (primary measure, all
    cells pooled), largest effect first."""
    m = res.measures[0]
    binary = game.MEASURES[m][0]
    c = res.comparisons
    c = c[c["measure"] == m]
    if res.keys:
        pooled = c[(c[res.keys[0]] == "all")] if (c[res.keys[0]] == "all").any() else c
    else:
        pooled = c
    by_arm = {r.arm: r for r in pooled.itertuples(index=False)}
    rows = []
    for a in res.arms:
        if a.values.get("direction") != "down":
            continue
        p = a.values["param"]
        dn, up = by_arm[f"{p} down"], by_arm[f"{p} up"]
        rows.append({"parameter": p, "value": a.values["from"], "down to": a.values[p],
                     "up to": next(x.values[p] for x in res.arms if x.name == f"{p} up"),
                     "change down": _change(dn, binary), "change up": _change(up, binary),
                     "_size": max(abs(dn.change), abs(up.change))})
    t = pd.DataFrame(rows).sort_values("_size", ascending=False)
    return t.drop(columns="_size")


def _unreachable(s) -> str:
    """What to do when a tune target lies outside what its range gives."""
    rates = [r for _v, r, *_ in s["tries"]]
    return (f"not reached: over the range the rate runs from {100 * min(rates):.1f}% to {100 * max(rates):.1f}%; "
            "widen the target's range (or aim inside that span)")


def _tune_md(res: Result, game) -> str:
    out = ["## Solved values\n"]
    m = res.exp.tune.measure
    rows = []
    for s in res.tune:
        rows.append({"target": s["name"], "cell": json.dumps(s["cell"]), "aim": f"{100 * s['target']:.0f}%",
                     "current value": s["current"], "solved value": s["value"],
                     f"{m} at solved value [95% CI]": f"{100 * s['rate']:.1f}% [{100 * s['ci95_low']:.1f}, "
                                                      f"{100 * s['ci95_high']:.1f}]",
                     "games": f"{s['games']:,}", "note": "" if s["reachable"] else _unreachable(s)})
    out.append(_md(pd.DataFrame(rows), ["target", "cell", "current value", "solved value"]))
    out.append("Every try played the same games (paired seeds), so the tries differ only by the parameter.\n")
    for s in res.tune:
        out.append(f"### {md_text(s['name'])}: tries\n")
        out.append(_md(pd.DataFrame([{"value": v, m: f"{100 * r:.1f}%", "95% CI": f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                                      "games": f"{n:,}"} for v, r, lo, hi, n in s["tries"]]), ["value", m]))
    return "\n".join(out)


def _policy_tune_md(res: Result, game) -> str:
    t = res.tune[0]
    pt = res.exp.policy_tune
    out = ["## The search\n",
           f"NTBEA (simcore/ntbea.py) over the parameters of **{md_text(t['policy'])}**: {t['evaluations']} evaluations of "
           f"{t['games_per_eval']:,} games per cell each ({pt.batch} points a step on the same games, fresh games "
           f"each step), exploration k = {pt.k:g}, {pt.neighbours} neighbours a step, measure {md_code(pt.measure)} "
           f"(all cells pooled).\n"]
    rows = [{"parameter": n, "grid": ", ".join(f"{v:g}" for v in t["grids"][n]),
             "start": f"{t['start'][t['names'].index(n)]:g}", "recommended": f"{t['tuned'][t['names'].index(n)]:g}"}
            for n in t["tuned_names"]]
    out.append(_md(pd.DataFrame(rows), ["parameter"]))
    full = ",".join(f"{v:g}" for v in t["tuned"])
    out.append(f"The search's own estimate of the recommendation: {100 * t['estimate']:.1f}% "
               f"(biased upwards: it is the best of many noisy estimates). Its full parameter vector: "
               f"{md_code('--params ' + full)}.\n")
    out.append(f"## The check\n\nThe starting parameters (`baseline`) and the recommendation (`tuned`) then "
               f"played {res.frame.groupby(['arm', *res.keys], observed=True).size().max():,} fresh games per cell "
               f"(games {t['check_first']:,} on, none of which the search saw), paired; the change below is the "
               f"honest estimate.\n" if len(res.arms) > 1 else
               "## The check\n\nThe search recommends the starting parameters: nothing to compare.\n")
    return "\n".join(out)


# ---------------------------------------------------------------- plots --

def _cells_label(row, keys, names=None):
    return ", ".join(f"{k} {name_of(names or {}, row[k])}" for k in keys)


def forest(res: Result, game, ax):
    """Every arm's change in the primary measure, per cell, with intervals."""
    m = res.measures[0]
    binary = game.MEASURES[m][0]
    c = res.comparisons[res.comparisons["measure"] == m].reset_index(drop=True)
    scale = 100 if binary else 1
    varying = [k for k in res.keys if c.loc[c[k] != "all", k].nunique() > 1]     # label only what differs
    names = _names(res, game) if varying else {}
    labels = [_plot_text(f"{r['arm']} — {_cells_label(r, varying, names)}" if varying else r["arm"])
              for _, r in c.iterrows()]
    y = np.arange(len(c))[::-1]
    ax.errorbar(c["change"] * scale, y, xerr=[(c["change"] - c["ci95_low"]) * scale,
                                            (c["ci95_high"] - c["change"]) * scale],
                fmt="o", capsize=3, color="#1565c0")
    ax.axvline(0, color="grey", ls="--")
    ax.set_yticks(y, labels, fontsize="small")
    ax.set_xlabel(f"change in {m}" + (" (percentage points, 95% interval)" if binary else " (95% interval)"))
    ax.set_ylabel("variant — cell")
    ax.set_title(f"{_plot_text(res.exp.title)}: change against the baseline")


def sweep_curve(res: Result, game, ax):
    """The primary measure along the swept value, one line per cell, with bands."""
    m = res.measures[0]
    binary = game.MEASURES[m][0]
    p = res.exp.sweep.param
    t = arm_levels(res, game, m)
    t["x"] = t["arm"].map({a.name: a.values[p] for a in res.arms})
    cur = next(a.values[p] for a in res.arms if a.name == BASELINE)
    groups = t.groupby(res.keys, observed=True, sort=True) if res.keys else [((), t)]
    for key, g in groups:
        g = g.sort_values("x")
        key = key if isinstance(key, tuple) else (key,)
        label = _plot_text(", ".join(f"{k} {v}" for k, v in zip(res.keys, key)) or m)
        line, = ax.plot(g["x"], g["value"], "o-", label=label)
        ax.fill_between(g["x"], g["ci95_low"], g["ci95_high"], alpha=0.2, color=line.get_color())
    ax.axvline(cur, color="grey", ls="--", label=f"ruleset value {cur}")
    ax.set_xlabel(_plot_text(p))
    ax.set_ylabel(f"{m}" + (" rate" if binary else "") + " (95% band)")
    if binary:
        ax.set_ylim(0, 1)
    ax.set_title(_plot_text(res.exp.title))
    ax.legend(fontsize="small")


def sweep_grid(res: Result, game, ax):
    """Two-parameter sweep: the primary measure (all cells pooled) on the grid."""
    m = res.measures[0]
    binary = game.MEASURES[m][0]
    sw = res.exp.sweep
    by_arm = res.frame.groupby("arm")[m].mean()
    grid = np.full((len(sw.values2), len(sw.values)), np.nan)
    for a in res.arms:
        if a.values[sw.param] in sw.values and a.values[sw.param2] in sw.values2:
            grid[sw.values2.index(a.values[sw.param2]), sw.values.index(a.values[sw.param])] = by_arm[a.name]
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(sw.values)), [_f(v) for v in sw.values])
    ax.set_yticks(range(len(sw.values2)), [_f(v) for v in sw.values2])
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            ax.text(j, i, _num(grid[i, j], binary), ha="center", va="center", color="white", fontsize="small")
    ax.set_xlabel(_plot_text(sw.param))
    ax.set_ylabel(_plot_text(sw.param2))
    ax.figure.colorbar(im, ax=ax, label=m)
    ax.set_title(f"{_plot_text(res.exp.title)} (all cells)")
    ax.grid(False)


def _f(v):
    return f"{v:g}"


def tornado(res: Result, game, ax):
    """Sensitivity: bars from the down change to the up change, largest first."""
    m = res.measures[0]
    binary = game.MEASURES[m][0]
    scale = 100 if binary else 1
    c = res.comparisons[res.comparisons["measure"] == m]
    if res.keys and (c[res.keys[0]] == "all").any():
        c = c[c[res.keys[0]] == "all"]
    by_arm = {r.arm: r for r in c.itertuples(index=False)}
    rows = []
    for a in res.arms:
        if a.values.get("direction") == "down":
            p = a.values["param"]
            rows.append((p, by_arm[f"{p} down"], by_arm[f"{p} up"]))
    rows.sort(key=lambda r: max(abs(r[1].change), abs(r[2].change)))
    for i, (p, dn, up) in enumerate(rows):
        for r, colour, tag, y in ((dn, "#c62828", "down", i - 0.19), (up, "#2e7d32", "up", i + 0.19)):
            ax.barh(y, r.change * scale, height=0.36, color=colour, alpha=0.7, label=tag if i == 0 else None)
            ax.errorbar(r.change * scale, y, xerr=[[(r.change - r.ci95_low) * scale], [(r.ci95_high - r.change) * scale]],
                        fmt="none", color="black", capsize=3)
    ax.set_yticks(range(len(rows)), [_plot_text(p) for p, _, _ in rows], fontsize="small")
    ax.axvline(0, color="grey")
    ax.set_xlabel(f"change in {m}" + (" (percentage points, 95% interval)" if binary else ""))
    ax.set_ylabel("parameter (nudged down / up)")
    ax.set_title(f"{_plot_text(res.exp.title)}: sensitivity")
    ax.legend(fontsize="small")


def tune_curves(res: Result, game, ax):
    """Tune: each target's tries (rate with interval) and its aim."""
    for s in res.tune:
        v = np.array([t[0] for t in s["tries"]], float)
        r = np.array([t[1] for t in s["tries"]])
        lo = np.array([t[2] for t in s["tries"]])
        hi = np.array([t[3] for t in s["tries"]])
        # clipped: at a rate of 0 or 1 Wilson's bound can sit a rounding error past it
        eb = ax.errorbar(v, r, yerr=[np.clip(r - lo, 0, None), np.clip(hi - r, 0, None)], fmt="o-", capsize=3,
                         label=f"{_plot_text(s['name'])} (aim {s['target']:.0%})")
        colour = eb[0].get_color()
        ax.axhline(s["target"], color=colour, ls=":")
        ax.plot([s["value"]], [s["rate"]], "*", ms=14, color=colour)
    ax.set_xlabel("parameter value (each target's own parameter)")
    ax.set_ylabel(f"{res.exp.tune.measure} rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{_plot_text(res.exp.title)}: tries (star = solved value)")
    ax.legend(fontsize="small")


def tune_trace(res: Result, game, ax):
    """policy_tune: every evaluation's fitness and the best so far."""
    tr = pd.DataFrame(res.tune[0]["trace"])
    ax.plot(tr["eval"], tr["fitness"], ".", color="#90a4ae", label="evaluation (noisy)")
    ax.plot(tr["eval"], tr["fitness"].cummax(), "-", color="#1565c0", label="best evaluation so far")
    ax.set_xlabel("evaluation")
    ax.set_ylabel(f"{res.exp.policy_tune.measure} (all cells)")
    ax.set_title(f"{_plot_text(res.exp.title)}: NTBEA search")
    ax.legend(fontsize="small")


def plots_for(res: Result) -> dict:
    """The plots that suit the experiment's kind."""
    k = res.exp.kind
    if k == "tune":
        return {"tune": tune_curves}
    if k == "policy_tune":
        return {"search": tune_trace} | ({"changes": forest} if not res.comparisons.empty else {})
    if k == "sensitivity":
        return {"tornado": tornado, "changes": forest}
    if k == "sweep":
        return {"sweep": sweep_grid if res.exp.sweep.param2 else sweep_curve, "changes": forest}
    return {"changes": forest}


def tune_tries(res: Result) -> pd.DataFrame:
    """A tune's every try as a table (``tune.csv``): per target and value the
    rate with its interval; ``solved`` marks the value reported as the
    answer, ``reachable`` whether the target lies within the range's rates."""
    rows = []
    for t in res.tune:
        for v, rate, lo, hi, n in t["tries"]:
            rows.append(dict(target=t["name"], param=t["param"], cell=json.dumps(t["cell"], sort_keys=True),
                             aim=t["target"], current=t["current"], value=v, rate=rate, ci95_low=lo, ci95_high=hi,
                             games=n, solved=v == t["value"], reachable=t["reachable"]))
    return pd.DataFrame(rows)


def write(res: Result, game, out, command="") -> Path:
    """Write ``report.md``, the plots, ``comparisons.csv`` and ``index.html``
    (the report as one self-contained page) into ``out``: an output
    directory held as the tool's own (simcore.outdir.Owned: each file
    recorded and written atomically), or a path, then held here (new,
    empty, or written by an experiment before); returns the report's path."""
    from .html_report import markdown_page
    from .outdir import Owned, owned
    from .plots import plt          # matplotlib only when a report is written
    if not isinstance(out, Owned):
        with owned(out, "the experiment's report") as held:
            return write(res, game, held, command)
    paths = []
    for name, draw in plots_for(res).items():
        n = len(res.comparisons[res.comparisons["measure"] == res.measures[0]]) if not res.comparisons.empty else 8
        fig, ax = plt.subplots(figsize=(9, max(4.5, 0.32 * n + 1.5)) if name in ("changes", "tornado") else (9, 5.5),
                               layout="constrained")
        try:
            draw(res, game, ax)
            if name != "sweep" or not res.exp.sweep.param2:
                ax.grid(alpha=0.3)
            paths.append(out.save_figure(fig, f"{name}.png", dpi=110))
        finally:
            plt.close(fig)
    if not res.comparisons.empty:
        out.write_with("comparisons.csv", lambda tmp: res.comparisons.to_csv(tmp, index=False))
    if res.exp.kind == "tune":
        out.write_with("tune.csv", lambda tmp: tune_tries(res).to_csv(tmp, index=False))
    md = markdown(res, game, paths, command)
    report = out.write_text("report.md", md)
    # the same report as one page to open or mail: index.html, plots inside
    out.write_text("index.html", markdown_page(md, out.path))
    return report
