"""Integer enums and the flat int32 layout of one Quest Master game.

A game's whole state is one int32 vector ``s``; every offset is named here
(numba reads these module constants as compile-time constants). Seats are
0..players-1; a seat's block starts at ``G_P + seat * PS``.

One prefix names one concept, as in MourneQuest where both games have it
(``tables`` adds ``P_`` rules-vector rows and ``O_`` section offsets):

=========  ================================================================
prefix     what it names
=========  ================================================================
``G_``     an offset of the state ``s`` (scalars, and the start of a block)
``S_``     a field of a seat's block (``PS`` ints, from ``G_P``)
``A_``     a decision's kind (code = kind * ``OPB`` + argument)
``CTX_``   the context of a pending decision (``G_CTX``)
``EK_``    an effect kind (``ruleset.OPS``); ``ET_`` its target
``E_``     a column of an effect row (``EW`` ints)
``SQ_``    a square kind; ``IS_`` an Item's symbol; ``W_`` a foot card's moment
``F_``     a die's symbol face (numbers are themselves)
``WIN_``   how a game ended; ``END_`` why a duel ended
``GAIN_``  what an absorbing card gives
``RI_``    a column of the result row; ``RES_`` where its blocks start
``EV_``    the event log's layout (``EV_COLS``); ``EVT_`` an event type
``MAX_``   a size bound
=========  ================================================================
"""
from simcore import shape
from simcore.jit import inlined
from . import constants
from .constants import *  # noqa: F401,F403  (the RI_ and EVT_ rows the kernels read as L.RI_...)

MAX_PLAYERS = 6
MAX_HAND = 12            # hand slots: the limit is 5, a draw may pass it before the discard
MAX_ITEM_CARDS = 80
MAX_EVENT_CARDS = 60
MAX_LEGAL = 64
MAX_PARAMS = 16          # a policy's parameter vector (the planner has 10, rollout 13)
# a plug-in with working memory (register(..., scratch=)) finds it after its parameters, starting
# with a copy of the table's rows: each seat's parameters and plug-in address (questsim.plugins)
TABLE_SLOTS = MAX_PLAYERS * (MAX_PARAMS + 1)

# ---- dice faces: numbers are 1..6, symbols negative -------------------------
F_SWORD, F_BOMB, F_CHEST = -1, -2, -3
SYMBOL_NAMES = ("", "sword", "bomb", "chest")      # index = -face
DIE_RED, DIE_BLUE = 0, 1

# ---- square kinds, item symbols, foot-card moments (ruleset order) ----------
SQ_CASTLE, SQ_EVENT, SQ_ITEM, SQ_SWORD, SQ_WARP, SQ_PLAIN = range(6)
IS_SWORD, IS_SHIELD, IS_SWORD_SHIELD, IS_FOOT = range(4)
W_NONE, W_BEFORE_ROLL, W_AFTER_ROLL, W_AFTER_MOVE, W_HP_ZERO = -1, 0, 1, 2, 3

# ---- effect ops (questsim.ruleset.OPS order) ---------------------------------
(EK_GAIN_HP, EK_LOSE_HP, EK_GAIN_HP_DIE, EK_LOSE_HP_DIE, EK_DRAW_ITEM, EK_DISCARD_ITEM, EK_OPEN_EVENT,
 EK_MOVE, EK_GO_HOME, EK_FIGHT, EK_ROLL, EK_ATTACK_BONUS, EK_SHIELD, EK_ABSORB, EK_DESTROY_ITEMS,
 EK_REVIVE, EK_EXTRA_MOVE) = range(17)
ET_SELF, ET_ALL, ET_OTHERS = 0, 1, 2
GAIN_HP, GAIN_MP, GAIN_NONE = 0, 1, 2
# an effect row: op, n, arg, race mask, then (start, count) of the roll
# branches number, sword, bomb, chest
EW = 12
E_OP, E_N, E_ARG, E_RACES, E_BR = 0, 1, 2, 3, 4

# ---- win conditions / outcome -------------------------------------------------
WIN_NONE, WIN_LAST_STANDING, WIN_CASTLES, WIN_HP, WIN_CAP, WIN_NOBODY = range(6)
WIN_NAMES = ("running", "last_standing", "five_castles", "hp_over_40", "cap", "no_winner")

# ---- decisions: a legal code is op * OPB + argument (code, code_op, code_arg) ---
OPB = 1000
A_DONE = 0            # end a window / stop adding cards
A_MOVE = 1            # move arg squares (the movement choice)
A_SYMBOL = 2          # take symbol arg (1 sword, 2 bomb, 3 chest) instead of moving
A_STAY = 3            # two symbols: take neither (toggle two_symbols_may_pass)
A_PLAY = 4            # play item kind arg (a window, or a card with an attack/defence)
A_WARP = 5            # warp to square arg
A_NO_WARP = 6
A_STEP = 7            # at a fork: step to square arg
A_TARGET = 8          # fight seat arg
A_ATTACK = 9          # attack with paid attack arg (100 = the free attack)
A_DECLINE = 10        # decline to attack (out of attacks for this combat)
A_ABILITY = 11        # use character ability arg
A_DISCARD = 12        # discard item kind arg
FREE_ATTACK = 100
ACTION_NAMES = ("done", "move", "symbol", "stay", "play", "warp", "no_warp", "step", "target", "attack",
                "decline", "ability", "discard")


@inlined
def code(op, arg):
    """The legal code of decision ``op`` (A_*) with argument ``arg``."""
    return op * OPB + arg


@inlined
def code_op(c):
    """The decision (A_*) of legal code ``c``."""
    return c // OPB


@inlined
def code_arg(c):
    """The argument of legal code ``c``: a number of squares, a symbol, an
    Item card kind, a square, a seat, an attack or an ability, by its op."""
    return c % OPB


# contexts of a pending decision (what a policy is asked)
CTX_BEFORE_ROLL, CTX_AFTER_ROLL, CTX_MOVE, CTX_WARP, CTX_FORK, CTX_AFTER_MOVE, CTX_TARGET, CTX_ATTACK, \
    CTX_ATTACK_CARDS, CTX_DEFEND, CTX_DISCARD, CTX_SQUARE = range(12)

# ---- state layout --------------------------------------------------------------
_off = 0


def _take(n):
    global _off
    o = _off
    _off += n
    return o


G_NP = _take(1)            # players
G_ACTIVE = _take(1)        # seat whose turn it is
G_FIRST = _take(1)         # seat that won the start roll
G_ROUND = _take(1)         # rounds begun (a round = every living player's turn)
G_TURNS = _take(1)
G_WINNER = _take(1)        # seat, -1 while running / nobody
G_WIN = _take(1)           # WIN_*
G_DUELS = _take(1)
G_ATTACKS = _take(1)       # attacks made in all duels
G_ELIMINATED = _take(1)
G_CHAIN = _take(1)         # card-driven moves in this turn (guard against endless chains)
G_CTX = _take(1)           # context of the pending decision
G_CTX_ARG = _take(1)
G_ILLEGAL = _take(1)
G_LOG = _take(1)
G_LOGN = _take(1)
G_DIE_RED = _take(1)       # the movement roll
G_DIE_BLUE = _take(1)
G_ITEM_N = _take(1)
G_ITEM_DECK = _take(MAX_ITEM_CARDS)      # top = G_ITEM_N - 1
G_ITEM_USED_N = _take(1)
G_ITEM_USED = _take(MAX_ITEM_CARDS)
G_EVENT_N = _take(1)
G_EVENT_DECK = _take(MAX_EVENT_CARDS)
G_EVENT_USED_N = _take(1)
G_EVENT_USED = _take(MAX_EVENT_CARDS)
G_DUEL_A = _take(1)        # seats of the current duel (-1 outside a duel)
G_DUEL_D = _take(1)
G_DUEL_AT = _take(1)       # the attack being resolved: its At, the defender's shield, absorbed?
G_DUEL_SHIELD = _take(1)
G_DUEL_ABSORB = _take(1)   # -1: no; else GAIN_* of the absorbing card
G_EXTRA = _take(1)         # squares added to this turn's move (Yellow Bird Shoes)
G_DEFER_END = _take(1)     # 1 while one effect hits several players: who is left is decided after
G_MOVE_CHOICE = _take(1)   # the movement choice of the roll being resolved (a Shoe transforms it)
G_NSNAP = _take(1)         # replay only: snapshots taken (one per turn)
MAX_STACK = 64
G_STK_N = _take(1)         # pending effect lists: (start, count, next index) frames, resolved last-in first-out
G_STK = _take(3 * MAX_STACK)
G_WALK_LEFT = _take(1)     # at a warp or fork decision: squares the walk has left if it goes on (negative: back)
G_WALK_CARD = _take(1)     # 1 while a card's move walks the pawn (a castle it reaches counts by toggle)
# how close the castle race runs (movement.track_lead; written to the result row, read by the report)
G_LEADER = _take(1)        # 1 + the living seat alone ahead in castles (0: none yet)
G_LEAD_CHANGES = _take(1)  # times that sole leader changed to another seat
G_DEFICIT = _take(MAX_PLAYERS)   # each seat's deepest deficit in castles behind the most any living seat holds

# What the players did: each kind of decision, counted by the rule kernels as
# it is carried out (never by a policy), written at the end of the result row
# as the ``dec_*`` columns (docs/questmaster/results.md). Writing them changes no game.
DECISIONS = (
    ("shoe_own", "Yellow Bird Shoes played on one's own movement roll"),
    ("shoe_other", "Yellow Bird Shoes played on another player's roll (toggle shoe_any_player)"),
    ("symbol", "a symbol carried out while a move was on offer (the move declined)"),
    ("stay", "two symbols, neither taken (toggle two_symbols_may_pass)"),
    ("decline_square", "optional Item / Event squares declined (toggle square_cards_optional)"),
    ("warp", "warps taken"),
    ("no_warp", "warps declined"),
    ("paid_attacks", "paid attacks made (the free first attacks are attacks - paid_attacks)"),
    ("decline_attack", "paid attacks declined with Mp to pay for one (QM-DUEL-11)"),
    ("attack_cards", "Item cards played with one's own attack"),
    ("attack_abilities", "character abilities used with one's own attack"),
    ("defend_cards", "Item cards played against an attack (shields bought with Mp)"),
    ("defend_abilities", "character abilities used against an attack"),
    ("defend_wasted", "of these, shields and absorbs played when the attack was already stopped"),
    ("foot_cards", "foot cards played before the roll or after the move (Potion, Holy Water ...)"),
    ("hand_discards", "Item cards discarded at the hand limit (QM-HAND-02)"),
    ("target_choices", "fights whose attacker chose among two or more opponents"),
    ("target_leader", "... the target had the most castles of them (ties count, at least 1)"),
    ("target_near_hp_win", "... the target was within 5 Hp of the Hp win (Hp above win_hp_above - 6)"),
    ("target_lowest_hp", "... the target had the lowest Hp of them (ties count)"),
    ("target_highest_hp", "... the target had the highest Hp of them (ties count)"),
    ("target_killable", "... the target's Hp was at most the free attack's At"),
)
DEC_NAMES = tuple(n for n, _what in DECISIONS)
NDEC = len(DEC_NAMES)
(DEC_SHOE_OWN, DEC_SHOE_OTHER, DEC_SYMBOL, DEC_STAY, DEC_DECLINE_SQUARE, DEC_WARP, DEC_NO_WARP, DEC_PAID_ATTACKS,
 DEC_DECLINE_ATTACK, DEC_ATTACK_CARDS, DEC_ATTACK_ABILITIES, DEC_DEFEND_CARDS, DEC_DEFEND_ABILITIES,
 DEC_DEFEND_WASTED, DEC_FOOT_CARDS, DEC_HAND_DISCARDS, DEC_TARGET_CHOICES, DEC_TARGET_LEADER,
 DEC_TARGET_NEAR_HP_WIN, DEC_TARGET_LOWEST_HP, DEC_TARGET_HIGHEST_HP, DEC_TARGET_KILLABLE) = range(NDEC)
G_DEC = _take(NDEC)

# Blunders: choices wrong on the rules and what the chooser can see alone,
# never on a policy's scores (questsim.blunders judges them), counted by the
# rule kernels as the decision is carried out and written after the ``dec_*``
# columns under their own names (docs/questmaster/results.md). Writing them
# changes no game.
BLUNDERS = (
    ("blunder_declined_win", "a choice that does not win at once made while another legal one surely would "
                             "(five castles, Hp over 40)"),
    ("blunder_attack_into_block", "attack cards and abilities adding only At played into a sure block "
                                  "(an absorbing ability whose Mp is of no other use: the Ghost's Vanish)"),
    ("blunder_free_defence_declined", "defences ended while a defend ability payable with Mp of no other use "
                                      "would still have lessened the damage or given Hp"),
)
BL_NAMES = tuple(n for n, _what in BLUNDERS)
NBL = len(BL_NAMES)
BL_DECLINED_WIN, BL_ATTACK_INTO_BLOCK, BL_FREE_DEFENCE_DECLINED = range(NBL)
G_BL = _take(NBL)
# the most Hp any castle (G_BL_GAIN) or any card or ability (+ 1) surely
# gives, for any race: the blunder judge's cheap test that no choice can win
G_BL_GAIN = _take(2)

# seat blocks
S_CHAR, S_RACE, S_HP, S_POS, S_ALIVE, S_CASTLES, S_HAND_N, S_MP, S_OUT, S_POLICY, S_TURNPOS, S_DUELS, \
    S_DAMAGE, S_BONUS, S_CARRY_SHIELD, S_MAX_HP, S_ELIM_ROUND = range(17)
S_ABIL = 17                # uses of each ability in this combat (4)
S_HAND = 21                # item kind per hand slot
PS = S_HAND + MAX_HAND
G_P = _take(PS * MAX_PLAYERS)

STATE_SIZE = _off

# ---- result row ------------------------------------------------------------------
RESULT_COLUMNS = (
    "win_condition", "winner_seat", "winner_position", "winner_character", "rounds", "turns", "duels",
    "attacks", "eliminated", "first_seat", "illegal_choices",
    "char1", "char2", "char3", "char4", "char5", "char6",
    "hp1", "hp2", "hp3", "hp4", "hp5", "hp6",
    "castles1", "castles2", "castles3", "castles4", "castles5", "castles6",
    "pos1", "pos2", "pos3", "pos4", "pos5", "pos6",   # turn position of each seat (0 = went first)
    "lead_changes", "winner_deficit",   # the castle race: lead changes; the winner's deepest deficit (-1: no winner)
) + tuple("dec_" + n for n in DEC_NAMES) + BL_NAMES   # last: what the players did (G_DEC), then the blunders (G_BL)
NRES = len(RESULT_COLUMNS)
RES_BL = NRES - NBL
RES_DEC = RES_BL - NDEC
RESULT_INDEX = {n: i for i, n in enumerate(RESULT_COLUMNS)}
assert all(RESULT_INDEX[f"{c}1"] + p == RESULT_INDEX[f"{c}{p + 1}"]
           for c in ("char", "hp", "castles", "pos") for p in range(MAX_PLAYERS))

# ---- event log -------------------------------------------------------------------
EV_COLS = 7   # type, round, seat, a, b, c, d
EVENT_NAMES = ("setup", "start_roll", "turn", "roll", "choice", "move", "warp", "land", "castle", "draw_item",
               "discard", "play_item", "event", "die", "hp", "fight", "mp", "attack", "defend", "damage",
               "absorb", "eliminated", "revive", "win", "reshuffle", "go_home", "decline", "cannot_pay",
               "duel_end", "no_warp", "extra_move", "decline_square")
# why a duel ended (duel_end's reason)
(END_BOTH_STOPPED, END_CANNOT_PAY, END_DECLINED, END_ELIMINATED, END_GAME_OVER, END_CAP) = range(6)
END_NAMES = ("both_stopped", "cannot_pay", "declined", "eliminated", "game_over", "attack_cap")
DECK_NAMES = ("item", "event")
GAIN_NAMES = ("hp", "mp", "none")
EVENT = {n: i for i, n in enumerate(EVENT_NAMES)}

# the constants of these rows (constants.py, which the kernels read)
CONSTANTS = (
    shape.Family("RI_", RESULT_COLUMNS, 0, "layout.RESULT_COLUMNS", "a column of the result row"),
    shape.Family("EVT_", EVENT_NAMES, 0, "layout.EVENT_NAMES", "an event type of the event log"))
shape.require(CONSTANTS, constants, "questsim/constants.py")
