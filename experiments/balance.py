"""The generated blocks of the balance study (``docs/common/balance.md``,
``docs/mournequest/balance.md``; Quest Master's page is
``experiments.balance_qm`` and what moves MourneQuest's balance
``experiments.balance_levers``, both built on the helpers here): every figure of the
balance study read from the published artefacts (``experiments/results/``),
never typed by hand. ``experiments.tables`` fills the blocks; ``python -m
experiments.publish`` makes the artefacts first.

Each function takes the root of a copy of the repository and returns the
Markdown of one block. The grids' tables are the CSVs the publish step writes
beside each report (``<grid>/tables/<policy>/<table>.csv``); experiments are
read from their ``comparisons.csv`` and ``tune.csv``.
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

RES = Path("experiments") / "results"
COMPETENT = "planner"        # the competent team / player: the grids and experiments; the skilled one is the expert
POLICIES = ("greedy", "planner")
PLAYERS_MQ = {1: "solo", 2: "2 players", 3: "3 players", 4: "4 players"}


@cache
def _names() -> dict:
    """Every id of both games' shipped rulesets -> the name a person reads
    (their ``[names]``)."""
    from mournesim import ruleset as mq
    from questsim import ruleset as qm
    return {**qm.names_of(qm.load_ruleset()), **mq.names_of(mq.load_ruleset())}


def name(x) -> str:
    """An id (a level, hero, character, ending: ``hard``) as a person reads
    it (``Difficult``); a team of ids joined by " + " name by name."""
    from simcore.present import name_of
    return name_of(_names(), x)


def _table(root, grid, name, policy=None) -> pd.DataFrame:
    d = Path(root) / RES / grid / "tables"
    return pd.read_csv((d / policy if policy else d) / f"{name}.csv")


def _rate(r, digits=0) -> str:
    """A win rate with its 95% interval, in per cent."""
    f = f"{{:.{digits}f}}"
    return f"{f.format(100 * r['win_rate'])}% [{f.format(100 * r['ci95_low'])}, {f.format(100 * r['ci95_high'])}]"


def _pp(r, low="ci95_low", high="ci95_high") -> str:
    """A paired change with its 95% interval, in percentage points."""
    return f"{100 * r['change']:+.1f} pp [{100 * r[low]:+.1f}, {100 * r[high]:+.1f}]"


# the mark of a finding that survives the correction for its family of comparisons
HOLDS = " ✓"


def survivors(p) -> np.ndarray:
    """Which of a family of comparisons (their p-values) stay apart from
    zero after Holm's correction: the chance of any false finding among
    them held at 5% (simcore.stats.holm)."""
    from simcore.stats import holm
    return holm(p) < 0.05 if len(p) else np.zeros(0, bool)


def holm_note(n_hold: int, family: str) -> str:
    """The sentence under a table that marks its survivors."""
    return (f"{HOLDS.strip()}: apart from zero after Holm's correction over {family} (the chance of any false "
            f"finding among them held at 5%); {n_hold} do.")


def arm_descriptions(report: Path) -> dict:
    """Each arm's description, from the ``- arm **name**: ... — what`` lines
    of an experiment's report."""
    text = report.read_text() if report.exists() else ""
    return {m.group(1): m.group(2) for m in re.finditer(r"^- arm \*\*(.+?)\*\*: .*? — (.*)$", text, re.M)}


def _manifest(root) -> dict:
    return json.loads((Path(root) / RES / "published.json").read_text())


def _made_by(root, *paths) -> str:
    """One line per artefact: which engine, ruleset, seed and games made it."""
    man = _manifest(root)
    out = []
    for p in paths:
        st = man.get(p)
        if st is None:
            out.append(f"- `{p}`: not in the manifest; run `python -m experiments.publish`")
            continue
        games = st.get("games")
        games = f"{games:,}" if isinstance(games, int) else games
        out.append(f"- `{p}`: {st['engine']} behaviour v{st['behaviour_version']} (sources {st['engine_hash']}), "
                   f"ruleset {st['ruleset_hash']}, seed {st.get('seed')}, policies {st.get('policies')}, "
                   f"{games} games per cell")
    return "\n".join(out)


def stamp(root) -> str:
    """What made the study: every artefact it reads, with its engine and ruleset."""
    return _made_by(root, "experiments/results/mq-grid/report.md", "experiments/results/qm-grid/report.md",
                    "experiments/results/mq-ladder/ladder.csv", "experiments/results/qm-ladder/ladder.csv",
                    "experiments/results/two-combat-dice/report.md", "experiments/results/mq-readings/report.md",
                    "experiments/results/rules-sensitivity/report.md",
                    "experiments/results/mq-grid-again/report.md", "experiments/results/qm-grid-again/report.md",
                    "experiments/results/mq-readings-again/report.md",
                    "experiments/results/rules-sensitivity-again/report.md",
                    "experiments/results/two-combat-dice-again/report.md",
                    "experiments/results/mq-expert/ladder.csv", "experiments/results/qm-expert/ladder.csv",
                    "experiments/results/disc-length-tune/report.md",
                    "experiments/results/disc-length-tune-skilled/report.md",
                    "experiments/results/disc-lengths-by-players/report.md",
                    "experiments/results/disc-lengths-by-players-again/report.md",
                    "experiments/results/disc-quarter-clicks/report.md",
                    "experiments/results/disc-quarter-clicks-skilled/report.md",
                    "experiments/results/disc-quarter-clicks-skilled-again/report.md",
                    "experiments/results/disc-quarter-tokens/report.md",
                    "experiments/results/hp-threshold/report.md",
                    "experiments/results/last-seat-compensation/report.md")


# ---- MourneQuest -------------------------------------------------------------

def _expert_cells(root):
    """The expert against the planner on the same games, per (level, players)
    (``mq-expert/ladder.csv``, the ladders step), or {} before it is made."""
    f = Path(root) / RES / "mq-expert" / "ladder.csv"
    if not f.exists():
        return {}
    df = pd.read_csv(f)
    return {(r["level"], r["players"]): r for r in df[df.policy == "expert"].to_dict("records")}


def mq_levels(root) -> str:
    """Win rate by level and player count for a casual (greedy), competent
    (planner) and skilled (expert) team, and how far skill moves it."""
    rows = {}
    for pol in POLICIES:
        t = _table(root, "mq-grid", "win-rate-by-level-and-players", pol)
        for r in t.to_dict("records"):
            rows.setdefault((r["level"], r["players"]), {})[pol] = r
    ex = _expert_cells(root)
    lines = ["| level | players | casual (greedy) | competent (planner) | skilled (expert) | competent → skilled |",
             "|---|---|---|---|---|---|"]
    for (lv, p), by in rows.items():
        e = ex.get((lv, p))
        skilled = (f"**{100 * e['win_rate']:.1f}% [{100 * e['low']:.1f}, {100 * e['high']:.1f}]**" if e else "–")
        move = (f"{100 * e['paired_diff']:+.1f} pp ± {100 * e['paired_half']:.1f}" if e else "–")
        lines.append(f"| {name(lv)} | {PLAYERS_MQ[p]} | {_rate(by['greedy'], 1)} | {_rate(by['planner'], 1)} | "
                     f"{skilled} | {move} |")
    pl = {k: v["planner"] for k, v in rows.items()}
    easy, hard = pl[("easy", 4)], pl[("hard", 4)]
    span = [pl[(lv, p)]["win_rate"] for lv in ("easy", "medium", "hard") for p in (1, 2, 3, 4)]
    text = (f"A competent four-player team (the planner) wins {name('easy')} {_rate(easy)} of the time and "
            f"{name('hard')} "
            f"{_rate(hard)}; across every level and player count its win rate runs from "
            f"{100 * min(span):.0f}% to {100 * max(span):.0f}%. ")
    if ex:
        n = min(int(r["games"]) for r in ex.values())
        up = [k for k, r in ex.items() if r["paired_diff"] - r["paired_half"] > 0]
        e4 = {lv: ex[(lv, 4)] for lv in ("easy", "medium", "hard") if (lv, 4) in ex}
        text += (f"A skilled team (the expert search player, {n:,} games a cell, paired with the planner on the "
                 f"same games) wins {name('easy')} {100 * e4['easy']['win_rate']:.0f}% and {name('hard')} "
                 f"{100 * e4['hard']['win_rate']:.0f}% with four players, and is above the competent team with "
                 f"an interval above zero in {len(up)} of the {len(ex)} cells. ")
    solo_better = all(pl[(lv, 1)]["ci95_low"] > pl[(lv, 4)]["ci95_high"] for lv in ("easy", "medium", "hard"))
    text += ("Solo (one player with two heroes) is easier than four players on every level, with intervals apart."
             if solo_better else "Solo is not easier than four players on every level.")
    grid_n = min(by["planner"]["games"] for by in rows.values())
    return (text + f" Casual and competent: {grid_n:,}-game grid cells (`experiments/results/mq-grid`); skilled and "
            "the move: `experiments/results/mq-expert/ladder.csv`.\n\n" + "\n".join(lines))


def _hero_effects(root, pol):
    """A policy's hero effects and their standard errors, from the report's
    own intervals (``effect_low``, ``effect_high``: mournesim.report.by_hero)."""
    t = _table(root, "mq-grid", "win-rate-by-hero", pol).set_index("hero")
    return t["effect"], (t["effect_high"] - t["effect"]) / 1.96


def _skilled_heroes(root) -> dict:
    """The expert's hero effects and their move from the planner on the same
    games (``policy`` ``expert-planner``), per seed of the expert's ladder
    (``mq-expert/ladder-heroes.csv``, ``replication-heroes.csv``): seed name ->
    table indexed by (policy, hero); {} before the ladders step made them."""
    out = {}
    for name in ("ladder", "replication"):
        f = Path(root) / RES / "mq-expert" / f"{name}-heroes.csv"
        if f.exists():
            t = pd.read_csv(f)
            if (t["policy"] == "expert").any():      # a tiny run may leave no cell with and without a hero
                out[name] = t.set_index(["policy", "hero"])
    return out


def _effect(e, half) -> str:
    def pp(x):      # never "-0.0"
        t = f"{100 * x:+.1f}"
        return "+0.0" if t == "-0.0" else t
    return f"{pp(e)} pp [{pp(e - half)}, {pp(e + half)}]"


def mq_heroes(root) -> str:
    """Each hero's effect on the team's win rate, per policy, with intervals,
    whether the ranking survives better play, and (from the expert's ladder)
    the skilled team's effects and how far each moves from the competent one."""
    eff = {pol: _hero_effects(root, pol) for pol in POLICIES}
    order = eff[COMPETENT][0].sort_values(ascending=False).index
    skilled = _skilled_heroes(root)
    sk = skilled.get("ladder")
    head = "| hero | greedy: effect | planner: effect |"
    if sk is not None:
        head += " expert: effect | planner → expert (same games) |"
    lines = [head, "|---" * head.count(" | ") + "|---|"]
    # each column is a family: its heroes' effects read together, Holm-corrected
    def apart(e, half):
        v = _verdicts(pd.DataFrame(dict(key=e.index, effect=e.to_numpy(), low=(e - half).to_numpy(),
                                        high=(e + half).to_numpy())), ("+", "-", ""))
        return {h: v[h] != "" for h in v}
    holds = {pol: apart(eff[pol][0], 1.96 * eff[pol][1]) for pol in POLICIES}
    if sk is not None:
        for p in ("expert", "expert-planner"):
            g = sk.xs(p, level="policy")
            holds[p] = apart(g["effect"], g["half"])
    for h in order:
        cells = [_effect(eff[pol][0][h], 1.96 * eff[pol][1][h]) + (HOLDS if holds[pol][h] else "") for pol in POLICIES]
        if sk is not None:
            cells += [_effect(sk.loc[(p, h), "effect"], sk.loc[(p, h), "half"]) + (HOLDS if holds[p][h] else "")
                      if (p, h) in sk.index else "–" for p in ("expert", "expert-planner")]
        lines.append(f"| {name(h)} | " + " | ".join(cells) + " |")
    lines.append("\n" + holm_note(sum(sum(v.values()) for v in holds.values()),
                                  f"the {len(order)} heroes of each column"))
    e, se = eff[COMPETENT]
    best, worst = order[0], order[-1]
    apart = [h for h in order if abs(e[h]) > 1.96 * se[h]]
    skill = _table(root, "mq-grid", "conclusions-across-player-skill")
    hero_row = skill[skill["conclusion"].str.startswith("the hero ranking")].iloc[0]
    text = (f"With the planner, the hero who helps a team most is **{name(best)}** "
            f"({100 * e[best]:+.1f} pp [{100 * (e[best] - 1.96 * se[best]):+.1f}, "
            f"{100 * (e[best] + 1.96 * se[best]):+.1f}] against the games without them, within the same level "
            f"and player count), the least **{name(worst)}** ({100 * e[worst]:+.1f} pp). "
            f"{len(apart)} of {len(order)} heroes are apart from zero, {sum(holds[COMPETENT].values())} after "
            f"Holm's correction over the {len(order)} (✓). Across skill: {hero_row['across skill']}.")
    g, gse = eff["greedy"]
    flips = [h for h in order if abs(g[h]) > 1.96 * gse[h] and abs(e[h]) > 1.96 * se[h] and g[h] * e[h] < 0]
    text += (" Heroes whose effect changes sign with skill (apart from zero under both policies): " +
             ", ".join(f"{name(h)} (greedy {100 * g[h]:+.1f} pp, planner {100 * e[h]:+.1f} pp)" for h in flips) + "."
             if flips else " No hero's effect changes sign between greedy and the planner.")
    if sk is not None:
        text += " " + _skilled_heroes_text(root, skilled, order)
    return text + "\n\n" + "\n".join(lines)


def _hero_effects_table(t: pd.DataFrame) -> pd.DataFrame:
    """A hero table (``effect`` with its interval) as :func:`_by_count` reads it."""
    return pd.DataFrame(dict(key=t["hero"], players=t.get("players", 0), effect=t["effect"], low=t["effect_low"],
                             high=t["effect_high"]))


def mq_heroes_by_players(root) -> str:
    """Each hero's effect at every player count (the planner's grid), whether
    the pooled verdict holds at each, flips flagged."""
    pooled = _hero_effects_table(_table(root, "mq-grid", "win-rate-by-hero", COMPETENT))
    t = _hero_effects_table(_table(root, "mq-grid", "win-rate-by-hero-and-player-count", COMPETENT))
    lines, flips, n_holds, n = _by_count(pooled, t, "hero", ("helps", "hurts", "neither"), PLAYERS_MQ.get,
                                         "holds at every count?")
    text = (f"A hero's effect at each player count, with a competent team (the planner; within each level, "
            f"weighted by the hero's games; solo plays two heroes). The pooled verdict (helps, hurts or neither: "
            f"apart from zero after Holm's correction over the {n} heroes, or not) holds at every player "
            f"count for {n_holds} of {n} heroes; a ✓ marks an effect apart from zero at that count after "
            f"Holm's correction over the {n}. " +
            ("Flips, where a hero who helps pooled hurts at a player count or the reverse: " +
             ", ".join(f"**{name(h)}** ({PLAYERS_MQ[p]})" for h, p in flips) + "." if flips else
             "No hero who helps pooled hurts at a player count, or the reverse."))
    return text + "\n\n" + "\n".join(lines)


def _moved(skilled, order) -> list[str]:
    """The heroes or characters whose effect moves from the planner to the
    expert: the move's interval leaves out zero on the ladder's seed and on
    the independent one, the same way."""
    moved = []
    for h in order:
        seeds = [s.loc[("expert-planner", h)] for s in skilled.values() if ("expert-planner", h) in s.index]
        if len(seeds) == 2 and all(abs(r["effect"]) > r["half"] for r in seeds) and \
                seeds[0]["effect"] * seeds[1]["effect"] > 0:
            moved.append(f"{name(h)} ({100 * seeds[0]['effect']:+.1f} pp, again {100 * seeds[1]['effect']:+.1f} pp on "
                         "the second seed)")
    return moved


def _skilled_heroes_text(root, skilled, order) -> str:
    """What the expert's ladder says about the heroes: its best and worst,
    and the heroes whose effect moves from the planner's, apart from zero on
    the ladder's seed and the same way on the independent one."""
    sk = skilled["ladder"]
    ex = sk.loc["expert"]
    cells = _expert_cells(root)
    games = min(int(r["games"]) for r in cells.values())
    best, worst = ex["effect"].idxmax(), ex["effect"].idxmin()
    moved = _moved(skilled, order)
    rep = "replication" in skilled
    return (f"A skilled team (the expert, {games:,} games in each of its ladder's {len(cells)} cells, "
            "`experiments/results/mq-expert/ladder-heroes.csv`) gains most from "
            f"**{name(best)}** ({_effect(ex.loc[best, 'effect'], ex.loc[best, 'half'])}) and least from "
            f"**{name(worst)}** "
            f"({100 * ex.loc[worst, 'effect']:+.1f} pp); its effects come from {games:,} games a cell, so their "
            "intervals are wider than the planner's, and the move is measured on those same games (the planner's "
            "effect there against the expert's), not as the difference of the two columns. " +
            ("Heroes whose effect moves from the competent team to the skilled one (the move apart from zero on "
             "the same games, on both seeds): " + "; ".join(moved) + "." if moved else
             "No hero's effect moves from the competent team to the skilled one with an interval apart from zero"
             + (" on both seeds" if rep else "") + "; the moves in the table are within their intervals "
             "or did not replicate."))


def mq_dice(root) -> str:
    """The dice pool at the Final Battle (observed) and one more starting die
    (an experiment on paired games)."""
    t = _table(root, "mq-grid", "win-rate-by-dice-pool-at-the-final-battle", COMPETENT)
    lines = ["| combat dice at the Final Battle | games | planner's win rate |", "|---|---|---|"]
    for r in t.to_dict("records"):
        lines.append(f"| {int(r['dice_pool'])} | {r['games']:,} | {_rate(r, 1)} |")
    c = pd.read_csv(Path(root) / RES / "two-combat-dice" / "comparisons.csv", dtype={"players": str})
    c = c[(c["measure"] == "win")]
    exp = ["| level | players | one more starting die (Grey and Green): change in win rate |", "|---|---|---|"]
    for r in c.to_dict("records"):
        exp.append(f"| {name(r['level'])} | {PLAYERS_MQ.get(int(r['players']), r['players']) if str(r['players']).isdigit() else r['players']} "
                   f"| {_pp(r)} |")
    cells = c[c["players"].str.isdigit()]
    lo, hi = cells["change"].min(), cells["change"].max()
    rising = bool((np.diff(t.loc[t["games"] >= 30, "win_rate"].to_numpy()) > 0).all())
    text = (("Teams that reach the Final Battle with more combat dice win more often (table), but that is partly "
             "because strong teams also collect more dice. " if rising else
             "The win rate does not rise with every die a team brings to the Final Battle (table). ") +
            "The causal worth of a die is the experiment: starting "
            f"every hero with the Green die as well as the Grey raises the planner's win rate by "
            f"{100 * lo:+.1f} to {100 * hi:+.1f} percentage points, depending on level and player count.")
    return text + "\n\n" + "\n".join(lines) + "\n\n" + "\n".join(exp)


ODDS_GAPS = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12)


def mq_odds(root) -> str:
    """Exact odds of one combat roll by dice pool and how far the enemy's
    value is above the hero's (every face enumerated, fumbles included:
    mournesim.odds), attacking and defending, and where a third die costs."""
    from mournesim import odds, sim
    rules = sim.prepare()
    # the dice a pool rolls (MQ-COMBAT-03..07, MQ-GAP-35): every unlocked die up to three, the three highest of four
    pools = {1: [0], 2: [0, 1], 3: [0, 1, 2], 4: [1, 2, 3]}

    def chance(gap, k, defending):
        return odds.combat_odds(rules, 10, 10 + gap, pools[k], defending=defending)
    out = []
    for defending, what in ((False, "attacking"), (True, "fending off an attack")):
        lines = [f"| enemy's value − hero's ({what}) | 1 die | 2 dice | 3 dice | 4 dice (the top three) |",
                 "|---|---|---|---|---|"]
        for gap in ODDS_GAPS:
            label = "0 or less" if gap == 0 else f"+{gap}"
            lines.append(f"| {label} | " + " | ".join(f"{100 * chance(gap, k, defending):.1f}%" for k in pools) + " |")
        out.append("\n".join(lines))
    two, three = chance(0, 2, False), chance(0, 3, False)
    pays = next((g for g in range(0, 30) if chance(g, 3, False) > chance(g, 2, False)), None)
    d1, d3 = chance(0, 1, True), chance(0, 3, True)
    any_fail = rules.ruleset.toggles.defence_any_fail_loses
    text = (f"The exact chance of winning one combat roll (every face of every die enumerated, fumbles included; "
            f"`mournesim odds` gives any single roll), by the dice pool and how far the enemy's value is above the "
            f"hero's ability total (a tie wins); ruleset {rules.hash}. A hero rolls every unlocked die, up to three "
            f"(MQ-GAP-35), and two Fails among two or more dice fumble (MQ-COMBAT-12): so against an enemy the "
            f"hero already matches, a third die *lowers* the chance, from {100 * two:.1f}% with two dice to "
            f"{100 * three:.1f}% with three; the third die pays only against an enemy at least "
            f"{pays} above the hero. " +
            (f"Fending off an attack, any Fail loses (MQ-GAP-34, toggle `defence_any_fail_loses`), so every die "
             f"is another chance to lose: a hero whose ability already matches the attack fends it off "
             f"{100 * d1:.1f}% of the time with one die and {100 * d3:.1f}% with three. " if any_fail else "") +
            "A designer who wants every unlocked die to help would let a hero roll fewer (the rulebook does not "
            "offer it).")
    return text + "\n\n" + "\n\n".join(out)


def mq_losses(root) -> str:
    """How the planner's games end, by level."""
    t = _table(root, "mq-grid", "how-games-end-by-level", COMPETENT)
    cols = [c for c in t.columns if c not in ("level", "games")]
    lines = ["| level | games | " + " | ".join(name(c) for c in cols) + " |",
             "|---" * (len(cols) + 2) + "|"]
    for r in t.to_dict("records"):
        lines.append(f"| {name(r['level'])} | {r['games']:,} | " + " | ".join(f"{100 * r[c]:.1f}%" for c in cols)
                     + " |")
    losses = {c: t[c].mean() for c in cols if c != "win"}
    main = max(losses, key=losses.get)
    text = (f"When a competent team (the planner) loses, the commonest end is **{name(main)}** "
            f"({100 * losses[main]:.1f}% of all games, averaged over the levels; {name('hero_died')}: a hero lost "
            f"their last life point; {name('wall_destroyed')}: the Shimnavore broke through; {name('cap')}: the "
            "safety limit on rounds, never reached in a real game). Per level:")
    return text + "\n\n" + "\n".join(lines)


def mq_loss_anatomy(root) -> str:
    """Where and how a competent team's games are lost, by level, and how
    close a lost Final Battle came."""
    t = _table(root, "mq-grid", "where-and-how-games-are-lost-by-level", COMPETENT)
    lines = ["| level | games lost | lost before the Final Battle | in it, to the wall | in it, a hero died | "
             "wins against the Shimnavore when a Final Battle is lost | one win short | arrived with under four dice |",
             "|---|---|---|---|---|---|---|---|"]
    for r in t.to_dict("records"):
        lines.append(f"| {name(r['level'])} | {100 * r['losses'] / r['games']:.1f}% of {r['games']:,} | "
                     f"{100 * r['before_final_battle']:.1f}% | {100 * r['in_it_to_the_wall']:.1f}% | "
                     f"{100 * r['in_it_a_hero_died']:.1f}% | {r['shimnavore_wins_when_lost']:.2f} | "
                     f"{100 * r['one_win_short']:.1f}% | {100 * r['under_four_dice']:.1f}% |")
    wall = t["in_it_to_the_wall"]
    inside = 1 - t["before_final_battle"]
    text = (f"Most of a competent team's losses (the planner, every player count) come in the Final Battle: "
            f"{100 * inside.min():.0f}–{100 * inside.max():.0f}% of them by level, and "
            f"{100 * wall.min():.0f}–{100 * wall.max():.0f}% of all its losses to the wall, the Shimnavore breaking "
            f"a section before the heroes beat it (twice on each Ability, MQ-FINAL-27); the columns on the right "
            f"say how close those battles came. Shares of the losses; \"one win short\" and \"under four dice\" "
            f"are shares of the Final Battles lost.")
    return text + "\n\n" + "\n".join(lines)


def mq_close_games(root) -> str:
    """How close a competent team's games come, by level and player count:
    of the wins, those ending a wall roll or a life point from a loss; of
    the losses, those before the Final Battle and those one win short."""
    t = _table(root, "mq-grid", "how-close-games-came-by-level-and-players", COMPETENT)
    lines = ["| level | players | games won | close wins | a section damaged | a hero on their last life point | "
             "losses before the Final Battle | Final Battles lost one win short |", "|---" * 8 + "|"]
    for r in t.to_dict("records"):
        lines.append(f"| {name(r['level'])} | {r['players']} | {100 * r['games_won']:.1f}% | "
                     f"{100 * r['close_wins']:.1f}% | {100 * r['wall_damaged']:.1f}% | "
                     f"{100 * r['last_life_point']:.1f}% | {100 * r['before_final_battle']:.1f}% | "
                     f"{100 * r['one_win_short']:.1f}% |")
    solo, four = t[t["players"] == 1]["close_wins"], t[t["players"] == 4]["close_wins"]
    text = (f"How close the games of a competent team (the planner) come, per player count "
            f"({t['games'].iloc[0]:,} games a cell). A *close win* ends with a wall section damaged (one more "
            f"successful wall roll there and the Shimnavore escapes, MQ-FINAL-19) or a hero on their last life "
            f"point; {100 * t['close_wins'].min():.0f}–{100 * t['close_wins'].max():.0f}% of the wins are close, "
            f"{100 * solo.min():.0f}–{100 * solo.max():.0f}% solo and {100 * four.min():.0f}–"
            f"{100 * four.max():.0f}% with four players, mostly through the wall. Shares of the games won, then of "
            f"the games lost; \"one win short\" is a share of the Final Battles lost.")
    return text + "\n\n" + "\n".join(lines)


def _skill_table(root, grid) -> str:
    t = _table(root, grid, "conclusions-across-player-skill")
    cols = list(t.columns)
    lines = ["| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]
    for r in t.to_dict("records"):
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(lines)


def mq_skill(root) -> str:
    """The key conclusions side by side for greedy and planner, with a verdict."""
    return _skill_table(root, "mq-grid")


# ---- shared by both games' verdict tables -----------------------------------------

def _verdicts(t: pd.DataFrame, words) -> dict:
    """Each row of ``t`` (``key``, ``effect`` with its interval ``low`` ..
    ``high``) -> ``words[0]`` (above zero), ``words[1]`` (below) or
    ``words[2]`` (neither): apart from zero after Holm's correction over the
    rows of ``t``."""
    from simcore.stats import normal_p
    holds = survivors([normal_p(e, (hi - lo) / 2) for e, lo, hi in zip(t["effect"], t["low"], t["high"])])
    return {k: (words[0] if e > 0 else words[1]) if ok else words[2] for k, e, ok in zip(t["key"], t["effect"], holds)}


def _by_count(pooled: pd.DataFrame, t: pd.DataFrame, what: str, words, count_name, last: str):
    """A verdict-by-count table: a row per ``key`` of ``pooled`` (largest
    effect first) with its pooled verdict (:func:`_verdicts`), its effect
    at each ``players`` of ``t`` (✓: apart after Holm over that count's
    rows) and whether the pooled verdict holds at each count (a flip: the
    opposite verdict somewhere). Returns (lines, flips as (key, count),
    how many hold at every count, how many rows)."""
    order = list(pooled.sort_values("effect", ascending=False)["key"])
    verdict = _verdicts(pooled, words)
    counts = sorted(t["players"].unique())
    by = {p: t[t["players"] == p].set_index("key") for p in counts}
    at = {p: _verdicts(by[p].reset_index(), words) for p in counts}
    lines = [f"| {what} | pooled verdict | " + " | ".join(count_name(p) for p in counts) + f" | {last} |",
             "|---" * (len(counts) + 3) + "|"]
    flips = []
    for k in order:
        cells = [_effect(by[p].loc[k, "effect"], by[p].loc[k, "effect"] - by[p].loc[k, "low"])
                 + (HOLDS if at[p][k] != words[2] else "") if k in by[p].index else "–" for p in counts]
        other = [p for p in counts if at[p].get(k) != verdict[k]]
        flipped = [p for p in other if words[2] not in (at[p].get(k, words[2]), verdict[k])]
        flips += [(k, p) for p in flipped]
        holds = ("yes" if not other else
                 f"**flips at {', '.join(count_name(p) for p in flipped)}**" if flipped else
                 f"not at {', '.join(count_name(p) for p in other)}")
        lines.append(f"| {name(k)} | {verdict[k]} | " + " | ".join(cells) + f" | {holds} |")
    n_holds = sum(all(at[p].get(k) == verdict[k] for p in counts) for k in order)
    return lines, flips, n_holds, len(order)


# ---- the frames the study's figures draw (experiments/figures.py) ----------------------------
# Each is the frame its block prints; tests/common/test_study_figures.py reads both.

def levels_frame(root) -> pd.DataFrame:
    """Win rate with its interval per level, player count and skill (the expert where its ladder is made)."""
    rows = []
    for pol in POLICIES:
        for r in _table(root, "mq-grid", "win-rate-by-level-and-players", pol).to_dict("records"):
            rows.append(dict(level=r["level"], players=r["players"], policy=pol, win_rate=r["win_rate"],
                             low=r["ci95_low"], high=r["ci95_high"]))
    for (lv, p), e in _expert_cells(root).items():
        rows.append(dict(level=lv, players=p, policy="expert", win_rate=e["win_rate"], low=e["low"], high=e["high"]))
    return pd.DataFrame(rows)


def heroes_frame(root) -> pd.DataFrame:
    """Each hero's effect with its interval per skill, in the block's order."""
    eff = {pol: _hero_effects(root, pol) for pol in POLICIES}
    order = eff[COMPETENT][0].sort_values(ascending=False).index
    sk = _skilled_heroes(root).get("ladder")
    rows = []
    for h in order:
        for pol in POLICIES:
            e, half = eff[pol][0][h], 1.96 * eff[pol][1][h]
            rows.append(dict(hero=h, policy=pol, effect=e, low=e - half, high=e + half))
        if sk is not None and ("expert", h) in sk.index:
            e, half = sk.loc[("expert", h), "effect"], sk.loc[("expert", h), "half"]
            rows.append(dict(hero=h, policy="expert", effect=e, low=e - half, high=e + half))
    return pd.DataFrame(rows)


def losses_frame(root) -> pd.DataFrame:
    """How the planner's games end, per level (shares of games)."""
    return _table(root, "mq-grid", "how-games-end-by-level", COMPETENT)
