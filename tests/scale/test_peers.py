"""An instance alone on its database sends no NOTIFY for its table writes (Peers); when a
second instance comes up, the first hears it and announces again, and a stream opened on
the second follows the first's writes as soon as each lands, not at its safety poll
(every 5 s while LISTEN is up)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import grpc

from services.common.notify import PEER_TTL_S
from tests.matchmaker.conftest import view_of

from .conftest import Deployment, M

#: The person plays every turn at once through the first instance (each move that
#: instance's write, and the bots' moves after it too: the writer steps its table), and
#: the bots think a second: the table moves about once a second.
TIMERS = M.Timers(bid_ms=30_000, turn_ms=30_000, start_ms=60_000, grace_ms=60_000,
                  bot_think_ms=1000)  # fmt: skip
#: Well under the stream's safety poll (5 s), well over a NOTIFY's way on a loaded machine.
PROMPT_S = 2.5


def play(stub: Any, ids: dict[str, str], stop: threading.Event) -> None:
    """The person: a hint's move on each turn of theirs, until ``stop``."""
    while not stop.is_set():
        with contextlib.suppress(grpc.RpcError):  # the table moved on meanwhile
            snap = stub.GetTable(M.GetTableRequest(**ids), timeout=10)
            if snap.state == M.TABLE_STATE_PLAYING and view_of(snap.view).to_move:
                hint = stub.GetHint(M.HintRequest(**ids), timeout=10)
                if hint.HasField("hint"):
                    stub.Act(M.ActRequest(**ids, action=hint.hint), timeout=10)
            elif snap.state != M.TABLE_STATE_PLAYING:
                stub.Ready(M.ReadyRequest(**ids), timeout=10)
        time.sleep(0.1)


def test_a_second_instance_is_heard_and_its_streams_follow_the_first(
    deployment: Deployment,
) -> None:
    d = deployment
    d.matchmakers[1].stop()
    first = d.mm(0)
    ticket = first.Enqueue(
        M.EnqueueRequest(player_id="h", variant="doudizhu3", bot_fill_after_ms=0,
                         timers=TIMERS), timeout=30,
    )  # fmt: skip
    while ticket.state != M.TICKET_STATE_SEATED:
        time.sleep(0.05)
        ticket = first.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id), timeout=30)
    ids = {"table_id": ticket.table_id, "player_id": "h"}
    stop = threading.Event()
    person = threading.Thread(target=play, args=(first, ids, stop), daemon=True)
    person.start()
    try:
        time.sleep(PEER_TTL_S + 1.5)  # the first instance alone: its writes go unannounced

        d.matchmakers[1].start()
        second = d.mm(1)
        lags: list[float] = []
        stream = second.Subscribe(M.SubscribeRequest(**ids), timeout=60)
        opened = time.time()

        def read() -> None:
            with contextlib.suppress(grpc.RpcError):  # cancelled at the end
                for ev in stream:
                    written = ev.at.ToMilliseconds() / 1000
                    if ev.type == "game" and written > opened + 0.5:  # not the backlog
                        lags.append(time.time() - written)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(12.0)
        stream.cancel()
        reader.join(10)
    finally:
        stop.set()
        person.join(10)
    # The first instance's writes (the person's moves and the bots' after them) over 12 s:
    # the stream on the second saw each soon after it was written, not in bursts a safety
    # poll apart.
    assert len(lags) >= 6, lags
    assert max(lags) < PROMPT_S, [round(x, 2) for x in lags]
