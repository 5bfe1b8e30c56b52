"""Does each headline finding of the balance study hold on independent games?

Every finding the study leads with is a claim with a test that can be put to
any copy of the published artefacts: the grids (``mq-grid``, ``qm-grid``) and
the experiments the study quotes. ``python -m experiments.publish`` plays
each of them again on an independent seed with as many games (the
``replications`` step: ``<grid>-again``, ``<experiment>-again``); a finding
*replicates* when its test passes on both. The study's blocks
``bal-mq-replication`` and ``bal-qm-replication`` print the verdicts and
name what did not replicate.

A finding's test returns (passes, what was measured); on the study's own
games a test passes for every finding the study states, and on the second
seed the same test asks the same question of other games (for an effect:
the same sign with a 95% interval apart from zero, no multiple-comparison
correction, as the finding is now one pre-stated claim).
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from experiments.balance import COMPETENT, HOLDS, PLAYERS_MQ, RES, _manifest, _table, name, survivors

AGAIN = "-again"
LEVELS = ("easy", "medium", "hard")


def _apart(e, lo, hi) -> int:
    """+1, -1 or 0: an interval above zero, below it, or holding it."""
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def _pp(e, lo, hi) -> str:
    return f"{100 * e:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"


# ---- MourneQuest ---------------------------------------------------------------------------------

def _levels(root, grid):
    t = _table(root, grid, "win-rate-by-level-and-players", COMPETENT)
    return {(r["level"], r["players"]): r for r in t.to_dict("records")}


def mq_level_order(root, grid):
    """Easy, Medium, Difficult: each harder than the one before at every
    player count (the planner), intervals apart."""
    c = _levels(root, grid)
    counts = sorted({p for _lv, p in c})
    ok = all(c[(a, p)]["ci95_low"] > c[(b, p)]["ci95_high"] for p in counts for a, b in zip(LEVELS, LEVELS[1:]))
    gap = min(c[(a, p)]["win_rate"] - c[(b, p)]["win_rate"] for p in counts for a, b in zip(LEVELS, LEVELS[1:]))
    return ok, f"smallest step {100 * gap:.1f} pp"


def mq_solo_easier(root, grid):
    """Solo is easier than four players on every level (the planner)."""
    c = _levels(root, grid)
    ok = all(c[(lv, 1)]["ci95_low"] > c[(lv, 4)]["ci95_high"] for lv in LEVELS)
    gap = min(c[(lv, 1)]["win_rate"] - c[(lv, 4)]["win_rate"] for lv in LEVELS)
    return ok, f"smallest gap {100 * gap:.1f} pp"


def mq_skill_pays(root, grid):
    """The competent team (the planner) wins more than the casual one
    (greedy) in every cell."""
    g = {(r["level"], r["players"]): r for r in _table(root, grid, "win-rate-by-level-and-players", "greedy")
         .to_dict("records")}
    c = _levels(root, grid)
    ok = all(c[k]["ci95_low"] > g[k]["ci95_high"] for k in c)
    return ok, f"smallest gain {100 * min(c[k]['win_rate'] - g[k]['win_rate'] for k in c):.1f} pp"


def _hero(h):
    def test(root, grid):
        r = _table(root, grid, "win-rate-by-hero", COMPETENT).set_index("hero").loc[h]
        return r["effect"], r["effect_low"], r["effect_high"]
    return test


def _hero_at_counts(h, sides):
    """Hero ``h``'s effect at each player count of ``sides`` (count -> +1 or
    -1, its side on the study's games) apart from zero on that side."""
    def test(root, grid):
        t = _table(root, grid, "win-rate-by-hero-and-player-count", COMPETENT)
        t = t[t["hero"] == h].set_index("players")
        rows = [t.loc[p] for p in sides]
        missed = [p for p, r in zip(sides, rows) if _apart(r["effect"], r["effect_low"], r["effect_high"]) != sides[p]]
        return not missed, _sided([r["effect"] for r in rows], [PLAYERS_MQ[p] for p in missed], ", ")
    return test


def _heroes_by_count(root):
    """One finding a hero: the player counts where its effect is apart from
    zero after Holm's correction over the heroes at that count (the ✓ of
    the study's table), each to be apart the same way again."""
    from experiments.balance import _hero_effects_table, _verdicts
    t = _hero_effects_table(_table(root, "mq-grid", "win-rate-by-hero-and-player-count", COMPETENT))
    found = {}
    for p in sorted(t["players"].unique()):
        for h, v in _verdicts(t[t["players"] == p], ("helps", "hurts", "")).items():
            if v:
                found.setdefault(h, {})[int(p)] = 1 if v == "helps" else -1
    out = []
    for h, sides in found.items():
        ways = {("helps" if s > 0 else "hurts") for s in sides.values()}
        where = ", ".join(PLAYERS_MQ[p] for p in sides)
        out.append((f"{name(h)} {' and '.join(sorted(ways))} a competent team at {where} (each count's ✓: Holm "
                    f"over the heroes at that count)", _hero_at_counts(h, sides), "claim"))
    return out


def mq_dice_pay(root, grid):
    """A team arriving at the Final Battle with four combat dice wins more
    often than one with three (the planner)."""
    t = _table(root, grid, "win-rate-by-dice-pool-at-the-final-battle", COMPETENT).set_index("dice_pool")
    three, four = t.loc[3], t.loc[4]
    return four["ci95_low"] > three["ci95_high"], f"3 dice {100 * three['win_rate']:.1f}%, 4 dice " \
                                                   f"{100 * four['win_rate']:.1f}%"


def mq_losses_in_final(root, grid):
    """Most of a competent team's losses come in the Final Battle, on every level."""
    t = _table(root, grid, "where-and-how-games-are-lost-by-level", COMPETENT)
    inside = 1 - t["before_final_battle"]
    return bool((inside > 0.5).all()), f"{100 * inside.min():.0f}–{100 * inside.max():.0f}% of the losses"


def _mq_findings(root):
    """MourneQuest's headline findings: (label, test, kind); ``kind``
    ``"effect"``: the test returns an effect and its interval (the finding:
    its sign); ``"claim"``: it returns (passes, what was measured)."""
    from experiments.balance import _hero_effects_table, _verdicts
    verdict = _verdicts(_hero_effects_table(_table(root, "mq-grid", "win-rate-by-hero", COMPETENT)),
                        ("helps", "hurts", ""))
    heroes = [(f"{name(h)} {v} a competent team (effect within cells; Holm over the {len(verdict)} heroes)",
               _hero(h), "effect") for h, v in verdict.items() if v]
    return [(f"{name('easy')}, {name('medium')}, {name('hard')}: each harder than the one before, at every "
             "player count", mq_level_order, "claim"),
            ("solo is easier than four players on every level", mq_solo_easier, "claim"),
            ("a competent team (the planner) wins more than a casual one (greedy) in every cell",
             mq_skill_pays, "claim"),
            *heroes,
            *_heroes_by_count(root),
            ("four dice at the Final Battle win more often than three", mq_dice_pay, "claim"),
            ("most losses come in the Final Battle, on every level", mq_losses_in_final, "claim")]


# ---- Quest Master ---------------------------------------------------------------------------------

def _character(ch, players=None):
    def test(root, grid):
        if players is None:
            r = _table(root, grid, "win-rate-by-character", COMPETENT).set_index("character").loc[ch]
        else:
            t = _table(root, grid, "win-rate-by-character-and-player-count", COMPETENT)
            r = t[(t["character"] == ch) & (t["players"] == players)].iloc[0]
        return (r["win_rate"] - r["fair_share"], r["ci95_low"] - r["fair_share"], r["ci95_high"] - r["fair_share"])
    return test


def _first_seat(players):
    def test(root, grid):
        r = _table(root, grid, "first-player-s-win-rate", COMPETENT).set_index("players").loc[players]
        f = r["fair_share"]
        return r["first_player_win_rate"] - f, r["ci95_low"] - f, r["ci95_high"] - f
    return test


def qm_castles_end_most(root, grid):
    """Most planners' games end with five castles, at every table size."""
    t = _table(root, grid, "how-games-end", COMPETENT)
    return bool((t["five_castles"] > 0.5).all()), f"{100 * t['five_castles'].min():.0f}–" \
                                                  f"{100 * t['five_castles'].max():.0f}% of games"


def _qm_findings(root):
    """Quest Master's headline findings (as :func:`_mq_findings`): each
    character favoured or disfavoured pooled (Holm over the characters), the
    table sizes where a character's verdict flips, the first seat's edge at
    each table size, and how games end."""
    from experiments.balance import _verdicts
    from experiments.balance_qm import _vs_fair_table
    pooled = _vs_fair_table(_table(root, "qm-grid", "win-rate-by-character", COMPETENT))
    verdict = _verdicts(pooled, ("favoured", "disfavoured", "par"))
    by = _vs_fair_table(_table(root, "qm-grid", "win-rate-by-character-and-player-count", COMPETENT))
    out = [(f"{name(ch)} is {v} among planners (2–6 players pooled; Holm over the {len(verdict)})",
            _character(ch), "effect") for ch, v in verdict.items() if v != "par"]
    for p in sorted(by["players"].unique()):
        at = _verdicts(by[by["players"] == p], ("favoured", "disfavoured", "par"))
        out += [(f"{name(ch)} is {v} at {p} players, against its pooled verdict ({verdict[ch]})",
                 _character(ch, p), "effect")
                for ch, v in at.items() if v != "par" and verdict[ch] not in ("par", v)]
    seats = _table(root, "qm-grid", "first-player-s-win-rate", COMPETENT)
    for r in seats.to_dict("records"):
        side = _apart(0, r["ci95_low"] - r["fair_share"], r["ci95_high"] - r["fair_share"])
        if side:
            out.append((f"going first is {'an advantage' if side > 0 else 'a disadvantage'} at {r['players']} "
                        "players", _first_seat(r["players"]), "effect"))
    out.append(("most games end with five castles, at every table size", qm_castles_end_most, "claim"))
    return out


# ---- experiments -----------------------------------------------------------------------------------

@cache
def _comparisons(root, folder):
    """An experiment's win-rate comparisons, read once (every finding of a
    group reads them on both seeds); callers filter, never change it."""
    c = pd.read_csv(Path(root) / RES / folder / "comparisons.csv", dtype={"players": str})
    return c[c["measure"] == "win"]


def _experiment_findings(root, folder, family, group, what):
    """The changes of experiment ``folder`` the study marks ✓ (apart from
    zero after Holm's correction over the rows ``family`` selects, as its
    block does), grouped by ``group(row)`` into one finding each (``what(key,
    rows)`` its label): a group replicates when every one of its changes
    is apart from zero on the same side in ``<folder>-again``."""
    c = _comparisons(root, folder)
    c = c[family(c)].copy()
    c["holds"] = survivors(c["p_value"].to_numpy())
    c = c[c["holds"]]
    out = []
    for key, g in c.groupby(c.apply(group, axis=1), sort=False):
        items = [(r["arm"], r["level"], r["players"], _apart(r["change"], r["ci95_low"], r["ci95_high"]))
                 for r in g.to_dict("records")]

        def test(root, where, items=items):
            t = _comparisons(root, where).set_index(["arm", "level", "players"])
            rows = [t.loc[(a, lv, p)] for a, lv, p, _side in items]
            missed = [(a, lv, p) for r, (a, lv, p, side) in zip(rows, items)
                      if _apart(r["change"], r["ci95_low"], r["ci95_high"]) != side]
            return not missed, _sided([r["change"] for r in rows], [_item_text(*m) for m in missed], "; ")
        out.append((what(key, g), test, "claim"))
    return folder, out


def _sided(effects, missed, sep) -> str:
    """A group of effects that should each be apart from zero the same way:
    their range, how many are, and which (``missed``) are not."""
    lo, hi = 100 * min(effects), 100 * max(effects)
    if len(effects) == 1:
        return f"{lo:+.1f} pp"
    n = len(effects)
    return (f"{lo:+.1f} to {hi:+.1f} pp; {n - len(missed)} of {n} apart, same side"
            + (" (not: " + sep.join(missed) + ")" if missed else ""))


def _item_text(arm, lv, p) -> str:
    """One change of an experiment as a reader finds it in its table: the
    cell, and the arm where the group's label does not name it (a
    sensitivity family's direction)."""
    way = arm.rsplit(" ", 1)[-1]
    return _cell_text(lv, p) + (f", one step {way}" if way in ("down", "up") else "")


def _cell_text(lv, p) -> str:
    if lv == "all":
        return "over all cells"
    return f"{name(lv)}, {PLAYERS_MQ.get(int(p), p) if str(p).isdigit() else p}"


# ---- disc lengths for a target difficulty -------------------------------------------------------------

def _printed(root, folder):
    """The printable answers' win rates (``disc-lengths-by-players``): per
    (level, players), the shipped lengths' rate, each arm's rate and games."""
    c = _comparisons(root, folder)
    c = c[c["players"].str.isdigit()]
    return {(lv, int(p)): g.set_index("arm") for (lv, p), g in c.groupby(["level", "players"], sort=False)}


def _aims(root):
    """(level, players) -> the aim of the disc-length tune's target."""
    import json
    from experiments.balance_levers import _solved
    _t, s = _solved(root, "disc-length-tune")
    return {(json.loads(c)["level"], json.loads(c)["players"]): a for c, a in zip(s["cell"], s["aim"])}


def shipped_too_easy(root, folder):
    """With the shipped lengths a competent team wins more than the aim in
    every cell (its Wilson interval above it): every disc would be shorter."""
    from simcore.stats import wilson
    aims, rows = _aims(root), _printed(root, folder)
    lows = {k: wilson(round(g.iloc[0]["baseline"] * g.iloc[0]["n"]), int(g.iloc[0]["n"]))[0] - aims[k]
            for k, g in rows.items()}
    return all(v > 0 for v in lows.values()), f"{len(lows)} cells, the closest {100 * min(lows.values()):.1f} pp above"


BY_LEVEL, BY_COUNT = "one length per level", "a length per player count"     # the printable answers' arms
QUARTER_ARM = "a length per player count, in quarter clicks"
TOKENS_ARM = "a length per player count, in quarter clicks, with Compass Tokens by player count"


def _arms(root, folder) -> list:
    """The printable answers (arms) played in ``folder``."""
    return list(next(iter(_printed(root, folder).values())).index)


def _misses(root, folder, mean=False) -> dict:
    """Each printable answer (arm) -> its largest miss of a cell's aim (with
    ``mean``: its mean miss over the cells)."""
    aims, rows = _aims(root), _printed(root, folder)
    pick = (lambda v: sum(v) / len(v)) if mean else max
    return {a: pick([abs(g.loc[a, "value"] - aims[k]) for k, g in rows.items()]) for a in _arms(root, folder)}


def _closer(arm, than, mean=False):
    """The claim that ``arm`` misses its aims by less, at worst (with
    ``mean``: on average over the cells), than ``than``."""
    def test(root, folder):
        miss = _misses(root, folder, mean)
        return miss[arm] < miss[than], \
            f"{'mean' if mean else 'worst'} miss {100 * miss[arm]:.1f} pp against {100 * miss[than]:.1f} pp"
    return test


def _aim_inside(root, folder, arm=BY_COUNT, family=False) -> list:
    """The cells where the aim is inside the Wilson interval of the win rate
    with printable answer ``arm`` (a length per player count): its 95%
    interval, or with ``family`` the family-wise one over the cells
    (``balance_levers.family_z``)."""
    from experiments.balance_levers import family_z
    from simcore.stats import Z95, wilson
    aims, inside, rows = _aims(root), [], _printed(root, folder)
    z = family_z(len(rows)) if family else Z95
    for k, g in rows.items():
        r = g.loc[arm]
        lo, hi = wilson(round(r["value"] * r["n"]), int(r["n"]), z)
        if lo <= aims[k] <= hi:
            inside.append(k)
    return inside


def _aim_inside_cells(cells, arm=BY_COUNT, family=False):
    """The aim inside the interval (``family``: the family-wise one), with
    printable answer ``arm``, in exactly ``cells`` (those of the study's
    games)."""
    def test(root, folder):
        inside, every = _aim_inside(root, folder, arm, family), list(_printed(root, folder))
        same = set(inside) == set(cells)
        if len(inside) == len(every):
            return same, f"{len(inside)} of {len(every)} cells"
        if 2 * len(inside) > len(every):
            return same, "all but " + "; ".join(_cell_text(lv, p) for lv, p in every if (lv, p) not in inside)
        return same, "; ".join(_cell_text(lv, p) for lv, p in inside) or "none"
    return test


def _disc_findings(root):
    """The study's claims about disc lengths for a target difficulty, each
    to hold again on the independent seed."""
    from experiments.balance_levers import PRINTABLE
    if not (Path(root) / RES / PRINTABLE / "comparisons.csv").exists():
        return []
    cells = _aim_inside(root, PRINTABLE)
    return [("the shipped lengths make every level easier than its aim, at every player count", shipped_too_easy,
             "claim"),
            ("a length per player count comes closer to every aim than one length per level",
             _closer(BY_COUNT, BY_LEVEL), "claim"),
            ("with a length per player count the aim is inside the interval in the same cells",
             _aim_inside_cells(cells), "claim")] + (
        [("quarter clicks come closer to every aim than a whole-click length per player count",
          _closer(QUARTER_ARM, BY_COUNT), "claim")] if QUARTER_ARM in _arms(root, PRINTABLE) else []) + (
        _token_findings(root) if TOKENS_ARM in _arms(root, PRINTABLE) else [])


def _token_findings(root):
    """The claims about Compass Tokens by player count (the fourth printable
    answer, chosen on other games, seed 3): closer than quarter clicks
    alone on average over the cells (the worst cell is as much a matter of
    the games' luck as of the variant), and the aim inside the family-wise
    interval in the same cells."""
    from experiments.balance_levers import PRINTABLE
    cells = _aim_inside(root, PRINTABLE, TOKENS_ARM, family=True)
    return [("Compass Tokens by player count come closer to the aims than quarter clicks alone, on average",
             _closer(TOKENS_ARM, QUARTER_ARM, mean=True), "claim"),
            ("with Compass Tokens by player count the aim is inside the family-wise interval in the same cells",
             _aim_inside_cells(cells, TOKENS_ARM, family=True), "claim")]


SKILLED = "skilled (the expert)"      # the skilled team's quarter-click scan (balance_levers.SCANS)


def skilled_quarters_closer(root, folder):
    """For a skilled team, the quarter step nearest each aim on the study's
    games (chosen there, never again) misses its aim by less, at worst, than
    the skilled tune's whole-click length on the games of ``folder``."""
    from experiments.balance_levers import quarters_frame
    first = quarters_frame(root)
    chosen = first[first["nearest"] & (first["team"] == SKILLED)].set_index(["level", "players"])["step"]
    t = quarters_frame(root, AGAIN) if folder.endswith(AGAIN) else first
    t = t[t["team"] == SKILLED].set_index(["level", "players", "step"])
    miss = (t["rate"] - t["aim"]).abs()
    near = max(miss[(lv, p, k)] for (lv, p), k in chosen.items())
    whole = max(miss[(lv, p, 0)] for lv, p in chosen.index)
    return near < whole, f"worst miss {100 * near:.1f} pp against {100 * whole:.1f} pp"


# ---- the verdicts ---------------------------------------------------------------------------------

def verdicts(root, findings, grid) -> pd.DataFrame:
    """Each finding tested on ``grid`` and on ``grid-again``: label, the two
    measurements as text, whether it passes on each, and ``replicates``
    (it passes on both). An effect finding passes on the first seed when
    its interval leaves out zero, and on the second when it does so on the
    same side."""
    rows = []
    for label, test, kind in findings:
        if kind == "effect":
            e1, e2 = test(root, grid), test(root, grid + AGAIN)
            side = _apart(*e1)
            ok1, ok2 = side != 0, side != 0 and _apart(*e2) == side
            t1, t2 = _pp(*e1), _pp(*e2)
        else:
            (ok1, t1), (ok2, t2) = test(root, grid), test(root, grid + AGAIN)
            ok2 = ok1 and ok2
        rows.append(dict(finding=label, first=t1, again=t2, first_holds=bool(ok1), replicates=bool(ok2)))
    return pd.DataFrame(rows)


def _block(parts, intro) -> str:
    """The verdict tables of ``parts`` ((title, frame, seed-1 source,
    seed-2 source)) with the list of what did not replicate."""
    out, failed, n_all, n_ok = [intro], [], 0, 0
    for title, t, src1, src2 in parts:
        if t.empty:
            continue
        out.append(f"\n**{title}** ({src1}; again: {src2})\n")
        out.append("| finding | the study's games | independent games | replicates? |\n|---|---|---|---|")
        for r in t.to_dict("records"):
            verdict = "yes" + HOLDS if r["replicates"] else "no" if r["first_holds"] else "no: nor on the study's games"
            out.append(f"| {r['finding']} | {r['first']} | {r['again']} | {verdict} |")
            failed += [] if r["replicates"] else [r["finding"]]
        n_all, n_ok = n_all + len(t), n_ok + int(t["replicates"].sum())
    out.insert(1, f"\n{n_ok} of the {n_all} findings replicate." + (
        " Those that do not are **not established**: the study keeps their numbers but draws no conclusion "
        "from them until more games settle them: " + "; ".join(failed) + "." if failed else ""))
    return "\n".join(out)


def mq(root) -> str:
    """MourneQuest's headline findings, on the study's games and again."""
    root = Path(root)
    grid = verdicts(root, _mq_findings(root), "mq-grid")
    readings = _experiment_findings(
        root, "mq-readings", lambda c: c["measure"] == "win", lambda r: r["arm"],
        lambda a, g: f"`{a}` moves the win rate ({len(g)} of its cells marked ✓)")
    sens = _experiment_findings(
        root, "rules-sensitivity", lambda c: c["players"].str.isdigit(), lambda r: r["arm"].rsplit(" ", 1)[0],
        lambda fam, g: f"{fam} moves the win rate ({len(g)} of its nudges marked ✓)")
    dice = _experiment_findings(
        root, "two-combat-dice", lambda c: c["players"].str.isdigit(), lambda r: "all",
        lambda _k, g: f"one more starting die raises the win rate ({len(g)} cells)")
    parts = [("The grid", grid, _games(root, "mq-grid"), _games(root, "mq-grid" + AGAIN))]
    from experiments.balance_levers import PRINTABLE
    disc = _disc_findings(root)
    if disc and (Path(root) / RES / (PRINTABLE + AGAIN) / "comparisons.csv").exists():
        parts.append(("Disc lengths for a target difficulty (the printable answers played)",
                      verdicts(root, disc, PRINTABLE), _games(root, PRINTABLE), _games(root, PRINTABLE + AGAIN)))
    from experiments.balance_levers import QUARTERS_SKILLED
    if all((Path(root) / RES / (QUARTERS_SKILLED + a) / "comparisons.csv").exists() for a in ("", AGAIN)):
        parts.append(("Disc lengths in quarter clicks for a skilled team (the step nearest each aim, chosen on "
                      "the study's games)",
                      verdicts(root, [("for a skilled team, quarter clicks come closer to every aim than the whole-"
                                       "click length per player count", skilled_quarters_closer, "claim")],
                               QUARTERS_SKILLED), _games(root, QUARTERS_SKILLED), _games(root, QUARTERS_SKILLED + AGAIN)))
    for title, (folder, found) in (("Rule readings (each reading's cells marked ✓)", readings),
                                   ("Numbers (the sensitivity screen)", sens),
                                   ("One more starting die", dice)):
        parts.append((title, verdicts(root, found, folder), _games(root, folder), _games(root, folder + AGAIN)))
    return _block(parts, _INTRO)


def qm(root) -> str:
    """Quest Master's headline findings, on the study's games and again."""
    root = Path(root)
    grid = verdicts(root, _qm_findings(root), "qm-grid")
    return _block([("The grid", grid, _games(root, "qm-grid"), _games(root, "qm-grid" + AGAIN))], _INTRO)


def _games(root, folder) -> str:
    """The seed and games per cell the manifest records for an artefact folder."""
    st = _manifest(root).get(f"experiments/results/{folder}/report.md")
    return "not made yet" if st is None else f"seed {st['seed']}, {st['games']:,} games a cell"


_INTRO = ("Every headline finding measured again on independent games (another seed, played by "
          "`python -m experiments.publish`, step `replications`): a finding replicates when the same test "
          "passes there (an effect: the same sign, its 95% interval apart from zero). On the study's games "
          "each finding below passed its test; the effects listed are those apart from zero after Holm's "
          "correction over their table.")
