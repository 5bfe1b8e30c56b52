"""Quest Master as simcore drives it (simcore.game): its modules by part, and
how a stored grid cell becomes a configuration again."""
from simcore.game import Game

_P = "questsim."


class QuestMaster(Game):
    """Quest Master: a race for 2–6 players; a grid cell is (players, policy
    table), one policy per seat joined by ``+``, with optional fixed
    characters."""
    key = "questmaster"
    title = "Quest Master"
    package = "questsim"
    parts = {part: _P + mod for part, mod in dict(
        layout="layout", ruleset="ruleset", tables="tables", engine="engine", policies="policies",
        plugins="plugins", sim="sim", replay="replay", batch="batch", report="report", plots="plots",
        viewer="viewer", odds="odds", experiment="experiment", reference="reference", rollout="rollout",
        cli="cli").items()}
    default_batch = 20_000
    rollout_option = {"policies": ("rollout",)}
    expert_option = {"policies": ("expert",)}
    compile_estimate = "about half a minute on two cores"
    report_by = "character, position, or any result column"
    players = (2, 6)

    @property
    def action_space(self):
        """Every op times the op base (``layout.code``)."""
        L = self.module("layout")
        return len(L.ACTION_NAMES) * L.OPB

    def replay(self, **kw):
        """``questsim.replay.replay``: one game with its event log."""
        return self.module("replay").replay(**kw)

    def warm_up(self):
        """The games of :meth:`simcore.game.Game.warm_up` (simulated,
        replayed, searched by rollout), and the three inlined kernels the
        rule tests call from Python, for the argument types the engine passes
        (numba compiles an inlined kernel called from Python on its own:
        about 30 s for ``take_turn``)."""
        super().warm_up()
        from numba import types as t
        from . import engine as E
        def a(d, n=1):
            return t.Array(d, n, "C")
        sig = (a(t.int32), a(t.int32), a(t.int32, 2), a(t.uint64), a(t.int32), a(t.float64, 2), t.int64)
        for kernel in (E.take_turn, E.duel, E.resolve):
            kernel.compile(sig)

    def cell_config(self, cell):
        chars = () if cell["characters"] == "random" else tuple(cell["characters"])
        return self.module("sim").Config(players=int(cell["players"]), characters=chars,
                                         policies=tuple(cell["policy"].split("+")), params=tuple(cell["params"]))

    def cell_policies(self, cell):
        return tuple(cell["policy"].split("+"))

    def sample_config(self):
        return self.module("sim").Config(players=3, policies=("planner", "greedy", "random"))

    def grid_axes(self, players, policies):
        return dict(players=tuple(players), tables=tuple((p,) for p in policies))

    def replay_cell(self, rules, cfg, seed, game, script=None):
        return self.replay(seed=seed, game=game, players=cfg.players, characters=cfg.characters,
                           policies=cfg.policies, params=cfg.params, rules=rules,
                           script=script)


GAME = QuestMaster()
