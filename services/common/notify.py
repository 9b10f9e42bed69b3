"""Wake-ups across processes: PostgreSQL LISTEN/NOTIFY as a hint, polling beneath.

A writer NOTIFYs a channel with a key (a game id, a table id) in the transaction that changed
it, so the notification is delivered at commit to every process LISTENing.  One background
thread per :class:`Notifier` LISTENs on a connection of its own and wakes the local waiters of
that key.  Polling is always there underneath: a waiter re-reads its condition at least every
``poll_interval`` seconds, which is the whole mechanism on SQLite and the fallback while the
LISTEN connection is lost.  A notification only says "look again"; the database is the truth.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine

from services.common.db import session_sets

T = TypeVar("T")

#: Keys remembered before the table of wake-up counts is cleared (bounded memory in a
#: long-lived server: a waiter whose entry goes misses one wake-up and polls instead).
MAX_KEYS = 100_000

#: The side connections' TCP settings: a connect gives up after CONNECT_TIMEOUT_S, and a peer
#: gone without a word (a host down, a cable cut) is noticed by keepalive probes after about
#: idle + count × interval seconds, not the kernel's two hours, so the LISTEN thread reconnects
#: and the Announcer's next batch does not hang on a dead socket.
CONNECT_TIMEOUT_S = 5
KEEPALIVE: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
             "keepalives_count": 3}  # fmt: skip


def side_connection(engine: Engine) -> Any:
    """A psycopg connection of its own (autocommit) to ``engine``'s PostgreSQL database,
    outside its pool: the same URL (user, host, the URL's ``options``), with the TCP settings
    above.  LISTEN needs one that stays open; the Announcer's NOTIFYs one that no write waits
    for."""
    import psycopg

    return psycopg.connect(
        _dsn(engine), autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, **KEEPALIVE
    )


async def loop_connection(engine: Engine) -> Any:
    """:func:`side_connection` for an event loop (a psycopg AsyncConnection), which starts as
    the engine's own pooled connections do (its lock timeout, application name:
    db.session_sets): for statements that are the engine's work, done on the loop."""
    import psycopg

    conn = await psycopg.AsyncConnection.connect(
        _dsn(engine), autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, **KEEPALIVE
    )
    sets = session_sets(engine)
    if sets:
        await conn.execute(sets)
    return conn


def _dsn(engine: Engine) -> str:
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class Notifier:
    def __init__(self, engine: Engine, channel: str, poll_interval: float = 0.25) -> None:
        self.engine = engine
        self.channel = channel
        self.poll_interval = poll_interval
        self._cond = threading.Condition()
        self._versions: dict[str, int] = {}  # key -> wake-ups seen
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = False
        if engine.dialect.name == "postgresql":
            self._thread = threading.Thread(target=self._listen, name="pg-listen", daemon=True)
            self._thread.start()

    def wait_until(
        self, key: str, read: Callable[[], T], done: Callable[[T], bool], timeout: float
    ) -> T:
        """Block until ``done(read())`` holds or ``timeout`` seconds pass, re-reading after
        every wake-up of ``key`` and at least every ``poll_interval``; returns the last read."""
        deadline = time.monotonic() + timeout
        while True:
            with self._cond:
                version = self._versions.get(key, 0)
            value = read()
            left = deadline - time.monotonic()
            if done(value) or left <= 0:
                return value
            with self._cond:
                if self._versions.get(key, 0) == version:
                    self._cond.wait(min(self.poll_interval, left))

    def version(self, key: str) -> int:
        """How many wake-ups ``key`` has had: a waiter compares it before and after."""
        with self._cond:
            return self._versions.get(key, 0)

    def wake(self, key: str) -> None:
        """Wake the local waiters of ``key`` (a change made through this process)."""
        self._wake(key)

    def notified(self, payload: str) -> None:
        """A NOTIFY's payload, as LISTEN hands it over (a test or tool standing in for
        another process calls it too)."""
        self._wake(payload)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    # ------------------------------------------------------------------ PostgreSQL
    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen_once()
            except Exception:  # a lost connection: poll meanwhile, then listen again
                self.listening = False
                self._stop.wait(1.0)

    def _listen_once(self) -> None:
        with side_connection(self.engine) as conn:
            conn.execute(f"LISTEN {self.channel}")
            self.listening = True
            while not self._stop.is_set():
                for note in conn.notifies(timeout=0.5):
                    self.notified(note.payload)

    def _wake(self, key: Any) -> None:
        with self._cond:
            if len(self._versions) > MAX_KEYS:
                self._versions.clear()
            self._versions[key] = self._versions.get(key, 0) + 1
            self._cond.notify_all()


class Announcer:
    """Sends the NOTIFYs of committed writes: batched, from a thread and a PostgreSQL
    connection of its own, after the writes commit rather than inside them.

    A NOTIFY in a write's transaction holds PostgreSQL's one notification lock from the
    commit's queue insert through its WAL flush: every notifying commit of the database
    waits for the one before it (a table write took ~10× longer under load).  Here the
    writes commit without it, and their keys go out a batch at a time in a transaction of
    their own with ``synchronous_commit`` off (a notification is only a hint: one lost with
    a crash costs a waiter a poll).  ``send`` never blocks; a failed batch is dropped."""

    #: Keys sent in one statement at most.
    BATCH = 500

    def __init__(self, engine: Engine, channel: str) -> None:
        self.engine = engine
        self.channel = channel
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="pg-notify", daemon=True)
        self._thread.start()

    def send(self, key: str) -> None:
        self._queue.put(key)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=2)

    def _run(self) -> None:
        conn: Any = None
        stop = False
        while not stop:
            keys: list[str] = []
            key = self._queue.get()
            while True:
                if key is None:
                    stop = True
                else:
                    keys.append(key)
                if len(keys) >= self.BATCH:
                    break
                try:
                    key = self._queue.get_nowait()
                except queue.Empty:
                    break
            if not keys:
                continue
            try:
                if conn is None or conn.closed:
                    conn = self._connect()
                conn.execute(
                    "SELECT pg_notify(%s, k) FROM unnest(%s::text[]) AS k", (self.channel, keys)
                )
            except Exception:  # the database is away: the waiters poll meanwhile
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()

    def _connect(self) -> Any:
        conn = side_connection(self.engine)
        conn.execute("SET synchronous_commit = off")
        return conn
