"""MourneQuest balance simulator: ruleset data, numba engine, policies, reports."""
__version__ = "0.1.0"
