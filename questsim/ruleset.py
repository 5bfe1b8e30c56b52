"""The Quest Master ruleset: load the TOML data, apply ``--set`` overrides,
validate it strictly (pydantic v2: unknown keys, types and ranges), check the
cross references (castles, races, board squares, warp targets, dice faces in
effects) and that every value has provenance.

Errors name the dotted path and the problem, e.g.
``characters.robot.hp: Input should be greater than or equal to 1``;
``load_ruleset`` raises ``simcore.errors.InputError`` with one line per
problem. Rule IDs QM-* refer to shared/rules/questmaster-rules.md.

Card, castle, event, square and ability effects are lists of small tables
``{op = NAME, ...arguments}`` from the vocabulary ``OPS`` below, so an engine
can compile them into integer rows (op id = index in ``OPS``) and interpret
them; docs/questmaster/ruleset.md documents every op.
"""
from __future__ import annotations

from importlib import resources
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from simcore.errors import InputError
from simcore.rulesets import (
    PROVENANCE_PREFIXES,
    apply_overrides,
    effective_rows,  # noqa: F401  (the game's part, simcore.game: every value in effect)
    format_errors,
    leaves,
    display_names,
    missing_provenance,
    model_hash,
    provenance_of,  # noqa: F401  (importable from the game, as from mournesim.ruleset)
    read_toml,
    unknown_names,
)

RACES = ("priest", "warrior", "mage", "robot", "evil")        # QM-CHAR-01: exactly five
SYMBOLS = ("sword", "bomb", "chest")                          # QM-MOVE-01/02
DICE = ("red", "blue")
SQUARE_KINDS = ("castle", "event", "item", "sword", "warp", "plain")
ITEM_SYMBOLS = ("sword", "shield", "sword_shield", "foot")    # QM-CARD-04..07
FOOT_TIMES = ("before_roll", "after_roll", "after_move", "hp_zero")
OPS = ("gain_hp", "lose_hp", "gain_hp_die", "lose_hp_die", "draw_item", "discard_item", "open_event", "move",
       "go_home", "fight", "roll", "attack_bonus", "shield", "absorb_attack", "destroy_items", "revive",
       "extra_move")

# Fixed maximum sizes of the arrays an engine compiles the ruleset into.
MAX_SQUARES = 128
MAX_NEXT = 3
MAX_CHARACTERS = 16
MAX_ITEM_KINDS = 32
MAX_ITEM_CARDS = 80
MAX_EVENT_KINDS = 32
MAX_EVENT_CARDS = 60
MAX_EFFECTS = 6          # per effect list (and per roll branch)
MAX_FACES = 12

Race = Literal[RACES]
Die = Literal[DICE]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# ---------------------------------------------------------------- effects --
# Every op shares `races`: the effect applies only to a player of one of
# these races (empty = every race); that is how race-worded cards are written.

class _Op(Strict):
    races: list[Race] = Field(default=[], max_length=5)


Amount = Annotated[int, Field(ge=1, le=20)]
Targets = Literal["self", "all", "others"]


class GainHp(_Op):
    op: Literal["gain_hp"]
    n: Amount
    target: Targets = "self"


class LoseHp(_Op):
    op: Literal["lose_hp"]
    n: Amount
    target: Targets = "self"


class GainHpDie(_Op):
    """Roll ``die``; gain Hp equal to the number, a symbol counting ``symbol_value``."""
    op: Literal["gain_hp_die"]
    die: Die
    symbol_value: int = Field(ge=0, le=6)


class LoseHpDie(_Op):
    op: Literal["lose_hp_die"]
    die: Die
    symbol_value: int = Field(ge=0, le=6)


class DrawItem(_Op):
    op: Literal["draw_item"]
    n: int = Field(ge=1, le=5)


class DiscardItem(_Op):
    op: Literal["discard_item"]
    n: int = Field(ge=1, le=5)


class OpenEvent(_Op):
    op: Literal["open_event"]
    n: int = Field(default=1, ge=1, le=3)


class Move(_Op):
    op: Literal["move"]
    steps: int = Field(ge=-6, le=6)

    @field_validator("steps")
    @classmethod
    def _nonzero(cls, v):
        if v == 0:
            raise ValueError("must not be 0 (positive: forward, negative: back)")
        return v


class GoHome(_Op):
    op: Literal["go_home"]


class Fight(_Op):
    op: Literal["fight"]


class AttackBonus(_Op):
    op: Literal["attack_bonus"]
    n: Amount


class Shield(_Op):
    op: Literal["shield"]
    n: Amount


class AbsorbAttack(_Op):
    """Cancel the incoming attack; gain its At as Hp or Mp (QM-RULING-04), or nothing."""
    op: Literal["absorb_attack"]
    gain: Literal["hp", "mp", "none"]


class DestroyItems(_Op):
    """The combat opponent discards ``n`` Item cards of their choice (QM-RULING-03)."""
    op: Literal["destroy_items"]
    n: int = Field(ge=1, le=5)


class Revive(_Op):
    """Hp that would reach 0 is set to ``hp`` instead; excess damage is not kept (QM-RULING-02)."""
    op: Literal["revive"]
    hp: int = Field(ge=1, le=40)


class ExtraMove(_Op):
    op: Literal["extra_move"]
    n: int = Field(ge=1, le=6)


_SIMPLE = (GainHp, LoseHp, GainHpDie, LoseHpDie, DrawItem, DiscardItem, OpenEvent, Move, GoHome, Fight,
           AttackBonus, Shield, AbsorbAttack, DestroyItems, Revive, ExtraMove)
SimpleEffect = Annotated[Union[_SIMPLE], Field(discriminator="op")]
Branch = Annotated[list[SimpleEffect], Field(max_length=MAX_EFFECTS)]


class Roll(_Op):
    """Roll ``die`` and apply the branch of the face class rolled: ``number``
    or the symbol's name. A roll cannot hold another roll (one level keeps the
    compiled effect rows flat)."""
    op: Literal["roll"]
    die: Die
    number: Branch
    sword: Branch | None = None
    bomb: Branch | None = None
    chest: Branch | None = None


Effect = Annotated[Union[_SIMPLE + (Roll,)], Field(discriminator="op")]
Effects = Annotated[list[Effect], Field(max_length=MAX_EFFECTS)]
SomeEffects = Annotated[list[Effect], Field(min_length=1, max_length=MAX_EFFECTS)]

# Which ops may appear where (context -> ops). Events, castles, squares and
# symbols act on the board outside combat; combat cards and abilities act on
# an attack; foot cards act at the moment their `when` names.
_BOARD = {"gain_hp", "lose_hp", "gain_hp_die", "lose_hp_die", "draw_item", "discard_item", "open_event", "move",
          "go_home", "fight", "roll"}
_ATTACK = {"attack_bonus", "destroy_items"}
_DEFEND = {"shield", "absorb_attack"}
CONTEXT_OPS = {
    "board": _BOARD,
    "item:sword": _ATTACK,
    "item:shield": _DEFEND,
    "item:sword_shield": _ATTACK | _DEFEND,
    "item:before_roll": {"gain_hp", "draw_item", "move", "go_home"},
    "item:after_move": {"gain_hp", "draw_item", "move", "go_home"},
    "item:after_roll": {"extra_move"},
    "item:hp_zero": {"revive"},
    "ability:attack": _ATTACK | {"draw_item", "gain_hp"},
    "ability:defend": _DEFEND | {"gain_hp"},
}


# ------------------------------------------------------------------ parts --

class Meta(Strict):
    game: str
    rules_version: str


class Toggles(Strict):
    start_marks_home_castle: bool
    attack_bonus_lasts_combat: bool
    shields_stack: bool
    shield_lasts_combat: bool
    one_item_per_step: bool
    warp_on_landing: bool
    square_cards_optional: bool
    landing_on_player_fights: bool
    two_symbols_may_pass: bool
    lone_attacker_continues: bool
    attacker_continues_after_decline: bool
    card_moves_mark_castles: bool
    shoe_any_player: bool


class Rules(Strict):
    min_players: int = Field(ge=1, le=8)
    max_players: int = Field(ge=1, le=8)
    hand_limit: int = Field(ge=1, le=20)
    starting_items: int = Field(ge=0, le=20)
    last_player_extra_items: int = Field(ge=0, le=5)
    castles_to_win: int = Field(ge=1, le=5)
    win_hp_above: int = Field(ge=1, le=200)
    free_attack_cost: int = Field(ge=0, le=10)
    mp_symbol_value: int = Field(ge=0, le=6)
    start_roll_dice: int = Field(ge=1, le=2)
    start_roll_symbol_value: int = Field(ge=0, le=6)
    max_attacks_per_combat: int = Field(ge=0, le=50)
    event_chain_limit: int = Field(ge=1, le=50)
    safety_cap_rounds: int = Field(ge=10, le=10000)



class Components(Strict):
    boards: int = Field(ge=1, le=1)
    character_cards: int = Field(ge=1, le=MAX_CHARACTERS)
    item_decks: int = Field(ge=1, le=1)
    event_decks: int = Field(ge=1, le=1)
    power_dials: int = Field(ge=0, le=20)
    pawns: int = Field(ge=1, le=MAX_CHARACTERS)
    dice: int = Field(ge=2, le=2)
    castle_cards: int = Field(ge=5, le=5)


class Dice(Strict):
    red: list[int | str] = Field(min_length=2, max_length=MAX_FACES)
    blue: list[int | str] = Field(min_length=2, max_length=MAX_FACES)

    @field_validator("red", "blue")
    @classmethod
    def _faces(cls, v):
        # one check instead of a union of types, so a bad face is one clear line
        for f in v:
            if not (f in SYMBOLS or isinstance(f, int) and 1 <= f <= 6):
                raise ValueError(f"face {f!r} is not a number 1-6 or one of {', '.join(SYMBOLS)}")
        if not any(isinstance(f, int) for f in v):
            raise ValueError("needs at least one number face (movement and Mp use numbers)")
        return v


class Symbols(Strict):
    sword: Effects
    bomb: Effects
    chest: Effects


class Landing(Strict):
    item: Effects
    event: Effects
    sword: Effects
    plain: Effects


class Square(Strict):
    kind: Literal[SQUARE_KINDS]
    castle: str | None = None
    warp_to: list[Annotated[int, Field(ge=0)]] | None = Field(default=None, min_length=1, max_length=MAX_SQUARES)
    next: list[Annotated[int, Field(ge=0)]] | None = Field(default=None, min_length=1, max_length=MAX_NEXT)



class Board(Strict):
    squares: list[Square] = Field(min_length=5, max_length=MAX_SQUARES)



class Attack(Strict):
    cost: int = Field(ge=0, le=10)
    at: int = Field(ge=0, le=20)


class Ability(Strict):
    name: str
    when: Literal["attack", "defend"]
    cost: int = Field(ge=0, le=10)
    per_combat: int = Field(ge=1, le=5)
    effects: SomeEffects


class Character(Strict):
    name: str
    race: Race
    hp: int = Field(ge=1, le=199)
    at: int = Field(ge=0, le=20)
    attacks: list[Attack] = Field(min_length=1, max_length=4)
    abilities: dict[str, Ability] = Field(max_length=4)


class Castle(Strict):
    name: str
    race: Race
    upper: Effects
    lower: Effects


class Item(Strict):
    name: str
    count: int = Field(ge=0, le=20)
    colour: Literal["red", "blue"]
    symbol: Literal[ITEM_SYMBOLS]
    cost: int = Field(ge=0, le=10)
    when: Literal[FOOT_TIMES] | None = None
    effects: SomeEffects



class Event(Strict):
    name: str
    count: int = Field(ge=0, le=20)
    effects: SomeEffects


class Ruleset(Strict):
    meta: Meta
    toggles: Toggles
    rules: Rules
    components: Components
    dice: Dice
    symbols: Symbols
    landing: Landing
    board: Board
    characters: dict[str, Character] = Field(min_length=2, max_length=MAX_CHARACTERS)
    castles: dict[str, Castle]
    items: dict[str, Item] = Field(min_length=1, max_length=MAX_ITEM_KINDS)
    events: dict[str, Event] = Field(min_length=1, max_length=MAX_EVENT_KINDS)
    provenance: dict[str, str]
    # display names a person reads (reports, replays): no rule, not hashed
    names: dict[str, str] = {}


# ----------------------------------------------------------- board helpers --

def successors(board):
    """The squares a pawn may step to from each square: ``next`` if given,
    else the following square (the last square's is square 0)."""
    n = len(board.squares)
    return [list(sq.next) if sq.next else [(i + 1) % n] for i, sq in enumerate(board.squares)]


def predecessors(board):
    """The squares a pawn may step back to from each square ("move back")."""
    pred = [[] for _ in board.squares]
    for i, nxt in enumerate(successors(board)):
        for j in nxt:
            pred[j].append(i)
    return pred


def home_squares(rs):
    """Race -> index of its home castle square (the starting square, QM-SETUP-08)."""
    at = {sq.castle: i for i, sq in enumerate(rs.board.squares) if sq.kind == "castle"}
    return {c.race: at[key] for key, c in rs.castles.items()}


# ----------------------------------------------------------- cross checks --

def _check_board(board):
    """Square fields match their kind, ``next``/``warp_to`` name real squares,
    and every square can be reached from every square (no dead end)."""
    problems = []
    sqs = board.squares
    n = len(sqs)
    for i, sq in enumerate(sqs):
        if (sq.kind == "castle") != (sq.castle is not None):
            problems.append(f"board.squares.{i}.castle: a castle square names its castle "
                            f"(castle = KEY), and only a castle square does")
        if (sq.kind == "warp") != (sq.warp_to is not None):
            problems.append(f"board.squares.{i}.warp_to: a warp square lists the warp squares it leads to, "
                            f"and only a warp square does")
        for j in sq.next or ():
            if j >= n or j == i:
                problems.append(f"board.squares.{i}.next: {j} is not another square (0..{n - 1})")
        for j in sq.warp_to or ():
            if j >= n or j == i or sqs[j].kind != "warp":
                problems.append(f"board.squares.{i}.warp_to: {j} is not another warp square")
    if problems:
        return problems
    succ = successors(board)
    for start in range(n):
        seen, todo = {start}, [start]
        while todo:
            for j in succ[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < n:
            lost = min(set(range(n)) - seen)
            return [f"board.squares: square {lost} cannot be reached from square {start} "
                    f"(a square's next defaults to the following one)"]
    return []


def _check_items(rs):
    """The colour and symbol rules of QM-CARD-07/08 as ruled for QM-GAP-14:
    red = foot card without cost, blue = combat card paid from combat Mp."""
    problems = []
    for key, it in rs.items.items():
        if (it.symbol == "foot") != (it.when is not None):
            problems.append(f"items.{key}.when: a foot-symbol card says when it is used, and only a foot card does")
        if it.colour == "red" and it.cost != 0:
            problems.append(f"items.{key}.cost: a red card has no casting cost (0)")
        if (it.colour == "red") != (it.symbol == "foot"):
            problems.append(f"items.{key}.colour: red cards are foot-symbol cards (used outside combat), "
                            f"blue cards combat cards")
    return problems


def _effect_lists(rs):
    """(dotted path, context, effects) for every effect list in the ruleset."""
    for sym in SYMBOLS:
        yield f"symbols.{sym}", "board", getattr(rs.symbols, sym)
    for kind in ("item", "event", "sword", "plain"):
        yield f"landing.{kind}", "board", getattr(rs.landing, kind)
    for key, c in rs.castles.items():
        yield f"castles.{key}.upper", "board", c.upper
        yield f"castles.{key}.lower", "board", c.lower
    for key, e in rs.events.items():
        yield f"events.{key}.effects", "board", e.effects
    for key, it in rs.items.items():
        # a foot card is used at its `when`, other cards by their symbol
        yield f"items.{key}.effects", f"item:{it.when if it.symbol == 'foot' else it.symbol}", it.effects
    for key, ch in rs.characters.items():
        for name, ab in ch.abilities.items():
            yield f"characters.{key}.abilities.{name}.effects", f"ability:{ab.when}", ab.effects


def _check_effects(rs):
    problems = []
    for path, ctx, effects in _effect_lists(rs):
        if ctx not in CONTEXT_OPS:      # a foot card without `when`: reported by _check_items
            continue
        allowed = CONTEXT_OPS[ctx]
        for i, eff in enumerate(effects):
            where = f"{path}.{i}"
            if eff.op not in allowed:
                problems.append(f"{where}.op: {eff.op!r} cannot be used here ({ctx}); "
                                f"allowed: {', '.join(sorted(allowed))}")
            if getattr(eff, "target", "self") != "self" and ctx != "board":
                problems.append(f"{where}.target: only board effects (events, castles, squares) "
                                f"may target other players")
            if eff.op == "roll":
                faces = getattr(rs.dice, eff.die)
                need = {"number"} | {f for f in faces if isinstance(f, str)}
                for branch in ("number",) + SYMBOLS:
                    given = getattr(eff, branch) is not None
                    if given and branch not in need:
                        problems.append(f"{where}.{branch}: the {eff.die} die has no {branch} face")
                    elif branch in need and not given:
                        problems.append(f"{where}.{branch}: missing (the {eff.die} die can roll it; "
                                        f"use [] for nothing)")
                    for j, sub in enumerate(getattr(eff, branch) or ()):
                        if sub.op not in allowed:
                            problems.append(f"{where}.{branch}.{j}.op: {sub.op!r} cannot be used here ({ctx})")
    return problems


def cross_check(rs):
    """Problems within and between tables (one line each): the five castles
    one per race, every race played by a character, board squares and castles,
    component counts, card colours and where each effect op may be used."""
    problems = []
    races = {}
    for key, c in rs.castles.items():
        races.setdefault(c.race, []).append(key)
    for race in RACES:
        if len(races.get(race, ())) != 1:
            problems.append(f"castles: needs exactly one castle of race {race!r} "
                            f"(found {len(races.get(race, ()))}; QM-CARD-14)")
    played = {ch.race for ch in rs.characters.values()}
    for race in RACES:
        if race not in played:
            problems.append(f"characters: no character of race {race!r} (every castle's race needs one)")
    on_board = [sq.castle for sq in rs.board.squares if sq.kind == "castle"]
    for i, sq in enumerate(rs.board.squares):
        if sq.castle is not None and sq.castle not in rs.castles:
            problems.append(f"board.squares.{i}.castle: unknown castle {sq.castle!r}")
    for key in rs.castles:
        if on_board.count(key) != 1:
            problems.append(f"board.squares: castle {key!r} must be on exactly one square "
                            f"(found {on_board.count(key)}; QM-SQUARE-03)")
    comp, rules = rs.components, rs.rules
    if rules.min_players > rules.max_players:
        problems.append(f"rules.min_players: {rules.min_players} is above rules.max_players {rules.max_players}")
    if rules.starting_items > rules.hand_limit:
        problems.append(f"rules.starting_items: {rules.starting_items} is above rules.hand_limit {rules.hand_limit}")
    if len(rs.characters) != comp.character_cards:
        problems.append(f"characters: {len(rs.characters)} defined but components.character_cards "
                        f"is {comp.character_cards}")
    if len(rs.castles) != comp.castle_cards:
        problems.append(f"castles: {len(rs.castles)} defined but components.castle_cards is {comp.castle_cards}")
    if rules.max_players > len(rs.characters):
        problems.append(f"rules.max_players: {rules.max_players} players need as many characters "
                        f"(there are {len(rs.characters)})")
    if rules.castles_to_win > len(rs.castles):
        problems.append(f"rules.castles_to_win: {rules.castles_to_win} is more than the {len(rs.castles)} castles")
    for key, ch in rs.characters.items():
        if ch.hp > rules.win_hp_above:
            problems.append(f"characters.{key}.hp: {ch.hp} would win at once (rules.win_hp_above "
                            f"is {rules.win_hp_above})")
    n_items = sum(it.count for it in rs.items.values())
    dealt = rules.max_players * rules.starting_items + rules.last_player_extra_items
    if not dealt <= n_items <= MAX_ITEM_CARDS:
        problems.append(f"items: {n_items} cards; needs {dealt} "
                        f"to deal the starting hands and at most {MAX_ITEM_CARDS}")
    n_events = sum(e.count for e in rs.events.values())
    if not 1 <= n_events <= MAX_EVENT_CARDS:
        problems.append(f"events: {n_events} cards; needs 1 to {MAX_EVENT_CARDS}")
    return problems + _check_board(rs.board) + _check_items(rs) + _check_effects(rs)


# ------------------------------------------------------------ load / check --

def _tag_message(e):
    ctx = e.get("ctx", {})
    if e["type"] == "union_tag_not_found":
        return "op: missing (name the effect, e.g. op = \"draw_item\")"
    return f"op: unknown effect {ctx.get('tag')!r} here (use one of {ctx.get('expected_tags')})"


_MESSAGES = {"union_tag_invalid": _tag_message, "union_tag_not_found": _tag_message}


def _format(err):
    lines = format_errors(err, drop_tags=frozenset(OPS), messages=_MESSAGES)
    # the tag message already names the field: "x.effects.0: op: ..." -> "x.effects.0.op: ..."
    return [line.replace(": op: ", ".op: ", 1) if ": op: " in line else line for line in lines]


def provenance_problems(raw, provenance):
    """Provenance texts that do not say where they come from, and keys that
    name no value of the ruleset (a typo would otherwise go unnoticed while a
    shorter prefix covers the value)."""
    paths = [p for p, _ in leaves({k: v for k, v in raw.items() if k != "provenance"})]
    bad_text = [f"provenance.{key}: must start with 'rulebook:', 'assumed:' or 'override:'"
                for key, text in provenance.items() if not text.startswith(PROVENANCE_PREFIXES)]
    return bad_text + [f"provenance.{key}: names no value in the ruleset" for key in provenance
                       if not any(p == key or p.startswith(key + ".") for p in paths)]


def validate(raw):
    """Validate a raw mapping; returns (Ruleset, []) or (None, [problem lines])."""
    try:
        rs = Ruleset.model_validate(raw)
    except ValidationError as e:
        return None, _format(e)
    problems = cross_check(rs)
    problems += missing_provenance(raw, rs.provenance) + provenance_problems(raw, rs.provenance)
    problems += unknown_names(rs.names, named_ids(rs), NAMED)
    return (None, problems) if problems else (rs, [])


NAMED = "characters, their abilities, castles, items and events"


def named_ids(rs: Ruleset) -> list:
    """Every id a ``[names]`` entry may name: characters, their abilities,
    castles, Item and Event cards and how games end."""
    from .layout import WIN_NAMES
    return [*rs.characters, *(a for c in rs.characters.values() for a in c.abilities), *rs.castles, *rs.items,
            *rs.events, *WIN_NAMES[1:]]


def names_of(rs: Ruleset) -> dict:
    """Every id of :func:`named_ids` -> the name a person reads (an Event
    card's own ``name`` unless ``[names]`` gives one)."""
    out = display_names(rs.names, named_ids(rs))
    for k, e in rs.events.items():
        out[k] = rs.names.get(k, e.name)
    return out


def default_ruleset_text():
    """The shipped Quest Master ruleset TOML as text."""
    return resources.files("questsim").joinpath("data/ruleset.toml").read_text(encoding="utf-8")


def load_raw(path=None):
    """The raw mapping of a ruleset file (the shipped one when ``path`` is None)."""
    return read_toml(path, default_ruleset_text)


def load_ruleset(path=None, overrides=()):
    """Load, override and validate a ruleset; raise InputError listing problems.

    ``overrides`` are ``"dotted.path=value"`` strings; each overridden path gets
    the provenance ``override: --set path=value``."""
    raw = apply_overrides(load_raw(path), overrides)
    rs, problems = validate(raw)
    if problems:
        where = path or "ruleset"
        raise InputError("\n".join(f"{where}: {line}" for line in problems))
    return rs


def ruleset_hash(rs: Ruleset):
    """Short stable hash of the effective rules (provenance excluded)."""
    return model_hash(rs)


