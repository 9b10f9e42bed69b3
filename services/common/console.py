"""What every ``cardroom`` command shares: its file-or-stdin input, JSON parsing that turns
every malformed input into one :class:`BadInput` (never a traceback), and its error exit.

Bad input is anything a user can hand a command: bytes that are not UTF-8, JSON that is not
JSON, nested deeper than Python's parser recurses, or holding an integer too long to convert.
Each becomes a one-line reason and exit status 2.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

#: Longest message ``fail`` prints: a reason, not a dump of the input.
MAX_MESSAGE = 300


class BadInput(ValueError):
    """Input a command cannot use; ``str()`` is a one-line reason."""


def read_bytes(path: str) -> bytes:
    """The bytes of ``path``, or of stdin for ``-``; raises OSError like open(), and
    BadInput for a path no file can have (a NUL byte in it)."""
    if path == "-":
        return (
            sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        )
    try:
        with open(path, "rb") as f:
            return f.read()
    except ValueError:
        raise BadInput(f"no file can be named {path!r}") from None


def decode(data: bytes) -> str:
    """``data`` as UTF-8; BadInput (naming the byte offset) when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"not UTF-8 text (byte {exc.start})") from None


def read_text(path: str) -> str:
    """The text of ``path`` (UTF-8), or of stdin for ``-``; raises OSError like open(), and
    BadInput when the bytes are not UTF-8."""
    return decode(read_bytes(path))


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` with every way it can fail turned into BadInput."""
    if isinstance(text, bytes):
        text = decode(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise BadInput("not usable JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more digits than int() converts
        if "digits" in str(exc):
            raise BadInput("not usable JSON: an integer with too many digits") from None
        raise BadInput(f"not usable JSON: {exc}") from None


def lines_of(stream: Any) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of a binary (or text) stream as bytes, numbered from 1."""
    for number, line in enumerate(stream, 1):
        raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape")
        if raw.strip():
            yield number, raw


def one_line(message: str) -> str:
    """``message`` on one line, control characters escaped, at most MAX_MESSAGE characters."""
    out = "".join(
        c if c.isprintable() or c == " " else repr(c)[1:-1] for c in " ".join(message.split())
    )
    return out if len(out) <= MAX_MESSAGE else out[: MAX_MESSAGE - 1] + "…"


def fail(command: str, message: str, status: int = 2) -> int:
    """Say on stderr, in one line, what was wrong with a command's input; the exit status."""
    print(f"cardroom {command}: error: {one_line(message)}", file=sys.stderr)
    return status


class Progress:
    """A plain-text progress bar on stderr for every long command (simulate, replay import,
    the arena): \\r updates on a terminal, else a line per 10%."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total = max(total, 1)
        self.stream = stream
        self.tty = stream.isatty()
        self.last_decile = 0  # the first line at 10%, not "1/N games (0%)"
        self.last_draw = 0.0

    def update(self, done: int) -> None:
        frac = done / self.total
        if self.tty:
            now = time.monotonic()
            if done != self.total and now - self.last_draw < 0.1:
                return
            self.last_draw = now
            bar = "#" * int(frac * 30)
            self.stream.write(f"\r[{bar:<30}] {done}/{self.total} games")
            if done == self.total:
                self.stream.write("\n")
            self.stream.flush()
            return
        decile = int(frac * 10)
        if decile != self.last_decile:
            self.last_decile = decile
            self.stream.write(f"{done}/{self.total} games ({decile * 10}%)\n")
            self.stream.flush()
