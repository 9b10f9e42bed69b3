"""One set of limits for every cardroom service: ids, causes and sequence numbers.

Every service checks what a client sends against these before any database or rules work, so
a value the store cannot hold (a NUL byte in PostgreSQL text, a sequence number past an
INTEGER column) is refused as bad input, never discovered by the database.  Pure: no gRPC, no
SQL; a failed check raises :class:`LimitError` naming the field, which each service turns into
its INVALID_ARGUMENT.

* **ids** (game, request, player, table; an event's actor): 1 to ``MAX_*`` characters, every
  one printable (``str.isprintable``: no control character, no NUL, no line or paragraph
  separator, no format or unassigned code point), and not only spaces.
* **causes**: the values of ``cardroom.v1.Cause`` (0 unspecified to 5 disconnect).
* **sequence numbers**: 0 to ``MAX_SEQ`` = 2^31 − 1, what a PostgreSQL INTEGER (and so every
  backend's ``seq`` column) holds; a game's events are numbered from 1 without gaps.
* **timestamps** (``google.protobuf.Timestamp``): protobuf's valid range, 0001-01-01T00:00:00Z
  to 9999-12-31T23:59:59.999999999Z, nanos 0 to 999,999,999.  Outside it a Timestamp cannot
  become a datetime or JSON, so one stored would break every later reader of the game.
"""

from __future__ import annotations

from typing import Any

from services.common.reasons import ServiceReason

MAX_GAME_ID = 64
MAX_REQUEST_ID = 128
MAX_PLAYER_ID = 128
MAX_TABLE_ID = 64
MAX_EVENT_TYPE = 32
MAX_VARIANT = 32
#: The most requests one batch call (the engine's ApplyBatch) carries.
MAX_BATCH = 256
#: The largest sequence number (and table game number) any store column holds.
MAX_SEQ = 2**31 - 1
#: google.protobuf.Timestamp's valid range in seconds (0001-01-01 to 9999-12-31, UTC).
MIN_TIMESTAMP_S = -62_135_596_800
MAX_TIMESTAMP_S = 253_402_300_799

#: cardroom.v1.Cause values, by the name the store and the game record use.
CAUSES = {0: "unspecified", 1: "player", 2: "timeout", 3: "autoplay", 4: "bot", 5: "disconnect"}


class LimitError(ValueError):
    """A value outside the limits: ``field`` is its path in the request, ``reason`` the code
    (INVALID_FIELD unless the service names a more precise one) and, when it is missing,
    ``missing`` is true."""

    def __init__(
        self,
        field: str,
        message: str,
        reason: str = ServiceReason.INVALID_FIELD,
        missing: bool = False,
    ) -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason
        self.missing = missing


def check_id(
    value: str,
    field: str,
    limit: int,
    *,
    required: bool = True,
    reason: str = ServiceReason.INVALID_FIELD,
) -> str:
    """``value`` when it is a valid id (or empty and not ``required``)."""
    if not value:
        if required:
            raise LimitError(
                field, f"{field} is required", ServiceReason.MISSING_FIELD, missing=True
            )
        return value
    if len(value) > limit:
        raise LimitError(field, f"{field} must be 1–{limit} characters", reason)
    if not value.isprintable() or not value.strip():
        raise LimitError(
            field, f"{field} must be printable characters (no control characters or NUL)", reason
        )
    return value


def game_id(
    value: str,
    field: str = "game_id",
    *,
    required: bool = True,
    reason: str = ServiceReason.INVALID_FIELD,
) -> str:
    return check_id(value, field, MAX_GAME_ID, required=required, reason=reason)


def request_id(
    value: str, field: str = "request_id", *, reason: str = ServiceReason.INVALID_FIELD
) -> str:
    return check_id(value, field, MAX_REQUEST_ID, reason=reason)


def player_id(value: str, field: str = "player_id", *, required: bool = True) -> str:
    return check_id(value, field, MAX_PLAYER_ID, required=required)


def table_id(value: str, field: str = "table.id", *, required: bool = True) -> str:
    return check_id(value, field, MAX_TABLE_ID, required=required)


def cause(value: int, field: str = "cause") -> int:
    if value not in CAUSES:
        raise LimitError(field, f"{field} {value} is not a cause (0–{max(CAUSES)})")
    return value


def seq(value: int, field: str) -> int:
    """A sequence number a store can hold (0 included: "before the first event")."""
    if not 0 <= value <= MAX_SEQ:
        raise LimitError(field, f"{field} must be 0–{MAX_SEQ}")
    return value


def timestamp(value: Any, field: str) -> Any:
    """A ``google.protobuf.Timestamp`` inside protobuf's valid range (its ``seconds`` and
    ``nanos`` are read; the message is returned unchanged)."""
    if not MIN_TIMESTAMP_S <= value.seconds <= MAX_TIMESTAMP_S:
        raise LimitError(
            f"{field}.seconds",
            f"{field} must be between 0001-01-01 and 9999-12-31 "
            f"({MIN_TIMESTAMP_S}–{MAX_TIMESTAMP_S} seconds)",
        )
    if not 0 <= value.nanos <= 999_999_999:
        raise LimitError(f"{field}.nanos", f"{field}.nanos must be 0–999999999")
    return value
