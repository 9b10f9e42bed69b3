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
    channel = grpc.insecure_channel(args.target)
    seat = _Seat(
        matchmaker_pb2_grpc.MatchmakerServiceStub(channel),  # type: ignore[no-untyped-call]
        [("authorization", f"Bearer {token}")] if token else [],
        args.player or f"guest-{uuid.uuid4().hex[:6]}",
        args,
    )
    try:
        ticket = seat.enqueue()
        if ticket.state != M.TICKET_STATE_SEATED:
            name = M.TicketState.Name(ticket.state)
            return fail("matchmaker play", f"the ticket ended {name}")
        seat.table_id, seat.seat = ticket.table_id, ticket.seats[0]
        print(f"seated at table {seat.table_id} in seat {seat.seat} as {seat.player}",
              file=sys.stderr)  # fmt: skip
        threading.Thread(target=seat.follow, daemon=True).start()
        if not seat.play():
            return 0  # stdin ended
        seat.over.wait(10)
        if seat.broken:
            raise seat.broken[0]
    except grpc.RpcError as exc:
        # A server that stops mid-game ends the seat's stream with its reason
        # (SERVER_STOPPING: resume elsewhere), while a call of this thread that races the
        # stop gets grpc's bare "CANCELLED" or "failed to connect": say the stream's.
        racing_a_stop = exc.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
        if racing_a_stop and seat.over.wait(3) and seat.broken:
            exc = seat.broken[0]
        d = details(exc)
        return fail("matchmaker play", f"{d.code.name} {d.reason}: {d.message}")
    finally:
        channel.close()
    return 0


class _Seat:
    """``matchmaker play``'s player: its ticket, its seat's stream printed as JSON lines,
    and its moves (the hints with --auto, else read from stdin)."""

    def __init__(self, stub: Any, meta: list[tuple[str, str]], player: str, args: Any) -> None:
        self.stub, self.meta, self.player, self.args = stub, meta, player, args
        self.table_id, self.seat = "", 0
        self.over = threading.Event()
        self.games_seen: list[int] = []
        #: Why the seat's stream broke (the matchmaker went away mid-game): said, exit 2.
        self.broken: list[Any] = []

    def enqueue(self) -> Any:
        from services.common.wire import matchmaker_pb2 as M

        timers = M.Timers(bot_think_ms=int(self.args.think * 1000))
        ticket = self.stub.Enqueue(
            M.EnqueueRequest(player_id=self.player, variant=self.args.variant,
                             bot_fill_after_ms=0, timers=timers),
            metadata=self.meta, timeout=10,
        )  # fmt: skip
        while ticket.state == M.TICKET_STATE_QUEUED:
            time.sleep(0.1)
            ticket = self.stub.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id),
                                         metadata=self.meta, timeout=10)  # fmt: skip
        return ticket

    def follow(self) -> None:
        import grpc

        from services.common.wire import matchmaker_pb2 as M

        request = M.SubscribeRequest(table_id=self.table_id, player_id=self.player)
        try:
            for ev in self.stub.Subscribe(request, metadata=self.meta):
                if ev.type == "game":
                    g = ev.game_event
                    body = json.loads(g.data_json)
                    line = {"seq": ev.seq, "game": g.type, "seat": body.get("seat"), "data": body}
                else:
                    data = json.loads(ev.data_json or "{}")
                    line = {"seq": ev.seq, "table": ev.type, "data": data}
                print(json.dumps(line, ensure_ascii=False), flush=True)
                if ev.type == "series":
                    self.games_seen.append(1)
                    if len(self.games_seen) >= self.args.games:
                        self.over.set()
                        return
        except grpc.RpcError as exc:
            self.broken.append(exc)
            self.over.set()

    def play(self) -> bool:
        """Ready for each game and move whenever it is the seat's turn; False when stdin
        ended."""
        from services.common.wire import matchmaker_pb2 as M

        ids = {"table_id": self.table_id, "player_id": self.player}
        for _ in range(self.args.games):
            self.stub.Ready(M.ReadyRequest(**ids), metadata=self.meta, timeout=10)
            started = len(self.games_seen)
            while not self.over.is_set() and len(self.games_seen) == started:
                if not self.move(ids):
                    return False
        return True

    def move(self, ids: dict[str, str]) -> bool:
        """One look at the table, and a move if it is the seat's turn; False when stdin
        ended."""
        import grpc

        from services.common.grpc_errors import details
        from services.common.wire import matchmaker_pb2 as M

        stub, meta = self.stub, self.meta
        snap = stub.GetTable(M.GetTableRequest(**ids), metadata=meta, timeout=10)
        view = json.loads(snap.view.view_json) if snap.view.view_json else {}
        if snap.state != M.TABLE_STATE_PLAYING or view.get("turn") != self.seat:
            time.sleep(0.05)
            return True
        hint = stub.GetHint(M.HintRequest(**ids), metadata=meta, timeout=10)
        if self.args.auto:
            action = hint.hint if hint.HasField("hint") else None
        else:
            print(f"your hand: {view.get('hand')}  to beat: {view.get('last_play')}  "
                  f"(hint: {hint.hint.WhichOneof('kind') and str(hint.hint).strip()})",
                  file=sys.stderr)  # fmt: skip
            line = sys.stdin.readline()
            if not line:
                return False
            action = hint.hint if line.strip() == "hint" else _action(line, self.seat)
        if action is None:
            return True
        try:
            stub.Act(M.ActRequest(**ids, action=action, expected_seq=snap.seq),
                     metadata=meta, timeout=10)  # fmt: skip
        except grpc.RpcError as exc:
            d = details(exc)
            print(f"refused: {d.reason}: {d.message}", file=sys.stderr)
        return True
