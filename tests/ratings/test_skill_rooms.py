"""The skill window as room settings, over gRPC with real services: a room that sets it is a
pool of its own seated by its window, a bad one is refused by name, and a seat freed before a
game starts goes to the first waiting ticket within reach of the table's people."""

from __future__ import annotations

import json
import time
from typing import Any

import grpc
import pytest
from cardroom.v1 import common_pb2, replay_pb2

from services.common.grpc_errors import details
from tests.matchmaker.conftest import SHORT, Cluster, M, seated, verify, wait_for
from tests.matchmaker.test_games import play_game

from .test_auto_bots import rated

#: Never bots: the tickets below sit with people or not at all.
NEVER = -1


def room(**settings: int) -> common_pb2.Room:
    return common_pb2.Room(overrides_json=json.dumps(settings))


def enqueue(stub: Any, player: str, **kw: Any) -> M.Ticket:
    kw.setdefault("bot_fill_after_ms", NEVER)
    kw.setdefault("bot_level", "normal")
    ticket: M.Ticket = stub.Enqueue(
        M.EnqueueRequest(player_id=player, variant="ddz3", **kw), timeout=10
    )
    return ticket


def state(stub: Any, ticket: M.Ticket) -> int:
    got: M.Ticket = stub.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id), timeout=10)
    return int(got.state)


def test_a_room_that_sets_the_window_is_a_pool_seated_by_it(cluster: Cluster) -> None:
    stub = cluster.mm()
    for player, mu in [("q", 1.5), ("r", 1.0), ("q2", 1.5), ("r2", 1.0)]:
        rated(cluster, player, mu)
    # A window of 0 until 600 s: only equal ratings sit together (p, s, u are new: mu 0).
    exact = room(skill_narrow_mu=0, skill_wide_mu=0, skill_anyone_s=600)
    p, q, r = (enqueue(stub, x, room=exact) for x in ("p", "q", "r"))
    # The default room's tickets are another pool: they do not join these.
    q2, r2 = enqueue(stub, "q2"), enqueue(stub, "r2")
    s, u = enqueue(stub, "s", room=exact), enqueue(stub, "u", room=exact)
    table = seated(stub, p.ticket_id).table_id
    assert {seated(stub, x.ticket_id).table_id for x in (s, u)} == {table}
    assert state(stub, q) == state(stub, r) == M.TICKET_STATE_QUEUED
    # The default window (2 at first) takes a gap of 1.5 at once.
    p2 = enqueue(stub, "p2")
    tables = {seated(stub, x.ticket_id).table_id for x in (p2, q2, r2)}
    assert len(tables) == 1 and table not in tables
    assert state(stub, q) == state(stub, r) == M.TICKET_STATE_QUEUED


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"skill_wide_mu": 1}, "skill_wide_mu"),
        ({"skill_narrow_mu": 4, "skill_wide_mu": 3}, "skill_wide_mu"),
        ({"skill_narrow_mu": 1.5}, "skill_narrow_mu"),
        ({"skill_anyone_s": -1}, "skill_anyone_s"),
    ],
)
def test_a_bad_window_is_refused_by_name(
    cluster: Cluster, settings: dict[str, object], field: str
) -> None:
    stub = cluster.mm()
    with pytest.raises(grpc.RpcError) as info:
        enqueue(stub, "x", room=common_pb2.Room(overrides_json=json.dumps(settings)))
    d = details(info.value)
    assert (d.code, d.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ROOM")
    assert d.fields == [f"room.overrides_json.{field}"] and field in d.message


def test_a_freed_seat_goes_to_the_waiting_ticket_within_reach(cluster: Cluster) -> None:
    stub = cluster.mm()
    for player, mu in [("alice", 20.0), ("carol", 19.0), ("bob", -20.0)]:
        rated(cluster, player, mu)
    timers = M.Timers(start_ms=2000, bot_think_ms=0, bid_ms=60_000, turn_ms=60_000)
    slow = room(skill_anyone_s=600)  # the window stays narrow for the whole test
    first = seated(stub, enqueue(stub, "alice", party=["dave"], room=slow, timers=timers,
                                 bot_fill_after_ms=0).ticket_id)  # fmt: skip
    table_id = first.table_id
    stub.Ready(M.ReadyRequest(table_id=table_id, player_id="alice"), timeout=10)
    # Bob waits first, carol after: dave never readies, and his seat goes to carol, within
    # reach of alice (20) at 19, not to bob at -20.
    bob = enqueue(stub, "bob", room=slow, timers=timers)
    carol = enqueue(stub, "carol", room=slow, timers=timers)
    got = seated(stub, carol.ticket_id)
    snap = stub.GetTable(M.GetTableRequest(table_id=table_id, player_id="alice"), timeout=10)
    dave_seat = [i for i in first.seats if snap.seats[i].player_id != "alice"]
    assert got.table_id == table_id and list(got.seats) == dave_seat
    assert state(stub, bob) == M.TICKET_STATE_QUEUED
    wait_for(lambda: {s.player_id for s in stub.GetTable(
        M.GetTableRequest(table_id=table_id, player_id="carol"), timeout=10
    ).seats} >= {"alice", "carol"})  # fmt: skip


def test_a_game_in_a_room_with_a_window_records_it_and_verifies(cluster: Cluster) -> None:
    """The engine plays a room with skill settings (table settings: not rules), its record
    keeps them with the room, and replay verifies the game as any other."""
    stub = cluster.mm()
    settings = {"skill_narrow_mu": 1, "skill_wide_mu": 5, "skill_anyone_s": 60}
    ticket = seated(stub, enqueue(stub, "solo", room=room(**settings), timers=SHORT,
                                  bot_fill_after_ms=0).ticket_id)  # fmt: skip
    play_game(stub, ticket.table_id, "solo", style="auto")
    game_id = f"{ticket.table_id}.1"
    wait_for(lambda: verify(cluster, game_id).ok, timeout=30)
    record = json.loads(
        cluster.replay()
        .ExportGame(replay_pb2.ExportGameRequest(game_id=game_id), timeout=10)
        .record_json
    )
    assert {k: record["room"][k] for k in settings} == settings


def test_tickets_that_never_get_bots_sit_together_as_their_windows_widen(cluster: Cluster) -> None:
    """Nobody new comes and no bot fill time passes: the pool is seated again as its windows
    widen, not only at the next enqueue (it waited for one past its anyone time)."""
    stub = cluster.mm()
    for player, mu in [("w1", 1.0), ("w2", 2.0)]:
        rated(cluster, player, mu)
    # The window widens from 0 to 10 over 20 s, half a mu a second: w0 (new, mu 0) reaches
    # w1 after 2 s and w2 after 4 s; anyone only after 20 s.
    widening = room(skill_narrow_mu=0, skill_wide_mu=10, skill_anyone_s=20)
    tickets = [enqueue(stub, x, room=widening) for x in ("w0", "w1", "w2")]
    assert {state(stub, x) for x in tickets} == {M.TICKET_STATE_QUEUED}
    started = time.monotonic()
    tables = {seated(stub, x.ticket_id, timeout=15).table_id for x in tickets}
    assert len(tables) == 1, "the three sit at one table"
    assert time.monotonic() - started < 15, "before anyone: by the widened window"


def test_tickets_that_never_get_bots_take_anyone_at_their_anyone_time(cluster: Cluster) -> None:
    stub = cluster.mm()
    for player, mu in [("a1", 1.0), ("a2", 1.5)]:
        rated(cluster, player, mu)
    # A window of 0 until anyone after 1 s: the three differ, so only that seats them.
    exact = room(skill_narrow_mu=0, skill_wide_mu=0, skill_anyone_s=1)
    tickets = [enqueue(stub, x, room=exact) for x in ("a0", "a1", "a2")]
    tables = {seated(stub, x.ticket_id, timeout=15).table_id for x in tickets}
    assert len(tables) == 1
