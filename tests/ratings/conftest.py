"""The ratings tests' databases (SQLite, and PostgreSQL when CARDROOM_TEST_PG_URL is set) and
the matchmaker tests' real servers."""

from tests.databases import db_url
from tests.matchmaker.conftest import cluster, engine_target

__all__ = ["cluster", "db_url", "engine_target"]
