"""Who may act for whom: a backend credential for anyone, a player's JWT only for itself,
nothing without a credential; and the CLI mints a token the server accepts."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import grpc
import jwt
import pytest
from cardroom.v1 import matchmaker_pb2

from services.common.grpc_errors import details
from services.matchmaker import cli
from services.matchmaker.access import Access, mint

from .conftest import Cluster

M = matchmaker_pb2
BACKEND = "backend-token-0123456789abcdef"
KEY = "k" * 40


@pytest.fixture
def guarded(cluster: Cluster) -> Iterator[Cluster]:
    cluster.stop_mm()
    cluster.access = Access.from_env(
        {"CARDROOM_MATCHMAKER_BACKEND_TOKENS": BACKEND, "CARDROOM_MATCHMAKER_JWT_KEY": KEY}
    )
    cluster.start_mm()
    yield cluster


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def reason(fn: object, request: object, token: str | None) -> str:
    try:
        fn(request, metadata=bearer(token) if token else None, timeout=10)  # type: ignore[operator]
    except grpc.RpcError as exc:
        return details(exc).reason
    return "OK"


def test_credentials(guarded: Cluster) -> None:
    stub = guarded.mm()
    enqueue = M.EnqueueRequest(player_id="alice", variant="ddz3", bot_fill_after_ms=-1)
    assert reason(stub.Enqueue, enqueue, None) == "UNAUTHENTICATED"
    assert reason(stub.Enqueue, enqueue, "not-a-token") == "UNAUTHENTICATED"
    assert reason(stub.Enqueue, enqueue, mint("bob", KEY)) == "PERMISSION_DENIED"
    assert reason(stub.Enqueue, enqueue, mint("alice", "x" * 40)) == "UNAUTHENTICATED"
    expired = jwt.encode({"sub": "alice", "exp": int(time.time()) - 10}, KEY, "HS256")
    assert reason(stub.Enqueue, enqueue, expired) == "UNAUTHENTICATED"
    assert reason(stub.Enqueue, enqueue, mint("alice", KEY)) == "OK"
    bob = M.EnqueueRequest(player_id="bob", variant="ddz3", bot_fill_after_ms=-1)
    assert reason(stub.Enqueue, bob, BACKEND) == "OK"
    listing = M.ListTablesRequest()
    assert reason(stub.ListTables, listing, mint("alice", KEY)) == "PERMISSION_DENIED"
    assert reason(stub.ListTables, listing, BACKEND) == "OK"
    assert reason(stub.GetPlayer, M.GetPlayerRequest(player_id="bob"), mint("alice", KEY)) == (
        "PERMISSION_DENIED"
    )


def test_the_cli_mints_a_token_the_server_accepts(
    guarded: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(player="carol", ttl=60, key=KEY)
    assert cli.token_main(args) == 0
    token = capsys.readouterr().out.strip()
    stub = guarded.mm()
    request = M.EnqueueRequest(player_id="carol", variant="zsy1", bot_fill_after_ms=-1)
    assert reason(stub.Enqueue, request, token) == "OK"
    assert cli.token_main(argparse.Namespace(player="carol", ttl=60, key="short")) == 2


def test_a_player_credential_enqueues_only_itself(guarded: Cluster) -> None:
    """The probe's lock-out: alice's JWT named carol in a party with a private code, and
    carol could neither enqueue nor cancel for as long as alice kept the ticket alive."""
    stub = guarded.mm()
    alice, carol = mint("alice", KEY), mint("carol", KEY)
    trap = M.EnqueueRequest(
        player_id="alice", party=["carol"], variant="ddz3", private_code="trap",
        bot_fill_after_ms=-1,
    )  # fmt: skip
    assert reason(stub.Enqueue, trap, alice) == "PERMISSION_DENIED"
    own = M.EnqueueRequest(player_id="carol", variant="ddz3", bot_fill_after_ms=-1)
    assert reason(stub.Enqueue, own, carol) == "OK"
    # A back end may still seat a party; each of its players may read and cancel the ticket.
    party = M.EnqueueRequest(player_id="dave", party=["erin"], variant="ddz4", bot_fill_after_ms=-1)
    ticket = stub.Enqueue(party, metadata=bearer(BACKEND), timeout=10)
    cancel = M.CancelTicketRequest(ticket_id=ticket.ticket_id)
    assert reason(stub.GetTicket, M.GetTicketRequest(ticket_id=ticket.ticket_id), carol) == (
        "PERMISSION_DENIED"
    )
    assert reason(stub.CancelTicket, cancel, carol) == "PERMISSION_DENIED"
    assert reason(stub.CancelTicket, cancel, mint("erin", KEY)) == "OK"
    assert reason(stub.Enqueue, M.EnqueueRequest(player_id="erin", variant="zsy1"), mint(
        "erin", KEY
    )) == "OK"  # fmt: skip
