"""`cardroom engine serve` as a real process tree: two workers on one port, graceful shutdown."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .conftest import TEST_KEYS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    target: str


def wait_serving(target: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            assert proc.poll() is None, "server exited early"
            try:
                status = health.Check(health_pb2.HealthCheckRequest(), timeout=1).status
                if status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.1)
    raise AssertionError("server did not become healthy")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    port = free_port()
    env = {**os.environ, "CARDROOM_ENGINE_KEYS": TEST_KEYS, "CARDROOM_LOG_FORMAT": "json"}
    cmd = [sys.executable, "-m", "services", "engine", "serve", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", "--grace", "2"], env=env, stderr=subprocess.PIPE
    )
    target = f"127.0.0.1:{port}"
    try:
        wait_serving(target, proc)
        yield Served(proc, target)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigterm_shuts_down_gracefully(served: Served) -> None:
    proc = served.proc
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert time.monotonic() - start < 10
    assert b'"event": "rpc"' in err or b"serving" in err
