"""numba decorators of the engine kernels: ``kernel`` for those that allocate
nothing, ``needs_nrt`` for those that do, ``inlined`` for hot ones copied
into their callers.

numba reference-counts every array a compiled function receives: each call
between kernels increfs and decrefs the meminfo of each array argument
through out-of-line atomic calls (``NRT_incref``/``NRT_decref``) that its
pruning pass mostly cannot remove. The game kernels pass five to seven
arrays (state, rules, legal codes, generators, parameters, log) on every
call, and these calls took about 70% of Quest Master's run time (a ``perf``
profile; docs/common/performance.md). A kernel compiled without the runtime
(``_nrt=False``) emits none of them; that is safe when it creates no array
(views and slices are fine) and every array it sees is owned by a caller that
outlives the call — true of everything below the batch and replay entry
points, which allocate the game's arrays and keep them until the end.

numba compiles a called function with its caller's runtime setting unless the
function sets its own, so a function that allocates and may be called from a
kernel (a set-up with scratch arrays, a policy, a plug-in's ``decide``) is
decorated with ``needs_nrt``. ``inlined`` is a kernel whose body numba copies
into each caller: for hot functions with one or two callers, and for small
helpers that LLVM leaves as calls (a call passes each array field by field).

One type per argument. numba compiles a callee once for each combination of
argument types its callers pass, and the rule kernels pass the same integer
as int32 (read from the state), int64 (computed) or a literal (``0``,
``True``): the MourneQuest event log was compiled 69 times, Quest Master's
policy call four times with both policies under it (numba's compile events,
docs/common/performance.md). A kernel called that way is split in two: an
``inlined`` front under the public name that casts each scalar argument
(``np.int64``, ``np.bool_``) and calls the ``kernel`` ``_name`` with the body,
compiled once. The values are unchanged, so every game is too.
"""
from numba import njit

kernel = njit(cache=True, _nrt=False)
needs_nrt = njit(cache=True, _nrt=True)
inlined = njit(cache=True, _nrt=False, inline="always")
