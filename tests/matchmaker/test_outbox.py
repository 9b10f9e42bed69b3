"""The outbox claims a game through its oldest undelivered row: while one instance delivers
a game, no other claims any of its rows, so a later batch never reaches replay before an
earlier one (on SQLite and PostgreSQL, two Stores standing for two instances)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import insert

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.matchmaker.models import outbox
from services.matchmaker.store import Store, now_ms


@pytest.fixture
def stores(db_url: str) -> Iterator[tuple[Store, Store]]:
    upgrade(db_url)
    a, b = Store(make_engine(db_url)), Store(make_engine(db_url))
    yield a, b
    a.close()
    b.close()


def add(store: Store, game_id: str, first_seq: int) -> None:
    now = now_ms()
    row = {"game_id": game_id, "first_seq": first_seq, "body": b"", "created_ms": now,
           "next_try_ms": now, "attempts": 0}  # fmt: skip
    store.run(lambda conn: conn.execute(insert(outbox), [row]))


def seqs(rows: list[Any]) -> list[tuple[str, int]]:
    return [(r.game_id, r.first_seq) for r in rows]


def test_a_game_is_delivered_by_one_instance_at_a_time_in_order(
    stores: tuple[Store, Store],
) -> None:
    a, b = stores
    add(a, "g1", 1)
    add(a, "g1", 5)
    add(a, "g2", 1)
    claimed = a.claim_outbox(10, 10_000)
    assert seqs(claimed) == [("g1", 1), ("g1", 5), ("g2", 1)]
    add(a, "g1", 9)  # written while the first instance delivers g1
    add(a, "g3", 1)
    assert seqs(b.claim_outbox(10, 10_000)) == [("g3", 1)]  # not g1's later batch
    a.delivered([r.id for r in claimed if r.game_id == "g1"])
    assert seqs(b.claim_outbox(10, 10_000)) == [("g1", 9)]  # now the head of g1
    assert b.claim_outbox(10, 10_000) == []


def test_a_game_backing_off_keeps_its_later_rows_back(stores: tuple[Store, Store]) -> None:
    a, b = stores
    add(a, "g1", 1)
    (head,) = a.claim_outbox(10, 10_000)
    a.retry_later("g1", head.id, 1, 60_000, "replay down")
    add(a, "g1", 4)
    assert b.claim_outbox(10, 10_000) == []  # its head waits out the backoff
