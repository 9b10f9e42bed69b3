"""Ping, ListVariants and Classify over a real server, with every error reason they return;
health checking and reflection."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from cardroom.v1 import engine_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services import rules
from services.common import grpc_errors

INVALID = grpc.StatusCode.INVALID_ARGUMENT
FAILED = grpc.StatusCode.FAILED_PRECONDITION


def refused(call: Any, request: Any) -> grpc_errors.ErrorDetails:
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=10)
    return grpc_errors.details(info.value)


def test_ping(stub: Any) -> None:
    assert stub.Ping(engine_pb2.PingRequest(), timeout=10) == engine_pb2.PingResponse()


def test_list_variants_has_every_field_of_every_variant(stub: Any) -> None:
    answer = stub.ListVariants(engine_pb2.ListVariantsRequest(), timeout=10)
    assert [v.name for v in answer.variants] == list(rules.VARIANTS)
    proto_fields = set(engine_pb2.Variant.DESCRIPTOR.fields_by_name)
    for msg in answer.variants:
        described = rules.VARIANTS[msg.name].describe()
        assert set(described) <= proto_fields, "a Variant field is missing from the proto"
        for key, value in described.items():
            got = getattr(msg, key)
            if key == "bomb_factors":
                assert [[b.size, b.factor] for b in got] == value
            elif isinstance(value, list):
                assert list(got) == value
            else:
                assert got == value, key
        assert set(msg.choices) == set(rules.VARIANTS[msg.name].choices())
    ddz3 = answer.variants[0]
    assert "ddz3" in ddz3.aliases and ddz3.rules_version == rules.RULES_VERSION


def test_classify(stub: Any) -> None:
    r = stub.Classify(engine_pb2.ClassifyRequest(variant="ddz3", cards="3s 3h 3d 4c"), timeout=10)
    assert r.cards == "3s3h3d4c"
    assert (r.pattern.kind, r.pattern.rank, r.pattern.reading) == (
        "triple_single",
        "3",
        "triple_single:3",
    )
    r = stub.Classify(
        engine_pb2.ClassifyRequest(
            variant="doudizhu3", cards="3s3h3d4s4h4d5s5h5d6s6h6d", reading="plane_single:5"
        ),
        timeout=10,
    )
    assert r.pattern.reading == "plane_single:5"
    r = stub.Classify(
        engine_pb2.ClassifyRequest(variant="ddz3", cards="5s5h", last="4s4h"), timeout=10
    )
    assert r.pattern.kind == "pair"
    r = stub.Classify(
        engine_pb2.ClassifyRequest(
            variant="ddz3", cards="3s4h5d6c7s8s", overrides_json='{"min_straight": 6}'
        ),
        timeout=10,
    )
    assert r.pattern.kind == "straight"


@pytest.mark.parametrize(
    ("request_fields", "code", "reason", "field"),
    [
        ({"cards": "3s"}, INVALID, "MISSING_FIELD", "variant"),
        ({"variant": "ddz3"}, INVALID, "MISSING_FIELD", "cards"),
        ({"variant": "chess", "cards": "3s"}, INVALID, "UNKNOWN_VARIANT", "variant"),
        ({"variant": "ddz3", "cards": "3x"}, INVALID, "INVALID_CARDS", "cards"),
        ({"variant": "ddz3", "cards": "3s", "last": "zz"}, INVALID, "INVALID_CARDS", "last"),
        ({"variant": "ddz3", "cards": "BJBJ"}, INVALID, "CARDS_NOT_IN_DECK", "cards"),
        ({"variant": "ddz3", "cards": "3s4h"}, INVALID, "NOT_A_PATTERN", "cards"),
        (
            {"variant": "ddz3", "cards": "3s", "reading": "nope"},
            INVALID,
            "NOT_A_PATTERN",
            "reading",
        ),
        ({"variant": "ddz3", "cards": "3s", "last": "3s4h"}, INVALID, "NOT_A_PATTERN", "last"),
        ({"variant": "ddz3", "cards": "3s", "last": "4s"}, FAILED, "DOES_NOT_BEAT", "cards"),
        (
            {"variant": "ddz3", "cards": "3s", "overrides_json": "[1]"},
            INVALID,
            "INVALID_OVERRIDE",
            "overrides_json",
        ),
        (
            {"variant": "ddz3", "cards": "3s", "overrides_json": '{"players": 5}'},
            INVALID,
            "INVALID_OVERRIDE",
            "overrides_json.players",
        ),
        ({"variant": "ddz3", "cards": "3s" * 600}, INVALID, "INVALID_FIELD", "cards"),
    ],
)
def test_classify_errors(
    stub: Any, request_fields: dict[str, str], code: grpc.StatusCode, reason: str, field: str
) -> None:
    err = refused(stub.Classify, engine_pb2.ClassifyRequest(**request_fields))
    assert (err.code, err.reason, err.domain) == (code, reason, "cardroom")
    assert err.fields == [field]


def test_health(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "cardroom.v1.EngineService"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_and_describes_the_service(channel: grpc.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="cardroom.v1.EngineService"),
    ]
    answers = list(stub.ServerReflectionInfo(iter(requests), timeout=10))
    names = {s.name for s in answers[0].list_services_response.service}
    assert {"cardroom.v1.EngineService", "grpc.health.v1.Health"} <= names
    assert answers[1].file_descriptor_response.file_descriptor_proto
