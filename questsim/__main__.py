"""``python -m questsim``: the same as the ``questsim`` command."""
from .cli import run

run()
