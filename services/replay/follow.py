"""Following running games: wake a stream as soon as its game has new events.

On PostgreSQL every append NOTIFYs the channel ``cardroom_events`` with the game id at
commit, so a stream served by one replay process wakes when another process appends; polling
is beneath (services/common/notify.py).
"""

from __future__ import annotations

from services.common.notify import Notifier

from .store import NOTIFY_CHANNEL, EventStore


class EventFollower(Notifier):
    def __init__(self, store: EventStore, poll_interval: float = 0.25) -> None:
        super().__init__(store.engine, NOTIFY_CHANNEL, poll_interval)
        self.store = store

    def wait(self, game_id: str, after_seq: int, timeout: float) -> tuple[int, str]:
        """Block until the game's head passes ``after_seq``, the game is over, or
        ``timeout`` seconds pass; returns the head (seq, status) last read."""
        return self.wait_until(
            game_id,
            lambda: self.store.head(game_id),
            lambda head: head[0] > after_seq or head[1] != "running",
            timeout,
        )
