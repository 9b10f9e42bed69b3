"""The committed stubs in services/gen are exactly what the protos generate (``make proto``)."""

from __future__ import annotations

from pathlib import Path

from services import protogen


def test_committed_stubs_match_the_protos(tmp_path: Path) -> None:
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in protogen.generate(tmp_path)}
    gen = protogen.GEN_DIR
    committed = {
        p.relative_to(gen): p.read_bytes()
        for p in gen.rglob("*")
        if p.name.endswith(protogen.SUFFIXES)
    }
    assert fresh, "protoc generated nothing"
    stale = sorted(
        str(p) for p in fresh.keys() | committed.keys() if fresh.get(p) != committed.get(p)
    )
    assert not stale, f"services/gen is stale, run `make proto`: {stale}"


def test_generated_modules_import_as_the_proto_path() -> None:
    from cardroom.v1 import common_pb2, engine_pb2, engine_pb2_grpc

    assert engine_pb2.DESCRIPTOR.package == "cardroom.v1"
    assert common_pb2.DESCRIPTOR.name == "cardroom/v1/common.proto"
    assert hasattr(engine_pb2_grpc, "EngineServiceStub")
