"""Tickets: parties, private codes, watching, cancelling and expiry; a player's totals from
the replay service; the first bidder rotating through a series (Dou Dizhu 4, and Dou
Dizhu 3 when its room says so)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from cardroom.v1 import common_pb2, engine_pb2, matchmaker_pb2
from sqlalchemy import select

from services.common.db import make_engine
from services.common.grpc_errors import details
from services.common.migrate import upgrade
from services.matchmaker.models import tickets
from services.matchmaker.service import config_of
from services.matchmaker.store import Store

from .conftest import SHORT, Cluster, data, seated, verify, wait_for
from .test_games import Stream, act

M = matchmaker_pb2


def reason(fn: Any, request: Any) -> str:
    try:
        fn(request, timeout=10)
    except grpc.RpcError as exc:
        return details(exc).reason
    return "OK"


def test_a_party_sits_together_and_a_private_code_seats_only_its_holders(
    cluster: Cluster,
) -> None:
    stub = cluster.mm()
    party = stub.Enqueue(M.EnqueueRequest(player_id="alice", party=["bob"], variant="ddz3",
                                          bot_fill_after_ms=-1), timeout=10)  # fmt: skip
    assert party.state == M.TICKET_STATE_QUEUED and list(party.party) == ["bob"]
    # bob is in alice's party: he holds that ticket.
    assert reason(stub.Enqueue, M.EnqueueRequest(player_id="bob", variant="ddz3")) == (
        "ALREADY_QUEUED"
    )
    # A private code: carol waits alone even though the public pool has a party waiting.
    carol = stub.Enqueue(M.EnqueueRequest(player_id="carol", variant="ddz3",
                                          private_code="friends"), timeout=10)  # fmt: skip
    dave = stub.Enqueue(M.EnqueueRequest(player_id="dave", variant="ddz3",
                                         bot_fill_after_ms=-1), timeout=10)  # fmt: skip
    alice = seated(stub, party.ticket_id)
    assert seated(stub, dave.ticket_id).table_id == alice.table_id
    assert sorted(alice.seats) == [0, 1]
    got = stub.GetTicket(M.GetTicketRequest(ticket_id=carol.ticket_id), timeout=10)
    assert got.state == M.TICKET_STATE_QUEUED
    erin = stub.Enqueue(M.EnqueueRequest(player_id="erin", variant="ddz3",
                                         private_code="friends"), timeout=10)  # fmt: skip
    frank = stub.Enqueue(M.EnqueueRequest(player_id="frank", variant="ddz3",
                                          private_code="friends"), timeout=10)  # fmt: skip
    tables = {seated(stub, t.ticket_id).table_id for t in (carol, erin, frank)}
    assert len(tables) == 1 and alice.table_id not in tables
    assert reason(stub.Enqueue, M.EnqueueRequest(player_id="alice", variant="ddz3")) == (
        "ALREADY_SEATED"
    )


def test_watch_cancel_and_expiry(cluster: Cluster) -> None:
    stub = cluster.mm()
    ticket = stub.Enqueue(M.EnqueueRequest(player_id="alice", variant="zsy1",
                                           bot_fill_after_ms=300), timeout=10)  # fmt: skip
    states = [t.state for t in stub.WatchTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id),
                                                timeout=20)]  # fmt: skip
    assert states == [M.TICKET_STATE_QUEUED, M.TICKET_STATE_SEATED]
    bob = stub.Enqueue(M.EnqueueRequest(player_id="bob", variant="zsy1", bot_fill_after_ms=-1),
                       timeout=10)  # fmt: skip
    cancelled = stub.CancelTicket(M.CancelTicketRequest(ticket_id=bob.ticket_id), timeout=10)
    assert cancelled.state == M.TICKET_STATE_CANCELLED
    assert reason(stub.CancelTicket, M.CancelTicketRequest(ticket_id=bob.ticket_id)) == (
        "TICKET_CLOSED"
    )
    assert reason(stub.GetTicket, M.GetTicketRequest(ticket_id="nope")) == "TICKET_NOT_FOUND"
    # A ticket nobody polls expires (a short time-to-live for this test).
    cluster.stop_mm()
    cluster.runner = dataclasses.replace(cluster.runner, ticket_ttl_ms=300)
    cluster.start_mm()
    stub = cluster.mm()
    carol = stub.Enqueue(M.EnqueueRequest(player_id="carol", variant="zsy1",
                                          bot_fill_after_ms=-1), timeout=10)  # fmt: skip
    time.sleep(0.6)  # nobody polls it meanwhile (a GetTicket would keep it alive)
    got = stub.GetTicket(M.GetTicketRequest(ticket_id=carol.ticket_id), timeout=10)
    assert got.state == M.TICKET_STATE_EXPIRED
    # Expired: carol may queue again.
    assert reason(stub.Enqueue, M.EnqueueRequest(player_id="carol", variant="zsy1",
                                                 bot_fill_after_ms=-1)) == "OK"  # fmt: skip


def test_a_watched_ticket_is_woken_when_seated_or_cancelled_not_polled(cluster: Cluster) -> None:
    """WatchTicket says "seated" or "cancelled" when it happens (the seating and the cancel
    wake the pool's watchers), not at its next poll: here the poll is 30 s, the watch's
    deadline 8 s."""
    cluster.stop_mm()
    cluster.runner = dataclasses.replace(cluster.runner, poll_interval_s=30.0)
    cluster.start_mm()
    stub = cluster.mm()

    def enqueue(player: str) -> M.Ticket:
        return stub.Enqueue(M.EnqueueRequest(player_id=player, variant="ddz3",
                                             bot_fill_after_ms=-1), timeout=10)  # fmt: skip

    def watch(ticket: M.Ticket) -> list[Any]:
        states: list[Any] = []
        stream = stub.WatchTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id), timeout=8)
        with contextlib.suppress(grpc.RpcError):  # a deadline: the states so far
            states.extend(t.state for t in stream)
        return states

    with ThreadPoolExecutor(1) as pool:
        alice = enqueue("alice")
        watching = pool.submit(watch, alice)
        time.sleep(0.5)  # the watch is waiting
        enqueue("bob")
        enqueue("carol")  # a full table: alice is seated
        assert watching.result() == [M.TICKET_STATE_QUEUED, M.TICKET_STATE_SEATED]
        dave = enqueue("dave")
        watching = pool.submit(watch, dave)
        time.sleep(0.5)
        stub.CancelTicket(M.CancelTicketRequest(ticket_id=dave.ticket_id), timeout=10)
        assert watching.result() == [M.TICKET_STATE_QUEUED, M.TICKET_STATE_CANCELLED]


def _series(
    cluster: Cluster, player: str, variant: str, games: int, overrides: str = ""
) -> tuple[M.Ticket, Stream, list[str], list[int]]:
    """One human (on auto-play) and bots play ``games`` games at one table: the ticket, the
    seat's stream, the game ids and each game's first bidder as replay recorded it.  The
    player is Ready at once for each game; after the last one it stays seated (a start timeout
    of a minute, not SHORT's 2 s, which a loaded machine's verification of the games outlasted:
    the player was removed before the test read its seat)."""
    stub = cluster.mm()
    timers = M.Timers()
    timers.CopyFrom(SHORT)
    timers.start_ms = 60_000
    ticket = seated(stub, stub.Enqueue(M.EnqueueRequest(
        player_id=player, variant=variant, bot_fill_after_ms=0, timers=timers,
        room=common_pb2.Room(stake=1, overrides_json=overrides),
    ), timeout=10).ticket_id)  # fmt: skip
    table_id = ticket.table_id
    stream = Stream(stub, table_id, player)
    for game in range(1, games + 1):
        stub.Ready(M.ReadyRequest(table_id=table_id, player_id=player), timeout=10)
        wait_for(lambda g=game: any(e.type == "game_started" and data(e)["game_no"] == g
                                    for e in stream.events))  # fmt: skip
        with contextlib.suppress(grpc.RpcError):  # the game may already be over
            act(stub, table_id, player, engine_pb2.Action(autoplay=True))
        wait_for(lambda g=game: len([e for e in stream.events if e.type == "series"]) >= g,
                 timeout=30)  # fmt: skip
    stream.close()
    game_ids = [data(e)["game_id"] for e in stream.events if e.type == "game_over"]
    headers = []
    for gid in game_ids:
        wait_for(lambda g=gid: (v := verify(cluster, g)).ok and v.settlement_json)
        record = json.loads(cluster.replay().ExportGame(
            _export(gid), timeout=10).record_json)  # fmt: skip
        headers.append(record["first_bidder"])
    return ticket, stream, game_ids, headers


def test_doudizhu4_first_bidder_rotates_and_the_player_has_totals(cluster: Cluster) -> None:
    ticket, stream, game_ids, headers = _series(cluster, "alice", "doudizhu4", 3)
    assert [(b - headers[0]) % 4 for b in headers] == [0, 1, 2]
    stub = cluster.mm()
    player = stub.GetPlayer(M.GetPlayerRequest(player_id="alice"), timeout=10)
    assert player.last_game_id == game_ids[-1] and player.table_id == ticket.table_id
    # Titles are Zheng Shangyou's alone (RULES.md §5.4): Dou Dizhu games earn none.
    assert not player.HasField("title")
    total = sum(t.total for t in player.totals)
    seat = ticket.seats[0]
    shown = sum(data(e)["scores"][seat] for e in stream.events if e.type == "game_over")
    assert total == shown


def test_doudizhu3_first_bidder_rotates_when_the_room_says_so(cluster: Cluster) -> None:
    """RULES.md §4.3: rotation is a room option of ddz3 (off by default: each game draws its
    first bidder from its seed).  The runner once read the base variant and ignored it."""
    _, _, _, headers = _series(
        cluster, "bob", "doudizhu3", 4, overrides='{"rotate_first_bidder": true}'
    )
    assert [(b - headers[0]) % 3 for b in headers] == [0, 1, 2, 0]


def _export(game_id: str) -> Any:
    from cardroom.v1 import replay_pb2

    return replay_pb2.ExportGameRequest(game_id=game_id)


def test_an_unknown_bot_level_is_refused_not_played_as_easy(cluster: Cluster) -> None:
    stub = cluster.mm()
    bad = M.EnqueueRequest(player_id="zoe", variant="ddz3", bot_level="grandmaster")
    assert reason(stub.Enqueue, bad) == "INVALID_FIELD"
    ok = stub.Enqueue(M.EnqueueRequest(player_id="zoe", variant="ddz3", bot_level="hard",
                                       bot_fill_after_ms=-1), timeout=10)  # fmt: skip
    assert ok.state == M.TICKET_STATE_QUEUED


def test_blank_overrides_are_an_empty_room_and_bad_json_is_named(cluster: Cluster) -> None:
    """The probe's INTERNAL: a room whose overrides_json was only whitespace."""
    stub = cluster.mm()
    for i, blank in enumerate([" ", "\n\t ", ""]):
        ok = stub.Enqueue(M.EnqueueRequest(player_id=f"blank{i}", variant="ddz3",
                          bot_fill_after_ms=-1, room=common_pb2.Room(overrides_json=blank)),
                          timeout=10)  # fmt: skip
        # All three ask for the same room, so the third completes a table.
        assert ok.state in (M.TICKET_STATE_QUEUED, M.TICKET_STATE_SEATED)
    for bad in ["{", "[]", "nul", "{" * 5000]:
        request = M.EnqueueRequest(player_id="badjson", variant="ddz3",
                                   room=common_pb2.Room(overrides_json=bad))  # fmt: skip
        assert reason(stub.Enqueue, request) == "INVALID_OVERRIDE"


def test_an_enqueue_request_id_with_another_body_is_reused(cluster: Cluster) -> None:
    stub = cluster.mm()
    first = M.EnqueueRequest(player_id="rid", variant="ddz3", request_id="r-1",
                             bot_fill_after_ms=-1)  # fmt: skip
    ticket = stub.Enqueue(first, timeout=10)
    assert stub.Enqueue(first, timeout=10).ticket_id == ticket.ticket_id  # a retry
    other = M.EnqueueRequest()
    other.CopyFrom(first)
    other.variant = "zsy1"
    assert reason(stub.Enqueue, other) == "REQUEST_ID_REUSED"
    other.CopyFrom(first)
    other.player_id = "someone-else"
    assert reason(stub.Enqueue, other) == "REQUEST_ID_REUSED"


def test_get_player_answers_from_the_game_over_write_even_with_replay_down(
    cluster: Cluster,
) -> None:
    """A grpc-js client asking GetPlayer the moment game_over arrived got last_game_id "" and
    the old totals (they came from replay, behind the outbox).  With replay stopped the
    answer can only come from the matchmaker's own write."""
    cluster.stop_replay()
    stub = cluster.mm()
    timers = M.Timers()
    timers.CopyFrom(SHORT)
    timers.start_ms = 60_000
    ticket = seated(stub, stub.Enqueue(M.EnqueueRequest(
        player_id="quick", variant="ddz3", bot_fill_after_ms=0, timers=timers), timeout=10,
    ).ticket_id)  # fmt: skip
    stream = Stream(stub, ticket.table_id, "quick")
    seat = ticket.seats[0]
    totals: list[int] = []
    for game in (1, 2):
        stub.Ready(M.ReadyRequest(table_id=ticket.table_id, player_id="quick"), timeout=10)
        wait_for(lambda g=game: len([e for e in stream.events if e.type == "game_started"]) >= g)
        with contextlib.suppress(grpc.RpcError):
            act(stub, ticket.table_id, "quick", engine_pb2.Action(autoplay=True))
        over = wait_for(lambda g=game: [e for e in stream.events if e.type == "game_over"][g - 1:],
                        timeout=60)[0]  # fmt: skip
        player = stub.GetPlayer(M.GetPlayerRequest(player_id="quick"), timeout=10)
        totals.append(data(over)["scores"][seat])
        assert player.last_game_id == data(over)["game_id"]
        assert player.last_score == totals[-1]
        assert [(t.family, t.games, t.total) for t in player.totals] == [
            ("doudizhu", game, sum(totals))
        ]
    stream.close()


def test_a_seating_pass_that_loses_a_race_looks_again(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two seating passes over one pool (two instances, no pool lock): the one that loses the
    race to seat the first three tickets looks again and seats the three that came since,
    in a pool that never fills with bots (a CI run left 3 of 300 players queued for good)."""
    if not db_url.startswith("postgresql"):
        pytest.skip("two writers at once: PostgreSQL (SQLite runs one writer at a time)")
    upgrade(db_url)
    first = Store(make_engine(db_url), lock_pools=False)
    rival = Store(make_engine(db_url), lock_pools=False)
    config, _ = config_of(M.EnqueueRequest(variant="doudizhu3", bot_fill_after_ms=-1))

    def join(store: Store, names: list[str]) -> str:
        pool = ""
        for name in names:
            row, _ = store.enqueue(player_id=name, players=[name], config=config,
                                   request_id="", fill_after_ms=-1, ttl_ms=60_000)  # fmt: skip
            pool = row["pool"]
        return pool

    try:
        pool = join(first, ["a0", "a1", "a2"])
        form, rivals = first._form, []

        def form_after_the_rival(*args: Any) -> Any:
            if not rivals:  # the first pass has read a0..a2; the rival seats them first
                rivals.extend(rival.seat_pool(pool))
                join(rival, ["b0", "b1", "b2"])  # and three more people arrive
            return form(*args)

        monkeypatch.setattr(first, "_form", form_after_the_rival)
        formed = first.seat_pool(pool)
        assert len(rivals) == 1 and len(formed) == 1
        with first.engine.connect() as conn:
            rows = conn.execute(select(tickets.c.player_id, tickets.c.state,
                                       tickets.c.table_id)).all()  # fmt: skip
        tables_of = {r.player_id: r.table_id for r in rows if r.state == "seated"}
        assert {p for p, t in tables_of.items() if t == rivals[0]} == {"a0", "a1", "a2"}
        assert {p for p, t in tables_of.items() if t == formed[0]} == {"b0", "b1", "b2"}
    finally:
        first.close()
        rival.close()
