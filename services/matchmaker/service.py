"""The matchmaker's gRPC servicer: checks every field, converts messages, and calls the runner
(services/matchmaker/runner.py) and the store.  It holds no table state of its own: every call
reads the database, so any instance can serve it.

Every refusal is a ServiceError with a reason; the engine's reasons pass through unchanged.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import math
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import grpc
from sqlalchemy.exc import DBAPIError

from services import rules
from services.common import auth, grpc_errors, limits, wire
from services.common import logging as clog
from services.common.db import database_unavailable
from services.common.fields import json_object, room_of, variant_in_room
from services.common.grpc_errors import ServiceError, failed, invalid, missing, not_found
from services.common.reasons import ServiceReason
from services.common.server import add_service
from services.common.wire import engine_pb2, matchmaker_pb2, replay_pb2
from services.ratings.tables import PlayerRating

from . import access as acc
from .bots import AUTO_LEVEL, LEVELS
from .commands import Commands, seat_or_refuse
from .runner import Runner
from .store import EVENTS_PAGE, HeldError, now_ms, room_message, ticket_pool_key
from .table import Table

M = matchmaker_pb2
SERVICE = M.DESCRIPTOR.services_by_name["MatchmakerService"]
SERVICE_NAME = SERVICE.full_name
log = clog.get_logger("cardroom.matchmaker")
#: Table events after which a seat's stream checks that the seat is still its own.
DEPARTURES = frozenset({"player_left", "table_closed"})

DEFAULT_BOT_FILL_MS = 10_000
MAX_TIMER_MS = 24 * 3600 * 1000
MAX_CODE = 64
TICKET_STATES = {
    "queued": M.TICKET_STATE_QUEUED,
    "seated": M.TICKET_STATE_SEATED,
    "cancelled": M.TICKET_STATE_CANCELLED,
    "expired": M.TICKET_STATE_EXPIRED,
}
TABLE_STATES = {
    "waiting": M.TABLE_STATE_WAITING,
    "playing": M.TABLE_STATE_PLAYING,
    "closed": M.TABLE_STATE_CLOSED,
}
STATE_NAMES = {v: k for k, v in TABLE_STATES.items()}

#: How often an idle seat stream re-reads while PostgreSQL LISTEN wakes it (seconds): a
#: safety net only (the Waker wakes every stream when LISTEN goes or comes back).  A quiet
#: stream's read costs a database round trip: at 2 s, the streams of people thinking or
#: timing out were still most of the stream path's reads.
LISTENING_POLL_S = 5.0
#: How often a quiet seat stream checks that its seat is still its own (seconds): a safety
#: net only, since every departure is an event in the table's log.
SEAT_CHECK_S = 10.0

rpc = grpc_errors.refusing((ServiceError, limits.LimitError, DBAPIError), lambda e: as_error(e))


def as_error(exc: Exception) -> ServiceError:
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, DBAPIError):
        if database_unavailable(exc):  # after the runner's one retry
            return ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                ServiceReason.DATABASE_UNAVAILABLE,
                "the database is unavailable; try again",
            )
        raise exc  # a bug: the runner's INTERNAL, logged
    if isinstance(exc, limits.LimitError):
        if exc.missing:
            return missing(exc.field)
        return invalid(exc.reason, str(exc), exc.field)
    return invalid(ServiceReason.INVALID_FIELD, str(exc))  # pragma: no cover


def _ts(ms: int | None, msg: Any) -> None:
    if ms is not None:
        msg.FromMilliseconds(int(ms))


# --------------------------------------------------------------------------- conversions
def ticket_message(row: dict[str, Any]) -> M.Ticket:
    players = list(row["players"])
    msg = M.Ticket(
        ticket_id=row["ticket_id"],
        player_id=row["player_id"],
        party=players[1:],
        variant=row["variant"],
        state=TICKET_STATES.get(row["state"], M.TICKET_STATE_UNSPECIFIED),
        table_id=row["table_id"] or "",
        seats=list(row["seats"] or []),
    )
    _ts(row["created_ms"], msg.created_at)
    _ts(row["expires_ms"], msg.expires_at)
    return msg


def seat_messages(table: Table) -> list[M.Seat]:
    out = []
    for i, s in enumerate(table.seats):
        msg = M.Seat(
            seat=i,
            player_id=s.player_id,
            bot=s.bot,
            ready=s.ready,
            connected=s.connected,
            autoplay=s.autoplay,
            total=s.total,
        )
        if s.last_action is not None:
            msg.last_action = s.last_action
        out.append(msg)
    return out


def snapshot(table: Table, seat: int, view: engine_pb2.View | None) -> M.TableSnapshot:
    msg = M.TableSnapshot(
        table_id=table.table_id,
        variant=table.variant,
        state=TABLE_STATES.get(table.state, M.TABLE_STATE_UNSPECIFIED),
        seq=table.seq,
        seats=seat_messages(table),
        seat=seat,
        game_id=table.game_id or "",
        game_no=table.game_no,
        last_scores=list(table.last_scores or []),
        last_settlement_json=table.last_settlement or "",
        room=room_message(table.config),
    )
    if table.last_settlement:
        settlement = json.loads(table.last_settlement)
        wire.settlement_of_dict(settlement, msg.last_settlement)
    if view is not None:
        msg.view.CopyFrom(view)
    if table.state == "playing" and table.turn_deadline_ms is not None:
        _ts(table.turn_deadline_ms, msg.deadline)
        msg.deadline_kind = "turn"
    elif table.state == "waiting" and table.start_deadline_ms is not None:
        _ts(table.start_deadline_ms, msg.deadline)
        msg.deadline_kind = "start"
    return msg


def _timer(msg: M.Timers, name: str, default: int) -> int:
    if not msg.HasField(name):
        return default
    value = int(getattr(msg, name))
    if not 0 <= value <= MAX_TIMER_MS:
        raise invalid(
            ServiceReason.INVALID_FIELD, f"timers.{name} must be 0–{MAX_TIMER_MS}", f"timers.{name}"
        )
    return value


def config_of(request: M.EnqueueRequest) -> tuple[dict[str, Any], rules.Variant]:
    """The table configuration a ticket asks for (checked), and its variant in its room."""
    room = room_of(request.room)
    v = variant_in_room(request.variant, room)
    level = request.bot_level or AUTO_LEVEL
    if level not in LEVELS and level != AUTO_LEVEL:
        known = ", ".join([*LEVELS, AUTO_LEVEL])
        raise invalid(ServiceReason.INVALID_FIELD, f"bot_level is one of {known}", "bot_level")
    code = limits.check_id(request.private_code, "private_code", MAX_CODE, required=False)
    t = request.timers
    defaults = room.timers  # the room's table settings (RULES.md §6 defaults)
    timers = {
        "bid_ms": _timer(t, "bid_ms", defaults.bid_timeout_s * 1000),
        "turn_ms": _timer(t, "turn_ms", defaults.turn_timeout_s * 1000),
        "start_ms": _timer(t, "start_ms", defaults.start_timeout_s * 1000),
        "grace_ms": _timer(t, "grace_ms", defaults.disconnect_grace_s * 1000),
        "bot_think_ms": _timer(t, "bot_think_ms", 1000),
    }
    stored_room: dict[str, Any] = {
        "stake": request.room.stake or 1,
        "max_multiplier": request.room.max_multiplier
        if request.room.HasField("max_multiplier")
        else None,
        "escape_multiplier": request.room.escape_multiplier
        if request.room.HasField("escape_multiplier")
        else None,
        # Blank is {} (as room_of read it); room_of has refused any other bad JSON by name.
        "overrides_json": json.dumps(
            json_object(request.room.overrides_json, "room.overrides_json"), sort_keys=True
        ),
    }
    config = {
        "variant": v.name,
        "players": v.players,
        "room": stored_room,
        "timers": timers,
        "bot_level": level,
        "private_code": code,
    }
    return config, v


# --------------------------------------------------------------------------- servicer
class MatchmakerServicer:
    def __init__(self, runner: Runner, access: acc.Access) -> None:
        self.runner = runner
        self.commands = Commands(runner)
        self.store = runner.store
        self.access = access

    def stop_streams(self) -> None:
        """A graceful stop: Subscribe and WatchTicket streams end (SERVER_STOPPING)."""
        self.runner.waker.stop()

    def who(self, context: Any, player_id: str | None = None) -> Any:
        who = self.access.who(context.invocation_metadata())
        if player_id is not None:
            acc.may_act(who, player_id)
        return who

    @staticmethod
    def _ids(request: Any) -> tuple[str, str]:
        table_id = limits.table_id(request.table_id, "table_id")
        player = limits.player_id(request.player_id, "player_id")
        return table_id, player

    # ------------------------------------------------------------------ tickets
    @rpc
    async def Enqueue(self, request: M.EnqueueRequest, context: Any) -> M.Ticket:
        player = limits.player_id(request.player_id, "player_id")
        who = self.who(context, player)
        if request.party and who.role == acc.PLAYER:
            # Naming others would hold their places in the queue (or seat them) without them:
            # friends sit together through private_code, each with their own credential.
            raise auth.denied(
                "a player credential enqueues only its own player: leave party empty and "
                "share a private_code instead"
            )
        players = [player]
        for i, p in enumerate(request.party):
            limits.player_id(p, f"party[{i}]")
            if p in players:
                raise invalid(ServiceReason.INVALID_FIELD, f"{p!r} is named twice", f"party[{i}]")
            if p.startswith("bot:"):
                raise invalid(
                    ServiceReason.INVALID_FIELD, "bot ids are the matchmaker's", f"party[{i}]"
                )
            players.append(p)
        if player.startswith("bot:"):
            raise invalid(ServiceReason.INVALID_FIELD, "bot ids are the matchmaker's", "player_id")
        if request.request_id:
            limits.request_id(request.request_id)
        config, v = config_of(request)
        if len(players) > v.players:
            raise invalid(
                ServiceReason.INVALID_FIELD, f"{v.name} seats {v.players} players", "party"
            )
        if request.HasField("bot_fill_after_ms"):
            fill = request.bot_fill_after_ms
        else:
            fill = -1 if config["private_code"] else DEFAULT_BOT_FILL_MS
        fill = max(-1, min(fill, MAX_TIMER_MS))
        try:
            row, replayed = await self.runner.db(
                self.store.enqueue,
                player_id=player,
                players=players,
                config=config,
                request_id=request.request_id,
                fill_after_ms=fill,
                ttl_ms=self.runner.settings.ticket_ttl_ms,
            )
        except HeldError as exc:
            reason = ServiceReason.ALREADY_SEATED if exc.seated else ServiceReason.ALREADY_QUEUED
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS, reason,
                f"{exc.player_id!r} already holds a {'seat' if exc.seated else 'ticket'}",
            ) from None  # fmt: skip
        if replayed and (row["players"] != players or row["config"] != config):
            raise failed(
                ServiceReason.REQUEST_ID_REUSED,
                "this request id was used for another Enqueue (another player, party or table)",
            )
        if row["state"] == "queued":
            await self.runner.schedule.queued(row)
            fresh = await self.runner.db(self.store.ticket, row["ticket_id"])
            row = fresh or row
        return ticket_message(row)

    async def _ticket(self, ticket_id: str, context: Any, touch: bool) -> dict[str, Any]:
        limits.check_id(ticket_id, "ticket_id", limits.MAX_GAME_ID)
        ttl = self.runner.settings.ticket_ttl_ms if touch else 0
        row = await self.runner.db(self.store.ticket, ticket_id, ttl)
        if row is None:
            raise not_found(ServiceReason.TICKET_NOT_FOUND, f"no ticket {ticket_id!r}")
        # Every player a ticket holds may read and cancel it, not only the one who asked.
        acc.may_act_for_one_of(self.who(context), row["players"])
        return row

    @rpc
    async def GetTicket(self, request: M.GetTicketRequest, context: Any) -> M.Ticket:
        return ticket_message(await self._ticket(request.ticket_id, context, True))

    @rpc
    async def CancelTicket(self, request: M.CancelTicketRequest, context: Any) -> M.Ticket:
        await self._ticket(request.ticket_id, context, False)
        row, done = await self.runner.db(self.store.cancel, request.ticket_id)
        if row is None:  # pragma: no cover - checked above
            raise not_found(ServiceReason.TICKET_NOT_FOUND, f"no ticket {request.ticket_id!r}")
        if not done:
            raise failed(ServiceReason.TICKET_CLOSED, f"the ticket is {row['state']}")
        self.runner.waker.wake(ticket_pool_key(row["pool"]))  # its WatchTicket streams
        return ticket_message(row)

    @rpc
    async def WatchTicket(self, request: M.GetTicketRequest, context: Any) -> AsyncIterator[Any]:
        last = None
        waker = self.runner.waker
        armed = None
        while True:
            row = await self._ticket(request.ticket_id, context, True)
            msg = ticket_message(row)
            key = (msg.state, msg.table_id)
            if key != last:
                last = key
                yield msg
            if row["state"] != "queued":
                return
            # Woken when the ticket's pool seats or cancels tickets (here, or NOTIFY from
            # another instance); polling beneath is the safety net (and expiry's way).
            # Armed before the next read, so a seating between the read and the wait is
            # not missed.
            wake_key = ticket_pool_key(row["pool"])
            if armed is None:
                armed = waker.future(wake_key)
                continue  # armed after the first read: read once more
            poll = self.runner.settings.poll_interval_s
            if waker.listening:
                poll = max(poll, LISTENING_POLL_S)
            await waker.wait(wake_key, poll, armed)
            if waker.stopped:
                raise grpc_errors.server_stopping()
            armed = waker.future(wake_key)

    # ------------------------------------------------------------------ tables
    async def _seated(self, request: Any, context: Any) -> tuple[Table, int, str]:
        table_id, player = self._ids(request)
        self.who(context, player)
        table = await self.runner.load(table_id)
        return table, seat_or_refuse(table, player), player

    @rpc
    async def Subscribe(self, request: M.SubscribeRequest, context: Any) -> AsyncIterator[Any]:
        async with contextlib.aclosing(self._seat_stream(request, context)) as reads:
            async for events in reads:
                for ev in events:
                    yield ev

    @rpc
    async def SubscribeBatched(
        self, request: M.SubscribeRequest, context: Any
    ) -> AsyncIterator[Any]:
        async with contextlib.aclosing(self._seat_stream(request, context)) as reads:
            async for events in reads:
                yield M.TableEventBatch(events=events)

    async def _seat_stream(
        self, request: M.SubscribeRequest, context: Any
    ) -> AsyncGenerator[list[M.TableEvent], None]:
        """The seat's stream (Subscribe, SubscribeBatched): the events each read of the log
        finds that the seat may see, never an empty list.  Open, the seat is connected; its
        end (the client gone, the seat's departure, a graceful stop) starts the grace."""
        after = limits.seq(request.after_seq, "after_seq")
        with self.commands.opening(after):
            table, seat, player = await self._seated(request, context)
            table_id = table.table_id
            stream_id = await self.commands.connected(table_id, seat, player)
        waker = self.runner.waker
        loop = asyncio.get_running_loop()
        woken = False
        checked = loop.time()
        try:
            while True:
                # One read per wake-up: the wake-up is armed before the read, so a write
                # that lands meanwhile is not missed, and the wait can be long while LISTEN
                # delivers wake-ups.  This instance's own writes come from memory (every
                # stream of the table reading the log after each move was most of the
                # stream path's database work); another instance's, from the log.
                armed = waker.future(table_id)
                rows, after, full = await self._events_after(table_id, seat, after)
                departed = any(ev.type in DEPARTURES for ev in rows)
                if rows:
                    yield rows
                if full:
                    continue
                # Hundreds of idle streams polling 4×/s each were most of an instance's load:
                # with LISTEN up (or on SQLite), polling is only the safety net beneath it.
                poll = self.runner.settings.poll_interval_s
                if waker.hears_every_write:
                    poll = max(poll, LISTENING_POLL_S)
                quiet = not rows and not woken
                if not departed and (not quiet or loop.time() - checked < SEAT_CHECK_S):
                    # New events, a wake-up for events this seat may not see, or a quiet
                    # poll soon after the last check: every departure is an event of the
                    # log (player_left, table_closed), so the seat is checked on one, and
                    # on a quiet poll only now and then, as a safety net.
                    woken = await waker.wait(table_id, poll, armed)
                    if waker.stopped:
                        raise grpc_errors.server_stopping()
                    continue
                # Someone left, or nothing new for a while: is this seat still ours?
                checked = loop.time()
                now = await self.runner.stream_db(self.store.load, table_id)
                if now is None or now.state == "closed" or now.seat_of(player) != seat:
                    # Gone: end once every event before the departure is delivered.
                    rows, after, _ = await self._events_after(table_id, seat, after)
                    if rows:
                        yield rows
                    return
                woken = await waker.wait(table_id, poll, armed)
                if waker.stopped:
                    raise grpc_errors.server_stopping()
        finally:
            self.runner.spawn(self.commands.disconnected(stream_id, table_id, seat, player))

    async def _events_after(
        self, table_id: str, seat: int, after: int
    ) -> tuple[list[M.TableEvent], int, bool]:
        """The table's events after seq ``after`` that ``seat`` may see, the seq the next
        read starts after, and whether the log's page was full (read again at once): from
        this instance's memory of its own writes when it has them all, else from the log."""
        mine = self.runner.waker.written(table_id, after)
        # Typed bodies are filled as events are sent (once per event held in memory: the fill
        # leaves a filled one as it is).
        with_body = wire.table_event_with_body
        if mine is not None:
            upto, written = mine
            return [with_body(ev) for _, to, ev in written if rules.may_see(to, seat)], upto, False
        read = await self.runner.stream_db(self.store.events_after, table_id, seat, after)
        seen = [
            with_body(M.TableEvent.FromString(r.body))
            for r in read
            if rules.may_see(r.to_seat, seat)
        ]
        return seen, read[-1].seq if read else after, len(read) >= EVENTS_PAGE

    @rpc
    async def GetTable(self, request: M.GetTableRequest, context: Any) -> M.TableSnapshot:
        table, seat, _ = await self._seated(request, context)
        return snapshot(table, seat, await self.commands.seat_view(table, seat))

    @rpc
    async def Ready(self, request: M.ReadyRequest, context: Any) -> M.TableSnapshot:
        table_id, player = self._ids(request)
        self.who(context, player)
        table = await self.commands.ready(table_id, player)
        seat = table.seat_of(player)
        return snapshot(table, seat if seat is not None else -1, None)

    @rpc
    async def Act(self, request: M.ActRequest, context: Any) -> M.ActResponse:
        _table_id, player = self._ids(request)
        self.who(context, player)
        if not request.HasField("action") or request.action.WhichOneof("kind") is None:
            raise missing("action")
        if request.request_id:
            limits.request_id(request.request_id)
        if request.HasField("expected_seq"):
            limits.seq(request.expected_seq, "expected_seq")
        return await self.commands.act(request)

    @rpc
    async def GetHint(self, request: M.HintRequest, context: Any) -> engine_pb2.GetHintResponse:
        table_id, player = self._ids(request)
        self.who(context, player)
        return await self.commands.hint(table_id, player)

    @rpc
    async def LeaveTable(self, request: M.LeaveTableRequest, context: Any) -> M.TableSnapshot:
        table_id, player = self._ids(request)
        self.who(context, player)
        table = await self.commands.leave(table_id, player)
        return snapshot(table, -1, None)

    # ------------------------------------------------------------------ players, operators
    @rpc
    async def GetPlayer(self, request: M.GetPlayerRequest, context: Any) -> M.PlayerInfo:
        player = limits.player_id(request.player_id, "player_id")
        self.who(context, player)
        # The matchmaker's own record, written with each game's game_over: never behind
        # what the player's table just showed, and there while replay is down.
        rows = await self.runner.db(self.store.player_stats, player)
        out = M.PlayerInfo(
            player_id=player,
            totals=[
                replay_pb2.FamilyTotal(
                    family=r["family"], games=r["games"], total=r["total"],
                    last_game_id=r["last_game_id"], last_score=r["last_score"],
                )
                for r in rows
            ],
        )  # fmt: skip
        if rows:
            last = max(rows, key=lambda r: r["last_ended_ms"])
            out.last_game_id, out.last_score = last["last_game_id"], last["last_score"]
        zsy = [r["total"] for r in rows if r["family"] == "zhengshangyou"]
        if zsy:  # titles are Zheng Shangyou's alone (RULES.md §5.4): none before one is played
            level, chinese, english = rules.title_for(sum(zsy))
            out.title.CopyFrom(
                replay_pb2.PlayerTitle(level=level, chinese=chinese, english=english)
            )
        hold = await self.runner.db(self.store.holder, player)
        if hold is not None:
            out.ticket_id = hold["ticket_id"] or ""
            out.table_id = hold["table_id"] or ""
        await self._ratings(out)
        return out

    async def _ratings(self, out: M.PlayerInfo) -> None:
        """The player's ratings, and the last game's change once replay has rated it.  The
        change is read first: replay writes a game's change and the ratings it made in one
        transaction, so ratings read after a change always include it.  Read the other way
        round, a game rated between the two reads gave its change beside ratings from
        before it (a first game's change with no rating: not marked provisional)."""
        change = None
        if out.last_game_id:
            change = await self.runner.db(self.store.rating_change, out.last_game_id, out.player_id)
        for r in await self.runner.db(self.store.player_ratings, out.player_id):
            out.ratings.append(rating_message(r))
        if change is not None:
            out.last_rating_change.CopyFrom(
                wire.rating_change(out.last_game_id, change["variant"], change)
            )

    @rpc
    async def ListLeaderboard(
        self, request: M.ListLeaderboardRequest, context: Any
    ) -> M.ListLeaderboardResponse:
        self.who(context)
        if not request.variant:
            raise missing("variant")
        try:
            variant = rules.variant(request.variant[:64]).name
        except rules.VariantError as exc:
            raise invalid(ServiceReason.UNKNOWN_VARIANT, str(exc), "variant") from None
        size = request.page_size or 50
        if not 1 <= size <= 500:
            raise invalid(ServiceReason.INVALID_FIELD, "page_size must be 1–500", "page_size")
        after = page_after(request.page_token, variant) if request.page_token else None
        rows = await self.runner.db(self.store.leaderboard, variant, after, size)
        out = M.ListLeaderboardResponse(entries=[rating_message(r) for r in rows])
        if len(rows) == size:
            last = rows[-1]
            out.next_page_token = page_token(
                variant, last.rating.ordinal, last.player_id, last.rank
            )
        return out

    @rpc
    async def ListTables(self, request: M.ListTablesRequest, context: Any) -> M.ListTablesResponse:
        acc.operator(self.who(context))
        size = request.page_size or 50
        if not 1 <= size <= 500:
            raise invalid(ServiceReason.INVALID_FIELD, "page_size must be 1–500", "page_size")
        if request.state and request.state not in STATE_NAMES:
            raise invalid(ServiceReason.INVALID_FIELD, "unknown table state", "state")
        variant = ""
        if request.variant:
            try:
                variant = rules.variant(request.variant[:64]).name
            except rules.VariantError as exc:
                raise invalid(ServiceReason.UNKNOWN_VARIANT, str(exc), "variant") from None
        rows = await self.runner.db(
            self.store.list_tables, variant, STATE_NAMES.get(request.state, ""), size
        )
        out = M.ListTablesResponse()
        for t in rows:
            summary = out.tables.add(
                table_id=t.table_id, variant=t.variant,
                state=TABLE_STATES.get(t.state, M.TABLE_STATE_UNSPECIFIED),
                seq=t.seq, game_no=t.game_no, seats=seat_messages(t),
            )  # fmt: skip
            _ts(t.created_ms, summary.created_at)
        return out

    @rpc
    async def GetStatus(self, request: M.GetStatusRequest, context: Any) -> M.StatusResponse:
        acc.operator(self.who(context))
        db_ok = await self.runner.db(self.store.ping)
        engine_ok, replay_ok = await asyncio.gather(
            self.runner.engine.healthy(), self.runner.replay.healthy()
        )
        out = M.StatusResponse(
            database_ok=db_ok, engine_ok=engine_ok, replay_ok=replay_ok,
            instance=self.runner.instance, actions_applied=self.runner.applied,
        )  # fmt: skip
        if db_ok:
            pending, lag = await self.runner.db(self.store.outbox_lag)
            running, queued = await self.runner.db(self.store.counts)
            out.outbox_pending, out.outbox_lag_s = pending, lag
            out.tables_running, out.tickets_queued = running, queued
        return out


def rating_message(r: PlayerRating) -> M.PlayerRating:
    return M.PlayerRating(
        player_id=r.player_id, variant=r.variant, mu=r.rating.mu, sigma=r.rating.sigma,
        display=r.rating.display, provisional=r.provisional, games=r.games, rank=r.rank,
    )  # fmt: skip


MAX_PAGE_TOKEN = 1024


def page_token(variant: str, ordinal: float, player_id: str, rank: int) -> str:
    """An opaque token for the leaderboard page after (ordinal, player_id) at ``rank``."""
    raw = json.dumps([variant, ordinal.hex(), player_id, rank], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def page_after(token: str, variant: str) -> tuple[float, str, int]:
    """The (ordinal, player id, rank) a page token names; INVALID_FIELD when it is not one
    this service made for ``variant``."""
    bad = invalid(
        ServiceReason.INVALID_FIELD, "page_token is not a leaderboard token", "page_token"
    )
    if len(token) > MAX_PAGE_TOKEN:  # ours are a few hundred characters at most
        raise bad
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        kind, ordinal_hex, player_id, rank = data
        ordinal = float.fromhex(ordinal_hex)
    except (ValueError, TypeError, UnicodeError, binascii.Error, RecursionError):
        raise bad from None
    if (
        kind != variant or not isinstance(player_id, str) or not isinstance(rank, int)
        or isinstance(rank, bool) or not 0 < rank < 2**31 or not math.isfinite(ordinal)
        or not 0 < len(player_id) <= limits.MAX_PLAYER_ID
    ):  # fmt: skip
        raise bad
    return ordinal, player_id, rank


def add_to_server(server: grpc.aio.Server, servicer: MatchmakerServicer) -> Sequence[str]:
    """Register the servicer through the shared runner path (services/common/server.py): the
    access log, unparsable bodies refused, streams included."""
    return [add_service(server, SERVICE_NAME, servicer)]


__all__ = ["MatchmakerServicer", "add_to_server", "now_ms"]
