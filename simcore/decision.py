"""The decision port's common part: the policy ids every game shares, the
arguments a policy receives, and the two ways the engine gets a choice.

A game's rule kernels ask a player for a choice through the game's own
``decision.decide``, which reads the active policy's id from the state and
either plays it there (``first``; ``random`` by :func:`random_choice`) or
calls the policy's compiled entry point through the address stored as the
last element of the policy's parameter vector ``pp`` (:func:`ask_entry`,
:mod:`simcore.fnptr`). Built-in greedy and planner players are called that
way too, so a game's rules import no player. What differs between the games
stays in theirs: where the policy id and the illegal-choice count live in
the state, and Quest Master's per-seat players and v2 ids.
"""
import numpy as np

from .fnptr import FAILED, FAILED_BIT, call_address
from .jit import inlined
from .rng import STREAM_POLICY, randint

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_FIRST = 2     # always the first legal choice: scripted positions in tests, not offered on the CLI
POLICY_PLANNER = 3
POLICY_PLUGIN = 100  # a plug-in policy, called through its entry point's address


def arg_spec(actor):
    """A policy's arguments, in the order the engine passes them to its entry
    point (C types: :func:`simcore.fnptr.c_signature`; an array is (pointer,
    length), ``None`` an integer): the state, the rules array, the legal
    codes and their count, the generators, the parameter vector (its last
    element the entry point's address) and ``actor``, who chooses (a hero, a
    seat)."""
    return (("s", "int32"), ("T", "int32"), ("legal", "int32"), ("n", None), ("rng", "uint64"),
            ("pp", "float64"), (actor, None))


@inlined
def ask_entry(s, T, legal, n, rng, pp, actor, illegal_at):
    """The choice of the policy whose entry point's address is ``pp``'s last
    element. If the policy raised, its entry point answers :data:`FAILED`:
    then ``s[illegal_at]`` gets :data:`FAILED_BIT` (the caller refuses the
    run) and the first legal choice is played."""
    c = call_address(np.int64(pp[pp.shape[0] - 1]), (s, T, legal, n, rng, pp, actor))
    if c == FAILED:
        s[illegal_at] |= FAILED_BIT
        return legal[0]
    return c


@inlined
def random_choice(legal, n, rng):
    """One of ``legal[:n]``, uniformly, from the policy stream."""
    return legal[randint(rng, STREAM_POLICY, n)]
