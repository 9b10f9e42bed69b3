"""The replay store holds only games the rules allow, and the engine's output appends verbatim.

Real servers on port 0 for both services (the engine's gRPC API and the replay's), on every
backend: whole games of the four variants go from the engine's NewGame/Apply straight into
AppendEvents, with expected_seq taken from the engine's token, and verify.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from cardroom.v1 import common_pb2, engine_pb2, engine_pb2_grpc, replay_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services import rules
from services.common.migrate import upgrade
from services.common.server import BackgroundServer
from services.common.settings import ServerSettings
from services.engine import server as engine_server
from services.engine import tokens

from .conftest import Running, start_server, stop_server
from .helpers import AUDITOR, PLAYERS, WRITER, batches, code_and_reason, meta, record

W = meta(WRITER)
A = meta(AUDITOR)
R = replay_pb2
E = engine_pb2
TEST_KEYS = "test1:" + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="


@pytest.fixture(scope="module")
def engine() -> Iterator[engine_pb2_grpc.EngineServiceStub]:
    old = os.environ.get(tokens.ENV_VAR)
    os.environ[tokens.ENV_VAR] = old or TEST_KEYS
    settings = ServerSettings(
        service="engine", port=0, workers=1, grace_s=0.5, log_level="warning", access_log=False
    )
    with (
        BackgroundServer(engine_server.SPEC, settings) as running,
        grpc.insecure_channel(running.target) as channel,
    ):
        yield engine_pb2_grpc.EngineServiceStub(channel)
    if old is None:
        os.environ.pop(tokens.ENV_VAR, None)


def refused(
    fn: Any, request: Any, metadata: Any = W
) -> tuple[grpc.StatusCode, str, dict[str, str], list[str]]:
    """Code, reason, ErrorInfo metadata and field paths of a refused call."""
    with pytest.raises(grpc.RpcError) as info:
        fn(request, metadata=metadata, timeout=20)
    code, reason = code_and_reason(info.value)
    meta_out: dict[str, str] = {}
    fields: list[str] = []
    status = rpc_status.from_call(info.value)  # type: ignore[arg-type]
    for item in status.details if status is not None else ():
        if item.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            ei = error_details_pb2.ErrorInfo()
            item.Unpack(ei)
            meta_out = dict(ei.metadata)
        elif item.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            br = error_details_pb2.BadRequest()
            item.Unpack(br)
            fields = [v.field for v in br.field_violations]
    assert "SELECT" not in (info.value.details() or "")  # type: ignore[attr-defined]
    return code, reason, meta_out, fields


def append(stub: Any, game_id: str, seq: int, events: Any, rid: str) -> Any:
    return stub.AppendEvents(
        R.AppendEventsRequest(game_id=game_id, expected_seq=seq, events=events, request_id=rid),
        metadata=W,
        timeout=20,
    )


# --------------------------------------------------------------------------- forged logs
def test_a_forged_game_over_is_refused_and_the_totals_stay(replay: Running) -> None:
    stub = replay.stub
    parts = batches(record(seed="f/1", players=PLAYERS), "f")
    forged = common_pb2.Event(
        type="game_over",
        data_json=json.dumps({"settlement": {"status": "finished", "scores": [1000000, -1, -1]}}),
    )
    # Not in place of the deal, nor after it, nor an unknown type, nor a play out of turn.
    code, reason, info, _ = refused(
        stub.AppendEvents,
        R.AppendEventsRequest(
            game_id="f", expected_seq=0, events=[parts[0][0], forged], request_id="f/1"
        ),
    )
    assert (code, reason, info["seq"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "EVENT_MISMATCH",
        "2",
    )
    append(stub, "f", 0, parts[0], "f/0")
    game = stub.GetGame(R.GetGameRequest(game_id="f"), metadata=W).game
    assert (game.status, game.head_seq, list(game.scores)) == (
        R.REPLAY_GAME_STATUS_RUNNING, len(parts[0]), []
    )  # fmt: skip
    stats = stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="alice"), metadata=W)
    assert list(stats.totals) == []
    code, reason, info, _ = refused(
        stub.AppendEvents,
        R.AppendEventsRequest(
            game_id="f", expected_seq=len(parts[0]), events=[forged], request_id="f/2"
        ),
    )
    assert (reason, info["seq"]) == ("EVENT_MISMATCH", str(len(parts[0]) + 1))
    zzz = common_pb2.Event(type="zzz", data_json="{}")
    code, reason, _, fields = refused(
        stub.AppendEvents,
        R.AppendEventsRequest(
            game_id="f", expected_seq=len(parts[0]), events=[zzz], request_id="f/3"
        ),
    )
    assert (code, reason, fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_EVENT",
        ["events[0].type"],
    )
    head = len(parts[0])
    first = parts[1][0]
    data = json.loads(first.data_json)
    wrong = common_pb2.Event()
    wrong.CopyFrom(first)
    wrong.data_json = json.dumps({**data, "seat": (data["seat"] + 1) % 3})
    code, reason, info, _ = refused(
        stub.AppendEvents,
        R.AppendEventsRequest(game_id="f", expected_seq=head, events=[wrong], request_id="f/5"),
    )
    assert (code, reason, info["seq"], info["why"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "EVENT_MISMATCH",
        str(head + 1),
        "ILLEGAL_ACTION",
    )
    # The whole real game still appends, and the totals are the rules' settlement.
    seq = head
    for i, batch in enumerate(parts[1:]):
        seq = append(stub, "f", seq, batch, f"f/real/{i}").last_seq
    game = stub.GetGame(R.GetGameRequest(game_id="f"), metadata=W).game
    state = rules.replay(record(seed="f/1"))
    assert list(game.scores) == list(state.settlement.scores)
    assert stub.VerifyGame(R.VerifyGameRequest(game_id="f"), metadata=W).ok


def test_a_game_cut_inside_a_batch_goes_on_after_a_restart(db_url: str) -> None:
    """The warm state is a cache: a fresh server (another process) reloads it from the log.
    An append that stops between the events one action produced is refused (a bid without
    the landlord event it makes, the header without its deal), so the log never does."""
    upgrade(db_url)
    parts = batches(record(seed="k/1"), "k")
    first = start_server(db_url)
    try:
        code, reason, info, _ = refused(
            first.stub.AppendEvents,
            R.AppendEventsRequest(game_id="k", expected_seq=0, events=parts[0][:2],
                                  request_id="k/cut"),
        )  # fmt: skip
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INCOMPLETE_ACTION")
        assert "deal" in info["owed"]
        seq = append(first.stub, "k", 0, parts[0], "k/0").last_seq
        done = 1
        while len(parts[done]) == 1:  # up to the bid that makes a landlord
            seq = append(first.stub, "k", seq, parts[done], f"k/a{done}").last_seq
            done += 1
        code, reason, info, _ = refused(
            first.stub.AppendEvents,
            R.AppendEventsRequest(game_id="k", expected_seq=seq, events=parts[done][:1],
                                  request_id="k/half"),
        )  # fmt: skip
        assert reason == "INCOMPLETE_ACTION" and info["seq"] == str(seq + 2)
        assert "landlord" in info["owed"]
    finally:
        stop_server(first)
    second = start_server(db_url)
    try:
        for i, batch in enumerate(parts[done:]):
            seq = append(second.stub, "k", seq, batch, f"k/b{i}").last_seq
        assert second.stub.VerifyGame(R.VerifyGameRequest(game_id="k"), metadata=W).ok
    finally:
        stop_server(second)


def test_a_constraint_other_than_the_head_is_no_seq_conflict(replay: Running) -> None:
    """A write refused by a constraint that does not guard the game's head (here an
    operator's index: one event of each type in the store) is ABORTED WRITE_CONFLICT naming
    the constraint, with no SQL: never SEQ_CONFLICT, never INTERNAL."""
    from sqlalchemy import text

    with replay.servicer.store.engine.begin() as conn:
        conn.execute(text("CREATE UNIQUE INDEX uq_test_type ON events (type)"))
    parts = batches(record(seed="w/1"), "w")
    request = R.AppendEventsRequest(game_id="w", expected_seq=0, events=parts[0], request_id="w/0")
    code, reason, info, _ = refused(replay.stub.AppendEvents, request)
    assert (code, reason) == (grpc.StatusCode.ABORTED, "WRITE_CONFLICT")
    assert "type" in info["constraint"]
    with pytest.raises(grpc.RpcError) as again:
        replay.stub.AppendEvents(request, metadata=W, timeout=20)
    assert "INSERT" not in (again.value.details() or "")  # type: ignore[attr-defined]
    assert replay.servicer.store.list_games() == []


def test_a_reused_request_id_with_another_body_is_refused(replay: Running) -> None:
    stub = replay.stub
    parts = batches(record(seed="q/1"), "q")
    first = append(stub, "q", 0, parts[0], "q/0")
    head = first.last_seq
    second = append(stub, "q", head, parts[1], "q/1")
    # The same id and body: the first answer, nothing written.
    again = append(stub, "q", head, parts[1], "q/1")
    assert again.replayed and (again.first_seq, again.last_seq) == (
        second.first_seq,
        second.last_seq,
    )
    assert again.head_hash == second.head_hash
    # The same id with other events, or at another expected_seq: refused, never "replayed".
    for seq, events in ((second.last_seq, parts[2]), (head + 1, parts[1])):
        code, reason, _, _ = refused(
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="q", expected_seq=seq, events=events, request_id="q/1"),
        )
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    # Also through a cold cache (another replay process answering the retry).
    replay.servicer.games.forget_warm_states()
    code, reason, _, _ = refused(
        stub.AppendEvents,
        R.AppendEventsRequest(game_id="q", expected_seq=head, events=parts[2], request_id="q/1"),
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    assert append(stub, "q", head, parts[1], "q/1").replayed
    assert stub.GetGame(R.GetGameRequest(game_id="q"), metadata=W).game.head_seq == second.last_seq


# --------------------------------------------------------------------------- engine → replay
def _choose(legal: Any, moves: int, rnd: random.Random, redeal: bool) -> E.Action:
    actions = list(legal.actions)
    passes = [a for a in actions if a.WhichOneof("kind") == "pass"]
    if redeal and passes:  # everybody passes the first deal: a redeal
        return passes[0]
    if moves % 5 == 3:  # the turn timer runs out: the engine plays the auto-play move
        return E.Action(seat=legal.seat, timeout=True)
    return rnd.choice(actions)


def play_through(
    engine: Any, stub: Any, variant: str, game_id: str, seed: str, leave_after: int | None
) -> tuple[Any, list[Any]]:
    """Play a game through the engine and append every response's events verbatim."""
    rnd = random.Random(seed)
    players = [f"p{i}" for i in range(rules.variant(variant).players)]
    players[-1] = "bot:last"
    new = engine.NewGame(
        E.NewGameRequest(
            variant=variant,
            deal=E.Deal(seed=seed),
            game_id=game_id,
            players=players,
            table=E.TableRef(id="t1", game_no=1),
        ),
        timeout=20,
    )
    log = list(new.events)
    append(stub, game_id, 0, new.events, f"{game_id}/0")
    token = new.state
    moves = 0
    redeal = variant.startswith("doudizhu")
    while True:
        legal = engine.ListLegalActions(E.ListLegalActionsRequest(state=token), timeout=20)
        if leave_after is not None and moves == leave_after:
            action = E.Action(seat=(legal.seat + 1) % len(players), leave=True)
        else:
            action = _choose(legal, moves, rnd, redeal)
        cause = common_pb2.CAUSE_BOT if legal.seat == len(players) - 1 else 0
        answer = engine.Apply(
            E.ApplyRequest(state=token, action=action, actor=players[action.seat], cause=cause),
            timeout=20,
        )
        moves += 1
        if any(e.type == "redeal" for e in answer.events):
            redeal = False
        ack = append(stub, game_id, token.seq, answer.events, f"{game_id}/{answer.state.seq}")
        assert ack.last_seq == answer.state.seq
        log.extend(answer.events)
        token = answer.state
        if answer.game_over:
            return answer, log


@pytest.mark.parametrize(
    ("variant", "leave_after"),
    [("doudizhu3", None), ("doudizhu4", 9), ("zhengshangyou1", None), ("zhengshangyou2", 30)],
)
def test_engine_output_appends_verbatim_and_verifies(
    replay: Running, engine: Any, variant: str, leave_after: int | None
) -> None:
    stub = replay.stub
    game_id = f"e2e-{variant}"
    answer, log = play_through(engine, stub, variant, game_id, f"seed/{variant}", leave_after)
    types = [e.type for e in log]
    assert types[0] == "game_header"
    if variant == "doudizhu3":
        assert "redeal" in types  # the first deal was passed out
    if leave_after is not None:
        assert "leave" in types and answer.settlement.status == common_pb2.GAME_STATUS_ESCAPED
    assert any(e.envelope.cause == common_pb2.CAUSE_TIMEOUT for e in log)
    verdict = stub.VerifyGame(R.VerifyGameRequest(game_id=game_id), metadata=W)
    assert verdict.ok, verdict
    game = stub.GetGame(R.GetGameRequest(game_id=game_id), metadata=W).game
    assert list(game.scores) == list(answer.settlement.scores)
    assert json.loads(game.result_json) == json.loads(answer.settlement.settlement_json)
    # The deal was committed to before the first action, and game_over opens the commitment.
    public_deal = next(
        json.loads(e.data_json)
        for e in log
        if e.type == "deal" and e.envelope.visibility == common_pb2.VISIBILITY_PUBLIC
    )
    revealed = json.loads(log[-1].data_json)["seed"]
    assert public_deal["commitment"] == rules.deal_commitment(game_id, revealed)
    # The stored bytes are what the engine sent.
    stored = list(stub.StreamEvents(R.StreamEventsRequest(game_id=game_id), metadata=A))
    assert [s.event for s in stored] == log
    # A seat's stream: no header deal, no other seat's hand, the public commitment.
    seat0 = [
        s.event
        for s in stub.StreamEvents(R.StreamEventsRequest(game_id=game_id, seat=0), metadata=A)
    ]
    assert "deal" not in json.loads(seat0[0].data_json)
    assert all(
        e.envelope.visibility != common_pb2.VISIBILITY_SEAT or e.envelope.seat == 0 for e in seat0
    )
    totals = stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="p0"), metadata=W)
    assert totals.last_score == answer.settlement.scores[0]


def test_events_of_one_game_cannot_be_stored_under_another_id(replay: Running, engine: Any) -> None:
    stub = replay.stub
    new = engine.NewGame(E.NewGameRequest(variant="ddz3", deal=E.Deal(seed="s"), game_id="own"))
    code, reason, _, _ = refused(
        stub.AppendEvents,
        R.AppendEventsRequest(game_id="other", events=new.events, request_id="m/0"),
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_EVENT")
    # Re-addressed (envelopes cleared): the header names its game, and the deal commits to it.
    moved = []
    for e in new.events:
        copy = common_pb2.Event()
        copy.CopyFrom(e)
        copy.envelope.ClearField("game_id")
        moved.append(copy)
    code, reason, _, fields = refused(
        stub.AppendEvents, R.AppendEventsRequest(game_id="other", events=moved, request_id="m/1")
    )
    assert (code, reason, fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_HEADER",
        ["events[0].data_json.game_id"],
    )
    header = json.loads(moved[0].data_json)
    del header["game_id"]
    moved[0].data_json = json.dumps(header)
    code, reason, info, _ = refused(
        stub.AppendEvents, R.AppendEventsRequest(game_id="other", events=moved, request_id="m/2")
    )
    assert (code, reason, info["why"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "EVENT_MISMATCH",
        "COMMITMENT_MISMATCH",
    )


# --------------------------------------------------------------------------- limits
NUL = "a\x00b"


def test_ids_outside_the_limits_are_refused_before_any_sql(replay: Running) -> None:
    """PostgreSQL text cannot hold NUL and its INTEGER stops at 2^31-1: each of these gave
    INTERNAL or UNKNOWN (with the SQL in the message) before the limits."""
    stub = replay.stub
    parts = batches(record(seed="l/1", players=PLAYERS), "l")
    append(stub, "l", 0, parts[0], "l/0")
    header = parts[0][0]
    bad_players = common_pb2.Event()
    bad_players.CopyFrom(header)
    bad_players.envelope.ClearField("game_id")
    bad_players.data_json = json.dumps(
        {**json.loads(header.data_json), "players": ["a", NUL, "c"], "game_id": "l2"}
    )
    actor = common_pb2.Event()
    actor.CopyFrom(parts[1][0])
    actor.envelope.actor = NUL
    typed = common_pb2.Event(type="pl\x00ay", data_json="{}")
    head = len(parts[0])
    cases = [
        (
            stub.AppendEvents,
            R.AppendEventsRequest(game_id=NUL, events=parts[0], request_id="x"),
            "game_id",
        ),
        (
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="l", expected_seq=head, events=parts[1], request_id=NUL),
            "request_id",
        ),
        (
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="l", expected_seq=head, events=[actor], request_id="y"),
            "events[0].envelope.actor",
        ),
        (
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="l", expected_seq=head, events=[typed], request_id="y"),
            "events[0].type",
        ),
        (
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="l2", events=[bad_players], request_id="z"),
            "events[0].data_json.players[1]",
        ),
        (
            stub.AppendEvents,
            R.AppendEventsRequest(
                game_id="l", expected_seq=2**64 - 1, events=parts[1], request_id="y"
            ),
            "expected_seq",
        ),
        (
            stub.AppendEvents,
            R.AppendEventsRequest(game_id="l", expected_seq=2**31, events=parts[1], request_id="y"),
            "expected_seq",
        ),
        (stub.GetGame, R.GetGameRequest(game_id=NUL), "game_id"),
        (stub.VerifyGame, R.VerifyGameRequest(game_id="l\n"), "game_id"),
        (stub.ListGames, R.ListGamesRequest(player_id=NUL), "player_id"),
        (stub.ListGames, R.ListGamesRequest(variant=NUL), "variant"),
        (stub.GetPlayerStats, R.GetPlayerStatsRequest(player_id=NUL), "player_id"),
        (stub.ImportGame, R.ImportGameRequest(record_json="{}", game_id=NUL), "game_id"),
    ]
    for fn, request, field in cases:
        code, _reason, _, fields = refused(fn, request)
        assert (code, fields) == (grpc.StatusCode.INVALID_ARGUMENT, [field]), (request, fields)
    for from_seq in (2**31, 2**63, 2**64 - 1):
        code, _reason, _, fields = refused(
            lambda r, **kw: list(stub.StreamEvents(r, **kw)),
            R.StreamEventsRequest(game_id="l", from_seq=from_seq),
        )
        assert (code, fields) == (grpc.StatusCode.INVALID_ARGUMENT, ["from_seq"])
    # The largest valid from_seq streams nothing, and the game is unchanged.
    assert (
        list(stub.StreamEvents(R.StreamEventsRequest(game_id="l", from_seq=2**31 - 1), metadata=W))
        == []
    )
    assert stub.GetGame(R.GetGameRequest(game_id="l"), metadata=W).game.head_seq == head


# --------------------------------------------------------------------------- logs
class _Lines(logging.Handler):
    """The structured log lines of this process (structlog hands the stdlib its event dict)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.msg, dict):
            self.lines.append(dict(record.msg))

    def last(self, event: str, **match: Any) -> dict[str, Any]:
        """The last line of ``event`` with ``match``, waiting a little: the server logs a call
        once it has answered it."""
        deadline = time.monotonic() + 5
        while True:
            found = [
                x
                for x in self.lines
                if x.get("event") == event and all(x.get(k) == v for k, v in match.items())
            ]
            if found or time.monotonic() > deadline:
                assert found, (event, match, self.lines[-5:])
                return found[-1]
            time.sleep(0.01)


def test_refusals_and_failed_streams_are_logged_with_their_status(db_url: str) -> None:
    upgrade(db_url)
    running = start_server(db_url, access_log=True)
    root = logging.getLogger()
    logs, level = _Lines(), root.level
    root.addHandler(logs)
    root.setLevel(logging.INFO)
    try:
        stub = running.stub
        parts = batches(record(seed="g/1"), "logged")
        append(stub, "logged", 0, parts[0], "lg/0")
        zzz = common_pb2.Event(type="game_over", data_json="{}")
        refused(
            stub.AppendEvents,
            R.AppendEventsRequest(
                game_id="logged", expected_seq=len(parts[0]), events=[zzz], request_id="lg/1"
            ),
        )
        line = logs.last("rpc", code="FAILED_PRECONDITION")
        assert (line["reason"], line["game_id"]) == ("EVENT_MISMATCH", "logged")
        refused(
            lambda r, **kw: list(stub.StreamEvents(r, **kw)), R.StreamEventsRequest(game_id="nope")
        )
        line = logs.last("rpc", code="NOT_FOUND")  # streams log like every call
        assert (line["code"], line["reason"], line["game_id"]) == (
            "NOT_FOUND",
            "GAME_NOT_FOUND",
            "nope",
        )
        # A stream the database fails: the caller gets a status without SQL, the log the same.
        from sqlalchemy import text

        with running.servicer.store.engine.begin() as conn:
            conn.execute(text("DROP TABLE events"))
        code, _reason, _, _ = refused(
            lambda r, **kw: list(stub.StreamEvents(r, **kw)),
            R.StreamEventsRequest(game_id="logged"),
        )
        assert code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE)
        assert logs.last("rpc", code=code.name, game_id="logged")
    finally:
        root.removeHandler(logs)
        root.setLevel(level)
        stop_server(running)


# --------------------------------------------------------------------------- envelopes
@pytest.mark.parametrize(
    ("name", "seconds", "nanos"),
    [
        ("server_time", 2**62, 0),
        ("server_time", -(2**62), 0),
        ("server_time", 0, 2 * 10**9),
        ("turn_deadline", -(2**62), 0),
        ("turn_deadline", 253_402_300_800, 0),  # 10000-01-01
        ("turn_deadline", 0, -1),
    ],
)
def test_a_time_outside_protobufs_range_is_refused_by_name(
    replay: Running, name: str, seconds: int, nanos: int
) -> None:
    """The probe's INTERNAL (server_time 2^62 reached ToDatetime) and its stored deadline of
    −2^62, which VerifyGame passed and then broke StreamEvents for every reader."""
    parts = batches(record(seed="t/1"), "t")
    events = [common_pb2.Event(), *parts[0][1:]]
    events[0].CopyFrom(parts[0][0])
    stamp = getattr(events[1].envelope, name)
    stamp.seconds, stamp.nanos = seconds, nanos
    request = R.AppendEventsRequest(game_id="t", expected_seq=0, events=events, request_id="t/0")
    code, reason, _, fields = refused(replay.stub.AppendEvents, request)
    field = "nanos" if nanos else "seconds"
    assert (code, reason, fields) == (
        grpc.StatusCode.INVALID_ARGUMENT, "BAD_EVENT", [f"events[1].envelope.{name}.{field}"]
    )  # fmt: skip
    # The edges themselves are times, and a game that holds them streams to every reader.
    stamp.seconds, stamp.nanos = (253_402_300_799, 999_999_999) if seconds > 0 else (
        -62_135_596_800, 0)  # fmt: skip
    append(replay.stub, "t", 0, events, "t/1")
    streamed = list(replay.stub.StreamEvents(R.StreamEventsRequest(game_id="t"), metadata=W))
    assert len(streamed) == len(events)


@pytest.mark.parametrize("seat", [0, 2, 9, -1, 2**31 - 1])
def test_a_public_event_that_names_a_seat_is_refused(replay: Running, seat: int) -> None:
    """It was stored with the seat silently dropped."""
    parts = batches(record(seed="s/1"), "s")
    events = list(parts[0])
    public = next(i for i, e in enumerate(events) if e.envelope.visibility == 1)
    bad = common_pb2.Event()
    bad.CopyFrom(events[public])
    bad.envelope.seat = seat
    events[public] = bad
    request = R.AppendEventsRequest(game_id="s", expected_seq=0, events=events, request_id="s/0")
    code, reason, _, fields = refused(replay.stub.AppendEvents, request)
    assert (code, reason, fields) == (
        grpc.StatusCode.INVALID_ARGUMENT, "NO_SUCH_SEAT", [f"events[{public}].envelope.seat"]
    )  # fmt: skip


def test_the_engine_refuses_a_deadline_it_would_echo_out_of_range(
    engine: engine_pb2_grpc.EngineServiceStub,
) -> None:
    game = engine.NewGame(E.NewGameRequest(variant="ddz3", deal=E.Deal(seed="d/1")), timeout=10)
    request = E.ApplyRequest(state=game.state, action=E.Action(timeout=True))
    request.turn_deadline.seconds = -(2**62)
    code, reason, _, fields = refused(engine.Apply, request, metadata=None)
    assert (code, reason, fields) == (
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD", ["turn_deadline.seconds"]
    )  # fmt: skip


def test_the_last_game_is_the_one_that_ended_last_not_the_last_to_arrive(
    replay: Running,
) -> None:
    """Two matchmakers deliver their games' ends in any order: GetPlayerStats named an
    earlier game for 11 of 40 players.  The game_over's own time decides."""
    stub = replay.stub
    ends = {"late": 1_800_000_100, "early": 1_800_000_000}
    scores = {}
    for game_id in ("late", "early"):  # the later end arrives first
        parts = batches(record(seed=f"end/{game_id}", players=PLAYERS), game_id)
        over = parts[-1][-1]
        assert over.type == "game_over"
        over.envelope.server_time.seconds = ends[game_id]
        seq = 0
        for i, batch in enumerate(parts):
            seq = append(stub, game_id, seq, batch, f"{game_id}/{i}").last_seq
        scores[game_id] = json.loads(over.data_json)["settlement"]["scores"][0]
    stats = stub.GetPlayerStats(R.GetPlayerStatsRequest(player_id="alice"), metadata=W)
    assert (stats.last_game_id, stats.last_score) == ("late", scores["late"])
    (total,) = stats.totals
    assert (total.games, total.total, total.last_game_id) == (2, sum(scores.values()), "late")
