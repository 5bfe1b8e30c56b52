"""MourneQuest (mournesim): the rules by rule ID on hand-built positions
(mq_game.py, mq_positions.py), the policies, replays, ruleset and command
line."""
