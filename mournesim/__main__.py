"""``python -m mournesim``: the same as the ``mournesim`` command."""
from .cli import run

run()
