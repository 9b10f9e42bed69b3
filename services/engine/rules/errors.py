"""Typed rule errors.  Each carries a machine-readable ``reason`` code that the gRPC layer
turns into a ``google.rpc.ErrorInfo`` reason and the CLI prints."""

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


class CardsNotInDeck(RulesError):
    """Cards the game's deck lacks, or holds fewer times (``BJ BJ`` in doudizhu3)."""

    reason = "CARDS_NOT_IN_DECK"
