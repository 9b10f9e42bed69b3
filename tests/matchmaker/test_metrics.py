"""The matchmaker's and replay's Prometheus metrics, scraped over HTTP: calls by method and
status, and the matchmaker's gauges computed from its database at scrape time."""

from __future__ import annotations

import grpc
from cardroom.v1 import matchmaker_pb2, replay_pb2

from services.common import metrics
from tests.common.test_metrics import free_port, scrape, value

from .conftest import SHORT, Cluster, seated, wait_for

M = matchmaker_pb2


def test_matchmaker_and_replay_metrics(cluster: Cluster) -> None:
    port = free_port()
    metrics.serve_here(port, "127.0.0.1")  # what --metrics-port does in a one-worker server
    try:
        before = scrape(port)  # counters are per process, and other tests ran in this one
        stub = cluster.mm()
        waiting = stub.Enqueue(
            M.EnqueueRequest(player_id="w1", variant="doudizhu3", bot_fill_after_ms=600_000),
            timeout=10,
        )
        ticket = stub.Enqueue(
            M.EnqueueRequest(
                player_id="p1", variant="doudizhu4", bot_fill_after_ms=0, timers=SHORT
            ),
            timeout=10,
        )
        seated(stub, ticket.ticket_id)
        try:
            cluster.replay().VerifyGame(replay_pb2.VerifyGameRequest(game_id="nope"), timeout=5)
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.NOT_FOUND

        verify = "/cardroom.v1.ReplayService/VerifyGame"

        def figures() -> str | None:
            text = scrape(port)
            running = value(text, "cardroom_matchmaker_tables_running")
            # The server counts a call once its answer is sent: on a loaded machine that can
            # be a moment after the client has it.
            counted = value(text, "cardroom_rpc_calls_total", method=verify, code="NOT_FOUND")
            before_count = value(
                before, "cardroom_rpc_calls_total", method=verify, code="NOT_FOUND"
            )
            return text if running >= 1 and counted > before_count else None

        text = wait_for(figures)
        enq = "/cardroom.v1.MatchmakerService/Enqueue"

        def grew(name: str, **labels: str) -> float:
            return value(text, name, **labels) - value(before, name, **labels)

        assert grew("cardroom_rpc_calls_total", service="matchmaker", method=enq, code="OK") == 2
        assert grew("cardroom_rpc_latency_seconds_count", method=enq) == 2
        assert grew("cardroom_rpc_calls_total", method=verify, code="NOT_FOUND") == 1
        assert value(text, "cardroom_matchmaker_tickets_waiting") == 1
        assert value(text, "cardroom_matchmaker_oldest_wait_seconds") >= 0
        assert value(text, "cardroom_matchmaker_deadlines_overdue") == 0
        for name in (
            "cardroom_matchmaker_games_finished",
            "cardroom_matchmaker_outbox_rows",
            "cardroom_matchmaker_outbox_lag_seconds",
            "cardroom_replay_appended_events_total",
            "cardroom_replay_verify_seconds_count",
        ):
            assert f"\n{name}" in text, name
        stub.CancelTicket(M.CancelTicketRequest(ticket_id=waiting.ticket_id), timeout=5)
    finally:
        metrics.stop_here(port)
