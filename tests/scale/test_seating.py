"""Two matchmaker processes on one PostgreSQL, 300 players enqueued at once, half on each:
every player is seated exactly once — with the pool lock, and without it (the conditional
writes and the one-hold-per-player key are the last line, not the only one)."""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select

from services.common.db import make_engine
from services.matchmaker.models import holds, tables, tickets

from .conftest import Deployment, M

PLAYERS = 300


def seat_everyone(d: Deployment) -> None:
    stubs = [d.mm(0), d.mm(1)]
    # Never filled by bots: every table is three of these players.
    timers = M.Timers(start_ms=600_000)

    def enqueue(i: int) -> str:
        request = M.EnqueueRequest(
            player_id=f"p{i}", variant="doudizhu3", bot_fill_after_ms=-1, timers=timers
        )
        ticket: M.Ticket = stubs[i % 2].Enqueue(request, timeout=30)
        return ticket.ticket_id

    with ThreadPoolExecutor(32) as pool:
        ids = list(pool.map(enqueue, range(PLAYERS)))
    assert len(set(ids)) == PLAYERS

    engine = make_engine(d.db_url)
    end = time.monotonic() + 90
    while True:
        with engine.connect() as conn:
            queued = conn.execute(
                select(tickets.c.ticket_id).where(tickets.c.state == "queued")
            ).all()
        if not queued or time.monotonic() > end:
            break
        time.sleep(0.2)
    with engine.connect() as conn:
        assert not queued, f"{len(queued)} tickets never seated"
        seated = Counter(
            s["player_id"]
            for row in conn.execute(select(tables.c.seats))
            for s in row.seats
            if not s["bot"]
        )
        held = conn.execute(select(holds.c.player_id, holds.c.table_id)).all()
    engine.dispose()
    assert set(seated) == {f"p{i}" for i in range(PLAYERS)}
    assert max(seated.values()) == 1, [p for p, n in seated.items() if n > 1][:10]
    assert len(held) == PLAYERS and all(h.table_id for h in held)


def test_every_player_is_seated_once(deployment: Deployment) -> None:
    seat_everyone(deployment)


@pytest.mark.mm_env({"CARDROOM_MATCHMAKER_TEST_NO_POOL_LOCK": "1"})
def test_without_the_pool_lock_nobody_is_seated_twice(deployment: Deployment) -> None:
    seat_everyone(deployment)
