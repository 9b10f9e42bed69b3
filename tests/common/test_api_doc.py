"""docs/api.md's reference tables are the proto comments' (services/apidoc.py): the committed
guide is what they generate, the parser finds every RPC the protos define, and every reason
the code knows is in the guide."""

from __future__ import annotations

import shutil
from pathlib import Path

from services import apidoc
from services.common.reasons import ALL_REASONS
from services.common.wire import engine_pb2, matchmaker_pb2, replay_pb2
from tests.common.test_reasons import DEFAULTS


def test_the_committed_guide_is_what_the_protos_generate() -> None:
    current = apidoc.GUIDE.read_text()
    assert apidoc.render(current, apidoc.read_api()) == current, "run make apidoc"


def test_every_rpc_of_the_protos_is_in_the_table_with_its_types_and_access() -> None:
    defined = {
        (s.name, m.name, m.input_type.name, ("stream " if m.server_streaming else "")
         + m.output_type.name)
        for module in (engine_pb2, matchmaker_pb2, replay_pb2)
        for s in module.DESCRIPTOR.services_by_name.values()
        for m in s.methods
    }  # fmt: skip
    api = apidoc.read_api()
    assert {(r.service, r.name, r.request, r.response) for r in api.rpcs} == defined
    assert all(r.access and r.summary.endswith(".") for r in api.rpcs)


def test_every_reason_is_in_the_guide() -> None:
    api = apidoc.read_api()
    given = {reason for r in api.rpcs for reason in r.reasons}
    assert ALL_REASONS - DEFAULTS - given == set(apidoc.answer_reasons(api))
    assert all(api.codes.get(reason) for reason in given), "a reason without its status code"


def test_a_reason_added_to_a_comment_reaches_the_table(tmp_path: Path) -> None:
    for path in apidoc.PROTO_DIR.glob("*.proto"):
        shutil.copy(path, tmp_path / path.name)
    engine = tmp_path / "engine.proto"
    engine.write_text(
        engine.read_text().replace(
            "  // Errors: none.\n  rpc Ping", "  // Errors: GAME_OVER.\n  rpc Ping", 1
        )
    )
    table = apidoc.error_table(apidoc.read_api(tmp_path))
    row = next(line for line in table.splitlines() if line.startswith("| `GAME_OVER`"))
    assert "Engine.Ping" in row
    assert "Engine.Ping" not in apidoc.error_table(apidoc.read_api())
