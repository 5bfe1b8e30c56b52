"""MourneQuest's side of designer experiments (simcore.experiment): the base
configuration keys of an experiment file, the measures a report can compare,
and how one arm becomes a plan of batch-driver cells."""
from __future__ import annotations

from simcore.errors import InputError
from simcore.experiment import base_params, base_text, check_base

from . import batch as grid
from . import plugins
from .gamedef import GAME as _GAME
from .ruleset import load_raw  # noqa: F401  (the experiment runner reads current values)

GAME = _GAME.key        # experiment files' `game =`
PROG = _GAME.package
CELL = ("level", "players", "policy")
# base keys and their defaults; list values may be TOML lists or "a,b" strings
BASE = dict(level="medium", players="4", policy="greedy", heroes="random", params="", ruleset=None, set=[])
play_batch = grid.play_batch


def _outcome(name):
    return lambda df: (df["outcome"] == name).to_numpy()


# name -> (is a 0/1 outcome, what it is, function of the rows)
MEASURES = {
    "win": (True, "the team wins", lambda df: df["win"].to_numpy()),
    "final_battle": (True, "the Final Battle is reached", lambda df: df["final_battle"].to_numpy()),
    "hero_died": (True, "lost: a hero died", _outcome("hero_died")),
    "wall_destroyed": (True, "lost: the wall was destroyed", _outcome("wall_destroyed")),
    "cap": (True, "stopped by the safety cap", _outcome("cap")),
    "rounds": (False, "rounds played", lambda df: df["rounds"].to_numpy()),
    "cast_out": (False, "Nightmares cast out", lambda df: df["cast_out"].to_numpy()),
    "escaped": (False, "Nightmares escaped", lambda df: df["escaped"].to_numpy()),
    "dice_pool_final": (False, "combat dice in the pool at the end", lambda df: df["dice_pool_final"].to_numpy()),
    "wall_damage": (False, "wall sections damaged", lambda df: df["wall_damage"].to_numpy()),
    "shimnavore_wounds": (False, "wounds dealt to the Shimnavore", lambda df: df["shimnavore_wounds"].to_numpy()),
    "combats": (False, "combats fought", lambda df: df["combats"].to_numpy()),
}
DEFAULT_MEASURES = ("win", "final_battle", "rounds")


def plan(base, overrides, games, seed, first, batch):
    """The batch-driver plan of one arm: the base grid under ``overrides``."""
    b = check_base(base, BASE, "MourneQuest")
    heroes = base_text(b["heroes"]).strip().lower()
    pars = base_params(b)
    return grid.make_plan(games=games, seed=seed, levels=grid.parse_list(base_text(b["level"]), "level"),
                          players=grid.parse_list(base_text(b["players"]), "players"),
                          policies=grid.parse_list(base_text(b["policy"]), "policy"),
                          heroes=() if heroes in ("", "random") else tuple(h.strip() for h in heroes.split(",")),
                          params=pars, ruleset=b["ruleset"], overrides=tuple(overrides), batch=batch,
                          command="", first=first)


def policy_info(base):
    """The policy a ``policy_tune`` tunes: (name, parameter names, defaults,
    valid ranges)."""
    b = check_base(base, BASE, "MourneQuest")
    pols = grid.parse_list(base_text(b["policy"]), "policy")
    if len(pols) != 1:
        raise InputError("policy_tune: give one base policy to tune")
    info = plugins.get(pols[0])
    return pols[0], tuple(info.param_names), tuple(info.defaults), dict(info.ranges)
