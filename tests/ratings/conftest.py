"""The ratings tests' databases: SQLite, and PostgreSQL when CARDROOM_TEST_PG_URL is set."""

from tests.databases import db_url

__all__ = ["db_url"]
