"""Wake-ups across processes: PostgreSQL LISTEN/NOTIFY as a hint, polling beneath.

A writer NOTIFYs a channel with a key (a game id, a table id) in the transaction that changed
it, so the notification is delivered at commit to every process LISTENing.  One background
thread per :class:`Notifier` LISTENs on a connection of its own and wakes the local waiters of
that key.  Polling is always there underneath: a waiter re-reads its condition at least every
``poll_interval`` seconds, which is the whole mechanism on SQLite and the fallback while the
LISTEN connection is lost.  A notification only says "look again"; the database is the truth.
"""

from __future__ import annotations

import math
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


#: How often (s) a process with :class:`Peers` says on its channel that it listens, and
#: how long after the last word from a peer it counts that peer as gone.
HEARTBEAT_S = 2.0
PEER_TTL_S = 7.0


class Peers:
    """Which other processes LISTEN on a channel, from what they say on it: a writer with no
    listener but itself need not NOTIFY its writes at all.  On a single matchmaker instance
    the NOTIFY of every table write was 6% of its CPU (the Announcer's thread woken per write,
    a statement per batch, and the same key back through its own LISTEN), for nobody.

    Each process says ``~hi:<id>`` when its LISTEN comes up and ``~here:<id>`` every
    HEARTBEAT_S while it stays up.  A ``~hi`` means "I may have missed writes": whoever hears
    it wakes all its waiters (``on_new``: they read again) and answers ``~here``; a ``~here``
    from a process not heard within PEER_TTL_S (a new one, or one counted gone) wakes them
    too and is answered with a ``~hi``.  So a write left unannounced while its writer was
    alone, or counted a peer gone, is read by the peer's waiters once the two hear each
    other: the writer's answer goes out after the write committed.  Alone means: listening
    for PEER_TTL_S, and no peer heard for as long.  Not listening, a process is never alone
    (it cannot hear the others)."""

    PREFIX = "~"

    def __init__(
        self,
        me: str,
        on_new: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.monotonic,
        beat_s: float = HEARTBEAT_S,
        ttl_s: float = PEER_TTL_S,
    ) -> None:
        self.me = me
        self._on_new = on_new
        self._clock = clock
        self._beat_s = beat_s
        self._ttl_s = ttl_s
        self._seen: dict[str, float] = {}
        self._last_peer = -math.inf
        self._since: float | None = None
        self._next_beat = math.inf
        self._said_hi = -math.inf
        self._say: list[str] = []

    def listening(self, up: bool) -> None:
        """LISTEN came up (say ``~hi``) or went (not alone until it is up again)."""
        now = self._clock()
        self._since = now if up else None
        if up:
            self._hi(now)
            self._next_beat = now + self._beat_s

    def heard(self, payload: str) -> bool:
        """Whether ``payload`` was a peer's word (handled here) rather than a key."""
        if not payload.startswith(self.PREFIX):
            return False
        kind, _, who = payload[len(self.PREFIX) :].partition(":")
        if who == self.me or kind not in ("hi", "here"):
            return True
        now = self._clock()
        known = now - self._seen.get(who, -math.inf) <= self._ttl_s
        if len(self._seen) > MAX_PEERS:
            self._seen.clear()
        self._seen[who] = self._last_peer = now
        if kind == "hi":
            self._on_new()
            self._word("here")
        elif not known:
            self._on_new()
            if now - self._said_hi > self._ttl_s:  # (else this answers our own ~hi)
                self._hi(now)
        return True

    def due(self) -> list[str]:
        """What to say now: answers, and the heartbeat when it is time."""
        now = self._clock()
        if self._since is not None and now >= self._next_beat:
            self._next_beat = now + self._beat_s
            self._word("here")
        said, self._say = self._say, []
        return said

    def has_words(self) -> bool:
        return bool(self._say)

    def alone(self) -> bool:
        since = self._since
        if since is None:
            return False
        now = self._clock()
        return now - since > self._ttl_s and now - self._last_peer > self._ttl_s

    def _hi(self, now: float) -> None:
        self._said_hi = now
        self._word("hi")

    def _word(self, kind: str) -> None:
        word = f"{self.PREFIX}{kind}:{self.me}"
        if word not in self._say:
            self._say.append(word)


#: Peers remembered before the table is cleared (a forgotten one is new again: one wake-up).
MAX_PEERS = 1_000


class Notifier:
    def __init__(
        self,
        engine: Engine,
        channel: str,
        poll_interval: float = 0.25,
        peers: Peers | None = None,
    ) -> None:
        self.engine = engine
        self.channel = channel
        self.poll_interval = poll_interval
        #: This process's presence on the channel (PostgreSQL): None for a listener that
        #: never writes what others wait for.
        self.peers = peers
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
        if self.peers is not None and self.peers.heard(payload):
            return
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
                if self.peers is not None:
                    self.peers.listening(False)
                self._stop.wait(1.0)

    def _listen_once(self) -> None:
        with side_connection(self.engine) as conn:
            conn.execute(f"LISTEN {self.channel}")
            if self.peers is not None:
                self.peers.listening(True)
            self.listening = True
            while not self._stop.is_set():
                if self.peers is not None:
                    # Said on the LISTEN connection itself: heard only while it listens.
                    for word in self.peers.due():
                        conn.execute("SELECT pg_notify(%s, %s)", (self.channel, word))
                for note in conn.notifies(timeout=0.5):
                    self.notified(note.payload)
                    if self.peers is not None and self.peers.has_words():
                        break  # an answer to a peer: said at once

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
        #: Whether no other process listens (Peers.alone, of this process's listener): then
        #: nothing is sent.
        self.nobody_listens: Callable[[], bool] = lambda: False
        self._thread = threading.Thread(target=self._run, name="pg-notify", daemon=True)
        self._thread.start()

    def send(self, key: str) -> None:
        if self.nobody_listens():
            return
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
