"""The Python API of Quest Master simulation: prepare a ruleset, play seeded
games into a pandas DataFrame (one row per game), replay one game.

    >>> from questsim import sim
    >>> df = sim.simulate(games=1000, seed=1, players=4)
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
from .policies import BUILTIN_POLICIES
from .ruleset import Ruleset, load_ruleset, names_of, ruleset_hash
from .tables import Names, compile_tables

POLICY_IDS = {name: pid for pid, name, _n, _d in BUILTIN_POLICIES}


@dataclass(frozen=True)
class Rules:
    """A validated ruleset and its compiled form."""
    ruleset: Ruleset
    T: np.ndarray
    names: Names
    hash: str

    def display_names(self) -> dict:
        """Every id of the ruleset -> the name a person reads (its ``[names]``)."""
        return names_of(self.ruleset)


def prepare(ruleset_path=None, overrides=()) -> Rules:
    """Load (with ``--set`` overrides), validate and compile a ruleset."""
    rs = load_ruleset(ruleset_path, overrides)
    T, names = compile_tables(rs)
    return Rules(rs, T, names, ruleset_hash(rs))


@dataclass(frozen=True)
class Config:
    """One table: player count, characters by seat (empty: drawn at random),
    policies by seat (one name: every seat), and the parameters of the first
    seat's policy (the other policies keep their defaults)."""
    players: int = 4
    characters: tuple = ()
    policies: tuple = ("greedy",)
    params: tuple = ()

    def resolved(self, rules: Rules, entry=True):
        """Check against the rules; returns (chars, policy ids, params, engine):
        the arrays the kernels take and the engine module that runs the
        table. ``entry`` False: check only, leaving the policies' entry
        points uncompiled (their addresses 0)."""
        r = rules.ruleset.rules
        if not r.min_players <= self.players <= r.max_players:
            raise InputError(f"--players {self.players}: Quest Master takes {r.min_players} to {r.max_players} players")
        chars = np.full(L.MAX_PLAYERS, -1, np.int32)
        if self.characters:
            if len(self.characters) != self.players:
                raise InputError(f"--characters: {self.players} players need {self.players} characters, "
                                 f"got {len(self.characters)}")
            for i, c in enumerate(self.characters):
                if c == "random":
                    continue
                if c not in rules.names.characters:
                    raise InputError(f"--characters: unknown character {c!r} "
                                     f"(choose from {', '.join(rules.names.characters)})")
                if rules.names.characters.index(c) in chars:
                    raise InputError(f"--characters: {c} can be played by only one seat (QM-GAP-08)")
                chars[i] = rules.names.characters.index(c)
        if self.players > len(rules.names.characters):
            raise InputError(f"--players {self.players}: only {len(rules.names.characters)} characters")
        pols = self.policies or ("greedy",)
        if len(pols) == 1:
            pols = pols * self.players
        if len(pols) != self.players:
            raise InputError(f"--policy: give one policy, or one per seat ({self.players}), got {len(pols)}")
        pids = np.zeros(L.MAX_PLAYERS, np.int32)
        # a row per seat: its parameters, a plug-in's working memory (questsim.plugins),
        # the entry points it uses, and last the address of the seat's policy
        scratch = max(plugins.get(name).meta.get("scratch", 0) for name in pols)
        memory = L.TABLE_SLOTS + scratch if scratch else 0
        uses = max(len(plugins.get(name).meta.get("uses", ())) for name in pols)
        pp = np.zeros((L.MAX_PLAYERS, L.MAX_PARAMS + memory + uses + 1), np.float64)
        for i, name in enumerate(pols):
            info = plugins.get(name)
            pids[i] = info.builtin_id if info.builtin_id >= 0 else plugins.PLUGIN_ID
            # --params belong to the first seat's policy (and every seat playing it)
            vals = self.params if self.params and name == pols[0] else info.defaults
            if len(vals) != len(info.defaults) or len(vals) > L.MAX_PARAMS:
                raise InputError(f"--params: policy {name} takes {len(info.defaults)} parameter(s) "
                                 f"({', '.join(info.param_names) or 'none'})")
            check_params(name, info.param_names, vals, info.ranges)
            pp[i, :len(vals)] = vals
            if entry and info.builtin_id >= 0:
                pp[i, -1] = plugins.builtin_entry(name)
            elif entry:
                used = plugins.REGISTRY.used_addresses(info)     # just before its own
                pp[i, pp.shape[1] - 1 - len(used):pp.shape[1] - 1] = used
                pp[i, -1] = plugins.entry(info)
        # working memory starts with the table: every seat's parameters and
        # policy's address, which a search needs to replay the other seats
        table = np.concatenate([pp[:, :L.MAX_PARAMS], pp[:, -1:]], axis=1).ravel()
        for i, name in enumerate(pols):
            if plugins.get(name).meta.get("scratch", 0):
                pp[i, L.MAX_PARAMS:L.MAX_PARAMS + L.TABLE_SLOTS] = table
        engine = plugins.engine_for(plugins.get(pols[0]))
        return chars, pids, pp, engine


def run_games(rules: Rules, config: Config, seed: int, first: int, n: int) -> np.ndarray:
    """Raw int32 result rows of games ``first .. first+n-1``."""
    chars, pids, pp, engine = config.resolved(rules)
    out = np.zeros((n, L.NRES), np.int32)
    # no games (n = 0) still loads the engine: a worker process starting (simcore.batch)
    with policy_guard("+".join(config.policies)):
        engine.run_batch(np.uint64(seed), first, n, config.players, chars, pids, pp, rules.T, out)
    refuse_bad_choices(out[:, L.RESULT_INDEX["illegal_choices"]], "+".join(config.policies))
    return out


def to_frame(rows: np.ndarray, rules: Rules, config: Config, seed: int, first: int) -> pd.DataFrame:
    """Decode raw rows into the per-game DataFrame (docs/questmaster/results.md)."""
    n = len(rows)
    df = pd.DataFrame(rows, columns=L.RESULT_COLUMNS)
    df.insert(0, "game", np.arange(first, first + n, dtype=np.int64))
    df.insert(1, "seed", np.uint64(seed))
    df.insert(2, "players", config.players)
    pols = config.policies if len(config.policies) > 1 else config.policies * config.players
    df.insert(3, "policy", "+".join(pols) if len(set(pols)) > 1 else pols[0])
    df["win_condition"] = pd.Categorical.from_codes(df["win_condition"], categories=list(L.WIN_NAMES))
    chars = list(rules.names.characters) + [""]
    for col in ["winner_character"] + [f"char{i}" for i in range(1, 7)]:
        codes = df[col].to_numpy()
        df[col] = pd.Categorical.from_codes(np.where(codes < 0, len(chars) - 1, codes), categories=chars)
    df["decided"] = df["winner_seat"] >= 0
    df["first_player_won"] = df["winner_position"] == 0
    # the batch driver's success column: a game with a winner (for --target-ci)
    df["win"] = df["decided"]
    return df


def simulate(games=1000, seed=1, players=4, characters=(), policies=("greedy",), params=(), ruleset=None,
             overrides=(), rules: Rules | None = None) -> pd.DataFrame:
    """Play ``games`` seeded games in this process; one row per game. A
    cold engine is compiled first, on every core (simcore.warmup)."""
    rules = rules or prepare(ruleset, overrides)
    cfg = Config(players, tuple(characters), tuple(policies), tuple(params))
    # the configuration checked, then a cold engine compiled on every core, and
    # said; a plug-in's entry point after it (rollout's calls into the engine)
    compile_cold(GAME, cfg.resolved(rules, entry=False)[-1].run_batch,
                 during=lambda: plugins.compile_entries(cfg.policies or ("greedy",)))
    return to_frame(run_games(rules, cfg, seed, 0, games), rules, cfg, seed, 0)
