"""Invariants that must hold in every position of every game, checked over many
seeded random-policy and greedy-policy playouts on every level and player count.

Two sources of positions are used:

* logged games (``replay``): every turn snapshot (``Replay.snapshots``, raw
  state vectors; offsets in ``mournesim.layout``), the final state and the
  event log;
* unlogged batch games (``sim.simulate``): the per-game result columns
  (``layout.RESULT_COLUMNS`` decoded by ``sim.to_frame``).

Rule IDs refer to shared/rules/mournequest-rules.md.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from mournesim import layout as L
from mournesim import sim
from mournesim.replay import replay

LEVELS = ("easy", "medium", "hard")
PLAYERS = (1, 2, 3, 4)
POLICIES = ("random", "greedy", "planner")
LOGGED_GAMES = 60          # logged games per (policy, level, players) cell
BATCH_GAMES = 250          # unlogged games per cell
SEED = 20240611

RULES = sim.prepare()
RS = RULES.ruleset
LIFE = RS.rules.life
BACKPACK = RS.rules.backpack
MINIS = RS.rules.miniatures_per_space
SUPPLY = RS.rules.charm_supply
MOON_LEN = len(RS.moon.track)
EFFECTS = RULES.tables.effects
EV = L.EVENT


# ---------------------------------------------------------------- helpers --

def _nh(s):
    return int(s[L.G_NHEROES])


def hero_field(s, h, f):
    return int(s[L.G_HERO + h * L.HS + f])


def disc_field(s, d, f):
    return int(s[L.G_DISC + d * L.DSZ + f])


def nm_field(s, k, f):
    return int(s[L.G_NM + k * L.NSZ + f])


def nex_field(s, c, f):
    return int(s[L.G_NEX + c * L.XSZ + f])


def state_problems(s, final=False, strict_capacity=False):
    """Every invariant of one raw state vector; returns a list of problem strings.

    The two-miniature limit (MQ-MOVE-07) is checked on every pathway space.
    Discs are not pathway spaces (MQ-GAP-69 ruling): any number of knocked-back
    heroes may lie on one, unless ``strict_capacity``."""
    probs = []
    nh = _nh(s)
    # --- occupancy (MQ-MOVE-07, MQ-MOVE-08) ---
    occ = Counter()
    for h in range(nh):
        occ[hero_field(s, h, L.H_POS)] += 1
    bog_spaces = set()
    for c in range(4):
        p = nex_field(s, c, L.X_BOG_POS)
        if p >= 0:
            occ[p] += 1
            bog_spaces.add(p)
    nm_spaces = set()
    for k in range(4):
        p = nm_field(s, k, L.NM_POS)
        if p >= 0:
            occ[p] += 1
            nm_spaces.add(p)
    for sp, n in occ.items():
        if n <= MINIS:
            continue
        kind = int(RULES.tables.kind[sp])
        if not strict_capacity and kind == L.K_DISC:
            continue   # discs are exempt (MQ-GAP-69)
        probs.append(f"MQ-MOVE-07: space {RULES.names.spaces[sp]} holds {n} miniatures")
    both = bog_spaces & nm_spaces
    if both:
        probs.append(f"MQ-MOVE-08: bogbean and nightmare share {[RULES.names.spaces[x] for x in both]}")
    # --- backpacks (MQ-HERO-03) and charm conservation (MQ-CHARM-01) ---
    for h in range(nh):
        held = sum(hero_field(s, h, L.H_CH + t) for t in range(4))
        if held > BACKPACK or any(hero_field(s, h, L.H_CH + t) < 0 for t in range(4)):
            probs.append(f"MQ-HERO-03: hero {h} backpack {held}")
    for t in range(4):
        pool = int(s[L.G_POOL_CHARMS + t])
        packs = sum(hero_field(s, h, L.H_CH + t) for h in range(nh))
        discs = sum(disc_field(s, d, L.D_DEP + t) for d in range(4))
        if pool < 0 or pool + packs + discs != SUPPLY:
            probs.append(f"MQ-CHARM-01: {L.CHARM_NAMES[t]} pool {pool} + packs {packs} + discs {discs} != {SUPPLY}")
    # --- life (MQ-HERO-04/05, MQ-END-03) ---
    dead = False
    for h in range(nh):
        life = LIFE - hero_field(s, h, L.H_WOUNDS)
        if not 0 <= life <= LIFE:
            probs.append(f"MQ-HERO-04: hero {h} life {life}")
        if life == 0:
            dead = True
    if dead and not final:
        probs.append("MQ-END-03: a dead hero in a turn snapshot (game should have ended)")
    if final and dead != (int(s[L.G_OUTCOME]) == L.OUT_HERO_DIED):
        probs.append(f"MQ-END-03: dead hero={dead} but outcome {L.OUTCOME_NAMES[int(s[L.G_OUTCOME])]}")
    # --- dice pool (MQ-COMBAT-03..06) ---
    pool = int(s[L.G_POOL])
    want = min(4, 1 + int(s[L.G_CASTOUT]) + int(s[L.G_DEFEATED]))
    if not 1 <= pool <= 4 or pool != want:
        probs.append(f"MQ-COMBAT-03..06: dice pool {pool}, cast out {int(s[L.G_CASTOUT])}, "
                     f"defeated {int(s[L.G_DEFEATED])}")
    # --- discs (MQ-DISC-03, MQ-LEVEL-02..04, MQ-CHARM-06/12) ---
    for d in range(4):
        st = disc_field(s, d, L.D_STATE)
        cl = disc_field(s, d, L.D_CLICKS)
        start = disc_field(s, d, L.D_START_CLICKS)
        if st == L.DS_ON and not 0 < cl <= start:
            probs.append(f"MQ-DISC-03: disc {L.DIR_NAMES[d]} on with {cl} clicks left of {start}")
        if st == L.DS_RELEASED and cl != 0:
            probs.append(f"MQ-DISC-03: disc {L.DIR_NAMES[d]} released with {cl} clicks left")
        k = disc_field(s, d, L.D_NM)
        for t in range(4):
            dep = disc_field(s, d, L.D_DEP + t)
            need = int(RULES.tables.nm_charms[k, t])
            if dep < 0 or dep > need:
                probs.append(f"MQ-CHARM-06: disc {L.DIR_NAMES[d]} holds {dep} {L.CHARM_NAMES[t]} of {need}")
            if st not in (L.DS_ON, L.DS_RELEASED) and dep:
                probs.append(f"MQ-CHARM-12: empty disc {L.DIR_NAMES[d]} still holds charms")
    # --- moon (MQ-MOON-02) ---
    if int(s[L.G_MOON]) != int(s[L.G_MOON_STEPS]) % MOON_LEN:
        probs.append(f"MQ-MOON-02: moon at {int(s[L.G_MOON])} after {int(s[L.G_MOON_STEPS])} steps")
    turns, steps = int(s[L.G_TURNS]), int(s[L.G_MOON_STEPS])
    if not final and steps != turns - 1:
        probs.append(f"MQ-MOON-02: {steps} moon steps before hero turn {turns}")
    if final and steps not in (turns, turns - 1):
        probs.append(f"MQ-MOON-02: {steps} moon steps after {turns} hero turns")
    # --- talismans (MQ-CHARM-12/13) ---
    if int(s[L.G_TALISMANS]) < 0 or int(s[L.G_TALISMANS]) + int(s[L.G_TALISMAN_SUPPLY]) > RS.rules.talismans:
        probs.append("MQ-CHARM-12: talisman count out of range")
    if int(s[L.G_TALISMANS]) > int(s[L.G_CASTOUT]):
        probs.append("MQ-CHARM-12: more talismans than cast-outs")
    # --- equipment (MQ-CARD-02): one card per ability, the right ability ---
    for h in range(nh):
        for a in range(3):
            c = hero_field(s, h, L.H_EQ + a)
            if c >= 0 and int(RULES.tables.cards[c, 0]) != a:
                probs.append(f"MQ-CARD-01: hero {h} card {c} under the wrong ability")
    return probs


def rotate_back_effect(e):
    """True if effect ``e`` turns a disc back (moon_dial relic, moon_whisper skill)."""
    return 0 <= e < len(EFFECTS) and EFFECTS[e, L.EF_KIND] == L.EK_ROTATE_DISC and EFFECTS[e, L.EF_AMOUNT] < 0


def rotate_back_events(ev):
    """Indices of events that turn a disc back: relic_used / skill_used with a negative rotate_disc."""
    out = []
    for i, row in enumerate(ev):
        et = int(row[0])
        if et == EV["relic_used"] and rotate_back_effect(int(row[4])):
            out.append(i)
        elif et == EV["skill_used"] and rotate_back_effect(int(row[3])):
            out.append(i)
    return out


def log_problems(rp):
    """Invariants of one logged game (event log + snapshots + final state)."""
    probs = []
    ev = rp.events
    fs = rp.final_state
    nh = _nh(fs)
    et = ev[:, 0]
    # the log was not truncated
    if len(ev) >= 200_000 or len(rp.snapshots) >= 200_000 // 20:
        probs.append("log truncated")
    # --- termination (MQ-END-01..04) ---
    if int(fs[L.G_OUTCOME]) == L.OUT_RUNNING:
        probs.append("game still running at the end")
    if et[-1] != EV["game_end"] or int(ev[-1, 3]) != int(fs[L.G_OUTCOME]):
        probs.append("log does not end with game_end giving the outcome")
    # --- snapshots ---
    ts = np.flatnonzero(et == EV["turn_start"])
    if len(ts) != len(rp.snapshots):
        probs.append(f"{len(ts)} turn_start events but {len(rp.snapshots)} snapshots")
    for j, i in enumerate(ts):
        if int(ev[i, 3]) != j:
            probs.append(f"turn_start {j} points at snapshot {int(ev[i, 3])}")
        s = rp.snapshots[j]
        if int(s[L.G_CUR]) != int(ev[i, 2]):
            probs.append(f"snapshot {j}: current hero {int(s[L.G_CUR])} != actor {int(ev[i, 2])}")
        if int(s[L.G_OUTCOME]) != L.OUT_RUNNING:
            probs.append(f"snapshot {j}: game already over")
        probs += [f"snapshot {j} (round {int(s[L.G_ROUND])}): {p}" for p in state_problems(s)]
    probs += [f"final state: {p}" for p in state_problems(fs, final=True)]
    # a won game destroyed no section, so each successful wall roll damaged
    # one and each repair rebuilt one (MQ-FINAL-14, -19..21): the sections
    # damaged at the end are the rolls less the repairs (report.close_games)
    if int(fs[L.G_OUTCOME]) == L.OUT_WIN and \
            int(fs[L.G_WALL_HITS]) - int(fs[L.G_WALL_REPAIRS]) != int(fs[L.G_WALL:L.G_WALL + 4].sum()):
        probs.append("won: wall rolls less repairs differ from the sections damaged at the end")
    # --- the moon moves exactly once per hero turn (MQ-MOON-02, MQ-FINAL-07) ---
    moons = np.flatnonzero(et == EV["moon"])
    bounds = list(ts) + [len(ev)]
    for j in range(len(ts)):
        n = int(((moons > bounds[j]) & (moons < bounds[j + 1])).sum())
        last = j == len(ts) - 1
        if n != 1 and not (last and n == 0):
            probs.append(f"MQ-MOON-02: hero turn {j} has {n} moon moves")
        if n == 0 and last and int(fs[L.G_MOON_STEPS]) != int(fs[L.G_TURNS]) - 1:
            probs.append("MQ-MOON-02: last turn without moon move but steps disagree")
    if len(moons) not in (len(ts), len(ts) - 1):
        probs.append(f"MQ-MOON-02: {len(moons)} moon events for {len(ts)} turns")
    if int(fs[L.G_TURNS]) != len(ts):
        probs.append(f"G_TURNS {int(fs[L.G_TURNS])} != {len(ts)} turn_start events")
    # --- hero turns per round == heroes, in seat order (MQ-ACT-02, MQ-SOLO-05/06) ---
    by_round = defaultdict(list)
    for i in ts:
        by_round[int(ev[i, 1])].append(int(ev[i, 2]))
    rounds = sorted(by_round)
    if rounds != list(range(1, len(rounds) + 1)):
        probs.append(f"MQ-ACT-02: rounds with turns are {rounds}")
    for r in rounds:
        seats = by_round[r]
        if r != rounds[-1] and seats != list(range(nh)):
            probs.append(f"MQ-ACT-02: round {r} turns by seats {seats} (heroes {nh})")
        if r == rounds[-1] and seats != list(range(len(seats))):
            probs.append(f"MQ-ACT-02: last round {r} turns by seats {seats}")
    # --- enemy phase once per round after every hero has played (MQ-ACT-01, MQ-SOLO-06) ---
    eps = ev[(et == EV["enemy_phase"]) & (ev[:, 3] == 0)]
    ep_rounds = Counter(int(x) for x in eps[:, 1])
    if any(v > 1 for v in ep_rounds.values()):
        probs.append(f"MQ-ACT-01: several enemy phases in one round {dict(ep_rounds)}")
    for r in ep_rounds:
        if len(by_round.get(r, [])) != nh:
            probs.append(f"MQ-ACT-01: enemy phase in round {r} after {len(by_round.get(r, []))} turns")
    # --- disc clicks never go back except by a rotate-back effect ---
    back = rotate_back_events(ev)
    for i in np.flatnonzero(et == EV["disc_click"]):
        if int(ev[i, 4]) < 0 and (i - 1) not in back:
            probs.append(f"disc {L.DIR_NAMES[int(ev[i, 3])]} turned back by event {i} without moon_dial/moon_whisper")
    back_arr = np.array(back, dtype=np.int64)
    for j in range(len(ts) - 1):
        a, b = rp.snapshots[j], rp.snapshots[j + 1]
        for d in range(4):
            if disc_field(a, d, L.D_STATE) in (L.DS_ON, L.DS_RELEASED) and \
                    disc_field(b, d, L.D_STATE) in (L.DS_ON, L.DS_RELEASED) and \
                    disc_field(b, d, L.D_CLICKS) > disc_field(a, d, L.D_CLICKS):
                if not ((back_arr > ts[j]) & (back_arr < ts[j + 1])).any():
                    probs.append(f"disc {L.DIR_NAMES[d]} clicks_left rose {disc_field(a, d, L.D_CLICKS)}->"
                                 f"{disc_field(b, d, L.D_CLICKS)} between turns {j} and {j + 1} "
                                 f"with no rotate-back relic or skill")
    # --- disc start marker follows the level (MQ-SETUP-02, MQ-LEVEL-02..04) ---
    lv = L.LEVEL_NAMES[int(fs[L.G_LEVEL])]
    want = getattr(RS.levels, lv).disc_lengths(int(fs[L.G_PLAYERS]))
    for d in range(4):
        if disc_field(fs, d, L.D_START_CLICKS) != want[d]:
            probs.append(f"MQ-LEVEL-02..04: disc {L.DIR_NAMES[d]} starts at {disc_field(fs, d, L.D_START_CLICKS)}")
    if ts.size and any(disc_field(rp.snapshots[0], d, L.D_CLICKS) > want[d] for d in range(4)):
        probs.append("first snapshot: a disc beyond its start marker")
    return probs


# ------------------------------------------------------------------ tests --

@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("level", LEVELS)
def test_logged_playouts_keep_every_invariant(level, players, policy):
    """Over 60 logged games per cell, every turn snapshot and the final state keep:
    at most two miniatures a space (MQ-MOVE-07); no bogbean with a nightmare
    (MQ-MOVE-08, MQ-ENEMY-12); backpacks <= 3 (MQ-HERO-03); each charm type
    conserved at 16 over pool + backpacks + discs (MQ-CHARM-01, -12); life in
    0..3 and a dead hero only in the final state, with outcome hero_died
    (MQ-HERO-04/05, MQ-END-03); dice pool = 1 + cast out + defeated, capped at 4
    (MQ-COMBAT-03..06); the moon moves exactly once per hero turn (MQ-MOON-02);
    disc clicks_left never rises except through moon_dial / moon_whisper;
    each round has one turn per hero in seat order then one enemy phase
    (MQ-ACT-01/02, MQ-SOLO-05/06); the game ends with an outcome (MQ-END);
    a won game's damaged sections are its wall rolls less its repairs
    (MQ-FINAL-14, -19..21)."""
    failures = []
    for g in range(LOGGED_GAMES):
        rp = replay(seed=SEED, game=g, level=level, players=players, policy=policy, rules=RULES)
        probs = log_problems(rp)
        if probs:
            failures.append(f"game {g}: " + "; ".join(probs[:3]))
    assert not failures, f"{len(failures)} of {LOGGED_GAMES} games break invariants:\n" + "\n".join(failures[:10])


@pytest.mark.parametrize("level", LEVELS)
def test_moon_events_match_turn_starts_in_decoded_records(level):
    """MQ-MOON-02: in the decoded records (``Replay.records()``) the number of
    'moon' events equals the number of 'turn_start' events, or one fewer when
    the game ended during a hero's actions (before the moon move)."""
    for g in range(6):
        rp = replay(seed=SEED + 1, game=g, level=level, players=2 + g % 3, policy="greedy", rules=RULES)
        recs = rp.records()
        c = Counter(r["event"] for r in recs)
        assert c["moon"] in (c["turn_start"], c["turn_start"] - 1), (g, c["moon"], c["turn_start"])
        if c["moon"] == c["turn_start"] - 1:
            # the game ended during the last hero's actions: nothing after the last turn_start moves the moon
            last_ts = max(r["i"] for r in recs if r["event"] == "turn_start")
            assert all(r["event"] != "moon" for r in recs[last_ts:])
        # moon 'space' of each event is one step after the previous
        spaces = [r["space"] for r in recs if r["event"] == "moon"]
        for a, b in zip([0] + spaces, spaces):
            assert b == (a + 1) % MOON_LEN


def _frames():
    out = []
    for policy in POLICIES:
        for level in LEVELS:
            for players in PLAYERS:
                out.append(sim.simulate(games=BATCH_GAMES, seed=SEED + 7, level=level, players=players,
                                        policy=policy, rules=RULES))
    import pandas as pd
    return pd.concat(out, ignore_index=True)


@pytest.fixture(scope="module")
def batch():
    return _frames()


def test_batch_every_game_terminates_and_cap_is_rare(batch):
    """MQ-END-04: every one of the 6,000 unlogged games (24 cells x 250) ends
    with an outcome other than 'running', and the safety cap outcome stays
    below 1% overall and in every cell."""
    assert (batch["outcome"] != "running").all()
    assert (batch["outcome"] == "cap").mean() < 0.01
    per_cell = batch.groupby(["policy", "level", "players"], observed=True)["outcome"].apply(
        lambda s: (s == "cap").mean())
    assert (per_cell < 0.01).all(), per_cell[per_cell >= 0.01]


def test_batch_result_columns_are_consistent(batch):
    """The per-game result columns agree with each other and the rules:
    turns per round = heroes (MQ-ACT-02, solo two heroes MQ-SOLO-02); hero
    columns hold distinct heroes (MQ-HERO-01); nightmare fates add up to the
    cast_out / defeated / escaped counts (MQ-CHARM-11, MQ-COMBAT-26,
    MQ-DISC-04); min_life is 0 exactly when a hero died (MQ-END-03); a win or a
    destroyed wall needs the Final Battle (MQ-END-01/02) and a win six
    Shimnavore wounds (MQ-FINAL-27); the final-battle dice pool is
    1 + cast out (+ defeated), at most 4 (MQ-COMBAT-03..06); talismans left
    never exceed cast-outs (MQ-CHARM-12/13)."""
    df = batch
    nh = np.where(df["players"] == 1, 2, df["players"])
    # turns per round
    assert ((df["hero_turns"] <= df["rounds"] * nh) & (df["hero_turns"] > (df["rounds"] - 1) * nh)).all()
    assert (df["rounds"] >= 1).all()
    # heroes by seat
    for i in range(1, 5):
        filled = df[f"hero{i}"] != ""
        assert (filled == (i <= nh)).all(), f"hero{i}"
    heroes = df[["hero1", "hero2", "hero3", "hero4"]].to_numpy()
    for row, n in zip(heroes, nh):
        assert len(set(row[:n])) == n and set(row[:n]) <= set(RULES.names.heroes)
    # nightmare fates
    fates = df[[f"fate_{n}" for n in RULES.names.nightmares]]
    assert ((fates == "cast_out").sum(axis=1) == df["cast_out"]).all()
    assert ((fates == "defeated").sum(axis=1) == df["defeated"]).all()
    escaped = df[[f"escaped_{n}" for n in RULES.names.nightmares]].sum(axis=1)
    assert (escaped == df["escaped"]).all()
    assert (df["cast_out"] + df["defeated"] <= 4).all()
    assert (df["cast_out"] + df["escaped"] <= 4).all()
    # a nightmare that escaped cannot then be cast out
    for n in RULES.names.nightmares:
        assert not (df[f"escaped_{n}"] & (df[f"fate_{n}"] == "cast_out")).any()
    # life
    assert ((df["min_life"] == 0) == (df["outcome"] == "hero_died")).all()
    assert df["min_life"].between(0, LIFE).all()
    # final battle
    fb = df["final_battle"]
    assert (fb | ~df["outcome"].isin(["win", "wall_destroyed"])).all()
    assert ((df["shimnavore_wounds"] == 3 * RS.rules.shimnavore_wins_per_ability) == (df["outcome"] == "win")).all()
    assert (df.loc[df["outcome"] == "wall_destroyed", "wall_damage"] >= 2).all()
    assert (df.loc[~fb, ["final_battle_rounds", "wall_damage", "shimnavore_wounds", "dice_pool_final"]] == 0).all().all()
    # a Final Battle lasts a round unless a hero dies to the opening roll (MQ-FINAL-06)
    assert ((df.loc[fb, "final_battle_rounds"] >= 1) | (df.loc[fb, "outcome"] == "hero_died")).all()
    pool = df.loc[fb, "dice_pool_final"]
    lo = np.minimum(4, 1 + df.loc[fb, "cast_out"])
    hi = np.minimum(4, 1 + df.loc[fb, "cast_out"] + df.loc[fb, "defeated"])
    assert ((pool >= lo) & (pool <= hi) & pool.between(1, 4)).all()
    assert (df["talismans_left"] <= df["cast_out"]).all()
    assert (df["talismans_left"] >= 0).all()


def test_batch_both_policies_reach_every_outcome_kind(batch):
    """Sanity of the playouts the invariants run on: across the batch the games
    include hero deaths (MQ-END-03), destroyed walls (MQ-END-02) and wins
    (MQ-END-01), so the invariants are exercised in every ending."""
    seen = set(batch["outcome"].astype(str))
    assert {"win", "hero_died", "wall_destroyed"} <= seen
    assert batch["final_battle"].any() and (~batch["final_battle"]).any()


# --------------------------------------------- knock-backs and escapes --

def _running_snapshot(final_battle):
    """A real mid-game position (raw state) with or without the Final Battle running."""
    for g in range(60):
        rp = replay(seed=SEED + 3, game=g, level="easy", players=3, policy="greedy", rules=RULES)
        for snap in rp.snapshots:
            if (int(snap[L.G_FINAL]) == L.FB_RUNNING) == final_battle:
                return snap.copy()
    raise AssertionError("no suitable position found")


def _kernel_args(s):
    from simcore.rng import N_STREAMS, seed_streams
    rng = np.zeros(N_STREAMS * 4, np.uint64)
    seed_streams(np.uint64(1), 0, rng)
    s[L.G_POLICY] = 0      # random policy: needs no parameters
    ev = np.zeros((2000, L.EV_COLS), np.int32)
    s[L.G_LOG] = 0
    return ev, rng, np.zeros(L.MAX_LEGAL, np.int32), np.zeros(2, np.float64)


def _clear_enemies(s):
    for k in range(4):
        s[L.G_NM + k * L.NSZ + L.NM_POS] = -1
    for c in range(4):
        s[L.G_NEX + c * L.XSZ + L.X_BOG_POS] = -1


def _minis_at(s, sp):
    occ = sum(hero_field(s, h, L.H_POS) == sp for h in range(_nh(s)))
    occ += sum(nex_field(s, c, L.X_BOG_POS) == sp for c in range(4))
    occ += sum(nm_field(s, k, L.NM_POS) == sp for k in range(4))
    return occ


def test_mighty_howl_knocks_every_hero_onto_the_disc():
    """MQ-FINAL-12 with the MQ-GAP-69 ruling: "knocks any Heroes standing on a Key
    Stone/Wall location backwards onto the Nightmare Disc directly behind them";
    a Disc is not a pathway space, so the limit of MQ-MOVE-07 does not stop it.
    Position (Final Battle running)::

        disc_s:      Hero 1 (knocked back earlier)
        keystone_s:  Hero 2, Hero 3          <- Compass Star: the Mighty Howl

    After the Howl all three heroes lie on disc_s and every pathway space still
    holds at most two miniatures (seen in seeded greedy games, e.g. seed
    20240611 game 39, easy, 3 players)."""
    from mournesim.rules import shimnavore_acts
    s = _running_snapshot(final_battle=True)
    _clear_enemies(s)
    tb = RULES.tables
    s[L.G_HERO + 0 * L.HS + L.H_POS] = tb.disc[2]
    s[L.G_HERO + 1 * L.HS + L.H_POS] = tb.keystone[2]
    s[L.G_HERO + 2 * L.HS + L.H_POS] = tb.keystone[2]
    ev, rng, legal, pp = _kernel_args(s)
    shimnavore_acts(s, RULES.T, ev, rng, legal, pp, L.FACE_STAR)
    assert _minis_at(s, int(tb.disc[2])) == 3
    assert _minis_at(s, int(tb.keystone[2])) == 0
    assert not [p for p in state_problems(s) if "MQ-MOVE-07" in p]


def test_escaping_nightmare_never_makes_three_miniatures_on_its_key_stone():
    """MQ-MOVE-07 with MQ-DISC-04: a Nightmare escaping onto its Key Stone must
    not make it hold three miniatures. Position (before the Final Battle)::

        keystone_n:  Nightmare A, Nightmare B   (escaped earlier, on the board)
        disc N:      Nightmare C, released      <- escapes this enemy phase

    (found in seeded random games, e.g. seed 20240611 game 28, hard, solo).
    Nothing makes way for it (MQ-GAP-27): it waits on its released Disc."""
    from mournesim.rules import escapes
    s = _running_snapshot(final_battle=False)
    _clear_enemies(s)
    tb = RULES.tables
    ks = int(tb.keystone[0])
    for h in range(_nh(s)):
        if hero_field(s, h, L.H_POS) == ks:
            s[L.G_HERO + h * L.HS + L.H_POS] = tb.start[2]
    others = [disc_field(s, d, L.D_NM) for d in (1, 2)]
    for d, k in zip((1, 2), others):
        s[L.G_DISC + d * L.DSZ + L.D_STATE] = L.DS_BOARD
        s[L.G_NM + k * L.NSZ + L.NM_POS] = ks
    s[L.G_DISC + 0 * L.DSZ + L.D_STATE] = L.DS_RELEASED
    s[L.G_DISC + 0 * L.DSZ + L.D_CLICKS] = 0
    s[L.G_DISC + 3 * L.DSZ + L.D_STATE] = L.DS_ON
    s[L.G_DISC + 3 * L.DSZ + L.D_CLICKS] = max(1, disc_field(s, 3, L.D_CLICKS))
    for d in (0, 1, 2):
        for t in range(4):
            s[L.G_POOL_CHARMS + t] += s[L.G_DISC + d * L.DSZ + L.D_DEP + t]
            s[L.G_DISC + d * L.DSZ + L.D_DEP + t] = 0
    assert _minis_at(s, ks) == 2
    ev, rng, legal, pp = _kernel_args(s)
    escapes(s, RULES.T, ev)
    assert nm_field(s, disc_field(s, 0, L.D_NM), L.NM_POS) == -1     # it waits
    assert disc_field(s, 0, L.D_STATE) == L.DS_RELEASED
    assert [nm_field(s, k, L.NM_POS) for k in others] == [ks, ks]   # nobody moved aside
    assert _minis_at(s, ks) <= MINIS
