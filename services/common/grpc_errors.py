"""Rich gRPC errors: a status code, a ``google.rpc.ErrorInfo`` reason and, for a malformed
field, a ``google.rpc.BadRequest`` naming its path (grpcio-status).

Servicers raise :class:`ServiceError` (or let a service-specific translator turn a domain error
into one); :func:`to_status` builds the ``grpc.Status`` the server aborts with, and
:func:`details` reads one back on the client side.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import structlog
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from services.common.reasons import ServiceReason

DOMAIN = "cardroom"


class ServiceError(Exception):
    """A refusal to send to the client: code, reason, message and optional field path."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        field: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.field = field
        self.metadata = metadata or {}

    def __repr__(self) -> str:
        return f"ServiceError({self.code.name}, {self.reason!r}, {self.message!r}, {self.field!r})"


def invalid(reason: str, message: str, field: str | None = None) -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, field)


def failed(reason: str, message: str, field: str | None = None) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, reason, message, field)


def not_found(reason: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, reason, message)


def missing(field: str) -> ServiceError:
    return invalid(ServiceReason.MISSING_FIELD, f"{field} is required", field)


def bad_field(field: str, message: str) -> ServiceError:
    return invalid(ServiceReason.INVALID_FIELD, message, field)


def server_stopping() -> ServiceError:
    """A stream ended by the server's graceful stop: the client resumes it (elsewhere, or
    after the restart) from where it was."""
    return ServiceError(
        grpc.StatusCode.UNAVAILABLE,
        ServiceReason.SERVER_STOPPING,
        "the server is stopping: resume the stream from the last seq received",
    )


def _pack(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def to_status(err: ServiceError) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    details = [_pack(info)]
    if err.field:
        violation = error_details_pb2.BadRequest.FieldViolation(
            field=err.field, description=err.message
        )
        details.append(_pack(error_details_pb2.BadRequest(field_violations=[violation])))
    code: int = getattr(code_pb2, err.code.name)
    return rpc_status.to_status(status_pb2.Status(code=code, message=err.message, details=details))


@dataclass
class ErrorDetails:
    """What a client can read from a refused call (tests, the load generator, the CLI)."""

    code: grpc.StatusCode
    message: str
    reason: str = ""
    domain: str = ""
    fields: list[str] = field(default_factory=list)


def details(error: grpc.RpcError) -> ErrorDetails:
    """The code, reason and field paths of a failed call."""
    call: Any = error
    out = ErrorDetails(code=call.code(), message=call.details() or "")
    status = rpc_status.from_call(call)
    if status is None:
        return out
    for item in status.details:
        if item.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            item.Unpack(info)
            out.reason, out.domain = info.reason, info.domain
        elif item.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            item.Unpack(bad)
            out.fields.extend(v.field for v in bad.field_violations)
    return out


# --------------------------------------------------------------------------- servicers
#: A servicer method: ``async def M(self, request, context)``, or an async generator.
Handler = TypeVar("Handler", bound=Callable[..., Any])


def refusing(
    handled: tuple[type[Exception], ...], to_error: Callable[[Exception], ServiceError]
) -> Callable[[Handler], Handler]:
    """A decorator for a service's handlers, unary or streaming (an async generator): an
    exception of ``handled`` (what the layers below raise for bad input) ends the call with the
    status ``to_error`` gives it, and the call's access-log line names the reason and game."""

    async def refuse(exc: Exception, request: Any, context: Any) -> None:
        err = to_error(exc)
        game_id = getattr(request, "game_id", "")
        structlog.contextvars.bind_contextvars(
            reason=err.reason,
            **({"game_id": game_id[:64]} if isinstance(game_id, str) and game_id else {}),
        )
        await context.abort_with_status(to_status(err))

    def decorate(method: Handler) -> Handler:
        if inspect.isasyncgenfunction(method):

            @functools.wraps(method)
            async def stream(self: Any, request: Any, context: Any) -> AsyncIterator[Any]:
                try:
                    async for item in method(self, request, context):
                        yield item
                except handled as exc:
                    await refuse(exc, request, context)

            return stream  # type: ignore[return-value]

        @functools.wraps(method)
        async def handler(self: Any, request: Any, context: Any) -> Any:
            try:
                return await method(self, request, context)
            except handled as exc:
                await refuse(exc, request, context)
                raise  # unreachable: abort raises

        return handler  # type: ignore[return-value]

    return decorate
