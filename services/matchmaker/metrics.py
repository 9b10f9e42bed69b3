"""The matchmaker's gauges, computed from the database when Prometheus scrapes (so that every
instance reports the shared state, and nothing is counted twice in memory): tickets waiting
and the oldest wait, tables running, games finished, deadlines overdue and the outbox lag.
Rates (games/min) are Prometheus' ``rate()`` of the finished-games figure."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from .models import outbox, tables, tickets
from .store import Store, now_ms

#: A deadline this late (ms) counts as overdue: well past a tick, short of the takeover bound.
OVERDUE_MS = 1000


def gauges(store: Store) -> dict[str, tuple[str, float]]:
    now = now_ms()
    with store.reader.connect() as conn:
        queue: Any = conn.execute(
            select(func.count(), func.min(tickets.c.created_ms)).where(tickets.c.state == "queued")
        ).one()
        tabs: Any = conn.execute(
            select(
                func.count(),
                func.coalesce(func.sum(tables.c.game_no), 0),
                func.count().filter(tables.c.state == "playing"),
            ).where(tables.c.state != "closed")
        ).one()
        closed_games: Any = conn.execute(
            select(func.coalesce(func.sum(tables.c.game_no), 0)).where(tables.c.state == "closed")
        ).scalar_one()
        overdue = conn.execute(
            select(func.count()).where(tables.c.due_ms < now - OVERDUE_MS)
        ).scalar_one()
        lag: Any = conn.execute(select(func.count(), func.min(outbox.c.created_ms))).one()
    waiting, oldest = queue
    running, started, playing = tabs
    lag_rows, lag_oldest = lag
    # A playing table's current game is started, not finished.
    finished = int(started) + int(closed_games) - int(playing)
    return {
        "cardroom_matchmaker_tickets_waiting": ("Tickets queued for a seat", float(waiting)),
        "cardroom_matchmaker_oldest_wait_seconds": (
            "How long the oldest queued ticket has waited",
            max(0.0, (now - int(oldest)) / 1000.0) if oldest is not None else 0.0,
        ),
        "cardroom_matchmaker_tables_running": ("Tables not closed", float(running)),
        "cardroom_matchmaker_games_finished": (
            "Games finished or abandoned, all tables (rate() gives games/min)",
            float(max(0, finished)),
        ),
        "cardroom_matchmaker_deadlines_overdue": (
            f"Tables whose deadline passed more than {OVERDUE_MS} ms ago (none should be)",
            float(overdue),
        ),
        "cardroom_matchmaker_outbox_rows": (
            "Engine events not yet delivered to replay",
            float(lag_rows),
        ),
        "cardroom_matchmaker_outbox_lag_seconds": (
            "Age of the oldest undelivered engine event",
            max(0.0, (now - int(lag_oldest)) / 1000.0) if lag_oldest is not None else 0.0,
        ),
    }
