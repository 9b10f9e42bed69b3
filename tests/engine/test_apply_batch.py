"""ApplyBatch over a real server: each request answered as Apply answers it alone — its
response, or its refusal with Apply's code, reason and field — in the requests' order, one
request's refusal not the call's; the batch's own limit refused with the field named."""

from __future__ import annotations

from typing import Any

import grpc
from cardroom.v1 import common_pb2, engine_pb2

from .test_basics import refused
from .test_game import act, new_game


def _timeless(events: Any) -> list[common_pb2.Event]:
    out = []
    for e in events:
        copy = common_pb2.Event()
        copy.CopyFrom(e)
        copy.envelope.ClearField("server_time")
        out.append(copy)
    return out


def _same_answer(batch: engine_pb2.ApplyResponse, alone: engine_pb2.ApplyResponse) -> None:
    """Everything but the token's bytes (sealed afresh each call) and the events' server
    time is the same."""
    assert batch.state.game_id == alone.state.game_id and batch.state.seq == alone.state.seq
    assert _timeless(batch.events) == _timeless(alone.events)
    assert batch.public_view == alone.public_view and batch.seat_view == alone.seat_view
    assert batch.game_over == alone.game_over and batch.settlement == alone.settlement


def test_each_request_is_answered_as_apply_answers_it_alone(stub: Any) -> None:
    games = [new_game(stub, seed=f"batch-{i}") for i in range(3)]
    requests = [
        engine_pb2.ApplyRequest(
            state=g.state,
            action=act(g.public_view.turn, timeout=True),
            view_seat=i,
            actor=f"table:{i}",
        )
        for i, g in enumerate(games)
    ]
    out = stub.ApplyBatch(engine_pb2.ApplyBatchRequest(requests=requests), timeout=10)
    assert len(out.results) == 3
    for request, result in zip(requests, out.results, strict=True):
        assert result.WhichOneof("outcome") == "response"
        _same_answer(result.response, stub.Apply(request, timeout=10))
    # The batch's token is as good as Apply's: the game goes on from it.
    first = out.results[0].response
    nxt = stub.Apply(
        engine_pb2.ApplyRequest(
            state=first.state, action=act(first.public_view.turn, timeout=True)
        ),
        timeout=10,
    )
    assert nxt.state.seq > first.state.seq


def test_a_refused_request_is_that_requests_refusal_not_the_calls(stub: Any) -> None:
    game = new_game(stub, seed="batch-refusals")
    turn = game.public_view.turn
    forged = engine_pb2.GameToken(game_id=game.state.game_id, seq=game.state.seq, token=b"x" * 40)
    requests = [
        engine_pb2.ApplyRequest(state=game.state, action=act((turn + 1) % 3, bid=1)),
        engine_pb2.ApplyRequest(state=game.state, action=act(turn, timeout=True)),
        engine_pb2.ApplyRequest(state=forged, action=act(turn, timeout=True)),
        engine_pb2.ApplyRequest(state=game.state),
        engine_pb2.ApplyRequest(state=game.state, action=act(7, timeout=True)),
    ]
    out = stub.ApplyBatch(engine_pb2.ApplyBatchRequest(requests=requests), timeout=10)
    outcomes = [r.WhichOneof("outcome") for r in out.results]
    assert outcomes == ["refusal", "response", "refusal", "refusal", "refusal"]
    for request, result in zip(requests, out.results, strict=True):
        if result.WhichOneof("outcome") != "refusal":
            continue
        alone = refused(stub.Apply, request)
        got = result.refusal
        assert (
            grpc.StatusCode(next(c for c in grpc.StatusCode if c.value[0] == got.code))
            == alone.code
        )
        assert (got.reason, got.message) == (alone.reason, alone.message)
        assert [got.field] == (alone.fields or [""])
    reasons = [r.refusal.reason for r in out.results if r.WhichOneof("outcome") == "refusal"]
    assert reasons == ["NOT_YOUR_TURN", "STATE_TOKEN_INVALID", "MISSING_FIELD", "NO_SUCH_SEAT"]


def test_an_empty_batch_is_answered_and_an_oversized_one_refused(stub: Any) -> None:
    assert stub.ApplyBatch(engine_pb2.ApplyBatchRequest(), timeout=10).results == []
    game = new_game(stub, seed="batch-limit")
    one = engine_pb2.ApplyRequest(state=game.state, action=act(game.public_view.turn, timeout=True))
    err = refused(stub.ApplyBatch, engine_pb2.ApplyBatchRequest(requests=[one] * 257))
    assert err.code == grpc.StatusCode.INVALID_ARGUMENT
    assert (err.reason, err.fields) == ("INVALID_FIELD", ["requests"])
    full = stub.ApplyBatch(engine_pb2.ApplyBatchRequest(requests=[one] * 256), timeout=10)
    assert [r.WhichOneof("outcome") for r in full.results] == ["response"] * 256
