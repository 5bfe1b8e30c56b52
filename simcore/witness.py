"""Decisions in the open: every choice of a replayed game with the legal
options and the position it was made in, a game branched with another
choice, and a seat a person plays.

A replay asked for its decisions (each game's ``replay(script=...)``) runs
its players behind one more entry point, the *witness*: every seat's
parameter row gets three more elements (the address and length of a
buffer this module owns, then the witness's own address, last, where the
engine looks for a policy's entry point), and random and first players,
which the engine plays itself, are turned into entry-point players that
the witness plays exactly as the engine would. For every decision the
witness

- asks the real player (through its entry point's address, the row's old
  last element, with the row exactly as the player always sees it), so the
  player's randomness is drawn as in the game unwitnessed;
- answers the :class:`Script`'s choice where it gives one for this
  decision (a branch), or pauses where the decision is the person's seat's
  and the script has no answer yet; otherwise the player's choice;
- writes the decision to the buffer: its number, who chooses, how many
  events were logged before it, the legal codes, the player's choice, the
  choice played and the state.

With no script choices and no seat, a witnessed game is the game unwitnessed,
event for event (tests/common/test_witness.py). A branch is the same game
up to its first scripted choice; every later decision is numbered in the
branched game. After a pause the game is played on by the players (the
kernel plays whole games) and the caller shows it only up to the pause.

The witness is compiled on its own (not into any engine) and cached beside
this module; what it calls is simcore's core (``fnptr``, ``decision``,
``rng``), which the cache guard watches.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from numba import carray, config, njit, types
from numba.extending import intrinsic

from .decision import POLICY_FIRST, POLICY_PLUGIN, POLICY_RANDOM, random_choice
from .errors import InputError
from .fnptr import FAILED, builtin_address, call_address

# the buffer's header (float64 slots)
H_LOGN, H_STATE, H_HUMAN, H_NSCRIPT, H_COUNT, H_POS, H_PAUSED, H_BAD, H_FULL = range(9)
H_KIND = 16               # the kind of each actor's player, actors 0..15
HEADER = 32               # the script's (decision, code) pairs follow, then the records
REC = 6                   # a record: decision, actor, events before it, n, player's choice, choice played;
#                           then the n legal codes and the state
KIND_CALL, KIND_RANDOM, KIND_FIRST = 0, 1, 2
MAX_ACTORS = HEADER - H_KIND   # actors 0..15 (both games have at most 6)

_BUFFERS = {}             # NUMBA_DISABLE_JIT: address -> the buffer


@intrinsic
def _pointer(typingctx, addr):
    """The float64 pointer at integer address ``addr``."""
    if not isinstance(addr, types.Integer):
        return None
    ptr = types.CPointer(types.float64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(ptr))

    return ptr(addr), codegen


if config.DISABLE_JIT:
    def _buffer(addr, length):
        return _BUFFERS[int(addr)]
else:
    @njit(cache=True)
    def _buffer(addr, length):
        return carray(_pointer(addr), (length,))


@njit(cache=True)
def _scripted(buf, i):
    """The script's choice for decision ``i``, or -1."""
    for k in range(np.int64(buf[H_NSCRIPT])):
        if buf[HEADER + 2 * k] == i:
            return np.int64(buf[HEADER + 2 * k + 1])
    return np.int64(-1)


@njit(cache=True)
def witness(s, T, legal, n, rng, pp, actor):
    """The witness's policy: ``pp`` is a seat's row as the player sees it,
    then the buffer's address and length (the witness's own address, last,
    is left off by its entry point)."""
    w = pp.shape[0]
    buf = _buffer(np.int64(pp[w - 2]), np.int64(pp[w - 1]))
    row = pp[:w - 2]
    i = np.int64(buf[H_COUNT])
    buf[H_COUNT] = i + 1
    kind = np.int64(buf[H_KIND + actor])
    if kind == KIND_RANDOM:
        c = random_choice(legal, n, rng)
    elif kind == KIND_FIRST:
        c = legal[0]
    else:
        c = call_address(np.int64(row[row.shape[0] - 1]), (s, T, legal, n, rng, row, actor))
    if buf[H_PAUSED] >= 0 or buf[H_FULL] > 0 or c == FAILED:
        return c
    played = c
    want = _scripted(buf, i)
    if want >= 0:
        ok = False
        for k in range(n):
            if legal[k] == want:
                ok = True
        if ok:
            played = want
        elif buf[H_BAD] < 0:
            buf[H_BAD] = i
    elif actor == buf[H_HUMAN]:
        buf[H_PAUSED] = i
    ns = np.int64(buf[H_STATE])
    at = np.int64(buf[H_POS])
    if at + REC + n + ns > buf.shape[0]:
        buf[H_FULL] = 1
        return played
    buf[at] = i
    buf[at + 1] = actor
    buf[at + 2] = s[np.int64(buf[H_LOGN])]
    buf[at + 3] = n
    buf[at + 4] = c
    buf[at + 5] = played
    for k in range(n):
        buf[at + REC + k] = legal[k]
    for k in range(ns):
        buf[at + REC + n + k] = s[k]
    buf[H_POS] = at + REC + n + ns
    return played


def witness_entry(s_p, s_n, T_p, T_n, legal_p, legal_n, n, rng_p, rng_n, pp_p, pp_n, actor):
    """The witness behind a C entry point (the games' policies' signature)."""
    return witness(carray(s_p, (s_n,)), carray(T_p, (T_n,)), carray(legal_p, (legal_n,)), n,
                   carray(rng_p, (rng_n,)), carray(pp_p, (pp_n - 1,)), actor)


_ADDRESS = []


def address(arg_spec) -> int:
    """The witness's entry point (compiled the first time, then cached)."""
    if not _ADDRESS:
        _ADDRESS.append(builtin_address(witness_entry, witness, arg_spec))
    return _ADDRESS[0]


SCRIPT = re.compile(r"^(\d{1,6}:\d{1,9})(,\d{1,6}:\d{1,9}){0,199}$")


@dataclass(frozen=True)
class Script:
    """What a person changed in a game: ``choices`` ((decision number,
    legal code), in order), and ``seat``, the actor (hero or seat index)
    whose decisions the person makes (-1: none)."""
    choices: tuple = ()
    seat: int = -1

    @classmethod
    def parse(cls, text: str = "", seat=-1) -> "Script":
        """A script from its address form ``"12:3004,40:1002"`` (one
        InputError line for anything else)."""
        text = (text or "").strip()
        if text and not SCRIPT.match(text):
            raise InputError(f"choices {text[:60]!r}: expected decision:code pairs, such as 12:3004,40:1002")
        pairs = tuple(tuple(int(x) for x in p.split(":")) for p in text.split(",")) if text else ()
        if any(b[0] <= a[0] for a, b in zip(pairs, pairs[1:])):
            raise InputError("choices: decisions must be in increasing order")
        try:
            seat = int(seat)
        except (TypeError, ValueError):
            raise InputError(f"seat {seat!r}: not a whole number") from None
        if not -1 <= seat < MAX_ACTORS:
            raise InputError(f"seat {seat}: out of range")
        return cls(pairs, seat)

    def then(self, decision: int, code: int) -> "Script":
        """This script branched at ``decision`` with ``code``: the choices
        before it kept, the ones after dropped (they were made in a game
        that no longer happens)."""
        return Script(tuple(p for p in self.choices if p[0] < decision) + ((decision, code),), self.seat)


@dataclass
class Decision:
    """One decision of a witnessed game."""
    index: int           # its number in the game, from 0
    actor: int           # who chose (a hero, a seat)
    events: int          # events logged before it
    legal: list          # the legal codes
    policy: int          # what the player chose
    played: int          # what was played (the script's choice, or the player's)
    state: np.ndarray = field(repr=False)   # the state it was made in


def kind_of(pid: int) -> int:
    """How the witness plays a player of policy id ``pid``."""
    return {POLICY_RANDOM: KIND_RANDOM, POLICY_FIRST: KIND_FIRST}.get(int(pid), KIND_CALL)


class Recorder:
    """One witnessed game's buffer: give :meth:`row` each seat's parameter
    row and :meth:`policy_id` each seat's policy id, play the game, then
    read :meth:`decisions`."""

    def __init__(self, script: Script, kinds, state_size: int, logn_slot: int, arg_spec, capacity=None):
        cap = capacity or 4_000 * (REC + 64 + state_size)
        self.script = script
        self.buf = np.zeros(cap, np.float64)
        b = self.buf
        b[H_LOGN], b[H_STATE], b[H_HUMAN], b[H_NSCRIPT] = logn_slot, state_size, script.seat, len(script.choices)
        b[H_PAUSED] = b[H_BAD] = -1
        for a, k in enumerate(kinds):
            b[H_KIND + a] = k
        for k, (i, c) in enumerate(script.choices):
            b[HEADER + 2 * k], b[HEADER + 2 * k + 1] = i, c
        b[H_POS] = HEADER + 2 * len(script.choices)
        self.start = int(b[H_POS])
        self.addr = self.buf.ctypes.data
        if config.DISABLE_JIT:
            _BUFFERS[self.addr] = self.buf
        self.entry = address(arg_spec)

    def row(self, row) -> np.ndarray:
        """A seat's parameter row with the buffer and the witness appended."""
        return np.concatenate([np.asarray(row, np.float64), [float(self.addr), float(len(self.buf)),
                                                               float(self.entry)]])

    @staticmethod
    def policy_id(pid: int) -> int:
        """The policy id the engine must see: random and first are played by
        the witness, so they are asked like a plug-in."""
        return POLICY_PLUGIN if kind_of(pid) != KIND_CALL else int(pid)

    def check(self):
        """Refuse (one InputError line) a script whose choice was not legal,
        or a game whose decisions did not fit (never shown cut short)."""
        b = self.buf
        if b[H_BAD] >= 0:
            i = int(b[H_BAD])
            code = dict(self.script.choices)[i]
            raise InputError(f"choices: {code} is not a legal choice at decision {i} of this game")
        if b[H_FULL] > 0:
            raise InputError("this game has more decisions than a replay holds")
        _BUFFERS.pop(self.addr, None)

    def finish(self, rp, policy_ids: dict, snapshots_slot: int):
        """Replay ``rp`` with this game's decisions (``script``,
        ``decisions``, ``paused``), every position given back the policies'
        own ids (``policy_ids``: state slot -> id) as unwitnessed, and, where
        the game paused for a person, shown up to that decision and never
        beyond (events, snapshots, final state); ``snapshots_slot``: the
        state's count of snapshots taken."""
        self.check()
        rp.script, rp.decisions, rp.paused = self.script, self.decisions(), self.paused
        for st in [rp.final_state, rp.snapshots] + [d.state for d in rp.decisions]:
            for slot, pid in policy_ids.items():
                st[..., slot] = pid
        if rp.paused >= 0:
            d = rp.decisions[-1]
            rp.events, rp.final_state = rp.events[:d.events], d.state.copy()
            rp.snapshots = rp.snapshots[:int(d.state[snapshots_slot])]
        return rp

    @property
    def paused(self) -> int:
        """The decision the game paused at (the person's, unanswered), or -1."""
        return int(self.buf[H_PAUSED])

    def decisions(self) -> list:
        """The decisions in the order they were made."""
        b, ns, out, at = self.buf, int(self.buf[H_STATE]), [], self.start
        while at < int(b[H_POS]):
            n = int(b[at + 3])
            legal = [int(x) for x in b[at + REC:at + REC + n]]
            out.append(Decision(int(b[at]), int(b[at + 1]), int(b[at + 2]), legal, int(b[at + 4]), int(b[at + 5]),
                                b[at + REC + n:at + REC + n + ns].astype(np.int32)))
            at += REC + n + ns
        return out
