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
"""
from __future__ import annotations

import ctypes
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


def worker_init(parent):
    """Initializer of every worker process: ignore Ctrl-C, die with ``parent``."""
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
