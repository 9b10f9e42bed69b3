"""Section ``wire``: what the typed bodies cost on the wire — the bytes of each message of a
seat's Subscribe stream as it is sent, and without its typed bodies (the JSON only, as before
they existed), over one whole game of each variant through real servers (a human seat on
auto-play, bots filling the others)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

import grpc

from services.common.migrate import upgrade
from services.common.wire import engine_pb2, matchmaker_pb2, matchmaker_pb2_grpc

from .common import Context, Table, progress
from .engine_bench import _free_port, _wait_healthy
from .matchmaker_bench import replay_url, services

M = matchmaker_pb2
VARIANTS = ("doudizhu3", "doudizhu4", "zhengshangyou", "zhengshangyou2")
TIMERS = M.Timers(bid_ms=20_000, turn_ms=20_000, start_ms=20_000, grace_ms=20_000, bot_think_ms=0)


def without_bodies(ev: M.TableEvent) -> M.TableEvent:
    bare = M.TableEvent()
    bare.CopyFrom(ev)
    bare.ClearField("body")
    if bare.HasField("game_event"):
        bare.game_event.ClearField("body")
    return bare


def stream_sizes(target: str) -> dict[str, list[tuple[int, int]]]:
    """(bytes without typed bodies, bytes as sent) of every stream item, by event type."""
    sizes: dict[str, list[tuple[int, int]]] = defaultdict(list)
    with grpc.insecure_channel(target) as channel:
        stub = matchmaker_pb2_grpc.MatchmakerServiceStub(channel)  # type: ignore[no-untyped-call]
        for variant in VARIANTS:
            player = f"wire-{variant}"
            queued = stub.Enqueue(
                M.EnqueueRequest(
                    player_id=player, variant=variant, bot_fill_after_ms=0, timers=TIMERS
                )
            )
            for ticket in stub.WatchTicket(M.GetTicketRequest(ticket_id=queued.ticket_id)):
                if ticket.state == M.TICKET_STATE_SEATED:
                    break
            ids = {"table_id": ticket.table_id, "player_id": player}
            stub.Ready(M.ReadyRequest(**ids))
            call = stub.Subscribe(M.SubscribeRequest(**ids))
            for ev in call:
                if ev.type == "deadline" and ev.deadline.seat == ticket.seats[0]:
                    stub.Act(M.ActRequest(**ids, action=engine_pb2.Action(autoplay=True)))
                kind = ev.game_event.type if ev.type == "game" else ev.type
                sizes[kind].append((without_bodies(ev).ByteSize(), ev.ByteSize()))
                if ev.type == "game_over":
                    break
            call.cancel()
            stub.LeaveTable(M.LeaveTableRequest(**ids))
    return sizes


def wire_section(ctx: Context) -> list[Table]:
    with tempfile.TemporaryDirectory() as tmp:
        db_url = f"sqlite:///{tmp}/wire.sqlite3"
        upgrade(db_url)
        upgrade(replay_url(db_url))
        with services(db_url) as (engine_target, replay_target):
            port = _free_port()
            env = dict(os.environ)
            env.update(
                CARDROOM_DATABASE_URL=db_url, CARDROOM_ENGINE_ADDR=engine_target,
                CARDROOM_REPLAY_ADDR=replay_target, CARDROOM_LOG_LEVEL="warning",
            )  # fmt: skip
            cmd = [sys.executable, "-m", "services", "matchmaker", "serve", "--port",
                   str(port), "--no-access-log"]  # fmt: skip
            proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
            try:
                target = f"127.0.0.1:{port}"
                _wait_healthy(target, proc)
                progress("wire: one game of each variant, a seat's Subscribe stream")
                sizes = stream_sizes(target)
            finally:
                proc.terminate()
                proc.wait(15)
    table = Table(
        "Subscribe messages: bytes without typed bodies (JSON only) and as sent",
        ["event", "messages", "JSON only (median)", "as sent (median)", "growth"],
    )
    ordered = sorted(sizes.items(), key=lambda kv: -len(kv[1]))
    for kind, pairs in ordered:
        bare = statistics.median(b for b, _ in pairs)
        sent = statistics.median(s for _, s in pairs)
        table.rows.append(
            [kind, str(len(pairs)), f"{bare:.0f} B", f"{sent:.0f} B", f"+{sent - bare:.0f} B"]
        )
    every = [p for pairs in sizes.values() for p in pairs]
    bare_total, sent_total = sum(b for b, _ in every), sum(s for _, s in every)
    table.rows.append(
        ["all (total)", str(len(every)), f"{bare_total:,} B", f"{sent_total:,} B",
         f"+{100 * (sent_total - bare_total) / bare_total:.0f}%"]
    )  # fmt: skip
    table.notes.append(
        f"One game of each of {', '.join(VARIANTS)} through real engine, replay and matchmaker"
        " processes; one human seat (auto-play) and bots.  game_over counts the game event"
        " and the table event.  Sizes are the protobuf encoding of each TableEvent."
    )
    return [table]
