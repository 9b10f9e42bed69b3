"""The replay service's gRPC servicer: it checks the caller's credential and the request's
fields, converts messages, and delegates to :class:`~services.replay.games.ReplayGames` and
the store (DESIGN.md principle 4).  Database calls run on a thread pool, so a slow query or a
SQLite writer waiting for the lock never stalls the event loop that serves every other call.

Every refusal is a :class:`~services.common.grpc_errors.ServiceError` with a reason code;
nothing a client sends surfaces as INTERNAL or UNKNOWN.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import grpc
from sqlalchemy.exc import OperationalError

from services import rules
from services.common import grpc_errors, limits, metrics, wire
from services.common import logging as clog
from services.common.fields import MAX_JSON, limited, rules_error, text
from services.common.grpc_errors import ServiceError, invalid
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import (
    HEADER,
    common_pb2,
    data_of,
    dumps,
    replay_pb2,
    seat_of_event,
    with_body,
)

from .access import AccessPolicy, Principal, reads_everything, require_reader, require_writer
from .events import EventError, timestamp_of
from .follow import EventFollower
from .games import GameRefused, ReplayGames, Verification
from .store import BadAppend, EventStore, GameNotFound, GameRow, SeqConflict, WriteConflict

log = clog.get_logger("cardroom.replay")

STATUS_OF = {
    "running": replay_pb2.REPLAY_GAME_STATUS_RUNNING,
    "finished": replay_pb2.REPLAY_GAME_STATUS_FINISHED,
    "escaped": replay_pb2.REPLAY_GAME_STATUS_ESCAPED,
    "disbanded": replay_pb2.REPLAY_GAME_STATUS_DISBANDED,
    "redeal": replay_pb2.REPLAY_GAME_STATUS_REDEAL,
}
NAME_OF_STATUS = {v: k for k, v in STATUS_OF.items()}
MAX_ID = limits.MAX_GAME_ID
MAX_PAGE = 500
DEFAULT_PAGE = 50
STREAM_BATCH = 500
#: How often a following stream looks for a notification (cheap, in memory) between reads of
#: the game's head (a query, every poll interval).
WAKE_CHECK_S = 0.02

_INVALID_APPEND: dict[str, str] = {
    ServiceReason.BAD_GAME_ID: "game_id",
    ServiceReason.BAD_REQUEST_ID: "request_id",
    ServiceReason.NO_EVENTS: "events",
}


def replay_error(exc: Exception) -> ServiceError:
    """The service error for what the replay layers raised."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, limits.LimitError):
        return limited(exc)
    if isinstance(exc, SeqConflict):
        return ServiceError(
            grpc.StatusCode.ABORTED,
            exc.reason,
            str(exc),
            metadata={"expected": str(exc.expected), "actual": str(exc.actual)},
        )
    if isinstance(exc, WriteConflict):
        # Another constraint than the head's: never a SEQ_CONFLICT, and never SQL to a caller.
        return ServiceError(
            grpc.StatusCode.ABORTED, exc.reason, str(exc), metadata={"constraint": exc.constraint}
        )
    if isinstance(exc, GameNotFound):
        return ServiceError(grpc.StatusCode.NOT_FOUND, exc.reason, str(exc), "game_id")
    if isinstance(exc, BadAppend):
        if exc.reason == RulesReason.GAME_OVER:
            return grpc_errors.failed(exc.reason, str(exc))
        return invalid(exc.reason, str(exc), _INVALID_APPEND.get(exc.reason))
    if isinstance(exc, EventError):
        return invalid(exc.reason, str(exc), exc.field)
    if isinstance(exc, GameRefused):
        code = (
            grpc.StatusCode.ALREADY_EXISTS
            if exc.reason == ServiceReason.GAME_EXISTS
            else grpc.StatusCode.FAILED_PRECONDITION
        )
        return ServiceError(code, exc.reason, str(exc), metadata=exc.metadata)
    if isinstance(exc, (rules.RulesError, rules.VariantError)):
        err = rules_error(exc, "record_json")
        if err.field and err.field != "record_json":
            err.field = f"record_json.{err.field}"
        return err
    if isinstance(exc, OperationalError):
        return ServiceError(
            grpc.StatusCode.UNAVAILABLE,
            ServiceReason.DATABASE_UNAVAILABLE,
            "the database is unavailable",
        )
    raise exc


_HANDLED = (
    ServiceError,
    limits.LimitError,
    SeqConflict,
    WriteConflict,
    GameNotFound,
    BadAppend,
    EventError,
    GameRefused,
    rules.RulesError,
    rules.VariantError,
    OperationalError,
)


# What the layers below raise for bad input ends a unary call with its status.
rpc = grpc_errors.refusing(_HANDLED, replay_error)


# --------------------------------------------------------------------------- conversions
def summary(game: GameRow) -> replay_pb2.GameSummary:
    msg = replay_pb2.GameSummary(
        game_id=game.game_id,
        variant=game.variant,
        rules_version=game.rules_version,
        status=STATUS_OF.get(game.status, replay_pb2.REPLAY_GAME_STATUS_UNSPECIFIED),
        created_at=timestamp_of(game.created_at),
        head_seq=game.head_seq,
        head_hash=game.head_hash,
        players=game.players,
    )
    if game.ended_at is not None:
        msg.ended_at.CopyFrom(timestamp_of(game.ended_at))
    if game.result:
        msg.result_json = dumps(game.result)
        scores = game.result.get("scores")
        if isinstance(scores, list):
            msg.scores.extend(int(s) for s in scores)
    return msg


def verification_message(v: Verification) -> replay_pb2.VerifyGameResponse:
    return replay_pb2.VerifyGameResponse(
        ok=v.ok,
        chain_ok=v.chain_ok,
        replay_ok=v.replay_ok,
        first_bad_seq=v.first_bad_seq,
        reason=v.reason,
        detail=v.detail,
        events=v.events,
        head_hash=v.head_hash,
        settlement_json=dumps(v.settlement) if v.settlement is not None else "",
    )


def project(event: common_pb2.Event, seat: int) -> common_pb2.Event | None:
    """What ``seat`` saw of an event as the game ran (RULES.md §7): another seat's private
    event not at all, and the header (for auditors only) without its deal: a seed would reveal
    every hand."""
    private_to = seat_of_event(event)
    if private_to is not None and private_to != seat:
        return None
    if event.type != HEADER:
        if event.envelope.visibility == common_pb2.VISIBILITY_AUDITOR:
            return None
        return event
    data = data_of(event)
    data.pop("deal", None)
    out = common_pb2.Event()
    out.CopyFrom(event)
    out.data_json = dumps(data)
    return out


def page_token(game: GameRow) -> str:
    raw = json.dumps([game.created_at.isoformat(), game.game_id]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def after_of(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    try:
        stamp, game_id = json.loads(base64.urlsafe_b64decode(token.encode()))
        limits.game_id(game_id, "page_token")
        return datetime.fromisoformat(stamp), game_id
    except (ValueError, TypeError):
        raise invalid(
            ServiceReason.BAD_PAGE_TOKEN, "page_token is not one this service gave", "page_token"
        ) from None


def _id(value: str, field: str) -> str:
    return limits.game_id(value, field, reason=ServiceReason.BAD_GAME_ID)


# --------------------------------------------------------------------------- the servicer
class ReplayServicer:
    """Implements cardroom.v1.ReplayService (registered by :func:`server.add_to_server`)."""

    def __init__(
        self,
        store: EventStore,
        access: AccessPolicy,
        poll_interval: float = 0.25,
        threads: int = 16,
    ) -> None:
        self.store = store
        self.games = ReplayGames(store)
        self.access = access
        self.follower = EventFollower(store, poll_interval=poll_interval)
        self.poll_interval = poll_interval
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="replay-db")
        #: Set at a graceful stop: followed streams end (SERVER_STOPPING).
        self.stopping = False

    def stop_streams(self) -> None:
        self.stopping = True

    def close(self) -> None:
        self.follower.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.store.engine.dispose()

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(
            self._pool, functools.partial(fn, *args)
        )

    def _who(self, context: grpc.aio.ServicerContext[Any, Any]) -> Principal:
        return self.access.principal(context.invocation_metadata())

    async def _readable(self, who: Principal, game_id: str) -> GameRow:
        game: GameRow = await self._run(self.store.game, _id(game_id, "game_id"))
        require_reader(who, game.status, game.players)
        return game

    # ------------------------------------------------------------------ writing
    @rpc
    async def AppendEvents(
        self, request: replay_pb2.AppendEventsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.AppendEventsResponse:
        require_writer(self._who(context))
        game_id = _id(request.game_id, "game_id")
        request_id = limits.request_id(request.request_id, reason=ServiceReason.BAD_REQUEST_ID)
        limits.seq(request.expected_seq, "expected_seq")
        limits.seq(request.expected_seq + len(request.events), "events")
        result, status = await self._run(
            self.games.append, game_id, request.expected_seq, list(request.events), request_id
        )
        self.follower.wake(game_id)  # streams of this process need not wait for a poll
        if not result.replayed:
            metrics.REPLAY_APPENDS.inc(max(0, result.last_seq - result.first_seq + 1))
        return replay_pb2.AppendEventsResponse(
            first_seq=result.first_seq,
            last_seq=result.last_seq,
            head_hash=result.head_hash,
            replayed=result.replayed,
            status=STATUS_OF.get(status, replay_pb2.REPLAY_GAME_STATUS_UNSPECIFIED),
        )

    @rpc
    async def ImportGame(
        self, request: replay_pb2.ImportGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.ImportGameResponse:
        require_writer(self._who(context), auditors_too=True)
        raw = text(request.record_json, "record_json", limit=MAX_JSON * 16)
        game_id = limits.game_id(request.game_id, required=False, reason=ServiceReason.BAD_GAME_ID)
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise invalid(
                RulesReason.BAD_RECORD, f"record_json is not JSON: {exc}", "record_json"
            ) from None
        done = await self._run(self.games.import_record, data, game_id)
        self.follower.wake(done.game.game_id)
        return replay_pb2.ImportGameResponse(
            game=summary(done.game),
            verification=verification_message(done.verification),
            replayed=done.replayed,
        )

    # ------------------------------------------------------------------ reading
    @rpc
    async def GetGame(
        self, request: replay_pb2.GetGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.GetGameResponse:
        game = await self._readable(self._who(context), request.game_id)
        header = await self._run(self.games.header, game.game_id)
        out = replay_pb2.GetGameResponse(game=summary(game), header_json=dumps(header))
        rated = await self._run(self.games.store.rating_changes, game.game_id)
        if rated is not None:
            variant, changes = rated
            out.rating_changes.extend(wire.rating_change(game.game_id, variant, c) for c in changes)
        return out

    @rpc
    async def StreamEvents(
        self, request: replay_pb2.StreamEventsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[replay_pb2.StreamEventsResponse]:
        async for item in self._stream(request, context):
            yield item

    async def _stream(
        self, request: replay_pb2.StreamEventsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[replay_pb2.StreamEventsResponse]:
        limits.seq(request.from_seq, "from_seq")
        game = await self._readable(self._who(context), request.game_id)
        game_id = game.game_id
        seat: int | None = None
        if request.HasField("seat"):
            v = await self._run(self.games.variant_of, game_id)
            players = v.players if v is not None else 0
            if not 0 <= request.seat < players:
                raise invalid(
                    RulesReason.NO_SUCH_SEAT, f"seat {request.seat} is not a seat", "seat"
                )
            seat = request.seat
        next_seq = max(1, request.from_seq)
        while True:
            rows = await self._run(self.store.events, game_id, next_seq, STREAM_BATCH)
            for row in rows:
                event = common_pb2.Event()
                event.ParseFromString(row.payload)
                if seat is None:
                    yield replay_pb2.StreamEventsResponse(event=with_body(event), hash=row.hash)
                    continue
                seen = project(event, seat)
                if seen is not None:
                    yield replay_pb2.StreamEventsResponse(event=with_body(seen))
            if rows:
                next_seq = rows[-1].seq + 1
                if len(rows) == STREAM_BATCH:
                    continue
            if not request.follow:
                return
            head, status = await self._wait(game_id, next_seq - 1)
            if status != "running" and head < next_seq:
                return
            if self.stopping:
                raise grpc_errors.server_stopping()

    async def _wait(self, game_id: str, after_seq: int) -> tuple[int, str]:
        """The game's head once it passes ``after_seq``, the game ends, or a poll interval
        passes — woken early by a NOTIFY (PostgreSQL) or an append through this process."""
        seen = self.follower.version(game_id)
        head: tuple[int, str] = await self._run(self.store.head, game_id)
        if head[0] > after_seq or head[1] != "running":
            return head
        deadline = time.monotonic() + self.poll_interval
        while time.monotonic() < deadline and self.follower.version(game_id) == seen:
            if self.stopping:
                break
            await asyncio.sleep(WAKE_CHECK_S)
        result: tuple[int, str] = await self._run(self.store.head, game_id)
        return result

    @rpc
    async def ListGames(
        self, request: replay_pb2.ListGamesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.ListGamesResponse:
        who = self._who(context)
        player = limits.player_id(request.player_id, required=False) or None
        variant = (
            limits.check_id(request.variant, "variant", limits.MAX_VARIANT, required=False) or None
        )
        if variant is not None:
            # Aliases (ddz3) name the same games; an unknown variant gives an empty page.
            with contextlib.suppress(rules.VariantError):
                variant = rules.variant(variant).name
        status = None
        if request.status != replay_pb2.REPLAY_GAME_STATUS_UNSPECIFIED:
            status = NAME_OF_STATUS.get(request.status)
            if status is None:
                raise invalid(ServiceReason.INVALID_FIELD, "unknown status", "status")
        size = request.page_size or DEFAULT_PAGE
        if not 0 < size <= MAX_PAGE:
            raise invalid(
                ServiceReason.INVALID_FIELD, f"page_size must be 1–{MAX_PAGE}", "page_size"
            )
        ended_only = False
        if not reads_everything(who):
            if player is not None and player != who.player_id:
                raise grpc_errors.ServiceError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    ServiceReason.PERMISSION_DENIED,
                    "a player lists only his own games",
                )
            if status == "running":
                raise grpc_errors.ServiceError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    ServiceReason.PERMISSION_DENIED,
                    "running games are listed to writers and auditors only",
                )
            player, ended_only = who.player_id, True
        created_from = created_until = None
        try:
            if request.HasField("created_after"):
                limits.timestamp(request.created_after, "created_after")
                created_from = request.created_after.ToDatetime(tzinfo=UTC)
            if request.HasField("created_before"):
                limits.timestamp(request.created_before, "created_before")
                created_until = request.created_before.ToDatetime(tzinfo=UTC)
        except limits.LimitError as exc:
            raise invalid(ServiceReason.INVALID_FIELD, str(exc), exc.field) from None
        after = after_of(request.page_token)
        rows: list[GameRow] = await self._run(
            functools.partial(
                self.store.list_games,
                player_id=player,
                variant=variant,
                status=status,
                after=after,
                limit=size + 1,
                created_from=created_from,
                created_until=created_until,
                ended_only=ended_only,
            )
        )
        response = replay_pb2.ListGamesResponse(games=[summary(g) for g in rows[:size]])
        if len(rows) > size:
            response.next_page_token = page_token(rows[size - 1])
        return response

    @rpc
    async def ExportGame(
        self, request: replay_pb2.ExportGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.ExportGameResponse:
        game = await self._readable(self._who(context), request.game_id)
        record = await self._run(self.games.export, game.game_id)
        return replay_pb2.ExportGameResponse(record_json=dumps(record), head_hash=game.head_hash)

    @rpc
    async def VerifyGame(
        self, request: replay_pb2.VerifyGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.VerifyGameResponse:
        game = await self._readable(self._who(context), request.game_id)
        with metrics.REPLAY_VERIFY.time():
            verification = await self._run(self.games.verify, game.game_id)
        return verification_message(verification)

    @rpc
    async def AuditEscape(
        self, request: replay_pb2.AuditEscapeRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> replay_pb2.AuditEscapeResponse:
        game = await self._readable(self._who(context), request.game_id)
        audit = await self._run(self.games.audit_escape, game.game_id)
        msg = replay_pb2.AuditEscapeResponse(
            game_id=audit.game_id,
            variant=audit.variant,
            escaper=audit.escaper,
            leave_seq=audit.leave_seq,
            stake=audit.stake,
            bid=audit.bid,
            bombs=[
                replay_pb2.AuditBomb(
                    seat=b["seat"],
                    kind=b["kind"],
                    size=b["size"],
                    rank=str(b["rank"]),
                    led=b["led"],
                    factor=b["factor"],
                    detail=b["detail"],
                )
                for b in audit.bombs
            ],
            recomputed_scores=audit.recomputed_scores,
            recorded_scores=audit.recorded_scores,
            consistent=audit.consistent,
            recomputed_json=dumps(audit.recomputed),
            recorded_json=dumps(audit.recorded),
        )
        if audit.max_multiplier is not None:
            msg.max_multiplier = audit.max_multiplier
        if audit.escape_multiplier is not None:
            msg.escape_multiplier = audit.escape_multiplier
        for s in audit.steps:
            step = replay_pb2.AuditStep(
                name=s.name,
                recomputed=s.recomputed,
                recomputed_how=s.recomputed_how,
                recorded_how=s.recorded_how,
                matches=s.matches,
            )
            if s.recorded is not None:
                step.recorded = s.recorded
            msg.steps.append(step)
        return msg

    @rpc
    async def GetPlayerStats(
        self,
        request: replay_pb2.GetPlayerStatsRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> replay_pb2.GetPlayerStatsResponse:
        who = self._who(context)
        player_id = limits.player_id(request.player_id)
        if not reads_everything(who) and who.player_id != player_id:
            raise grpc_errors.ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                ServiceReason.PERMISSION_DENIED,
                "a player reads only his own totals",
            )
        stats = await self._run(self.games.player_stats, player_id)
        level, chinese, english = stats.title
        return replay_pb2.GetPlayerStatsResponse(
            player_id=player_id,
            last_game_id=stats.last_game_id,
            last_score=stats.last_score,
            totals=[
                replay_pb2.FamilyTotal(
                    family=t.family,
                    games=t.games,
                    total=t.total,
                    last_game_id=t.last_game_id,
                    last_score=t.last_score,
                )
                for t in stats.totals
            ],
            title=replay_pb2.PlayerTitle(level=level, chinese=chinese, english=english),
        )
