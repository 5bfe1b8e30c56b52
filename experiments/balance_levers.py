"""The study's blocks on what moves MourneQuest's balance: the sensitivity
screen (families of numbers nudged one step each way, Holm over the whole
screen) and the disc lengths for a target difficulty (the tune's answers per
level and player count, one length per level, the printable variants), with
the frame the tornado figure draws. Built on the helpers of
``experiments.balance``; ``experiments.tables`` fills the blocks."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.balance import (HOLDS, PLAYERS_MQ, RES, _manifest, _pp, arm_descriptions, holm_note, name,
                                 survivors)

def sensitivity(root) -> str:
    """The families of numbers that move a competent Medium team most, solo
    and with four players (tornado), with the ones no game noticed named."""
    c = sensitivity_frame(root)
    c["holds"] = survivors(c["p_value"].to_numpy())       # the whole screen is one family
    counts = list(dict.fromkeys(c["players"]))
    head = " | ".join(f"{PLAYERS_MQ[n]}: one step {w}" for n in counts for w in ("down", "up"))
    lines = [f"| numbers nudged together | {head} |", "|---|" + "---|" * (2 * len(counts))]
    for p, g in c.groupby("param", sort=False):
        g = g.set_index(["players", "way"])
        cells = []
        for n in counts:
            for w in ("down", "up"):
                r = g.loc[(n, w)] if (n, w) in g.index else None
                cells.append("—" if r is None else _pp(r, "low", "high") + (HOLDS if r["holds"] else "")
                             + (" (no game changed)" if r["unchanged"] else ""))
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    games = int(c["n"].max())
    lines.append("\n" + holm_note(int(c["holds"].sum()), f"the screen's {len(c)} nudges"))
    still = [p for p, g in c.groupby("param", sort=False) if g["unchanged"].all()]
    if still:
        why = arm_descriptions(Path(root) / RES / "rules-sensitivity" / "report.md")
        lines.append(f"\nNo game's result or length changed, in {games:,} games a cell, when "
                     + _and(still) + " moved one step either way: the games never reach "
                     + ("that limit" if len(still) == 1 else "those limits") + ", so "
                     + ("it is" if len(still) == 1 else "they are") + " no lever. "
                     + " ".join(f"{p}: {why[p + ' down']}." for p in still if why.get(p + " down")))
    return "\n".join(lines)


def _and(words) -> str:
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _solved(root, folder):
    """A disc-length tune's every try and its solved rows (None when it was not run)."""
    f = Path(root) / RES / folder / "tune.csv"
    if not f.exists():
        return None, None
    t = pd.read_csv(f)
    return t, t[t["solved"]].set_index("target")


def _slope(t, target, v):
    """The win rate's change per click at the answer ``v``: the mean of the
    one-click steps beside it that the tune tried (``v-1 -> v``, ``v -> v+1``;
    bisection leaves at least one). A slope across tries further apart would
    average the steep middle of the curve with its flat ends."""
    tries = t[t["target"] == target].set_index("value")["rate"]
    steps = [tries[b] - tries[a] for a, b in ((v - 1, v), (v, v + 1)) if a in tries.index and b in tries.index]
    return float(np.mean(steps)) if steps else np.nan


def targets(root) -> str:
    """The disc lengths that would put a competent team (the planner) and a
    skilled one (the expert) at 75 / 50 / 25%, and how far skill moves each."""
    t, s = _solved(root, "disc-length-tune")
    te, se = _solved(root, "disc-length-tune-skilled")
    lines = ["| level, players | aim | disc length now | competent team: disc for the aim | planner's win rate there | "
             "one click more or less | the aim inside that interval? | skilled team: disc for the aim | "
             "expert's win rate there | competent → skilled |", "|---|---|---|---|---|---|---|---|---|---|"]
    slopes, moves = [], []
    for target, r in s.iterrows():
        v = r["value"]
        slope = _slope(t, target, v)
        slopes.append(slope)
        skilled = "— | — | — |"
        if se is not None and target in se.index:
            e = se.loc[target]
            moves.append(int(e["value"]) - int(v))
            reach = "" if e["reachable"] else " (not reachable in 2–60 clicks)"
            d = moves[-1]
            move = "the same" if d == 0 else f"{d:+d} click{'' if abs(d) == 1 else 's'}".replace("-", "−")
            skilled = (f"**{e['value']}**{reach} | {100 * e['rate']:.1f}% [{100 * e['ci95_low']:.1f}, "
                       f"{100 * e['ci95_high']:.1f}] | {move} |")
        lines.append(f"| {target} | {100 * r['aim']:.0f}% | {r['current']} | **{v}** | "
                     f"{100 * r['rate']:.1f}% [{100 * r['ci95_low']:.1f}, {100 * r['ci95_high']:.1f}] | "
                     f"{'%+.1f pp a click' % (100 * slope) if slope == slope else '—'} | "
                     f"{_aim_inside(r)} | {skilled}")
    shorter = int((s["value"] < s["current"]).sum())
    by = {tuple(json.loads(c).values()): v for c, v in zip(s["cell"], s["value"])}
    solo_shorter = all(by.get((lv, 1), 0) < by.get((lv, 4), 0) for lv in ("easy", "medium", "hard"))
    text = (f"For {shorter} of the {len(s)} targets the disc would be shorter than shipped"
            + (": with the planner playing, the shipped lengths make every level easier than the aim. "
               if shorter == len(s) else ". ")
            + f"Near the answer one click moves a competent team's win rate by {100 * np.nanmin(slopes):.0f}–"
            f"{100 * np.nanmax(slopes):.0f} percentage points (the column \"one click\": a longer disc is easier)"
            + ("; every level needs a shorter disc solo than with four players for the same aim."
               if solo_shorter else "."))
    if moves:
        m = np.array(moves)
        short = m[m < 0]
        by = "" if not len(short) else (f" (by {-short.max()} click{'' if short.max() == -1 else 's'})"
                                         if short.min() == short.max() else f" (by {-short.max()} to {-short.min()} clicks)")
        text += (f" For a skilled team (the expert at its default budget; {int(te['games'].max()):,} games a try "
                 f"against the competent team's {int(t['games'].max()):,}, so a skilled answer may be a click off) "
                 f"the disc for the same aim is shorter in {len(short)} of the {len(m)} targets{by}, the same "
                 f"in {int((m == 0).sum())} and longer in {int((m > 0).sum())}.")
    inside = sum(_aim_inside(r) == "yes" for _n, r in s.iterrows())
    text += (f" The disc length is a whole number of clicks, so the nearest length can miss the aim: its interval "
             f"contains the aim in {inside} of the {len(s)} targets.")
    return text + "\n\n" + "\n".join(lines) + "\n\n" + _one_length(t, s, te, se) + _printable(root, s)


def _aim_inside(r) -> str:
    """Whether a solved target's interval contains its aim (and why not)."""
    if not r["reachable"]:
        return "no: outside the range of 2–60 clicks"
    if r["ci95_low"] <= r["aim"] <= r["ci95_high"]:
        return "yes"
    return f"no: the nearest length misses by {100 * abs(r['rate'] - r['aim']):.1f} pp"


def _one_length_rows(t, s):
    """For each level, the one disc length whose worst miss of the aim over
    1–4 players is smallest: each player count's win rate at a length read
    from the tune's tries (linear between the two tried lengths beside it;
    a length it did not try is marked)."""
    rows = []
    for lv in ("easy", "medium", "hard"):
        cells = [n for n in s.index if json.loads(s.loc[n, "cell"])["level"] == lv]
        if not cells:
            continue
        aim = float(s.loc[cells[0], "aim"])
        curves = {n: t[t["target"] == n].groupby("value")["rate"].mean().sort_index() for n in cells}
        lo = max(int(c.index.min()) for c in curves.values())
        hi = min(int(c.index.max()) for c in curves.values())
        best = None
        for v in range(lo, hi + 1):
            at = {n: float(np.interp(v, c.index, c.to_numpy())) for n, c in curves.items()}
            worst = max(abs(x - aim) for x in at.values())
            if best is None or worst < best[1]:
                best = (v, worst, at)
        v, worst, at = best
        by_p = {json.loads(s.loc[n, "cell"])["players"]: (at[n], v in curves[n].index) for n in at}
        rows.append((lv, aim, v, worst, by_p, int(s.loc[cells[0], "current"])))
    return rows


def _one_length(t, s, te=None, se=None) -> str:
    """One disc length per level for every player count, for the competent
    team and (when its tune was run) the skilled one."""
    teams = [("competent (the planner)", t, s)] + ([("skilled (the expert)", te, se)] if se is not None else [])
    head = ("| level | aim | team | one disc length | " + " | ".join(PLAYERS_MQ[p] for p in (1, 2, 3, 4))
            + " | worst miss |")
    lines = [head, "|---" * 9 + "|"]
    by_level = {}      # level -> each team's row, competent first
    for who, tt, ss in teams:
        for lv, *row in _one_length_rows(tt, ss):
            by_level.setdefault(lv, []).append((who, *row))
    best = {lv: [r[2] for r in rows] for lv, rows in by_level.items()}
    for lv, rows in by_level.items():
        for who, aim, v, worst, by_p, now in rows:
            cells = [f"{100 * by_p[p][0]:.1f}%" + ("" if by_p[p][1] else "*") if p in by_p else "–"
                     for p in (1, 2, 3, 4)]
            lines.append(f"| {name(lv)} | {100 * aim:.0f}% | {who} | **{v}** (now {now}) | " + " | ".join(cells)
                         + f" | {100 * worst:.1f} pp |")
    moved = [f"{name(lv)} {vs[0]} → {vs[1]}" for lv, vs in best.items() if len(vs) == 2 and vs[0] != vs[1]]
    skilled = ""
    if se is not None:
        skilled = (" For a skilled team (its tune plays fewer games a try, so read its lengths as ±1 click) the one "
                   "length is " + ("the same at every level." if not moved else
                                   "different: " + ", ".join(moved) + " clicks (competent → skilled)."))
    return ("**One length per level.** The ruleset has one disc length per level for every player count, so a "
            "printable answer is the one length whose worst miss of the aim over solo to four players is "
            "smallest (each team's win rate at each player count; * : a length the tune did not try, read "
            "linearly between the two tried lengths beside it, so measure it before printing). Where the worst "
            "miss is large, no single length serves every player count: the rule would need its length by "
            "player count." + skilled + "\n\n" + "\n".join(lines))


PRINTABLE = "disc-lengths-by-players"      # the experiment that plays the printable answers
QUARTERS = "disc-quarter-clicks"           # the quarter-click steps around the tune's answer for each cell
TOKENS = "disc-quarter-tokens"             # Compass Tokens and quarter steps around the quarter-click answers


def family_z(cells: int) -> float:
    """The normal quantile of a two-sided interval at the family-wise 95%
    level over ``cells`` intervals (Bonferroni)."""
    from statistics import NormalDist
    return NormalDist().inv_cdf(1 - 0.05 / (2 * cells))


def _printable(root, s) -> str:
    """The printable answers played in every cell on the same games as
    the shipped lengths (``experiments/disc-lengths-by-players.toml``): each
    cell's win rate with its Wilson interval, and how far from its aim."""
    f = Path(root) / RES / PRINTABLE / "comparisons.csv"
    if not f.exists():
        return ""
    from simcore.stats import wilson
    c = pd.read_csv(f, dtype={"players": str})
    c = c[(c["measure"] == "win") & c["players"].str.isdigit()]
    aims = {(json.loads(cell)["level"], json.loads(cell)["players"]): (a, v)
            for cell, a, v in zip(s["cell"], s["aim"], s["value"])}
    arms = list(dict.fromkeys(c["arm"]))
    lines = ["| level | players | aim | shipped lengths | " + " | ".join(arms) + " |", "|---" * (4 + len(arms)) + "|"]
    miss = {a: [] for a in arms}
    inside = {a: 0 for a in arms}
    family = {a: 0 for a in arms}
    n = len(c.groupby(["level", "players"]))
    zf = family_z(n)

    def cell(rate, n, aim):
        lo, hi = wilson(round(rate * n), n)
        return f"{100 * rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]", lo <= aim <= hi
    for (lv, p), g in c.groupby(["level", "players"], sort=False):
        g = g.set_index("arm")
        aim, length = aims[(lv, int(p))]
        base, _ = cell(g.iloc[0]["baseline"], int(g.iloc[0]["n"]), aim)
        out = []
        for a in arms:
            text, ok = cell(g.loc[a, "value"], int(g.loc[a, "n"]), aim)
            lo, hi = wilson(round(g.loc[a, "value"] * g.loc[a, "n"]), int(g.loc[a, "n"]), zf)
            miss[a].append(abs(g.loc[a, "value"] - aim))
            inside[a] += ok
            family[a] += lo <= aim <= hi
            out.append(f"**{text}**" if ok else text)
        lines.append(f"| {name(lv)} | {PLAYERS_MQ[int(p)]} | {100 * aim:.0f}% | {base} | " + " | ".join(out) + " |")
    said = "; ".join(f"with {a} the worst miss is {100 * max(miss[a]):.1f} pp and the aim is inside the interval "
                     f"in {inside[a]} of {n} cells ({family[a]} of {n} at the family-wise level)" for a in arms)
    said = said[:1].upper() + said[1:]
    return ("\n\n**The printable answers played.** The competent team's one length per level above; the smallest rule "
            "variant that gives each player count its own length (`levels.<level>.disc_clicks_by_players`, the "
            "competent team's disc for each aim from the first table); and the same in quarter clicks, some of "
            "the four Discs set one click shorter (`levels.<level>.short_discs_by_players`: of the seven quarter "
            f"steps from ¾ click shorter to ¾ click longer, `experiments/{QUARTERS}.toml`, 4,000 games each, the "
            "one nearest each aim); and that with Compass Tokens by player count, a finer step "
            "(`levels.<level>.compass_tokens_by_players`: of the quarter steps a quarter click either side of "
            f"the quarter-click answer and the answer itself, each with 4 to 8 tokens, `experiments/{TOKENS}.toml`, "
            "16,000 games each on seed 3, the one nearest each aim). Each is played in every cell on the same "
            "games as the shipped lengths "
            f"(`experiments/{PRINTABLE}.toml`, {_setup_of(root)}); bold: the aim inside the interval. "
            f"{said}. A variant that hit every aim exactly would still show an aim outside its 95% interval "
            f"somewhere in {n} cells about {100 * (1 - 0.95 ** n):.0f}% of the time; the family-wise level widens "
            f"each interval to {100 * (1 - 0.05 / n):.1f}% (Bonferroni over the {n} cells), so that a variant "
            "hitting every aim shows all of them inside it 95% of the time.\n\n" + "\n".join(lines))


QUARTERS_SKILLED = "disc-quarter-clicks-skilled"     # the same for a skilled team (the expert)
# each team's quarter-click scan, and the disc-length tune whose answers it steps around
SCANS = (("competent (the planner)", QUARTERS, "disc-length-tune"),
         ("skilled (the expert)", QUARTERS_SKILLED, "disc-length-tune-skilled"))
STEPS = {-3: "−¾", -2: "−½", -1: "−¼", 0: "±0", 1: "+¼", 2: "+½", 3: "+¾"}     # quarter clicks from the answer


def _step_totals(root, folder) -> dict:
    """Each arm of a quarter-click scan -> level -> the four Discs' clicks
    together at each player count (read from the experiment's own file)."""
    import tomllib
    exp = tomllib.loads((Path(root) / "experiments" / f"{folder}.toml").read_text(encoding="utf-8"))
    out = {}
    for v in exp["variant"]:
        sets = dict(x.split("=", 1) for x in v["set"])
        out[v["name"]] = {lv: [4 * c - k for c, k in zip(json.loads(sets[f"levels.{lv}.disc_clicks_by_players"]),
                                                         json.loads(sets[f"levels.{lv}.short_discs_by_players"]))]
                          for lv in ("easy", "medium", "hard")}
    return out


def quarters_frame(root, again: str = "") -> pd.DataFrame:
    """Every quarter step of each team's scan (a scan not played is left
    out): the cell, the team, the scan's middle length there (its tune's
    answer: a test checks they agree), the step (quarter clicks from that
    length), the four Discs' clicks together, the win rate with its Wilson
    interval and games, the aim, and whether the step is the one nearest
    the aim (first of two equally near). ``again``: the suffix of the
    scans' folders played on the independent seed."""
    from simcore.stats import wilson
    rows = []
    for team, folder, tune in SCANS:
        f = Path(root) / RES / (folder + again) / "comparisons.csv"
        _t, s = _solved(root, tune)
        if not f.exists() or s is None:
            continue
        aims = {(json.loads(c)["level"], json.loads(c)["players"]): a for c, a in zip(s["cell"], s["aim"])}
        totals = _step_totals(root, folder)
        c = pd.read_csv(f, dtype={"players": str})
        c = c[(c["measure"] == "win") & c["players"].str.isdigit()]
        for r in c.to_dict("records"):
            lv, p, n = r["level"], int(r["players"]), int(r["n"])
            length = int(np.median([st[lv][p - 1] for st in totals.values()])) // 4
            total, aim = totals[r["arm"]][lv][p - 1], aims[(lv, p)]
            lo, hi = wilson(round(r["value"] * n), n)
            rows.append(dict(level=lv, players=p, team=team, length=length, step=total - 4 * length, clicks=total,
                             rate=r["value"], low=lo, high=hi, n=n, aim=aim))
    t = pd.DataFrame(rows, columns=["level", "players", "team", "length", "step", "clicks", "rate", "low", "high", "n",
                                    "aim"])
    t = t.sort_values(["level", "players", "team", "step"], key=lambda k: k.map(
        {"easy": 0, "medium": 1, "hard": 2}) if k.name == "level" else k, kind="stable").reset_index(drop=True)
    miss = (t["rate"] - t["aim"]).abs()
    t["nearest"] = t.index.isin(miss.groupby([t["level"], t["players"], t["team"]], sort=False).idxmin())
    return t


def _quarters(k: int) -> str:
    """``k`` quarter clicks as a person reads them (¼, ½, 2¼)."""
    whole, q = divmod(int(k), 4)
    return (str(whole) if whole else "") + ("", "¼", "½", "¾")[q] if k else "0"


def _length_words(total: int) -> str:
    """The four Discs' clicks together as a rule would print them."""
    clicks, short = -(-total // 4), -total % 4
    return f"{clicks} clicks" + (f", {short} Disc{'s' if short > 1 else ''} short" if short else "")


def quarters(root) -> str:
    """Each team's win rate at every quarter step around its tune's answer,
    the step nearest each aim (the skilled team's printable answer in
    quarter clicks), and how much nearer it comes than whole clicks."""
    t = quarters_frame(root)
    if t.empty:
        return "The quarter-click scans have not been played yet (`python -m experiments.publish`)."
    steps = sorted(t["step"].unique())
    lines = ["| level | players | aim | team | tune's length | " + " | ".join(STEPS[k] for k in steps)
             + " | the step nearest the aim |", "|---" * (6 + len(steps)) + "|"]
    said = []
    for (lv, p, team), g in t.groupby(["level", "players", "team"], sort=False):
        g = g.set_index("step")
        cells = [("**%.1f%%**" if g.loc[k, "nearest"] else "%.1f%%") % (100 * g.loc[k, "rate"]) if k in g.index
                 else "—" for k in steps]
        b = g[g["nearest"]].iloc[0]
        inside = b["low"] <= b["aim"] <= b["high"]
        best = f"{_length_words(int(b['clicks']))}: {100 * b['rate']:.1f}% [{100 * b['low']:.1f}, {100 * b['high']:.1f}]"
        lines.append(f"| {name(lv)} | {PLAYERS_MQ[p]} | {100 * b['aim']:.0f}% | {team} | {g['length'].iloc[0]} | "
                     + " | ".join(cells) + f" | {'**' + best + '**' if inside else best} |")
    for team, g in t.groupby("team", sort=False):
        moves = 100 * g.groupby(["level", "players"])["rate"].diff().dropna().abs()
        near, whole = g[g["nearest"]], g[g["step"] == 0]
        n_in = int(((near["low"] <= near["aim"]) & (near["aim"] <= near["high"])).sum())
        w_in = int(((whole["low"] <= whole["aim"]) & (whole["aim"] <= whole["high"])).sum())
        said.append(f"for a {team.split(' (')[0]} team ({int(g['n'].min()):,} games a step) a quarter step moves the "
                    f"win rate by {moves.min():.1f}–{moves.max():.1f} points, and the step nearest each aim misses "
                    f"it by at most {100 * (near['rate'] - near['aim']).abs().max():.1f} pp against "
                    f"{100 * (whole['rate'] - whole['aim']).abs().max():.1f} pp for the tune's whole-click length "
                    f"on the same games (the aim inside the interval in {n_in} of {len(near)} cells against {w_in})")
    chosen = t[t["nearest"]].set_index(["level", "players", "team"])["clicks"].unstack("team")
    if chosen.shape[1] == 2:
        d = chosen.iloc[:, 1] - chosen.iloc[:, 0]          # skilled minus competent, in quarter clicks
        shorter = -d[d < 0]
        by_count = d.groupby(level="players").mean()
        more = ", more with more players" if by_count.is_monotonic_decreasing else ""
        said.append(f"the skilled team's nearest step is shorter than the competent team's in {len(shorter)} of "
                    f"{len(d)} cells" + (f" (by {_quarters(shorter.min())} to {_quarters(shorter.max())} of a "
                                         f"click{more})" if len(shorter) else "")
                    + f", the same in {int((d == 0).sum())} and longer in {int((d > 0).sum())}")
    man = _manifest(root)
    files = "; ".join(f"`experiments/{folder}.toml`, seed "
                         f"{man.get(f'experiments/results/{folder}/report.md', {}).get('seed')}"
                         for _team, folder, _tune in SCANS)
    return ("**Every quarter step.** Each team's win rate at the quarter steps its scan played around its "
            f"disc-length tune's answer for each cell ({files}); a step is the four Discs' clicks together "
            "from the tune's length (±0), a quarter click one Disc one click shorter or longer; bold: the step "
            "nearest the aim, and in the last column the aim inside that step's interval. The skilled team's "
            "scan plays five steps, not seven, as every skilled aim lies within half a click of its tune's answer. "
            + "; ".join(said)[:1].upper() + "; ".join(said)[1:] + ". The nearest step is chosen on the same games "
            "it is read from, so its miss is a little optimistic: the competent team's steps are played again on "
            "10,000 games above, and the skilled team's claim is put to the independent seed under \"Which "
            "findings replicate?\".\n\n" + "\n".join(lines))


def _setup_of(root) -> str:
    st = _manifest(root).get(f"experiments/results/{PRINTABLE}/report.md", {})
    return f"seed {st.get('seed')}, {st.get('games', 0):,} games a cell" if st else "not made yet"


def sensitivity_frame(root) -> pd.DataFrame:
    """The screen's nudges (win rate, each cell), families ranked by their
    largest change; ``unchanged`` marks a nudge that changed no game's
    result or length (the win and rounds measures both untouched)."""
    c = pd.read_csv(Path(root) / RES / "rules-sensitivity" / "comparisons.csv", dtype={"players": str})
    c = c[c["players"].str.isdigit()].copy()
    c["players"] = c["players"].astype(int)
    quiet = (c["change"] == 0) & (c["ci95_low"] == 0) & (c["ci95_high"] == 0)     # no pair differs
    still = quiet.groupby([c["arm"], c["players"]]).all()
    c = c[c["measure"] == "win"].copy()
    c["unchanged"] = [bool(still[(a, n)]) for a, n in zip(c["arm"], c["players"])]
    c["param"] = c["arm"].str.rsplit(" ", n=1).str[0]
    c["way"] = c["arm"].str.rsplit(" ", n=1).str[1]
    order = c.assign(size=c["change"].abs()).groupby("param")["size"].max().sort_values(
        ascending=False, kind="stable").index
    c["rank"] = c["param"].map({p: i for i, p in enumerate(order)})
    c = c.sort_values(["rank", "players", "way"], kind="stable")
    return c[["param", "players", "way", "change", "ci95_low", "ci95_high", "p_value", "n", "unchanged"]].rename(
        columns={"ci95_low": "low", "ci95_high": "high"}).reset_index(drop=True)
