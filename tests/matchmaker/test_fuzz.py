"""Malformed and random requests never make the matchmaker answer INTERNAL or UNKNOWN: every
RPC, streams included, with random ids, variants, rooms, timers, parties, actions and bodies
that do not even parse."""

from __future__ import annotations

from typing import Any

import grpc
from cardroom.v1 import common_pb2, engine_pb2, matchmaker_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import Cluster

M = matchmaker_pb2
BAD = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
ids = st.one_of(
    st.text(max_size=8), st.text(min_size=120, max_size=140), st.sampled_from(["\x00", " ", "a"])
)
big = st.integers(min_value=-(2**62), max_value=2**62)
variants = st.sampled_from(["ddz3", "doudizhu4", "zsy1", "zhengshangyou2", "", "chess"])
rooms = st.builds(
    common_pb2.Room,
    stake=st.integers(min_value=-5, max_value=10**12),
    overrides_json=st.sampled_from(
        ["", "{}", "[]", "x", '{"turn_timeout_s": 0}', '{"min_straight": 6}', '{"stake": 2}']
    ),
)
timers = st.builds(
    M.Timers,
    bid_ms=st.one_of(st.none(), big),
    turn_ms=st.one_of(st.none(), big),
    bot_think_ms=st.one_of(st.none(), big),
)
enqueues = st.builds(
    M.EnqueueRequest,
    player_id=ids,
    variant=variants,
    room=rooms,
    bot_fill_after_ms=st.one_of(st.none(), big),
    bot_level=st.one_of(st.just(""), ids),
    party=st.lists(ids, max_size=4),
    private_code=st.one_of(st.just(""), ids),
    timers=timers,
    request_id=st.one_of(st.just(""), ids),
)
actions = st.builds(
    engine_pb2.Action,
    seat=st.integers(-3, 5),
    bid=st.one_of(st.none(), st.integers(-2, 5)),
    play=st.one_of(st.none(), st.builds(engine_pb2.PlayCards, cards=st.text(max_size=6))),
    leave=st.one_of(st.none(), st.booleans()),
)


def code(fn: Any, request: Any, stream: bool = False) -> grpc.StatusCode:
    try:
        if stream:
            for _ in fn(request, timeout=0.5):
                pass
        else:
            fn(request, timeout=10)
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


@FUZZ
@given(request=enqueues)
def test_enqueue(cluster: Cluster, request: M.EnqueueRequest) -> None:
    assert code(cluster.mm().Enqueue, request) not in BAD


@FUZZ
@given(table=ids, player=ids, action=st.one_of(st.none(), actions), seq=st.one_of(st.none(), big))
def test_table_calls(
    cluster: Cluster, table: str, player: str, action: Any, seq: int | None
) -> None:
    stub = cluster.mm()
    act = M.ActRequest(table_id=table, player_id=player, action=action)
    if seq is not None and seq >= 0:
        act.expected_seq = seq
    assert code(stub.Act, act) not in BAD
    for fn, req in [
        (stub.GetTable, M.GetTableRequest(table_id=table, player_id=player)),
        (stub.Ready, M.ReadyRequest(table_id=table, player_id=player)),
        (stub.GetHint, M.HintRequest(table_id=table, player_id=player)),
        (stub.LeaveTable, M.LeaveTableRequest(table_id=table, player_id=player)),
        (stub.GetTicket, M.GetTicketRequest(ticket_id=table)),
        (stub.CancelTicket, M.CancelTicketRequest(ticket_id=table)),
        (stub.ListTables, M.ListTablesRequest(variant=player[:10], state=len(table) % 5)),
    ]:
        assert code(fn, req) not in BAD
    for subscribe in (stub.Subscribe, stub.SubscribeBatched):
        assert code(subscribe, M.SubscribeRequest(table_id=table, player_id=player),
                    stream=True) not in BAD  # fmt: skip
    assert code(stub.WatchTicket, M.GetTicketRequest(ticket_id=table), stream=True) not in BAD


@FUZZ
@given(body=st.binary(max_size=40))
def test_bodies_that_do_not_parse(cluster: Cluster, body: bytes) -> None:
    assert cluster.mm_server is not None
    with grpc.insecure_channel(cluster.mm_server.target) as ch:
        for method, stream in [("Enqueue", False), ("Act", False), ("Subscribe", True),
                               ("SubscribeBatched", True), ("WatchTicket", True),
                               ("GetPlayer", False)]:  # fmt: skip
            path = f"/cardroom.v1.MatchmakerService/{method}"
            fn = ch.unary_stream(path) if stream else ch.unary_unary(path)
            assert code(fn, body, stream) not in BAD
