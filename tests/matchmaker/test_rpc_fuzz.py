"""Every RPC of the three services, fuzzed from the proto descriptors: no request ever gets
INTERNAL or UNKNOWN, no server logs a traceback, no unary call takes over 10 s.

The requests are built by hypothesis from each method's input message descriptor, field by
field: integers at and past every width's edges, strings with NUL bytes and control
characters, long and empty, unknown enum numbers, Timestamps outside protobuf's range, blank
and deeply nested JSON in every ``*_json`` field, real ids and tokens of a game and a table
that exist (so requests reach past the first check), and reused request ids.  Raw bodies that
are not protobuf, or hold bytes that are not UTF-8 in a string field, go to every method too.
A new RPC or field is covered without editing this file.  Real servers (the engine, replay
and the matchmaker, in this process) on SQLite, and on PostgreSQL when CARDROOM_TEST_PG_URL
is set."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor as D
from google.protobuf import message_factory
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.common.wire import (
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    matchmaker_pb2,
    replay_pb2,
    replay_pb2_grpc,
)

from .conftest import SHORT, Cluster, seated

#: Examples per RPC: with 31 RPCs, two strategies each, about 2,300 calls per backend.
EXAMPLES = 60
RAW_EXAMPLES = 15
UNARY_TIMEOUT_S = 10.0
STREAM_TIMEOUT_S = 1.0
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}

SERVICES = [
    svc
    for module in (engine_pb2, replay_pb2, matchmaker_pb2)
    for svc in module.DESCRIPTOR.services_by_name.values()
]
METHODS = [m for svc in SERVICES for m in svc.methods]

INT_EDGES = {
    D.FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    D.FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    D.FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    D.FieldDescriptor.TYPE_ENUM: (-(2**31), 2**31 - 1),
    D.FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    D.FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    D.FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    D.FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    D.FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    D.FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    D.FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
TEXT_EDGES = ["", " ", "\x00", "a\x00b", "\n", "é" * 70, "x" * 129, "x" * 5000, "春天", "bot:x"]
JSON_EDGES = [
    "", " ", "\n\t ", "{}", "[]", "null", "{", '"x"', "1e999", "9" * 5000,
    "[" * 5000, '{"a":' * 3000, '{"min_straight": 99}', '{"stake": 1}', '{"seat": 0}',
    '{"variant": "ddz3", "deal": {"seed": "x"}}', "\x00",
]  # fmt: skip
REQUEST_IDS = ["r1", "r2", "r3"]  # few, so examples reuse them with other bodies
VARIANTS = ["ddz3", "doudizhu4", "zsy1", "zhengshangyou2", "chess", ""]
CARDS = ["3s", "3s3h", "BJRJ", "3s3h3d4c", "3x", "2s2h2c2d", "RJRJRJ"]


@dataclass
class Pools:
    """Real values of a game and a table that exist, by field name and by message type."""

    strings: dict[str, list[str]] = field(default_factory=dict)
    messages: dict[str, list[Message]] = field(default_factory=dict)

    def add(self, name: str, value: str) -> None:
        self.strings.setdefault(name, []).append(value)


def _timestamps() -> st.SearchStrategy[Any]:
    seconds = st.one_of(
        st.sampled_from([0, -62_135_596_800, 253_402_300_799, 2**62, -(2**62), 2**63 - 1]),
        st.integers(-(2**63), 2**63 - 1),
        st.just(int(time.time())),
    )
    nanos = st.one_of(
        st.sampled_from([0, 999_999_999, 10**9, -1]), st.integers(-(2**31), 2**31 - 1)
    )
    return st.tuples(seconds, nanos)


def _scalar(f: D.FieldDescriptor, pools: Pools) -> st.SearchStrategy[Any]:
    t = f.type
    if t in INT_EDGES:
        lo, hi = INT_EDGES[t]
        edges = [0, 1, -1, 2, 3, lo, hi, lo + 1, hi - 1, 2**53 + 1]
        if t == D.FieldDescriptor.TYPE_ENUM:
            edges += [v.number for v in f.enum_type.values] + [99]
        return st.one_of(st.sampled_from([e for e in edges if lo <= e <= hi]), st.integers(lo, hi))
    if t == D.FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if t in (D.FieldDescriptor.TYPE_DOUBLE, D.FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=True, allow_infinity=True, width=32)
    if t == D.FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=80)
    # strings
    name = f.name
    options: list[st.SearchStrategy[str]] = [
        st.sampled_from(TEXT_EDGES),
        st.text(st.characters(blacklist_categories=["Cs"]), max_size=40),
    ]
    if name.endswith("_json"):
        options.append(st.sampled_from(JSON_EDGES))
    if name == "request_id":
        options.append(st.sampled_from(REQUEST_IDS))
    if name == "variant":
        options.append(st.sampled_from(VARIANTS))
    if name in ("cards", "hand", "last"):
        options.append(st.sampled_from(CARDS))
    if pools.strings.get(name):
        options.append(st.sampled_from(pools.strings[name]))
    return st.one_of(*options)


def message_of(desc: D.Descriptor, pools: Pools, depth: int = 0) -> st.SearchStrategy[Message]:
    """Requests of ``desc``: each field unset or drawn from its type's edges; real messages
    of this type (a live game's token) now and then."""
    cls = message_factory.GetMessageClass(desc)
    if desc.full_name == "google.protobuf.Timestamp":
        return _timestamps().map(lambda sn: cls(seconds=sn[0], nanos=sn[1]))
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for f in desc.fields:
        if f.type == D.FieldDescriptor.TYPE_MESSAGE:
            if depth >= 3:
                continue
            one = message_of(f.message_type, pools, depth + 1)
        else:
            one = _scalar(f, pools)
        many = f.is_repeated
        fields[f.name] = st.one_of(st.none(), st.lists(one, max_size=3) if many else one)

    def build(values: dict[str, Any]) -> Message:
        msg = cls()
        for name, value in values.items():
            if value is None:
                continue
            target = getattr(msg, name) if hasattr(msg, name) else None
            f = desc.fields_by_name[name]
            if f.is_repeated:
                if f.type == D.FieldDescriptor.TYPE_MESSAGE:
                    for v in value:
                        target.add().CopyFrom(v)  # type: ignore[union-attr]
                else:
                    target.extend(value)  # type: ignore[union-attr]
            elif f.type == D.FieldDescriptor.TYPE_MESSAGE:
                getattr(msg, name).CopyFrom(value)
            else:
                setattr(msg, name, value)
        return msg

    generated = st.fixed_dictionaries(fields).map(build)
    real = pools.messages.get(desc.full_name)
    if not real:
        return generated
    changed = mutated(desc, real, pools, depth)
    return st.one_of(generated, st.sampled_from(real), changed, changed, changed)


def mutated(
    desc: D.Descriptor, real: list[Message], pools: Pools, depth: int
) -> st.SearchStrategy[Message]:
    """A real message with one field, at any depth, replaced by a generated value: a real
    game header with a deadline of -2^62, a real append with a seat on a public event."""

    @st.composite
    def draw(data: st.DrawFn) -> Message:
        msg = data(st.sampled_from(real))
        out = type(msg)()
        out.CopyFrom(msg)
        target, target_desc = out, desc
        while True:
            f = data(st.sampled_from(list(target_desc.fields)))
            many = f.is_repeated
            # Mostly deeper: the checks worth reaching sit at the leaves (an event's times).
            deeper = data(st.integers(0, 3)) > 0
            if f.type == D.FieldDescriptor.TYPE_MESSAGE and deeper:
                items = getattr(target, f.name)
                if many and len(items):
                    target = items[data(st.integers(0, len(items) - 1))]
                elif not many:
                    target = getattr(target, f.name)
                else:
                    break
                target_desc = f.message_type
                continue
            break
        target.ClearField(f.name)
        if f.type == D.FieldDescriptor.TYPE_MESSAGE:
            value = data(message_of(f.message_type, Pools(pools.strings), depth + 1))
            if many:
                getattr(target, f.name).add().CopyFrom(value)
            else:
                getattr(target, f.name).CopyFrom(value)
        else:
            value = data(_scalar(f, pools))
            if many:
                getattr(target, f.name).append(value)
            else:
                setattr(target, f.name, value)
        return out

    return draw()


def raw_bodies(desc: D.Descriptor) -> st.SearchStrategy[bytes]:
    """Bodies that are not protobuf, or that hold bytes that are not UTF-8 in a string
    field (which no client library will build, but a hand-made client can send)."""
    bad_utf8 = [
        bytes([(f.number << 3) | 2 if f.number < 16 else 0x0A, 3, 0xFF, 0xFE, 0x00])
        for f in desc.fields
        if f.type == D.FieldDescriptor.TYPE_STRING and f.number < 16
    ]
    options = [st.binary(max_size=120), st.sampled_from([b"\xff" * 10, b"\x0a\xff", b"\x08"])]
    if bad_utf8:
        options.append(st.sampled_from(bad_utf8))
    return st.one_of(*options)


class LogCatcher(logging.Handler):
    """Every log record of the servers that carries a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.tracebacks: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info or "Traceback" in text:
            self.tracebacks.append(f"{record.name}: {text[:500]}")


@pytest.fixture
def caught() -> Iterator[LogCatcher]:
    catcher = LogCatcher()
    root = logging.getLogger()
    root.addHandler(catcher)
    yield catcher
    root.removeHandler(catcher)


def _pools(cluster: Cluster) -> Pools:
    """A finished game in replay (the engine's NewGame and timeouts, appended as they came)
    and a table with a seated player: their ids and the game's token, for the fuzzer."""
    pools = Pools()
    engine_channel = grpc.insecure_channel(cluster.engine_target)
    cluster.channels.append(engine_channel)
    engine = engine_pb2_grpc.EngineServiceStub(engine_channel)
    replay: replay_pb2_grpc.ReplayServiceStub = cluster.replay()
    game = engine.NewGame(engine_pb2.NewGameRequest(
        variant="ddz3", deal=engine_pb2.Deal(seed="fuzz"), game_id="fuzz-game",
        players=["fuzz-a", "fuzz-b", "fuzz-c"]), timeout=10)  # fmt: skip
    pools.messages[game.state.DESCRIPTOR.full_name] = [game.state]
    first = replay_pb2.AppendEventsRequest(
        game_id="fuzz-game", expected_seq=0, events=game.events, request_id="fuzz-0"
    )
    replay.AppendEvents(first, timeout=10)
    unstored = engine.NewGame(
        engine_pb2.NewGameRequest(
            variant="zsy1", deal=engine_pb2.Deal(seed="fuzz"), game_id="fuzz-new"
        ),
        timeout=10,
    )
    new_game = replay_pb2.AppendEventsRequest(
        game_id="fuzz-new", expected_seq=0, events=unstored.events, request_id="fuzz-new"
    )
    pools.messages[first.DESCRIPTOR.full_name] = [new_game]
    pools.messages[common_pb2.Event.DESCRIPTOR.full_name] = list(game.events)  # fmt: skip
    state, seq, i = game.state, len(game.events), 0
    while True:
        i += 1
        turn = engine.ListLegalActions(
            engine_pb2.ListLegalActionsRequest(state=state), timeout=10
        ).seat
        action = engine_pb2.Action(seat=turn, timeout=True)
        step = engine.Apply(engine_pb2.ApplyRequest(state=state, action=action), timeout=10)
        replay.AppendEvents(replay_pb2.AppendEventsRequest(
            game_id="fuzz-game", expected_seq=seq, events=step.events,
            request_id=f"fuzz-{i}"), timeout=10)  # fmt: skip
        state, seq = step.state, seq + len(step.events)
        if step.game_over:
            break
    pools.messages[state.DESCRIPTOR.full_name].append(state)
    stub = cluster.mm()
    ticket = seated(stub, stub.Enqueue(matchmaker_pb2.EnqueueRequest(
        player_id="fuzz-a", variant="ddz3", bot_fill_after_ms=0, timers=SHORT),
        timeout=10).ticket_id)  # fmt: skip
    queued = stub.Enqueue(matchmaker_pb2.EnqueueRequest(
        player_id="fuzz-q", variant="zsy2", bot_fill_after_ms=-1), timeout=10)  # fmt: skip
    for name, values in {
        "game_id": ["fuzz-game"],
        "table_id": [ticket.table_id],
        "ticket_id": [ticket.ticket_id, queued.ticket_id],
        "player_id": ["fuzz-a", "fuzz-q", "fuzz-b"],
    }.items():
        for value in values:
            pools.add(name, value)
    pools.messages[common_pb2.Room.DESCRIPTOR.full_name] = [common_pb2.Room(stake=1)]
    return pools


def _caller(channel: grpc.Channel, method: D.MethodDescriptor) -> Callable[[bytes], None]:
    path = f"/{method.containing_service.full_name}/{method.name}"
    same = {"request_serializer": None, "response_deserializer": None}
    if method.server_streaming:
        stream = channel.unary_stream(path, **same)

        def call_stream(body: bytes) -> None:
            try:
                for n, _ in enumerate(stream(body, timeout=STREAM_TIMEOUT_S)):
                    if n >= 50:
                        break
            except grpc.RpcError as exc:
                code = exc.code()  # type: ignore[attr-defined]
                assert code not in FORBIDDEN, f"{path}: {code} {exc.details()}"  # type: ignore[attr-defined]

        return call_stream
    unary = channel.unary_unary(path, **same)

    def call(body: bytes) -> None:
        try:
            unary(body, timeout=UNARY_TIMEOUT_S)
        except grpc.RpcError as exc:
            code = exc.code()  # type: ignore[attr-defined]
            assert code not in FORBIDDEN, f"{path}: {code} {exc.details()}"  # type: ignore[attr-defined]
            assert code != grpc.StatusCode.DEADLINE_EXCEEDED, f"{path} hung for 10 s"

    return call


def test_no_rpc_answers_internal_or_logs_a_traceback(cluster: Cluster, caught: LogCatcher) -> None:
    pools = _pools(cluster)
    targets = {
        "cardroom.v1.EngineService": cluster.engine_target,
        "cardroom.v1.ReplayService": f"127.0.0.1:{cluster.replay_port}",
        "cardroom.v1.MatchmakerService": cluster.mm_server.target,  # type: ignore[union-attr]
    }
    assert set(targets) == {svc.full_name for svc in SERVICES}
    quick = settings(
        max_examples=EXAMPLES, deadline=None, database=None,
        suppress_health_check=list(HealthCheck),
    )  # fmt: skip
    raw = settings(quick, max_examples=RAW_EXAMPLES)
    calls = 0

    def fuzz_method(method: D.MethodDescriptor) -> None:
        channel = grpc.insecure_channel(targets[method.containing_service.full_name])
        cluster.channels.append(channel)
        call = _caller(channel, method)

        @quick
        @given(message_of(method.input_type, pools))
        def fuzz(request: Message) -> None:
            nonlocal calls
            calls += 1
            call(request.SerializeToString())

        @raw
        @given(raw_bodies(method.input_type))
        def fuzz_raw(body: bytes) -> None:
            nonlocal calls
            calls += 1
            call(body)

        fuzz()
        fuzz_raw()

    for method in METHODS:
        fuzz_method(method)
        assert not caught.tracebacks, (method.full_name, caught.tracebacks[:3])
    assert len(METHODS) >= 30 and calls >= len(METHODS) * RAW_EXAMPLES
    print(f"rpc fuzz: {calls} requests to {len(METHODS)} RPCs")
