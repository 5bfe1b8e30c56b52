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

    def replay(self, **kw):
        """``questsim.replay.replay``: one game with its event log."""
        return self.module("replay").replay(**kw)

    def cell_config(self, cell):
        chars = () if cell["characters"] == "random" else tuple(cell["characters"])
        return self.module("sim").Config(players=int(cell["players"]), characters=chars,
                                         policies=tuple(cell["policy"].split("+")), params=tuple(cell["params"]))

    def cell_policies(self, cell):
        return tuple(cell["policy"].split("+"))

    def sample_config(self):
        return self.module("sim").Config(players=3, policies=("planner", "greedy", "random"))

    def replay_cell(self, rules, cfg, seed, game):
        return self.replay(seed=seed, game=game, players=cfg.players, characters=cfg.characters,
                           policies=cfg.policies, params=cfg.params, rules=rules)


GAME = QuestMaster()
