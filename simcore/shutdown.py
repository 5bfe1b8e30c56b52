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
- A command or worker process that ends skips the interpreter's last
  garbage collections (``skip_final_collection``): a quarter of a second of
  walking numba's, pandas' and scipy's objects just before the memory is
  returned to the system anyway.
"""
from __future__ import annotations

import atexit
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


def worker_init(parent):
    """Initializer of every worker process: ignore Ctrl-C, die with
    ``parent``, and end without the final garbage collections."""
    skip_final_collection()
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
