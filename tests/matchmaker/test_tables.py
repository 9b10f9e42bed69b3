"""Table life: reconnects, disconnect → grace → escape, the start timeout, leaving between
games, a series, two humans racing, idempotent Act, a restart of the matchmaker mid-game,
and a replay outage that the outbox rides out."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import grpc
import pytest
from cardroom.v1 import common_pb2, engine_pb2, matchmaker_pb2, replay_pb2
from sqlalchemy import func, select

from services.common.db import make_engine
from services.common.grpc_errors import details
from services.common.server import BackgroundServer
from services.engine import server as engine_server
from services.matchmaker.backends import Conflict
from services.matchmaker.models import holds, outbox, table_events
from services.matchmaker.priority import Priority, current
from services.matchmaker.runner import Runner
from services.matchmaker.store import Store, Write

from .conftest import TEST_KEYS, Cluster, data, seated, settings, verify, view_of, wait_for
from .test_games import Stream, act, enqueue, play_game

M = matchmaker_pb2


def snap(stub: Any, table_id: str, player: str) -> M.TableSnapshot:
    result: M.TableSnapshot = stub.GetTable(
        M.GetTableRequest(table_id=table_id, player_id=player), timeout=10
    )
    return result


def reason(fn: Any, *args: Any, **kw: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        fn(*args, timeout=10, **kw)
    d = details(info.value)
    return d.code, d.reason


def started(stub: Any, table_id: str, player: str) -> M.TableSnapshot:
    stub.Ready(M.ReadyRequest(table_id=table_id, player_id=player), timeout=10)
    result: M.TableSnapshot = wait_for(
        lambda: (s := snap(stub, table_id, player)).state == M.TABLE_STATE_PLAYING and s
    )
    return result


def game_over_ids(stream: Stream) -> list[str]:
    return [data(e)["game_id"] for e in stream.events if e.type == "game_over"]


def test_a_reconnect_resumes_with_no_gap_and_no_duplicate(cluster: Cluster) -> None:
    stub = cluster.mm()
    ticket = alone_with_quick_bots(stub, "alice")
    table_id = ticket.table_id
    whole = Stream(stub, table_id, "alice")  # the reference: one stream all game
    first = Stream(stub, table_id, "alice")
    started(stub, table_id, "alice")
    wait_for(lambda: any(e.type == "game_started" for e in first.events))
    first.close()
    last = first.events[-1].seq
    # Play on without the second stream: the human's moves and the bots' answers.
    play_game_from_here(stub, table_id, "alice")
    second = Stream(stub, table_id, "alice", after=last)
    wait_for(lambda: any(e.type == "series" for e in second.events))
    wait_for(lambda: any(e.type == "series" for e in whole.events))
    second.close()
    whole.close()
    resumed = [e.seq for e in first.events] + [e.seq for e in second.events]
    reference = [e.seq for e in whole.events if e.type not in ("disconnected", "reconnected")]
    resumed_no_conn = [
        e.seq for e in [*first.events, *second.events]
        if e.type not in ("disconnected", "reconnected")
    ]  # fmt: skip
    assert len(resumed) == len(set(resumed))
    assert resumed_no_conn == [s for s in reference if s in set(resumed_no_conn)]
    assert set(reference) <= set(resumed)


def alone_with_quick_bots(stub: Any, player: str) -> M.Ticket:
    """``player`` seated at a doudizhu3 table with two bots that do not think, and every
    person's timer a minute long."""
    timers = M.Timers(bid_ms=60_000, turn_ms=60_000, start_ms=60_000, grace_ms=60_000,
                      bot_think_ms=0)  # fmt: skip
    return seated(stub, enqueue(stub, player, "doudizhu3", timers=timers).ticket_id)


def test_a_reconnection_opens_at_a_moves_priority(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stream that resumes after a seq races the seat's disconnect grace: in a rush of
    # people's calls (bench scale's opening) it waited seconds behind their enqueues and
    # openings in the calls' database threads, and the seat escaped to a bot meanwhile.
    stub = cluster.mm()
    ticket = alone_with_quick_bots(stub, "alice")
    store = cluster.the_runner().store
    opened: list[Priority] = []
    original = store.open_stream

    def open_stream(*args: Any) -> Any:
        opened.append(current())  # in the database thread (or on the loop) that runs it
        return original(*args)

    monkeypatch.setattr(store, "open_stream", open_stream)
    first = Stream(stub, ticket.table_id, "alice")
    started(stub, ticket.table_id, "alice")
    wait_for(lambda: any(e.type == "game_started" for e in first.events))
    first.close()
    second = Stream(stub, ticket.table_id, "alice", after=first.events[-1].seq)
    wait_for(lambda: len(opened) == 2 and snap(stub, ticket.table_id, "alice").seats[0].connected)
    second.close()
    assert opened == [Priority.CALL, Priority.MOVE]


def test_a_run_of_moves_due_at_once_is_written_together(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bots with no think time and a seat on auto-play: each move is due as soon as the last
    # is made.  They are written in runs (one conditional write, one wake of the streams,
    # one outbox row a run), and the game is the same game: every event reaches the stream
    # in order, and replay verifies the record.
    stub = cluster.mm()
    ticket = alone_with_quick_bots(stub, "alice")
    runner = cluster.the_runner()
    writes = []
    original = runner.commit

    async def commit(table: Any, old: int, w: Write, advancing: bool = False) -> Any:
        if advancing and table.game_no == 1:
            writes.append(sum(n.type == "game" for n in w.notes))
        return await original(table, old, w, advancing)

    monkeypatch.setattr(runner, "commit", commit)
    stream = Stream(stub, ticket.table_id, "alice")
    started(stub, ticket.table_id, "alice")
    act(stub, ticket.table_id, "alice", engine_pb2.Action(autoplay=True))
    wait_for(lambda: game_over_ids(stream), timeout=60)
    stream.close()
    (game_id,) = game_over_ids(stream)
    seqs = [e.seq for e in stream.events]
    assert seqs == sorted(set(seqs))
    assert wait_for(lambda: verify(cluster, game_id).ok, timeout=30)
    exported = cluster.replay().ExportGame(replay_pb2.ExportGameRequest(game_id=game_id))
    record = json.loads(exported.record_json)
    moves = len(record["actions"])
    # Runs of up to RunnerSettings.run_moves: far fewer writes than moves.
    assert max(writes) > 1 and len(writes) * 2 < moves, (writes, moves)


def play_game_from_here(stub: Any, table_id: str, player: str) -> None:
    game_no = snap(stub, table_id, player).game_no
    while True:
        s = snap(stub, table_id, player)
        if s.state != M.TABLE_STATE_PLAYING or s.game_no != game_no:
            return
        if not view_of(s.view).to_move:
            time.sleep(0.01)
            continue
        try:
            hint = stub.GetHint(M.HintRequest(table_id=table_id, player_id=player), timeout=10)
            if hint.HasField("hint"):
                act(stub, table_id, player, hint.hint)
        except grpc.RpcError as exc:  # the game ended or moved on meanwhile
            assert exc.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)


def test_disconnect_past_the_grace_is_an_escape_with_its_penalty(cluster: Cluster) -> None:
    stub = cluster.mm()
    timers = M.Timers(bid_ms=60_000, turn_ms=60_000, start_ms=60_000, grace_ms=300,
                      bot_think_ms=0)  # fmt: skip
    ticket = seated(stub, enqueue(stub, "alice", "doudizhu3", timers=timers).ticket_id)
    table_id, seat = ticket.table_id, ticket.seats[0]
    watcher = Stream(stub, table_id, "alice")
    started(stub, table_id, "alice")
    wait_for(lambda: any(e.type == "game_started" for e in watcher.events))
    watcher.close()  # the connection drops: grace 0.3 s, then the escape
    table = wait_for(
        lambda: (
            (t := stub.ListTables(M.ListTablesRequest(), timeout=10).tables)
            and t[0].game_no == 1
            and all(s.player_id != "alice" for s in t[0].seats)
            and t[0]
        )
    )
    assert table.state == M.TABLE_STATE_CLOSED  # no human left
    game_id = f"{table_id}.1"
    answer = wait_for(lambda: (v := verify(cluster, game_id)).ok and v.settlement_json and v)
    settlement = json.loads(answer.settlement_json)
    assert settlement["status"] == "escaped" and settlement["escaper"] == seat
    assert settlement["scores"][seat] < 0
    audit = cluster.replay().AuditEscape(replay_pb2.AuditEscapeRequest(game_id=game_id))
    assert audit.consistent
    # The hold ended: alice may queue again.
    again = M.EnqueueRequest(player_id="alice", variant="ddz3", bot_fill_after_ms=-1)
    assert stub.Enqueue(again).state == M.TICKET_STATE_QUEUED


def test_a_player_not_ready_in_time_is_removed_and_the_table_closes(cluster: Cluster) -> None:
    stub = cluster.mm()
    timers = M.Timers(start_ms=200, bot_think_ms=0)
    ticket = seated(stub, enqueue(stub, "alice", "zhengshangyou", timers=timers).ticket_id)
    table_id = ticket.table_id
    wait_for(
        lambda: (
            stub.ListTables(M.ListTablesRequest(), timeout=10).tables[0].state
            == M.TABLE_STATE_CLOSED
        )
    )
    assert reason(stub.GetTable, M.GetTableRequest(table_id=table_id, player_id="alice")) == (
        grpc.StatusCode.FAILED_PRECONDITION, "NOT_SEATED",
    )  # fmt: skip


def test_a_seat_not_ready_in_time_goes_to_the_next_waiting_ticket(cluster: Cluster) -> None:
    stub = cluster.mm()
    timers = M.Timers(start_ms=1000, bot_think_ms=0, bid_ms=60_000, turn_ms=60_000)
    alice = seated(stub, enqueue(stub, "alice", "ddz3", timers=timers).ticket_id)
    table_id, seat = alice.table_id, alice.seats[0]
    # Bob waits in the same pool (never for bots) and carol in another room: when alice's
    # start timeout runs out, bob takes her seat and carol stays queued.
    bob = enqueue(stub, "bob", "ddz3", timers=timers, bot_fill_after_ms=-1)
    carol = enqueue(stub, "carol", "ddz3", timers=timers, bot_fill_after_ms=-1,
                    room=common_pb2.Room(stake=2))  # fmt: skip
    got = seated(stub, bob.ticket_id)
    assert got.table_id == table_id and list(got.seats) == [seat]
    stream = Stream(stub, table_id, "bob")
    wait_for(lambda: any(e.type == "seated" and data(e)["player_id"] == "bob"
                         for e in stream.events))  # fmt: skip
    left = [data(e) for e in stream.events if e.type == "player_left"]
    assert left == [{"seat": seat, "player_id": "alice", "why": "not_ready"}]
    assert not any(e.type == "bot_joined" and data(e)["seat"] == seat and e.seq > 3
                   for e in stream.events)  # fmt: skip
    assert reason(stub.GetTable, M.GetTableRequest(table_id=table_id, player_id="alice")) == (
        grpc.StatusCode.FAILED_PRECONDITION, "NOT_SEATED",
    )  # fmt: skip
    # Bob has a start timeout of his own: he readies and the game starts.
    started(stub, table_id, "bob")
    stream.close()
    again = stub.GetTicket(M.GetTicketRequest(ticket_id=carol.ticket_id), timeout=10)
    assert again.state == M.TICKET_STATE_QUEUED
    # Alice's hold ended with her seat: she may queue again.
    assert enqueue(stub, "alice", "ddz3", bot_fill_after_ms=-1).state == M.TICKET_STATE_QUEUED


def test_a_waiting_party_takes_two_seats_freed_by_the_start_timeout(cluster: Cluster) -> None:
    stub = cluster.mm()
    timers = M.Timers(start_ms=1000, bot_think_ms=0, bid_ms=60_000, turn_ms=60_000)
    first = seated(stub, enqueue(stub, "alice", "ddz3", party=["bob"], timers=timers).ticket_id)
    table_id = first.table_id
    party = enqueue(stub, "carol", "ddz3", party=["dave"], timers=timers, bot_fill_after_ms=-1)
    got = seated(stub, party.ticket_id)
    assert got.table_id == table_id and sorted(got.seats) == sorted(first.seats)
    names = {s.player_id for s in snap(stub, table_id, "carol").seats}
    assert {"carol", "dave"} <= names and not {"alice", "bob"} & names


def test_two_humans_a_series_and_a_plain_leave_between_games(cluster: Cluster) -> None:
    stub = cluster.mm()
    a = enqueue(stub, "alice", "ddz3", bot_fill_after_ms=-1)
    b = enqueue(stub, "bob", "ddz3", bot_fill_after_ms=-1)
    assert a.state == M.TICKET_STATE_QUEUED
    c = enqueue(stub, "carol", "ddz3", bot_fill_after_ms=-1)  # the third: a table forms
    tickets = [seated(stub, t.ticket_id) for t in (a, b, c)]
    table_id = tickets[0].table_id
    assert {t.table_id for t in tickets} == {table_id}
    assert sorted(s for t in tickets for s in t.seats) == [0, 1, 2]
    players = ["alice", "bob", "carol"]
    stream = Stream(stub, table_id, "alice")
    # Game 1: everyone on auto-play; then a series total.
    for p in players:
        stub.Ready(M.ReadyRequest(table_id=table_id, player_id=p), timeout=10)
    wait_for(lambda: snap(stub, table_id, "alice").state == M.TABLE_STATE_PLAYING)
    # Two humans racing to act: one seq, one winner.
    pass_ = engine_pb2.Action()
    setattr(pass_, "pass", True)
    for attempt in range(5):
        s = snap(stub, table_id, "alice")
        turn = view_of(s.view).turn
        assert turn is not None
        mover = players[turn]
        other = players[(turn + 1) % 3]
        assert reason(stub.Act, M.ActRequest(table_id=table_id, player_id=other, action=pass_)) == (
            grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN",
        )  # fmt: skip
        with ThreadPoolExecutor(2) as pool:
            race = partial(_try_act, stub, table_id, mover, pass_, s.seq)
            results = list(pool.map(race, [f"r1-{attempt}", f"r2-{attempt}"]))
        # Both stale: a table event not of this race (alice's stream connecting, seen once on
        # a loaded machine) landed after the snapshot; the race is run again from a new one.
        if results != ["STALE_SEQ", "STALE_SEQ"]:
            break
    assert sorted(r for r in results) in (
        ["OK", "STALE_SEQ"],
        ["OK", "MUST_BID"],
        ["MUST_BID", "MUST_BID"],
    )
    # A retried request id gets the first answer; reused for another action it is refused.
    for p in players:
        act_or_ignore(stub, table_id, p, engine_pb2.Action(autoplay=True), f"auto-{p}")
    again = act_or_ignore(stub, table_id, "alice", engine_pb2.Action(autoplay=True), "auto-alice")
    assert again in ("OK", "NOT_READY")
    wait_for(lambda: len(game_over_ids(stream)) == 1)
    # The series standing is the event after game_over: the stream's reader may not have
    # taken it yet when game_over shows.
    wait_for(lambda: any(e.type == "series" for e in stream.events))
    over = [e for e in stream.events if e.type == "series"][-1]
    assert len(data(over)["totals"]) == 3
    # Between games: bob leaves (a plain leave); a bot takes his seat.
    left = stub.LeaveTable(M.LeaveTableRequest(table_id=table_id, player_id="bob"), timeout=10)
    assert all(seat.player_id != "bob" for seat in left.seats)
    assert any(seat.bot for seat in left.seats)
    # Game 2 starts when the humans left are ready.
    for p in ("alice", "carol"):
        stub.Ready(M.ReadyRequest(table_id=table_id, player_id=p), timeout=10)
    wait_for(lambda: snap(stub, table_id, "alice").game_no == 2)
    for p in ("alice", "carol"):
        act_or_ignore(stub, table_id, p, engine_pb2.Action(autoplay=True), f"auto2-{p}")
    wait_for(lambda: len(game_over_ids(stream)) == 2)
    stream.close()
    for game_id in game_over_ids(stream):
        wait_for(lambda g=game_id: (v := verify(cluster, g)).ok and v.settlement_json)


def _try_act(stub: Any, table_id: str, player: str, action: Any, seq: int, rid: str) -> str:
    try:
        stub.Act(M.ActRequest(table_id=table_id, player_id=player, action=action,
                              expected_seq=seq, request_id=rid), timeout=10)  # fmt: skip
    except grpc.RpcError as exc:
        return details(exc).reason
    return "OK"


def act_or_ignore(stub: Any, table_id: str, player: str, action: Any, rid: str) -> str:
    try:
        stub.Act(M.ActRequest(table_id=table_id, player_id=player, action=action,
                              request_id=rid), timeout=10)  # fmt: skip
    except grpc.RpcError as exc:
        return details(exc).reason
    return "OK"


def test_act_is_idempotent_by_request_id(cluster: Cluster) -> None:
    stub = cluster.mm()
    slow = M.Timers(bid_ms=60_000, turn_ms=60_000, bot_think_ms=0)
    ticket = seated(stub, enqueue(stub, "alice", "zhengshangyou", timers=slow).ticket_id)
    table_id = ticket.table_id
    started(stub, table_id, "alice")
    request = M.ActRequest(table_id=table_id, player_id="alice",
                           action=engine_pb2.Action(autoplay=True), request_id="once")  # fmt: skip
    with ThreadPoolExecutor(4) as pool:  # the same request, four times at once
        answers = list(pool.map(lambda _: stub.Act(request, timeout=10), range(4)))
    first, second = answers[0], stub.Act(request, timeout=10)
    assert first == second and all(a == first for a in answers)
    stream = Stream(stub, table_id, "alice")
    wait_for(lambda: any(e.type == "game_started" for e in stream.events))
    time.sleep(0.3)
    stream.close()
    switched = [e for e in stream.events if e.type == "game" and e.game_event.type == "autoplay"]
    assert len(switched) == 1  # applied once
    request.action.autoplay = False
    assert reason(stub.Act, request) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")
    stale = M.ActRequest(table_id=table_id, player_id="alice",
                         action=engine_pb2.Action(autoplay=False), expected_seq=1)  # fmt: skip
    assert reason(stub.Act, stale) == (grpc.StatusCode.ABORTED, "STALE_SEQ")


def test_a_restart_mid_game_loses_no_table_deadline_or_event(cluster: Cluster) -> None:
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "alice", "doudizhu3").ticket_id)
    table_id = ticket.table_id
    s = started(stub, table_id, "alice")
    before = s.seq
    cluster.stop_mm()  # mid-game: the human's timer keeps running in the database
    time.sleep(0.5)
    cluster.start_mm()
    stub = cluster.mm()
    after = snap(stub, table_id, "alice")
    assert after.game_id == s.game_id and after.seq >= before
    # Nobody acts: timeouts (applied by the new instance) and bots finish the game.
    stream = Stream(stub, table_id, "alice")
    wait_for(lambda: game_over_ids(stream), timeout=60)
    stream.close()
    seqs = [e.seq for e in stream.events]
    assert seqs == sorted(set(seqs))
    wait_for(lambda: (v := verify(cluster, s.game_id)).ok and v.settlement_json)


def test_replay_down_games_go_on_and_the_outbox_drains(cluster: Cluster) -> None:
    stub = cluster.mm()
    cluster.stop_replay()
    ticket = seated(stub, enqueue(stub, "alice", "zhengshangyou").ticket_id)
    table_id = ticket.table_id
    stream = Stream(stub, table_id, "alice")
    snap_ = play_game(stub, table_id, "alice", style="auto")
    assert snap_.game_no == 1
    engine = make_engine(cluster.db_url)
    with engine.connect() as conn:
        waiting = conn.execute(select(func.count()).select_from(outbox)).scalar_one()
    assert waiting > 0
    status = stub.GetStatus(M.GetStatusRequest(), timeout=10)
    assert not status.replay_ok and status.outbox_pending == waiting
    cluster.start_replay()  # on the same port
    game_id = f"{table_id}.1"
    wait_for(lambda: (v := verify(cluster, game_id)).ok and v.settlement_json, timeout=30)

    def pending() -> int:
        # A connection of its own each time: one kept open reads, in SQLite's WAL mode, the
        # snapshot its first read began, and would never see the outbox drain.
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(outbox)).scalar_one())

    wait_for(lambda: pending() == 0)
    engine.dispose()
    stream.close()


def test_three_hundred_tickets_at_once_each_player_seated_once(cluster: Cluster) -> None:
    stub = cluster.mm()
    players = [f"p{i:03d}" for i in range(300)]
    slow = M.Timers(start_ms=60_000, bot_think_ms=0)

    def go(p: str) -> M.Ticket:
        ticket: M.Ticket = stub.Enqueue(
            M.EnqueueRequest(player_id=p, variant="ddz3", bot_fill_after_ms=-1, timers=slow),
            timeout=60,
        )
        return ticket

    barrier = threading.Barrier(1)
    barrier.wait()
    with ThreadPoolExecutor(32) as pool:
        tickets = list(pool.map(go, players))
    # Concurrent second tickets of the same players are refused.
    code, why = reason(stub.Enqueue, M.EnqueueRequest(player_id="p000", variant="ddz3"))
    assert code == grpc.StatusCode.ALREADY_EXISTS and why in ("ALREADY_SEATED", "ALREADY_QUEUED")
    final = [seated(stub, t.ticket_id) for t in tickets]
    seats = {(t.table_id, t.seats[0]) for t in final}
    assert len(seats) == 300 and len({t.table_id for t in final}) == 100
    engine = make_engine(cluster.db_url)
    with engine.connect() as conn:
        held = conn.execute(select(func.count()).select_from(holds)).scalar_one()
        logged = conn.execute(select(func.count()).select_from(table_events)).scalar_one()
    engine.dispose()
    assert held == 300 and logged == 300  # one "seated" event per seat, no bot


class EngineOutage:
    """A cluster on an engine of the test's own, which the test stops and starts again on
    its port (the restarted engine opens the old tokens: the same keys)."""

    def __init__(self, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
        from services.common.migrate import upgrade
        from services.engine import tokens

        monkeypatch.setenv(tokens.ENV_VAR, TEST_KEYS)
        upgrade(db_url)
        self.engine = BackgroundServer(engine_server.SPEC, settings("engine")).start()
        self.port = self.engine.port
        self.cluster = Cluster(db_url, self.engine.target)
        self.cluster.start_replay()
        self.cluster.start_mm()

    def stop_engine(self) -> None:
        self.engine.stop()

    def start_engine(self) -> None:
        self.engine = BackgroundServer(engine_server.SPEC, settings("engine", self.port)).start()

    def close(self) -> None:
        self.cluster.stop()
        self.engine.stop()


def test_an_engine_outage_delays_the_table_and_loses_nothing(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    outage = EngineOutage(db_url, monkeypatch)
    try:
        cluster = outage.cluster
        stub = cluster.mm()
        ticket = seated(stub, enqueue(stub, "alice", "doudizhu3").ticket_id)
        table_id = ticket.table_id
        s = started(stub, table_id, "alice")
        outage.stop_engine()  # deadlines fall due meanwhile: they wait for the engine
        time.sleep(0.8)
        pass_ = engine_pb2.Action()
        setattr(pass_, "pass", True)
        code, why = reason(stub.Act, M.ActRequest(table_id=table_id, player_id="alice",
                                                   action=pass_))  # fmt: skip
        assert (code, why) == (grpc.StatusCode.UNAVAILABLE, "ENGINE_UNAVAILABLE")
        during = snap_or_none(stub, table_id)
        outage.start_engine()
        stream = Stream(stub, table_id, "alice")
        wait_for(lambda: game_over_ids(stream), timeout=60)
        stream.close()
        assert during is None or during.game_id == s.game_id
        wait_for(lambda: (v := verify(cluster, s.game_id)).ok and v.settlement_json)
    finally:
        outage.close()


def test_a_ready_during_an_engine_outage_lands_and_the_deal_follows_it(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Ready that makes everyone ready deals in its own write (the next test); with the
    engine down it lands all the same (ready, no game counted), and the deal follows once
    the engine is back, as game 1."""
    outage = EngineOutage(db_url, monkeypatch)
    try:
        stub = outage.cluster.mm()
        slow = M.Timers(bid_ms=60_000, turn_ms=60_000, bot_think_ms=60_000)
        ticket = seated(stub, enqueue(stub, "alice", "doudizhu3", timers=slow).ticket_id)
        table_id = ticket.table_id
        outage.stop_engine()
        got = stub.Ready(M.ReadyRequest(table_id=table_id, player_id="alice"), timeout=10)
        assert got.state == M.TABLE_STATE_WAITING and got.game_no == 0
        outage.start_engine()
        s = wait_for(
            lambda: (x := snap(stub, table_id, "alice")).state == M.TABLE_STATE_PLAYING and x,
            timeout=30,
        )
        assert (s.game_no, s.game_id) == (1, f"{table_id}.1")
    finally:
        outage.close()


def test_the_ready_that_makes_everyone_ready_deals_in_its_write(cluster: Cluster) -> None:
    stub = cluster.mm()
    slow = M.Timers(bid_ms=60_000, turn_ms=60_000, bot_think_ms=60_000)
    table_id = seated(stub, enqueue(stub, "alice", "doudizhu3", timers=slow).ticket_id).table_id
    seen = _spy_writes(cluster.the_runner())
    got = stub.Ready(M.ReadyRequest(table_id=table_id, player_id="alice"), timeout=10)
    written = seen[0]
    assert not isinstance(written, Conflict)
    assert (written.state, written.game_no, written.game_id) == ("playing", 1, f"{table_id}.1")
    assert got.state == M.TABLE_STATE_PLAYING and got.game_no == 1


def snap_or_none(stub: Any, table_id: str) -> M.TableSnapshot | None:
    try:
        return snap(stub, table_id, "alice")
    except grpc.RpcError:
        return None  # the snapshot's view needs the engine too


def _runner_keeping(cluster: Cluster, table_id: str) -> Runner:
    """The in-process matchmaker's runner once its advance loop keeps ``table_id``."""
    runner = cluster.the_runner()
    wait_for(lambda: runner.kept.get(table_id))
    return runner


def test_an_act_on_a_kept_copy_another_instance_moved_lands_once(cluster: Cluster) -> None:
    """A person's Act starts from the table the advance loop kept, not a load.  When another
    instance wrote the table meanwhile, that copy is behind: its write loses the race, and
    the Act lands once on the stored table (its expected seq is the stored one, not the
    copy's), with no gap or duplicate in the table's events."""
    stub = cluster.mm()
    slow = M.Timers(bid_ms=60_000, turn_ms=60_000, bot_think_ms=0)
    ticket = seated(stub, enqueue(stub, "alice", "doudizhu3", timers=slow).ticket_id)
    table_id = ticket.table_id
    started(stub, table_id, "alice")
    snap_ = wait_for(lambda: (s := snap(stub, table_id, "alice")) and view_of(s.view).to_move and s)
    runner = _runner_keeping(cluster, table_id)
    kept = runner.kept.get(table_id)
    assert kept is not None
    assert kept.seq == snap_.seq
    other = Store(make_engine(cluster.db_url))  # another instance: a write of its own
    stored = other.load(table_id)
    assert stored is not None
    moved = other.write(stored, stored.seq, Write()).seq
    other.engine.dispose()
    assert moved == kept.seq + 1 and runner.kept.get(table_id) is kept  # the copy is behind
    hint = stub.GetHint(M.HintRequest(table_id=table_id, player_id="alice"), timeout=10)
    out = act(stub, table_id, "alice", hint.hint, expected=moved)
    assert out.seq > moved
    now_kept = runner.kept.get(table_id)
    assert now_kept is None or now_kept.seq >= out.seq
    with make_engine(cluster.db_url).connect() as conn:
        bodies = (
            conn.execute(
                select(table_events.c.body)
                .where(table_events.c.table_id == table_id)
                .order_by(table_events.c.seq)
            )
            .scalars()
            .all()
        )
    game = [ev.game_event for ev in map(M.TableEvent.FromString, bodies) if ev.type == "game"]
    engine_seqs = [g.envelope.seq for g in game]
    # Every engine event once, in order: the lost race wrote nothing, the Act applied once.
    assert engine_seqs == list(range(engine_seqs[0], engine_seqs[0] + len(engine_seqs)))
    by_alice = [g for g in game if g.envelope.actor == "alice"]
    assert by_alice == [e.game_event for e in out.events if e.type == "game"]
    # a stale copy must not refuse what the stored table allows: a seq it does not know
    behind = M.ActRequest(
        table_id=table_id, player_id="alice", action=hint.hint, expected_seq=kept.seq
    )
    assert reason(stub.Act, behind) == (grpc.StatusCode.ABORTED, "STALE_SEQ")


def _spy_writes(runner: Runner) -> list[Any]:
    """Every write of ``runner`` from now on (from a thread, or on the loop: PostgreSQL's):
    the table it committed, or the Conflict."""
    seen: list[Any] = []
    write = runner.store.write

    def spy(*args: Any, **kwargs: Any) -> Any:
        try:
            seen.append(write(*args, **kwargs))
        except Conflict as exc:
            seen.append(exc)
            raise
        return seen[-1]

    write_on_loop = runner.store.write_on_loop

    async def spy_on_loop(*args: Any, **kwargs: Any) -> Any:
        try:
            done = await write_on_loop(*args, **kwargs)
        except Conflict as exc:
            seen.append(exc)
            raise
        if done is not None:  # else the write goes to a thread: store.write
            seen.append(done)
        return done

    runner.store.write = spy  # type: ignore[method-assign]
    runner.store.write_on_loop = spy_on_loop  # type: ignore[method-assign]
    return seen


def _alice_to_move(stub: Any) -> M.Ticket:
    """Alice and two bots at a ddz3 table with minute-long timers, the game running and
    someone to move; her ticket."""
    slow = M.Timers(bid_ms=60_000, turn_ms=60_000, bot_think_ms=0)
    ticket = seated(stub, enqueue(stub, "alice", "doudizhu3", timers=slow).ticket_id)
    started(stub, ticket.table_id, "alice")
    wait_for(lambda: (s := snap(stub, ticket.table_id, "alice")) and view_of(s.view).to_move and s)
    return ticket


def test_another_instances_notify_drops_the_kept_copy_it_made_stale(cluster: Cluster) -> None:
    """Two instances: a kept copy that another instance's write made stale would cost the next
    Act (or due step) an engine call and a lost race.  That write's NOTIFY (table_id:seq)
    tells this instance, which then loads instead: the Act lands at its first write."""
    stub = cluster.mm()
    ticket = _alice_to_move(stub)
    table_id = ticket.table_id
    runner = _runner_keeping(cluster, table_id)
    other = Store(make_engine(cluster.db_url))  # another instance: a write of its own
    stored = other.load(table_id)
    assert stored is not None
    moved = other.write(stored, stored.seq, Write()).seq
    other.close()
    # Its NOTIFY, as LISTEN hands it over (on SQLite there is none: said here).
    runner.waker.notified(f"{table_id}:{moved}")
    wait_for(lambda: runner.waker.latest(table_id) >= moved)
    seen = _spy_writes(runner)
    hint = stub.GetHint(M.HintRequest(table_id=table_id, player_id="alice"), timeout=10)
    out = act(stub, table_id, "alice", hint.hint, expected=moved)
    assert out.seq > moved
    assert not isinstance(seen[0], Conflict), "the Act started from the stale copy"


def test_a_calls_write_holds_the_table_whose_next_step_it_starts(cluster: Cluster) -> None:
    """A person's call whose write makes steps due at once (here: auto-play on the seat's own
    turn) takes them in its write, up to a run's length, and the step after them on this
    instance; the write leases the table until that step is due, as the advance loop's own
    writes do, so another instance's deadline loop does not claim it and step the same turn
    a second time (one of the two would lose its race)."""
    stub = cluster.mm()
    ticket = _alice_to_move(stub)
    table_id = ticket.table_id
    runner = cluster.the_runner()
    seen = _spy_writes(runner)
    act(stub, table_id, "alice", engine_pb2.Action(seat=ticket.seats[0], autoplay=True))
    written = seen[0]
    assert not isinstance(written, Conflict)
    assert written.due_ms is not None
    assert written.lease_ms > written.updated_ms, "the call's write left the table unleased"
    assert written.lease_ms == max(written.due_ms, written.updated_ms) + runner.settings.hold_ms


def test_the_moves_an_act_makes_due_at_once_join_its_write(cluster: Cluster) -> None:
    """Auto-play turned on at one's own turn, bots that do not think: the moves due at once
    after the Act are in the Act's write (one write, not the Act's and then a run's).  The
    Act still answers for itself: its own events and the seq of its last one, after which a
    stream resumed shows the moves that followed it, each once."""
    stub = cluster.mm()
    ticket = _alice_to_move(stub)
    table_id = ticket.table_id
    before = snap(stub, table_id, "alice").seq
    seen = _spy_writes(cluster.the_runner())
    out = act(stub, table_id, "alice", engine_pb2.Action(seat=ticket.seats[0], autoplay=True))
    written = seen[0]
    assert not isinstance(written, Conflict)
    assert before < out.seq < written.seq, "the moves after the Act's are in its write"
    assert all(e.game_event.envelope.actor == "alice" for e in out.events if e.type == "game")
    after = Stream(stub, table_id, "alice", after=out.seq)
    try:
        first = wait_for(lambda: [e for e in after.events if e.type == "game"])[0]
    finally:
        after.close()
    # Her seat's auto-play move, or a bot's: made by the table, in the Act's write.
    assert first.seq == out.seq + 1 <= written.seq
    assert first.game_event.envelope.cause in (common_pb2.CAUSE_AUTOPLAY, common_pb2.CAUSE_BOT)


def test_the_writer_takes_the_tables_next_step_at_its_due_time(cluster: Cluster) -> None:
    """Bots that think, a person's moves and turn timers: each write leases the table to this
    instance until its next step falls due (and a hold more), and this instance takes that
    step then on a timer of its own.  No deadline loop claims the table (a claim and a load
    a step were a fifth of an instance's CPU at human-paced tables), and the game ends."""
    stub = cluster.mm()
    timers = M.Timers(bid_ms=200, turn_ms=200, start_ms=2000, grace_ms=400, bot_think_ms=100)
    table_id = seated(stub, enqueue(stub, "alice", "doudizhu3", timers=timers).ticket_id).table_id
    runner = cluster.the_runner()
    claimed: list[str] = []
    claim_due = runner.store.claim_due

    def spy_claims(*args: Any) -> Any:
        ids, next_ms = claim_due(*args)
        claimed.extend(ids)
        return ids, next_ms

    spy_claims.on_loop = True  # type: ignore[attr-defined]
    runner.store.claim_due = spy_claims  # type: ignore[method-assign]
    seen = _spy_writes(runner)
    end = play_game(stub, table_id, "alice")
    assert end.game_no == 1 and len(end.last_scores) == 3, "the game ended"
    assert table_id not in claimed, "a deadline loop claimed a table its writer steps"
    written = [t for t in seen if not isinstance(t, Conflict) and t.due_ms is not None]
    assert len(written) > 10
    for t in written:
        assert t.lease_ms == max(t.due_ms, t.updated_ms) + runner.settings.hold_ms
