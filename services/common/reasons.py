"""Every reason code cardroom's services answer with, in one place: the rules' own
(:class:`~services.rules.errors.Reason`) and the services' (:class:`ServiceReason`).
Each is a ``str``, sent as the ``google.rpc.ErrorInfo`` reason of a refusal; the protos
document them per RPC, and a test checks the two lists agree.
"""

from __future__ import annotations

import enum
from typing import Final

from services.rules.errors import Reason as RulesReason

__all__ = ["ALL_REASONS", "RulesReason", "ServiceReason"]


class ServiceReason(enum.StrEnum):
    """The reasons the services add to the rules' (field checks, tokens, access, the store)."""

    ALREADY_QUEUED = "ALREADY_QUEUED"
    ALREADY_SEATED = "ALREADY_SEATED"
    BAD_APPEND = "BAD_APPEND"
    BAD_EVENT = "BAD_EVENT"
    BAD_GAME_ID = "BAD_GAME_ID"
    BAD_HEADER = "BAD_HEADER"
    BAD_PAGE_TOKEN = "BAD_PAGE_TOKEN"
    BAD_REQUEST_ID = "BAD_REQUEST_ID"
    CHAIN_BROKEN = "CHAIN_BROKEN"
    COMMITMENT_MISMATCH = "COMMITMENT_MISMATCH"
    CONFLICT = "CONFLICT"
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"
    ENGINE_UNAVAILABLE = "ENGINE_UNAVAILABLE"
    EVENTS_AFTER_END = "EVENTS_AFTER_END"
    EVENT_MISMATCH = "EVENT_MISMATCH"
    GAME_EXISTS = "GAME_EXISTS"
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    GAME_NOT_OVER = "GAME_NOT_OVER"
    HEADER_NOT_FIRST = "HEADER_NOT_FIRST"
    INCOMPLETE_ACTION = "INCOMPLETE_ACTION"
    INVALID_FIELD = "INVALID_FIELD"
    LOG_INVALID = "LOG_INVALID"
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    MISSING_EVENTS = "MISSING_EVENTS"
    MISSING_FIELD = "MISSING_FIELD"
    NOT_ESCAPED = "NOT_ESCAPED"
    NOT_READY = "NOT_READY"
    NOT_SEATED = "NOT_SEATED"
    NO_EVENTS = "NO_EVENTS"
    NO_HEADER = "NO_HEADER"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    REPLAY_UNAVAILABLE = "REPLAY_UNAVAILABLE"
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    RESULT_MISMATCH = "RESULT_MISMATCH"
    SEQ_CONFLICT = "SEQ_CONFLICT"
    SERVER_STOPPING = "SERVER_STOPPING"
    STALE_SEQ = "STALE_SEQ"
    STATE_TOKEN_INVALID = "STATE_TOKEN_INVALID"
    STATUS_MISMATCH = "STATUS_MISMATCH"
    STORE_ERROR = "STORE_ERROR"
    TABLE_CLOSED = "TABLE_CLOSED"
    TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
    TICKET_CLOSED = "TICKET_CLOSED"
    TICKET_NOT_FOUND = "TICKET_NOT_FOUND"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    UNEXPECTED_EVENT = "UNEXPECTED_EVENT"
    WRITE_CONFLICT = "WRITE_CONFLICT"
    UNKNOWN_VARIANT = "UNKNOWN_VARIANT"


#: Every reason code a caller may receive.
ALL_REASONS: Final = frozenset(RulesReason) | frozenset(ServiceReason)
