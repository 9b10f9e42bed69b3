"""`cardroom engine serve` as a real process tree: two workers on one port, graceful shutdown."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from cardroom.v1 import engine_pb2, engine_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.procs import children, wait_gone


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    target: str
    stderr: StderrReader


class StderrReader:
    """Reads a process's stderr as it comes, so a test can wait for a log line and still
    see everything after the process ends."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        self._pipe = proc.stderr
        self._lines: list[bytes] = []
        self._lock = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self._pipe:
            with self._lock:
                self._lines.append(line)
                self._lock.notify_all()

    def wait_count(self, needle: bytes, count: int, timeout: float) -> None:
        with self._lock:
            ok = self._lock.wait_for(lambda: self.text().count(needle) >= count, timeout)
        assert ok, f"{count}x {needle!r} not logged in {timeout} s: {self.text()[-2000:]!r}"

    def text(self) -> bytes:
        return b"".join(self._lines)

    def rest(self, timeout: float) -> bytes:
        """Everything, once the process has closed its end."""
        self._thread.join(timeout)
        return self.text()


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
    # No key configured: the parent makes one and shares it with both workers.
    env = {k: v for k, v in os.environ.items() if k != "CARDROOM_ENGINE_KEYS"}
    env["CARDROOM_LOG_FORMAT"] = "json"
    env["CARDROOM_DATA_DIR"] = tempfile.mkdtemp(prefix="cardroom-engine-")  # its key file
    cmd = [sys.executable, "-m", "services", "engine", "serve", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", "--grace", "2"], env=env, stderr=subprocess.PIPE
    )
    target = f"127.0.0.1:{port}"
    stderr = StderrReader(proc)
    try:
        wait_serving(target, proc)
        # Health answers once one worker serves; the other may still be importing, and a
        # SIGTERM then ends it before its handler is installed (no "stopped" line).
        stderr.wait_count(b'"event": "serving"', 2, timeout=30)
        yield Served(proc, target, stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_token_made_by_one_worker_opens_in_every_other(served: Served) -> None:
    # Each channel with its own subchannel pool opens its own connection, and the kernel
    # spreads connections over the two workers: with 8 of them, both workers see the token
    # (all 8 on one worker has odds 1 in 128).
    options = [("grpc.use_local_subchannel_pool", 1)]
    with grpc.insecure_channel(served.target, options=options) as first:
        stub = engine_pb2_grpc.EngineServiceStub(first)
        game = stub.NewGame(
            engine_pb2.NewGameRequest(variant="ddz3", deal=engine_pb2.Deal(seed="w")), timeout=10
        )
    turn = game.public_view.turn
    for _ in range(8):
        with grpc.insecure_channel(served.target, options=options) as channel:
            stub = engine_pb2_grpc.EngineServiceStub(channel)
            answer = stub.Apply(
                engine_pb2.ApplyRequest(
                    state=game.state, action=engine_pb2.Action(seat=turn, bid=1)
                ),
                timeout=10,
            )
            assert answer.state.seq > game.state.seq


def test_sigterm_shuts_down_gracefully(served: Served) -> None:
    proc = served.proc
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)
    err = served.stderr.rest(timeout=5)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert time.monotonic() - start < 10
    assert b"no state token key configured" in err  # the generated key was announced
    assert err.count(b'"event": "stopped"') == 3  # both workers, then the supervisor


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_the_workers_end_with_a_killed_supervisor() -> None:
    """SIGKILL to the supervisor (the OOM killer, kill -9) ends its workers too: orphaned,
    they went on serving the port (SO_REUSEPORT) beside whatever was started there next."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "CARDROOM_ENGINE_KEYS"}
    env["CARDROOM_LOG_FORMAT"] = "json"
    env["CARDROOM_DATA_DIR"] = tempfile.mkdtemp(prefix="cardroom-engine-")
    cmd = [sys.executable, "-m", "services", "engine", "serve", "--port", str(port)]
    proc = subprocess.Popen([*cmd, "--workers", "2"], env=env, stderr=subprocess.PIPE)
    stderr = StderrReader(proc)
    target = f"127.0.0.1:{port}"
    workers: list[int] = []
    try:
        wait_serving(target, proc)
        stderr.wait_count(b'"event": "serving"', 2, timeout=30)
        workers = children(proc.pid)
        assert len(workers) >= 2, workers  # two workers (and multiprocessing's tracker)
        proc.kill()
        proc.wait()
        assert not wait_gone(workers, timeout=20), stderr.text()[-2000:]
        with grpc.insecure_channel(target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            with pytest.raises(grpc.RpcError) as info:
                health.Check(health_pb2.HealthCheckRequest(), timeout=2)
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE  # nobody serves the port
    finally:
        for pid in [proc.pid, *workers]:  # whatever a failure left running
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
