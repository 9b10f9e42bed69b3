"""Bearer tokens for engine callers (issue 8 item 9), and the shared token machinery both
services use (services/common/auth.py)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from cardroom.v1 import engine_pb2, engine_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common import auth
from services.common.grpc_errors import details
from services.common.server import BackgroundServer
from services.common.settings import ServerSettings, SettingsError
from services.engine import server as engine_server
from services.engine import tokens
from services.replay import access

CALLER = "engine-caller-token-0001"
OTHER = "engine-caller-token-0002"


def settings() -> ServerSettings:
    return ServerSettings(service="engine", port=0, workers=1, grace_s=0.5, access_log=False)


@pytest.fixture(scope="module")
def guarded(engine_keys: str) -> Iterator[grpc.Channel]:
    policy = engine_server.access_from_env({engine_server.TOKENS_ENV: f"{CALLER}, {OTHER}"})
    with (
        BackgroundServer(engine_server.make_spec(policy), settings()) as running,
        grpc.insecure_channel(running.target) as channel,
    ):
        yield channel


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def code_of(call: object) -> grpc.StatusCode:
    try:
        call()  # type: ignore[operator]
    except grpc.RpcError as exc:
        info = details(exc)
        assert info.reason == info.code.name, info
        return info.code
    return grpc.StatusCode.OK


def test_with_tokens_a_call_needs_one(guarded: grpc.Channel) -> None:
    stub = engine_pb2_grpc.EngineServiceStub(guarded)
    ping, variants = engine_pb2.PingRequest(), engine_pb2.ListVariantsRequest()
    unauth = grpc.StatusCode.UNAUTHENTICATED
    assert code_of(lambda: stub.Ping(ping)) == unauth
    assert code_of(lambda: stub.Ping(ping, metadata=bearer("x" * 24))) == unauth
    assert code_of(lambda: stub.Ping(ping, metadata=[("authorization", CALLER)])) == unauth
    assert code_of(lambda: stub.ListVariants(variants, metadata=bearer(CALLER[:-1]))) == unauth
    assert code_of(lambda: stub.Ping(ping, metadata=bearer(CALLER))) == grpc.StatusCode.OK
    assert stub.ListVariants(variants, metadata=bearer(OTHER)).variants
    game = stub.NewGame(
        engine_pb2.NewGameRequest(variant="doudizhu3", deal=engine_pb2.Deal(seed="auth")),
        metadata=bearer(CALLER),
    )
    legal = engine_pb2.ListLegalActionsRequest(state=game.state)
    assert code_of(lambda: stub.ListLegalActions(legal)) == unauth
    assert stub.ListLegalActions(legal, metadata=bearer(OTHER)).actions
    # Health and reflection stay open: load balancers carry no token.
    health = health_pb2_grpc.HealthStub(guarded)
    answer = health.Check(health_pb2.HealthCheckRequest(service=engine_server.SERVICE_NAME))
    assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_tokens_come_from_the_environment(
    engine_keys: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine_server.TOKENS_ENV, CALLER)
    with (
        BackgroundServer(engine_server.make_spec(), settings()) as running,
        grpc.insecure_channel(running.target) as channel,
    ):
        stub = engine_pb2_grpc.EngineServiceStub(channel)
        ping = engine_pb2.PingRequest()
        assert code_of(lambda: stub.Ping(ping)) == grpc.StatusCode.UNAUTHENTICATED
        assert code_of(lambda: stub.Ping(ping, metadata=bearer(CALLER))) == grpc.StatusCode.OK


def test_without_tokens_everything_is_allowed_with_a_warning(
    engine_keys: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(engine_server.TOKENS_ENV, raising=False)
    engine_server.prepare(settings())
    assert "no engine caller tokens configured" in caplog.text
    with (
        BackgroundServer(engine_server.make_spec(), settings()) as running,
        grpc.insecure_channel(running.target) as channel,
    ):
        stub = engine_pb2_grpc.EngineServiceStub(channel)
        stub.Ping(engine_pb2.PingRequest())
        stub.Ping(engine_pb2.PingRequest(), metadata=bearer("anything-at-all-here"))


@pytest.mark.parametrize("value", ["short", f"{CALLER},{CALLER}"])
def test_bad_token_settings_refuse_to_start(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(engine_server.TOKENS_ENV, value)
    args = argparse.Namespace(port=0)
    assert engine_server.serve_main(args) == 2
    err = capsys.readouterr().err
    assert engine_server.TOKENS_ENV.startswith("CARDROOM_") and "token" in err


# --------------------------------------------------------------------------- shared machinery
def test_roles_are_data() -> None:
    """A service's roles are a list of sources: the matchmaker's backend and player roles are
    one more list, with no code of their own."""
    sources = [
        auth.RoleSource("backend", "MM_BACKEND"),
        auth.RoleSource("player", "MM_PLAYERS", subject="player_id"),
    ]
    env = {"MM_BACKEND": "b" * 16, "MM_PLAYERS": "alice:" + "a" * 16 + ", bob:" + "c" * 16}
    policy = auth.AccessPolicy.from_env(sources, env, "matchmaker")
    assert policy.principal(bearer("b" * 16)) == auth.Principal("backend")
    assert policy.principal(bearer("a" * 16)) == auth.Principal("player", "alice")
    assert policy.principal([("authorization", b"bearer " + b"c" * 16)]).player_id == "bob"
    auth.require(policy.principal(bearer("b" * 16)), {"backend"})
    with pytest.raises(auth.ServiceError) as refused:
        auth.require(policy.principal(bearer("a" * 16)), {"backend"})
    assert refused.value.code is grpc.StatusCode.PERMISSION_DENIED
    for bad in ([], bearer("z" * 16), [("authorization", "Basic " + "b" * 16)]):
        with pytest.raises(auth.ServiceError) as unknown:
            policy.principal(bad)
        assert unknown.value.code is grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(SettingsError, match="player_id:token"):
        auth.AccessPolicy.from_env(sources, {"MM_PLAYERS": "a" * 16})
    open_policy = auth.AccessPolicy.from_env(sources, {})
    assert open_policy.open and open_policy.principal(None).role == auth.ANYONE
    auth.require(open_policy.principal(None), {"backend"})


def test_the_replay_service_uses_the_shared_machinery() -> None:
    policy = access.AccessPolicy.from_env(
        {access.WRITER_ENV: "w" * 16, access.PLAYER_ENV: "alice:" + "p" * 16}
    )
    assert isinstance(policy, auth.AccessPolicy)
    writer, alice = policy.principal(bearer("w" * 16)), policy.principal(bearer("p" * 16))
    assert writer.role == access.Role.WRITER and alice == auth.Principal("player", "alice")
    access.require_writer(writer)
    with pytest.raises(auth.ServiceError):
        access.require_writer(alice)
    with pytest.raises(SettingsError, match="replay tokens"):
        access.AccessPolicy.from_lists(writers=["short"])


def test_without_keys_the_engine_keeps_one_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tokens outlive an engine restart: the key made on the first start is reused."""
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path))
    monkeypatch.delenv(tokens.ENV_VAR, raising=False)
    engine_server.prepare(settings())
    first = os.environ[tokens.ENV_VAR]
    path = tmp_path / engine_server.KEY_FILE
    assert path.exists() and (path.stat().st_mode & 0o077) == 0
    monkeypatch.delenv(tokens.ENV_VAR)
    engine_server.prepare(settings())
    assert os.environ[tokens.ENV_VAR] == first
