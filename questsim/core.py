"""Quest Master's basic kernels, used by every other rule module: a seat's
offset in the state, the event log, a die roll, whether the game is over,
the decision point (``ask``: the legal codes to the seat's policy through
``decision.decide``), the legal-code list, a row's race filter and the
effect stack's ``push``.

Every rule kernel takes its arrays in MourneQuest's order,
``(s, T, ev, rng, legal, pp, seat, ...)``, leaving out those it does not
need; ``pp`` has one row of parameters per seat. Rule IDs (QM-*) are those of
shared/rules/questmaster-rules.md; QM-GAP rulings are in docs/questmaster/rulings.md.
"""
import numpy as np

from simcore.jit import inlined, kernel
from simcore.rng import STREAM_DICE, randint
from . import layout as L
from . import tables as TB
from .blunders import declined_win
from .decision import decide, takes_sure_wins



@kernel
def pb(seat):
    return L.G_P + seat * L.PS


@inlined
def log(s, ev, kind, seat, a, b, c, d):
    """Append one event when logging (replay only). Inlined: batch runs log
    nothing, and a call (which passes both arrays field by field) at each of
    the many logging points cost more than the test of the flag."""
    if s[L.G_LOG] == 0:
        return
    i = s[L.G_LOGN]
    if i < ev.shape[0]:
        ev[i, 0] = kind
        ev[i, 1] = s[L.G_ROUND]
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        ev[i, 6] = d
        s[L.G_LOGN] = i + 1


@kernel
def roll(T, rng, die):
    """One face of the red (0) or blue (1) die: 1..6, or a symbol < 0 (QM-MOVE-01/02)."""
    n = T[TB.P_N_FACES_RED + die]
    return T[TB.O_FACES + die * TB.MAX_FACES + randint(rng, STREAM_DICE, n)]


@kernel
def over(s):
    return s[L.G_WIN] != L.WIN_NONE


@inlined
def ask(s, T, legal, n, rng, pp, seat, ctx, arg):
    """Ask ``seat``'s policy to pick one of ``legal[:n]``; an illegal answer
    is counted and replaced by the first legal code. A lone legal code is
    taken without asking; inlined, so that this common case costs no call."""
    s[L.G_CTX] = ctx
    s[L.G_CTX_ARG] = arg
    if n == 1:
        return legal[0]
    # one type for the count and the seat (read from the state as int32 or
    # computed as int64, or a literal): numba compiles a callee once per
    # argument types, and policy_choice carries the policies with it
    return policy_choice(s, T, legal, np.int64(n), rng, pp, np.int64(seat))


@inlined
def declined(s, T, legal, n, pp, seat, ctx, c):
    """Whether choice ``c`` of ``seat`` among ``legal[:n]`` at decision
    ``ctx`` declined a win at once (blunders.declined_win), for the blunder
    counter. Not judged for a player that takes every such win
    (decision.takes_sure_wins): its choice is the win whenever there is one,
    so the answer is no, and judging it would repeat the search its policy
    has just made. Judged as any other once a choice of the game was
    replaced (``G_ILLEGAL``): then the choice may not be the policy's."""
    if takes_sure_wins(s, pp, seat) and s[L.G_ILLEGAL] == 0:
        return False
    return declined_win(s, T, legal, np.int64(n), np.int64(seat), np.int64(ctx), np.int64(c))


@kernel
def policy_choice(s, T, legal, n, rng, pp, seat):
    """The policy's pick for ask (two or more legal codes)."""
    c = decide(s, T, legal, n, rng, pp[seat], seat)
    for i in range(n):
        if legal[i] == c:
            return c
    s[L.G_ILLEGAL] += 1
    return legal[0]


@kernel
def add_legal(legal, n, code):
    """Append ``code`` unless present; returns the new count."""
    for i in range(n):
        if legal[i] == code:
            return n
    legal[n] = code
    return n + 1


@kernel
def race_ok(T, row, race):
    m = T[row + L.E_RACES]
    return m == 0 or (m >> race) & 1 == 1


@kernel
def push(s, start, count):
    """Queue an effect list to resolve before the rest of the current one."""
    if count <= 0:
        return
    i = s[L.G_STK_N]
    if i >= L.MAX_STACK:
        return   # unreachable with the chain limit; a guard, not a rule
    s[L.G_STK + 3 * i] = start
    s[L.G_STK + 3 * i + 1] = count
    s[L.G_STK + 3 * i + 2] = 0
    s[L.G_STK_N] = i + 1
