"""The database every database test runs on: SQLite always and, when CARDROOM_TEST_PG_URL is
set, PostgreSQL too, each PostgreSQL test in a schema of its own so tests never see each
other's rows.  Test packages re-export :func:`db_url` from their conftest."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from services.common.db import normalize_url

PG_URL = os.environ.get("CARDROOM_TEST_PG_URL", "").strip()
BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(normalize_url(PG_URL))
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
