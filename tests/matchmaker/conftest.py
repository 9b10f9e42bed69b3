"""Real engine, replay and matchmaker gRPC servers on port 0 in this process, on SQLite and,
when CARDROOM_TEST_PG_URL is set, on PostgreSQL (a schema per test).  The replay store and
the matchmaker share one database, as they do in a deployment."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from cardroom.v1 import (
    engine_pb2,
    matchmaker_pb2,
    matchmaker_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)

from services import rules
from services.common.db import make_engine
from services.common.migrate import upgrade
from services.common.server import BackgroundServer, ServiceSpec
from services.common.settings import ServerSettings
from services.engine import server as engine_server
from services.engine import tokens
from services.matchmaker.access import Access
from services.matchmaker.runner import Runner
from services.matchmaker.server import MatchmakerConfig, make_spec
from services.matchmaker.settings import RunnerSettings
from services.replay.access import AccessPolicy
from services.replay.server import add_to_server
from services.replay.service import ReplayServicer
from services.replay.store import EventStore

M = matchmaker_pb2
TEST_KEYS = "test1:" + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
FAST = RunnerSettings(tick_s=0.02, poll_interval_s=0.05, backoff_ms=50, backoff_cap_ms=300,
                      lease_ms=1000)  # fmt: skip
#: Timers of the tests: 0.2 s turns, bots at once.
SHORT = M.Timers(bid_ms=200, turn_ms=200, start_ms=2000, grace_ms=400, bot_think_ms=0)


def settings(name: str, port: int = 0) -> ServerSettings:
    return ServerSettings(
        service=name, port=port, workers=1, grace_s=0.2, log_level="warning", access_log=False
    )


@pytest.fixture(scope="session")
def engine_target() -> Iterator[str]:
    old = os.environ.get(tokens.ENV_VAR)
    os.environ[tokens.ENV_VAR] = old or TEST_KEYS
    with BackgroundServer(engine_server.SPEC, settings("engine")) as running:
        yield running.target
    if old is None:
        os.environ.pop(tokens.ENV_VAR, None)


@dataclass
class Cluster:
    db_url: str
    engine_target: str
    runner: RunnerSettings = FAST
    access: Access = field(default_factory=lambda: Access.from_env({}))
    replay_server: BackgroundServer | None = None
    replay_servicer: ReplayServicer | None = None
    replay_port: int = 0
    mm_server: BackgroundServer | None = None
    channels: list[grpc.Channel] = field(default_factory=list)
    #: The runners of the matchmakers started here (MatchmakerConfig.on_runner), newest last.
    runners: list[Runner] = field(default_factory=list)

    # ------------------------------------------------------------------ servers
    def start_replay(self) -> None:
        servicer = ReplayServicer(
            EventStore(make_engine(self.db_url)), AccessPolicy.from_lists(), poll_interval=0.1
        )
        spec = ServiceSpec("replay", lambda server, s: add_to_server(server, servicer))
        self.replay_server = BackgroundServer(spec, settings("replay", self.replay_port)).start()
        self.replay_port = self.replay_server.port
        self.replay_servicer = servicer

    def stop_replay(self) -> None:
        assert self.replay_server is not None and self.replay_servicer is not None
        self.replay_server.stop()
        self.replay_servicer.close()
        self.replay_server = None

    def start_mm(self) -> None:
        config = MatchmakerConfig(
            database_url=self.db_url,
            engine_addr=self.engine_target,
            replay_addr=f"127.0.0.1:{self.replay_port}",
            access=self.access,
            runner=self.runner,
            on_runner=self.runners.append,
        )
        self.mm_server = BackgroundServer(make_spec(config), settings("matchmaker")).start()

    def stop_mm(self) -> None:
        assert self.mm_server is not None
        self.mm_server.stop()
        self.mm_server = None

    def stop(self) -> None:
        for ch in self.channels:
            ch.close()
        if self.mm_server is not None:
            self.stop_mm()
        if self.replay_server is not None:
            self.stop_replay()

    def the_runner(self) -> Runner:
        """The running matchmaker's runner."""
        assert self.mm_server is not None and self.runners
        return self.runners[-1]

    # ------------------------------------------------------------------ stubs
    def mm(self) -> matchmaker_pb2_grpc.MatchmakerServiceStub:
        assert self.mm_server is not None
        ch = grpc.insecure_channel(self.mm_server.target)
        self.channels.append(ch)
        return matchmaker_pb2_grpc.MatchmakerServiceStub(ch)

    def replay(self) -> replay_pb2_grpc.ReplayServiceStub:
        ch = grpc.insecure_channel(f"127.0.0.1:{self.replay_port}")
        self.channels.append(ch)
        return replay_pb2_grpc.ReplayServiceStub(ch)


@pytest.fixture
def cluster(db_url: str, engine_target: str) -> Iterator[Cluster]:
    upgrade(db_url)
    c = Cluster(db_url, engine_target)
    c.start_replay()
    c.start_mm()
    yield c
    c.stop()


# --------------------------------------------------------------------------- helpers
def wait_for(check: Callable[[], Any], timeout: float = 20.0, every: float = 0.02) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(every)


def seated(stub: Any, ticket_id: str, timeout: float = 20.0) -> M.Ticket:
    def check() -> M.Ticket | None:
        t = stub.GetTicket(M.GetTicketRequest(ticket_id=ticket_id), timeout=5)
        return t if t.state == M.TICKET_STATE_SEATED else None

    result: M.Ticket = wait_for(check, timeout)
    return result


def view_of(msg: engine_pb2.View) -> rules.SeatView:
    return rules.SeatView.from_dict(json.loads(msg.view_json))


def data(ev: M.TableEvent) -> dict[str, Any]:
    if ev.type == "game":
        out: dict[str, Any] = json.loads(ev.game_event.data_json)
        return out
    out = json.loads(ev.data_json or "{}")
    return out


def verify(cluster: Cluster, game_id: str) -> replay_pb2.VerifyGameResponse:
    """The replay service's verdict on a game (not ok while it has not arrived)."""
    stub = cluster.replay()
    try:
        answer: replay_pb2.VerifyGameResponse = stub.VerifyGame(
            replay_pb2.VerifyGameRequest(game_id=game_id), timeout=20
        )
    except grpc.RpcError as exc:
        if exc.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE):
            return replay_pb2.VerifyGameResponse(ok=False)
        raise
    return answer
