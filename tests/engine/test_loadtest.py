"""The load generator against the in-process server: a short run of each mode."""

from __future__ import annotations

import json
import socket

import pytest

from services.cli import main
from services.common.server import BackgroundServer
from services.engine import loadtest


def test_apply_and_baseline_runs(server: BackgroundServer) -> None:
    for rpc in ("baseline", "apply"):
        result = loadtest.run(server.target, rpc, concurrency=2, duration=1.0, processes=1)
        summary = result.summary()
        assert summary["requests"] > 0 and not summary["errors"], summary
        assert summary["p99_ms"] >= summary["p50_ms"] > 0
    assert "Apply" in summary["methods"]


def test_summary_counts_successful_calls_only() -> None:
    result = loadtest.Result("baseline", 2.0, requests=10)
    result.errors["Ping:UNAVAILABLE"] = 4
    result.latencies["Ping"] = [1.0] * 6
    s = result.summary()
    assert (s["succeeded"], s["failed"], s["rps"], s["error_rate"]) == (6, 4, 3.0, 0.4)
    assert loadtest.Result("baseline", 1.0).error_rate == 1.0  # no call at all is a failure


def test_against_a_dead_address_it_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 8: it used to report 32,000 req/s, 100% UNAVAILABLE, and exit 0."""
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = ["loadtest", "-t", f"127.0.0.1:{port}", "-d", "0.5", "-c", "2", "--processes", "1"]
    status = main([*argv, "--json"])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert status == 1 and summary["succeeded"] == 0 and summary["rps"] == 0.0
    assert "calls failed" in err and "UNAVAILABLE" in err and "Traceback" not in err
    # Tolerating every failure is the caller's choice.
    assert main([*argv, "--max-error-rate", "1"]) == 0


def test_a_clean_run_exits_0(server: BackgroundServer, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["loadtest", "-t", server.target, "-d", "0.5", "-c", "2", "--processes", "1"]
    assert main([*argv, "--rpc", "baseline"]) == 0
    capsys.readouterr()
    # Games whose Applies ask for only what changed (history_delta) run as cleanly.
    assert main([*argv, "--history-delta", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["methods"]["Apply"]["requests"] > 0


@pytest.mark.parametrize(
    "flags",
    [
        ["--concurrency", "0"],
        ["--concurrency", str(10**30)],
        ["--processes", "100000"],
        ["--duration", "nan"],
        ["--duration", "inf"],
        ["--duration", "-1"],
        ["--rate", "nan"],
        ["--max-error-rate", "2"],
        ["--max-error-rate", "-0.1"],
        ["--variant", "nope"],
        ["--target", "bad\x00target"],
        ["--target", ""],
        ["--concurrency", "x"],
    ],
)
def test_bad_flags_exit_2(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(["loadtest", *flags])
    except SystemExit as exc:  # argparse's own refusals exit by raising
        status = exc.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err


def test_a_paced_task_keeps_its_phase_after_a_stall() -> None:
    """Each paced task calls on its own grid of slots, started a fraction of an interval
    after the one before: a call that overran (a stall of the server) waits for the next slot
    of its own grid, so tasks held up together do not go on together, in bursts."""
    grid = loadtest._Grid(start=100.0, interval=0.05)
    assert grid.wait_at(100.01) == pytest.approx(0.04)  # a quick call: the next slot
    assert grid.wait_at(100.123) == pytest.approx(0.027)  # overran two slots: the third
    # Two tasks a quarter interval apart, both held up by the same stall until 101.003: they
    # go on at their own slots, still a quarter interval apart (not both at once).
    other = loadtest._Grid(start=100.0125, interval=0.05)
    first, second = (101.003 + g.wait_at(101.003) for g in (grid, other))
    assert (first, second) == (pytest.approx(101.05), pytest.approx(101.0125))
