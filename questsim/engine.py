"""The Quest Master engine: the rules as numba kernels over the flat state
``s`` and the compiled rules ``T`` (questsim.tables), held by the modules
named for what they hold:

- ``core``: a seat's offset, the event log, dice, the decision point
  (``ask`` → ``decision.decide``), legal codes, the effect stack's ``push``;
- ``hand``: Item cards in hand: drawing, discarding, the used pile;
- ``life``: Hp gained and lost, elimination, declaring a winner;
- ``combat``: the duel;
- ``movement``: walking, forks and warps, landing on a square;
- ``effects``: Event cards, effect rows and the effect stack;
- ``turn``: one turn, from the cards before the roll to the square;
- ``game``: set-up, rounds, the result row and the compiled entry points
  ``run_batch`` and ``play_logged``.

Every rule kernel takes its arrays in the order MourneQuest's do,
``(s, T, ev, rng, legal, pp, seat, ...)``, leaving out those it does not
need. This module only gathers the entry points and the kernels that the
Python side and the rule tests call (it defines no kernel).
"""
from .combat import duel, duel_with  # noqa: F401
from .core import over, roll  # noqa: F401
from .effects import resolve  # noqa: F401
from .game import finish_round, play, play_logged, result_row, run_batch, setup  # noqa: F401
from .hand import draw_item  # noqa: F401
from .life import gain_hp, lose_hp  # noqa: F401
from .movement import land, walk  # noqa: F401
from .turn import after_choice, movement_choices, shoe_move, take_turn, turn_to_choice  # noqa: F401
