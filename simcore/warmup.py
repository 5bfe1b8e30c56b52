"""A cold engine compiled on every core, from a recorded compile plan.

numba compiles a kernel the first time it is called, and with it, depth
first, every kernel it calls that is not yet compiled: one process, one core,
the whole engine in one go (about two minutes for MourneQuest here). Most of
that time is spent kernel by kernel (typing, then LLVM), and no kernel
dominates (``docs/common/performance.md``), so the kernels can be shared out
between processes: a kernel one process compiled is in numba's on-disk cache
(``cache=True``), and another process that then needs it loads it instead of
compiling it again.

A *compile plan* (``<package>/data/compile-plan.json``) lists every engine
kernel that a game's :meth:`simcore.game.Game.warm_up` compiles, with the
argument types it is compiled for, the kernels it calls and the seconds its
own compile took when the plan was recorded. :func:`compile_parallel` hands
the kernels to worker processes callees first, the ones on the longest
chain of callers first, so each worker finds what a kernel calls already in
the cache. The plan only says what to compile in which order: the code
compiled is the same as a one-process compile (numba's cache holds the same
kernels either way), so every game is the same too.

The plan is an optimisation and never needed: a kernel it does not list (a
plan older than the engine) is compiled where it is first called, as before,
and a worker that fails stops only the warm-up. Record a new plan after
changing the engine's kernels: ``python -m simcore.warmup record GAME``
(``tests/common/test_warmup.py`` says when it is due).
"""
from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from .shutdown import interrupts_kept, raise_kept

PLAN_NAME = "compile-plan.json"
MAX_WORKERS = 4     # each compiling worker peaks near 1 GiB


# ---- argument types as text ----------------------------------------------------

_ARRAY = re.compile(r"(readonly )?array\((\w+), (\d)d, ([CFA])\)$")   # readonly: a global array
_LITERAL = re.compile(r"Literal\[int\]\((-?\d+)\)$")
_TUPLE = re.compile(r"UniTuple\((\w+) x (\d+)\)$")


def parse_type(text):
    """The numba type written ``text`` (``str()`` of a type), for the types
    engine kernels take: C arrays (read-only too: a module's constant array),
    integers, floats, booleans, their literals, tuples of one type and None.
    ``None`` for anything else."""
    from numba.core import types
    m = _ARRAY.match(text)
    if m:
        dtype = getattr(types, m.group(2), None)
        return (types.Array(dtype, int(m.group(3)), m.group(4), readonly=bool(m.group(1)))
                if isinstance(dtype, types.Number) else None)
    m = _LITERAL.match(text)
    if m:
        return types.literal(int(m.group(1)))
    m = _TUPLE.match(text)
    if m:
        item = parse_type(m.group(1))
        return types.UniTuple(item, int(m.group(2))) if item not in (None, types.none) else None
    if text == "none":          # an argument passed as None, so numba prunes its branches
        return types.none
    if text in ("Literal[bool](True)", "Literal[bool](False)"):
        return types.literal(text.endswith("(True)"))
    t = types.boolean if text == "bool" else getattr(types, text, None)
    return t if isinstance(t, (types.Number, types.Boolean)) else None


def kernel_name(dispatcher) -> str:
    """How a compile plan names a kernel: ``module.function``."""
    return f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"


def _resolve(kernel):
    module, _, attr = kernel.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _cached(kernel):
    from .jitcache import compiled
    try:
        return compiled(_resolve(kernel))
    except (ImportError, AttributeError):
        return False     # a plan older than the engine: the worker says so


# ---- recording -----------------------------------------------------------------

def record(run, packages) -> list:
    """Run ``run()`` (which must compile from an empty cache) and return the
    compile plan (its tasks) of the cached kernels of ``packages`` it compiled: numba's
    compile events give each kernel, its argument types and its own seconds;
    every call typed while a kernel compiles (numba's dispatcher typing,
    compiled callee or not) gives what it calls."""
    from numba.core import event
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    tasks, index, stack = [], {}, []

    def ours(d):
        return d.py_func.__module__.split(".")[0] in packages and not isinstance(d._cache, NullCache)

    def key(d, args):
        return kernel_name(d), tuple(map(str, args))

    def caller():
        # the innermost kernel of ours being compiled (numba's own overloads
        # compile in between and call none of ours)
        return next((f for f in reversed(stack) if f is not None), None)

    class Listener(event.Listener):
        def on_start(self, ev):
            d, args = ev.data["dispatcher"], ev.data["args"]
            if not ours(d):
                stack.append(None)
                return
            k = key(d, args)
            if k not in index:
                index[k] = len(tasks)
                tasks.append({"kernel": k[0], "args": list(k[1]), "calls": set()})
            i = index[k]
            tasks[i].update(t=time.perf_counter(), child=0.0)
            if caller() is not None:
                tasks[caller()]["calls"].add(i)
            stack.append(i)

        def on_end(self, ev):
            i = stack.pop()
            if i is None:
                return
            t = tasks[i]
            whole = time.perf_counter() - t.pop("t")
            t["seconds"] = round(whole - t.pop("child"), 2)     # its own compile, without its callees'
            if caller() is not None:
                tasks[caller()]["child"] += whole

    original = Dispatcher.get_call_template

    def get_call_template(self, args, kws):
        # a call typed inside a kernel's compile: an edge even when the callee
        # is compiled already (no compile event then)
        if ours(self) and caller() is not None:
            k = key(self, args)
            if k in index and index[k] != caller():
                tasks[caller()]["calls"].add(index[k])
        return original(self, args, kws)

    listener = Listener()
    event.register("numba:compile", listener)
    Dispatcher.get_call_template = get_call_template
    try:
        run()
    finally:
        Dispatcher.get_call_template = original
        event.unregister("numba:compile", listener)
    return tasks


def plan_path(game) -> Path:
    """Where ``game``'s compile plan is kept: its package's ``data/``."""
    return Path(importlib.import_module(game.package).__file__).parent / "data" / PLAN_NAME


def load_plan(game) -> list:
    """``game``'s compile plan (its tasks), or ``[]`` when it has none."""
    try:
        return json.loads(plan_path(game).read_text())["tasks"]
    except (OSError, ValueError, KeyError):
        return []


def record_game(key) -> Path:
    """Record the compile plan of the game ``key`` in a new process with an
    empty numba cache, write it to :func:`plan_path`, and return the path."""
    import tempfile
    from .game import get
    game = get(key)
    with tempfile.TemporaryDirectory(prefix="compile-plan-") as cache:
        # an empty numba cache, and plug-ins (rollout) compiled beside it
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, **{f"{game.package.upper()}_CACHE": cache})
        out = Path(cache) / "plan.json"
        subprocess.run([sys.executable, "-m", "simcore.warmup", "_record", key, str(out)], env=env, check=True)
        plan = json.loads(out.read_text())
    path = plan_path(game)
    path.write_text(json.dumps(plan, indent=1) + "\n")
    return path


def _record(key, out):
    import numba
    from . import warmup      # this file runs as __main__ here: the flag that counts is the module's
    from .game import get
    warmup._RECORDING = True
    game = get(key)
    t = time.perf_counter()
    tasks = record(game.warm_up, {game.package, "simcore"})
    for task in tasks:
        task["calls"] = sorted(task["calls"])
    plan = {"game": key, "numba": numba.__version__,
            "about": "simcore.warmup: the kernels Game.warm_up compiles, what each calls, its own compile "
                     "seconds; recorded with `python -m simcore.warmup record " + key + "`",
            "seconds": round(time.perf_counter() - t, 1), "tasks": tasks}
    Path(out).write_text(json.dumps(plan))


# ---- compiling on every core ---------------------------------------------------

_RECORDING = False    # set while a plan is recorded: every kernel must compile in that process
_TRIED = set()        # entry points compile_cold has compiled for in this process: never twice


def compile_cold(game, dispatcher, workers=None, say=None, during=None) -> bool:
    """Before the first call of ``dispatcher`` (an engine entry point of
    ``game``) that numba's cache cannot serve: tell the user (``say``, one
    line; default stderr) what is happening and roughly how long it takes,
    then compile the kernels it needs from ``game``'s plan on ``workers``
    cores, while this process runs ``during`` (compiling the entry points
    of the policies the command plays, which the engine calls by address).
    Returns whether the engine was cold. The CLI (``compile_once``) and the
    Python API (``sim.simulate``, ``replay``) both call it."""
    from .jitcache import compiled
    if compiled(dispatcher):  # (True too without numba: NUMBA_DISABLE_JIT, a plain function)
        return False
    root = kernel_name(dispatcher)
    if root in _TRIED:        # already tried here: what is left compiles where it is called
        return False
    _TRIED.add(root)
    about = f": {game.compile_estimate}" if game.compile_estimate else ""
    (say or _stderr)(f"{game.package}: compiling the game engine with numba, once{about}; "
                     "later runs load it from the cache in about a second")
    if not _RECORDING:
        compile_parallel([load_plan(game)], roots=[root], workers=workers, during=during)
    return True


def _stderr(line):
    print(line, file=sys.stderr, flush=True)


def compile_parallel(plans, roots=(), workers=None, during=None) -> dict:
    """Compile the kernels of ``plans`` (lists of tasks, one per game) into
    numba's cache with ``workers`` processes (default: every core, at most
    :data:`MAX_WORKERS`); with ``roots`` (kernel names), only the kernels
    they need. Kernels already in the cache are skipped. ``during`` (no
    arguments) runs in this process meanwhile. Returns counts:
    ``compiled``, ``failed`` (left to the first call), ``errors`` (why each
    failed: kernel, reason), ``workers`` and ``seconds``."""
    tasks = []
    for plan in plans:
        base = len(tasks)
        tasks += [dict(t, calls=[base + c for c in t["calls"]]) for t in plan]
    keep = set(range(len(tasks)))
    if roots:
        keep, todo = set(), [i for i, t in enumerate(tasks) if t["kernel"] in roots]
        while todo:
            i = todo.pop()
            if i not in keep:
                keep.add(i)
                todo += tasks[i]["calls"]
    keep = {i for i in keep if not _cached(tasks[i]["kernel"])}
    deps = {i: {c for c in tasks[i]["calls"] if c in keep and c != i} for i in keep}
    callers = {i: [] for i in keep}
    for i in keep:
        for c in deps[i]:
            callers[c].append(i)
    rank = {}

    def rank_of(i, seen=()):
        # own seconds plus the longest chain of callers waiting on it
        if i not in rank:
            up = [rank_of(j, seen + (i,)) for j in callers[i] if j not in seen]
            rank[i] = tasks[i].get("seconds", 0.0) + max(up, default=0.0)
        return rank[i]

    pending, running, done = set(keep), set(), set()
    stats = {"compiled": 0, "failed": 0, "errors": []}
    cond = threading.Condition()
    n = max(1, min(workers or os.cpu_count() or 1, MAX_WORKERS, len(keep)))
    t0 = time.perf_counter()
    procs = []
    try:
        for _ in range(n if keep else 0):
            procs.append(subprocess.Popen([sys.executable, "-m", "simcore.warmup", "_worker"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1))
    except OSError:
        pass        # no worker to be had: the engine compiles where it is first called

    def drive(proc):
        while True:
            with cond:
                while True:
                    ready = [i for i in pending if deps[i] <= done]
                    if ready or not pending or not running:
                        break
                    cond.wait()
                if not ready:
                    return
                i = max(ready, key=rank_of)
                pending.discard(i)
                running.add(i)
            try:
                proc.stdin.write(json.dumps({"kernel": tasks[i]["kernel"], "args": tasks[i]["args"]}) + "\n")
                reply = proc.stdout.readline()
            except OSError:
                reply = ""
            with cond:
                running.discard(i)
                done.add(i)       # failed too: its callers compile it themselves
                stats["compiled" if reply.startswith("ok") else "failed"] += 1
                if not reply.startswith("ok"):
                    stats["errors"].append([tasks[i]["kernel"], reply.strip()[len("failed "):] or "the worker died"])
                cond.notify_all()
            if not reply:
                return            # the worker is gone

    threads = [threading.Thread(target=drive, args=(p,), daemon=True) for p in procs]
    try:
        with interrupts_kept():      # a Ctrl-C inside one of LLVM's callbacks is not lost
            for t in threads:
                t.start()
            if during is not None:
                during()
            for t in threads:
                while t.is_alive():     # a timed wait, so Ctrl-C reaches the main thread at once
                    raise_kept()
                    t.join(0.2)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    return dict(stats, workers=len(procs), seconds=time.perf_counter() - t0)


def _worker():
    """A compiling worker: one task a line on stdin (JSON: kernel, args),
    ``ok`` or ``failed`` a line on stdout. It leaves Ctrl-C to its parent,
    which stops it, and dies with it (simcore.shutdown)."""
    from .jitcache import keep_cache_consistent
    from .shutdown import worker_init
    worker_init(os.getppid(), answers_on_stdout=True)
    keep_cache_consistent()       # the workers save overloads of one kernel at once
    for line in sys.stdin:
        job = json.loads(line)
        try:
            sig = tuple(parse_type(a) for a in job["args"])
            if None in sig:
                raise TypeError(f"an argument type simcore.warmup cannot read: {job['args']}")
            _resolve(job["kernel"]).compile(sig)
            print("ok", flush=True)
        except Exception as e:     # noqa: BLE001 - any failure leaves the kernel to its first call
            print(f"failed {type(e).__name__}: {e}".replace("\n", " "), flush=True)


def main(argv):
    """``python -m simcore.warmup record GAME``: record GAME's compile plan."""
    if argv[:1] == ["_worker"]:
        return _worker()
    if argv[:1] == ["_record"]:
        return _record(*argv[1:3])
    from .errors import InputError
    from .game import games
    if len(argv) != 2 or argv[0] != "record" or argv[1] not in games():
        print(f"usage: python -m simcore.warmup record GAME   (GAME: {', '.join(games())})", file=sys.stderr)
        sys.exit(2)
    try:
        path = record_game(argv[1])
    except (InputError, subprocess.CalledProcessError, OSError) as e:
        print(f"simcore.warmup: the plan was not recorded: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"compile plan written to {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
