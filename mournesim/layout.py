"""Integer encodings and the flat game-state layout shared by the numba kernels.

The whole state of one game is one int32 vector (``s``); this module names the
offsets into it (``G_*`` scalars and per-hero / per-disc / per-nightmare /
per-nexus blocks) and the integer enums of the engine. Module-level ints are
compile-time constants for numba. Python code (replay decoding, tests) reads
the same names, so a snapshot of ``s`` is self-describing.

One prefix names one concept (``tables`` adds ``P_`` parameters, ``O_``
section offsets, ``*_W`` row widths and their ``CD_``/``RL_``/``LT_`` columns):

=========  ================================================================
prefix     what it names
=========  ================================================================
``G_``     an offset of the state ``s`` (scalars, and the start of a block)
``H_``     a field of a hero's block (``HS`` ints, from ``G_HERO``)
``D_``     a field of a disc's block (``DSZ`` ints, from ``G_DISC``)
``NM_``    a field of a nightmare's block (``NSZ`` ints, from ``G_NM``)
``X_``     a field of a nexus slot's block (``XSZ`` ints, from ``G_NEX``)
``CNT_``   a decision counter's offset in ``s`` (block ``G_CNT``)
``A_``     an action op: a hero's turn action (``A_MOVE``), a card in hand
           (``A_EQUIP``), what a Bogbean steals (``A_LOSE_CHARM``), the solo
           pick, a Louse Wort's reward (``A_REWARD_RELIC``)
``R_``     an action op of a combat or wall-die reaction
``OP_``    the op encoding (``OP_BASE``, ``OP_NAMES``)
``TGT_``   an attack target (an ``A_ATTACK`` argument // 4)
``FACE_``  a die face: combat (``FACE_FAIL``) and compass (``FACE_STAR``;
           compass faces 0..3 are directions)
``EK_``    an effect kind (``EFFECT_KINDS``)
``ET_``    an effect target (``TARGETS``)
``WHEN_``  when an effect may be used (``WHEN``)
``EF_``    a column of the effect table
``TK_``    an encounter tile kind; ``TL_`` a column of the tile table
``K_``     a space kind
``ENEMY_`` a row of the enemy-value table (``tables.O_ENEMY``)
``DS_``    a disc state
``FATE_``  a nightmare's fate (result rows)
``OUT_``   a game outcome (``G_OUTCOME``)
``CTX_``   the context of a pending decision (``G_CTX``)
``FB_``    the final-battle status (``G_FINAL``)
``RI_``    a column of the result row
``EV_``    the event log's layout (``EV_COLS``); ``EVT_`` an event type
``MAX_``   a size bound; ``N_`` (``N_DIRS``) a count
=========  ================================================================

An action code packs an op and its argument (``code``, ``code_op``,
``code_arg``), and several arguments pack fields of their own; each packing
has its pack and unpack helpers beside the op's declaration (``attack_arg``,
``attack_target``, ``pass_arg``, ``sub_owner``, ``move_to_hero`` ...). They are
``inlined`` kernels, copied into each numba caller, and plain functions for
Python code (replay decoding, tests), so every reader decodes a code one way.
"""

from simcore import shape
from simcore.jit import inlined
from . import constants
from .constants import CNT_RELICS_FINAL, CNT_RELICS_USED, CNT_SKILLS_FINAL, CNT_SKILLS_USED
from .constants import *  # noqa: F401,F403  (the CNT_, RI_ and EVT_ rows the kernels read as L.CNT_...)

# ---- enums ---------------------------------------------------------------
N_DIRS = 4          # compass positions, clockwise: 0 N, 1 E, 2 S, 3 W
DIR_NAMES = ("N", "E", "S", "W")
CORNER_NAMES = ("NE", "SE", "SW", "NW")   # nexus / crossroads, clockwise
CHARM_NAMES = ("granite", "gold", "blackthorn", "flax")
ABILITY_NAMES = ("courage", "strength", "magic")
COLOUR_NAMES = ("green", "grey", "red", "blue")
LEVEL_NAMES = ("easy", "medium", "hard")

GREEN, GREY, RED, BLUE = 0, 1, 2, 3

# space kinds
K_PATH, K_START, K_KEYSTONE, K_NEXUS, K_CROSSROADS, K_CACHE, K_TUNNEL, K_POST, K_DISC, K_CENTRE = range(10)
KIND_NAMES = ("path", "start", "keystone", "nexus", "crossroads", "cache", "tunnel", "trading_post", "disc",
              "centre")

# combat die faces: numbers are themselves
FACE_FAIL = 10
FACE_DOUBLE = 11
FACE_DANDELION = 12
# compass die faces: 0..3 are directions
FACE_STAR = 4
FACE_BLANK = 5

# effect vocabulary (ruleset effect.kind), targets and when an effect is used
EFFECT_KINDS = ("heal", "wound", "gain_charm", "lose_charm", "extra_die", "reroll", "combat_bonus",
                "repair_wall", "rotate_disc", "extra_action", "move_to", "lose_equipment",
                "lose_skill", "extra_move")
(EK_HEAL, EK_WOUND, EK_GAIN_CHARM, EK_LOSE_CHARM, EK_EXTRA_DIE, EK_REROLL, EK_COMBAT_BONUS,
 EK_REPAIR_WALL, EK_ROTATE_DISC, EK_EXTRA_ACTION, EK_MOVE_TO, EK_LOSE_EQUIPMENT,
 EK_LOSE_SKILL, EK_EXTRA_MOVE) = range(14)


# the target of a move_to effect: hero * 4 + the corner of the crossroads it moves to
@inlined
def move_to_param(hero, corner):
    """The target of a move_to effect moving ``hero`` to the crossroads of ``corner``."""
    return hero * 4 + corner


@inlined
def move_to_hero(param):
    """The hero a move_to effect's target ``param`` moves."""
    return param // 4


@inlined
def move_to_corner(param):
    """The corner of the crossroads a move_to effect's target ``param`` moves to."""
    return param % 4

TARGETS = ("self", "any_hero", "heroes_near", "chosen_disc", "advanced_disc", "crossroads", "highest")
(ET_SELF, ET_ANY_HERO, ET_HEROES_NEAR, ET_CHOSEN_DISC, ET_ADVANCED_DISC, ET_CROSSROADS, ET_HIGHEST) = range(7)
WHEN = ("turn", "combat", "immediate")
WHEN_TURN, WHEN_COMBAT, WHEN_IMMEDIATE = range(3)
# effect table columns
EF_KIND, EF_AMOUNT, EF_TARGET, EF_WHEN, EF_RANGE = range(5)
EF_COLS = 5

# encounter tiles
TILE_KINDS = ("bogbean", "pot", "move1", "move2")
TK_BOGBEAN, TK_POT, TK_MOVE1, TK_MOVE2 = range(4)
TL_LEVEL, TL_KIND, TL_DROP, TL_DROP_N, TL_STEAL, TL_CARD = range(6)
TL_COLS = 6

# enemy value table rows: bogbean levels 1..3, nightmares 0..3, shimnavore
ENEMY_BOG = 0      # rows 0..2
ENEMY_NM = 3       # rows 3..6
ENEMY_SHIM = 7
ENEMY_ROWS = 8

# why an encounter tile was not placed (encounter record, column e)
TILE_DISCARD_NAMES = (None, "all bogbeans of its level are on the board", "a miniature stands on the crossroads",
                      "a pot is already on the crossroads", "every pot is out", "a movement tile acts and is discarded")
# why an enemy did not move (enemy_stay record, column d)
STAY_NAMES = ("already with a hero", "no hero it can reach", "every step towards its hero is full")

# disc states
DS_ON = 0          # nightmare on its disc, turning
DS_RELEASED = 1    # red pointer at the key stone; escapes next enemy phase
DS_BOARD = 2       # nightmare emerged onto the board
DS_CAST_OUT = 3
DS_DEFEATED = 4
DISC_STATE_NAMES = ("on disc", "released", "on board", "cast out", "defeated")

# nightmare fate codes (results)
FATE_NONE, FATE_CAST_OUT, FATE_DEFEATED, FATE_ESCAPED, FATE_EMERGED = range(5)
FATE_NAMES = ("on_disc", "cast_out", "defeated", "escaped", "emerged")

# outcomes
OUT_RUNNING, OUT_WIN, OUT_HERO_DIED, OUT_WALL_DESTROYED, OUT_CAP = range(5)
OUTCOME_NAMES = ("running", "win", "hero_died", "wall_destroyed", "cap")

# decision contexts (G_CTX) so a policy knows what a reaction is for
CTX_TURN, CTX_ATTACK, CTX_DEFENCE, CTX_COMPASS, CTX_WALL, CTX_CARD = range(6)

# final-battle status
FB_NONE, FB_TRIGGERED, FB_RUNNING = range(3)

# ---- action codes: op * OP_BASE + arg -------------------------------------
# every op is an A_* (an action a hero takes or a choice it makes) except the
# combat / wall-die reactions R_*
OP_BASE = 4096


@inlined
def code(op, arg):
    """The action code of operation ``op`` with argument ``arg``."""
    return op * OP_BASE + arg


@inlined
def code_op(c):
    """The operation of action code ``c``."""
    return c // OP_BASE


@inlined
def code_arg(c):
    """The argument of action code ``c``."""
    return c % OP_BASE


# the argument of a relic or skill action: its owner (relic r or hero u) * SUB
# + its target + 1 (0: no target); ``effects.put_target`` adds the target
SUB = 64


@inlined
def sub_code(owner):
    """The part of a relic or skill action's argument naming its owner (relic
    or hero ``owner``); the target is added as ``target + 1``."""
    return owner * SUB


@inlined
def sub_arg(owner, target):
    """The argument of a relic or skill action of ``owner`` on ``target`` (-1: none)."""
    return owner * SUB + target + 1


@inlined
def sub_owner(arg):
    """The relic or hero of a relic or skill action's argument."""
    return arg // SUB


@inlined
def sub_target(arg):
    """The target of a relic or skill action's argument (-1: none)."""
    return arg % SUB - 1

# hero turn
A_END, A_MOVE, A_PICKUP, A_DEPOSIT, A_SURPLUS, A_PASS, A_HEAL, A_TRADE, A_TRADE_RELIC, \
    A_ATTACK, A_REPAIR, A_DRAW_EQ, A_RELIC, A_SKILL, A_DISCARD_CHARM = range(15)


# A_PASS: the equipment slot (ability) passed * 4 + the hero it goes to
@inlined
def pass_arg(slot, hero):
    """The argument of passing the card under ability ``slot`` to ``hero``."""
    return slot * 4 + hero


@inlined
def pass_slot(arg):
    """The ability (equipment slot) whose card a pass argument gives."""
    return arg // 4


@inlined
def pass_hero(arg):
    """The hero a pass argument gives the card to."""
    return arg % 4


# A_TRADE: the charm type given (two of it) * 4 + the charm type taken
@inlined
def trade_arg(give, take):
    """The argument of trading two charms of type ``give`` for one of ``take``."""
    return give * 4 + take


@inlined
def trade_give(arg):
    """The charm type a trade argument gives two of."""
    return arg // 4


@inlined
def trade_take(arg):
    """The charm type a trade argument takes."""
    return arg % 4


# A_TRADE_RELIC: the three charms given, how many of each type in base 4
# (type t in bits 2t, 2t+1); the event log's trade record keeps it as it is
@inlined
def relic_trade_arg(x0, x1, x2, x3):
    """The argument of trading ``x0..x3`` charms of types 0..3 for a relic."""
    return x0 + 4 * x1 + 16 * x2 + 64 * x3


@inlined
def relic_trade_count(arg, t):
    """How many charms of type ``t`` a relic trade argument gives."""
    return (arg >> (2 * t)) & 3

# combat / wall-die reactions
R_ACCEPT, R_TALISMAN, R_RELIC, R_SKILL = 20, 21, 22, 23
# a card in hand: equip it or discard it to the Surplus Deck (A_DISCARD_CHARM
# is the turn action that discards a charm)
A_EQUIP, A_DISCARD_CARD = 30, 31
# which thing a Bogbean steals: a charm type, or a card (the ability of an
# equipped card 0..2, or 3 + a relic)
A_LOSE_CHARM, A_LOSE_CARD = 40, 41


@inlined
def lose_relic_arg(r):
    """The A_LOSE_CARD argument giving up relic ``r``."""
    return 3 + r


@inlined
def loses_relic(arg):
    """Whether an A_LOSE_CARD argument gives up a relic (else an equipped card)."""
    return arg >= 3


@inlined
def lost_relic(arg):
    """The relic an A_LOSE_CARD argument gives up (``loses_relic``)."""
    return arg - 3

# solo set-up: which Level-5 card
A_SOLO_PICK = 50
# Level-3 Bogbean reward
A_REWARD_EQUIPMENT, A_REWARD_RELIC, A_REWARD_DECLINED = 60, 61, 62
OP_NAMES = {A_END: "end_turn", A_MOVE: "move", A_PICKUP: "pick_up", A_DEPOSIT: "deposit",
            A_SURPLUS: "take_surplus", A_PASS: "pass_equipment", A_HEAL: "regain_life",
            A_TRADE: "trade_charms", A_TRADE_RELIC: "trade_for_relic", A_ATTACK: "attack",
            A_REPAIR: "repair_wall", A_DRAW_EQ: "draw_equipment", A_RELIC: "use_relic",
            A_SKILL: "use_skill", A_DISCARD_CHARM: "discard_charm", R_ACCEPT: "accept",
            R_TALISMAN: "talisman_reroll", R_RELIC: "combat_relic", R_SKILL: "combat_skill",
            A_EQUIP: "equip", A_DISCARD_CARD: "discard_card", A_LOSE_CHARM: "lose_charm", A_LOSE_CARD: "lose_card",
            A_SOLO_PICK: "solo_pick", A_REWARD_EQUIPMENT: "reward_equipment", A_REWARD_RELIC: "reward_relic",
            A_REWARD_DECLINED: "reward_declined"}
# attack targets (the A_ATTACK argument // 4; % 4 is the ability)
TGT_NIGHTMARE = 0   # 0..3 nightmare index
TGT_BOGBEAN = 4     # 4..7 bogbean of nexus slot 0..3
TGT_SHIM = 8


@inlined
def attack_arg(target, ability):
    """The argument of attacking ``target`` (a ``TGT_*`` number) on ``ability``."""
    return target * 4 + ability


@inlined
def attack_target(arg):
    """The target (``TGT_*`` number) of an attack argument."""
    return arg // 4


@inlined
def attack_ability(arg):
    """The ability an attack argument fights on."""
    return arg % 4


# ---- sizes -----------------------------------------------------------------
# declared once, here: the ruleset's checks (ruleset.py) and the rules
# array's sections (tables.py) read the same bounds as the state layout
MAX_HEROES = 4
MAX_SPACES = 64
MAX_EQUIP = 40      # equipment cards, Hags included
MAX_RELICS = 32
MAX_TILES = 96      # all three levels
MAX_EFFECTS = 96    # skills, Hags, relic kinds and evil powers
MAX_LEGAL = 512

# ---- state layout -----------------------------------------------------------
_off = 0


def _take(n):
    global _off
    o = _off
    _off += n
    return o


# scalars
G_ROUND = _take(1)         # current round, from 1
G_MOON = _take(1)          # moon marker space index
G_MOON_STEPS = _take(1)    # moon moves made
G_FINAL = _take(1)         # FB_NONE / FB_TRIGGERED / FB_RUNNING
G_TOKENS = _take(1)        # compass tokens in the centre
G_POOL = _take(1)          # combat dice unlocked (1..4)
G_TALISMANS = _take(1)     # talismans held by the team
G_TALISMAN_SUPPLY = _take(1)
G_ENC_LEVEL = _take(1)     # highest encounter level in the bag (1..3)
G_OUTCOME = _take(1)
G_LEVEL = _take(1)         # 0 easy, 1 medium, 2 hard
G_PLAYERS = _take(1)       # 1..4
G_NHEROES = _take(1)       # heroes in play (2 in solo)
G_CUR = _take(1)           # hero whose turn it is (-1 in the enemy phase)
G_ACTS = _take(1)          # actions left this turn
G_NEXUS_USED = _take(1)    # an equipment card was taken from a nexus this turn
G_SHIM_ATTACKED = _take(1) # the active hero attacked the Shimnavore this turn
G_TURN_OVER = _take(1)     # the turn ended at once (lost attack)
G_FORBID = _take(1)        # space the active hero may not re-enter this turn (-1)
G_MUST_MOVE = _take(1)     # bit 1: must move off a shared space; bit 2: must follow the start arrow
G_POTS_OUT = _take(1)      # pot markers on the board
G_TURNS = _take(1)         # hero turns played
G_CASTOUT = _take(1)
G_DEFEATED = _take(1)
G_ESCAPED = _take(1)
G_FB_ROUND = _take(1)      # final-battle rounds begun
G_FB_POOL = _take(1)       # dice pool when the final battle began (0: never)
G_WALL_HITS = _take(1)     # successful Shimnavore wall damage rolls
G_HERO_DEFENCES = _take(1) # Shimnavore attacks on heroes
G_BAG_N = _take(1)
G_DISCARD_N = _take(1)
G_EQ_N = _take(1)          # cards left in the face-down equipment deck
G_SURPLUS_N = _take(1)
G_RELIC_N = _take(1)       # cards left in the relic deck
G_LOG = _take(1)           # 1 while logging events
G_LOGN = _take(1)          # events written
G_SNAPN = _take(1)         # snapshots written
G_SHIM_FACING = _take(1)   # direction the Shimnavore faces (-1 before it appears)
G_COMBATS = _take(1)       # combats fought
G_CTX = _take(1)           # context of the pending decision (CTX_*)
G_CTX_ARG = _take(1)       # its detail: enemy-table row, or the die face
G_CTX_FACES = _take(8)     # the faces of the combat roll being decided on
G_CTX_WINNABLE = _take(1)  # 0 when no reaction on offer can still win that roll (audit.combat_winnable)
G_WALL_REPAIRS = _take(1)
G_POLICY = _take(1)        # policy id of the active decision maker
G_ILLEGAL = _take(1)       # choices a policy returned that were not legal (replaced by the first legal one)
G_ARRIVED = _take(1)       # space the active hero last moved onto this turn (-1): a Nexus gives Equipment
                           # only to a hero who "moves on to" it (MQ-CARD-03, MQ-GAP-60)
G_POOL_CHARMS = _take(4)   # charm pool by type
G_BOGS_IN_PLAY = _take(3)  # bogbean miniatures on the board by level
G_WALL = _take(4)          # damaged key stone by direction (0/1)
G_SHIM_WOUNDS = _take(3)   # wins against the Shimnavore by ability

# heroes: block of HS ints each
H_ID, H_POS, H_WOUNDS, H_SKILLS, H_EQ, H_CH, H_FIRST_DONE, H_START, H_SEAT = 0, 1, 2, 3, 4, 7, 11, 12, 13
HS = 14
G_HERO = _take(HS * MAX_HEROES)

# discs by direction: DSZ ints each
D_NM, D_CLICKS, D_STATE, D_DEP, D_START_CLICKS = 0, 1, 2, 3, 7
DSZ = 8
G_DISC = _take(DSZ * 4)

# nightmares by index: NSZ ints each
NM_POS, NM_WOUNDS, NM_DIR, NM_FATE, NM_JUST, NM_ESCAPED = 0, 1, 2, 3, 4, 5
# NM_ESCAPED: 0 never escaped, 1 escaped, 2 escaped this round, 3 emerged late this
# round (a Final Battle emergence that waited on its disc; not an escape). 2 and 3 are
# the rounds in which it only arrives (MQ-GAP-26).
NM_ARRIVED_ESCAPE, NM_ARRIVED_LATE = 2, 3
NSZ = 6
G_NM = _take(NSZ * 4)

# nexus slots (encounter tile beside each nexus) by corner: XSZ ints each
X_TILE, X_KIND, X_BOG_POS, X_BOG_WOUNDS, X_POT, X_ENTERED = 0, 1, 2, 3, 4, 5
XSZ = 6
G_NEX = _take(XSZ * 4)

# decks and piles
G_EQ_DECK = _take(MAX_EQUIP)       # face-down deck, top = G_EQ_N - 1
G_SURPLUS = _take(MAX_EQUIP)       # face-up pile, top = G_SURPLUS_N - 1
G_RELIC_DECK = _take(MAX_RELICS)   # top = G_RELIC_N - 1
G_RELIC_OWNER = _take(MAX_RELICS)  # hero index holding relic card i, -1 not held
G_BAG = _take(MAX_TILES)
G_DISCARD = _take(MAX_TILES)
G_LV_TILES = _take(3 * 32)         # each level's tile ids after 2-player removal
G_LV_N = _take(3)

# decision counters: how often each kind of choice was taken in this game,
# incremented by the rule kernels (never by a policy) when the choice is
# carried out; written to the result row under the same names, so a designer
# sees which rules a policy actually plays (docs/mournequest/results.md)
DECISIONS = (
    ("trades_charm", "Trading Post: two identical Charms for another (MQ-ACT-07)"),
    ("trades_relic", "Trading Post: three Charms for a Relic (MQ-ACT-08)"),
    ("repairs_granite", "wall sections rebuilt with three Granite (MQ-FINAL-21)"),
    ("repairs_relic", "wall sections repaired by a card or skill effect (Mending Stone)"),
    ("equipment_passes", "Equipment passed to a hero on the same space (MQ-ACT-06)"),
    ("surplus_takes", "face-up Surplus cards taken at a Nexus (1 action)"),
    ("equipment_draws", "face-down Equipment draws at a Nexus (free action)"),
    ("cards_declined", "cards that could have been equipped but went to the Surplus"),
    ("rewards_declined", "Louse Wort card rewards declined"),
    ("talisman_combat", "Talisman re-rolls of a hero's combat die"),
    ("talisman_compass", "Talisman re-rolls of a Compass Die"),
    ("talisman_wall", "Talisman re-rolls of the Shimnavore's wall die"),
    ("skills_used", "Skill tokens spent (turn and combat windows)"),
    ("skills_final", "Skill tokens spent in the Final Battle"),
    ("relics_used", "Relic cards used (turn and combat windows)"),
    ("relics_final", "Relic cards used in the Final Battle"),
    ("reactions_wasted", "Talismans, combat Relics and Skills spent on a combat still lost"),
    ("attacks_bogbean", "attacks on a Bogbean"),
    ("attacks_nightmare", "attacks on a Nightmare"),
    ("attacks_shimnavore", "attacks on the Shimnavore"),
    ("heals", "life points regained at a Start Point (1 action)"),
    ("pots", "Magical Pots collected"),
    ("charm_discards", "charms discarded (free action)"),
)
# blunder counters: choices that are wrong on the rules and the exact odds
# alone, judged by the rule kernels (audit.py) when the choice is carried out,
# never by a policy's own scores; each is defined in docs/mournequest/results.md
BLUNDERS = (
    ("blunder_futile_reactions", "Talismans, combat Relics and Skills spent when the combat could no longer be won"),
    ("blunder_found_discarded", "Charms found by a Skill or Relic and discarded in the same turn"),
    ("blunder_repairs_missed", "walls lost at a damaged section a hero could have reached and rebuilt that round"),
    ("blunder_moves_undone", "moves straight back to the space the previous move left, nothing done there, and no further move"),
    ("blunder_idle_turns", "turns ended with actions left while a Charm a Disc needs could be placed, "
                           "a wall rebuilt or a wound healed"),
)
COUNTERS = DECISIONS + BLUNDERS
COUNTER_NAMES = tuple(n for n, _what in COUNTERS)
NCNT = len(COUNTER_NAMES)
G_CNT = _take(NCNT)
# core.count_use counts a use and, in the Final Battle, the counter after it
assert CNT_SKILLS_FINAL == CNT_SKILLS_USED + 1 and CNT_RELICS_FINAL == CNT_RELICS_USED + 1

# what the blunder audit remembers within a turn or a round (audit.py)
G_AU_BACK = _take(1)        # space the active hero's last move left, -1 after any other action
G_AU_UNDO = _take(1)        # 1 after a move straight back, until the hero's next step shows its use
G_AU_FOUND = _take(4)       # charms of each type found by a Skill or Relic this turn
G_AU_REPAIRABLE = _take(4)  # by hero: wall sections it could have rebuilt this round (bit d)

STATE_SIZE = _off

# ---- result row -------------------------------------------------------------
RESULT_COLUMNS = (
    "outcome", "rounds", "hero_turns", "cast_out", "escaped", "defeated",
    "dice_pool_final", "final_battle", "final_battle_rounds", "wall_damage",
    "wall_repairs", "shimnavore_wounds", "combats", "talismans_left",
    "hero1", "hero2", "hero3", "hero4",
    "fate_nm1", "fate_nm2", "fate_nm3", "fate_nm4",
    "escaped_nm1", "escaped_nm2", "escaped_nm3", "escaped_nm4",
    "min_life", "illegal_choices",
) + COUNTER_NAMES + (
    "skills_left",         # skill tokens unspent at the end
    "relics_left",         # relic cards held unused at the end
)
NRES = len(RESULT_COLUMNS)
RESULT_INDEX = {name: i for i, name in enumerate(RESULT_COLUMNS)}
# result_row copies the counters as one block: their columns must follow COUNTER_NAMES
assert RESULT_COLUMNS[RESULT_INDEX[COUNTER_NAMES[0]]:RESULT_INDEX[COUNTER_NAMES[0]] + NCNT] == COUNTER_NAMES
assert all(RESULT_INDEX["fate_nm1"] + k == RESULT_INDEX[f"fate_nm{k + 1}"] and
           RESULT_INDEX["escaped_nm1"] + k == RESULT_INDEX[f"escaped_nm{k + 1}"] and
           RESULT_INDEX["hero1"] + k == RESULT_INDEX[f"hero{k + 1}"] for k in range(4))

ACTOR_GAME = -100   # log actor of game events; heroes are 0..3, nightmare k is -1-k

# ---- event log -----------------------------------------------------------------
EV_COLS = 8   # type, round, actor, a, b, c, d, e
EVENT_NAMES = (
    "turn_start", "action", "move", "tunnel", "deposit", "cast_out",
    "equipment_drawn", "equip", "hag", "relic_drawn", "relic_used", "skill_used",
    "combat", "dice", "reroll", "theft", "life", "moon", "compass", "disc_click",
    "compass_token", "all_discs", "escape", "enemy_move", "evil_power",
    "encounter", "encounter_level", "flee", "final_battle", "emerge", "knock_back",
    "shimnavore", "wall_roll", "wall_damage", "wall_repair", "shimnavore_wound",
    "game_end", "trade", "pot", "dice_pool", "talisman", "card_lost", "charm_gain",
    "charm_loss", "skill_token_lost", "enemy_phase", "pass_equipment", "surplus",
    "bogbean_defeated", "nightmare_defeated", "nightmare_wounded", "wort_wounded",
    "setup",
    # appended after the first replay schema: non-events a reader needs to see
    "enemy_stay", "disc_held", "tunnel_blocked", "shimnavore_attack", "shimnavore_held",
)
EVENT = {name: i for i, name in enumerate(EVENT_NAMES)}

# the constants of these rows (constants.py, which the kernels read)
CONSTANTS = (
    shape.Family("CNT_", COUNTER_NAMES, G_CNT, "layout.COUNTERS", "a counter's offset in the state s"),
    shape.Family("RI_", RESULT_COLUMNS, 0, "layout.RESULT_COLUMNS", "a column of the result row"),
    shape.Family("EVT_", EVENT_NAMES, 0, "layout.EVENT_NAMES", "an event type of the event log"))
shape.require(CONSTANTS, constants, "mournesim/constants.py")
