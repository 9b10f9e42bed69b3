"""What differs between the two databases the matchmaker's store runs on, in one place: one
writer per database, as replay's recorders are.

* SQLite: one writer at a time, so this process's writers queue on a people-first lock
  (priority.PeopleFirstLock) rather than in SQLite's busy handler, which sleeps; reads go
  through an engine of their own in autocommit, which WAL lets run beside a writer; no
  NOTIFY (one instance), no peers to reap.
* PostgreSQL: reads in autocommit on the engine's pool (no BEGIN/ROLLBACK round trips); a
  table write with no holds to release is one statement (data-modifying CTEs, one round trip
  instead of five); each committed write is announced by NOTIFY (``table_id:seq``, through
  an Announcer, after the commit) and seatings by ``pg_notify`` in their transaction; and
  any instance ends a peer's sessions stuck on their client inside a transaction.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import JSON, Connection, Engine, case, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.pool import QueuePool

from services.common import logging as clog
from services.common.db import SQLITE_BUSY_TIMEOUT_MS, _sqlite_on_connect, database_unavailable
from services.common.notify import Announcer, loop_connection

from .models import outbox, player_stats, requests, table_events, tables
from .priority import PeopleFirstLock, Priority, current
from .table import Table

if TYPE_CHECKING:
    from .store import Write

log = clog.get_logger("cardroom.matchmaker")

NOTIFY_CHANNEL = "cardroom_mm"
#: PostgreSQL connections of the event loop for table writes (LoopConnections); a write
#: that finds them all in use waits for one, people's writes first.
LOOP_CONNECTIONS = 8
#: ``application_name`` of every matchmaker session: PostgresBackend.reap_stuck looks for
#: stuck sessions of any instance by it.
APPLICATION_NAME = "cardroom-matchmaker"
#: The mm_tables columns a write never changes (and does not re-send).
FIXED = frozenset({"table_id", "variant", "config", "created_ms"})


class Conflict(Exception):
    """Another writer moved the table on: nothing was written; reload and decide again."""


class WouldWait(Exception):
    """SQLite's write lock is taken now (by a database thread of this process or by another
    process on the same file): a call on the event loop's thread does not wait for it, it
    runs in a database thread instead.  Raised before anything is written."""


#: True while a store call runs on the event loop's own thread (Runner.db, SQLite only): its
#: write transaction then takes SQLite's write lock only if it is free at once (WouldWait).
ON_LOOP: ContextVar[bool] = ContextVar("cardroom_mm_on_loop", default=False)

T = TypeVar("T")


def run_on_loop(call: Callable[[], T]) -> T:
    """A short SQLite store call (store.on_loop) right here on the event loop's thread: on
    the bench's bot tables the hop to a database thread and back (the pool's queue, waking a
    thread, the GIL handed over twice, the loop woken through its self-pipe) cost a quarter
    of the matchmaker's CPU per action.  SQLite on a local file answers such a call in a
    fraction of a millisecond and never waits here for the write lock (WouldWait).
    WouldWait when it did not run (the lock was taken) or the database dropped the
    connection: the caller runs it in a thread (Runner.db)."""
    token = ON_LOOP.set(True)
    try:
        return call()
    except WouldWait:
        raise
    except Exception as exc:
        if not database_unavailable(exc):
            raise
        raise WouldWait from exc  # in a thread, on a fresh connection (Runner._once_more)
    finally:
        ON_LOOP.reset(token)


def outbox_rows(w: Write, now: int) -> list[dict[str, Any]]:
    """The outbox rows of a write's appends for replay, due ``w.outbox_delay_ms`` from now."""
    return [
        {"game_id": r.game_id, "first_seq": r.events[0].envelope.seq,
         "body": r.SerializeToString(), "created_ms": now,
         "next_try_ms": now + w.outbox_delay_ms, "attempts": 0}
        for r in w.outbox
    ]  # fmt: skip


def results_rows(w: Write) -> list[dict[str, Any]]:
    """The player_stats rows of a write's results (:func:`add_results_statement`'s
    parameters), in one order everywhere, so that two endings never wait on each other."""
    return [
        {"player_id": r.player_id, "family": r.family, "games": 1, "total": r.score,
         "last_game_id": r.game_id, "last_score": r.score, "last_ended_ms": r.ended_ms}
        for r in sorted(w.results, key=lambda r: (r.player_id, r.family))
    ]  # fmt: skip


def add_results_statement(postgres: bool) -> Any:
    """One statement inserts a player's row or adds the game to it (no read-then-write that
    two instances could race); the last game is the one that ended last."""
    ins = (postgresql.insert if postgres else sqlite.insert)(player_stats)
    new, old = ins.excluded, player_stats.c
    later = new.last_ended_ms >= old.last_ended_ms
    return ins.on_conflict_do_update(
        index_elements=[old.player_id, old.family],
        set_={
            "games": old.games + new.games,
            "total": old.total + new.total,
            "last_game_id": case((later, new.last_game_id), else_=old.last_game_id),
            "last_score": case((later, new.last_score), else_=old.last_score),
            "last_ended_ms": case((later, new.last_ended_ms), else_=old.last_ended_ms),
        },
    )


class SqliteBackend:
    postgres = False

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.reader = _sqlite_reader(engine)
        self._lock = PeopleFirstLock()
        self.add_results = add_results_statement(postgres=False)
        self._loop_raw: sqlite3.Connection | None = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        if ON_LOOP.get():
            with self._transaction_now() as conn:
                yield conn
            return
        self._lock.acquire()
        try:
            with self.engine.begin() as conn:
                yield conn
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def _transaction_now(self) -> Iterator[Connection]:
        """A write transaction that never waits for the write lock, for the event loop's
        thread: WouldWait when this process's threads hold or want the lock, or another
        process holds the file's (its BEGIN IMMEDIATE with no busy timeout: SQLITE_BUSY at
        once instead of sleeping in the busy handler with the whole loop stopped)."""
        if not self._lock.acquire_now():
            raise WouldWait
        try:
            with self.engine.connect() as conn:
                raw = conn.connection.driver_connection
                assert raw is not None
                raw.execute("PRAGMA busy_timeout=0")
                try:
                    try:
                        tx = conn.begin()
                    except OperationalError as exc:
                        if getattr(exc.orig, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY:
                            raise WouldWait from None
                        raise
                    with tx:
                        yield conn
                finally:
                    # Held now, the write lock needs no more waiting (WAL: a commit takes no
                    # further lock); the pooled connection is handed back as it was.
                    raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        finally:
            self._lock.release()

    def notify(self, conn: Connection, key: str) -> None:
        """Nothing: one instance, whose own streams are woken in memory."""

    def announce(self, key: str) -> None:
        """Nothing (as :meth:`notify`)."""

    def announce_unless(self, nobody_listens: Callable[[], bool]) -> None:
        """Nothing: no announcements."""

    def write_in_one_statement(
        self,
        table: Table,
        values: dict[str, Any],
        ev_rows: list[dict[str, Any]],
        w: Write,
        now: int,
    ) -> Table | None:
        """On the event loop's thread (run_on_loop), the whole conditional write on this
        backend's own connection for it, in the driver alone: no SQLAlchemy Connection,
        transaction or events per write (with the statements already on the driver, those
        were most of what was left of a move's write), and no busy-timeout switch (that
        connection never waits).  None elsewhere: a database thread takes the transaction's
        statements in turn (store._write_rows)."""
        if not ON_LOOP.get():
            return None
        raw = self._loop_connection()
        if raw is None:
            return None
        if not self._lock.acquire_now():
            raise WouldWait
        try:
            raw.execute("BEGIN IMMEDIATE")  # SQLITE_BUSY at once if another process has it
            try:
                if not self._write_rows(raw, values, ev_rows, outbox_rows(w, now)):
                    raise Conflict(table.table_id)
                if w.results:
                    raw.executemany(_SQLITE_ADD_RESULTS, results_rows(w))
                if w.request is not None:
                    tid, rid, digest, response = w.request
                    try:
                        raw.execute(_SQLITE_INSERT_REQUEST, (tid, rid, digest,
                                    response.SerializeToString(), now))  # fmt: skip
                    except sqlite3.IntegrityError:
                        # The same request id won elsewhere meanwhile: this write must not land.
                        raise Conflict(table.table_id) from None
                raw.execute("COMMIT")
            except BaseException:
                if raw.in_transaction:
                    raw.rollback()
                raise
        except sqlite3.Error as exc:
            # Busy, or anything else the driver says (nothing was written): a database
            # thread does it again through SQLAlchemy, which waits for the lock, or raises
            # the error as every other store call does (an outage: UNAVAILABLE).
            if not (isinstance(exc, sqlite3.OperationalError)
                    and exc.sqlite_errorcode == sqlite3.SQLITE_BUSY):  # fmt: skip
                self._drop_loop_connection()
            raise WouldWait from exc
        finally:
            self._lock.release()
        return table

    def _loop_connection(self) -> sqlite3.Connection | None:
        """The event loop thread's own connection to the database file (made on first use,
        set up as the engine's are, but never waiting for the write lock); None for a
        database that is no file (another connection to ``:memory:`` is another database)."""
        if self._loop_raw is None:
            path = self.engine.url.database
            if not path or path == ":memory:" or path.startswith("file:"):
                return None
            raw = sqlite3.connect(path, isolation_level=None)
            _sqlite_on_connect(raw, None)
            raw.execute("PRAGMA busy_timeout=0")
            self._loop_raw = raw
        return self._loop_raw

    def write_table_rows(
        self,
        conn: Connection,
        values: dict[str, Any],
        ev_rows: list[dict[str, Any]],
        outbox_rows: list[dict[str, Any]],
    ) -> bool:
        """The table write's statements (the conditional UPDATE, its events and outbox rows)
        on the driver's own connection inside ``conn``'s transaction, from SQL built once:
        SQLAlchemy's per-statement work (compiling the cache key, binding, result setup) was
        most of a move's write on SQLite, where the statements themselves take microseconds.
        Whether the UPDATE matched (False: nothing more was written)."""
        raw = conn.connection.driver_connection
        assert raw is not None
        return self._write_rows(raw, values, ev_rows, outbox_rows)

    @staticmethod
    def _write_rows(
        raw: sqlite3.Connection,
        values: dict[str, Any],
        ev_rows: list[dict[str, Any]],
        outbox_rows: list[dict[str, Any]],
    ) -> bool:
        params = dict(values)
        for name in _JSON_COLUMNS:
            params[name] = json.dumps(params[name])
        if raw.execute(_SQLITE_UPDATE, params).rowcount != 1:
            return False
        if ev_rows:
            raw.executemany(_SQLITE_INSERT_EVENTS, ev_rows)
        if outbox_rows:
            raw.executemany(_SQLITE_INSERT_OUTBOX, outbox_rows)
        return True

    def reap_stuck(self, older_ms: int) -> list[int]:
        return []

    def _drop_loop_connection(self) -> None:
        if self._loop_raw is not None:
            with contextlib.suppress(sqlite3.Error):
                self._loop_raw.close()
            self._loop_raw = None

    def close(self) -> None:
        self._drop_loop_connection()
        self.engine.dispose()
        self.reader.dispose()


class PostgresBackend:
    postgres = True

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.reader = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.add_results = add_results_statement(postgres=True)
        #: The NOTIFY of each table write (``table_id:seq``, the new seq, so that the
        #: writing instance, which woke its own streams already, can ignore its own echo),
        #: sent once the write committed (not inside the write's transaction).
        self.announcer = Announcer(engine, NOTIFY_CHANNEL)
        self._loop_connections = LoopConnections(engine, LOOP_CONNECTIONS)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    def notify(self, conn: Connection, key: str) -> None:
        conn.execute(text("SELECT pg_notify(:c, :k)"), {"c": NOTIFY_CHANNEL, "k": key})

    def announce(self, key: str) -> None:
        self.announcer.send(key)

    def announce_unless(self, nobody_listens: Callable[[], bool]) -> None:
        """Table writes go unannounced while ``nobody_listens()`` (Peers.alone)."""
        self.announcer.nobody_listens = nobody_listens

    def write_table_rows(self, *args: Any) -> bool | None:
        return None  # SQLAlchemy's statements (store._write_rows)

    def write_in_one_statement(
        self,
        table: Table,
        values: dict[str, Any],
        ev_rows: list[dict[str, Any]],
        w: Write,
        now: int,
    ) -> Table:
        """The whole conditional write in one round trip (:func:`_one_statement_write`)."""
        sql, params = _one_statement(values, ev_rows, w, now)
        try:
            with self.reader.connect() as conn:
                matched: int = conn.exec_driver_sql(sql, params).scalar_one()
        except IntegrityError:
            if w.request is None:
                raise
            # The same request id landed elsewhere meanwhile: this write must not land.
            raise Conflict(table.table_id) from None
        if matched != 1:
            raise Conflict(table.table_id)
        return table

    async def write_on_loop(
        self,
        table: Table,
        values: dict[str, Any],
        ev_rows: list[dict[str, Any]],
        w: Write,
        now: int,
    ) -> bool:
        """:meth:`write_in_one_statement` on the event loop, on one of its own connections
        (LoopConnections): no database thread, no SQLAlchemy.  A thread's round trip cost
        the matchmaker about 0.6 ms of CPU per move (the executor's queue and wake-up, the
        GIL handed over twice, the loop woken, a pooled Connection) against half that for
        the same statement here.  False when it did not run (no connection free, or the
        database failed it: a thread does it again, conditional on the same seq, and
        raises what every store call raises)."""
        conn = await self._loop_connections.take()
        if conn is None:
            return False
        import psycopg

        sql, params = _one_statement(values, ev_rows, w, now)
        try:
            cursor = await conn.execute(sql, params, prepare=True)
            row = await cursor.fetchone()
        except psycopg.errors.UniqueViolation:
            self._loop_connections.give(conn)
            if w.request is None:
                return False
            raise Conflict(table.table_id) from None  # as write_in_one_statement
        except psycopg.Error:
            self._loop_connections.give(conn)
            return False
        except BaseException:
            # Cancelled mid-statement: the connection's state is unknown.
            self._loop_connections.discard(conn)
            raise
        self._loop_connections.give(conn)
        if row is None or row[0] != 1:
            raise Conflict(table.table_id)
        return True

    def reap_stuck(self, older_ms: int) -> list[int]:
        """End the matchmaker sessions (any instance's) that sit inside a transaction waiting
        on their client for longer than ``older_ms``; their pids.

        ``idle_in_transaction_session_timeout`` ends only a session PostgreSQL sees as idle
        in a transaction, i.e. after a complete statement.  A client cut off in the middle of
        an extended-protocol batch (Parse arrived, the rest of a large Bind did not: libpq
        sends a batch over 8 kB in pieces) leaves its session "active", waiting on
        ClientRead with no timeout, and one cut off while a result is sent waits on
        ClientWrite: both keep the transaction's row locks (a table row, so that no instance
        can claim its deadlines) until TCP notices, which a stopped peer or a stalled proxy
        never makes it do.  No healthy instance waits on itself that long inside a
        transaction: this is the idle timeout for those two states."""
        with self.reader.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT pid, pg_terminate_backend(pid) AS ended FROM pg_stat_activity"
                    " WHERE datname = current_database() AND application_name = :app"
                    " AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"
                    " AND state <> 'idle' AND wait_event_type = 'Client'"
                    " AND state_change < clock_timestamp() - :ms * interval '1 millisecond'"
                ),
                {"app": APPLICATION_NAME, "ms": older_ms},
            ).all()
        return [int(r.pid) for r in rows if r.ended]

    def close(self) -> None:
        self.announcer.close()
        self._loop_connections.close()
        self.engine.dispose()


class LoopConnections:
    """PostgreSQL connections of the event loop (psycopg's AsyncConnection, autocommit), made
    as they are needed up to ``size`` and kept: a table write waits on its round trip there
    rather than in a database thread.  With all in use, a write waits for the next one
    given back (cheaper than a thread; the bench's 48 tables found all eight busy for a
    fifth of their writes), people's writes first (priority.py's policy): in one queue, a
    person's Ready or reconnection waited behind the opening rush's bot moves for seconds
    (600 tables: Ready past its 10 s deadline, a reconnection past its 2 s grace, an
    escape).  Where PostgreSQL takes no new one, ``take`` says None and the caller uses a
    thread."""

    def __init__(self, engine: Engine, size: int) -> None:
        self.engine = engine
        self.size = size
        self._idle: list[Any] = []
        self._waiting = self._queues()
        self._count = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    async def take(self) -> Any:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a connection serves the loop it was made on only
            self.close()
            self._count, self._waiting, self._loop = 0, self._queues(), loop
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                return conn
            self._count -= 1
        if self._count >= self.size:
            turn: asyncio.Future[Any] = loop.create_future()
            self._waiting[current()].append(turn)
            try:
                return await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled() and turn.result() is not None:
                    self.give(turn.result())  # handed over as this waiter was cancelled
                raise
        self._count += 1
        try:
            return await loop_connection(self.engine)
        except Exception as exc:
            self._count -= 1
            log.warning("no connection for the loop; writing from a thread", error=str(exc)[:200])
            return None

    @staticmethod
    def _queues() -> dict[Priority, collections.deque[asyncio.Future[Any]]]:
        return {p: collections.deque() for p in Priority}

    def _hand_over(self, conn: Any) -> bool:
        """``conn`` (None: "use a thread") to the most urgent write waiting, if any."""
        for priority in Priority:  # the most urgent first
            queue = self._waiting[priority]
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(conn)
                    return True
        return False

    def give(self, conn: Any) -> None:
        """A connection back after its statement (a broken one is dropped), to the most
        urgent write waiting for one if any."""
        if conn.closed or conn.broken:
            self.discard(conn)
        elif not self._hand_over(conn):
            self._idle.append(conn)

    def discard(self, conn: Any) -> None:
        self._count -= 1
        _finish(conn)
        self._hand_over(None)  # a write waiting goes to a thread rather than wait on

    def close(self) -> None:
        """Close the idle connections (those in use close as they come back)."""
        for conn in self._idle:
            _finish(conn)
        self._count -= len(self._idle)
        self._idle = []


def _finish(conn: Any) -> None:
    """Close a psycopg AsyncConnection from any thread and without a loop (its socket)."""
    with contextlib.suppress(Exception):
        conn.pgconn.finish()


Backend = SqliteBackend | PostgresBackend


def backend_for(engine: Engine) -> Backend:
    return PostgresBackend(engine) if engine.dialect.name == "postgresql" else SqliteBackend(engine)


def _one_statement(
    values: dict[str, Any], ev_rows: list[dict[str, Any]], w: Write, now: int
) -> tuple[str, dict[str, Any]]:
    """The SQL of a table write (:func:`_one_statement_write`) and its parameters."""
    params = dict(values)
    for name in _JSON_COLUMNS:
        params[name] = json.dumps(params[name])
    if ev_rows:
        params["e_seq"] = [r["seq"] for r in ev_rows]
        params["e_to"] = [r["to_seat"] for r in ev_rows]
        params["e_body"] = [r["body"] for r in ev_rows]
    params["p_now"] = now
    if w.request is not None:
        _, params["r_id"], params["r_hash"], response = w.request
        params["r_response"] = response.SerializeToString()
    if w.outbox:
        params["o_game"] = [r.game_id for r in w.outbox]
        params["o_first"] = [r.events[0].envelope.seq for r in w.outbox]
        params["o_body"] = [r.SerializeToString() for r in w.outbox]
        params["o_delay"] = w.outbox_delay_ms
    if w.results:
        rows = results_rows(w)
        for param, column in _RESULT_PARAMS.items():
            params[param] = [r[column] for r in rows]
    key = bool(ev_rows), bool(w.outbox), w.request is not None, bool(w.results)
    return _ONE_STATEMENT[key], params


def _one_statement_write(
    events: bool, outbox_rows: bool, request: bool = False, results: bool = False
) -> str:
    """PostgreSQL: the whole conditional write of a table as one statement, run outside a
    transaction (a statement is one on its own): the UPDATE, and the event
    and outbox rows inserted only if the UPDATE matched (data-modifying CTEs share one
    snapshot and commit or fail together).  One round trip instead of BEGIN, UPDATE, two
    INSERTs and COMMIT; with ``results`` (a game's end) the players' running totals too,
    by :func:`add_results_statement`'s upsert.  The rows come as arrays (one parameter per
    column), sent in
    binary (``%b``): psycopg writes a text array of bytea by escaping every byte in Python,
    which cost 220 µs of CPU for a run's 16 events against 88 in binary, and the outbox
    row (the run's whole append) is larger still.

    ``request``: an Act's request id and answer too; the UPDATE matches only if that id has
    not landed yet (a statement that sees it commits nothing: a Conflict, and the retry
    finds the answer), and a concurrent insert of the same id fails the whole statement
    on the unique key (IntegrityError: a Conflict too)."""
    sets = ", ".join(
        f"{c.name} = %({c.name})s" + ("::json" if isinstance(c.type, JSON) else "")
        for c in tables.c
        if c.name not in FIXED
    )
    ctes = [
        f"u AS (UPDATE {tables.name} SET {sets}"
        " WHERE table_id = %(p_table_id)s AND seq = %(p_old_seq)s"
        + (
            f" AND NOT EXISTS (SELECT 1 FROM {requests.name} WHERE table_id = %(p_table_id)s"
            " AND request_id = %(r_id)s)"
            if request
            else ""
        )
        + " RETURNING 1)"
    ]
    if request:
        ctes.append(
            f"r AS (INSERT INTO {requests.name}"
            " (table_id, request_id, body_hash, response, created_ms)"
            " SELECT %(p_table_id)s, %(r_id)s, %(r_hash)s, %(r_response)s, %(p_now)s"
            " WHERE EXISTS (SELECT 1 FROM u))"
        )
    if events:
        ctes.append(
            f"e AS (INSERT INTO {table_events.name} (table_id, seq, to_seat, body)"
            " SELECT %(p_table_id)s, x.seq, x.to_seat, x.body FROM unnest(%(e_seq)b::int[],"
            " %(e_to)b::smallint[], %(e_body)b::bytea[]) AS x(seq, to_seat, body)"
            " WHERE EXISTS (SELECT 1 FROM u))"
        )
    if outbox_rows:
        ctes.append(
            f"o AS (INSERT INTO {outbox.name}"
            " (game_id, first_seq, body, created_ms, next_try_ms, attempts)"
            " SELECT x.game_id, x.first_seq, x.body, %(p_now)s, %(p_now)s + %(o_delay)s, 0"
            " FROM unnest(%(o_game)b::text[], %(o_first)b::int[], %(o_body)b::bytea[])"
            " AS x(game_id, first_seq, body) WHERE EXISTS (SELECT 1 FROM u))"
        )
    if results:
        ctes.append(_results_cte())
    return "WITH " + ", ".join(ctes) + " SELECT count(*) FROM u"


def _results_cte() -> str:
    """The one-statement write's results: add_results_statement's upsert with the rows from
    arrays, its ON CONFLICT clause as compiled, so that both ways of ending a game add
    alike.  In the arrays' order (results_rows'), the order of every ending's row locks."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    upsert = str(add_results_statement(postgres=True).compile(dialect=dialect))
    conflict = upsert[upsert.index(" ON CONFLICT ") :]
    columns = ", ".join(_RESULT_PARAMS.values())
    arrays = ", ".join(f"%({p})b::{_RESULT_TYPES[c]}[]" for p, c in _RESULT_PARAMS.items())
    return (
        f"s AS (INSERT INTO {player_stats.name} ({columns}) SELECT {columns}"
        f" FROM unnest({arrays}) WITH ORDINALITY AS x({columns}, n)"
        f" WHERE EXISTS (SELECT 1 FROM u) ORDER BY x.n{conflict})"
    )


#: The parameters of the results' arrays in the one-statement write, and their columns.
_RESULT_PARAMS = {
    "s_player": "player_id", "s_family": "family", "s_games": "games", "s_total": "total",
    "s_game": "last_game_id", "s_score": "last_score", "s_ended": "last_ended_ms",
}  # fmt: skip
_RESULT_TYPES = {
    "player_id": "text", "family": "text", "games": "int", "total": "bigint",
    "last_game_id": "text", "last_score": "bigint", "last_ended_ms": "bigint",
}  # fmt: skip


#: The JSON columns of mm_tables, serialised here for the one-statement write.
_JSON_COLUMNS = frozenset(
    c.name for c in tables.c if isinstance(c.type, JSON) and c.name not in FIXED
)
#: SqliteBackend.write_table_rows's statements (named parameters, as SQLAlchemy's).
_SQLITE_UPDATE = (
    f"UPDATE {tables.name} SET "
    + ", ".join(f"{c.name} = :{c.name}" for c in tables.c if c.name not in FIXED)
    + " WHERE table_id = :p_table_id AND seq = :p_old_seq"
)
_SQLITE_INSERT_EVENTS = (
    f"INSERT INTO {table_events.name} (table_id, seq, to_seat, body) "
    "VALUES (:table_id, :seq, :to_seat, :body)"
)
_SQLITE_INSERT_REQUEST = (
    f"INSERT INTO {requests.name} (table_id, request_id, body_hash, response, created_ms) "
    "VALUES (?, ?, ?, ?, ?)"
)
_SQLITE_INSERT_OUTBOX = (
    f"INSERT INTO {outbox.name} (game_id, first_seq, body, created_ms, next_try_ms, attempts) "
    "VALUES (:game_id, :first_seq, :body, :created_ms, :next_try_ms, :attempts)"
)
_ONE_STATEMENT = {
    (e, o, r, s): _one_statement_write(e, o, r, s)
    for e in (False, True)
    for o in (False, True)
    for r in (False, True)
    for s in (False, True)
}
#: add_results_statement's upsert for SqliteBackend.write_in_one_statement's driver.
_SQLITE_ADD_RESULTS = str(
    add_results_statement(postgres=False).compile(dialect=sqlite.dialect(paramstyle="named"))
)


def _sqlite_reader(engine: Engine) -> Engine:
    # As many pooled readers as the writer engine has connections (past the pool's size
    # each checkout would open, set up and close a connection).
    kwargs: dict[str, Any] = {}
    if isinstance(engine.pool, QueuePool):
        kwargs = {"pool_size": engine.pool.size(), "max_overflow": engine.pool.size()}
    reader = create_engine(engine.url, **kwargs)
    event.listen(reader, "connect", _sqlite_on_connect)
    return reader
