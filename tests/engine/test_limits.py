"""The engine refuses ids and causes outside services/common/limits.py — the same limits the
replay store applies — so every game the engine deals can be stored."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from cardroom.v1 import engine_pb2

from services.common.grpc_errors import details


def refused(fn: Any, request: Any) -> Any:
    with pytest.raises(grpc.RpcError) as info:
        fn(request, timeout=10)
    return details(info.value)


def new_game(**kw: Any) -> engine_pb2.NewGameRequest:
    return engine_pb2.NewGameRequest(variant="ddz3", deal=engine_pb2.Deal(seed="s"), **kw)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"game_id": "g" * 65}, "game_id"),
        ({"game_id": "g" * 60 + "\x00\n" * 34}, "game_id"),  # the 128-character repro
        ({"game_id": "a\x00b"}, "game_id"),
        ({"game_id": "line\nbreak"}, "game_id"),
        ({"game_id": "   "}, "game_id"),
        ({"actor": "x\x00"}, "actor"),
        ({"actor": "p" * 129}, "actor"),
        ({"players": ["alice", "b\x00b", "carol"]}, "players[1]"),
        ({"players": ["alice", "bob"]}, "players"),
        ({"table": engine_pb2.TableRef(id="t\x00")}, "table.id"),
        ({"table": engine_pb2.TableRef(id="t", game_no=2**31)}, "table.game_no"),
    ],
)
def test_new_game_refuses_what_the_store_cannot_hold(
    stub: Any, fields: dict[str, Any], field: str
) -> None:
    err = refused(stub.NewGame, new_game(**fields))
    assert err.code == grpc.StatusCode.INVALID_ARGUMENT
    assert err.fields == [field]


def test_the_longest_valid_ids_are_accepted(stub: Any) -> None:
    r = stub.NewGame(
        new_game(game_id="g" * 64, actor="a" * 128, players=["p" * 128, "bot:x", "春天"]),
        timeout=10,
    )
    assert r.state.game_id == "g" * 64


def test_apply_refuses_an_unknown_cause_and_a_bad_actor(stub: Any) -> None:
    state = stub.NewGame(new_game(), timeout=10).state
    action = engine_pb2.Action(seat=0, leave=True)
    err = refused(stub.Apply, engine_pb2.ApplyRequest(state=state, action=action, cause=99))
    assert (err.code, err.fields) == (grpc.StatusCode.INVALID_ARGUMENT, ["cause"])
    err = refused(stub.Apply, engine_pb2.ApplyRequest(state=state, action=action, actor="\x00"))
    assert (err.code, err.fields) == (grpc.StatusCode.INVALID_ARGUMENT, ["actor"])
    ok = stub.Apply(engine_pb2.ApplyRequest(state=state, action=action, cause=4), timeout=10)
    assert ok.events[0].envelope.cause == 4
