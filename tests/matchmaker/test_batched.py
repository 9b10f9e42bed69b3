"""SubscribeBatched: the seat's stream of Subscribe, several events to a message.  The same
events in the same order with the same seqs, every event of one write in one message (a run
of bot moves arrives whole), resumed after a seq and ended by a departure the same way, and
refused the same way."""

from __future__ import annotations

import threading
from typing import Any

import grpc
import pytest
from cardroom.v1 import engine_pb2, matchmaker_pb2

from services.common.reasons import ServiceReason

from .conftest import Cluster, seated, wait_for
from .test_games import Stream, act, enqueue
from .test_tables import reason

M = matchmaker_pb2
MOVES = ("bid", "pass", "play")


class BatchedStream:
    """A seat's SubscribeBatched stream, read in a thread: its messages as they came."""

    def __init__(self, stub: Any, table_id: str, player: str, after: int = 0) -> None:
        self.batches: list[list[M.TableEvent]] = []
        self.call = stub.SubscribeBatched(
            M.SubscribeRequest(table_id=table_id, player_id=player, after_seq=after)
        )
        self.error: grpc.RpcError | None = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for batch in self.call:
                self.batches.append(list(batch.events))
        except grpc.RpcError as exc:
            self.error = exc
        finally:
            self.done.set()

    @property
    def events(self) -> list[M.TableEvent]:
        return [e for b in self.batches for e in b]

    def close(self) -> None:
        self.call.cancel()
        self.done.wait(5)


def moves_in(batch: list[M.TableEvent]) -> int:
    return sum(e.type == "game" and e.game_event.type in MOVES for e in batch)


def test_the_batched_stream_is_the_stream_with_a_writes_events_together(
    cluster: Cluster,
) -> None:
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "ann", "doudizhu3", bot_level="easy").ticket_id)
    ids = {"table_id": ticket.table_id, "player_id": "ann"}
    single = Stream(stub, ticket.table_id, "ann")
    batched = BatchedStream(stub, ticket.table_id, "ann")
    stub.Ready(M.ReadyRequest(**ids), timeout=10)
    wait_for(lambda: stub.GetTable(M.GetTableRequest(**ids)).game_no == 1)
    act(stub, ticket.table_id, "ann", engine_pb2.Action(autoplay=True))
    wait_for(lambda: any(e.type == "series" for e in batched.events), timeout=60)
    wait_for(lambda: any(e.type == "series" for e in single.events), timeout=10)
    single.close()
    batched.close()
    # The same items, in the same order, with the same seqs and bodies.
    assert [e.SerializeToString() for e in batched.events] == [
        e.SerializeToString() for e in single.events
    ]
    assert all(batched.batches), "no message is empty"
    seqs = [e.seq for e in batched.events]
    assert seqs == sorted(set(seqs))
    # The bots and the auto-play seat moved in runs: a run's moves came in one message.
    assert max(moves_in(b) for b in batched.batches) >= 3
    assert len(batched.batches) < len(batched.events) / 2

    # Resumed after a seq: the rest, with no gap and no duplicate.
    middle = seqs[len(seqs) // 2]
    resumed = BatchedStream(stub, ticket.table_id, "ann", after=middle)
    wait_for(lambda: any(e.type == "series" for e in resumed.events), timeout=10)
    resumed.close()
    # (The first two streams' close is news after them: a seat's stream closing.)
    assert [e.seq for e in resumed.events if e.seq <= seqs[-1]] == [s for s in seqs if s > middle]


def test_a_departure_ends_the_batched_stream(cluster: Cluster) -> None:
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "bea", "doudizhu3").ticket_id)
    stream = BatchedStream(stub, ticket.table_id, "bea")
    wait_for(lambda: any(e.type == "connected" for e in stream.events))
    stub.LeaveTable(M.LeaveTableRequest(table_id=ticket.table_id, player_id="bea"), timeout=10)
    assert stream.done.wait(15), "the stream ended with the seat's departure"
    assert stream.error is None
    assert stream.events[-1].type in ("player_left", "table_closed")


@pytest.mark.parametrize(
    ("table", "player", "why"),
    [
        ("no-such-table", "cid", ServiceReason.TABLE_NOT_FOUND),
        (None, "someone-else", ServiceReason.NOT_SEATED),
    ],
)
def test_the_batched_stream_refuses_as_subscribe_does(
    cluster: Cluster, table: str | None, player: str, why: ServiceReason
) -> None:
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "cid", "doudizhu3").ticket_id)
    request = M.SubscribeRequest(table_id=table or ticket.table_id, player_id=player)

    def refusal(call: Any) -> tuple[grpc.StatusCode, str]:
        return reason(lambda **kw: list(call(request, **kw)))

    refusals = [refusal(stub.Subscribe), refusal(stub.SubscribeBatched)]
    assert refusals[0] == refusals[1]
    assert refusals[1][1] == why.value
