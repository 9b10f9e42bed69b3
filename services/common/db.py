"""The database every stateful service shares: one URL setting, two engines, one metadata.

SQLite (a file under the data directory) is the zero-setup default; PostgreSQL is the store
for many processes and machines.  ``CARDROOM_DATABASE_URL`` selects: ``sqlite:///path``, a
plain ``postgresql://user@host:port/db`` (mapped to psycopg 3), or ``postgresql+psycopg://…``.

Every service defines its tables on :data:`metadata`, so one alembic history
(``migrations/``) covers them all and a test compares it with the models on both databases.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event
from sqlalchemy.exc import DBAPIError, OperationalError

from services.common.settings import DEFAULT_DATA_DIR as DEFAULT_DATA_DIR  # its one place

#: The tables of every service (replay's in services/replay/models.py, …), named by one
#: convention so that migrations and models agree on constraint names.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


def default_url() -> str:
    """``CARDROOM_DATABASE_URL``, else a SQLite file under ``CARDROOM_DATA_DIR`` (./data)."""
    url = os.environ.get("CARDROOM_DATABASE_URL", "").strip()
    if url:
        return url
    data_dir = Path(os.environ.get("CARDROOM_DATA_DIR", DEFAULT_DATA_DIR))
    return f"sqlite:///{data_dir / 'cardroom.sqlite3'}"


def normalize_url(url: str) -> str:
    """Map the plain ``postgresql://`` and ``postgres://`` schemes to the psycopg 3 driver."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def missing_sqlite_file(url: str | None = None) -> str | None:
    """The path of the SQLite file ``url`` names when there is no such file (opening it would
    create it, and its directories), else None: a PostgreSQL URL, memory, or a file that is
    there.  Commands that only read ask this first, so that they never create anything."""
    url = normalize_url(url or default_url())
    if not url.startswith("sqlite"):
        return None
    path = url.split("///", 1)[1].split("?", 1)[0] if "///" in url else ""
    if not path or path == ":memory:" or Path(path).exists():
        return None
    return path


def make_engine(
    url: str | None = None,
    *,
    idle_in_transaction_ms: int = 0,
    lock_timeout_ms: int = 0,
    application_name: str = "",
    **kwargs: Any,
) -> Engine:
    """An engine for ``url`` (default: :func:`default_url`), with SQLite set up for
    concurrent readers (WAL), a busy timeout and enforced foreign keys.

    ``idle_in_transaction_ms`` (PostgreSQL): the server ends a session that sits inside a
    transaction this long without a statement, so that a process cut off or paused mid-
    transaction does not hold its row locks for ever (TCP alone may take minutes to notice).
    Its next statement then fails with SQLSTATE 25P03: :func:`database_unavailable`.

    ``lock_timeout_ms`` (PostgreSQL): a statement waits this long at most for a row lock
    (SQLSTATE 55P03, an OperationalError: :func:`database_unavailable`), so that a lock held
    by a cut-off peer never blocks a worker thread for good.  ``application_name`` names the
    sessions in ``pg_stat_activity`` (the matchmaker finds its peers' stuck sessions by it)."""
    url = normalize_url(url or default_url())
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **kwargs)
        event.listen(engine, "connect", _sqlite_on_connect)
        # pysqlite's own transaction handling defers BEGIN; take the write lock up front
        # instead, so two writers serialise rather than fail on upgrade from read to write.
        event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    engine = create_engine(url, **kwargs)
    sets = []
    if idle_in_transaction_ms > 0:
        sets.append(f"SET idle_in_transaction_session_timeout = {int(idle_in_transaction_ms)}")
    if lock_timeout_ms > 0:
        sets.append(f"SET lock_timeout = {int(lock_timeout_ms)}")
    if application_name:
        sets.append("SET application_name = '" + application_name.replace("'", "''") + "'")
    if sets:
        # A SET per new connection, not connect_args: the URL's own ``options`` (a search
        # path, say) would be replaced by ours.
        def on_connect(dbapi_conn: Any, _record: Any) -> None:
            with dbapi_conn.cursor() as cur:
                cur.execute("; ".join(sets))
            dbapi_conn.commit()

        event.listen(engine, "connect", on_connect)
        _SESSION_SETS[engine] = "; ".join(sets)
    return engine


#: The SET statements :func:`make_engine` runs on each new connection of an engine, for the
#: connections made outside its pool that must behave as its own (:func:`session_sets`).
_SESSION_SETS: weakref.WeakKeyDictionary[Engine, str] = weakref.WeakKeyDictionary()


def session_sets(engine: Engine) -> str:
    """The SET statements every connection of ``engine`` starts with ("" for none)."""
    return _SESSION_SETS.get(engine, "")


#: SQLSTATE 25P03: the server ended the session after it sat idle in a transaction too long.
IDLE_IN_TRANSACTION_ENDED = "25P03"


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached or dropped this session (an
    outage, or the idle-in-transaction timeout of :func:`make_engine`), rather than that a
    statement was wrong: worth one retry on a fresh connection, then UNAVAILABLE."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OperationalError):
            return True
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if getattr(current, "sqlstate", None) == IDLE_IN_TRANSACTION_ENDED:
            return True
        # SQLAlchemy raises its error ``from`` the driver's, which carries the SQLSTATE.
        current = current.__cause__ or current.__context__
    return False


#: How long a SQLite statement waits for another connection's write lock before failing.
SQLITE_BUSY_TIMEOUT_MS = 10_000


def _sqlite_on_connect(dbapi_conn: Any, _record: Any) -> None:
    dbapi_conn.isolation_level = None  # let the "begin" listener issue BEGIN itself
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cur.close()


async def database_ready(engine: Engine, timeout_s: float = 3.0) -> bool:
    """A readiness probe (``common.server.add_readiness``): the database answers in time."""
    try:
        async with asyncio.timeout(timeout_s):
            return await asyncio.to_thread(answers, engine)
    except TimeoutError:
        return False


def answers(engine: Engine) -> bool:
    """Whether the database answers a trivial query now (a readiness probe's question).
    Twice: on an engine without pre-ping the first try may draw a connection that died in
    the pool (the failure discards the pool's old connections; the second opens anew)."""
    for _ in range(2):
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        except Exception:
            continue
        return True
    return False
