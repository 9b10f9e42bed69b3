"""Every access-log line names its call's request id: the caller's x-request-id when it
sent one, else one the server makes, a different one for each call and in each process."""

from __future__ import annotations

import logging
import multiprocessing

import grpc
from cardroom.v1 import engine_pb2, engine_pb2_grpc

from services.common import server as common_server
from services.common.server import BackgroundServer
from services.common.settings import ServerSettings
from services.engine import server as engine_server


class _Lines(logging.Handler):
    """The access log's lines as the server logs them (its event dicts)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.msg, dict):
            self.lines.append(record.msg)


def test_each_call_is_logged_with_its_own_request_id(engine_keys: str) -> None:
    settings = ServerSettings(service="engine", port=0, workers=1, grace_s=0.5, access_log=True)
    seen = _Lines()
    server_log = logging.getLogger("cardroom.server")
    with (
        BackgroundServer(engine_server.make_spec(), settings) as running,
        grpc.insecure_channel(running.target) as channel,
    ):
        # After the server set up logging (it replaces handlers), and at INFO whatever
        # level an earlier test of this process configured.
        server_log.addHandler(seen)
        server_log.setLevel(logging.INFO)
        try:
            stub = engine_pb2_grpc.EngineServiceStub(channel)
            for _ in range(3):
                stub.Ping(engine_pb2.PingRequest())
            stub.Ping(engine_pb2.PingRequest(), metadata=[("x-request-id", "the-callers-own-id")])
        finally:
            server_log.removeHandler(seen)
            server_log.setLevel(logging.NOTSET)
    ids = [str(d["request_id"]) for d in seen.lines if d.get("event") == "rpc"]
    assert len(ids) == 4, seen.lines
    made, given = ids[:3], ids[3]
    assert len(set(made)) == 3 and all(len(i) == 32 and int(i, 16) >= 0 for i in made)
    assert given == "the-callers-own-id"


def _child_id(out: multiprocessing.SimpleQueue[str]) -> None:
    out.put(common_server._request_ids.next())


def test_a_forked_worker_makes_ids_of_its_own() -> None:
    """Workers are forked from one parent: the same prefix and count there would repeat
    each other's ids."""
    ctx = multiprocessing.get_context("fork")
    out: multiprocessing.SimpleQueue[str] = ctx.SimpleQueue()
    children = [ctx.Process(target=_child_id, args=(out,)) for _ in range(2)]
    for c in children:
        c.start()
    for c in children:
        c.join(30)
    theirs = {out.get(), out.get()}
    mine = common_server._request_ids.next()
    assert len(theirs | {mine}) == 3
    assert len({i[:16] for i in theirs | {mine}}) == 3  # each process its own prefix
