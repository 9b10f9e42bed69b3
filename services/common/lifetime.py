"""A child process that ends with its parent (Linux): ``make run``'s services, a server's
workers.  Without it, a SIGKILL to the parent (the OOM killer, ``kill -9``, a supervisor that
signals only the main process) leaves the children running: a server's orphaned workers go
on serving its port (SO_REUSEPORT), beside whatever starts there next."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int | None = None) -> bool:
    """Ask the kernel for SIGTERM to this process when its parent dies (a no-op elsewhere
    than Linux).  ``parent_pid``: the parent that started this process; False when it is
    already gone (it died before the request, which then never fires), so the caller ends."""
    if sys.platform == "linux":
        with contextlib.suppress(Exception):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    return parent_pid is None or os.getppid() == parent_pid
