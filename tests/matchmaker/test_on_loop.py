"""Short store calls on the event loop's own thread (SQLite only, backends.run_on_loop): they
run there when SQLite's write lock is free, and never stop the loop to wait for it — a write
while another process holds the file's lock (``make run``'s replay on the same file) goes to
a database thread, lands once the lock is free, and the loop serves everyone meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest
from sqlalchemy import func, insert, select, text

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.common.wire import matchmaker_pb2, replay_pb2
from services.matchmaker.backends import (
    APPLICATION_NAME,
    Conflict,
    PostgresBackend,
    WouldWait,
    run_on_loop,
)
from services.matchmaker.clients import Engine, Replay
from services.matchmaker.models import outbox, player_stats, requests, table_events, tables
from services.matchmaker.priority import background_context
from services.matchmaker.runner import Runner
from services.matchmaker.store import Store, Write, on_loop
from services.matchmaker.table import PlayerResult, Seat, State, Table

#: How long the other process's transaction holds the file's write lock.
HELD_S = 0.5


def a_runner(db_url: str) -> Runner:
    """A runner on the store (in a running loop: its clients' channels need one)."""
    return Runner(Store(make_engine(db_url)), Engine("127.0.0.1:1"), Replay("127.0.0.1:1"))


def test_a_short_call_runs_on_the_loop_on_sqlite_and_in_a_thread_on_postgresql(
    db_url: str,
) -> None:
    upgrade(db_url)

    def which_thread() -> int:
        return threading.get_ident()

    async def main() -> tuple[int, int, int]:
        runner = a_runner(db_url)
        try:
            short = await runner.db(on_loop(which_thread))
            # Not marked short: a seating pass over thousands of tickets, say.
            long = await runner.db(lambda: threading.get_ident())
            return short, long, threading.get_ident()
        finally:
            await runner.close()

    short, long, loop_thread = asyncio.run(main())
    assert long != loop_thread
    assert (short == loop_thread) is db_url.startswith("sqlite")


def test_a_write_never_stops_the_loop_while_another_process_holds_the_lock(
    db_url: str,
) -> None:
    if not db_url.startswith("sqlite"):
        return  # PostgreSQL's calls all run in threads (above)
    path = db_url.split("///", 1)[1]
    upgrade(db_url)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's write in progress
    released: list[float] = []

    def release_later() -> None:
        time.sleep(HELD_S)
        released.append(time.monotonic())
        other.execute("COMMIT")

    async def main() -> tuple[float, int, int]:
        runner = a_runner(db_url)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        beat = asyncio.create_task(ticker())
        threading.Thread(target=release_later, daemon=True).start()
        try:
            written_in = await runner.db(
                on_loop(lambda: runner.store.lease("t1", 5) or threading.get_ident())
            )
            done = time.monotonic()
            await runner.db(runner.store.lease, "t1", 6)  # and the lock is free again
            return done, written_in, ticks
        finally:
            beat.cancel()
            await runner.close()

    loop_thread = threading.get_ident()
    done, written_in, ticks = asyncio.run(main())
    other.close()
    assert written_in != loop_thread, "the write waited for the lock on the loop's thread"
    assert done >= released[0], "the write did not wait for the other process's lock"
    # The loop ran on while the write waited: about HELD_S / 10 ms ticks.
    assert ticks >= 10


def a_table(store: Store) -> Table:
    config = {"variant": "doudizhu3", "room": {"stake": 1}, "bot_level": "easy",
              "timers": {"bid_ms": 9000, "turn_ms": 9000, "start_ms": 9000, "grace_ms": 9000,
                         "bot_think_ms": 0}}  # fmt: skip
    seats = [Seat.human("ann"), Seat.for_bot("easy", "b1", 4), Seat.for_bot("easy", "b2", 4)]
    table = Table("t1", "doudizhu3", config, State.PLAYING, 0, seats, game_id="t1.1", turn=0)
    with store.engine.begin() as conn:
        conn.execute(insert(tables).values(**table.values()))
    return table


def a_write(request_id: str = "") -> Write:
    """A move's write: two events, an append for replay and (``request_id``) an Act's answer."""
    w = Write()
    w.note("ready", seat=0)
    w.note("deadline", seat=1, kind="turn", deadline_ms=5)
    append = replay_pb2.AppendEventsRequest(game_id="t1.1", expected_seq=0)
    append.events.add().envelope.seq = 1
    w.outbox.append(append)
    if request_id:
        w.request = ("t1", request_id, b"h" * 32, matchmaker_pb2.ActResponse())
    return w


def rows(store: Store) -> tuple[int, int, int, int]:
    """The table's seq and how many events, outbox rows and request ids are stored."""
    with store.engine.connect() as conn:
        seq = conn.execute(select(tables.c.seq)).scalar_one()
        return (seq, *(conn.execute(select(func.count()).select_from(t)).scalar_one()
                       for t in (table_events, outbox, requests)))  # fmt: skip


def test_a_table_write_on_the_loop_lands_whole_or_not_at_all(db_url: str) -> None:
    """SQLite's table write on the loop's thread runs on the driver alone: all of it lands
    (row, events, outbox, request id), or nothing when the seq moved on or the request id
    landed already (Conflict), and it waits in a thread while another process writes."""
    if not db_url.startswith("sqlite"):
        return  # PostgreSQL's one-statement write: tests/matchmaker/test_tables.py
    upgrade(db_url)
    store = Store(make_engine(db_url))
    try:
        table = a_table(store)
        run_on_loop(lambda: store.write(table, 0, a_write("r1")))
        assert rows(store) == (2, 2, 1, 1)
        stale = a_table_copy(table, seq=0)
        with pytest.raises(Conflict):
            run_on_loop(lambda: store.write(stale, 0, a_write("r2")))
        assert rows(store) == (2, 2, 1, 1)
        with pytest.raises(Conflict):  # the same request id again, on the current seq
            run_on_loop(lambda: store.write(table, 2, a_write("r1")))
        assert rows(store) == (2, 2, 1, 1)

        path = db_url.split("///", 1)[1]
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(WouldWait):  # nothing written: a database thread does it
            run_on_loop(lambda: store.write(table, 2, a_write()))
        other.execute("COMMIT")
        other.close()
        assert rows(store) == (2, 2, 1, 1)
        run_on_loop(lambda: store.write(table, 2, a_write()))
        assert rows(store) == (4, 4, 2, 1)
    finally:
        store.close()


def a_table_copy(table: Table, seq: int) -> Table:
    copy = Table.from_values(table.values())
    copy.seq = seq
    return copy


def test_a_table_write_on_postgresql_runs_on_the_loop_whole_or_not_at_all(db_url: str) -> None:
    """PostgreSQL's one-statement table write runs on a connection of the event loop (no
    database thread), started as the engine's own are; it lands whole or not at all, and
    where it cannot run there (the connection broken) it says so with
    nothing written, and the same write from a thread lands; with every connection in use,
    a write waits for the next one given back."""
    if db_url.startswith("sqlite"):
        return  # SQLite's writes on the loop: above
    upgrade(db_url)
    store = Store(make_engine(db_url, lock_timeout_ms=4321, application_name=APPLICATION_NAME))
    assert isinstance(store.backend, PostgresBackend)
    connections = store.backend._loop_connections

    async def main() -> None:
        table = a_table(store)
        assert await store.write_on_loop(table, 0, a_write("r1")) is table
        assert rows(store) == (2, 2, 1, 1)
        conn = await connections.take()
        settings = await (await conn.execute(
            "SELECT current_setting('lock_timeout'), current_setting('application_name'),"
            " pg_backend_pid()")).fetchone()  # fmt: skip
        assert settings[:2] == ("4321ms", APPLICATION_NAME)
        connections.give(conn)

        with pytest.raises(Conflict):
            await store.write_on_loop(a_table_copy(table, seq=0), 0, a_write("r2"))
        with pytest.raises(Conflict):  # the same request id again, on the current seq
            await store.write_on_loop(table, 2, a_write("r1"))
        assert rows(store) == (2, 2, 1, 1)

        with store.engine.connect() as other:  # the loop's connection dies
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": settings[2]})
        assert await store.write_on_loop(table, 2, a_write()) is None
        assert rows(store) == (2, 2, 1, 1)
        store.write(table, 2, a_write())  # as the runner does then, from a thread
        assert rows(store) == (4, 4, 2, 1)
        assert await store.write_on_loop(table, 4, a_write()) is table  # a new connection
        assert rows(store) == (6, 6, 3, 1)

        taken = [await connections.take() for _ in range(connections.size)]
        waiting = asyncio.create_task(store.write_on_loop(table, 6, a_write()))  # all in use
        await asyncio.sleep(0.2)
        assert not waiting.done()
        assert rows(store) == (6, 6, 3, 1)
        connections.give(taken.pop())  # its turn
        assert await waiting is table
        assert rows(store) == (8, 8, 4, 1)

        # People's writes first: a bot's write waiting, then a person's; the person's takes
        # the next connection given back, the bot's the one after.
        taken.append(await connections.take())
        order: list[str] = []

        async def wait_for_one(who: str) -> None:
            conn = await connections.take()
            order.append(who)
            connections.give(conn)

        bot = asyncio.create_task(wait_for_one("bot"), context=background_context())
        await asyncio.sleep(0.05)
        person = asyncio.create_task(wait_for_one("person"))
        await asyncio.sleep(0.05)
        assert order == []
        connections.give(taken.pop())
        await asyncio.gather(person, bot)  # the person's connection, given back, went on
        assert order == ["person", "bot"]
        for conn in taken:
            connections.give(conn)

    try:
        asyncio.run(main())
    finally:
        store.close()


def an_ending(game_id: str, ended_ms: int, release: bool = False, **scores: int) -> Write:
    """A game's last write: each player's score (``release``: with a hold to release too,
    which takes the write through SQLAlchemy's transaction instead of one statement)."""
    w = Write()
    w.results = [PlayerResult(p, "doudizhu", game_id, s, ended_ms) for p, s in scores.items()]
    if release:
        w.release = ["nobody"]
    return w


def totals(store: Store) -> dict[str, tuple[int, int, str, int]]:
    with store.engine.connect() as conn:
        return {r.player_id: (r.games, r.total, r.last_game_id, r.last_score)
                for r in conn.execute(select(player_stats))}  # fmt: skip


def test_a_games_end_adds_to_the_totals_alike_in_one_statement_or_a_transaction(
    db_url: str,
) -> None:
    """A game's end adds each player's score to their running total in the table's write:
    in the one statement written on the event loop, or in a transaction (a write that
    releases holds too); whichever way, the last game is the one that ended last."""
    upgrade(db_url)
    store = Store(make_engine(db_url))
    table = a_table(store)

    async def one_statement(w: Write) -> None:
        if store.backend.postgres:
            assert await store.write_on_loop(table, table.seq, w) is table
        else:
            run_on_loop(lambda: store.write(table, table.seq, w))

    try:
        asyncio.run(one_statement(an_ending("g1", 2000, ann=10, bob=-10)))
        assert totals(store) == {"ann": (1, 10, "g1", 10), "bob": (1, -10, "g1", -10)}
        # Ended before g1 (another instance committed it later): counted, not the last.
        store.write(table, table.seq, an_ending("g2", 1000, release=True, ann=-4, cy=4))
        assert totals(store) == {"ann": (2, 6, "g1", 10), "bob": (1, -10, "g1", -10),
                                 "cy": (1, 4, "g2", 4)}  # fmt: skip
        asyncio.run(one_statement(an_ending("g3", 3000, ann=5, cy=-5)))
        assert totals(store) == {"ann": (3, 11, "g3", 5), "bob": (1, -10, "g1", -10),
                                 "cy": (2, -1, "g3", -5)}  # fmt: skip
    finally:
        store.close()
