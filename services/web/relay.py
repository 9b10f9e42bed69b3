"""One browser's seat, relayed: the WebSocket's commands become matchmaker calls made with
the back end's token for the cookie's player (never another), and the seat's stream comes
back as JSON (:mod:`services.web.convert`).

The stream resumes after the last seq the browser saw (its ``hello`` says which) and
reconnects by itself when the matchmaker connection breaks, as the terminal client's session
does; after each burst of events one GetTable (and one a second, for the connected flags and
the deadline) refreshes the seat's snapshot, as the terminal client's follower does.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog

from services import rules
from services.client import render
from services.common.grpc_errors import details
from services.common.wire import (
    batched_events,
    common_pb2,
    engine_pb2,
    matchmaker_pb2_grpc,
    replay_pb2_grpc,
)
from services.common.wire import matchmaker_pb2 as M
from services.ratings.model import teams_of

from . import convert

log = structlog.get_logger("cardroom.web")
#: The matchmaker calls' durations of the command being handled (None outside a command).
UPSTREAM: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar(
    "upstream", default=None
)

#: After these the seat's stream cannot resume: the seat or the table is gone.
FINAL_REASONS = frozenset({"NOT_SEATED", "TABLE_NOT_FOUND", "TABLE_CLOSED"})
CALL_TIMEOUT_S = 10.0
#: Seconds between snapshots of a quiet table (200 sessions poll 40 GetTable/s at 5 s).
REFRESH_S = 5.0
#: After a rated game, GetPlayer is asked for its rating change up to this many times, this
#: many seconds apart (through the 30 s a settlement shows by default).
RATING_ASKS = 30
RATING_ASK_S = 1.0
VARIANTS = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")
#: The bots' levels Enqueue takes; auto (the matchmaker's default): the level whose rating is
#: nearest the table's people's.
LEVELS = ("auto", "easy", "normal", "hard")
#: A person's timers at the web table (the matchmaker's defaults but for bots' think time,
#: which a browser player would rather see than wait for).
Send = Callable[[dict[str, Any]], Awaitable[None]]


class BadCommand(Exception):
    """A browser message that is not a command: its reason and words."""


@dataclass
class Backend:
    """The process's channels to the matchmaker and replay, and the tokens it holds."""

    matchmaker: str
    replay: str
    matchmaker_token: str = ""
    replay_token: str = ""
    #: The bots' think time at the tables this back end starts (ms); None: the matchmaker's.
    bot_think_ms: int | None = None
    mm: Any = field(init=False)
    rp: Any = field(init=False)

    def __post_init__(self) -> None:
        self.mm_channel = grpc.aio.insecure_channel(self.matchmaker)
        self.rp_channel = grpc.aio.insecure_channel(self.replay)
        self.mm = matchmaker_pb2_grpc.MatchmakerServiceStub(self.mm_channel)  # type: ignore[no-untyped-call]
        self.rp = replay_pb2_grpc.ReplayServiceStub(self.rp_channel)  # type: ignore[no-untyped-call]

    def mm_metadata(self) -> list[tuple[str, str]]:
        t = self.matchmaker_token
        return [("authorization", f"Bearer {t}")] if t else []

    def rp_metadata(self) -> list[tuple[str, str]]:
        t = self.replay_token
        return [("authorization", f"Bearer {t}")] if t else []

    async def close(self) -> None:
        await self.mm_channel.close()
        await self.rp_channel.close()


def refusal(exc: grpc.RpcError) -> dict[str, Any]:
    d = details(exc)
    return {
        "ok": False,
        "code": d.code.name if d.code is not None else "UNKNOWN",
        "reason": d.reason,
        "say": convert.both(render.reason_words_in, d.reason, d.message),
    }


def _int(msg: dict[str, Any], key: str, lo: int, hi: int, default: int) -> int:
    value = msg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadCommand(f"{key} must be a whole number from {lo} to {hi}")
    return int(value)


def _str(msg: dict[str, Any], key: str, default: str = "", limit: int = 64) -> str:
    value = msg.get(key, default)
    if not isinstance(value, str) or len(value) > limit:
        raise BadCommand(f"{key} must be text of at most {limit} characters")
    return value


class SeatRelay:
    """The relay of one WebSocket: ``send`` writes a JSON message to the browser."""

    def __init__(self, backend: Backend, player: str, send: Send) -> None:
        self.b = backend
        self.player = player
        self.send = send
        self.table_id = ""
        self.last_seq = 0
        self.players: list[str] = []
        self.family = ""
        self.variant = ""
        self.stream_task: asyncio.Task[None] | None = None
        self.follow_task: asyncio.Task[None] | None = None
        self.dirty = asyncio.Event()
        self.closed = False
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """A background job of this relay: kept until done, cancelled when it closes."""
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------------ calls
    async def call(self, name: str, request: Any) -> Any:
        method = getattr(self.b.mm, name)
        start = time.perf_counter()
        try:
            return await method(request, metadata=self.b.mm_metadata(), timeout=CALL_TIMEOUT_S)
        finally:
            spent = UPSTREAM.get()
            if spent is not None:
                spent.append(time.perf_counter() - start)

    def ids(self) -> dict[str, str]:
        return {"table_id": self.table_id, "player_id": self.player}

    # ------------------------------------------------------------------ lifetime
    async def hello(self, after_seq: int) -> None:
        """The browser (re)connected: resume the player's seat, if it holds one, after the
        last seq it saw."""
        info = await self.call("GetPlayer", M.GetPlayerRequest(player_id=self.player))
        await self.send({"t": "hello", "player": self.player, "table_id": info.table_id})
        if info.table_id:
            await self.attach(info.table_id, after_seq)

    async def attach(self, table_id: str, after_seq: int) -> None:
        await self.detach()
        self.table_id, self.last_seq = table_id, after_seq
        await self.refresh()
        self.stream_task = asyncio.create_task(self.stream())
        self.follow_task = asyncio.create_task(self.follow())

    async def detach(self) -> None:
        for task in (self.stream_task, self.follow_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self.stream_task = self.follow_task = None

    async def close(self) -> None:
        self.closed = True
        for task in list(self.tasks):
            task.cancel()
        await self.detach()

    # ------------------------------------------------------------------ the seat's stream
    async def stream(self) -> None:
        delay = 0.2
        while not self.closed:
            request = M.SubscribeRequest(
                table_id=self.table_id, player_id=self.player, after_seq=self.last_seq
            )
            # Batched: a run of bot moves is one message from the matchmaker, not one each.
            call = self.b.mm.SubscribeBatched(request, metadata=self.b.mm_metadata())
            await self.send({"t": "conn", "state": "connected"})
            try:
                async for ev in batched_events(call):
                    if ev.seq <= self.last_seq:
                        continue
                    self.last_seq = ev.seq
                    delay = 0.2
                    await self.on_event(ev)
            except grpc.RpcError as exc:
                if details(exc).reason in FINAL_REASONS:
                    await self.send({"t": "conn", "state": "ended"})
                    await self.refresh()
                    return
            finally:
                call.cancel()
            await self.send({"t": "conn", "state": "reconnecting"})
            await asyncio.sleep(delay)
            delay = min(3.0, delay * 2)

    async def on_event(self, ev: M.TableEvent) -> None:
        if ev.type == "game_started":
            self.players = list(ev.game_started.players) or self.players
        msg = convert.event_json(ev, self.players)
        await self.send(msg)
        if ev.type == "game_over":
            data = msg.get("data") or {}
            rated = teams_of(data.get("settlement") or {}, len(self.players)) is not None
            self.spawn(self.send_player(str(data.get("game_id") or ""), rated))
        self.dirty.set()

    async def follow(self) -> None:
        """One GetTable per burst of events, and one every few seconds besides (the stream's
        own events already say who connected and when a deadline runs)."""
        while not self.closed:
            # Not wait_for (banned in pyproject.toml): cancelled as news came, the follower
            # went on for ever, and detach, which waits for it, with it.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(REFRESH_S):
                    await self.dirty.wait()
            self.dirty.clear()
            try:
                await self.refresh()
            except Exception:  # one bad snapshot must not end the follower
                log.exception("web: a snapshot could not be relayed", table=self.table_id)

    async def refresh(self) -> None:
        try:
            snap = await self.call("GetTable", M.GetTableRequest(**self.ids()))
        except grpc.RpcError as exc:
            if details(exc).reason in FINAL_REASONS:
                await self.send({"t": "gone", "reason": details(exc).reason})
            return
        if not self.players:
            self.players = [s.player_id for s in snap.seats]
        if snap.variant:
            self.variant = snap.variant
            self.family = rules.variant(snap.variant).family
        await self.send(convert.snapshot_json(snap, self.players))

    async def send_player(self, game_id: str = "", rated: bool = False) -> None:
        """GetPlayer after game ``game_id``: the last score, the running total and the title
        at once; and, for a game that is rated, its rating change — "pending" until replay
        has rated it (it does once the game's end reaches its log, a moment later), GetPlayer
        asked again once a second meanwhile."""
        for ask in range(RATING_ASKS if rated else 1):
            if ask:
                await asyncio.sleep(RATING_ASK_S)
            try:
                info = await self.call("GetPlayer", M.GetPlayerRequest(player_id=self.player))
            except grpc.RpcError:
                continue
            rating = convert.rating_json(info, game_id) if rated else None
            pending = render.RATING_PENDING_IN if rated and rating is None else None
            await self.send(convert.player_json(info, self.family, rating or pending))
            if not pending:
                return

    # ------------------------------------------------------------------ commands
    async def command(self, msg: dict[str, Any]) -> dict[str, Any]:
        """One browser command; the answer (sent back with the command's id)."""
        op = msg.get("op")
        handler = COMMANDS.get(op) if isinstance(op, str) else None
        if handler is None:
            raise BadCommand(f"unknown op {op!r}")
        spent: list[float] = []
        token = UPSTREAM.set(spent)
        try:
            answer: dict[str, Any] = await handler(self, msg)
        except grpc.RpcError as exc:
            answer = refusal(exc)
        finally:
            UPSTREAM.reset(token)
        answer.setdefault("ok", True)
        # The time this command waited on the matchmaker: what the relay adds is the rest
        # (the load test's figure; an operator's too, like a Server-Timing header).
        answer["upstream_ms"] = round(sum(spent) * 1000, 2)
        self.dirty.set()
        return answer

    async def do_start(self, msg: dict[str, Any]) -> dict[str, Any]:
        variant = _str(msg, "variant", "doudizhu3")
        if variant not in VARIANTS:
            raise BadCommand(f"variant must be one of {', '.join(VARIANTS)}")
        level = _str(msg, "bot_level", "auto")
        if level not in LEVELS:
            raise BadCommand(f"bot_level must be one of {', '.join(LEVELS)}")
        wait_s = _int(msg, "wait_s", 0, 3600, 0)
        request = M.EnqueueRequest(
            player_id=self.player,
            variant=variant,
            room=common_pb2.Room(stake=_int(msg, "stake", 1, 1000, 1)),
            bot_fill_after_ms=wait_s * 1000 if wait_s else 0,
            bot_level=level,
            private_code=_str(msg, "private_code", "", 32),
            request_id=uuid.uuid4().hex,
        )
        if self.b.bot_think_ms is not None:
            request.timers.bot_think_ms = self.b.bot_think_ms
        if request.private_code and not wait_s:
            request.bot_fill_after_ms = -1  # friends wait for each other unless told
        ticket = await self.call("Enqueue", request)
        await self.send({"t": "queued", "ticket_id": ticket.ticket_id,
                         "say": render.queued_text(variant, ticket.ticket_id)})  # fmt: skip
        self.spawn(self.wait_seated(ticket))
        return {"ticket_id": ticket.ticket_id}

    async def wait_seated(self, ticket: M.Ticket) -> None:
        with contextlib.suppress(grpc.RpcError, asyncio.CancelledError):
            call = self.b.mm.WatchTicket(
                M.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=self.b.mm_metadata()
            )
            async for t in call:
                if t.state == M.TICKET_STATE_SEATED:
                    await self.attach(t.table_id, 0)
                    with contextlib.suppress(grpc.RpcError):
                        await self.call("Ready", M.ReadyRequest(**self.ids()))
                    return
                if t.state != M.TICKET_STATE_QUEUED:
                    name = M.TicketState.Name(t.state)
                    await self.send({"t": "status", "say": render.ticket_ended_text(name)})
                    return

    async def act(self, action: engine_pb2.Action) -> dict[str, Any]:
        request = M.ActRequest(
            table_id=self.table_id,
            player_id=self.player,
            action=action,
            request_id=uuid.uuid4().hex,
        )
        answer = await self.call("Act", request)
        return {"seq": int(answer.seq), "game_over": answer.game_over}

    async def do_play(self, msg: dict[str, Any]) -> dict[str, Any]:
        cards = msg.get("cards")
        if not isinstance(cards, list) or not cards or not all(
            isinstance(c, str) and len(c) <= 3 for c in cards
        ) or len(cards) > 40:  # fmt: skip
            raise BadCommand('cards must be a list of cards such as ["3s", "3h"]')
        reading = _str(msg, "reading", "", 32)
        return await self.act(
            engine_pb2.Action(play=engine_pb2.PlayCards(cards=" ".join(cards), reading=reading))
        )

    async def do_pass(self, msg: dict[str, Any]) -> dict[str, Any]:
        action = engine_pb2.Action()
        setattr(action, "pass", True)  # a Python keyword
        return await self.act(action)

    async def do_bid(self, msg: dict[str, Any]) -> dict[str, Any]:
        return await self.act(engine_pb2.Action(bid=_int(msg, "bid", 1, 3, 1)))

    async def do_show_hand(self, msg: dict[str, Any]) -> dict[str, Any]:
        return await self.act(engine_pb2.Action(show_hand=True))

    async def do_autoplay(self, msg: dict[str, Any]) -> dict[str, Any]:
        on = msg.get("on")
        if not isinstance(on, bool):
            raise BadCommand("on must be true or false")
        return await self.act(engine_pb2.Action(autoplay=on))

    async def do_hint(self, msg: dict[str, Any]) -> dict[str, Any]:
        answer = await self.call("GetHint", M.HintRequest(**self.ids()))
        if not answer.HasField("hint"):
            return {"hint": None}
        hint = answer.hint
        kind = hint.WhichOneof("kind")
        if kind == "play":
            return {"hint": "play", "cards": convert.card_list(hint.play.cards),
                    "reading": hint.play.reading}  # fmt: skip
        if kind == "bid":
            return {"hint": "bid", "bid": hint.bid}
        return {"hint": kind or "pass"}

    async def do_ready(self, msg: dict[str, Any]) -> dict[str, Any]:
        await self.call("Ready", M.ReadyRequest(**self.ids()))
        return {}

    async def do_leave(self, msg: dict[str, Any]) -> dict[str, Any]:
        snap = await self.call("LeaveTable", M.LeaveTableRequest(**self.ids()))
        await self.send(convert.snapshot_json(snap, self.players) | {"left": True})
        # The stream goes on to its end by itself: the escape's game_over and player_left.
        return {"left": True}

    async def do_ping(self, msg: dict[str, Any]) -> dict[str, Any]:
        return {"now_ms": int(time.time() * 1000)}


COMMANDS: dict[str, Callable[[SeatRelay, dict[str, Any]], Awaitable[dict[str, Any]]]] = {
    "start": SeatRelay.do_start,
    "play": SeatRelay.do_play,
    "pass": SeatRelay.do_pass,
    "bid": SeatRelay.do_bid,
    "show_hand": SeatRelay.do_show_hand,
    "autoplay": SeatRelay.do_autoplay,
    "hint": SeatRelay.do_hint,
    "ready": SeatRelay.do_ready,
    "leave": SeatRelay.do_leave,
    "ping": SeatRelay.do_ping,
}
