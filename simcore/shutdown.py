"""How a run ends, whatever ends it.

- In the main process, SIGTERM becomes the same orderly stop as Ctrl-C
  (``Terminated`` is a KeyboardInterrupt): the workers are stopped, every
  finished batch stays on disk, and one line says how to resume.
- Worker processes ignore Ctrl-C (the terminal sends it to the whole process
  group; the parent decides) and die with their parent: on Linux the kernel
  kills them the moment the parent dies (``PR_SET_PDEATHSIG``), even after
  ``kill -9``; elsewhere a watchdog thread notices the parent is gone between
  batches. No worker, and so no multiprocessing resource tracker (which waits
  for the workers), outlives the run.
- During a compile, a Ctrl-C or SIGTERM is kept as well as raised
  (``interrupts_kept``): numba's compile runs Python inside LLVM's
  callbacks (ctypes), and ctypes prints and drops an exception raised
  there, so an interruption landing in one would be lost and the compile go
  on; a kept one is raised again at the compile's next step (each of
  numba's compiler passes and each function it compiles is one) and at
  each check of the compile's own loops.
- A command or worker process that ends skips the interpreter's last
  garbage collections (``skip_final_collection``): a quarter of a second of
  walking numba's, pandas' and scipy's objects just before the memory is
  returned to the system anyway.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop the run like Ctrl-C (exit status 143 instead of 130)."""


def exit_status(exc) -> int:
    """The exit status for an interruption: 143 after SIGTERM, else 130."""
    while exc is not None:
        if isinstance(exc, Terminated):
            return 128 + signal.SIGTERM
        exc = exc.__cause__ or exc.__context__
    return 128 + signal.SIGINT


def _terminated(signum, frame):
    raise Terminated()


def terminate_as_interrupt():
    """Make SIGTERM raise ``Terminated`` in the main thread (a no-op elsewhere)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)


_KEPT: dict = {"depth": 0, "signal": None, "handlers": {}}


def _keep(signum, frame):
    _KEPT["signal"] = signum
    _KEPT["handlers"][signum](signum, frame)     # raises KeyboardInterrupt (Terminated)


@contextlib.contextmanager
def interrupts_kept():
    """Within: a Ctrl-C (or SIGTERM, in a command) raises as before, and is
    also kept, so that :func:`raise_kept` raises it again if it was lost.
    numba runs Python inside LLVM's callbacks (ctypes) while it compiles and
    loads kernels, and ctypes prints and drops an exception raised in one: a
    Ctrl-C that lands there would vanish and the compile go on. A kept
    interruption is raised again at the start and end of each of numba's
    compiler passes and of each function it compiles (its ``numba:run_pass``
    and ``numba:compile`` events), so a compile in this process stops within
    a pass (CI once waited a whole engine compile, over 60 s, when only the
    compile's own loops checked), and on leaving the block. Only the main
    thread can take signals; elsewhere, and when nested, this does nothing."""
    if _KEPT["depth"] or threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    handlers = {s: h for s, h in handlers.items() if callable(h)}   # not SIG_DFL / SIG_IGN
    _KEPT.update(depth=1, signal=None, handlers=handlers)
    for s in handlers:
        signal.signal(s, _keep)
    try:
        with _raised_at_each_compile_step():
            yield
        raise_kept()
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        _KEPT.update(depth=0, signal=None, handlers={})


@contextlib.contextmanager
def _raised_at_each_compile_step():
    """Within: numba's compiler raises a kept interruption at the start and
    end of each pass and of each function it compiles (not at the end of
    one an exception already leaves)."""
    from numba.core import event

    class Step(event.Listener):
        def on_start(self, ev):
            raise_kept()

        def on_end(self, ev):
            if sys.exc_info()[0] is None:       # not while an exception leaves the step
                raise_kept()

    with event.install_listener("numba:run_pass", Step()), event.install_listener("numba:compile", Step()):
        yield


def raise_kept():
    """Raise the interruption :func:`interrupts_kept` kept, if there is one
    (a no-op otherwise): for the loops of a compile to call between steps."""
    signum = _KEPT["signal"]
    if signum is not None:
        _KEPT["signal"] = None
        _KEPT["handlers"][signum](signum, None)


def _watch_parent(parent):
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def skip_final_collection():
    """Spare this process, which ends when its work does, the interpreter's
    final garbage collections: freeze the objects alive now (the imports),
    and at exit all the rest.

    Python collects every tracked object at exit, and again while it clears
    the modules; with numba, pandas and scipy loaded that was 0.27 s of a
    1.6 s ``simulate --games 1``, and the 0.06 s of full collections during
    the run walked the same imports. Frozen objects are never collected:
    what the process writes is closed explicitly, standard output is flushed
    by the interpreter, atexit handlers still run, and the memory goes back
    to the system when the process ends. Only for processes that end: a
    test calling a command in-process does not call this.
    """
    gc.freeze()
    atexit.register(gc.freeze)


def worker_init(parent, answers_on_stdout=False):
    """Initializer of every worker process: ignore Ctrl-C, die with
    ``parent``, end without the final garbage collections, and (unless it
    ``answers_on_stdout``, as a compiling worker does) print only to
    standard error: a game's worker has nothing for standard output, which
    carries the command's own output, so what a plug-in prints there, at
    Python's level or C's, goes to standard error."""
    skip_final_collection()
    if not answers_on_stdout:
        try:
            os.dup2(2, 1)
            sys.stdout = sys.stderr
        except OSError:       # no standard error to write to: leave them be
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:      # the parent died before the line above
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="watch-parent").start()
