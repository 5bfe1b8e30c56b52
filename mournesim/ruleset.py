"""The MourneQuest ruleset: load the TOML data, apply ``--set`` overrides,
validate it strictly (pydantic), and check every value has provenance.

Errors name the dotted path and the problem, e.g.
``heroes.jack.courage: must be >= 0``. ``load_ruleset`` raises
``simcore.errors.InputError`` whose message holds one line per problem.
"""
from __future__ import annotations

from importlib import resources
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from simcore.errors import InputError
from simcore.rulesets import (NOT_RULES, apply_overrides, display_names, format_errors, missing_provenance,
                              model_hash, read_toml, unknown_names)
# the game's ruleset part (simcore.game) offers these as its own: rules show
# reads effective_rows from here, the ruleset tests provenance_of
from simcore.rulesets import effective_rows, provenance_of  # noqa: F401
from .layout import MAX_EFFECTS, MAX_EQUIP, MAX_RELICS, MAX_SPACES, OUTCOME_NAMES

CHARMS = ("granite", "gold", "blackthorn", "flax")
ABILITIES = ("courage", "strength", "magic")
LEVELS = ("easy", "medium", "hard")
LEVEL_ALIASES = {"difficult": "hard", "normal": "medium"}
DIRS = ("N", "E", "S", "W")
CORNERS = ("NE", "SE", "SW", "NW")
FACES = ("fail", "1", "2", "3", "4", "5", "6", "double", "dandelion")
COMPASS_FACES = ("N", "E", "S", "W", "star", "blank")
SPACE_KINDS = ("start", "keystone", "nexus", "crossroads", "cache", "tunnel", "trading_post", "path", "disc",
               "centre")
EFFECT_KINDS = ("heal", "wound", "gain_charm", "lose_charm", "extra_die", "reroll", "combat_bonus",
                "repair_wall", "rotate_disc", "extra_action", "move_to", "lose_equipment",
                "lose_skill", "extra_move")
TARGETS = ("self", "any_hero", "heroes_near", "chosen_disc", "advanced_disc", "crossroads", "highest")
WHEN = ("turn", "combat", "immediate")
TILE_KINDS = ("bogbean", "pot", "move1", "move2")

# Fixed maximum sizes of the compiled arrays: those the engine's state layout
# shares are declared there (layout.py), the ruleset's own here.
MAX_DEGREE = 8
MAX_TRACK = 64
MAX_TILES_PER_LEVEL = 32

NonNeg = Field(ge=0)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Toggles(Strict):
    first_turn_arrow: bool
    enemies_use_tunnel: bool
    star_clicks_roll_over: bool
    escape_knocks_back: bool
    shimnavore_skips_beaten: bool
    defend_with_courage: bool
    defence_any_fail_loses: bool
    doubles_stack: bool
    dandelion_beats_fumble: bool
    enemy_on_hero_attacks: bool
    bag_reuses_discards: bool
    partial_theft_takes_charms: bool
    transition_enemy_phase: bool
    pregame_encounters: bool
    nexus_draw_when_standing: bool
    encounter_level_per_trigger: bool
    extra_die_any_level: bool
    escape_round_active: bool


class Rules(Strict):
    actions_per_turn: int = Field(ge=1, le=10)
    backpack: int = Field(ge=1, le=10)
    life: int = Field(ge=1, le=10)
    skill_uses: int = Field(ge=0, le=10)
    miniatures_per_space: int = Field(ge=1, le=4)
    bogbean_move: int = Field(ge=0, le=5)
    nightmare_move: int = Field(ge=0, le=5)
    max_combat_dice: int = Field(ge=1, le=4)
    compass_tokens: int = Field(ge=1, le=20)
    moon_cycles: int = Field(ge=1, le=5)
    shimnavore_wins_per_ability: int = Field(ge=1, le=5)
    charm_supply: int = Field(ge=1, le=100)
    talismans: int = Field(ge=0, le=10)
    magical_pots: int = Field(ge=0, le=10)
    bogbeans_per_level: int = Field(ge=0, le=10)
    granite_for_repair: int = Field(ge=1, le=10)
    disc_return_cost: int = Field(ge=1, le=3)
    removed_bogbean_tiles: int = Field(ge=0, le=10)
    pregame_tiles: int = Field(ge=0, le=4)
    solo_equipment_value: int = Field(ge=0, le=20)
    starting_dice: int = Field(ge=1, le=4)
    safety_cap_rounds: int = Field(ge=10, le=10000)


class Level(Strict):
    disc_clicks: int = Field(ge=1, le=60)
    charm_multi: bool
    # a rule variant, not in the rulebook: the level's disc length for solo, 2, 3 and 4 players ([]: unused)
    disc_clicks_by_players: list[Annotated[int, Field(ge=1, le=60)]] = Field(default_factory=list, max_length=4)
    # a rule variant, not in the rulebook: how many of the four Discs (the first clockwise from North) start
    # one click shorter, for solo, 2, 3 and 4 players ([]: none), a step a quarter of a whole click's
    short_discs_by_players: list[Annotated[int, Field(ge=0, le=3)]] = Field(default_factory=list, max_length=4)
    # a rule variant, not in the rulebook: how many Compass Tokens turn all four Discs, for solo, 2, 3 and
    # 4 players ([]: rules.compass_tokens), a step finer than a quarter click
    compass_tokens_by_players: list[Annotated[int, Field(ge=1, le=20)]] = Field(default_factory=list, max_length=4)

    @field_validator("disc_clicks_by_players", "short_discs_by_players", "compass_tokens_by_players")
    @classmethod
    def _four_or_none(cls, v, info):
        if len(v) not in (0, 4):
            raise ValueError({"disc_clicks_by_players": "give four lengths (solo, 2, 3 and 4 players), or [] to use "
                                                        "disc_clicks",
                              "short_discs_by_players": "give four counts (solo, 2, 3 and 4 players), or [] for every "
                                                        "Disc at full length",
                              "compass_tokens_by_players": "give four counts (solo, 2, 3 and 4 players), or [] to use "
                                                           "rules.compass_tokens"}[info.field_name])
        return v

    @model_validator(mode="after")
    def _short_discs_keep_a_click(self):
        for p in (1, 2, 3, 4):
            if self.short(p) and self.clicks(p) < 2:
                raise ValueError(f"short_discs_by_players: with {p} player(s) the length is {self.clicks(p)} "
                                 "click, so no Disc can start one click shorter")
        return self

    def clicks(self, players: int) -> int:
        """The disc length this level plays with ``players`` (1-4)."""
        by = self.disc_clicks_by_players
        return by[players - 1] if by else self.disc_clicks

    def short(self, players: int) -> int:
        """How many Discs start one click shorter with ``players`` (1-4)."""
        by = self.short_discs_by_players
        return by[players - 1] if by else 0

    def compass_tokens(self, players: int, default: int) -> int:
        """How many Compass Tokens turn all four Discs with ``players`` (1-4);
        ``default`` is the ruleset's ``rules.compass_tokens``."""
        by = self.compass_tokens_by_players
        return by[players - 1] if by else default

    def total_clicks(self, players: int) -> int:
        """The four Discs' clicks together at the start with ``players`` (1-4)."""
        return 4 * self.clicks(players) - self.short(players)

    def disc_lengths(self, players: int) -> list[int]:
        """Each Disc's clicks at the start, clockwise from North."""
        c, k = self.clicks(players), self.short(players)
        return [c - 1] * k + [c] * (4 - k)


class Levels(Strict):
    easy: Level
    medium: Level
    hard: Level


class Space(Strict):
    kind: Literal[SPACE_KINDS]
    at: Annotated[list[int], Field(min_length=2, max_length=2)]
    compass: Literal[DIRS + CORNERS] | None = None
    charm: Literal[CHARMS] | None = None
    arrow: str | None = None


class Board(Strict):
    spaces: dict[str, Space]
    paths: list[str]
    tunnel: Annotated[list[str], Field(min_length=2, max_length=2)]
    seat_starts: Annotated[list[str], Field(min_length=4, max_length=4)]

    @model_validator(mode="after")
    def _graph(self):
        ids = self.spaces
        if len(ids) > MAX_SPACES:
            raise ValueError(f"at most {MAX_SPACES} spaces")
        for p in self.paths:
            a, _, b = p.partition("-")
            for end in (a, b):
                if end not in ids:
                    raise ValueError(f"path {p!r}: unknown space {end!r}")
            if a == b:
                raise ValueError(f"path {p!r} joins a space to itself")
        for t in self.tunnel:
            if t not in ids or ids[t].kind != "tunnel":
                raise ValueError(f"tunnel: {t!r} is not a space of kind tunnel")
        for s in self.seat_starts:
            if s not in ids or ids[s].kind != "start":
                raise ValueError(f"seat_starts: {s!r} is not a start space")
        for name, sp in ids.items():
            if sp.kind == "start":
                if sp.arrow is None or f"{name}-{sp.arrow}" not in self.paths and f"{sp.arrow}-{name}" not in self.paths:
                    raise ValueError(f"spaces.{name}.arrow: must name a space joined to {name} by a path")
            if sp.kind == "cache" and sp.charm is None:
                raise ValueError(f"spaces.{name}.charm: a cache needs a charm type")
        need = {"keystone": DIRS, "disc": DIRS, "start": DIRS, "nexus": CORNERS, "crossroads": CORNERS}
        for name, sp in ids.items():
            if sp.kind in need and sp.compass is None:
                raise ValueError(f"spaces.{name}.compass: a {sp.kind} needs its compass position "
                                 f"({', '.join(need[sp.kind])})")
        for kind, comp in need.items():
            got = sorted(sp.compass for sp in ids.values() if sp.kind == kind)
            if got != sorted(comp):
                raise ValueError(f"spaces: needs one {kind} at each of {', '.join(comp)} (found {got})")
        if sum(sp.kind == "centre" for sp in ids.values()) != 1:
            raise ValueError("spaces: needs exactly one centre (where the Shimnavore appears)")
        for p in self.paths:
            if any(ids[e].kind == "centre" for e in p.split("-")):
                raise ValueError(f"path {p!r}: no path leads to the centre")
        caches = sorted(sp.charm for sp in ids.values() if sp.kind == "cache")
        if caches != sorted(CHARMS):
            raise ValueError("spaces: needs exactly one cache of each charm type")
        degree = {k: 0 for k in ids}
        for p in self.paths:
            a, _, b = p.partition("-")
            degree[a] += 1
            degree[b] += 1
        for k, d in degree.items():
            if d > MAX_DEGREE:
                raise ValueError(f"spaces.{k}: at most {MAX_DEGREE} paths per space")
        lost = unreachable(self)
        if lost:
            start, space = lost
            raise ValueError(f"paths: {space} cannot be reached from {start}; every space but the discs and "
                             "the centre must be reachable from every seat's start")
        return self


class Moon(Strict):
    track: str

    @field_validator("track")
    @classmethod
    def _track(cls, v):
        if not 4 <= len(v) <= MAX_TRACK:
            raise ValueError(f"must have 4 to {MAX_TRACK} spaces")
        bad = set(v) - set("RMGB")
        if bad:
            raise ValueError(f"unknown moon letters {sorted(bad)} (use R, M, G, B)")
        return v


class Dice(Strict):
    grey: list[Literal[FACES]] = Field(min_length=1, max_length=12)
    green: list[Literal[FACES]] = Field(min_length=1, max_length=12)
    orange: list[Literal[FACES]] = Field(min_length=1, max_length=12)
    red: list[Literal[FACES]] = Field(min_length=1, max_length=12)
    compass: list[Literal[COMPASS_FACES]] = Field(min_length=1, max_length=12)


class Hero(Strict):
    courage: int = Field(ge=0, le=30)
    strength: int = Field(ge=0, le=30)
    magic: int = Field(ge=0, le=30)
    skill: str


class Effect(Strict):
    kind: Literal[EFFECT_KINDS]
    amount: int = Field(ge=-10, le=10)
    target: Literal[TARGETS]
    when: Literal[WHEN]
    range: int = Field(default=0, ge=0, le=10)


class Carded(Strict):
    effect: Effect


class Relic(Strict):
    count: int = Field(ge=0, le=10)
    sabotaged: bool
    effect: Effect


class Equipment(Strict):
    courage: list[int] = Field(max_length=20)
    strength: list[int] = Field(max_length=20)
    magic: list[int] = Field(max_length=20)

    @field_validator("courage", "strength", "magic")
    @classmethod
    def _vals(cls, v):
        if any(x < 0 or x > 20 for x in v):
            raise ValueError("card values must be 0..20")
        return v


Triple = Annotated[list[Annotated[int, Field(ge=0, le=60)]], Field(min_length=3, max_length=3)]


class Enemy(Strict):
    level: int = Field(ge=1, le=3)
    green: Triple
    grey: Triple
    red: Triple
    wins_needed: int = Field(ge=1, le=3)


class Nightmare(Strict):
    green: Triple
    grey: Triple
    red: Triple
    charms: dict[Literal[CHARMS], int]
    power: str

    @field_validator("charms")
    @classmethod
    def _charms(cls, v):
        if any(n < 0 for n in v.values()) or not 1 <= sum(v.values()) <= 12:
            raise ValueError("charm counts must be >= 0 and total 1..12")
        return v


class Shimnavore(Strict):
    green: Triple
    grey: Triple
    red: Triple


class Tile(Strict):
    kind: Literal[TILE_KINDS]
    count: int = Field(ge=0, le=20)
    drop: Literal[CHARMS] | None = None
    drop_n: int = Field(default=0, ge=0, le=3)
    steal: int = Field(default=0, ge=0, le=3)
    card: bool = False

    @model_validator(mode="after")
    def _bog(self):
        if self.kind == "bogbean" and self.drop is None:
            raise ValueError("a bogbean tile needs drop")
        return self


class Encounters(Strict):
    level1: list[Tile]
    level2: list[Tile]
    level3: list[Tile]


class Meta(Strict):
    game: str
    rules_version: str


class Ruleset(Strict):
    meta: Meta
    toggles: Toggles
    rules: Rules
    levels: Levels
    board: Board
    moon: Moon
    dice: Dice
    heroes: dict[str, Hero]
    skills: dict[str, Carded]
    equipment: Equipment
    hags: dict[str, Carded]
    relics: dict[str, Relic]
    enemies: dict[Literal["snipe", "speedwell", "louse_wort"], Enemy]
    nightmares: dict[str, Nightmare]
    powers: dict[str, Carded]
    shimnavore: Shimnavore
    encounters: Encounters
    provenance: dict[str, str]
    # display names a person reads (reports, replays): no rule, not hashed
    names: dict[str, str] = {}

    @model_validator(mode="after")
    def _cross(self):
        if not 4 <= len(self.heroes) <= 12:
            # four players seat four distinct heroes (MQ-HERO-01)
            raise ValueError(f"heroes: between 4 and 12 heroes (a four-player game seats four; "
                             f"found {len(self.heroes)})")
        for space in set(self.board.seat_starts):
            n = self.board.seat_starts.count(space)
            if n > self.rules.miniatures_per_space:
                raise ValueError(f"board.seat_starts: {n} heroes start on {space} but "
                                 f"rules.miniatures_per_space allows {self.rules.miniatures_per_space}")
        cards = [v for a in ABILITIES for v in getattr(self.equipment, a)]
        solo = sum(v == self.rules.solo_equipment_value for v in cards)
        if solo < 2:
            raise ValueError(f"rules.solo_equipment_value: a solo game gives each of its two heroes an equipment "
                             f"card of value {self.rules.solo_equipment_value} (MQ-SOLO-04), but equipment holds "
                             f"{solo} such card(s)")
        if len(cards) < 3:
            raise ValueError(f"equipment: at least 3 cards (a solo game's two starting cards and the first "
                             f"Surplus card, MQ-SETUP-05); found {len(cards)}")
        relic_cards = sum(r.count for r in self.relics.values())
        posts = any(sp.kind == "trading_post" for sp in self.board.spaces.values())
        if relic_cards == 0 and (posts or self.rules.magical_pots > 0):
            raise ValueError("relics: the Relic Deck is empty but trading posts and magical pots draw from it "
                             "(MQ-ACT-08, MQ-CARD-11); give at least one relic a count")
        for name, h in self.heroes.items():
            if h.skill not in self.skills:
                raise ValueError(f"heroes.{name}.skill: unknown skill {h.skill!r}")
        if len(self.nightmares) != 4:
            raise ValueError("nightmares: exactly four (one per disc)")
        for name, n in self.nightmares.items():
            if n.power not in self.powers:
                raise ValueError(f"nightmares.{name}.power: unknown power {n.power!r}")
        if set(self.enemies) != {"snipe", "speedwell", "louse_wort"}:
            raise ValueError("enemies: needs snipe, speedwell and louse_wort")
        for name, e in self.enemies.items():
            want = {"snipe": 1, "speedwell": 2, "louse_wort": 3}[name]
            if e.level != want:
                raise ValueError(f"enemies.{name}.level: must be {want}")
        ncards = sum(len(getattr(self.equipment, a)) for a in ABILITIES) + len(self.hags)
        if ncards > MAX_EQUIP:
            raise ValueError(f"equipment: at most {MAX_EQUIP} cards including hags")
        if sum(r.count for r in self.relics.values()) > MAX_RELICS:
            raise ValueError(f"relics: at most {MAX_RELICS} cards")
        for lv in ("level1", "level2", "level3"):
            if sum(t.count for t in getattr(self.encounters, lv)) > MAX_TILES_PER_LEVEL:
                raise ValueError(f"encounters.{lv}: at most {MAX_TILES_PER_LEVEL} tiles")
        # Pot markers are a hard limit (MQ-GAP-64); the engine counts on never running out, so a ruleset
        # with fewer markers than Pots that can be out at once (one per Pot tile, one per Crossroads:
        # MQ-ENC-07, MQ-ENC-12) is refused rather than silently given more
        pots = sum(t.count for lv in ("level1", "level2", "level3") for t in getattr(self.encounters, lv)
                   if t.kind == "pot")
        crossroads = sum(sp.kind == "crossroads" for sp in self.board.spaces.values())
        if self.rules.magical_pots < min(pots, crossroads):
            raise ValueError(f"rules.magical_pots: {self.rules.magical_pots} markers, but {min(pots, crossroads)} "
                             f"Pots can be out at once ({pots} Pot tiles, {crossroads} Crossroads); the engine "
                             "does not model running out of Pot markers (MQ-GAP-64)")
        n_effects = len(self.skills) + len(self.hags) + len(self.relics) + len(self.powers)
        if n_effects > MAX_EFFECTS:
            raise ValueError(f"at most {MAX_EFFECTS} skills, hags, relic kinds and powers in all")
        for where, name, eff, source in _effect_sources(self):
            allowed = EFFECT_RULES[source].get(eff.when, {})
            if eff.kind not in allowed:
                kinds = sorted({k for w in EFFECT_RULES[source].values() for k in w})
                raise ValueError(f"{where}.{name}.effect: a {source} cannot have kind {eff.kind!r} with "
                                 f"when={eff.when!r} (allowed kinds: {', '.join(kinds)})")
            if eff.target not in allowed[eff.kind]:
                raise ValueError(f"{where}.{name}.effect.target: {eff.kind} from a {source} takes target "
                                 f"{' or '.join(allowed[eff.kind])}, not {eff.target!r}")
            if eff.kind != "rotate_disc" and eff.amount < 0:
                raise ValueError(f"{where}.{name}.effect.amount: must be >= 0 for {eff.kind}")
        for p, text in self.provenance.items():
            if not (text.startswith("rulebook:") or text.startswith("assumed:") or text.startswith("override:")):
                raise ValueError(f"provenance.{p}: must start with 'rulebook:', 'assumed:' or 'override:'")
        return self


def unreachable(board):
    """``(start, space)`` for the first space (not a disc, not the centre)
    that a seat's start cannot reach along paths and the tunnel, or None."""
    adj = {k: set() for k in board.spaces}
    for p in board.paths:
        a, _, b = p.partition("-")
        adj[a].add(b)
        adj[b].add(a)
    t0, t1 = board.tunnel
    adj[t0].add(t1)
    adj[t1].add(t0)
    need = [k for k, sp in board.spaces.items() if sp.kind not in ("disc", "centre")]
    for start in dict.fromkeys(board.seat_starts):
        seen, todo = {start}, [start]
        while todo:
            for nxt in adj[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        for k in need:
            if k not in seen:
                return start, k
    return None


# What each source of an effect may do (source -> when -> kind -> targets).
# Card-like sources act for a hero; evil powers act around their nightmare.
_TURN = {"heal": ("self", "any_hero"), "gain_charm": ("self",), "repair_wall": ("any_hero", "self"),
         "rotate_disc": ("chosen_disc",), "extra_action": ("self",), "move_to": ("crossroads",)}
_COMBAT = {"extra_die": ("self", "any_hero"), "reroll": ("self", "any_hero"),
           "combat_bonus": ("self", "any_hero")}
_MISCHIEF = {"wound": ("self",), "lose_charm": ("self",), "lose_equipment": ("highest",),
             "lose_skill": ("self",), "rotate_disc": ("advanced_disc",), "heal": ("self",)}
EFFECT_RULES = {
    "skill": {"turn": _TURN, "combat": _COMBAT},
    "relic": {"turn": _TURN, "combat": _COMBAT},
    "hag or sabotaged relic": {"immediate": _MISCHIEF},
    "evil power": {"immediate": {"lose_charm": ("heroes_near",), "lose_skill": ("heroes_near",),
                                 "wound": ("heroes_near",), "rotate_disc": ("advanced_disc",),
                                 "extra_move": ("self",)}},
}


def _effect_sources(rs):
    for name, c in rs.skills.items():
        yield "skills", name, c.effect, "skill"
    for name, c in rs.hags.items():
        yield "hags", name, c.effect, "hag or sabotaged relic"
    for name, r in rs.relics.items():
        yield "relics", name, r.effect, ("hag or sabotaged relic" if r.sabotaged else "relic")
    for name, c in rs.powers.items():
        yield "powers", name, c.effect, "evil power"




def default_ruleset_text():
    """The shipped ruleset TOML as text."""
    return resources.files("mournesim.data").joinpath("ruleset.toml").read_text(encoding="utf-8")


def load_raw(path=None):
    """The raw mapping of a ruleset file (the shipped one when ``path`` is None)."""
    return read_toml(path, default_ruleset_text)


def validate(raw):
    """Validate a raw mapping; returns (Ruleset, []) or (None, [problem lines])."""
    try:
        rs = Ruleset.model_validate(raw)
    except ValidationError as e:
        return None, format_errors(e)
    problems = missing_provenance(raw, rs.provenance) + unknown_names(rs.names, named_ids(rs), NAMED)
    if problems:
        return None, problems
    return rs, []


NAMED = "levels, heroes, skills, hags, relics, enemies, nightmares, powers and board spaces"


def named_ids(rs: Ruleset) -> list:
    """Every id a ``[names]`` entry may name: levels, heroes, skills, hags,
    relics, enemies, Nightmares, powers, board spaces and how games end."""
    return [*LEVELS, *rs.heroes, *rs.skills, *rs.hags, *rs.relics, *rs.enemies, *rs.nightmares, *rs.powers,
            *rs.board.spaces, *OUTCOME_NAMES[1:]]


def names_of(rs: Ruleset) -> dict:
    """Every id of :func:`named_ids` -> the name a person reads."""
    return display_names(rs.names, named_ids(rs))


def load_ruleset(path=None, overrides=()):
    """Load, override and validate a ruleset; raise InputError listing problems.

    ``overrides`` are ``"dotted.path=value"`` strings; each overridden path gets
    the provenance ``override: --set``."""
    raw = apply_overrides(load_raw(path), overrides)
    rs, problems = validate(raw)
    if problems:
        where = path or "ruleset"
        raise InputError("\n".join(f"{where}: {line}" for line in problems))
    return rs


# a level's optional rule variants: each left out of the hash while unset
VARIANTS = ("disc_clicks_by_players", "short_discs_by_players", "compass_tokens_by_players")


def ruleset_hash(rs: Ruleset):
    """Short stable hash of the effective rules (provenance and display
    names excluded; an optional rule variant left unset is left out too, so
    a ruleset keeps the hash it had before the variant existed)."""
    unset = {lv: {k for k in VARIANTS if not getattr(getattr(rs.levels, lv), k)} for lv in LEVELS}
    unset = {lv: keys for lv, keys in unset.items() if keys}
    return model_hash(rs, {**{k: True for k in NOT_RULES}, **({"levels": unset} if unset else {})})


def normalise_level(name):
    """Map a level name (easy/medium/hard, or difficult/normal) to its key."""
    key = LEVEL_ALIASES.get(name.lower(), name.lower())
    if key not in LEVELS:
        raise InputError(f"unknown level {name!r} (use easy, medium or hard)")
    return key


