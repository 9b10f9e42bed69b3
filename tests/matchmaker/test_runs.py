"""The engine plays a table's runs (ApplyRequest.run): at a table of a person on auto-play and
bots that do not think, a run of their moves is one engine call, the game is the one replay
verifies, and every move is still said to be the seat's own (its actor and cause)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from cardroom.v1 import common_pb2, engine_pb2, matchmaker_pb2

from .conftest import FAST, Cluster, data, seated, verify, wait_for
from .test_games import Stream, act, enqueue

M = matchmaker_pb2


def engine_applies(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> list[engine_pb2.ApplyRequest]:
    """Every Apply request the running matchmaker sends the engine from now on."""
    runner = cluster.the_runner()
    calls: list[engine_pb2.ApplyRequest] = []
    real = runner.engine.apply

    async def counting(request: engine_pb2.ApplyRequest) -> Any:
        calls.append(request)
        return await real(request)

    monkeypatch.setattr(runner.engine, "apply", counting)
    return calls


@pytest.mark.parametrize("variant", ["doudizhu3", "zhengshangyou2"])
def test_a_table_on_auto_play_moves_in_runs(
    cluster: Cluster, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = engine_applies(cluster, monkeypatch)
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "ann", variant, bot_level="easy").ticket_id)
    ids = {"table_id": ticket.table_id, "player_id": "ann"}
    stream = Stream(stub, ticket.table_id, "ann")
    stub.Ready(M.ReadyRequest(**ids), timeout=10)
    wait_for(lambda: stub.GetTable(M.GetTableRequest(**ids)).game_no == 1)
    act(stub, ticket.table_id, "ann", engine_pb2.Action(autoplay=True))
    wait_for(lambda: "series" in stream.types(), timeout=60)
    stream.close()
    game_id = data(next(e for e in stream.events if e.type == "game_started"))["game_id"]
    moves = [
        e.game_event for e in stream.events
        if e.type == "game" and e.game_event.type in ("bid", "pass", "play", "show_hand")
    ]  # fmt: skip
    runs = [c for c in calls if c.run]
    assert runs and all(not c.HasField("action") for c in runs)
    # Most moves came in runs of several: far fewer engine calls than moves.
    assert len(calls) < len(moves) / 2, (len(calls), len(moves))
    seat = ticket.seats[0]
    mine = [r for c in runs for r in c.run if r.seat == seat]
    assert mine and all(r.actor == "ann" and r.bot == "" for r in mine)
    for e in moves:
        if json.loads(e.data_json)["seat"] == seat:
            assert (e.envelope.actor, e.envelope.cause) in (
                ("ann", common_pb2.CAUSE_AUTOPLAY), ("ann", common_pb2.CAUSE_PLAYER),
            )  # fmt: skip
        else:
            assert e.envelope.cause == common_pb2.CAUSE_BOT
    answer = wait_for(lambda: (v := verify(cluster, game_id)).ok and v, timeout=20)
    over = data(next(e for e in stream.events if e.type == "game_over"))
    assert json.loads(answer.settlement_json)["scores"] == over["scores"]


def test_with_runs_off_every_move_is_chosen_here(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster.stop_mm()
    cluster.runner = dataclasses.replace(FAST, engine_runs=False)
    cluster.start_mm()
    calls = engine_applies(cluster, monkeypatch)
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "bea", "doudizhu3", bot_level="easy").ticket_id)
    ids = {"table_id": ticket.table_id, "player_id": "bea"}
    stub.Ready(M.ReadyRequest(**ids), timeout=10)
    wait_for(lambda: stub.GetTable(M.GetTableRequest(**ids)).game_no == 1)
    act(stub, ticket.table_id, "bea", engine_pb2.Action(autoplay=True))
    wait_for(
        lambda: stub.GetTable(M.GetTableRequest(**ids)).state != M.TABLE_STATE_PLAYING,
        timeout=60,
    )
    assert len(calls) > 20 and not any(c.run for c in calls)
    assert all(c.HasField("action") for c in calls)
