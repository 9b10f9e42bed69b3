"""Processes of a test's own process tree, read from Linux /proc: which children a process
has, whether one still runs, waiting for some to end."""

from __future__ import annotations

import time
from pathlib import Path


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(x) for x in text)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped


def wait_gone(pids: list[int], timeout: float = 30.0) -> list[int]:
    """Those of ``pids`` still running after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if alive(p)]
