"""What every ``cardroom`` command shares: its file-or-stdin input and its error exit."""

from __future__ import annotations

import sys


def read_text(path: str) -> str:
    """The text of ``path`` (UTF-8), or of stdin for ``-``; raises OSError like open()."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def fail(command: str, message: str, status: int = 2) -> int:
    """Say on stderr what was wrong with a command's input; the exit status to return."""
    print(f"cardroom {command}: error: {message}", file=sys.stderr)
    return status
