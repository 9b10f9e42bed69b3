"""Real processes on one PostgreSQL (skipped without CARDROOM_TEST_PG_URL): an engine, a
replay and matchmaker instances started with the ``cardroom`` command, killed with SIGKILL,
cut off from the database through a TCP proxy, and restarted on their ports."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import pytest
from cardroom.v1 import matchmaker_pb2, matchmaker_pb2_grpc, replay_pb2, replay_pb2_grpc

from services.common.health_cli import check
from services.common.migrate import upgrade
from tests.common.test_metrics import free_port
from tests.databases import PG_URL
from tests.matchmaker.conftest import TEST_KEYS
from tests.proxy import TcpProxy

M = matchmaker_pb2
#: The takeover bound of these tests: a dead instance's lease (CARDROOM_MATCHMAKER_LEASE_S).
LEASE_S = 2.0

#: A directory for the processes' logs (one file per service and port), to look into a failure.
LOG_DIR = os.environ.get("CARDROOM_TEST_PROC_LOGS")

pytestmark = pytest.mark.skipif(not PG_URL, reason="needs CARDROOM_TEST_PG_URL")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mm_env(dict): extra matchmaker environment variables")


@dataclass
class Proc:
    """One ``cardroom <service> serve`` process on a fixed port."""

    service: str
    port: int
    env: dict[str, str]
    args: list[str] = field(default_factory=list)
    #: Where its log goes (LOG_DIR, else the test's tmp_path): tests read warnings from it.
    log_dir: str = ""
    popen: subprocess.Popen[bytes] | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Proc:
        cmd = [sys.executable, "-m", "services", self.service, "serve",
               "--port", str(self.port), "--workers", "1", "--grace", "0.5",
               "--log-level", "info" if LOG_DIR else "warning", *self.args]  # fmt: skip
        self.popen = subprocess.Popen(
            cmd,
            env={**os.environ, **self.env},
            stdout=subprocess.DEVNULL,
            stderr=self._log_sink(),
        )
        deadline = time.monotonic() + 30
        while check(self.target, 1.0) != "SERVING":
            assert self.popen.poll() is None, f"{self.service} exited {self.popen.returncode}"
            assert time.monotonic() < deadline, f"{self.service} did not start"
            time.sleep(0.1)
        return self

    @property
    def log_path(self) -> str:
        return os.path.join(self.log_dir, f"{self.service}-{self.port}.log")

    def _log_sink(self) -> Any:
        if not self.log_dir:
            return subprocess.DEVNULL
        os.makedirs(self.log_dir, exist_ok=True)
        return open(self.log_path, "ab")

    def log_text(self) -> str:
        if not self.log_dir or not os.path.exists(self.log_path):
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop_signal(self) -> None:
        """SIGSTOP: the process holds everything (leases, sessions, sockets) and runs nothing."""
        assert self.popen is not None
        self.popen.send_signal(signal.SIGSTOP)

    def cont_signal(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Deployment:
    db_url: str
    engine: Proc
    replay: Proc
    matchmakers: list[Proc]
    proxies: list[TcpProxy]
    #: The first instance's only way to the engine (the second calls it directly).
    engine_proxy: TcpProxy
    channels: list[grpc.Channel] = field(default_factory=list)

    def mm(self, i: int) -> Any:
        ch = grpc.insecure_channel(self.matchmakers[i].target)
        self.channels.append(ch)
        return matchmaker_pb2_grpc.MatchmakerServiceStub(ch)  # type: ignore[no-untyped-call]

    def verify(self, game_id: str, timeout: float = 60.0) -> replay_pb2.VerifyGameResponse:
        ch = grpc.insecure_channel(self.replay.target)
        self.channels.append(ch)
        stub = replay_pb2_grpc.ReplayServiceStub(ch)  # type: ignore[no-untyped-call]
        end = time.monotonic() + timeout
        answer = replay_pb2.VerifyGameResponse()
        while time.monotonic() < end:
            try:
                answer = stub.VerifyGame(replay_pb2.VerifyGameRequest(game_id=game_id), timeout=20)
                if answer.ok and answer.settlement_json:
                    return answer
            except grpc.RpcError:
                pass
            time.sleep(0.3)
        return answer

    def stop(self) -> None:
        for ch in self.channels:
            ch.close()
        for p in [*self.matchmakers, self.replay, self.engine]:
            p.cont_signal()  # a test that stopped one and failed
            p.stop()
        for proxy in [*self.proxies, self.engine_proxy]:
            proxy.close()


def through_proxy(url: str, proxy: TcpProxy) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}"))


@pytest.fixture
def deployment(request: pytest.FixtureRequest, db_url: str, tmp_path: Any) -> Iterator[Deployment]:
    """An engine, a replay and two matchmakers (the first reaching PostgreSQL and the engine
    through proxies the test can cut) on one database.  ``@pytest.mark.mm_env({...})`` adds
    variables to the matchmakers' environment."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several instances need PostgreSQL")
    upgrade(db_url)
    marker = request.node.get_closest_marker("mm_env")
    extra = dict(marker.args[0]) if marker else {}
    base = {"CARDROOM_ENGINE_KEYS": TEST_KEYS, "CARDROOM_DATABASE_URL": db_url}
    engine = Proc("engine", free_port(), base, log_dir=LOG_DIR or "").start()
    replay = Proc("replay", free_port(), base, log_dir=LOG_DIR or "").start()
    host = urlsplit(db_url)
    proxy = TcpProxy(host.hostname or "127.0.0.1", host.port or 5432)
    mm_env = {**base, "CARDROOM_MATCHMAKER_LEASE_S": str(LEASE_S), **extra}
    engine_proxy = TcpProxy("127.0.0.1", engine.port)
    args = ["--engine", engine.target, "--replay", replay.target]
    logs = LOG_DIR or str(tmp_path / "logs")
    mms = [
        Proc(
            "matchmaker",
            free_port(),
            {**mm_env, "CARDROOM_DATABASE_URL": through_proxy(db_url, proxy)},
            ["--engine", f"127.0.0.1:{engine_proxy.port}", "--replay", replay.target],
            logs,
        ),
        Proc("matchmaker", free_port(), mm_env, args, logs),
    ]
    for mm in mms:
        mm.start()
    d = Deployment(db_url, engine, replay, mms, [proxy], engine_proxy)
    yield d
    d.stop()


def data(ev: M.TableEvent) -> dict[str, Any]:
    if ev.type == "game":
        out: dict[str, Any] = json.loads(ev.game_event.data_json)
        return out
    out = json.loads(ev.data_json or "{}")
    return out
