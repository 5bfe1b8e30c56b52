"""numba decorators of the engine kernels: ``kernel`` for those that allocate
nothing, ``needs_nrt`` for those that do, ``inlined`` for hot ones copied
into their callers.

numba reference-counts every array a compiled function receives: each call
between kernels increfs and decrefs the meminfo of each array argument
through out-of-line atomic calls (``NRT_incref``/``NRT_decref``) that its
pruning pass mostly cannot remove. The game kernels pass five to seven
arrays (state, rules, legal codes, generators, parameters, log) on every
call, and these calls took about 70% of Quest Master's run time (a ``perf``
profile; docs/performance.md). A kernel compiled without the runtime
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
"""
from numba import njit

kernel = njit(cache=True, _nrt=False)
needs_nrt = njit(cache=True, _nrt=True)
inlined = njit(cache=True, _nrt=False, inline="always")
