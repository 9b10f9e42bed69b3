"""The matchmaker tests' servers, for the shared pieces' tests that need a real matchmaker."""

from tests.matchmaker.conftest import engine_target

__all__ = ["engine_target"]
