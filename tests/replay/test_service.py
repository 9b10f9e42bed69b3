"""The replay service over gRPC, on every backend: a real server on port 0 for every RPC."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import grpc
import pytest
from cardroom.v1 import common_pb2, replay_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy import select, update

from services import rules
from services.cli import main as cli_main
from services.common.migrate import upgrade
from services.common.wire import with_body
from services.replay.events import decode, encode
from services.replay.models import events as events_table
from services.replay.models import games as games_table
from services.replay.store import chain_hash, genesis_hash

from .conftest import Running, start_server, stop_server
from .helpers import (
    ALICE,
    AUDITOR,
    BOB,
    MALLORY,
    PLAYERS,
    WRITER,
    batches,
    code_and_reason,
    escape_record,
    meta,
    record,
)

W = meta(WRITER)
A = meta(AUDITOR)
R = replay_pb2


def append_game(stub: object, game_id: str, rec: dict[str, object], upto: int | None = None) -> int:
    """Append a game batch by batch through gRPC; returns the head seq."""
    seq = 0
    for i, batch in enumerate(batches(rec, game_id)[:upto]):
        resp = stub.AppendEvents(  # type: ignore[attr-defined]
            R.AppendEventsRequest(
                game_id=game_id, expected_seq=seq, events=batch, request_id=f"{game_id}/{i}"
            ),
            metadata=W,
        )
        seq = resp.last_seq
    return seq


def refused(fn: object, *args: object, **kwargs: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        fn(*args, **kwargs)  # type: ignore[operator]
    return code_and_reason(info.value)


# --------------------------------------------------------------------------- appends
def test_appends_are_idempotent_and_conflicts_are_aborted(replay: Running) -> None:
    stub = replay.stub
    rec = record(seed="a/1", players=PLAYERS)
    parts = batches(rec, "g")
    first = stub.AppendEvents(
        R.AppendEventsRequest(game_id="g", expected_seq=0, events=parts[0], request_id="g/0"),
        metadata=W,
    )
    assert (first.first_seq, first.last_seq, first.replayed) == (1, len(parts[0]), False)
    assert first.status == R.REPLAY_GAME_STATUS_RUNNING
    again = stub.AppendEvents(
        R.AppendEventsRequest(game_id="g", expected_seq=0, events=parts[0], request_id="g/0"),
        metadata=W,
    )
    assert again.replayed and again.head_hash == first.head_hash
    assert refused(
        stub.AppendEvents,
        R.AppendEventsRequest(game_id="g", expected_seq=1, events=parts[1], request_id="x"),
        metadata=W,
    ) == (grpc.StatusCode.ABORTED, "SEQ_CONFLICT")
    seq = first.last_seq
    for i, batch in enumerate(parts[1:], 1):
        last = stub.AppendEvents(
            R.AppendEventsRequest(game_id="g", expected_seq=seq, events=batch, request_id=f"g/{i}"),
            metadata=W,
        )
        seq = last.last_seq
    assert last.status == R.REPLAY_GAME_STATUS_FINISHED
    assert refused(
        stub.AppendEvents,
        R.AppendEventsRequest(game_id="g", expected_seq=seq, events=parts[1], request_id="late"),
        metadata=W,
    ) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    # The stored bytes are the deterministic serialization, with the envelope completed.
    rows = replay.servicer.store.events("g")
    assert all(encode(decode(r.payload)) == r.payload for r in rows)
    assert [decode(r.payload).envelope.seq for r in rows] == list(range(1, seq + 1))
    assert replay.stub.VerifyGame(R.VerifyGameRequest(game_id="g"), metadata=W).ok


def test_concurrent_appends_at_one_seq_never_both_succeed(replay: Running) -> None:
    parts = batches(record(seed="a/2"), "c")
    replay.stub.AppendEvents(
        R.AppendEventsRequest(game_id="c", expected_seq=0, events=parts[0], request_id="c/0"),
        metadata=W,
    )
    head = len(parts[0])
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def write(i: int) -> None:
        barrier.wait()
        try:
            replay.stub.AppendEvents(
                R.AppendEventsRequest(
                    game_id="c", expected_seq=head, events=parts[1], request_id=f"c/w{i}"
                ),
                metadata=W,
            )
            outcomes.append("ok")
        except grpc.RpcError as exc:
            outcomes.append(code_and_reason(exc)[1])

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["SEQ_CONFLICT"] * 3 + ["ok"]


def test_malformed_appends_are_refused_with_a_reason_and_field(replay: Running) -> None:
    stub = replay.stub
    parts = batches(record(seed="a/3"), "m")

    def append(events: list[common_pb2.Event], seq: int = 0, rid: str = "r") -> tuple:
        return refused(
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="m", expected_seq=seq, events=events, request_id=rid),
            metadata=W,
        )

    assert append(parts[0][1:]) == (grpc.StatusCode.INVALID_ARGUMENT, "NO_HEADER")
    assert append([]) == (grpc.StatusCode.INVALID_ARGUMENT, "NO_EVENTS")
    bad = common_pb2.Event(type="play", data_json="[1]")
    assert append([parts[0][0], bad]) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_EVENT")
    header = common_pb2.Event(type="game_header", data_json='{"variant": "nope"}')
    assert append([header]) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_HEADER")
    assert append([parts[0][0], parts[0][0]]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "HEADER_NOT_FIRST",
    )
    private = common_pb2.Event(type="deal", data_json="{}")
    private.envelope.visibility = common_pb2.VISIBILITY_SEAT
    private.envelope.seat = 7
    assert append([parts[0][0], private]) == (grpc.StatusCode.INVALID_ARGUMENT, "NO_SUCH_SEAT")
    over = common_pb2.Event(type="game_over", data_json='{"settlement": {"status": "won"}}')
    assert append([parts[0][0], over]) == (grpc.StatusCode.FAILED_PRECONDITION, "EVENT_MISMATCH")
    assert refused(
        stub.AppendEvents, R.AppendEventsRequest(game_id="m", events=parts[0]), metadata=W
    ) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_FIELD")
    assert append(parts[1], seq=3) == (grpc.StatusCode.ABORTED, "SEQ_CONFLICT")
    # An unparsable body, to a unary and to the streaming method: INVALID_ARGUMENT.
    for method, kind in (("AppendEvents", "unary_unary"), ("StreamEvents", "unary_stream")):
        call = getattr(replay.channel, kind)(f"/cardroom.v1.ReplayService/{method}")
        with pytest.raises(grpc.RpcError) as info:
            result = call(b"\xff\xff\xff", metadata=W)
            if kind == "unary_stream":
                list(result)
        assert code_and_reason(info.value) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )


# --------------------------------------------------------------------------- reads
def test_get_stream_list_export_verify_and_stats(replay: Running, tmp_path: Path) -> None:
    stub = replay.stub
    rec = record(seed="b/1", players=PLAYERS, table={"id": "t1", "game_no": 1})
    head = append_game(stub, "g1", rec)
    got = stub.GetGame(R.GetGameRequest(game_id="g1"), metadata=A)
    assert got.game.status == R.REPLAY_GAME_STATUS_FINISHED
    assert list(got.game.players) == PLAYERS and got.game.head_seq == head
    assert json.loads(got.header_json)["table"] == {"id": "t1", "game_no": 1}
    assert sum(got.game.scores) == 0 and len(got.game.scores) == 3

    full = list(stub.StreamEvents(R.StreamEventsRequest(game_id="g1"), metadata=A))
    assert [e.event.envelope.seq for e in full] == list(range(1, head + 1))
    digest = genesis_hash("g1")
    for item in full:
        digest = chain_hash(digest, encode(item.event))
        assert item.hash == digest
    tail = list(
        stub.StreamEvents(R.StreamEventsRequest(game_id="g1", from_seq=head - 1), metadata=A)
    )
    assert [e.event.type for e in tail][-1] == "game_over" and len(tail) == 2
    seat1 = list(stub.StreamEvents(R.StreamEventsRequest(game_id="g1", seat=1), metadata=A))
    assert "deal" not in json.loads(seat1[0].event.data_json)  # the seed would show every hand
    private = [e.event for e in seat1 if e.event.envelope.visibility == common_pb2.VISIBILITY_SEAT]
    assert private and all(e.envelope.seat == 1 for e in private)
    assert len(seat1) == head - 2  # the two other seats' hands are left out
    assert refused(
        lambda: list(stub.StreamEvents(R.StreamEventsRequest(game_id="g1", seat=3), metadata=A))
    ) == (grpc.StatusCode.INVALID_ARGUMENT, "NO_SUCH_SEAT")

    exported = stub.ExportGame(R.ExportGameRequest(game_id="g1"), metadata=A)
    out = json.loads(exported.record_json)
    assert out["actions"] == rec["actions"] and out["deal"] == rec["deal"]
    assert out["players"] == PLAYERS and out["game_id"] == "g1"
    assert exported.head_hash == got.game.head_hash
    path = tmp_path / "export.json"
    path.write_text(exported.record_json)
    assert cli_main(["settle", str(path)]) == 0  # the record `cardroom settle` accepts

    verified = stub.VerifyGame(R.VerifyGameRequest(game_id="g1"), metadata=A)
    assert verified.ok and verified.chain_ok and verified.replay_ok and verified.events == head
    assert json.loads(verified.settlement_json)["scores"] == list(got.game.scores)

    for i in range(2, 6):
        append_game(
            stub, f"g{i}", record(seed=f"b/{i}", players=PLAYERS), upto=1 if i == 5 else None
        )
    page = stub.ListGames(R.ListGamesRequest(page_size=2, player_id="alice"), metadata=A)
    ids = [g.game_id for g in page.games]
    while page.next_page_token:
        page = stub.ListGames(
            R.ListGamesRequest(page_size=2, player_id="alice", page_token=page.next_page_token),
            metadata=A,
        )
        ids += [g.game_id for g in page.games]
    assert sorted(ids) == ["g1", "g2", "g3", "g4", "g5"] and len(set(ids)) == 5
    running = stub.ListGames(R.ListGamesRequest(status=R.REPLAY_GAME_STATUS_RUNNING), metadata=A)
    assert [g.game_id for g in running.games] == ["g5"]
    assert not stub.ListGames(R.ListGamesRequest(variant="zsy1"), metadata=A).games
    assert len(stub.ListGames(R.ListGamesRequest(variant="ddz3"), metadata=A).games) == 5
    later = R.ListGamesRequest()
    later.created_after.FromSeconds(int(time.time()) + 3600)
    assert not stub.ListGames(later, metadata=A).games
    assert refused(stub.ListGames, R.ListGamesRequest(page_token="??"), metadata=A) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_PAGE_TOKEN",
    )
    assert refused(stub.GetGame, R.GetGameRequest(game_id="nope"), metadata=A) == (
        grpc.StatusCode.NOT_FOUND,
        "GAME_NOT_FOUND",
    )

    stats = stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="alice"), metadata=A)
    (ddz,) = stats.totals
    assert ddz.family == "doudizhu" and ddz.games == 4
    assert stats.last_game_id in {"g1", "g2", "g3", "g4"}
    assert (stats.title.level, stats.title.english) == (1, "Snail")


def test_a_stream_follows_a_game_appended_through_another_server(db_url: str) -> None:
    """Two replay servers on one database: one appends, the other streams (LISTEN/NOTIFY on
    PostgreSQL, polling on SQLite)."""
    upgrade(db_url)
    writer, reader = start_server(db_url), start_server(db_url)
    try:
        rec = record(seed="f/1", players=PLAYERS)
        parts = batches(rec, "live")
        writer.stub.AppendEvents(
            R.AppendEventsRequest(game_id="live", events=parts[0], request_id="live/0"),
            metadata=W,
        )
        follower = reader.servicer.follower
        if reader.servicer.store.engine.dialect.name == "postgresql":
            deadline = time.monotonic() + 10
            while not follower.listening and time.monotonic() < deadline:
                time.sleep(0.05)
            assert follower.listening
        stream = reader.stub.StreamEvents(
            R.StreamEventsRequest(game_id="live", follow=True), metadata=A, timeout=60
        )
        received: list[int] = []
        arrived: list[float] = []

        def consume() -> None:
            for item in stream:
                received.append(item.event.envelope.seq)
                arrived.append(time.monotonic())

        thread = threading.Thread(target=consume)
        thread.start()
        seq = len(parts[0])
        sent: list[float] = []
        for i, batch in enumerate(parts[1:], 1):
            time.sleep(0.005)
            sent.append(time.monotonic())
            seq = writer.stub.AppendEvents(
                R.AppendEventsRequest(
                    game_id="live", expected_seq=seq, events=batch, request_id=f"live/{i}"
                ),
                metadata=W,
            ).last_seq
        thread.join(30)
        assert not thread.is_alive(), "the stream did not end with the game"
        assert received == list(range(1, seq + 1))
    finally:
        stop_server(writer)
        stop_server(reader)


# --------------------------------------------------------------------------- verification
def _rewrite(replay: Running, game_id: str, seq: int, change: object) -> None:
    """Alter one stored event and recompute the chain from there, as a careful forger would."""
    store = replay.servicer.store
    rows = store.events(game_id)
    digest = genesis_hash(game_id)
    with store.engine.begin() as conn:
        for row in rows:
            payload = row.payload
            if row.seq == seq:
                ev = decode(payload)
                change(ev)  # type: ignore[operator]
                payload = encode(ev)
            digest = chain_hash(digest, payload)
            if row.seq >= seq:
                conn.execute(
                    update(events_table)
                    .where((events_table.c.game_id == game_id) & (events_table.c.seq == row.seq))
                    .values(payload=payload, hash=digest)
                )
        conn.execute(
            update(games_table).where(games_table.c.game_id == game_id).values(head_hash=digest)
        )


def test_typed_bodies_are_sent_but_never_stored(replay: Running) -> None:
    """Events as the engine sends them, with typed bodies: the store keeps and hashes them
    without (as before typed bodies existed, so every stored chain still verifies), and its
    streams fill the bodies in again."""
    stub = replay.stub
    seq = 0
    for i, batch in enumerate(batches(record(seed="typed/1", players=PLAYERS), "typed")):
        typed = [with_body(common_pb2.Event.FromString(e.SerializeToString())) for e in batch]
        assert all(e.WhichOneof("body") == e.type for e in typed)
        seq = stub.AppendEvents(
            R.AppendEventsRequest(
                game_id="typed", expected_seq=seq, events=typed, request_id=f"typed/{i}"
            ),
            metadata=W,
        ).last_seq
    store = replay.servicer.store
    with store.engine.begin() as conn:
        rows = conn.execute(
            select(events_table.c.payload, events_table.c.hash)
            .where(events_table.c.game_id == "typed")
            .order_by(events_table.c.seq)
        ).all()
    assert len(rows) == seq
    digest = genesis_hash("typed")
    for row in rows:
        assert decode(row.payload).WhichOneof("body") is None
        digest = chain_hash(digest, row.payload)
        assert row.hash == digest
    streamed = list(stub.StreamEvents(R.StreamEventsRequest(game_id="typed"), metadata=A))
    for item, row in zip(streamed, rows, strict=True):
        assert item.event.WhichOneof("body") == item.event.type
        bare = common_pb2.Event.FromString(item.event.SerializeToString())
        bare.ClearField("body")
        assert bare.SerializeToString(deterministic=True) == row.payload
    assert stub.VerifyGame(R.VerifyGameRequest(game_id="typed"), metadata=A).ok


def test_a_tampered_row_is_caught_by_verify(replay: Running) -> None:
    append_game(replay.stub, "t", record(seed="t/1"))
    store = replay.servicer.store
    with store.engine.begin() as conn:
        conn.execute(
            update(events_table)
            .where((events_table.c.game_id == "t") & (events_table.c.seq == 9))
            .values(payload=b"\x12\x04play")
        )
    result = replay.stub.VerifyGame(R.VerifyGameRequest(game_id="t"), metadata=A)
    assert not result.ok and not result.chain_ok
    assert (result.first_bad_seq, result.reason) == (9, "CHAIN_BROKEN")


def test_an_altered_result_fails_verification_at_the_game_over_event(replay: Running) -> None:
    head = append_game(replay.stub, "r", record(seed="t/2", players=PLAYERS))

    def richer(ev: common_pb2.Event) -> None:
        data = json.loads(ev.data_json)
        data["settlement"]["scores"][0] += 100
        ev.data_json = json.dumps(data)

    _rewrite(replay, "r", head, richer)
    result = replay.stub.VerifyGame(R.VerifyGameRequest(game_id="r"), metadata=A)
    assert result.chain_ok and not result.replay_ok and not result.ok
    assert (result.first_bad_seq, result.reason) == (head, "EVENT_MISMATCH")

    # A play altered in the middle: the first event where the log and the rules part.
    head2 = append_game(replay.stub, "p", record(seed="t/3"))
    rows = replay.servicer.store.events("p")
    play = next(r.seq for r in rows if decode(r.payload).type == "play")

    def other_cards(ev: common_pb2.Event) -> None:
        data = json.loads(ev.data_json)
        data["left"] -= 1
        ev.data_json = json.dumps(data)

    _rewrite(replay, "p", play, other_cards)
    result = replay.stub.VerifyGame(R.VerifyGameRequest(game_id="p"), metadata=A)
    assert (result.ok, result.first_bad_seq, result.reason) == (False, play, "EVENT_MISMATCH")
    assert head2 > play

    # Only the result column altered: the events still follow, the stored result does not.
    append_game(replay.stub, "q", record(seed="t/4"))
    store = replay.servicer.store
    with store.engine.begin() as conn:
        result_json = conn.execute(
            select(games_table.c.result).where(games_table.c.game_id == "q")
        ).scalar_one()
        result_json["scores"] = [0, 0, 0]
        conn.execute(
            update(games_table).where(games_table.c.game_id == "q").values(result=result_json)
        )
    result = replay.stub.VerifyGame(R.VerifyGameRequest(game_id="q"), metadata=A)
    q_head = store.game("q").head_seq
    assert (result.ok, result.first_bad_seq, result.reason) == (False, q_head, "RESULT_MISMATCH")


# Issue 5 asks for thousands: 2,000 simulated games on each backend.
GAMES = {"doudizhu3": 800, "doudizhu4": 400, "zhengshangyou1": 400, "zhengshangyou2": 400}


def test_thousands_of_simulated_games_are_imported_and_verified(replay: Running) -> None:
    imported = 0
    for variant, count in GAMES.items():
        for i in range(count):
            rec = record(variant, seed=f"sim/{variant}/{i}")
            resp = replay.stub.ImportGame(
                R.ImportGameRequest(record_json=json.dumps(rec), game_id=f"{variant}-{i}"),
                metadata=W,
            )
            assert resp.verification.ok, (variant, i, resp.verification)
            imported += 1
    assert imported == sum(GAMES.values())
    # Re-verify a sample through the RPC, and re-import one: nothing is written twice.
    for i in range(0, 120, 30):
        assert replay.stub.VerifyGame(R.VerifyGameRequest(game_id=f"doudizhu3-{i}"), metadata=A).ok
    again = replay.stub.ImportGame(
        R.ImportGameRequest(record_json=json.dumps(record(seed="sim/doudizhu3/0")),
                            game_id="doudizhu3-0"),
        metadata=W,
    )  # fmt: skip
    assert again.replayed and again.verification.ok
    other = record(seed="sim/doudizhu3/1")
    assert refused(
        replay.stub.ImportGame,
        R.ImportGameRequest(record_json=json.dumps(other), game_id="doudizhu3-0"),
        metadata=W,
    ) == (grpc.StatusCode.ALREADY_EXISTS, "GAME_EXISTS")


def test_bad_imports_are_refused_with_a_reason(replay: Running) -> None:
    stub = replay.stub

    def imp(data: object) -> tuple[grpc.StatusCode, str]:
        raw = data if isinstance(data, str) else json.dumps(data)
        return refused(stub.ImportGame, R.ImportGameRequest(record_json=raw), metadata=W)

    assert imp("{") == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_RECORD")
    assert imp({"variant": "nope", "deal": {"seed": "x"}})[0] == grpc.StatusCode.INVALID_ARGUMENT
    rec = record(seed="i/1")
    assert imp({**rec, "actions": rec["actions"][:3]}) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_OVER",
    )
    wrong = {**rec, "result": {"status": "finished", "scores": [1, 2, -3]}}
    assert imp(wrong) == (grpc.StatusCode.FAILED_PRECONDITION, "RESULT_MISMATCH")
    illegal = {**rec, "actions": [{"seat": (rec["first_bidder"] + 1) % 3, "bid": 1}]}
    assert imp(illegal) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")


# --------------------------------------------------------------------------- escape audit
def test_escape_audit_recomputes_every_step(replay: Running) -> None:
    rec = escape_record({"max_multiplier": 64, "escape_multiplier": 4})
    append_game(replay.stub, "e", rec)
    audit = replay.stub.AuditEscape(R.AuditEscapeRequest(game_id="e"), metadata=A)
    state = rules.replay(rec)
    assert audit.consistent and audit.escaper == state.escaper
    assert audit.max_multiplier == 64 and audit.escape_multiplier == 4
    assert audit.bombs and any(not b.led and b.factor == 2 for b in audit.bombs)
    names = [s.name for s in audit.steps]
    assert names[0] == "B" and "penalty" in names and names[-1] == "escaper"
    assert all(s.matches and s.recorded == s.recomputed for s in audit.steps)
    assert list(audit.recomputed_scores) == list(audit.recorded_scores)
    assert list(audit.recomputed_scores) == list(state.settlement.scores)
    events = replay.servicer.store.events("e")
    assert decode(events[audit.leave_seq - 1].payload).type == "leave"

    # A recorded penalty that does not follow: the step that differs is shown as such.
    def harsher(ev: common_pb2.Event) -> None:
        data = json.loads(ev.data_json)
        for step in data["settlement"]["steps"]:
            if step["name"] == "penalty":
                step["value"] *= 2
        ev.data_json = json.dumps(data)

    _rewrite(replay, "e", len(events), harsher)
    audit = replay.stub.AuditEscape(R.AuditEscapeRequest(game_id="e"), metadata=A)
    assert not audit.consistent
    assert [s.name for s in audit.steps if not s.matches] == ["penalty"]

    append_game(replay.stub, "fin", record(seed="e/2"))
    assert refused(replay.stub.AuditEscape, R.AuditEscapeRequest(game_id="fin"), metadata=A) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_ESCAPED",
    )


# --------------------------------------------------------------------------- totals
def test_player_totals_and_zheng_shangyou_titles(replay: Running) -> None:
    players = ["alice", "bob", "carol", "bot:dan"]
    total = 0
    for i in range(12):
        rec = record("zhengshangyou1", seed=f"z/{i}", players=players)
        replay.stub.ImportGame(
            R.ImportGameRequest(record_json=json.dumps(rec), game_id=f"z{i}"), metadata=W
        )
        replay.stub.ImportGame(  # a retried import counts once
            R.ImportGameRequest(record_json=json.dumps(rec), game_id=f"z{i}"), metadata=W
        )
        total += rules.replay(rec).settlement.scores[0]
    stats = replay.stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="alice"), metadata=A)
    (zsy,) = stats.totals
    assert (zsy.family, zsy.games, zsy.total) == ("zhengshangyou", 12, total)
    level, chinese, english = rules.title_for(total)
    assert (stats.title.level, stats.title.chinese, stats.title.english) == (
        level,
        chinese,
        english,
    )
    assert stats.last_game_id == "z11"
    nobody = replay.stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="dan"), metadata=A)
    assert not nobody.totals and nobody.title.level == 1
    bot = replay.stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="bot:dan"), metadata=A)
    assert not bot.totals


# --------------------------------------------------------------------------- access
def test_who_reads_what(replay: Running) -> None:
    stub = replay.stub
    rec = record(seed="x/1", players=PLAYERS)
    parts = batches(rec, "x")
    stub.AppendEvents(
        R.AppendEventsRequest(game_id="x", events=parts[0], request_id="x/0"), metadata=W
    )
    get = R.GetGameRequest(game_id="x")
    unauth = (grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED")
    denied = (grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED")
    assert refused(stub.GetGame, get) == unauth
    assert refused(stub.GetGame, get, metadata=meta("not-a-token-at-all-xx")) == unauth
    assert refused(stub.GetGame, get, metadata=[("authorization", "Basic abc")]) == unauth
    # While the game runs: its writer and auditors only — not even its players.
    assert stub.GetGame(get, metadata=W).game.game_id == "x"
    assert stub.GetGame(get, metadata=A).game.game_id == "x"
    assert refused(stub.GetGame, get, metadata=meta(ALICE)) == denied
    assert (
        refused(
            lambda: list(
                stub.StreamEvents(R.StreamEventsRequest(game_id="x"), metadata=meta(ALICE))
            )
        )
        == denied
    )
    assert refused(lambda: list(stub.StreamEvents(R.StreamEventsRequest(game_id="x")))) == unauth
    assert (
        refused(
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="y", events=parts[0], request_id="y/0"),
            metadata=A,
        )
        == denied
    )
    assert (
        refused(
            stub.ListGames,
            R.ListGamesRequest(status=R.REPLAY_GAME_STATUS_RUNNING),
            metadata=meta(ALICE),
        )
        == denied
    )
    # After it ends: its players and auditors; another player still cannot.
    seq = len(parts[0])
    for i, batch in enumerate(parts[1:], 1):
        seq = stub.AppendEvents(
            R.AppendEventsRequest(game_id="x", expected_seq=seq, events=batch, request_id=f"x/{i}"),
            metadata=W,
        ).last_seq
    assert stub.GetGame(get, metadata=meta(ALICE)).game.game_id == "x"
    assert stub.VerifyGame(R.VerifyGameRequest(game_id="x"), metadata=meta(BOB)).ok
    assert len(list(stub.StreamEvents(R.StreamEventsRequest(game_id="x"), metadata=meta(BOB))))
    assert refused(stub.GetGame, get, metadata=meta(MALLORY)) == denied
    assert refused(stub.ExportGame, R.ExportGameRequest(game_id="x"), metadata=meta(MALLORY)) == (
        denied
    )
    mine = stub.ListGames(R.ListGamesRequest(), metadata=meta(ALICE))
    assert [g.game_id for g in mine.games] == ["x"]
    assert refused(stub.ListGames, R.ListGamesRequest(player_id="bob"), metadata=meta(ALICE)) == (
        denied
    )
    assert stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="alice"), metadata=meta(ALICE))
    assert (
        refused(stub.GetPlayerStats, R.GetPlayerStatsRequest(player_id="bob"), metadata=meta(ALICE))
        == denied
    )
    assert (
        refused(
            stub.ImportGame, R.ImportGameRequest(record_json=json.dumps(rec)), metadata=meta(ALICE)
        )
        == denied
    )
    # Health and reflection need no token.
    health = health_pb2_grpc.HealthStub(replay.channel)
    status = health.Check(health_pb2.HealthCheckRequest(service="cardroom.v1.ReplayService"))
    assert status.status == health_pb2.HealthCheckResponse.SERVING


def test_without_tokens_everything_is_allowed(db_url: str) -> None:
    from services.replay.access import AccessPolicy

    upgrade(db_url)
    running = start_server(db_url, AccessPolicy())
    try:
        parts = batches(record(seed="o/1"), "o")
        running.stub.AppendEvents(
            R.AppendEventsRequest(game_id="o", events=parts[0], request_id="o/0")
        )
        assert running.stub.GetGame(R.GetGameRequest(game_id="o")).game.head_seq == len(parts[0])
    finally:
        stop_server(running)


def test_verify_checks_the_deal_commitment_and_the_revealed_seed(
    replay: Running, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A careful forger who rewrites the commitment (or the revealed seed) and recomputes the
    chain is caught: the revealed seed must open the commitment for this game id, and deal
    exactly the hands the deal events hold."""
    rec = record(seed="c/1", players=PLAYERS)
    for game_id, field in (("cm", "commitment"), ("cs", "seed")):
        append_game(replay.stub, game_id, rec)
        rows = replay.servicer.store.events(game_id)
        kind = "deal" if field == "commitment" else "game_over"
        target = next(
            r.seq
            for r in rows
            if r.type == kind and field in json.loads(decode(r.payload).data_json)
        )

        def change(ev: common_pb2.Event, field: str = field) -> None:
            data = json.loads(ev.data_json)
            data[field] = "0" * 64 if field == "commitment" else "another seed"
            ev.data_json = json.dumps(data)

        _rewrite(replay, game_id, target, change)
        result = replay.stub.VerifyGame(R.VerifyGameRequest(game_id=game_id), metadata=A)
        assert result.chain_ok and not result.ok and result.first_bad_seq == target
        assert result.reason == (
            "COMMITMENT_MISMATCH" if field == "commitment" else "EVENT_MISMATCH"
        )
        status = cli_main(["replay", "verify", game_id, "--database", db_url])
        out = json.loads(capsys.readouterr().out)
        assert status == 1 and out["reason"] == result.reason


def test_exports_written_before_the_shape_change_still_import_and_verify(replay: Running) -> None:
    """Records exported by the engine before this change (rules version 1, a room whose
    timer was then a variant override) import, verify and keep their recorded scores."""
    fixture = Path(__file__).parents[1] / "rules" / "fixtures"
    old = json.loads((fixture / "exports_before_table_settings.json").read_text())
    for rec in old:
        resp = replay.stub.ImportGame(R.ImportGameRequest(record_json=json.dumps(rec)), metadata=W)
        assert resp.verification.ok, (rec["variant"], resp.verification)
        assert json.loads(resp.game.result_json)["scores"] == rec["result"]["scores"]
        assert resp.game.game_id == rec["game_id"]
