"""Exact combat odds by enumerating every face combination of the dice rolled
(no simulation). Used by the heuristic policies and by the ``odds`` tooling;
tests check it against the engine's own dice.

``p_win`` enumerates the rolls on every call. The policies ask about the
plain attack roll (the unlocked dice, no bonus, not defending) hundreds of
times a game, so ``attack_counts`` counts those rolls once per ruleset into
the rules array and ``p_attack`` reads the answer: the same integer counts,
so the same probabilities to the last bit.
"""
import itertools

import numpy as np

from simcore.jit import kernel, needs_nrt
from . import tables as TB
from .core import score_roll


@needs_nrt
def p_win(T, levels, n, ability, bonus, target, blue, defending):
    """Probability that a hero with ``ability`` (+``bonus``) beats ``target``
    rolling dice ``levels[:n]`` once (no re-rolls), each face equally likely."""
    if n == 0:
        return 1.0 if ability + bonus >= target else 0.0
    idx = np.zeros(n, np.int64)
    faces = np.zeros(n, np.int32)
    total = 1
    for i in range(n):
        total *= T[TB.O_DICE_NF + (levels[i])]
    wins = 0
    for _ in range(total):
        for i in range(n):
            faces[i] = T[TB.O_DICE + (levels[i]) * TB.DIE_W + (idx[i])]
        w, _v = score_roll(T, faces, n, ability, bonus, target, blue, defending)
        if w:
            wins += 1
        # odometer
        for i in range(n):
            idx[i] += 1
            if idx[i] < T[TB.O_DICE_NF + (levels[i])]:
                break
            idx[i] = 0
    return wins / total


# ---- designer's tables (Python side of `mournesim odds`) ------------------

ABILITIES = ("courage", "strength", "magic")
# (moon phase, the enemy values it uses, Blue Moon doubling) — MQ-MOON-01, MQ-MOON-05:
# "On the Blue Moon, enemies fight at their Green (weakest) values and every
# dice roll the Heroes make is doubled."
MOONS = (("new (green)", "green", False), ("waxing/waning (grey)", "grey", False),
         ("blood (red)", "red", False), ("blue", "green", True))
DICE_NAMES = ("grey", "green", "orange", "red")


def pool_choices(pool, max_dice=3):
    """The dice a hero may roll with ``pool`` dice unlocked (MQ-COMBAT-03..07):
    the first ``pool`` dice, or every choice of ``max_dice`` of them."""
    from itertools import combinations
    dice = list(range(pool))
    return [dice] if pool <= max_dice else [list(c) for c in combinations(dice, max_dice)]


def combat_odds(rules, ability, target, dice, bonus=0, blue=False, defending=False) -> float:
    """Exact chance that ``ability`` (+``bonus``) beats ``target`` rolling
    ``dice`` (indices 0 grey .. 3 red) once, by enumerating every face."""
    levels = np.array(dice, np.int64)
    return float(p_win(rules.T, levels, len(dice), ability, bonus, target, blue, defending))


def best_odds(rules, ability, target, pool, blue=False, defending=False):
    """(chance, dice) for the best choice of dice from a pool of ``pool``."""
    best = max(pool_choices(pool, rules.ruleset.rules.max_combat_dice),
               key=lambda d: combat_odds(rules, ability, target, d, 0, blue, defending))
    return combat_odds(rules, ability, target, best, 0, blue, defending), best


def combat_table(rules, hero, pools=(1, 2, 3, 4), defending=False):
    """The designer's table: for each enemy, moon phase and ability, the
    enemy's value and the hero's exact chance of winning one roll (attacking,
    or fending off an attack on that ability) with each dice pool. A pool of
    four rolls its best three dice (MQ-COMBAT-06)."""
    import pandas as pd
    rs = rules.ruleset
    if hero not in rs.heroes:
        from simcore.errors import InputError
        raise InputError(f"--hero: unknown hero {hero!r} (choose from {', '.join(rs.heroes)})")
    h = rs.heroes[hero]
    enemies = [(n, e) for n, e in rs.enemies.items()] + list(rs.nightmares.items()) + [("shimnavore", rs.shimnavore)]
    rows = []
    for name, e in enemies:
        for moon, colour, blue in MOONS:
            vals = getattr(e, colour)
            for a, ab in enumerate(ABILITIES):
                row = dict(enemy=name, moon=moon, ability=ab, hero_value=getattr(h, ab), enemy_value=vals[a])
                for k in pools:
                    row[f"{k} {'die' if k == 1 else 'dice'}"] = best_odds(rules, getattr(h, ab), vals[a], k, blue,
                                                                          defending)[0]
                rows.append(row)
    return pd.DataFrame(rows)
@kernel
def p_attack(T, pool, need, blue):
    """``p_win`` of an attack roll with ``pool`` dice unlocked (the dice
    ``core.dice_for_combat`` picks, no extra dice), no bonus, not defending,
    when the dice must add ``need`` = target - ability; read from the table
    ``attack_counts`` filled."""
    x = min(max(need, 0), TB.ODDS_W - 1)
    b = 1 if blue else 0
    return T[TB.O_ODDS + (pool * 2 + b) * TB.ODDS_W + x] / T[TB.O_ODDS_TOTAL + pool]


def with_attack_counts(tables):
    """``tables`` (``tables.Tables``, the odds sections still empty) with
    its ``odds`` tables counted, and its flat array: the last step of
    compiling a ruleset (sim.prepare). The counts come from the engine's own
    scoring of a roll, which reads the other sections of the flat array."""
    tables = tables._replace(**attack_counts(TB.flatten(tables)))
    return TB.flatten(tables), tables


def attack_counts(T):
    """The ``odds`` and ``odds_total`` tables of ``tables.Tables`` for the flat
    rules array ``T`` (its other sections filled).

    For each pool size the dice are those ``core.dice_for_combat`` picks (the
    highest unlocked levels, at most ``max_dice``); each face combination is
    scored once by the engine's ``score_roll`` with ability 0 and target 0,
    which gives its dice value (or a sure win, or a fumble). A roll beats a
    needed value ``x`` when it is a sure win or its value is at least ``x``;
    values never go below 0, so ``x`` <= 0 counts like 0, and the last column
    (above every value) holds the sure wins."""
    score = getattr(score_roll, "py_func", score_roll)
    odds = np.zeros((5, 2, TB.ODDS_W), np.int32)
    total = np.zeros(5, np.int32)
    for pool in range(5):
        n = min(pool, int(T[TB.P_MAX_COMBAT_DICE]))
        levels = [pool - 1 - i for i in range(n)]
        faces_by_die = [[int(T[TB.O_DICE + lv * TB.DIE_W + j]) for j in range(int(T[TB.O_DICE_NF + lv]))] for lv in levels]
        for b in range(2):
            sure = 0
            values = np.zeros(TB.ODDS_W, np.int64)
            combos = 0
            for faces in itertools.product(*faces_by_die):
                combos += 1
                w, v = score(T, np.array(faces, np.int32), n, 0, 0, 0, b == 1, False)
                if not w:
                    continue   # a fumble: loses whatever is needed
                if v == 999:
                    sure += 1
                else:
                    if v >= TB.ODDS_W - 1:
                        raise ValueError(f"dice value {v} does not fit the odds table (ODDS_W={TB.ODDS_W})")
                    values[v] += 1
            # wins at x: sure wins plus rolls worth x or more
            odds[pool, b] = sure + np.cumsum(values[::-1])[::-1]
            total[pool] = combos
    return {"odds": odds, "odds_total": total}


# ---- the studio's dice calculator ---------------------------------------------

CALCULATOR = (
    dict(name="dice", kind="text", default="grey,green", help="the dice rolled, e.g. grey,green,orange (a pool's dice)"),
    dict(name="ability", kind="number", default=5, low=0, high=30, help="the hero's ability value"),
    dict(name="bonus", kind="number", default=0, low=-10, high=10, help="bonus added (cards, relics)"),
    dict(name="target", kind="number", default=9, low=0, high=60, help="the enemy's value to reach"),
    dict(name="blue", kind="toggle", default=False, help="Blue Moon: every roll doubled (MQ-MOON-05)"),
    dict(name="defending", kind="toggle", default=False, help="fending off an attack"),
)


def roll_distribution(rules, dice, ability=0, bonus=0, blue=False, defending=False):
    """The exact distribution of one combat roll of ``dice`` (indices 0 grey
    .. 3 red) by ``ability`` (+``bonus``), by enumerating every face with the
    engine's own scoring (``core.score_roll``): ``(counts, total, doubles)``,
    ``counts`` {result: rolls} with -1 a fumble and 999 a Dandelion, and
    ``doubles`` the rolls showing a Double."""
    from collections import Counter

    from . import layout as L
    T = rules.T
    score = getattr(score_roll, "py_func", score_roll)
    faces = [[int(T[TB.O_DICE + d * TB.DIE_W + i]) for i in range(int(T[TB.O_DICE_NF + d]))] for d in dice]
    counts, doubles, total = Counter(), 0, 0
    for roll in itertools.product(*faces):
        _, v = score(T, np.array(roll, np.int32), len(roll), ability, bonus, 0, blue, defending)
        counts[int(v)] += 1
        doubles += L.FACE_DOUBLE in roll
        total += 1
    return dict(sorted(counts.items())), total, doubles


def calculate(rules, values: dict) -> dict:
    """The studio's dice calculator: ``values`` as :data:`CALCULATOR` names
    them -> the exact distribution of the roll's result (bars) and the chance
    of reaching the target, of a fumble and of a Double."""
    from fractions import Fraction

    from simcore.errors import InputError
    names = [d.strip().lower() for d in str(values["dice"]).split(",") if d.strip()]
    bad = [d for d in names if d not in DICE_NAMES]
    if bad or len(names) > 6:
        raise InputError(f"dice: {bad[0] if bad else str(values['dice'])!r}: give up to 6 of "
                         f"{', '.join(DICE_NAMES)}, comma-separated")
    dice = [DICE_NAMES.index(d) for d in names]
    counts, total, doubles = roll_distribution(rules, dice, int(values["ability"]), int(values["bonus"]),
                                               bool(values["blue"]), bool(values["defending"]))
    target = int(values["target"])
    win = Fraction(sum(c for v, c in counts.items() if v >= target), total)
    fumble = Fraction(counts.get(-1, 0), total)

    def label(v):
        return "fumble" if v == -1 else "Dandelion" if v == 999 else str(v)
    bonus = int(values["bonus"])
    title = (f"{', '.join(names) or 'no dice'}: ability {int(values['ability'])}"
             + (f" {bonus:+d}" if bonus else "") + f" against {target}"
             + (" under the Blue Moon" if values["blue"] else "") + (", defending" if values["defending"] else ""))
    return {"title": title,
            "bars": [dict(label=label(v), p=c / total, exact=str(Fraction(c, total)), hit=v >= target)
                     for v, c in counts.items()],
            "summary": [f"reaches {target}: {float(win):.1%} ({win})", f"fumble: {float(fumble):.1%} ({fumble})",
                        f"a Double among the dice: {doubles / total:.1%} ({Fraction(doubles, total)})",
                        f"{total:,} equally likely rolls"]}
