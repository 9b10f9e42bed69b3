"""``cardroom health``: exit 0 when every service asked is SERVING, 1 otherwise, 2 on bad input."""

from __future__ import annotations

import json

import pytest

from services.cli import main
from services.common.migrate import upgrade
from tests.common.test_metrics import free_port
from tests.matchmaker.conftest import Cluster


def test_health_of_the_three_services(
    db_url: str, engine_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade(db_url)
    cluster = Cluster(db_url, engine_target)
    cluster.start_replay()
    cluster.start_mm()
    try:
        assert cluster.mm_server is not None
        args = ["health", "--engine", engine_target, "--replay", f"127.0.0.1:{cluster.replay_port}",
                "--matchmaker", cluster.mm_server.target]  # fmt: skip
        assert main(args) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [(x["service"], x["status"]) for x in lines] == [
            ("engine", "SERVING"),
            ("replay", "SERVING"),
            ("matchmaker", "SERVING"),
        ]
        nobody = f"127.0.0.1:{free_port()}"
        assert main(["health", "--only", "engine", "--engine", nobody, "--timeout", "1"]) == 1
        assert json.loads(capsys.readouterr().out)["status"] == "UNREACHABLE"
    finally:
        cluster.stop()


def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["health", "--engine", "no port here", "--only", "engine"]) == 2
    assert main(["health", "--timeout", "0"]) == 2
    assert main(["health", "--only", "nothing"]) == 2
