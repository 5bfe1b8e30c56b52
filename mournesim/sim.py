"""The Python API of MourneQuest simulation: prepare a ruleset, play seeded
games into a pandas DataFrame (one game with its event log is
``mournesim.replay``).

    >>> from mournesim import sim
    >>> df = sim.simulate(games=1000, seed=1, level="medium", players=4)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcore.errors import InputError
from simcore.inputs import check_params
from simcore.fnptr import refuse_bad_choices
from simcore.plugins import policy_guard
from simcore.warmup import compile_cold
from . import layout as L
from . import plugins
from .gamedef import GAME
from .ruleset import Ruleset, load_ruleset, names_of, normalise_level, ruleset_hash
from .odds import with_attack_counts
from .tables import Names, Tables, compile_tables


@dataclass(frozen=True)
class Rules:
    """A validated ruleset and its compiled form."""
    ruleset: Ruleset
    T: np.ndarray
    tables: Tables
    names: Names
    hash: str

    def display_names(self) -> dict:
        """Every id of the ruleset -> the name a person reads (its ``[names]``)."""
        return names_of(self.ruleset)


def prepare(ruleset_path=None, overrides=()) -> Rules:
    """Load (with ``--set`` style overrides), validate and compile a ruleset."""
    rs = load_ruleset(ruleset_path, overrides)
    _T, tables, names = compile_tables(rs)
    T, tables = with_attack_counts(tables)
    return Rules(rs, T, tables, names, ruleset_hash(rs))


@dataclass(frozen=True)
class Config:
    """One game configuration: level, player count, heroes by seat, policy."""
    level: str = "medium"
    players: int = 4
    heroes: tuple = ()          # hero names by seat; empty = drawn at random
    policy: str = "greedy"
    params: tuple = ()          # policy parameter values; empty = defaults

    def resolved(self, rules: Rules, entry=True):
        """Check against the rules; return (level id, hero id array, policy id,
        params, engine module). ``entry`` False: check only, leaving a
        plug-in's entry point uncompiled (params None)."""
        level = L.LEVEL_NAMES.index(normalise_level(self.level))
        if not 1 <= self.players <= 4:
            raise InputError(f"--players {self.players}: MourneQuest takes 1 to 4 players")
        nh = 2 if self.players == 1 else self.players
        hero_ids = np.full(4, -1, np.int32)
        if self.heroes:
            if len(self.heroes) != nh:
                raise InputError(f"--heroes: {self.players} player(s) play {nh} heroes, got {len(self.heroes)}")
            for i, name in enumerate(self.heroes):
                if name not in rules.names.heroes:
                    raise InputError(f"--heroes: unknown hero {name!r} (choose from {', '.join(rules.names.heroes)})")
                hero_ids[i] = rules.names.heroes.index(name)
            if len(set(self.heroes)) != len(self.heroes):
                raise InputError("--heroes: each hero can be played only once")
        info = plugins.get(self.policy)
        pid = info.builtin_id if info.builtin_id >= 0 else plugins.PLUGIN_ID
        params = self.params or info.defaults
        if len(params) != len(info.defaults):
            raise InputError(f"--params: policy {self.policy} takes {len(info.defaults)} parameter(s)"
                             f" ({', '.join(info.param_names) or 'none'})")
        check_params(self.policy, info.param_names, params, info.ranges)
        return level, hero_ids, pid, plugins.policy_vector(info, params) if entry else None, plugins.engine_for(info)


def run_games(rules: Rules, config: Config, seed: int, first: int, n: int) -> np.ndarray:
    """Raw int32 result rows of games ``first .. first+n-1`` (layout.RESULT_COLUMNS)."""
    level, hero_ids, pid, pp, engine = config.resolved(rules)
    out = np.zeros((n, L.NRES), np.int32)
    # no games (n = 0) still loads the engine: a worker process starting (simcore.batch)
    with policy_guard(config.policy):
        engine.run_batch(np.uint64(seed), first, n, level, config.players, hero_ids, pid, pp, rules.T, out)
    refuse_bad_choices(out[:, L.RESULT_INDEX["illegal_choices"]], config.policy)
    return out


def to_frame(rows: np.ndarray, rules: Rules, config: Config, seed: int, first: int) -> pd.DataFrame:
    """Decode raw result rows into the per-game DataFrame (docs/mournequest/results.md)."""
    df = pd.DataFrame(rows, columns=L.RESULT_COLUMNS)
    df.insert(0, "game", np.arange(first, first + len(df), dtype=np.int64))
    df.insert(1, "seed", np.uint64(seed))
    # text columns are categoricals with fixed categories: compact in memory
    # and in Parquet, and batches concatenate without losing the dtype
    n = len(df)
    df.insert(2, "level", pd.Categorical.from_codes(np.full(n, L.LEVEL_NAMES.index(normalise_level(config.level))),
                                                    categories=list(L.LEVEL_NAMES)))
    df.insert(3, "players", config.players)
    df.insert(4, "policy", config.policy)
    df["outcome"] = pd.Categorical.from_codes(df["outcome"], categories=list(L.OUTCOME_NAMES))
    df["win"] = df["outcome"] == "win"
    heroes = list(rules.names.heroes) + [""]
    for i in range(1, 5):
        codes = df[f"hero{i}"].to_numpy()
        df[f"hero{i}"] = pd.Categorical.from_codes(np.where(codes < 0, len(heroes) - 1, codes), categories=heroes)
    for k, name in enumerate(rules.names.nightmares):
        df[f"fate_{name}"] = pd.Categorical.from_codes(df[f"fate_nm{k + 1}"].to_numpy(), categories=list(L.FATE_NAMES))
        df[f"escaped_{name}"] = df[f"escaped_nm{k + 1}"].astype(bool)
        df = df.drop(columns=[f"fate_nm{k + 1}", f"escaped_nm{k + 1}"])
    df["final_battle"] = df["final_battle"].astype(bool)
    return df


def simulate(games=1000, seed=1, level="medium", players=4, heroes=(), policy="greedy", params=(),
             ruleset=None, overrides=(), rules: Rules | None = None) -> pd.DataFrame:
    """Play ``games`` seeded games in this process; one row per game. A
    cold engine is compiled first, on every core (simcore.warmup)."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(level=level, players=players, heroes=tuple(heroes), policy=policy, params=tuple(params))
    # the configuration checked, then a cold engine compiled on every core, and
    # said; a plug-in's entry point after it (rollout's calls into the engine)
    compile_cold(GAME, cfg.resolved(rules, entry=False)[-1].run_batch, during=lambda: plugins.compile_entries([policy]))
    rows = run_games(rules, cfg, seed, 0, games)
    return to_frame(rows, rules, cfg, seed, 0)

