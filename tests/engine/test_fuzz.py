"""Malformed and random messages never make the server answer INTERNAL or UNKNOWN.

Hypothesis builds requests field by field (random text, cards, seats, JSON, tokens, and
bytes that may not even parse as the message), sends them to the real server, and accepts
only OK, INVALID_ARGUMENT or FAILED_PRECONDITION.  Kept small: the suite must stay fast.
"""

from __future__ import annotations

from typing import Any

import grpc
from cardroom.v1 import common_pb2, engine_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ALLOWED = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
}
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

card_text = st.one_of(
    st.text(max_size=12),
    st.lists(
        st.sampled_from(["3s", "4h", "Td", "2c", "As", "BJ", "RJ", "10s", "x", " "]), max_size=8
    ).map(" ".join),
)
variants = st.sampled_from(["ddz3", "doudizhu4", "zsy1", "zhengshangyou2", "", "chess"])
small_int = st.integers(min_value=-(2**31), max_value=2**31 - 1)
json_text = st.one_of(
    st.just(""),
    st.text(max_size=20),
    st.sampled_from(
        [
            '{"min_straight": 6}',
            '{"patterns": [1]}',
            '{"bomb_factors": {"x": 1}}',
            '{"stake": 2}',
            "[]",
            "null",
            '{"players": 3}',
            '{"max_plane": -1}',
        ]
    ),
)
rooms = st.builds(
    common_pb2.Room,
    stake=st.integers(min_value=-5, max_value=10**12),
    overrides_json=json_text,
)
actions = st.builds(
    engine_pb2.Action,
    seat=small_int,
    bid=st.one_of(st.none(), small_int),
    play=st.one_of(
        st.none(), st.builds(engine_pb2.PlayCards, cards=card_text, reading=st.text(max_size=10))
    ),
    timeout=st.one_of(st.none(), st.booleans()),
)
deals = st.one_of(
    st.builds(engine_pb2.Deal, seed=st.text(max_size=10)),
    st.builds(
        engine_pb2.Deal,
        explicit=st.builds(
            engine_pb2.ExplicitDeal, hands=st.lists(card_text, max_size=5), bottom=card_text
        ),
    ),
)


def call(stub: Any, method: str, request: Any) -> grpc.StatusCode:
    try:
        getattr(stub, method)(request, timeout=10)
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


@FUZZ
@given(
    variant=variants,
    cards=card_text,
    reading=st.text(max_size=12),
    last=card_text,
    overrides=json_text,
)
def test_classify(
    stub: Any, variant: str, cards: str, reading: str, last: str, overrides: str
) -> None:
    req = engine_pb2.ClassifyRequest(
        variant=variant, cards=cards, reading=reading, last=last, overrides_json=overrides
    )
    assert call(stub, "Classify", req) in ALLOWED


@FUZZ
@given(
    variant=variants,
    room=rooms,
    deal=deals,
    fb=st.one_of(st.none(), small_int),
    view=st.one_of(st.none(), small_int),
    game_id=st.text(max_size=10),
)
def test_new_game(
    stub: Any, variant: str, room: Any, deal: Any, fb: int | None, view: int | None, game_id: str
) -> None:
    req = engine_pb2.NewGameRequest(
        variant=variant, room=room, deal=deal, first_bidder=fb, view_seat=view, game_id=game_id
    )
    assert call(stub, "NewGame", req) in ALLOWED


@FUZZ
@given(
    action=actions,
    flip=st.integers(min_value=-1, max_value=400),
    seq_shift=st.sampled_from([0, 0, 1]),
    view=st.one_of(st.none(), small_int),
    junk=st.binary(max_size=40),
)
def test_apply_and_friends(
    stub: Any, action: Any, flip: int, seq_shift: int, view: int | None, junk: bytes
) -> None:
    game = stub.NewGame(
        engine_pb2.NewGameRequest(variant="ddz3", deal=engine_pb2.Deal(seed="fuzz")), timeout=10
    ).state
    token = bytearray(game.token)
    if 0 <= flip < len(token):
        token[flip] ^= 0x20
    elif flip >= len(token):
        token = bytearray(junk)
    state = engine_pb2.GameToken(game_id=game.game_id, seq=game.seq + seq_shift, token=bytes(token))
    requests = [
        ("Apply", engine_pb2.ApplyRequest(state=state, action=action, view_seat=view)),
        (
            "ApplyBatch",
            engine_pb2.ApplyBatchRequest(
                requests=[engine_pb2.ApplyRequest(state=state, action=action, view_seat=view)] * 2
            ),
        ),
        ("ListLegalActions", engine_pb2.ListLegalActionsRequest(state=state)),
        ("GetHint", engine_pb2.GetHintRequest(state=state, seat=view)),
        ("GetSeatView", engine_pb2.GetSeatViewRequest(state=state, seat=view)),
    ]
    for method, req in requests:
        assert call(stub, method, req) in ALLOWED, method


@FUZZ
@given(
    raw=st.one_of(
        json_text,
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "variant",
                            "deal",
                            "seed",
                            "actions",
                            "room",
                            "seat",
                            "bid",
                            "play",
                            "first_bidder",
                            "hands",
                        ]
                    ),
                    inner,
                    max_size=4,
                )
            ),
            max_leaves=12,
        ).map(lambda v: __import__("json").dumps(v)),
    )
)
def test_settle(stub: Any, raw: str) -> None:
    assert call(stub, "Settle", engine_pb2.SettleRequest(record_json=raw)) in ALLOWED


@FUZZ
@given(
    method=st.sampled_from(["Classify", "NewGame", "Apply", "ApplyBatch", "Settle", "GetHint"]),
    body=st.binary(max_size=60),
)
def test_raw_bytes(channel: grpc.Channel, method: str, body: bytes) -> None:
    # Bytes that may not parse as the request at all: the server's deserializer refuses them.
    send = channel.unary_unary(f"/cardroom.v1.EngineService/{method}")
    try:
        send(body, timeout=10)
        code = grpc.StatusCode.OK
    except grpc.RpcError as exc:
        code = exc.code()
    assert code in ALLOWED
