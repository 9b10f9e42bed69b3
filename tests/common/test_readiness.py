"""Health follows a service's readiness: SERVING while its probe (the database answers) says
so, NOT_SERVING while it does not, with the process serving all along."""

from __future__ import annotations

import time
from collections.abc import Sequence

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common import server as runner
from services.common.db import answers, make_engine
from services.common.server import BackgroundServer, ServiceSpec, add_readiness
from services.common.settings import ServerSettings

STATE = {"ready": True}


async def _probe() -> bool:
    return STATE["ready"]


def _register(server: grpc.aio.Server, settings: ServerSettings) -> Sequence[str]:
    add_readiness(server, _probe)
    return []


def _status(stub: health_pb2_grpc.HealthStub) -> int:
    return stub.Check(health_pb2.HealthCheckRequest(), timeout=5).status  # type: ignore[no-any-return]


def _wait_for(stub: health_pb2_grpc.HealthStub, status: int) -> None:
    deadline = time.monotonic() + 10
    while _status(stub) != status:
        assert time.monotonic() < deadline, f"health never became {status}"
        time.sleep(0.05)


def test_health_follows_the_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "READINESS_INTERVAL_S", 0.05)
    STATE["ready"] = True
    settings = ServerSettings(service="probe", port=0, workers=1, grace_s=0.5, access_log=False)
    with BackgroundServer(ServiceSpec("probe", _register), settings) as server:
        channel = grpc.insecure_channel(server.target)
        stub = health_pb2_grpc.HealthStub(channel)
        assert _status(stub) == health_pb2.HealthCheckResponse.SERVING
        STATE["ready"] = False  # the database stops answering
        _wait_for(stub, health_pb2.HealthCheckResponse.NOT_SERVING)
        STATE["ready"] = True  # and comes back
        _wait_for(stub, health_pb2.HealthCheckResponse.SERVING)
        channel.close()


def test_a_database_that_does_not_answer_is_not_ready(tmp_path: object) -> None:
    assert answers(make_engine(f"sqlite:///{tmp_path}/ok.sqlite3"))
    # Nothing listens on port 1: the probe says no, it does not raise.
    dead = make_engine("postgresql://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 2})
    assert not answers(dead)
