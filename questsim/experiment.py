"""Quest Master's side of designer experiments (simcore.experiment): the base
configuration keys of an experiment file, the measures a report can compare,
and how one arm becomes a plan of batch-driver cells."""
from __future__ import annotations

from simcore.errors import InputError
from simcore.experiment import base_params, base_text, check_base

from . import batch as grid
from . import plugins
from .gamedef import GAME as _GAME
from .ruleset import load_raw  # noqa: F401  (the experiment runner reads current values)
from .sim import prepare

GAME = _GAME.key        # experiment files' `game =`
PROG = _GAME.package
CELL = ("players", "policy")
# base keys and their defaults; list values may be TOML lists or "a,b" strings
BASE = dict(players="4", policy="greedy", characters="random", params="", ruleset=None, set=[])
play_batch = grid.play_batch


def _won(name):
    return lambda df: (df["win_condition"] == name).to_numpy()


# name -> (is a 0/1 outcome, what it is, function of the rows)
MEASURES = {
    "first_player_won": (True, "the player who went first wins",
                         lambda df: (df["winner_position"] == 0).to_numpy()),
    "last_player_won": (True, "the player who went last wins",
                        lambda df: (df["winner_position"] == df["players"] - 1).to_numpy()),
    "win_last_standing": (True, "won by being the last player standing", _won("last_standing")),
    "win_castles": (True, "won by landing on all five castles", _won("five_castles")),
    "win_hp": (True, "won with more than the Hp threshold", _won("hp_over_40")),
    "capped": (True, "stopped by the safety cap", _won("cap")),
    "seat1_won": (True, "the player in seat 1 (the first policy of the table) wins",
                  lambda df: (df["winner_seat"] == 0).to_numpy()),
    "rounds": (False, "rounds played", lambda df: df["rounds"].to_numpy()),
    "duels": (False, "duels fought", lambda df: df["duels"].to_numpy()),
    "eliminated": (False, "players eliminated", lambda df: df["eliminated"].to_numpy()),
}
DEFAULT_MEASURES = ("first_player_won", "last_player_won", "win_hp", "win_castles", "rounds")


def plan(base, overrides, games, seed, first, batch):
    """The batch-driver plan of one arm: the base grid under ``overrides``."""
    b = check_base(base, BASE, "Quest Master")
    rules = prepare(b["ruleset"], tuple(overrides))
    chars = base_text(b["characters"]).strip().lower()
    pars = base_params(b)
    return grid.make_plan(games=games, seed=seed, players=grid.parse_players(base_text(b["players"]), rules),
                          tables=grid.parse_tables(base_text(b["policy"])),
                          characters=() if chars in ("", "random") else tuple(c.strip() for c in chars.split(",")),
                          params=pars, rules=rules, ruleset=b["ruleset"], overrides=tuple(overrides), batch=batch,
                          command="", first=first)


def policy_info(base):
    """The policy a ``policy_tune`` tunes — seat 1's, against the fixed
    opponents of the rest of the table: (name, parameter names, defaults,
    valid ranges)."""
    b = check_base(base, BASE, "Quest Master")
    tables = grid.parse_tables(base_text(b["policy"]))
    if len(tables) != 1:
        raise InputError("policy_tune: give one base policy table (e.g. planner+greedy+greedy+greedy)")
    name = tables[0][0]
    info = plugins.get(name)
    return name, tuple(info.param_names), tuple(info.defaults), dict(info.ranges)
