"""One player's gRPC session against the matchmaker's public API, and nothing else:
Enqueue, WatchTicket, SubscribeBatched (resumed after the last seq seen, reconnecting by itself),
GetTable, Ready, Act, GetHint, LeaveTable, GetPlayer.

Every method blocks (the app calls them from worker threads).  :meth:`Session.close` ends
the streams and makes every later call raise :class:`SessionClosed`; it does not close the
channel under a call that a worker may still be starting while the app shuts down — a
closed channel makes grpc raise ValueError there, which crashed an earlier version.  The
channel is closed by :meth:`Session.shutdown` once nothing can call any more (or by the
process's end).
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from services import rules
from services.common.grpc_errors import details
from services.common.wire import engine_pb2, matchmaker_pb2_grpc
from services.common.wire import matchmaker_pb2 as M

#: Reasons after which a seat's stream cannot resume: the seat or the table is gone.
FINAL_REASONS = frozenset({"NOT_SEATED", "TABLE_NOT_FOUND", "TABLE_CLOSED"})
CALL_TIMEOUT_S = 10.0


class SessionClosed(Exception):
    """The session was closed (the app is stopping): the call was not made."""


class Refused(Exception):
    """The matchmaker refused a call: its code, ErrorInfo reason and message."""

    def __init__(self, code: str, reason: str, message: str) -> None:
        super().__init__(f"{code} {reason}: {message}")
        self.code, self.reason, self.message = code, reason, message


def default_target() -> str:
    from services.common.settings import DEFAULT_PORTS

    return os.environ.get("CARDROOM_MATCHMAKER_ADDR") or (
        f"127.0.0.1:{DEFAULT_PORTS['matchmaker']}"
    )


@dataclass
class Snapshot:
    """A seat's GetTable answer, decoded: the message plus its view as the rules' value."""

    message: M.TableSnapshot
    view: rules.SeatView | None
    settlement: dict[str, Any] = field(default_factory=dict)

    @property
    def seq(self) -> int:
        return int(self.message.seq)

    @property
    def deadline_s(self) -> float | None:
        """The running deadline as a Unix time, if any."""
        if not self.message.HasField("deadline"):
            return None
        return float(self.message.deadline.ToMilliseconds()) / 1000.0

    @staticmethod
    def of(msg: M.TableSnapshot) -> Snapshot:
        view = None
        if msg.view.view_json:
            view = rules.SeatView.from_dict(json.loads(msg.view.view_json))
        settlement = json.loads(msg.last_settlement_json) if msg.last_settlement_json else {}
        return Snapshot(msg, view, settlement)


class Session:
    def __init__(self, target: str, player_id: str, token: str = "") -> None:
        self.target = target
        self.player_id = player_id
        self.metadata = [("authorization", f"Bearer {token}")] if token else []
        self.channel = grpc.insecure_channel(target)
        self.stub: Any = matchmaker_pb2_grpc.MatchmakerServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.table_id = ""
        self.last_seq = 0
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._streams: set[Any] = set()

    # ------------------------------------------------------------------ plumbing
    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _call(self, name: str, request: Any, timeout: float = CALL_TIMEOUT_S) -> Any:
        if self.closed:
            raise SessionClosed(name)
        try:
            return getattr(self.stub, name)(request, metadata=self.metadata, timeout=timeout)
        except grpc.RpcError as exc:
            if self.closed:
                raise SessionClosed(name) from None
            d = details(exc)
            raise Refused(d.code.name, d.reason, d.message) from None
        except ValueError:  # the channel was closed under us
            raise SessionClosed(name) from None

    def _ids(self) -> dict[str, str]:
        return {"table_id": self.table_id, "player_id": self.player_id}

    def close(self) -> None:
        """End the streams; later calls raise SessionClosed (the channel stays open)."""
        self._closed.set()
        with self._lock:
            streams = list(self._streams)
        for call in streams:
            call.cancel()

    def shutdown(self) -> None:
        """close(), then the channel: only once no worker can start a call any more."""
        self.close()
        self.channel.close()

    def drop(self) -> None:
        """Cut the current seat stream as a lost connection would (it reconnects itself)."""
        with self._lock:
            streams = list(self._streams)
        for call in streams:
            call.cancel()

    # ------------------------------------------------------------------ tickets
    def enqueue(
        self,
        variant: str,
        bot_fill_after_ms: int = 0,
        timers: M.Timers | None = None,
        bot_level: str = "",
        *,
        stake: int = 0,
        private_code: str = "",
    ) -> M.Ticket:
        """A ticket for this player; ``stake`` 0 is the room's default of 1, a
        ``private_code`` sits the players who give the same one together."""
        request = M.EnqueueRequest(
            player_id=self.player_id,
            variant=variant,
            bot_fill_after_ms=bot_fill_after_ms,
            bot_level=bot_level,
            private_code=private_code,
            request_id=uuid.uuid4().hex,
        )
        if stake:
            request.room.stake = stake
        if timers is not None:
            request.timers.CopyFrom(timers)
        ticket: M.Ticket = self._call("Enqueue", request)
        return ticket

    def wait_seated(
        self, ticket: M.Ticket, on_change: Callable[[M.Ticket], None] | None = None
    ) -> M.Ticket:
        """Follow the ticket (WatchTicket, re-opened if the stream breaks) until it is no
        longer queued; sets :attr:`table_id` when seated."""
        while ticket.state == M.TICKET_STATE_QUEUED:
            if self.closed:
                raise SessionClosed("WatchTicket")
            call = self.stub.WatchTicket(
                M.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=self.metadata
            )
            self._track(call)
            try:
                for t in call:
                    ticket = t
                    if on_change is not None:
                        on_change(t)
                    if t.state != M.TICKET_STATE_QUEUED:
                        break
            except grpc.RpcError as exc:
                if self.closed:
                    raise SessionClosed("WatchTicket") from None
                d = details(exc)
                if d.code != grpc.StatusCode.UNAVAILABLE:
                    raise Refused(d.code.name, d.reason, d.message) from None
                time.sleep(0.5)
            finally:
                self._untrack(call)
        if ticket.state == M.TICKET_STATE_SEATED:
            self.table_id = ticket.table_id
        return ticket

    # ------------------------------------------------------------------ the seat's stream
    def _track(self, call: Any) -> None:
        with self._lock:
            self._streams.add(call)
        if self.closed:
            call.cancel()

    def _untrack(self, call: Any) -> None:
        with self._lock:
            self._streams.discard(call)

    def events(
        self,
        on_state: Callable[[str], None] | None = None,
        backoff_s: float = 0.2,
        backoff_cap_s: float = 3.0,
    ) -> Iterator[M.TableEvent]:
        """The seat's stream from after :attr:`last_seq`, for as long as the seat exists:
        when the connection drops it reconnects (with backoff) and resumes after the last seq
        it delivered, so nothing is missed or repeated.  ``on_state`` hears "connected",
        "reconnecting" and "ended"."""
        delay = backoff_s
        while not self.closed:
            request = M.SubscribeRequest(
                table_id=self.table_id, player_id=self.player_id, after_seq=self.last_seq
            )
            try:
                # Batched: a run of bot moves is one message, not one each.
                call = self.stub.SubscribeBatched(request, metadata=self.metadata)
            except ValueError:
                return
            self._track(call)
            if on_state is not None:
                on_state("connected")
            try:
                for ev in (ev for batch in call for ev in batch.events):
                    if ev.seq <= self.last_seq:
                        continue  # never deliver one twice
                    self.last_seq = ev.seq
                    delay = backoff_s
                    yield ev
            except grpc.RpcError as exc:
                if self.closed:
                    return
                d = details(exc)
                if d.reason in FINAL_REASONS:
                    if on_state is not None:
                        on_state("ended")
                    return
            finally:
                self._untrack(call)
            if self.closed:
                return
            if on_state is not None:
                on_state("reconnecting")
            self._closed.wait(delay)
            delay = min(backoff_cap_s, delay * 2)

    # ------------------------------------------------------------------ seat calls
    def get_table(self) -> Snapshot:
        return Snapshot.of(self._call("GetTable", M.GetTableRequest(**self._ids())))

    def ready(self) -> Snapshot:
        return Snapshot.of(self._call("Ready", M.ReadyRequest(**self._ids())))

    def act(self, action: engine_pb2.Action) -> M.ActResponse:
        request = M.ActRequest(
            table_id=self.table_id,
            player_id=self.player_id,
            action=action,
            request_id=uuid.uuid4().hex,
        )
        response: M.ActResponse = self._call("Act", request)
        return response

    def play(self, cards: str, reading: str = "") -> M.ActResponse:
        """Play ``cards``; ``reading`` (``kind:RANK``) names the pattern meant when the cards
        read several ways, else the engine takes RULES.md §3's default."""
        return self.act(engine_pb2.Action(play=engine_pb2.PlayCards(cards=cards, reading=reading)))

    def pass_(self) -> M.ActResponse:
        action = engine_pb2.Action()
        setattr(action, "pass", True)  # a Python keyword
        return self.act(action)

    def bid(self, amount: int) -> M.ActResponse:
        return self.act(engine_pb2.Action(bid=amount))

    def show_hand(self) -> M.ActResponse:
        return self.act(engine_pb2.Action(show_hand=True))

    def autoplay(self, on: bool) -> M.ActResponse:
        return self.act(engine_pb2.Action(autoplay=on))

    def hint(self) -> engine_pb2.Action | None:
        answer = self._call("GetHint", M.HintRequest(**self._ids()))
        return answer.hint if answer.HasField("hint") else None

    def leave(self) -> Snapshot:
        return Snapshot.of(self._call("LeaveTable", M.LeaveTableRequest(**self._ids())))

    def player(self) -> M.PlayerInfo:
        info: M.PlayerInfo = self._call("GetPlayer", M.GetPlayerRequest(player_id=self.player_id))
        return info
