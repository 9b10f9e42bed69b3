"""Engine service benchmark: Apply next to the empty-RPC baseline, on one server, in one run.

For the bench runner (``python -m bench``), register::

    from bench.engine_bench import run_engine_bench
    rows = run_engine_bench(duration=5.0)   # list of dicts, one per measurement

It starts ``cardroom engine serve`` (one worker per core, access log on, sent to /dev/null)
on a free local port, runs ``cardroom loadtest`` for ``baseline`` (Ping) and ``apply`` (real
games: NewGame, ListLegalActions, Apply) flat out, then ``apply`` again paced at 70% of the
rate it reached, for the latency at a sustainable load.  Each row has ``name``, ``rps``,
``p50_ms``, ``p95_ms``, ``p99_ms``, ``errors``; the apply row also ``ratio_to_baseline``.
Goal (issue 4): game RPCs ≥ 0.7× the baseline and ≥ 3,000 req/s; p99 < 25 ms at 70%.

Issue 14 measures one engine worker against one load process, with ``history_delta`` on every
Apply (``run_engine_bench(workers=1, processes=1, history_delta=True)``): the game-call mix as
a ratio to Ping's rate, and Apply alone as Ping's median latency over Apply's (the same
concurrency, the same server, the same run), each ≥ 0.7×.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.engine import loadtest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(target: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError("engine server exited")
            try:
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == 1:
                    return
            except grpc.RpcError:
                time.sleep(0.1)
    raise RuntimeError("engine server did not become healthy")


def _row(name: str, summary: dict[str, Any]) -> dict[str, Any]:
    row = {k: summary[k] for k in ("rps", "p50_ms", "p95_ms", "p99_ms")}
    row["name"] = name
    row["errors"] = sum(summary["errors"].values())
    apply = summary["methods"].get("Apply")
    if apply:
        row["apply_rps"] = apply["rps"]
        row["apply_p50_ms"] = apply["p50_ms"]
        row["apply_p99_ms"] = apply["p99_ms"]
    return row


def run_engine_bench(
    duration: float = 5.0,
    concurrency: int = 32,
    processes: int = 2,
    workers: int = 0,
    history_delta: bool = False,
) -> list[dict[str, Any]]:
    port = _free_port()
    target = f"127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "services", "engine", "serve", "--port", str(port)]
    cmd += ["--workers", str(workers), "--log-format", "json"]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, env=dict(os.environ))
    try:
        _wait_healthy(target, proc)
        base = loadtest.run(target, "baseline", concurrency, duration, processes).summary()
        full = loadtest.run(
            target, "apply", concurrency, duration, processes, history_delta=history_delta
        ).summary()
        paced = loadtest.run(
            target,
            "apply",
            concurrency,
            duration,
            processes,
            rate=0.7 * full["rps"],
            history_delta=history_delta,
        ).summary()
    finally:
        proc.terminate()
        proc.wait(15)
    rows = [_row("engine baseline (Ping)", base), _row("engine apply (games)", full)]
    rows[1]["ratio_to_baseline"] = round(full["rps"] / base["rps"], 3) if base["rps"] else 0.0
    if rows[1].get("apply_p50_ms"):
        # Apply alone: Ping's median latency over Apply's, the same concurrency and server.
        rows[1]["apply_latency_ratio"] = round(base["p50_ms"] / rows[1]["apply_p50_ms"], 3)
    rows.append(_row("engine apply at 70% rate", paced))
    return rows


if __name__ == "__main__":
    for r in run_engine_bench():
        print(r)


def engine_section(ctx: Any) -> list[Any]:
    """The ``engine`` section of ``python -m bench``: the rows above as a table, then issue
    14's one-worker, one-load-process run with ``history_delta``."""
    duration = 2.0 if ctx.quick else 5.0
    tables = [_table(run_engine_bench(duration=duration), duration)]
    one = run_engine_bench(duration=duration, processes=1, workers=1, history_delta=True)
    tables.append(_one_worker_table(one, duration))
    return tables


def _table(rows: list[dict[str, Any]], duration: float) -> Any:
    from .common import Table

    table = Table(
        "Engine service: game calls next to the empty-RPC baseline (same server, same run)",
        ["load", "req/s", "p50 ms", "p95 ms", "p99 ms", "Apply req/s", "vs baseline", "errors"],
    )
    for r in rows:
        table.rows.append(
            [
                r["name"],
                f"{r['rps']:,.0f}",
                f"{r['p50_ms']:.1f}",
                f"{r['p95_ms']:.1f}",
                f"{r['p99_ms']:.1f}",
                f"{r['apply_rps']:,.0f}" if "apply_rps" in r else "",
                f"{r['ratio_to_baseline']:.2f}×" if "ratio_to_baseline" in r else "",
                str(r["errors"]),
            ]
        )
    table.notes.append(
        f"`cardroom engine serve` (one worker per core) and `cardroom loadtest` (2 client "
        f"processes, 32 calls in flight, {duration:g} s each) on the same machine.  Game load: "
        "NewGame, then ListLegalActions + Apply of a random legal action until the game ends.  "
        "Goal: game calls ≥ 0.7× the baseline and ≥ 3,000 req/s; p99 < 25 ms at 70% of the "
        "saturating rate."
    )
    return table


#: Issue 29: Apply's p99 at 70% of the mix's saturating rate, one worker.
GOAL_APPLY_P99_MS = 25.0


def _one_worker_table(rows: list[dict[str, Any]], duration: float) -> Any:
    from .common import Table

    base, mix, paced = rows
    goal = 0.7
    mix_ratio = mix["ratio_to_baseline"]
    apply_ratio = mix.get("apply_latency_ratio", 0.0)
    table = Table(
        "Engine service, 1 worker, 1 load process, Apply with history_delta: ratios to Ping",
        ["load", "req/s", "p50 ms", "p99 ms", "Apply p50 ms", "Apply p99 ms", "vs Ping", "goal"],
    )
    table.rows.append(
        [
            base["name"],
            f"{base['rps']:,.0f}",
            f"{base['p50_ms']:.2f}",
            f"{base['p99_ms']:.2f}",
            *("", "", "1.00×", ""),
        ]
    )
    table.rows.append(
        [
            "game-call mix (rate)",
            f"{mix['rps']:,.0f}",
            f"{mix['p50_ms']:.2f}",
            f"{mix['p99_ms']:.2f}",
            f"{mix.get('apply_p50_ms', 0.0):.2f}",
            f"{mix.get('apply_p99_ms', 0.0):.2f}",
            f"{mix_ratio:.2f}×",
            f"≥ {goal}×: {'met' if mix_ratio >= goal else 'NOT met'}",
        ]
    )
    table.rows.append(
        [
            "Apply alone (Ping p50 / Apply p50)",
            f"{mix.get('apply_rps', 0.0):,.0f}",
            "",
            "",
            f"{mix.get('apply_p50_ms', 0.0):.2f}",
            "",
            f"{apply_ratio:.2f}×",
            f"≥ {goal}×: {'met' if apply_ratio >= goal else 'NOT met'}",
        ]
    )
    apply_p99 = paced.get("apply_p99_ms", 0.0)
    table.rows.append(
        [
            "game-call mix at 70% rate",
            f"{paced['rps']:,.0f}",
            f"{paced['p50_ms']:.2f}",
            f"{paced['p99_ms']:.2f}",
            f"{paced.get('apply_p50_ms', 0.0):.2f}",
            f"{apply_p99:.2f}",
            "",
            f"Apply p99 < {GOAL_APPLY_P99_MS:g} ms: "
            + ("met" if apply_p99 < GOAL_APPLY_P99_MS else "NOT met"),
        ]
    )
    table.notes.append(
        f"`cardroom engine serve --workers 1` and `cardroom loadtest --processes 1"
        f" --history-delta` (32 calls in flight, {duration:g} s each), same server, same run.  "
        "Mix: NewGame, ListLegalActions, Apply calls per second over Ping's.  Apply alone: "
        "Ping's median latency over Apply's (both with 32 calls in flight).  Errors: "
        f"{base['errors'] + mix['errors'] + paced['errors']}."
    )
    return table
