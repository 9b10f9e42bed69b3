"""Shared by the CLI input tests: run ``cardroom`` in process on edge inputs and check the
answer is a clean exit (0, 1 or 2), never a traceback or an internal error."""

from __future__ import annotations

import io
import sys

import pytest

from services import cli

#: Edge values for any argument or input line.
EDGES: list[str] = [
    "",
    "\x00",
    "a\x00b",
    "9" * 5000,
    str(2**64),
    "-1",
    "nan",
    "[" * 100_000,
    "\udcff\udcfe",  # what Python makes of argv bytes that are not UTF-8
    "é" * 2000,
    "\n\n",
]

#: Edge inputs for a file or stdin.
EDGE_BYTES: list[bytes] = [
    b"",
    b"\x00" * 10,
    bytes(range(256)) * 4,
    b"\xff\xfe{}\n",
    b"[" * 100_000,
    b'{"a":' * 50_000,
    b"9" * 5000,
    b'{"variant": "doudizhu3", "deal": {"seed": "\\u0000"}, "actions": [' + b"[" * 3000 + b"]",
    b'{"variant": "doudizhu3", "deal": {"seed": "\\ud800"}}',
    b'null\n1\n[]\n"x"\n{}\n',
]


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    stdin: bytes = b"",
) -> tuple[int, str, str]:
    """``cardroom argv`` in process: (exit status, stdout, stderr); argparse's own refusals
    (SystemExit) count as their status."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def assert_clean(status: int, err: str, bad: bool = False) -> None:
    """A clean answer: no traceback, no internal error, and for bad input exit 2 with
    bounded lines of reason (one, but for commands that name each bad line of their input)."""
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert status in ((2,) if bad else (0, 1, 2)), (status, err[-2000:])
    if status == 2:
        lines = err.splitlines()
        assert lines and all(len(line) < 1000 for line in lines), err[-2000:]
