"""The toggle tests' shared table and helpers (test_toggles*.py): every
toggle with its shipped default, its row in the compiled rules vector, the
ruleset with one toggle set, and small readers of a played position."""
import numpy as np

from mournesim import core, layout as L, tables as TB

from .mq_game import get_rules

F, D2, DD = L.FACE_FAIL, L.FACE_DOUBLE, L.FACE_DANDELION
GAME_ACTOR = L.ACTOR_GAME
DULLAHAN = 2      # the Nightmare whose assumed Evil Power is an extra move

TOGGLES = {       # name: default (mournesim/data/ruleset.toml)
    "first_turn_arrow": True,
    "enemies_use_tunnel": False,
    "star_clicks_roll_over": False,
    "escape_knocks_back": False,
    "escape_round_active": False,
    "shimnavore_skips_beaten": False,
    "defend_with_courage": False,
    "defence_any_fail_loses": True,
    "extra_die_any_level": False,
    "doubles_stack": False,
    "dandelion_beats_fumble": True,
    "enemy_on_hero_attacks": True,
    "encounter_level_per_trigger": False,
    "bag_reuses_discards": False,
    "partial_theft_takes_charms": False,
    "nexus_draw_when_standing": False,
    "transition_enemy_phase": False,
    "pregame_encounters": False,
}
# name: its row in the compiled rules vector T, found by its ruleset path
P_INDEX = {name: TB.RULE_ROWS.index(f"toggles.{name}") for name in TOGGLES}
FLIPPED = tuple(f"toggles.{k}={'false' if v else 'true'}" for k, v in TOGGLES.items())


def toggled(name, value):
    """The default ruleset with toggle ``name`` set to ``value`` (cached)."""
    assert name in TOGGLES
    return get_rules(f"toggles.{name}={'true' if value else 'false'}")


def both(name):
    """(rules with the toggle false, rules with it true)."""
    return toggled(name, False), toggled(name, True)


def score(T, faces, ability=5, target=10, bonus=0, blue=False, defending=False):
    f = np.zeros(8, np.int32)
    f[:len(faces)] = faces
    win, total = core.score_roll(T, f, int(len(faces)), int(ability), int(bonus), int(target),
                                  bool(blue), bool(defending))
    return bool(win), int(total)


def combats(g):
    return g.events("combat")


def plain_disc(g):
    """A disc whose Nightmare's Evil Power does not move it."""
    return next(d for d in range(4) if g.nm_at_disc(d) != DULLAHAN)


