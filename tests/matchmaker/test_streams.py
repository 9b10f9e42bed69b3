"""A seat's connection lives in the database: an open Subscribe stream is a row with a lease
its instance renews, so every instance's GetTable shows it, a seat with a stream open on
another instance is not disconnected, and a dead instance's streams lapse into the
disconnect grace."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator

import grpc
import pytest
from cardroom.v1 import matchmaker_pb2, matchmaker_pb2_grpc
from sqlalchemy import update

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.common.notify import (
    CONNECT_TIMEOUT_S,
    KEEPALIVE,
    Announcer,
    Notifier,
    side_connection,
)
from services.common.server import BackgroundServer
from services.common.settings import SettingsError
from services.matchmaker.models import streams
from services.matchmaker.server import STREAM_LEASE_ENV, MatchmakerConfig, make_spec
from services.matchmaker.waker import Waker

from .conftest import FAST, Cluster, seated, settings, wait_for
from .test_games import Stream, enqueue

M = matchmaker_pb2
#: Leases short enough for a test to see one lapse, and long enough that a renewal (every
#: third of a lease) late by a loaded machine's hiccup does not lapse (600 ms did once, under
#: four agents' load: the seat was dropped after its grace).
LEASED = dataclasses.replace(FAST, stream_lease_ms=1500)
TIMERS = M.Timers(bid_ms=60_000, turn_ms=60_000, start_ms=60_000, grace_ms=1000, bot_think_ms=0)
#: Past a stream lease and the disconnect grace after it.
PAST_LEASE_AND_GRACE_S = (LEASED.stream_lease_ms + TIMERS.grace_ms) / 1000 + 0.3


@pytest.fixture
def leased(db_url: str, engine_target: str) -> Iterator[Cluster]:
    upgrade(db_url)
    c = Cluster(db_url, engine_target, runner=LEASED)
    c.start_replay()
    c.start_mm()
    yield c
    c.stop()


@pytest.fixture
def second(leased: Cluster) -> Iterator[matchmaker_pb2_grpc.MatchmakerServiceStub]:
    """Another matchmaker instance on the same database."""
    config = MatchmakerConfig(
        database_url=leased.db_url,
        engine_addr=leased.engine_target,
        replay_addr=f"127.0.0.1:{leased.replay_port}",
        access=leased.access,
        runner=LEASED,
    )
    with BackgroundServer(make_spec(config), settings("matchmaker")) as other:
        channel = grpc.insecure_channel(other.target)
        yield matchmaker_pb2_grpc.MatchmakerServiceStub(channel)
        channel.close()


def connected(stub: matchmaker_pb2_grpc.MatchmakerServiceStub, table_id: str, seat: int) -> bool:
    snap = stub.GetTable(M.GetTableRequest(table_id=table_id, player_id="alice"), timeout=10)
    return bool(snap.seats[seat].connected)


def test_a_stream_on_one_instance_is_a_connected_seat_on_every_instance(
    leased: Cluster, second: matchmaker_pb2_grpc.MatchmakerServiceStub
) -> None:
    a = leased.mm()
    ticket = seated(a, enqueue(a, "alice", "ddz3", timers=TIMERS).ticket_id)
    table_id, seat = ticket.table_id, ticket.seats[0]
    on_a = Stream(a, table_id, "alice")
    wait_for(lambda: connected(second, table_id, seat))
    # A second stream of the seat on the other instance; the first one ends: still connected,
    # past the grace and past a lease, because the other instance's stream is open.
    on_b = Stream(second, table_id, "alice")
    wait_for(lambda: any(e.type == "bot_joined" for e in on_b.events))
    on_a.close()
    time.sleep(PAST_LEASE_AND_GRACE_S)
    assert connected(a, table_id, seat) and connected(second, table_id, seat)
    assert not any(e.type == "disconnected" for e in on_b.events)
    # The last stream ends: disconnected on both instances, then removed after the grace.
    on_b.close()
    wait_for(lambda: any(s.player_id != "alice" for s in _seats(a, table_id)))


def _seats(stub: matchmaker_pb2_grpc.MatchmakerServiceStub, table_id: str) -> list[M.Seat]:
    tables = stub.ListTables(M.ListTablesRequest(), timeout=10).tables
    return [s for t in tables if t.table_id == table_id for s in t.seats]


def test_a_dead_instances_stream_lapses_into_the_disconnect_grace(leased: Cluster) -> None:
    stub = leased.mm()
    ticket = seated(stub, enqueue(stub, "alice", "ddz3", timers=TIMERS).ticket_id)
    table_id, seat = ticket.table_id, ticket.seats[0]
    stream = Stream(stub, table_id, "alice")
    wait_for(lambda: connected(stub, table_id, seat))
    # The instance serving the stream "dies": nobody renews its row any more.
    engine = make_engine(leased.db_url)
    with engine.begin() as conn:
        conn.execute(update(streams).values(instance="dead"))
    engine.dispose()
    wait_for(lambda: any(e.type == "disconnected" for e in stream.events))
    left = wait_for(lambda: [e for e in stream.events if e.type == "player_left"])
    assert '"why":"disconnected"' in left[0].data_json
    assert all(s.player_id != "alice" for s in _seats(stub, table_id))
    stream.close()


def test_the_stream_lease_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STREAM_LEASE_ENV, "2.5")
    assert MatchmakerConfig.from_env().runner.stream_lease_ms == 2500
    monkeypatch.setenv(STREAM_LEASE_ENV, "0")
    with pytest.raises(SettingsError, match=STREAM_LEASE_ENV):
        MatchmakerConfig.from_env()


async def settled(waker: Waker, db_url: str) -> None:
    """Until the Waker's LISTEN is up on PostgreSQL (coming up, it wakes every waiter)."""
    if db_url.startswith("postgresql"):
        deadline = time.monotonic() + 10
        while not waker.listening and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert waker.listening


def test_a_write_wakes_its_own_streams_once_and_anothers_write_wakes_them(db_url: str) -> None:
    """A table write wakes this instance's streams at once; its NOTIFY (``table_id:seq``)
    coming back through LISTEN is then no second wake-up, while a write of another instance
    (a newer seq) or a bare key (seating) still is one."""

    async def run() -> None:
        engine = make_engine(db_url)
        waker = Waker(engine, asyncio.get_running_loop(), 0.05)
        try:
            await settled(waker, db_url)
            fut = waker.future("t1")
            waker.wake_written("t1", 4, 5)
            assert fut.done()
            fut = waker.future("t1")
            waker.notified("t1:5")  # the echo of that write, as the LISTEN thread gets it
            await asyncio.sleep(0.02)
            assert not fut.done()
            waker.notified("t1:6")  # another instance moved the table on
            assert await waker.wait("t1", 2.0, fut)
            fut = waker.future("t1")
            waker.notified("t1")
            assert await waker.wait("t1", 2.0, fut)
            assert not await waker.wait("t1", 0.01)
        finally:
            waker.close()
            engine.dispose()

    asyncio.run(run())


def test_a_streams_own_writes_come_from_memory_only_when_it_has_them_all(db_url: str) -> None:
    """Waker.written: this process's consecutive writes of a table, from a stream's seq on,
    exactly as the log holds them; None (read the log) when a write of another instance
    came in between, or the stream is behind what is kept."""

    def ev(seq: int, kind: str) -> M.TableEvent:
        return M.TableEvent(table_id="t1", seq=seq, type=kind)

    async def run() -> None:
        engine = make_engine(db_url)
        waker = Waker(engine, asyncio.get_running_loop(), 0.05)
        try:
            assert waker.written("t1", 0) is None  # nothing written here: read the log
            waker.wake_written("t1", 0, 2, [(None, ev(1, "a")), (1, ev(2, "b"))])
            waker.wake_written("t1", 2, 3, [])  # a write without events moves the seq by one
            waker.wake_written("t1", 3, 4, [(None, ev(4, "c"))])
            got = waker.written("t1", 0)
            assert got is not None and got[0] == 4
            assert [(s, to, e.type) for s, to, e in got[1]] == [
                (1, None, "a"), (2, 1, "b"), (4, None, "c"),
            ]  # fmt: skip
            got = waker.written("t1", 2)
            assert got is not None and [e.type for _, _, e in got[1]] == ["c"]
            assert waker.written("t1", 1) is None  # not a write's boundary: read the log
            assert waker.written("t1", 4) is None  # up to date: a wake-up now is another's
            # Another instance wrote seq 5; this one 6: only 6 is known here, from 5 on.
            waker.wake_written("t1", 5, 6, [(None, ev(6, "d"))])
            assert waker.written("t1", 4) is None
            got = waker.written("t1", 5)
            assert got is not None and [e.type for _, _, e in got[1]] == ["d"]
        finally:
            waker.close()
            engine.dispose()

    asyncio.run(run())


def test_listen_going_or_coming_back_wakes_every_waiter(db_url: str) -> None:
    """The long poll of a stream while LISTEN is up is only a safety net: when LISTEN goes
    (its notifications are lost) or comes back, every waiter is woken to read again."""

    async def run() -> None:
        engine = make_engine(db_url)
        waker = Waker(engine, asyncio.get_running_loop(), 0.05)
        try:
            await settled(waker, db_url)
            now = waker.listening
            futs = [waker.future("t1"), waker.future("t2")]
            waker.listening = not now
            assert await waker.wait("t1", 2.0, futs[0]) and await waker.wait("t2", 2.0, futs[1])
            fut = waker.future("t1")
            waker.listening = not now  # no change: nobody is woken
            assert not await waker.wait("t1", 0.05, fut)
            waker.listening = now
            assert await waker.wait("t1", 2.0, fut)
        finally:
            waker.close()
            engine.dispose()

    asyncio.run(run())


def test_the_notify_of_a_write_still_returning_is_not_a_second_wake_up(db_url: str) -> None:
    """A write's NOTIFY can come back before the write returns to the event loop: while
    this process writes the table, the Waker waits for the write (which wakes the streams
    itself, events in hand) and wakes them only if the NOTIFY was another's after all."""

    async def run() -> None:
        engine = make_engine(db_url)
        busy = {"t1"}
        waker = Waker(engine, asyncio.get_running_loop(), 0.05, lambda key: key in busy)
        try:
            await settled(waker, db_url)
            fut = waker.future("t1")
            waker.notified("t1:7")  # the echo, ahead of the write's return
            await asyncio.sleep(0.03)
            assert not fut.done()
            waker.wake_written("t1", 6, 7, [(None, M.TableEvent(seq=7, type="x"))])
            assert fut.done()
            fut = waker.future("t1")
            busy.discard("t1")
            assert not await waker.wait("t1", 0.1, fut)  # the echo woke nobody a second time
            busy.add("t1")
            waker.notified("t1:9")  # another's write while this process's write lost its race
            await asyncio.sleep(0.03)
            assert not fut.done()
            busy.discard("t1")  # ... and ended without a write: the NOTIFY wakes them
            assert await waker.wait("t1", 1.0, fut)
        finally:
            waker.close()
            engine.dispose()

    asyncio.run(run())


def test_the_announcer_notifies_after_the_write(db_url: str) -> None:
    """Table writes NOTIFY from the Announcer's own connection (not inside the write's
    transaction): every key sent reaches a LISTENer, in batches."""
    if not db_url.startswith("postgres"):
        pytest.skip("NOTIFY is PostgreSQL's")
    engine = make_engine(db_url)
    channel = f"cardroom_test_{time.monotonic_ns()}"
    notifier = Notifier(engine, channel, 0.05)
    announcer = Announcer(engine, channel)
    try:
        wait_for(lambda: notifier.listening, timeout=10)
        keys = [f"t{i}:{i}" for i in range(Announcer.BATCH + 10)]
        for key in keys:
            announcer.send(key)
        wait_for(lambda: all(notifier.version(k) == 1 for k in keys), timeout=10)
    finally:
        announcer.close()
        notifier.close()
        engine.dispose()


def test_side_connections_keep_the_url_and_watch_the_peer(db_url: str) -> None:
    """LISTEN's and the Announcer's connections come from one place: the engine's URL with
    its options (here the test's search path) plus a connect timeout and TCP keepalives, so a
    peer gone silent is noticed in seconds rather than after the kernel's two hours."""
    if not db_url.startswith("postgres"):
        pytest.skip("side connections are PostgreSQL's")
    engine = make_engine(db_url)
    try:
        with side_connection(engine) as conn:
            params = conn.info.get_parameters()
            assert params["connect_timeout"] == str(CONNECT_TIMEOUT_S)
            assert params["keepalives_idle"] == str(KEEPALIVE["keepalives_idle"])
            with engine.connect() as pooled:
                want = pooled.exec_driver_sql("SHOW search_path").scalar_one()
            assert conn.execute("SHOW search_path").fetchone() == (want,)
            assert conn.autocommit
    finally:
        engine.dispose()
