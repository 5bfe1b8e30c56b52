"""Machinery both games share: seeded random streams, statistics, dotted-path
overrides and the error type that the command lines turn into exit status 2."""
