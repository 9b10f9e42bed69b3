"""Typed rule errors, one tree under :class:`RulesError`.  Each carries a machine-readable
``reason`` code that the gRPC layer turns into a ``google.rpc.ErrorInfo`` reason and the CLI
prints.  The other errors of the tree live beside what raises them: ``CardParseError``
(cards), ``VariantError`` (variants), ``IllegalAction`` (actions), ``ReplayError`` (record)."""

from __future__ import annotations

import enum


class Reason(enum.StrEnum):
    """Every reason code the rules give (a ``str``: ``Reason.MUST_BID == "MUST_BID"``).  The
    services add their own (``services/common/reasons.py``); a test checks that the protos
    document each one."""

    RULES_ERROR = "RULES_ERROR"
    NOT_A_PATTERN = "NOT_A_PATTERN"
    DOES_NOT_BEAT = "DOES_NOT_BEAT"
    CARDS_NOT_IN_DECK = "CARDS_NOT_IN_DECK"
    INVALID_CARDS = "INVALID_CARDS"
    INVALID_OVERRIDE = "INVALID_OVERRIDE"
    INVALID_ROOM = "INVALID_ROOM"
    BAD_RECORD = "BAD_RECORD"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    MUST_BID = "MUST_BID"
    MUST_LEAD = "MUST_LEAD"
    MUST_HOLD_SPADE_THREE = "MUST_HOLD_SPADE_THREE"
    BID_TOO_LOW = "BID_TOO_LOW"
    BAD_BID = "BAD_BID"
    BAD_ACTION = "BAD_ACTION"
    WRONG_PHASE = "WRONG_PHASE"
    GAME_OVER = "GAME_OVER"
    CARDS_NOT_IN_HAND = "CARDS_NOT_IN_HAND"
    NO_SUCH_SEAT = "NO_SUCH_SEAT"
    BAD_DEAL = "BAD_DEAL"


class RulesError(ValueError):
    """Base of every error the rules raise for input they refuse."""

    reason: str = Reason.RULES_ERROR

    def __init__(self, message: str, reason: str | None = None) -> None:
        if reason is not None:
            self.reason = reason
        super().__init__(message)


class NotAPattern(RulesError):
    """The cards form no pattern of the game (or not the reading that was named)."""

    reason = Reason.NOT_A_PATTERN


class DoesNotBeat(RulesError):
    """The cards form a pattern, but no reading of it beats the last play."""

    reason = Reason.DOES_NOT_BEAT


class RecordError(RulesError):
    """A malformed game record; ``field`` is the path of the bad field (``actions[3].play``)."""

    reason = Reason.BAD_RECORD

    def __init__(self, message: str, field: str, reason: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message, reason)


class CardsNotInDeck(RulesError):
    """Cards the game's deck lacks, or holds fewer times (``BJ BJ`` in doudizhu3)."""

    reason = Reason.CARDS_NOT_IN_DECK
