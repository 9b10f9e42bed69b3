"""The replay store on every backend: appends, idempotency, conflicts, the hash chain,
totals, listing, and crash safety."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, text, update
from sqlalchemy.exc import IntegrityError

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.replay.models import events, metadata
from services.replay.store import (
    BadAppend,
    EventStore,
    GameEnding,
    GameHeader,
    NewEvent,
    SeqConflict,
    WriteConflict,
    chain_hash,
    genesis_hash,
)

HEADER = GameHeader("doudizhu3", 1, ["alice", "bob", "bot:carol"])


def ev(n: int, seat: int = 0) -> NewEvent:
    return NewEvent(type="play", payload=f"event-{n}".encode(), actor=f"p{seat}")


@pytest.fixture
def store(db_url: str) -> Iterator[EventStore]:
    upgrade(db_url)
    engine = make_engine(db_url)
    yield EventStore(engine)
    engine.dispose()


def test_migrations_build_exactly_the_models_schema(db_url: str) -> None:
    upgrade(db_url)
    engine = make_engine(db_url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    engine.dispose()
    assert diff == []


def test_append_and_read_back_in_order_with_a_hash_chain(store: EventStore) -> None:
    first = store.append("g1", 0, [ev(1), ev(2)], "r1", header=HEADER)
    second = store.append("g1", 2, [ev(3)], "r2")
    assert (first.first_seq, first.last_seq, second.first_seq, second.last_seq) == (1, 2, 3, 3)
    stored = store.events("g1")
    assert [e.seq for e in stored] == [1, 2, 3]
    assert [e.payload for e in stored] == [b"event-1", b"event-2", b"event-3"]
    digest = genesis_hash("g1")
    for e in stored:
        digest = chain_hash(digest, e.payload)
        assert e.hash == digest
    game = store.game("g1")
    assert game.head_seq == 3 and game.head_hash == digest == second.head_hash
    assert game.players == ("alice", "bob", "bot:carol")
    assert store.verify_chain("g1") is None
    assert [e.seq for e in store.events("g1", from_seq=2)] == [2, 3]


def test_the_same_request_id_again_returns_the_first_answer_and_writes_nothing(
    store: EventStore,
) -> None:
    first = store.append("g1", 0, [ev(1)], "same", header=HEADER)
    again = store.append("g1", 0, [ev(1)], "same", header=HEADER)
    assert again.replayed and (again.first_seq, again.last_seq) == (first.first_seq, 1)
    assert again.head_hash == first.head_hash
    assert len(store.events("g1")) == 1
    with pytest.raises(BadAppend, match="used for game"):
        store.append("g2", 0, [ev(1)], "same", header=HEADER)


def test_a_wrong_expected_seq_is_a_conflict(store: EventStore) -> None:
    store.append("g1", 0, [ev(1)], "r1", header=HEADER)
    with pytest.raises(SeqConflict) as info:
        store.append("g1", 0, [ev(2)], "r2", header=HEADER)
    assert info.value.actual == 1
    with pytest.raises(SeqConflict):
        store.append("g1", 5, [ev(2)], "r3")
    with pytest.raises(SeqConflict):
        store.append("nope", 3, [ev(1)], "r4")
    assert len(store.events("g1")) == 1


def test_concurrent_writers_never_both_succeed_at_one_seq(store: EventStore) -> None:
    store.append("g1", 0, [ev(0)], "start", header=HEADER)
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def write(i: int) -> None:
        barrier.wait()
        try:
            store.append("g1", 1, [ev(100 + i)], f"w{i}")
            outcomes.append("ok")
        except SeqConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict", "conflict", "conflict", "ok"]
    assert [e.seq for e in store.events("g1")] == [1, 2]
    assert store.verify_chain("g1") is None


def test_a_tampered_row_is_caught_at_its_seq(store: EventStore) -> None:
    store.append("g1", 0, [ev(1), ev(2), ev(3)], "r1", header=HEADER)
    with store.engine.begin() as conn:
        conn.execute(
            update(events)
            .where((events.c.game_id == "g1") & (events.c.seq == 2))
            .values(payload=b"event-X")
        )
    assert store.verify_chain("g1") == 2


def test_ending_a_game_updates_totals_once_however_often_retried(store: EventStore) -> None:
    store.append("g1", 0, [ev(1)], "r1", header=HEADER)
    ending = GameEnding("finished", [4, -2, -2], "doudizhu", {"scores": [4, -2, -2]})
    store.append("g1", 1, [ev(2)], "end-g1", ending=ending)
    store.append("g1", 1, [ev(2)], "end-g1", ending=ending)  # a retry
    alice = store.player_stats("alice")
    assert [(s.family, s.games, s.total, s.last_score) for s in alice] == [("doudizhu", 1, 4, 4)]
    assert store.player_stats("bot:carol") == []  # bots keep no totals
    assert store.game("g1").status == "finished"
    with pytest.raises(BadAppend, match="over"):
        store.append("g1", 2, [ev(3)], "late")
    store.append("g2", 0, [ev(1)], "g2-1", header=GameHeader("doudizhu3", 1, ["bob", "alice"]))
    store.append("g2", 1, [ev(2)], "g2-2", ending=GameEnding("finished", [6, -6], "doudizhu"))
    alice = store.player_stats("alice")
    assert [(s.games, s.total, s.last_game_id, s.last_score) for s in alice] == [(2, -2, "g2", -6)]


def test_endings_at_once_for_new_players_all_count(store: EventStore) -> None:
    """Games of one new player ending at the same moment, from several threads (each on a
    connection of its own): every ending adds to the player's total, none is lost and none is
    refused (the first row of a new player is an upsert, not an UPDATE then a racing INSERT)."""
    writers, rounds = 4, 5
    for r in range(rounds):
        for i in range(writers):
            header = GameHeader("doudizhu3", 1, [f"new{r}", f"other{r}-{i}", "bot:x"])
            store.append(f"g{r}-{i}", 0, [ev(1)], f"s{r}-{i}", header=header)
    failures: list[BaseException] = []

    def end(r: int, i: int, barrier: threading.Barrier) -> None:
        ending = GameEnding("finished", [i + 1, -(i + 1), 0], "doudizhu", {"round": r})
        barrier.wait()
        try:
            store.append(f"g{r}-{i}", 1, [ev(2)], f"e{r}-{i}", ending=ending)
        except BaseException as exc:
            failures.append(exc)

    for r in range(rounds):
        barrier = threading.Barrier(writers)
        threads = [threading.Thread(target=end, args=(r, i, barrier)) for i in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []
    for r in range(rounds):
        [stats] = store.player_stats(f"new{r}")
        assert (stats.games, stats.total) == (writers, sum(range(1, writers + 1)))
        assert all(store.game(f"g{r}-{i}").status == "finished" for i in range(writers))


def test_only_a_head_conflict_is_a_seq_conflict(store: EventStore) -> None:
    """The constraints that guard a game's head are told from every other one: a duplicate
    event is a head conflict, a constraint the head does not own is a WriteConflict that
    names it (no SQL) and writes nothing."""
    store.append("g1", 0, [ev(1)], "r1", header=HEADER)
    row = {
        "game_id": "g1", "seq": 1, "type": "play", "server_time": datetime.now(UTC),
        "actor": "x", "cause": "player", "visibility": -1, "payload": b"x", "hash": b"h",
    }  # fmt: skip
    with pytest.raises(IntegrityError) as info, store.engine.begin() as conn:
        conn.execute(insert(events).values(**row))
    assert store.recorder.constraint(info.value.orig) == "pk_events"

    # A constraint of the operator's (here: no payload twice), not of the head.
    with store.engine.begin() as conn:
        conn.execute(text("CREATE UNIQUE INDEX uq_test_payload ON events (payload)"))
    with pytest.raises(WriteConflict) as refused:
        store.append("g2", 0, [ev(1)], "r2", header=HEADER)
    assert refused.value.reason == "WRITE_CONFLICT"
    assert "INSERT" not in str(refused.value) and "payload" in refused.value.constraint
    with pytest.raises(WriteConflict):
        store.append("g1", 1, [ev(1)], "r3")
    assert [e.seq for e in store.events("g1")] == [1] and store.events("g2") == []
    assert store.list_games() == [store.game("g1")]
    store.append("g1", 1, [ev(2)], "r3")  # the same request id, once it can be stored


def test_list_games_filters_and_pages_newest_first(db_url: str) -> None:
    upgrade(db_url)
    engine = make_engine(db_url)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ticks = iter(range(1000))
    store = EventStore(engine, clock=lambda: start + timedelta(seconds=next(ticks)))
    for i in range(7):
        variant = "doudizhu3" if i % 2 else "zhengshangyou1"
        store.append(f"g{i}", 0, [ev(1)], f"r{i}", header=GameHeader(variant, 1, ["alice"]))
    page1 = store.list_games(player_id="alice", limit=3)
    assert [g.game_id for g in page1] == ["g6", "g5", "g4"]
    last = page1[-1]
    page2 = store.list_games(player_id="alice", limit=3, after=(last.created_at, last.game_id))
    assert [g.game_id for g in page2] == ["g3", "g2", "g1"]
    assert [g.game_id for g in store.list_games(variant="doudizhu3")] == ["g5", "g3", "g1"]
    assert store.list_games(player_id="nobody") == []
    engine.dispose()


WRITER = """
import sys
from services.common.db import make_engine
from services.replay.store import EventStore, GameHeader, NewEvent
store = EventStore(make_engine(sys.argv[1]))
header = GameHeader("doudizhu3", 1, [])
store.append("crash", 0, [NewEvent("deal", b"e1", "x")], "c0", header=header)
seq = 1
while True:
    batch = [NewEvent("play", f"e{seq + i + 1}".encode() * 50, "x") for i in range(5)]
    store.append("crash", seq, batch, f"c{seq}")
    seq += 5
    print(seq, flush=True)
"""


def test_a_writer_killed_mid_append_leaves_every_acknowledged_event_and_no_partial_one(
    db_url: str,
) -> None:
    upgrade(db_url)
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, db_url],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert proc.stdout is not None
    acknowledged = 0
    deadline = time.monotonic() + 30
    while acknowledged < 40 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acknowledged = int(line)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert acknowledged >= 40, "the writer did not get going"
    engine = make_engine(db_url)
    store = EventStore(engine)
    stored = store.events("crash")
    assert len(stored) >= acknowledged
    assert (len(stored) - 1) % 5 == 0  # whole batches only: no partial append
    assert store.verify_chain("crash") is None
    engine.dispose()
