"""The background loops sleep until their work falls due (schedule.Alarm): an idle instance
reads the database about once a second a loop, not every tick; the bot fill times, timers
and outbox rows this instance writes are seen when they fall due, however long the loops
would otherwise sleep."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from cardroom.v1 import matchmaker_pb2, replay_pb2
from sqlalchemy import event

from services.matchmaker.runner import Runner

from .conftest import Cluster, data, seated, wait_for
from .test_games import Stream, enqueue

M = matchmaker_pb2


def reads_during(runner: Runner, seconds: float) -> int:
    """The statements the runner's store sent to the database in ``seconds``."""
    count = 0

    def counted(*_: Any) -> None:
        nonlocal count
        count += 1

    store = runner.store
    # PostgreSQL's reader is the engine with options (one pool): its events are the engine's.
    engines = [store.engine] + (
        [store.reader] if store.reader.pool is not store.engine.pool else []
    )
    for engine in engines:
        event.listen(engine, "before_cursor_execute", counted)
    try:
        time.sleep(seconds)
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", counted)
    return count


def restarted(cluster: Cluster, **settings: Any) -> Runner:
    cluster.stop_mm()
    cluster.runner = dataclasses.replace(cluster.runner, **settings)
    cluster.start_mm()
    return cluster.the_runner()


def test_an_idle_instance_reads_the_database_about_once_a_second_a_loop(cluster: Cluster) -> None:
    """Nothing queued, no table: the deadlines, seating and outbox loops look once a
    second each (idle_s), the stream leases every 5 s, PostgreSQL's reaper every quarter
    lease (1.25 s); at the tests' tick of 20 ms, looking every tick would be 450 reads in
    3 s."""
    runner = restarted(cluster, idle_s=1.0, lease_ms=5000)
    time.sleep(0.5)  # started
    reads = reads_during(runner, 3.0)
    assert reads <= 24, reads


def test_what_this_instance_writes_is_seen_when_due_though_the_loops_idle_a_minute(
    cluster: Cluster,
) -> None:
    """With the loops' idle sleep at a minute, a ticket's bot fill time (0.3 s), the bots'
    think times, a person's turn timers and the outbox's gathered rows (0.2 s) are each
    seen when they fall due: the instance noted each when it wrote it."""
    restarted(cluster, idle_s=60.0)
    stub = cluster.mm()
    timers = M.Timers(bid_ms=300, turn_ms=300, start_ms=2000, grace_ms=400, bot_think_ms=200)
    ticket = enqueue(stub, "ann", "ddz3", bot_fill_after_ms=300, timers=timers)
    table_id = seated(stub, ticket.ticket_id, timeout=15).table_id
    stream = Stream(stub, table_id, "ann")
    try:
        stub.Ready(M.ReadyRequest(table_id=table_id, player_id="ann"), timeout=10)

        def moves() -> list[M.TableEvent]:
            return [e for e in stream.events if e.type == "game" and e.game_event.type != "deal"]

        # Ann never acts: every move is a bot's after its think time or ann's turn timing
        # out, each a deadline of this instance's writes.
        wait_for(lambda: len(moves()) >= 6, timeout=20)
        started = next(e for e in stream.events if e.type == "game_started")
        game_id = data(started)["game_id"]
    finally:
        stream.close()
    replay = cluster.replay()

    def in_replay() -> int:
        game = replay.GetGame(replay_pb2.GetGameRequest(game_id=game_id), timeout=10).game
        return game.head_seq

    # The outbox's rows, due 0.2 s after their writes (outbox_gather_ms), reached replay.
    wait_for(lambda: in_replay() >= 6, timeout=20)
