"""The session's shutdown: calls that workers still start while the app stops end as
SessionClosed, never as grpc's ValueError on a closed channel (which crashed the app)."""

from __future__ import annotations

import threading

import pytest

from services.client.session import Refused, Session, SessionClosed
from tests.matchmaker.conftest import Cluster


def test_calls_after_close_or_shutdown_are_session_closed(cluster: Cluster) -> None:
    assert cluster.mm_server is not None
    s = Session(cluster.mm_server.target, "closer")
    with pytest.raises(Refused) as refused:
        s.get_table()  # no table yet: a refusal with its reason, not a crash
    assert refused.value.reason in ("MISSING_FIELD", "TABLE_NOT_FOUND", "INVALID_FIELD")
    s.close()
    with pytest.raises(SessionClosed):
        s.player()
    s.shutdown()
    with pytest.raises(SessionClosed):
        s.player()


def test_a_channel_closed_under_a_call_is_session_closed(cluster: Cluster) -> None:
    assert cluster.mm_server is not None
    s = Session(cluster.mm_server.target, "racer")
    s.channel.close()  # what a shutdown racing a worker's call looks like to that call
    with pytest.raises(SessionClosed):
        s.player()


def test_close_ends_a_stream_that_waits(cluster: Cluster) -> None:
    assert cluster.mm_server is not None
    s = Session(cluster.mm_server.target, "streamer")
    ticket = s.wait_seated(s.enqueue("doudizhu3", 0))
    assert ticket.table_id
    s.ready()
    seen: list[int] = []

    def follow() -> None:
        for ev in s.events():
            seen.append(ev.seq)

    t = threading.Thread(target=follow)
    t.start()
    s.close()
    t.join(10)
    assert not t.is_alive()
    assert seen == sorted(set(seen))
    s.shutdown()
