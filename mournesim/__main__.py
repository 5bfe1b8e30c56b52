"""``python -m mournesim``: the same as the ``mournesim`` command."""
from .cli import main

main()
