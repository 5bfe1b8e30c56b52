"""The test suite: ``common/`` (the contracts over both games, the shared
machinery, simcore), ``mournequest/`` and ``questmaster/``; session set-up in
``conftest.py``, golden digests in ``golden/``."""
