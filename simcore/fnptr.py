"""Plug-in policies called through a function pointer, so the engine is
compiled once for every policy.

numba cannot cache a kernel that calls a user's function it knows at compile
time, and a first-class function argument would have to be threaded through
every kernel that may ask a policy. Instead a plug-in policy is compiled on
its own, behind a C entry point (``@cfunc``), and its address travels to the
engine as data: the last element of the policy's parameter vector ``pp``.
The engine's ``decide`` calls that address with :func:`call_address`, an
intrinsic that passes each array as (data pointer, length) and each integer
as int64. The engine's cache never depends on the plug-in, and a plug-in
compiles in seconds (its own function and what it calls), cached like the
engine under ``$MOURNESIM_CACHE`` / ``$QUESTSIM_CACHE``.

Both games' built-in greedy and planner are called the same way
(:func:`builtin_address`, each game's ``entries.py``), so an engine holds
no policy: numba links a callee's code into every kernel that calls it and
optimises it again there, so a policy called from the rule kernels was most
of the engine's compile.

A plug-in's exception cannot cross a C call, so the entry point catches it
and returns :data:`FAILED`; the engine then plays its first legal choice and
sets the :data:`FAILED_BIT` of the game's illegal-choice count, and the
caller refuses the run with one line naming the policy. (Under
``NUMBA_DISABLE_JIT=1`` the plug-in is called directly and its exception
propagates with its type and message.)
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import config, types
from numba.extending import intrinsic

from .generated import generated_package

FAILED = -2147483647         # an entry point's answer when the plug-in raised (never a legal code)
FAILED_BIT = 1 << 24         # or-ed into a game's illegal-choice count when that happened
_PY = {}                     # NUMBA_DISABLE_JIT: address -> the plug-in's Python function


def _arg_kinds(args):
    """Each argument's C parameters: an array gives (pointer, int64 length), an integer int64."""
    kinds = []
    for ty in args:
        if isinstance(ty, types.Array) and ty.ndim == 1 and ty.layout in "CA":
            kinds.append("array")
        elif isinstance(ty, (types.Integer, types.Boolean)):
            kinds.append("int")
        else:
            return None
    return kinds


@intrinsic
def _call(typingctx, addr, args):
    """Call the C function at ``addr`` with the tuple ``args``; returns int32."""
    if not isinstance(addr, types.Integer) or not isinstance(args, types.BaseTuple):
        return None
    kinds = _arg_kinds(args.types)
    if kinds is None:
        return None

    def codegen(context, builder, signature, llargs):
        addr_v, tup = llargs
        vals, tys = [], []
        for i, (ty, kind) in enumerate(zip(args.types, kinds)):
            v = builder.extract_value(tup, i)
            if kind == "array":
                a = context.make_array(ty)(context, builder, value=v)
                vals += [a.data, builder.extract_value(a.shape, 0)]
                tys += [a.data.type, ir.IntType(64)]
            else:
                vals.append(context.cast(builder, v, ty, types.int64))
                tys.append(ir.IntType(64))
        fn = builder.inttoptr(context.cast(builder, addr_v, addr, types.int64),
                              ir.FunctionType(ir.IntType(32), tys).as_pointer())
        return builder.call(fn, vals)

    return types.int32(addr, args), codegen


if config.DISABLE_JIT:
    def call_address(addr, args):
        """Call the plug-in registered at ``addr`` (pure Python engine)."""
        return _PY[int(addr)](*args)
else:
    call_address = _call


_ENTRY = '''"""Generated: the C entry point of plug-in policy {name!r} ({source})."""
import importlib
import importlib.util
import sys

from numba import carray, cfunc, njit, types

FAILED = {failed}

if {module!r} not in sys.modules:
    try:   # an installed module
        importlib.import_module({module!r})
    except ImportError:   # a plug-in file
        _spec = importlib.util.spec_from_file_location({module!r}, {source!r})
        _mod = importlib.util.module_from_spec(_spec)
        sys.modules[{module!r}] = _mod
        _spec.loader.exec_module(_mod)
plugin_choose = getattr(sys.modules[{module!r}], {func!r})


@njit(cache=True)
def guarded({params}):
    # an exception cannot cross the C call: answer FAILED instead
    try:
        return plugin_choose({params})
    except Exception:
        return FAILED


@cfunc(types.int32({c_types}), cache=True)
def entry({c_params}):
    return guarded({rebuilt})
'''


def entry_address(info, arg_spec, cache_dir, prefix, extra_key=b""):
    """Compile (or load from the cache) plug-in ``info``'s C entry point and
    return its address. ``arg_spec``: the policy's arguments in order, each
    ``(name, dtype)`` for a 1-D array or ``(name, None)`` for an integer —
    the order the engine passes them to :func:`call_address`."""
    py = getattr(info.func, "py_func", info.func)
    if config.DISABLE_JIT:
        addr = (id(py) % (1 << 40)) + 1
        _PY[addr] = py
        return addr
    params, c_types, c_params, rebuilt = [], [], [], []
    for name, dtype in arg_spec:
        params.append(name)
        if dtype is None:
            c_types.append("types.int64")
            c_params.append(name)
            rebuilt.append(name)
        else:
            c_types += [f"types.CPointer(types.{dtype})", "types.int64"]
            c_params += [f"{name}_p", f"{name}_n"]
            rebuilt.append(f"carray({name}_p, ({name}_n,))")
    src = _ENTRY.format(name=info.name, source=str(Path(info.source).resolve()), module=info.module,
                        func=py.__name__, failed=FAILED, params=", ".join(params),
                        c_types=", ".join(c_types), c_params=", ".join(c_params), rebuilt=", ".join(rebuilt))
    h = hashlib.sha256(src.encode() + Path(info.source).read_bytes() + extra_key)
    mod = generated_package(cache_dir, f"{prefix}_{info.name}_{h.hexdigest()[:12]}",
                            {"__init__.py": f'"""Generated entry point of plug-in policy {info.name!r}."""\n',
                             "entry.py": src}, "entry")
    return mod.entry.address


def c_signature(arg_spec):
    """The numba signature of a C entry point for a policy taking ``arg_spec``
    (see :func:`entry_address`): int32 of (pointer, int64 length) per array,
    int64 per integer."""
    args = []
    for _, dtype in arg_spec:
        args += [types.CPointer(getattr(types, dtype)), types.int64] if dtype else [types.int64]
    return types.int32(*args)


def builtin_address(entry, policy, arg_spec):
    """The address of a built-in policy's C entry point ``entry`` (a plain
    module-level function of :func:`c_signature`'s parameters that rebuilds
    the arrays and calls ``policy`` with ``pp`` less its last element, this
    address), compiled the first time and cached with its module's kernels.
    Under ``NUMBA_DISABLE_JIT`` an address standing for ``policy`` itself."""
    if config.DISABLE_JIT:
        at = [name for name, _ in arg_spec].index("pp")

        def python_entry(*args):
            args = list(args)
            args[at] = args[at][:-1]
            return policy(*args)
        addr = (id(entry) % (1 << 40)) + 1
        _PY[addr] = python_entry
        return addr
    from numba import cfunc
    return cfunc(c_signature(arg_spec), cache=True)(entry).address


def refuse_failed(counts, policy):
    """Refuse (one InputError line) games in which a plug-in raised: ``counts``
    are illegal-choice counts as the kernels wrote them."""
    if (np.asarray(counts) & FAILED_BIT).any():
        from .errors import InputError
        raise InputError(f"policy {policy} failed while playing: it raised an exception in its numba code "
                         "(run with NUMBA_DISABLE_JIT=1 to see the exception and where)")


def refuse_bad_choices(counts, policy):
    """Refuse (one InputError line) games in which ``policy`` raised
    (:func:`refuse_failed`) or returned a choice that was not legal: the
    engine played its first legal choice instead, so the game is not the
    policy's and is never shown as if it were. ``counts``: the games'
    illegal-choice counts as the kernels wrote them (one game's, or a
    batch's)."""
    refuse_failed(counts, policy)
    counts = np.atleast_1d(counts)
    bad = int((counts > 0).sum())
    if bad:
        from .errors import InputError
        where = f"in {bad} of {len(counts)} games" if len(counts) > 1 else f"{int(counts[0])} time(s) in this game"
        raise InputError(f"policy {policy}: returned an action that was not legal {where} "
                         "(the engine played its first legal choice instead)")
