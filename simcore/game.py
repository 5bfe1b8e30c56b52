"""The interface a game implements once so that simcore can drive it.

A game is a package (``mournesim``, ``questsim``) whose ``gamedef.py`` defines
one :class:`Game` subclass and its instance ``GAME``, registered in
``pyproject.toml`` under the entry-point group ``simcore.games``::

    [project.entry-points."simcore.games"]
    mournequest = "mournesim.gamedef:GAME"

What simcore writes once against it: the policy registry and plug-in loading
(:class:`simcore.plugins.PolicyRegistry`, the game's ``plugins.REGISTRY``),
grid runs and their resumption (:mod:`simcore.grid`), designer experiments
(:mod:`simcore.experiment`, which finds a game by its ``key``), golden games
and engine identity (:mod:`simcore.golden`, :mod:`simcore.identity`) and the
command line's shared parts (:mod:`simcore.cli`).

What a game supplies is named in :attr:`Game.parts` (one module per part,
loaded on first use by :meth:`Game.module`) and in the few methods below that
say how a grid cell is played. docs/common/architecture.md lists the parts a third
game would write.
"""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from importlib import metadata

from .errors import InputError

# what a game's modules hold, by part name (docs/common/architecture.md)
PARTS = {
    "layout": "the flat state's offsets, enums, RESULT_COLUMNS, event types",
    "ruleset": "the rules as data with provenance; strict validation; effective_rows",
    "tables": "compiling a ruleset into the flat int32 array T",
    "engine": "the compiled entry points run_batch / play_logged",
    "policies": "the built-in policies, BUILTIN_POLICIES (the rules ask through decision.py)",
    "plugins": "the policy registry REGISTRY (a simcore.plugins.PolicyRegistry)",
    "sim": "the Python API: prepare, Config, run_games, to_frame, simulate",
    "replay": "replay(): one game's event log decoded into records and text",
    "batch": "the grid axes of simulate and their parsing",
    "report": "the balance report of a run's rows",
    "plots": "the report's plots",
    "viewer": "the board the replay viewer draws",
    "odds": "exact dice odds for the odds command",
    "experiment": "the measures and base keys of designer experiments",
    "reference": "the golden reference games",
    "rollout": "the search policy (a plug-in that runs the engine on sampled futures)",
    "cli": "the game's command line, built on simcore.cli",
}


class Game(ABC):
    """One game as simcore drives it. Subclasses set the class attributes and
    implement the abstract methods."""

    key = ""            # how experiment files name it: game = "mournequest"
    title = ""          # how people name it: "MourneQuest"
    package = ""        # its package, which is also its command: "mournesim"
    parts: dict = {}    # part (PARTS) -> module name
    default_batch = 10_000   # games per batch of a grid cell (a search policy may ask for fewer)
    rollout_option = {"policy": "rollout"}   # simulate's keyword seating the rollout search (warm_up)
    expert_option = {"policy": "expert"}     # and the expert (the test session compiles it first)
    compile_estimate = ""    # how long a cold engine's compile takes here, as the user is told
    report_by = "any result column"   # what `report --by` takes, for its help
    players = (1, 1)    # the fewest and most players a game takes

    def module(self, part):
        """The game's module for ``part`` (one of :data:`PARTS`)."""
        if part not in self.parts:
            raise KeyError(f"{self.title} has no part {part!r} (parts: {', '.join(self.parts)})")
        return importlib.import_module(self.parts[part])

    @property
    def registry(self):
        """The game's policies (simcore.plugins.PolicyRegistry)."""
        return self.module("plugins").REGISTRY

    @property
    def behaviour_version(self) -> int:
        """Changes exactly when the games played change (simcore.golden)."""
        return importlib.import_module(self.package).BEHAVIOUR_VERSION

    @property
    def result_columns(self) -> tuple:
        """The columns of the engine's result rows, in order."""
        return tuple(self.module("layout").RESULT_COLUMNS)

    # ---- declared metadata (checked by tests/common/test_contract.py) -------

    @property
    def state_size(self) -> int:
        """Slots of one game's flat state vector (the layout's STATE_SIZE)."""
        return int(self.module("layout").STATE_SIZE)

    @property
    def event_width(self) -> int:
        """Columns of one event-log record (the layout's EV_COLS)."""
        return int(self.module("layout").EV_COLS)

    @property
    @abstractmethod
    def action_space(self) -> int:
        """How many action codes there are: every legal code a policy is
        offered is below it (the layout's ``code(op, arg)``)."""

    @property
    def longest_game(self) -> int:
        """Rounds a game lasts at most: the shipped ruleset's safety cap."""
        return int(self.prepare().ruleset.rules.safety_cap_rounds)

    # ---- what simcore.grid needs to play and resume a cell -----------------

    def prepare(self, ruleset=None, overrides=()):
        """The compiled rules of a ruleset file (default: the published one)
        with dotted-path ``overrides``; bad input raises InputError."""
        return self.module("sim").prepare(ruleset, overrides)

    def play(self, rules, cfg, seed, first, n):
        """Games ``first .. first+n-1`` of one cell as a DataFrame of rows;
        ``n`` may be 0 (a worker process starting: simcore.batch), and the
        engine is then loaded all the same."""
        sim = self.module("sim")
        return sim.to_frame(sim.run_games(rules, cfg, seed, first, n), rules, cfg, seed, first)

    @abstractmethod
    def replay(self, **kw):
        """One game replayed with its event log (the game's replay())."""

    @abstractmethod
    def cell_config(self, cell: dict):
        """The configuration (the game's ``sim.Config``) of a stored cell label."""

    @abstractmethod
    def cell_policies(self, cell: dict) -> tuple:
        """The policy names a stored cell label plays."""

    @abstractmethod
    def sample_config(self):
        """A configuration that exercises the engine (several players, the
        built-in policies): what the contracts of every game play
        (tests/common/test_contract.py)."""

    @abstractmethod
    def grid_axes(self, players: tuple, policies: tuple) -> dict:
        """The ``batch.run_grid`` keywords of a grid over these player counts
        with each of these policies in every seat (and every value of an axis
        with few, such as MourneQuest's levels): what the contracts of every
        game play (tests/common/test_contract.py)."""

    @abstractmethod
    def replay_cell(self, rules, cfg, seed, game, script=None):
        """Game ``game`` of cell ``cfg`` replayed with its event log; with a
        ``script`` (simcore.witness.Script) its decisions recorded, the
        script's choices played and a person's seat paused at."""

    def warm_up(self):
        """Compile (or load from numba's cache) the kernels the commands play:
        one game simulated by the built-in policies, one replayed, one played
        by the rollout search. What a compile plan records (simcore.warmup)
        and the test session compiles before any test."""
        sim = self.module("sim")
        sim.simulate(games=1, players=2)
        self.replay(players=2)
        sim.simulate(games=1, players=2, **self.rollout_option)

    def __repr__(self):
        return f"<game {self.key}: {self.title} ({self.package})>"

    def __reduce__(self):
        # a Game travels to worker processes inside payloads: by reference
        return (_game_of, (type(self).__module__,))


def _game_of(module):
    """The ``GAME`` of a game's definition module."""
    return importlib.import_module(module).GAME


_GAMES: dict = {}


def games() -> dict:
    """Every installed game by key (the entry-point group ``simcore.games``)."""
    if not _GAMES:
        for ep in metadata.entry_points(group="simcore.games"):
            _GAMES[ep.name] = ep.load()
    return dict(_GAMES)


def get(key) -> Game:
    """The game ``key`` (``mournequest``, ``questmaster``, or another
    installed one); an unknown key is bad input."""
    found = games()
    if key not in found:
        raise InputError(f"unknown game {key!r} (installed: {', '.join(found) or 'none'})")
    return found[key]
