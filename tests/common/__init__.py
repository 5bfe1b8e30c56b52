"""Tests over both games: the contracts (through each game's adapter), the
shared machinery (grid runs, experiments, faults, start-up, viewer,
publishing) and simcore."""
