"""MourneQuest as simcore drives it (simcore.game): its modules by part, and
how a stored grid cell becomes a configuration again."""
from simcore.game import Game

_P = "mournesim."


class MourneQuest(Game):
    """MourneQuest: a cooperative game for 1–4 heroes at three levels; a grid
    cell is (level, players, policy) with optional fixed heroes."""
    key = "mournequest"
    title = "MourneQuest"
    package = "mournesim"
    parts = {part: _P + mod for part, mod in dict(
        layout="layout", ruleset="ruleset", tables="tables", engine="game", policies="policies",
        plugins="plugins", sim="sim", replay="replay", batch="batch", report="report", plots="plots",
        viewer="viewer", odds="odds", experiment="experiment", reference="reference", rollout="rollout",
        cli="cli").items()}
    default_batch = 10_000
    compile_estimate = "about 40 seconds on two cores (a minute and a half on one)"
    report_by = "any of docs/mournequest/results.md, or hero"
    players = (1, 4)

    @property
    def action_space(self):
        """Every op times the op base (``layout.code``)."""
        L = self.module("layout")
        return (max(L.OP_NAMES) + 1) * L.OP_BASE

    def replay(self, **kw):
        """``mournesim.replay.replay``: one game with its event log."""
        return self.module("replay").replay(**kw)

    def cell_config(self, cell):
        heroes = () if cell["heroes"] == "random" else tuple(cell["heroes"])
        return self.module("sim").Config(level=cell["level"], players=int(cell["players"]), heroes=heroes,
                                         policy=cell["policy"], params=tuple(cell["params"]))

    def cell_policies(self, cell):
        return (cell["policy"],)

    def sample_config(self):
        return self.module("sim").Config(level="easy", players=3, policy="greedy")

    def grid_axes(self, players, policies):
        return dict(levels=("easy", "medium", "hard"), players=tuple(players), policies=tuple(policies))

    def replay_cell(self, rules, cfg, seed, game, script=None):
        return self.replay(seed=seed, game=game, level=cfg.level, players=cfg.players, heroes=cfg.heroes,
                           policy=cfg.policy, params=cfg.params, rules=rules,
                           script=script)


GAME = MourneQuest()
