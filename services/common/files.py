"""Input for commands that take a file argument, where ``-`` means standard input."""

from __future__ import annotations

import sys


def read_text(path: str) -> str:
    """The text of ``path`` (UTF-8), or of stdin for ``-``; raises OSError like open()."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()
