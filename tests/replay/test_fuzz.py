"""Malformed and random requests never make the replay service answer INTERNAL or UNKNOWN, on
either backend (PostgreSQL refuses NUL bytes in text and numbers past its column types: the
service must refuse them first).

Hypothesis builds requests field by field — ids with control characters, sequence numbers at
and past every column's limit, random and corrupted events of a real game, random JSON — and
sends them to a real server.  Kept small: the suite must stay fast.
"""

from __future__ import annotations

import json
from typing import Any

import grpc
from cardroom.v1 import common_pb2, replay_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import Running
from .helpers import WRITER, batches, meta, record

R = replay_pb2
W = meta(WRITER)
ALLOWED = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.ALREADY_EXISTS,
}
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

ids = st.one_of(
    st.sampled_from(["g", "fz", "", "bot:x", "a\x00b", "\n", " ", "g" * 64, "g" * 65, "春天"]),
    st.text(max_size=70),
)
seqs = st.one_of(
    st.sampled_from([0, 1, 2, 5, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1]),
    st.integers(min_value=0, max_value=2**64 - 1),
)
int32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)
json_text = st.one_of(
    st.just(""),
    st.text(max_size=20),
    st.sampled_from(
        [
            "{}",
            "[]",
            "null",
            '{"seat": 0}',
            '{"seat": 0, "amount": 3}',
            '{"seat": 1, "cards": "3s"}',
            '{"settlement": {"status": "finished", "scores": [1000000, -1, -1]}}',
            '{"variant": "ddz3", "deal": {"seed": "x"}}',
            '{"variant": "ddz3", "deal": {"seed": "x\\u0000"}, "players": ["a\\u0000", "b", "c"]}',
            '{"seat": 0, "on": true}',
            "[" * 5000,
        ]
    ),
)
types = st.one_of(
    st.sampled_from(
        ["game_header", "deal", "bid", "pass", "play", "game_over", "leave", "zzz", "p\x00"]
    ),
    st.text(max_size=40),
)
envelopes = st.builds(
    common_pb2.EventEnvelope,
    game_id=ids,
    seq=seqs,
    actor=ids,
    cause=int32,
    visibility=st.integers(min_value=-3, max_value=5),
    seat=st.one_of(st.none(), int32),
)
random_events = st.builds(common_pb2.Event, envelope=envelopes, type=types, data_json=json_text)
GAME = batches(record(seed="fuzz/1", players=["alice", "bob", "bot:carol"]), "fz")


@st.composite
def real_events(draw: st.DrawFn) -> tuple[int, list[common_pb2.Event]]:
    """A batch of the real game at its own expected_seq, perhaps with one field corrupted."""
    k = draw(st.integers(min_value=0, max_value=len(GAME) - 1))
    seq = sum(len(b) for b in GAME[:k])
    batch = []
    for ev in GAME[k]:
        copy = common_pb2.Event()
        copy.CopyFrom(ev)
        batch.append(copy)
    if draw(st.booleans()):
        target = draw(st.sampled_from(batch))
        what = draw(st.sampled_from(["type", "data", "seat", "cause", "visibility", "actor"]))
        if what == "type":
            target.type = draw(types)
        elif what == "data":
            data = json.loads(target.data_json)
            data[draw(st.sampled_from(["seat", "cards", "amount", "x"]))] = draw(
                st.one_of(int32, st.text(max_size=5), st.none())
            )
            target.data_json = json.dumps(data)
        elif what == "seat":
            target.envelope.seat = draw(int32)
        elif what == "cause":
            target.envelope.cause = draw(int32)
        elif what == "visibility":
            target.envelope.visibility = draw(st.integers(min_value=0, max_value=4))
        else:
            target.envelope.actor = draw(ids)
    return seq, batch


def call(fn: Any, request: Any) -> grpc.StatusCode:
    try:
        result = fn(request, metadata=W, timeout=20)
        if not hasattr(result, "ByteSize"):  # a stream
            list(result)
    except grpc.RpcError as exc:
        assert "SELECT" not in (exc.details() or "")  # type: ignore[attr-defined]
        return exc.code()  # type: ignore[attr-defined,no-any-return]
    return grpc.StatusCode.OK


def test_appends_never_fail_inside(replay: Running) -> None:
    stub = replay.stub
    seq = 0
    for i, batch in enumerate(GAME[:3]):  # a running game for the fuzzed appends to meet
        seq = stub.AppendEvents(
            R.AppendEventsRequest(game_id="fz", expected_seq=seq, events=batch, request_id=f"{i}"),
            metadata=W,
        ).last_seq

    @FUZZ
    @given(
        game_id=st.one_of(st.just("fz"), ids),
        request_id=ids,
        expected=st.one_of(st.just(seq), seqs),
        events=st.one_of(
            real_events(), st.tuples(seqs, st.lists(random_events, min_size=0, max_size=4))
        ),
        use_real_seq=st.booleans(),
    )
    def run(
        game_id: str,
        request_id: str,
        expected: int,
        events: tuple[int, list[common_pb2.Event]],
        use_real_seq: bool,
    ) -> None:
        own_seq, batch = events
        request = R.AppendEventsRequest(
            game_id=game_id,
            expected_seq=own_seq if use_real_seq else expected,
            events=batch,
            request_id=request_id,
        )
        assert call(stub.AppendEvents, request) in ALLOWED

    run()
    # Whatever was accepted, the stored game still follows from the rules.
    assert stub.VerifyGame(R.VerifyGameRequest(game_id="fz"), metadata=W).ok


@FUZZ
@given(
    game_id=ids,
    player=ids,
    variant=ids,
    from_seq=seqs,
    seat=st.one_of(st.none(), int32),
    page_token=st.one_of(ids, st.sampled_from(["WyIyMDI2IiwgImFceDAwIl0=", "e30="])),
    page_size=int32,
    status=st.integers(min_value=-1, max_value=9),
    record_json=json_text,
)
def test_reads_and_imports_never_fail_inside(
    replay: Running,
    game_id: str,
    player: str,
    variant: str,
    from_seq: int,
    seat: int | None,
    page_token: str,
    page_size: int,
    status: int,
    record_json: str,
) -> None:
    stub = replay.stub
    requests = [
        (stub.GetGame, R.GetGameRequest(game_id=game_id)),
        (stub.StreamEvents, R.StreamEventsRequest(game_id=game_id, from_seq=from_seq, seat=seat)),
        (
            stub.ListGames,
            R.ListGamesRequest(
                player_id=player,
                variant=variant,
                page_token=page_token,
                page_size=page_size,
                status=status,  # type: ignore[arg-type]
            ),
        ),
        (stub.GetPlayerStats, R.GetPlayerStatsRequest(player_id=player)),
        (stub.VerifyGame, R.VerifyGameRequest(game_id=game_id)),
        (stub.ExportGame, R.ExportGameRequest(game_id=game_id)),
        (stub.AuditEscape, R.AuditEscapeRequest(game_id=game_id)),
        (stub.ImportGame, R.ImportGameRequest(record_json=record_json, game_id=game_id)),
    ]
    for fn, request in requests:
        assert call(fn, request) in ALLOWED, request
