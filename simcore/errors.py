"""The one error type for bad input: the command lines print its message on one
line and exit with status 2 (never a traceback)."""


class InputError(Exception):
    """Bad input from the user: a ruleset, an override, a CLI combination, a file."""
