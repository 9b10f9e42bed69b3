"""Issue 8: every bad input to every rules command exits 2 with a one-line reason, never a
traceback; ``moves`` answers a bad line with ``{"error": …}`` and goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_fuzz import EDGE_BYTES, EDGES, assert_clean, run

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000


def test_settle_on_random_bytes_and_deep_nesting(tmp_path: Path) -> None:
    """The repros, through a real subprocess as a user runs it."""
    rnd = tmp_path / "random.bin"
    rnd.write_bytes(bytes(range(256)) * 40)
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    for path in (rnd, deep):
        proc = subprocess.run(
            [sys.executable, "-m", "services", "settle", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith("cardroom settle: error: ")


def test_moves_answers_a_deep_line_and_goes_on() -> None:
    lines = [
        '{"hand": "3s4s"}',
        DEEP,
        '{"hand": "3s\\u0000"}',
        "9" * 5000,
        '{"hand": "3s3h", "last": "3d"}',
    ]
    stdin = ("\n".join(lines) + "\n").encode() + b"\xff\xfe\n" + b'{"hand": "BJ"}\n'
    proc = subprocess.run(
        [sys.executable, "-m", "services", "moves", "-v", "doudizhu3"],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(answers) == 7
    assert answers[0] == {"moves": ["3s", "4s"]} and answers[4] == {"moves": [""]}
    assert answers[6] == {"moves": ["BJ"]}
    for i in (1, 2, 3, 5):
        assert set(answers[i]) == {"error"}, answers[i]
    assert "deep" in answers[1]["error"] and "UTF-8" in answers[5]["error"]


@pytest.mark.parametrize("data", EDGE_BYTES, ids=range(len(EDGE_BYTES)))
def test_settle_and_moves_on_edge_input(
    data: bytes,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "record"
    path.write_bytes(data)
    for argv in (["settle", str(path)], ["settle", "-"]):
        status, out, err = run(capsys, monkeypatch, argv, data)
        assert_clean(status, err, bad=True)
        assert out == ""
    status, out, err = run(capsys, monkeypatch, ["moves", "-v", "doudizhu3"], data)
    assert_clean(status, err)
    assert status == 0
    for line in out.splitlines():  # one JSON answer per non-blank line
        assert set(json.loads(line)) <= {"moves", "error"}


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_every_rules_command_on_edge_arguments(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = [
        (["classify", "-v", value, "3s"], True),
        (["classify", "-v", "doudizhu3", value], True),
        (["classify", "-v", "doudizhu3", "3s3h", "--as", value], True),
        (["moves", "-v", value], True),
        (["settle", value], True),
        (["simulate", "-v", value, "-n", "1"], True),
        (["simulate", "-v", "doudizhu3", "-n", value], True),
        (["simulate", "-v", "doudizhu3", "-n", "1", "-s", value], False),
        (["simulate", "-v", "zsy1", "-n", "0", "--records", str(tmp_path / "r") + value], False),
        (["loadtest", "-t", value, "-d", value], True),
        (["engine", "serve", "--port", value], True),
        (["engine", "serve", "--grace", value, "--port", "70000"], True),
        (["replay", "serve", "--workers", value, "--port", "-5"], True),
    ]
    for argv, bad in commands:
        status, out, err = run(capsys, monkeypatch, argv)
        assert_clean(status, err, bad=bad)
        if status == 2:
            assert out == "", argv


def test_serve_refuses_unusable_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for flags in (
        ["--grace", "nan"],
        ["--log-level", "bogus"],
        ["--tls-cert", str(tmp_path / "no.pem"), "--tls-key", str(tmp_path / "no.key")],
        ["--workers", "-1"],
        ["--port", str(2**64)],
    ):
        for service in ("engine", "replay"):
            status, out, err = run(capsys, monkeypatch, [service, "serve", *flags])
            assert_clean(status, err, bad=True)
            assert out == ""
