"""Typed rule errors, one tree under :class:`RulesError`.  Each carries a machine-readable
``reason`` code that the gRPC layer turns into a ``google.rpc.ErrorInfo`` reason and the CLI
prints.  The other errors of the tree live beside what raises them: ``CardParseError``
(cards), ``VariantError`` (variants), ``IllegalAction`` (actions), ``ReplayError`` (record)."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the rules raise for input they refuse."""

    reason = "RULES_ERROR"

    def __init__(self, message: str, reason: str | None = None) -> None:
        if reason is not None:
            self.reason = reason
        super().__init__(message)


class NotAPattern(RulesError):
    """The cards form no pattern of the game (or not the reading that was named)."""

    reason = "NOT_A_PATTERN"


class DoesNotBeat(RulesError):
    """The cards form a pattern, but no reading of it beats the last play."""

    reason = "DOES_NOT_BEAT"


class RecordError(RulesError):
    """A malformed game record; ``field`` is the path of the bad field (``actions[3].play``)."""

    reason = "BAD_RECORD"

    def __init__(self, message: str, field: str, reason: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message, reason)


class CardsNotInDeck(RulesError):
    """Cards the game's deck lacks, or holds fewer times (``BJ BJ`` in doudizhu3)."""

    reason = "CARDS_NOT_IN_DECK"
