"""Run the alembic migrations in ``migrations/`` against a database URL (``cardroom db
upgrade``; ``make run`` migrates the SQLite store this way before starting)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from .db import default_url, make_engine, normalize_url

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


def downgrade(url: str | None, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)
