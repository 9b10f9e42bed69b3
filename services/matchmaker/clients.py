"""The matchmaker's calls to the engine and replay services (grpc.aio).

A refusal (the engine says NOT_YOUR_TURN, DOES_NOT_BEAT, …) becomes a :class:`ServiceError`
with the same code, reason, message and field, so the matchmaker passes it through to its
caller unchanged.  A service that cannot be reached (UNAVAILABLE, DEADLINE_EXCEEDED, …)
raises :class:`Unreachable`: the caller retries with backoff, the table unchanged.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.grpc_errors import ServiceError
from services.common.reasons import ServiceReason
from services.common.wire import (
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)

#: Codes that say "not reachable now, try again", not "refused".
TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)


class Unreachable(Exception):
    """The engine or replay service did not answer (or not usefully): retry later."""

    def __init__(self, service: str, detail: str) -> None:
        super().__init__(f"{service}: {detail}")
        self.service = service


def refusal(exc: grpc.aio.AioRpcError) -> ServiceError:
    """The ServiceError of a refused call, reason and field as the callee gave them."""
    reason, field = "", None
    for key, value in exc.trailing_metadata() or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for item in status.details:
            if item.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                item.Unpack(info)
                reason = info.reason
            elif item.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                item.Unpack(bad)
                if bad.field_violations:
                    field = bad.field_violations[0].field
    return ServiceError(exc.code(), reason or exc.code().name, exc.details() or "", field)


class Remote:
    """One channel to a service, with its bearer token and a per-call timeout."""

    service = "remote"

    def __init__(self, target: str, token: str = "", timeout: float = 10.0) -> None:
        self.target = target
        self.timeout = timeout
        self.metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token else ()
        )
        self.channel = grpc.aio.insecure_channel(
            target,
            options=[
                ("grpc.keepalive_time_ms", 30_000),
                ("grpc.max_receive_message_length", 16 * 1024 * 1024),
            ],
        )
        self._health = health_pb2_grpc.HealthStub(self.channel)

    async def call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, metadata=self.metadata, timeout=self.timeout)
        except grpc.aio.AioRpcError as exc:
            if exc.code() in TRANSIENT:
                raise Unreachable(self.service, f"{exc.code().name}: {exc.details()}") from None
            raise refusal(exc) from None

    async def healthy(self) -> bool:
        try:
            answer = await self._health.Check(health_pb2.HealthCheckRequest(), timeout=2.0)
        except grpc.aio.AioRpcError:
            return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        await self.channel.close()


class Engine(Remote):
    service = "engine"

    def __init__(self, target: str, token: str = "", timeout: float = 10.0) -> None:
        super().__init__(target, token, timeout)
        self.stub: Any = engine_pb2_grpc.EngineServiceStub(self.channel)  # type: ignore[no-untyped-call]

    async def new_game(self, request: engine_pb2.NewGameRequest) -> engine_pb2.NewGameResponse:
        result: engine_pb2.NewGameResponse = await self.call(self.stub.NewGame, request)
        return result

    async def apply(self, request: engine_pb2.ApplyRequest) -> engine_pb2.ApplyResponse:
        result: engine_pb2.ApplyResponse = await self.call(self.stub.Apply, request)
        return result

    async def seat_view(self, state: engine_pb2.GameToken, seat: int) -> engine_pb2.View:
        request = engine_pb2.GetSeatViewRequest(state=state, seat=seat)
        result: engine_pb2.GetSeatViewResponse = await self.call(self.stub.GetSeatView, request)
        return result.view

    async def hint(self, state: engine_pb2.GameToken, seat: int) -> engine_pb2.GetHintResponse:
        request = engine_pb2.GetHintRequest(state=state, seat=seat)
        result: engine_pb2.GetHintResponse = await self.call(self.stub.GetHint, request)
        return result


class Replay(Remote):
    service = "replay"

    def __init__(self, target: str, token: str = "", timeout: float = 10.0) -> None:
        super().__init__(target, token, timeout)
        self.stub: Any = replay_pb2_grpc.ReplayServiceStub(self.channel)  # type: ignore[no-untyped-call]

    async def append(self, request: replay_pb2.AppendEventsRequest) -> None:
        await self.call(self.stub.AppendEvents, request)

    async def head_seq(self, game_id: str) -> int:
        """The seq of the game's last stored event (0: the game is not stored)."""
        try:
            result: replay_pb2.GetGameResponse = await self.call(
                self.stub.GetGame, replay_pb2.GetGameRequest(game_id=game_id)
            )
        except ServiceError as exc:
            if exc.code == grpc.StatusCode.NOT_FOUND:
                return 0
            raise
        return int(result.game.head_seq)


def engine_down(exc: Unreachable) -> ServiceError:
    reason = (
        ServiceReason.ENGINE_UNAVAILABLE
        if exc.service == "engine"
        else ServiceReason.REPLAY_UNAVAILABLE
    )
    return ServiceError(grpc.StatusCode.UNAVAILABLE, reason, str(exc))


__all__ = ["Engine", "Remote", "Replay", "Unreachable", "common_pb2", "engine_down", "refusal"]
