"""Run the alembic migrations in ``migrations/`` against a database URL (``cardroom db
upgrade``; ``make run`` migrates the SQLite store this way before starting).  One history
covers the tables of every service."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from .db import default_url, make_engine, missing_sqlite_file, normalize_url

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(url: str | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    # alembic's config is interpolated: a literal % in a password must be doubled.
    cfg.set_main_option("sqlalchemy.url", normalize_url(url or default_url()).replace("%", "%%"))
    return cfg


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Bring the database at ``url`` (default: the configured store) to ``revision``."""
    url = url or default_url()
    make_engine(url).dispose()  # creates the SQLite file's directory if needed
    command.upgrade(alembic_config(url), revision)


def pending(url: str | None = None) -> str | None:
    """None when the database at ``url`` is at the newest revision, else a message saying
    where it is (a server refuses to start on a database it does not know)."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    missing = missing_sqlite_file(url)
    if missing is not None:  # asking must not create the file (or its directories)
        return f"there is no database at {missing}"
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
    if current == head:
        return None
    return f"the database is at revision {current or 'none'}, not {head}"


def downgrade(url: str | None, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)
