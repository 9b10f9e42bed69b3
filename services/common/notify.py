"""Wake-ups across processes: PostgreSQL LISTEN/NOTIFY as a hint, polling beneath.

A writer NOTIFYs a channel with a key (a game id, a table id) in the transaction that changed
it, so the notification is delivered at commit to every process LISTENing.  One background
thread per :class:`Notifier` LISTENs on a connection of its own and wakes the local waiters of
that key.  Polling is always there underneath: a waiter re-reads its condition at least every
``poll_interval`` seconds, which is the whole mechanism on SQLite and the fallback while the
LISTEN connection is lost.  A notification only says "look again"; the database is the truth.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine

T = TypeVar("T")

#: Keys remembered before the table of wake-up counts is cleared (bounded memory in a
#: long-lived server: a waiter whose entry goes misses one wake-up and polls instead).
MAX_KEYS = 100_000


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
        import psycopg

        url = self.engine.url.set(drivername="postgresql")
        dsn = url.render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"LISTEN {self.channel}")
            self.listening = True
            while not self._stop.is_set():
                for note in conn.notifies(timeout=0.5):
                    self._wake(note.payload)

    def _wake(self, key: Any) -> None:
        with self._cond:
            if len(self._versions) > MAX_KEYS:
                self._versions.clear()
            self._versions[key] = self._versions.get(key, 0) + 1
            self._cond.notify_all()
