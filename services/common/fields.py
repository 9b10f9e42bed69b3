"""Field checks and rules errors for every servicer: what a client sent is checked here before it
reaches the rules or the database, and every refusal is a
:class:`~services.common.grpc_errors.ServiceError` with a reason code, so nothing a client
sends surfaces as INTERNAL or UNKNOWN.  Ids and numbers have their limits in
:mod:`services.common.limits`; this module turns a broken limit into a refusal.
"""

from __future__ import annotations

import json
from typing import Any

import grpc

from services import rules
from services.common.reasons import RulesReason, ServiceReason

from . import grpc_errors, limits
from .grpc_errors import ServiceError, invalid, missing

#: Longest card list or other short text accepted; a two-deck game has 108 cards (≤ 3 chars
#: each with separators), so this only stops abuse.
MAX_TEXT = 1024
MAX_JSON = 64 * 1024

#: Reasons that describe the request itself; every other rules reason depends on the game's
#: state (or the play to beat) and is FAILED_PRECONDITION.
INVALID_REASONS = frozenset(
    {
        ServiceReason.MISSING_FIELD,
        ServiceReason.INVALID_FIELD,
        ServiceReason.UNKNOWN_VARIANT,
        RulesReason.INVALID_OVERRIDE,
        RulesReason.INVALID_ROOM,
        RulesReason.INVALID_CARDS,
        RulesReason.CARDS_NOT_IN_DECK,
        RulesReason.NOT_A_PATTERN,
        RulesReason.NO_SUCH_SEAT,
        RulesReason.BAD_DEAL,
        RulesReason.BAD_ACTION,
        RulesReason.BAD_BID,
        RulesReason.BAD_RECORD,
        ServiceReason.STATE_TOKEN_INVALID,
    }
)


def rules_error(exc: Exception, field: str | None = None) -> ServiceError:
    """The service error for an exception the rules raised about ``field``: INVALID_ARGUMENT for
    what the request itself got wrong (:data:`INVALID_REASONS`), FAILED_PRECONDITION for what
    the game's state refuses."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, rules.CardParseError):
        return invalid(RulesReason.INVALID_CARDS, str(exc), field)
    if isinstance(exc, rules.VariantError):
        if exc.field == "variant":
            return invalid(ServiceReason.UNKNOWN_VARIANT, str(exc), field or "variant")
        path = f"{field}.{exc.field}" if field and exc.field else field or exc.field or None
        return invalid(RulesReason.INVALID_OVERRIDE, str(exc), path)
    if isinstance(exc, rules.ReplayError):
        where = f"actions[{exc.index}]"
        meta = {"index": str(exc.index), "seat": str(exc.seat)}
        code = (
            grpc.StatusCode.INVALID_ARGUMENT
            if exc.reason in INVALID_REASONS
            else grpc.StatusCode.FAILED_PRECONDITION
        )
        return ServiceError(code, exc.reason, str(exc), where, meta)
    if isinstance(exc, rules.RecordError):
        return invalid(exc.reason, str(exc), exc.field or field)
    if isinstance(exc, rules.RulesError):
        if exc.reason in INVALID_REASONS:
            return invalid(exc.reason, str(exc), field)
        return grpc_errors.failed(exc.reason, str(exc), field)
    return invalid(ServiceReason.INVALID_FIELD, str(exc), field)


def limited(exc: limits.LimitError) -> ServiceError:
    """The refusal of a value outside services/common/limits.py."""
    if exc.missing:
        return missing(exc.field)
    return invalid(exc.reason, str(exc), exc.field)


def text(value: str, field: str, *, required: bool = True, limit: int = MAX_TEXT) -> str:
    if required and not value.strip():
        raise missing(field)
    if len(value) > limit:
        raise grpc_errors.bad_field(field, f"{field} is longer than {limit} characters")
    return value


def json_object(
    raw: str, field: str, *, reason: str = ServiceReason.INVALID_FIELD
) -> dict[str, Any]:
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
        raise invalid(RulesReason.INVALID_CARDS, str(exc), field) from None


def room_of(msg: Any, field: str = "room") -> rules.Room:
    """The rules' Room of a ``cardroom.v1.Room`` message (stake and bounds in their fields,
    variant overrides and table settings in ``overrides_json``), or INVALID_ARGUMENT naming
    the field: INVALID_ROOM, INVALID_OVERRIDE."""
    data: dict[str, Any] = json_object(
        msg.overrides_json, f"{field}.overrides_json", reason=RulesReason.INVALID_OVERRIDE
    )
    for name in ("stake", "max_multiplier", "escape_multiplier"):
        if name in data:
            raise invalid(
                RulesReason.INVALID_OVERRIDE,
                f"{name} is a room field, not a variant override",
                f"{field}.overrides_json.{name}",
            )
    data["stake"] = msg.stake or 1
    if msg.HasField("max_multiplier"):
        data["max_multiplier"] = msg.max_multiplier
    if msg.HasField("escape_multiplier"):
        data["escape_multiplier"] = msg.escape_multiplier
    try:
        return rules.Room.from_dict(data)
    except rules.VariantError as exc:
        # A table setting arrives in overrides_json; stake and the bounds in their own fields.
        where = f"{field}.overrides_json" if exc.field in rules.TABLE_FIELDS else field
        raise invalid(RulesReason.INVALID_ROOM, str(exc), f"{where}.{exc.field}") from None


def variant_in_room(
    name: str, room: rules.Room, field: str = "variant", room_field: str = "room"
) -> rules.Variant:
    """The variant ``name`` in ``room``: its overrides applied, the game playable to its end
    and every score within bounds — or INVALID_ARGUMENT naming the field: INVALID_ROOM for
    the room's own fields (``room.stake``), INVALID_OVERRIDE for a variant override
    (``room.overrides_json.min_straight``)."""
    text(name, field)
    try:
        base = rules.variant(name)
    except rules.VariantError as exc:
        raise invalid(ServiceReason.UNKNOWN_VARIANT, str(exc), field) from None
    try:
        return room.variant_for(base.name)
    except rules.VariantError as exc:
        if exc.field in rules.ROOM_FIELDS:
            raise invalid(RulesReason.INVALID_ROOM, str(exc), f"{room_field}.{exc.field}") from None
        path = f"{room_field}.overrides_json" + (f".{exc.field}" if exc.field else "")
        raise invalid(RulesReason.INVALID_OVERRIDE, str(exc), path) from None
    except (TypeError, ValueError) as exc:
        path = f"{room_field}.overrides_json"
        raise invalid(RulesReason.INVALID_OVERRIDE, f"bad override: {exc}", path) from None
