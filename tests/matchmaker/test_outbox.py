"""The outbox claims a game through its oldest undelivered row: while one instance delivers
a game, no other claims any of its rows, so a later batch never reaches replay before an
earlier one (on SQLite and PostgreSQL, two Stores standing for two instances)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, inspect, select, text

from services.common.db import make_engine
from services.common.migrate import downgrade, upgrade
from services.common.settings import SettingsError
from services.common.wire import common_pb2, matchmaker_pb2, replay_pb2
from services.matchmaker.clients import Engine, Replay
from services.matchmaker.models import metadata, outbox
from services.matchmaker.runner import Runner
from services.matchmaker.schedule import FULL
from services.matchmaker.server import OUTBOX_GATHER_ENV, MatchmakerConfig
from services.matchmaker.service import config_of
from services.matchmaker.settings import RunnerSettings
from services.matchmaker.store import Store, Write, now_ms

M = matchmaker_pb2
INDEX = "ix_mm_outbox_game_id_id"


@pytest.fixture
def stores(db_url: str) -> Iterator[tuple[Store, Store]]:
    upgrade(db_url)
    a, b = Store(make_engine(db_url)), Store(make_engine(db_url))
    yield a, b
    a.close()
    b.close()


def add(store: Store, game_id: str, first_seq: int, body: bytes = b"") -> None:
    now = now_ms()
    row = {"game_id": game_id, "first_seq": first_seq, "body": body, "created_ms": now,
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


def test_the_outbox_game_index_migrates_up_and_down(db_url: str) -> None:
    """Migration 0005 adds the (game_id, id) index the models declare, and takes it away
    again: after the upgrade the database is exactly the models' schema, after the
    downgrade to 0004 only that index is missing, and the upgrade runs again cleanly."""
    upgrade(db_url)
    engine = make_engine(db_url)

    def diff() -> list[Any]:
        with engine.connect() as conn:
            return list(compare_metadata(MigrationContext.configure(conn), metadata))

    def indexes() -> set[str]:
        return {str(ix["name"]) for ix in inspect(engine).get_indexes("mm_outbox")}

    try:
        assert diff() == []
        assert INDEX in indexes()
        downgrade(db_url, "0004")
        assert INDEX not in indexes()
        missing = diff()
        assert sorted((d[0], d[1].name) for d in missing) == [
            ("add_index", INDEX),
            ("add_index", "ix_player_ratings_variant_ordinal"),  # 0007's
            ("add_index", "ix_rated_games_variant_seq"),
            ("add_table", "mm_player_stats"),  # 0006's
            ("add_table", "player_ratings"), ("add_table", "rated_games"),  # 0007's
            ("add_table", "rating_heads"),
        ]  # fmt: skip
        upgrade(db_url)
        assert INDEX in indexes() and diff() == []
    finally:
        engine.dispose()


def test_a_games_rows_are_found_through_the_index(db_url: str) -> None:
    """With many rows (PostgreSQL's plan), the per-game statements (a game's rows, its
    backoff) go through the (game_id, id) index, not a scan of the whole outbox."""
    if not db_url.startswith("postgresql"):
        pytest.skip("the plan is PostgreSQL's")
    upgrade(db_url)
    engine = make_engine(db_url)
    try:
        rows = [{"game_id": f"g{g:05d}", "first_seq": i, "body": b"x" * 100, "created_ms": 0,
                 "next_try_ms": 0, "attempts": 0}
                for i in range(4) for g in range(5000)]  # fmt: skip
        with engine.begin() as conn:
            conn.execute(insert(outbox), rows)
            conn.execute(text("ANALYZE mm_outbox"))
        with engine.connect() as conn:
            plans = [
                "\n".join(r[0] for r in conn.execute(text("EXPLAIN " + sql)))
                for sql in (
                    "SELECT * FROM mm_outbox WHERE game_id = 'g00042' ORDER BY id",
                    "UPDATE mm_outbox SET next_try_ms = 1 WHERE game_id = 'g00042'",
                )
            ]
        assert all(INDEX in plan for plan in plans), plans
    finally:
        engine.dispose()


def a_table(store: Store) -> str:
    """A table of three players formed by the store's own seating."""
    config, _ = config_of(M.EnqueueRequest(variant="doudizhu3", private_code="outbox-test"))
    pool = ""
    for i in range(3):
        row, _ = store.enqueue(player_id=f"p{i}", players=[f"p{i}"], config=config,
                               request_id="", fill_after_ms=-1, ttl_ms=60_000)  # fmt: skip
        pool = row["pool"]
    (table_id,) = store.seat_pool(pool)
    return str(table_id)


def append_of(game_id: str, seq: int) -> replay_pb2.AppendEventsRequest:
    event = common_pb2.Event(type="pass", envelope=common_pb2.EventEnvelope(seq=seq))
    return replay_pb2.AppendEventsRequest(game_id=game_id, expected_seq=seq - 1, events=[event])


def test_gathered_rows_are_due_after_their_delay(stores: tuple[Store, Store]) -> None:
    """A write's outbox rows wait out ``outbox_delay_ms`` (the runner's outbox_gather_ms), so
    that the game's next rows join them in one append; rows without a delay are due at once."""
    a, b = stores
    table = a.load(a_table(a))
    assert table is not None
    table = a.write(table, table.seq, Write(outbox=[append_of("g1", 1)], outbox_delay_ms=400))
    table = a.write(table, table.seq, Write(outbox=[append_of("g1", 2)], outbox_delay_ms=400))
    table = a.write(table, table.seq, Write(outbox=[append_of("g2", 1)]))
    assert seqs(b.claim_outbox(10, 10_000)) == [("g2", 1)]  # g1's rows are not due yet
    time.sleep(0.45)
    assert seqs(b.claim_outbox(10, 10_000)) == [("g1", 1), ("g1", 2)]  # one append


def test_the_gather_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MatchmakerConfig.from_env().runner.outbox_gather_ms == 200
    monkeypatch.setenv(OUTBOX_GATHER_ENV, "0")
    assert MatchmakerConfig.from_env().runner.outbox_gather_ms == 0  # each write's at once
    monkeypatch.setenv(OUTBOX_GATHER_ENV, "0.5")
    assert MatchmakerConfig.from_env().runner.outbox_gather_ms == 500
    for bad in ("11", "-1", "nan", "soon"):
        monkeypatch.setenv(OUTBOX_GATHER_ENV, bad)
        with pytest.raises(SettingsError, match=OUTBOX_GATHER_ENV):
            MatchmakerConfig.from_env()


@contextlib.asynccontextmanager
async def hung_replay(asked: list[str]) -> AsyncIterator[str]:
    """A real gRPC server whose AppendEvents never answers (a hung replay); each request's
    game id goes to ``asked``.  Its address."""

    async def hang(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        asked.append(replay_pb2.AppendEventsRequest.FromString(request).game_id)
        await asyncio.sleep(30)  # past the caller's timeout
        return b""

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "cardroom.v1.ReplayService", {"AppendEvents": grpc.unary_unary_rpc_method_handler(hang)}
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(0)


def test_a_replay_that_does_not_answer_costs_a_pass_one_call(db_url: str) -> None:
    """The outbox sends one append at a time, oldest game first; when replay does not answer
    (a hung process, a black-holed address), the pass waits out that one call's timeout and
    every later game of the pass backs off untried, not each after a timeout of its own."""
    upgrade(db_url)
    store = Store(make_engine(db_url))
    for game in ("g1", "g2", "g3"):
        add(store, game, 1, append_of(game, 1).SerializeToString())
    asked: list[str] = []

    async def main() -> None:
        async with hung_replay(asked) as address:
            runner = Runner(store, Engine("127.0.0.1:1"), Replay(address, timeout=0.5))
            try:
                assert await runner.outbox.deliver_once() != FULL  # not a full pass
                assert not runner.replay_ok
            finally:
                await runner.close()

    started = now_ms()
    asyncio.run(main())
    assert asked == ["g1"]
    check = Store(make_engine(db_url))
    rows = check.run(lambda conn: conn.execute(select(outbox).order_by(outbox.c.id)).all())
    check.close()
    assert [(r.game_id, r.attempts) for r in rows] == [("g1", 1), ("g2", 1), ("g3", 1)]
    # Measured from before the pass, not after it: a busy machine can spend the first
    # backoff (200 ms) closing the runner, and the rows would look due again (CI did).
    first_backoff = RunnerSettings().backoff_ms
    assert all(r.next_try_ms >= started + first_backoff for r in rows), (
        "a game was left due: tried again at once"
    )


def test_a_dead_instances_rows_are_taken_over_within_the_lease(db_url: str) -> None:
    """Its rows were claimed for a fixed 10 s: two matchmakers with a 2 s lease, one killed,
    and the dead one's games reached replay 8–21 s late.  The claim is one lease long."""
    upgrade(db_url)
    store, other = Store(make_engine(db_url)), Store(make_engine(db_url))
    add(store, "g1", 1, append_of("g1", 1).SerializeToString())
    asked: list[str] = []

    async def main() -> None:
        async with hung_replay(asked) as address:
            runner = Runner(store, Engine("127.0.0.1:1"), Replay(address, timeout=30),
                            RunnerSettings(lease_ms=800))  # fmt: skip
            try:
                delivering = asyncio.create_task(runner.outbox.deliver_once())
                while not asked:
                    await asyncio.sleep(0.01)
                delivering.cancel()  # the instance dies inside the append
                with contextlib.suppress(asyncio.CancelledError):
                    await delivering
            finally:
                await runner.close()

    try:
        asyncio.run(main())
        assert other.claim_outbox(10, 10_000) == []  # still the dead instance's
        time.sleep(0.85)
        assert seqs(other.claim_outbox(10, 10_000)) == [("g1", 1)]
    finally:
        store.close()
        other.close()


def test_player_stats_start_from_replays_totals(db_url: str) -> None:
    """Migration 0006 creates mm_player_stats from replay's player_stats (the same database),
    so nobody's running total restarts at zero when GetPlayer stops asking replay."""
    from datetime import UTC, datetime

    from services.matchmaker.models import player_stats
    from services.replay.models import player_stats as replay_stats

    upgrade(db_url, "0005")
    engine = make_engine(db_url)
    ended = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    try:
        with engine.begin() as conn:
            conn.execute(insert(replay_stats), [
                {"player_id": "ann", "family": "doudizhu", "games": 3, "total": -12,
                 "last_game_id": "g3", "last_score": -4, "updated_at": ended},
            ])  # fmt: skip
        upgrade(db_url)
        with engine.connect() as conn:
            rows = [tuple(r) for r in conn.execute(select(player_stats))]
        assert rows == [("ann", "doudizhu", 3, -12, "g3", -4, int(ended.timestamp() * 1000))]
        downgrade(db_url, "0005")
        assert "mm_player_stats" not in inspect(engine).get_table_names()
        upgrade(db_url)
    finally:
        engine.dispose()
