"""``cardroom matchmaker token`` and ``cardroom matchmaker play``.

``token PLAYER`` prints a player credential (a JWT signed with CARDROOM_MATCHMAKER_JWT_KEY or
--key) for local use.  ``play`` sits one player down at a table against bots through a
running matchmaker and plays whole games from the terminal: it prints the seat's stream as
JSON lines on stdout (only what the seat may see) and reads moves from stdin (``3s3h``,
``pass``, ``bid 2``, ``show``, ``hint``, ``auto``), or plays the engine's hint itself with
``--auto``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from typing import Any

from services.common.console import fail

from .access import JWT_KEY_ENV, mint


def token_main(args: argparse.Namespace) -> int:
    key = args.key or os.environ.get(JWT_KEY_ENV, "")
    if len(key) < 32:
        return fail(
            "matchmaker token",
            f"a signing key of 32+ characters is needed ({JWT_KEY_ENV} or --key)",
        )
    if not args.player.strip() or len(args.player) > 128 or not args.player.isprintable():
        return fail("matchmaker token", "the player id must be 1–128 printable characters")
    if not 1 <= args.ttl <= 30 * 86400:
        return fail("matchmaker token", "--ttl must be 1 s to 30 days")
    print(mint(args.player, key, args.ttl))
    return 0


def _action(text: str, seat: int) -> Any:
    from services.common.wire import engine_pb2

    words = text.strip().split()
    if not words:
        return None
    head = words[0].lower()
    if head == "pass":
        action = engine_pb2.Action(seat=seat)
        setattr(action, "pass", True)  # a Python keyword
        return action
    if head == "bid" and len(words) == 2 and words[1].isdigit():
        return engine_pb2.Action(seat=seat, bid=int(words[1]))
    if head == "show":
        return engine_pb2.Action(seat=seat, show_hand=True)
    if head == "auto":
        return engine_pb2.Action(seat=seat, autoplay=True)
    cards, _sep, reading = text.partition(" as ")
    return engine_pb2.Action(seat=seat, play=engine_pb2.PlayCards(cards=cards, reading=reading))


def play_main(args: argparse.Namespace) -> int:
    import grpc

    from services.common.grpc_errors import details
    from services.common.wire import matchmaker_pb2 as M
    from services.common.wire import matchmaker_pb2_grpc

    token = os.environ.get("CARDROOM_MATCHMAKER_TOKEN", "")
    meta = [("authorization", f"Bearer {token}")] if token else []
    channel = grpc.insecure_channel(args.target)
    stub: Any = matchmaker_pb2_grpc.MatchmakerServiceStub(channel)  # type: ignore[no-untyped-call]
    player = args.player or f"guest-{uuid.uuid4().hex[:6]}"
    timers = M.Timers(bot_think_ms=int(args.think * 1000))
    try:
        ticket = stub.Enqueue(
            M.EnqueueRequest(player_id=player, variant=args.variant, bot_fill_after_ms=0,
                             timers=timers),
            metadata=meta, timeout=10,
        )  # fmt: skip
        while ticket.state == M.TICKET_STATE_QUEUED:
            time.sleep(0.1)
            ticket = stub.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id),
                                    metadata=meta, timeout=10)  # fmt: skip
    except grpc.RpcError as exc:
        d = details(exc)
        return fail("matchmaker play", f"{d.code.name} {d.reason}: {d.message}")
    if ticket.state != M.TICKET_STATE_SEATED:
        return fail("matchmaker play", f"the ticket ended {M.TicketState.Name(ticket.state)}")
    table_id, seat = ticket.table_id, ticket.seats[0]
    print(f"seated at table {table_id} in seat {seat} as {player}", file=sys.stderr)
    over = threading.Event()
    games_seen: list[int] = []
    #: Why the seat's stream broke (the matchmaker went away mid-game): said, exit 2.
    broken: list[grpc.RpcError] = []

    def follow() -> None:
        request = M.SubscribeRequest(table_id=table_id, player_id=player)
        try:
            for ev in stub.Subscribe(request, metadata=meta):
                if ev.type == "game":
                    g = ev.game_event
                    body = json.loads(g.data_json)
                    line = {"seq": ev.seq, "game": g.type, "seat": body.get("seat"), "data": body}
                else:
                    line = {
                        "seq": ev.seq,
                        "table": ev.type,
                        "data": json.loads(ev.data_json or "{}"),
                    }
                print(json.dumps(line, ensure_ascii=False), flush=True)
                if ev.type == "series":
                    games_seen.append(1)
                    if len(games_seen) >= args.games:
                        over.set()
                        return
        except grpc.RpcError as exc:
            broken.append(exc)
            over.set()

    threading.Thread(target=follow, daemon=True).start()
    ids = {"table_id": table_id, "player_id": player}
    try:
        for _ in range(args.games):
            stub.Ready(M.ReadyRequest(**ids), metadata=meta, timeout=10)
            started = len(games_seen)
            while not over.is_set() and len(games_seen) == started:
                snap = stub.GetTable(M.GetTableRequest(**ids), metadata=meta, timeout=10)
                view = json.loads(snap.view.view_json) if snap.view.view_json else {}
                if snap.state != M.TABLE_STATE_PLAYING or view.get("turn") != seat:
                    time.sleep(0.05)
                    continue
                hint = stub.GetHint(M.HintRequest(**ids), metadata=meta, timeout=10)
                if args.auto:
                    action = hint.hint if hint.HasField("hint") else None
                else:
                    print(f"your hand: {view.get('hand')}  to beat: {view.get('last_play')}  "
                          f"(hint: {hint.hint.WhichOneof('kind') and str(hint.hint).strip()})",
                          file=sys.stderr)  # fmt: skip
                    line = sys.stdin.readline()
                    if not line:
                        return 0
                    action = hint.hint if line.strip() == "hint" else _action(line, seat)
                if action is None:
                    continue
                try:
                    stub.Act(M.ActRequest(**ids, action=action, expected_seq=snap.seq),
                             metadata=meta, timeout=10)  # fmt: skip
                except grpc.RpcError as exc:
                    d = details(exc)
                    print(f"refused: {d.reason}: {d.message}", file=sys.stderr)
        over.wait(10)
        if broken:
            raise broken[0]
    except grpc.RpcError as exc:
        d = details(exc)
        return fail("matchmaker play", f"{d.code.name} {d.reason}: {d.message}")
    finally:
        channel.close()
    return 0
