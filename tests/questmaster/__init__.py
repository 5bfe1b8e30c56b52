"""Quest Master (questsim): the rules by rule ID on hand-built positions
(qm_game.py), the policies, replays, ruleset and command line."""
