"""A database that cannot be reached, or that ended the session, is told apart from a wrong
statement (services.common.db.database_unavailable); the matchmaker retries once and then
answers UNAVAILABLE DATABASE_UNAVAILABLE, never INTERNAL.  PostgreSQL ends a session left idle
in a transaction for the matchmaker's lease, so a paused or cut-off instance frees its locks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import grpc
import pytest
from cardroom.v1 import matchmaker_pb2 as M
from sqlalchemy import create_engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from services.common.db import database_unavailable, make_engine
from services.common.grpc_errors import details
from services.common.migrate import upgrade
from services.common.reasons import ServiceReason
from services.matchmaker.clients import Engine, Replay
from services.matchmaker.runner import Runner
from services.matchmaker.store import Store
from tests.databases import PG_URL
from tests.matchmaker.conftest import Cluster
from tests.proxy import TcpProxy

needs_pg = pytest.mark.skipif(not PG_URL, reason="needs CARDROOM_TEST_PG_URL")


def _raised(engine: object, sql: str) -> BaseException:
    try:
        with engine.connect() as conn:  # type: ignore[attr-defined]
            conn.exec_driver_sql(sql)
    except Exception as exc:
        return exc
    raise AssertionError("no error")


def test_an_unreachable_database_is_unavailable_and_a_bad_statement_is_not(db_url: str) -> None:
    dead = create_engine(f"sqlite:///{'/nonexistent-dir/x' * 2}.sqlite3")
    assert database_unavailable(_raised(dead, "SELECT 1"))
    if db_url.startswith("postgresql"):
        dead = make_engine(
            "postgresql://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 2}
        )
        assert database_unavailable(_raised(dead, "SELECT 1"))
    engine = make_engine(db_url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE u (k INTEGER PRIMARY KEY)")
        conn.exec_driver_sql("INSERT INTO u VALUES (1)")
    duplicate = _raised(engine, "INSERT INTO u VALUES (1)")
    assert isinstance(duplicate, IntegrityError) and not database_unavailable(duplicate)
    assert not database_unavailable(ValueError("not a database error"))
    engine.dispose()


def test_the_runner_retries_once_on_a_dropped_session(db_url: str) -> None:
    upgrade(db_url)
    store = Store(make_engine(db_url))
    calls: list[int] = []

    def flaky() -> int:
        calls.append(1)
        if len(calls) == 1:  # a real driver error the first time, as after a lost session
            e = create_engine(f"sqlite:///{'/nonexistent-dir/y' * 2}.sqlite3")
            with e.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        return 7

    def broken() -> int:
        calls.append(1)
        with store.engine.connect() as conn:
            conn.exec_driver_sql("SELECT * FROM no_such_table_here")
        return 0

    async def main() -> None:
        runner = Runner(store, Engine("127.0.0.1:1"), Replay("127.0.0.1:1"))
        assert await runner.db(flaky) == 7 and len(calls) == 2
        calls.clear()
        with pytest.raises(DBAPIError):
            await runner.db(broken)
        # SQLite calls a missing table an OperationalError (retried); PostgreSQL does not.
        assert len(calls) == (2 if db_url.startswith("sqlite") else 1)

    asyncio.run(main())
    store.close()


@needs_pg
def test_postgres_ends_a_session_idle_in_a_transaction(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    engine = make_engine(db_url, idle_in_transaction_ms=300)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SHOW idle_in_transaction_session_timeout").scalar() == "300ms"
        # The URL's own options (this test's schema) are kept.
        assert "t_" in str(conn.exec_driver_sql("SHOW search_path").scalar())
    conn = engine.connect()
    conn.exec_driver_sql("SELECT 1")  # a transaction is open (SQLAlchemy autobegins)
    time.sleep(1.0)  # paused, or cut off: the server ends the session, freeing its locks
    with pytest.raises(DBAPIError) as info:
        conn.exec_driver_sql("SELECT 1")
    assert database_unavailable(info.value)
    conn.close()
    engine.dispose()


@pytest.fixture
def cut_off(engine_target: str) -> Iterator[tuple[Cluster, TcpProxy]]:
    assert PG_URL
    parts = urlsplit(PG_URL)
    upstream = parts.hostname or "127.0.0.1", parts.port or 5432
    proxy = TcpProxy(*upstream)
    proxied = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}"))
    upgrade(PG_URL)
    cluster = Cluster(PG_URL, engine_target)
    cluster.start_replay()
    cluster.db_url = proxied  # the matchmaker reaches PostgreSQL through the proxy only
    cluster.start_mm()
    yield cluster, proxy
    proxy.heal()
    cluster.stop()
    proxy.close()


@needs_pg
def test_the_matchmaker_cut_off_from_postgres_answers_unavailable(
    cut_off: tuple[Cluster, TcpProxy],
) -> None:
    cluster, proxy = cut_off
    stub = cluster.mm()
    proxy.cut()
    with pytest.raises(grpc.RpcError) as info:
        stub.Enqueue(M.EnqueueRequest(player_id="cut", variant="doudizhu3"), timeout=20)
    d = details(info.value)
    assert (d.code, d.reason) == (grpc.StatusCode.UNAVAILABLE, ServiceReason.DATABASE_UNAVAILABLE)
    proxy.heal()
    ticket = stub.Enqueue(M.EnqueueRequest(player_id="back", variant="doudizhu3"), timeout=20)
    assert ticket.ticket_id
    stub.CancelTicket(M.CancelTicketRequest(ticket_id=ticket.ticket_id), timeout=10)
