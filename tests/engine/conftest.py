"""A real engine server on port 0 in the test process, shared by the module's tests."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator

import grpc
import pytest
from cardroom.v1 import engine_pb2_grpc

from services.common.server import BackgroundServer
from services.common.settings import ServerSettings
from services.engine import server as engine_server
from services.engine import tokens

#: A fixed key, so subprocess servers started by tests open the tokens of the in-process one.
TEST_KEYS = "test1:" + base64.b64encode(bytes(range(32))).decode()


@pytest.fixture(scope="session")
def engine_keys() -> Iterator[str]:
    old = os.environ.get(tokens.ENV_VAR)
    os.environ[tokens.ENV_VAR] = TEST_KEYS
    yield TEST_KEYS
    if old is None:
        os.environ.pop(tokens.ENV_VAR, None)
    else:
        os.environ[tokens.ENV_VAR] = old


@pytest.fixture(scope="session")
def server(engine_keys: str) -> Iterator[BackgroundServer]:
    settings = ServerSettings(service="engine", port=0, workers=1, grace_s=1.0)
    with BackgroundServer(engine_server.SPEC, settings) as running:
        yield running


@pytest.fixture(scope="session")
def channel(server: BackgroundServer) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.target) as ch:
        yield ch


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> engine_pb2_grpc.EngineServiceStub:
    return engine_pb2_grpc.EngineServiceStub(channel)
