"""Following running games: wake a stream as soon as its game has new events.

On PostgreSQL every append NOTIFYs the channel ``cardroom_events`` with the game id at
commit, so a stream served by one replay process wakes when another process appends.  One
background thread per process LISTENs on a connection of its own and wakes the waiters of
that game.  Polling is always there underneath: a waiter re-reads the game's head at least
every ``poll_interval`` seconds, which is the whole mechanism on SQLite and the fallback when
the LISTEN connection is lost.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from .store import NOTIFY_CHANNEL, EventStore


class EventFollower:
    def __init__(self, store: EventStore, poll_interval: float = 0.25) -> None:
        self.store = store
        self.poll_interval = poll_interval
        self._cond = threading.Condition()
        self._versions: dict[str, int] = {}  # game id -> notifications seen
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = False
        if store.engine.dialect.name == "postgresql":
            self._thread = threading.Thread(target=self._listen, name="pg-listen", daemon=True)
            self._thread.start()

    def wait(self, game_id: str, after_seq: int, timeout: float) -> tuple[int, str]:
        """Block until the game's head passes ``after_seq``, the game is over, or
        ``timeout`` seconds pass; returns the head (seq, status) last read."""
        deadline = time.monotonic() + timeout
        while True:
            with self._cond:
                version = self._versions.get(game_id, 0)
            head = self.store.head(game_id)
            left = deadline - time.monotonic()
            if head[0] > after_seq or head[1] != "running" or left <= 0:
                return head
            with self._cond:
                if self._versions.get(game_id, 0) == version:
                    self._cond.wait(min(self.poll_interval, left))

    def version(self, game_id: str) -> int:
        """How many wake-ups the game has had: a waiter compares it before and after."""
        with self._cond:
            return self._versions.get(game_id, 0)

    def wake(self, game_id: str) -> None:
        """Wake the waiters of a game (an append through this process)."""
        self._wake(game_id)

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

        url = self.store.engine.url.set(drivername="postgresql")
        dsn = url.render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
            self.listening = True
            while not self._stop.is_set():
                for note in conn.notifies(timeout=0.5):
                    self._wake(note.payload)

    def _wake(self, game_id: Any) -> None:
        with self._cond:
            if len(self._versions) > 100_000:
                # Bounded memory in a long-lived server: a waiter whose entry goes misses one
                # wake-up and polls instead.
                self._versions.clear()
            self._versions[game_id] = self._versions.get(game_id, 0) + 1
            self._cond.notify_all()
