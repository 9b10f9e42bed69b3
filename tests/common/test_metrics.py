"""Prometheus metrics over HTTP: calls by method and status, latency histograms, summed over
the workers of a multi-process server (the parent serves them, multiprocess mode)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.engine import tokens
from tests.matchmaker.conftest import TEST_KEYS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        return str(answer.read().decode())


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` whose labels include ``labels``."""
    total = 0.0
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:]+)(?:\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(3))
    return total


def test_two_workers_are_counted_together() -> None:
    port, metrics_port = free_port(), free_port()
    env = {
        **os.environ,
        tokens.ENV_VAR: TEST_KEYS,
        "CARDROOM_ENGINE_METRICS_PORT": str(metrics_port),
    }
    cmd = [sys.executable, "-m", "services", "engine", "serve", "--port", str(port),
           "--workers", "2", "--log-level", "warning", "--grace", "0.2"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        calls = 0
        while calls < 12:
            # A channel per call, so that SO_REUSEPORT spreads them over both workers.
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                try:
                    health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(), timeout=2
                    )
                    calls += 1
                except grpc.RpcError:
                    assert time.monotonic() < deadline, "the engine did not start"
                    time.sleep(0.2)
        text = scrape(metrics_port)
        method = "/grpc.health.v1.Health/Check"
        assert value(text, "cardroom_rpc_calls_total", method=method, code="OK") == calls
        assert value(text, "cardroom_rpc_latency_seconds_count", method=method) == calls
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err.decode()[-2000:]
