"""Quest Master's named rows, written by ``python -m simcore.shape`` from the
declarations each family names (a test checks this file is current): do not edit
it by hand; change the declaration and write it again."""


# layout.RESULT_COLUMNS: a column of the result row
RI_WIN_CONDITION = 0
RI_WINNER_SEAT = 1
RI_WINNER_POSITION = 2
RI_WINNER_CHARACTER = 3
RI_ROUNDS = 4
RI_TURNS = 5
RI_DUELS = 6
RI_ATTACKS = 7
RI_ELIMINATED = 8
RI_FIRST_SEAT = 9
RI_ILLEGAL_CHOICES = 10
RI_CHAR1 = 11
RI_CHAR2 = 12
RI_CHAR3 = 13
RI_CHAR4 = 14
RI_CHAR5 = 15
RI_CHAR6 = 16
RI_HP1 = 17
RI_HP2 = 18
RI_HP3 = 19
RI_HP4 = 20
RI_HP5 = 21
RI_HP6 = 22
RI_CASTLES1 = 23
RI_CASTLES2 = 24
RI_CASTLES3 = 25
RI_CASTLES4 = 26
RI_CASTLES5 = 27
RI_CASTLES6 = 28
RI_POS1 = 29
RI_POS2 = 30
RI_POS3 = 31
RI_POS4 = 32
RI_POS5 = 33
RI_POS6 = 34
RI_LEAD_CHANGES = 35
RI_WINNER_DEFICIT = 36
RI_DEC_SHOE_OWN = 37
RI_DEC_SHOE_OTHER = 38
RI_DEC_SYMBOL = 39
RI_DEC_STAY = 40
RI_DEC_DECLINE_SQUARE = 41
RI_DEC_WARP = 42
RI_DEC_NO_WARP = 43
RI_DEC_PAID_ATTACKS = 44
RI_DEC_DECLINE_ATTACK = 45
RI_DEC_ATTACK_CARDS = 46
RI_DEC_ATTACK_ABILITIES = 47
RI_DEC_DEFEND_CARDS = 48
RI_DEC_DEFEND_ABILITIES = 49
RI_DEC_DEFEND_WASTED = 50
RI_DEC_FOOT_CARDS = 51
RI_DEC_HAND_DISCARDS = 52
RI_DEC_TARGET_CHOICES = 53
RI_DEC_TARGET_LEADER = 54
RI_DEC_TARGET_NEAR_HP_WIN = 55
RI_DEC_TARGET_LOWEST_HP = 56
RI_DEC_TARGET_HIGHEST_HP = 57
RI_DEC_TARGET_KILLABLE = 58
RI_BLUNDER_DECLINED_WIN = 59
RI_BLUNDER_ATTACK_INTO_BLOCK = 60
RI_BLUNDER_FREE_DEFENCE_DECLINED = 61

# layout.EVENT_NAMES: an event type of the event log
EVT_SETUP = 0
EVT_START_ROLL = 1
EVT_TURN = 2
EVT_ROLL = 3
EVT_CHOICE = 4
EVT_MOVE = 5
EVT_WARP = 6
EVT_LAND = 7
EVT_CASTLE = 8
EVT_DRAW_ITEM = 9
EVT_DISCARD = 10
EVT_PLAY_ITEM = 11
EVT_EVENT = 12
EVT_DIE = 13
EVT_HP = 14
EVT_FIGHT = 15
EVT_MP = 16
EVT_ATTACK = 17
EVT_DEFEND = 18
EVT_DAMAGE = 19
EVT_ABSORB = 20
EVT_ELIMINATED = 21
EVT_REVIVE = 22
EVT_WIN = 23
EVT_RESHUFFLE = 24
EVT_GO_HOME = 25
EVT_DECLINE = 26
EVT_CANNOT_PAY = 27
EVT_DUEL_END = 28
EVT_NO_WARP = 29
EVT_EXTRA_MOVE = 30
EVT_DECLINE_SQUARE = 31

# tables.RULE_ROWS: a row of the rules vector (the start of T), by its ruleset path
P_N_SQUARES = 0  # n.squares
P_N_CHARACTERS = 1  # n.characters
P_N_ITEM_KINDS = 2  # n.item_kinds
P_N_EVENT_KINDS = 3  # n.event_kinds
P_HAND_LIMIT = 4  # rules.hand_limit
P_STARTING_ITEMS = 5  # rules.starting_items
P_CASTLES_TO_WIN = 6  # rules.castles_to_win
P_WIN_HP_ABOVE = 7  # rules.win_hp_above
P_FREE_ATTACK_COST = 8  # rules.free_attack_cost
P_MP_SYMBOL_VALUE = 9  # rules.mp_symbol_value
P_START_ROLL_DICE = 10  # rules.start_roll_dice
P_START_ROLL_SYMBOL_VALUE = 11  # rules.start_roll_symbol_value
P_MAX_ATTACKS_PER_COMBAT = 12  # rules.max_attacks_per_combat
P_EVENT_CHAIN_LIMIT = 13  # rules.event_chain_limit
P_SAFETY_CAP_ROUNDS = 14  # rules.safety_cap_rounds
P_N_CASTLES = 15  # n.castles
P_START_MARKS_HOME_CASTLE = 16  # toggles.start_marks_home_castle
P_ATTACK_BONUS_LASTS_COMBAT = 17  # toggles.attack_bonus_lasts_combat
P_SHIELDS_STACK = 18  # toggles.shields_stack
P_SHIELD_LASTS_COMBAT = 19  # toggles.shield_lasts_combat
P_ONE_ITEM_PER_STEP = 20  # toggles.one_item_per_step
P_WARP_ON_LANDING = 21  # toggles.warp_on_landing
P_SQUARE_CARDS_OPTIONAL = 22  # toggles.square_cards_optional
P_LANDING_ON_PLAYER_FIGHTS = 23  # toggles.landing_on_player_fights
P_TWO_SYMBOLS_MAY_PASS = 24  # toggles.two_symbols_may_pass
P_LONE_ATTACKER_CONTINUES = 25  # toggles.lone_attacker_continues
P_CARD_MOVES_MARK_CASTLES = 26  # toggles.card_moves_mark_castles
P_N_FACES_RED = 27  # n.faces_red
P_N_FACES_BLUE = 28  # n.faces_blue
P_LAST_PLAYER_EXTRA_ITEMS = 29  # rules.last_player_extra_items
P_ATTACKER_CONTINUES_AFTER_DECLINE = 30  # toggles.attacker_continues_after_decline
P_SHOE_ANY_PLAYER = 31  # toggles.shoe_any_player

# tables.CHAR_FIELDS: a field of a character's block (O_CHAR + character * CH)
C_RACE = 0
C_HP = 1
C_AT = 2
C_NATT = 3
C_ATT = 4
C_NAB = 12
C_AB = 13

# tables.ABILITY_FIELDS: a field of an ability's row (C_AB + ability * AB in a character's block)
AB_WHEN = 0
AB_COST = 1
AB_PER_COMBAT = 2
AB_EFF = 3
AB_EFF_N = 4

# tables.ITEM_FIELDS: a field of an Item card kind's row (O_ITEM + kind * IK)
IK_COUNT = 0
IK_COLOUR = 1
IK_SYMBOL = 2
IK_COST = 3
IK_WHEN = 4
IK_EFF = 5
IK_EFF_N = 6
IK_WORTH = 7

# tables.EVENT_FIELDS: a field of an Event card kind's row (O_EVENT + kind * EK)
EC_COUNT = 0
EC_EFF = 1
EC_EFF_N = 2
