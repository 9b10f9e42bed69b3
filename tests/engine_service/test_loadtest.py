"""The load generator against the in-process server: a short run of each mode."""

from __future__ import annotations

from services.common.server import BackgroundServer
from services.engine import loadtest


def test_apply_and_baseline_runs(server: BackgroundServer) -> None:
    for rpc in ("baseline", "apply"):
        result = loadtest.run(server.target, rpc, concurrency=2, duration=1.0, processes=1)
        summary = result.summary()
        assert summary["requests"] > 0 and not summary["errors"], summary
        assert summary["p99_ms"] >= summary["p50_ms"] > 0
    assert "Apply" in summary["methods"]
