"""Every replay-store test runs on SQLite and, when CARDROOM_TEST_PG_URL is set, again on
PostgreSQL — one shared suite for both backends.  Each PostgreSQL test gets a schema of its
own, so tests never see each other's rows."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from cardroom.v1 import replay_pb2_grpc

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.common.server import BackgroundServer, ServiceSpec
from services.common.settings import ServerSettings
from services.replay.access import AccessPolicy
from services.replay.server import add_to_server
from services.replay.service import ReplayServicer
from services.replay.store import EventStore

from .helpers import ALICE, AUDITOR, BOB, MALLORY, WRITER

# --------------------------------------------------------------------------- servers
POLICY = AccessPolicy.from_lists(
    writers=[WRITER],
    auditors=[AUDITOR],
    players={"alice": ALICE, "bob": BOB, "mallory": MALLORY},
)


@dataclass
class Running:
    server: BackgroundServer
    servicer: ReplayServicer
    channel: grpc.Channel
    stub: replay_pb2_grpc.ReplayServiceStub


def start_server(db_url: str, policy: AccessPolicy = POLICY, access_log: bool = False) -> Running:
    """A replay server on port 0 in this process (a thread with its own event loop)."""
    servicer = ReplayServicer(EventStore(make_engine(db_url)), policy, poll_interval=0.1)
    spec = ServiceSpec("replay", lambda server, settings: add_to_server(server, servicer))
    settings = ServerSettings(
        service="replay", port=0, workers=1, grace_s=0.5, log_level="warning",
        access_log=access_log,
    )  # fmt: skip
    server = BackgroundServer(spec, settings).start()
    channel = grpc.insecure_channel(server.target)
    return Running(server, servicer, channel, replay_pb2_grpc.ReplayServiceStub(channel))


def stop_server(running: Running) -> None:
    running.channel.close()
    running.server.stop()
    running.servicer.close()


@pytest.fixture
def replay(db_url: str) -> Iterator[Running]:
    upgrade(db_url)
    running = start_server(db_url)
    yield running
    stop_server(running)
