"""The engine's gRPC servicer: it converts messages to rules calls and rules errors to status
codes, and holds no rules of its own (DESIGN.md principle 4).

Every field a client sends is checked here before it reaches the rules, and every refusal is a
:class:`~services.common.grpc_errors.ServiceError` with a reason code: nothing a client sends
may surface as INTERNAL or UNKNOWN.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from cardroom.v1 import engine_pb2, engine_pb2_grpc

from services.common import grpc_errors
from services.common.grpc_errors import ServiceError, invalid, missing

from . import rules
from .tokens import Sealer, TokenInvalid

#: Longest card list or other short text accepted; a two-deck game has 108 cards (≤ 3 chars
#: each with separators), so this only stops abuse.
MAX_TEXT = 1024
MAX_JSON = 64 * 1024

#: Reasons that describe the request itself; every other rules reason depends on the game's
#: state (or the play to beat) and is FAILED_PRECONDITION.
INVALID_REASONS = frozenset(
    {
        "MISSING_FIELD",
        "INVALID_FIELD",
        "UNKNOWN_VARIANT",
        "INVALID_OVERRIDE",
        "INVALID_ROOM",
        "INVALID_CARDS",
        "CARDS_NOT_IN_DECK",
        "NOT_A_PATTERN",
        "INVALID_DEAL",
        "INVALID_RECORD",
        "INVALID_SEAT",
        TokenInvalid.reason,
    }
)


def rules_error(exc: Exception, field: str | None = None) -> ServiceError:
    """The service error for an exception the rules raised about ``field``."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, TokenInvalid):
        return invalid(exc.reason, str(exc), field)
    if isinstance(exc, rules.CardParseError):
        return invalid("INVALID_CARDS", str(exc), field)
    if isinstance(exc, rules.VariantError):
        if exc.field == "variant":
            return invalid("UNKNOWN_VARIANT", str(exc), field or "variant")
        path = f"{field}.{exc.field}" if field and exc.field else field or exc.field or None
        return invalid("INVALID_OVERRIDE", str(exc), path)
    if isinstance(exc, rules.RulesError):
        if exc.reason in INVALID_REASONS:
            return invalid(exc.reason, str(exc), field)
        return grpc_errors.failed(exc.reason, str(exc), field)
    return invalid("INVALID_FIELD", str(exc), field)


# --------------------------------------------------------------------------- field checks
def text(value: str, field: str, *, required: bool = True, limit: int = MAX_TEXT) -> str:
    if required and not value.strip():
        raise missing(field)
    if len(value) > limit:
        raise grpc_errors.bad_field(field, f"{field} is longer than {limit} characters")
    return value


def variant_of(name: str, overrides_json: str, field: str = "variant") -> rules.Variant:
    text(name, field)
    try:
        v = rules.variant(name)
    except rules.VariantError as exc:
        raise invalid("UNKNOWN_VARIANT", str(exc), field) from None
    overrides = json_object(overrides_json, "overrides_json", reason="INVALID_OVERRIDE")
    if not overrides:
        return v
    try:
        return v.override(overrides)
    except rules.VariantError as exc:
        raise invalid("INVALID_OVERRIDE", str(exc), f"overrides_json.{exc.field}") from None
    except (TypeError, ValueError) as exc:  # a value of the wrong JSON shape
        raise invalid("INVALID_OVERRIDE", f"bad override: {exc}", "overrides_json") from None


def json_object(raw: str, field: str, *, reason: str = "INVALID_FIELD") -> dict[str, Any]:
    if not raw.strip():
        return {}
    if len(raw) > MAX_JSON:
        raise invalid(reason, f"{field} is longer than {MAX_JSON} characters", field)
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise invalid(reason, f"{field} is not JSON: {exc}", field) from None
    if not isinstance(value, dict):
        raise invalid(reason, f"{field} must be a JSON object", field)
    return value


def cards_of(value: str, field: str, *, required: bool = True) -> tuple[rules.Card, ...]:
    text(value, field, required=required)
    try:
        return rules.parse_cards(value)
    except rules.CardParseError as exc:
        raise invalid("INVALID_CARDS", str(exc), field) from None


def pattern_message(p: rules.Pattern) -> engine_pb2.Pattern:
    d = p.to_dict()
    return engine_pb2.Pattern(
        kind=str(d["kind"]),
        rank=str(d["rank"]),
        length=p.length,
        size=p.size,
        low=p.low,
        wings=str(d["wings"]),
        reading=p.reading,
    )


def variant_message(v: rules.Variant) -> engine_pb2.Variant:
    msg = engine_pb2.Variant(
        choices=sorted(v.choices()),
        aliases=sorted(a for a, name in rules.ALIASES.items() if name == v.name),
        rules_version=rules.RULES_VERSION,
    )
    for key, value in v.describe().items():
        if key == "bomb_factors":
            msg.bomb_factors.extend(engine_pb2.BombFactor(size=s, factor=f) for s, f in value)
        elif isinstance(value, list):
            getattr(msg, key).extend(value)
        else:
            setattr(msg, key, value)
    return msg


# --------------------------------------------------------------------------- the servicer
_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")
_Handler = Callable[[Any, _Req, grpc.aio.ServicerContext[Any, Any]], Awaitable[_Resp]]


def rpc(method: _Handler[_Req, _Resp]) -> _Handler[_Req, _Resp]:
    """Turn a ServiceError (or a rules error that escaped a field check) into its status."""

    @functools.wraps(method)
    async def handler(
        self: Any, request: _Req, context: grpc.aio.ServicerContext[Any, Any]
    ) -> _Resp:
        try:
            return await method(self, request, context)
        except (ServiceError, rules.RulesError, rules.VariantError, TokenInvalid) as exc:
            await context.abort_with_status(grpc_errors.to_status(rules_error(exc)))
            raise  # unreachable: abort raises

    return handler


class EngineServicer(engine_pb2_grpc.EngineServiceServicer):
    def __init__(self, sealer: Sealer) -> None:
        self.sealer = sealer
        self._variants = engine_pb2.ListVariantsResponse(
            variants=[variant_message(v) for v in rules.VARIANTS.values()]
        )

    async def Ping(
        self, request: engine_pb2.PingRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.PingResponse:
        return engine_pb2.PingResponse()

    @rpc
    async def ListVariants(
        self, request: engine_pb2.ListVariantsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.ListVariantsResponse:
        return self._variants

    @rpc
    async def Classify(
        self, request: engine_pb2.ClassifyRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.ClassifyResponse:
        v = variant_of(request.variant, request.overrides_json)
        cards = cards_of(request.cards, "cards")
        reading = text(request.reading, "reading", required=False) or None
        if reading is not None:
            try:
                rules.parse_reading(reading)
            except rules.NotAPattern as exc:
                raise invalid("NOT_A_PATTERN", str(exc), "reading") from None
        last: rules.Pattern | None = None
        if request.last.strip():
            try:
                last = rules.classify(v, cards_of(request.last, "last"))
            except rules.RulesError as exc:
                raise rules_error(exc, "last") from None
        try:
            pattern = rules.classify(v, cards, reading=reading, last=last)
        except rules.RulesError as exc:
            raise rules_error(exc, "cards") from None
        return engine_pb2.ClassifyResponse(
            cards=rules.format_cards(cards), pattern=pattern_message(pattern)
        )
