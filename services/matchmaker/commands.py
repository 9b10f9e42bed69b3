"""A person's commands at a table — Act, Ready, LeaveTable, a hint, a seat's view, a stream
opening or closing — checked, turned into the table's transitions (table.py) or an engine
action, and carried out through the runner's one conditional write (Runner.mutate)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
from typing import Any

import grpc

from services import rules
from services.common.grpc_errors import ServiceError, failed
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import common_pb2, engine_pb2, matchmaker_pb2

from . import table as table_rules
from .clients import Unreachable, engine_down
from .priority import Priority, acting_as
from .runner import Runner
from .store import Write, bot_seat, event_of
from .table import Table

M = matchmaker_pb2


class Commands:
    """The commands of the people at ``runner``'s tables."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    async def act(self, request: M.ActRequest) -> M.ActResponse:
        with acting_as(Priority.MOVE):
            return await self._act(request)

    async def _act(self, request: M.ActRequest) -> M.ActResponse:
        act = _Act(self.runner, request)
        try:
            await self.runner.mutate(request.table_id, act.change)
        except ServiceError as exc:
            if exc.reason == ServiceReason.CONFLICT and request.HasField("expected_seq"):
                raise ServiceError(
                    grpc.StatusCode.ABORTED, ServiceReason.STALE_SEQ, exc.message
                ) from None
            raise
        return act.result[0]

    async def ready(self, table_id: str, player: str) -> Table:
        async def change(table: Table) -> Write | None:
            seat = seat_or_refuse(table, player)
            if table.state == "closed":
                raise failed(ServiceReason.TABLE_CLOSED, "the table is closed")
            w = Write()
            return w if table_rules.ready(table, seat, w) else None

        return await self.runner.mutate(table_id, change)

    async def leave(self, table_id: str, player: str) -> Table:
        async def change(table: Table) -> Write | None:
            seat = seat_or_refuse(table, player)
            w = Write()
            if table.state == "playing" and table.token is not None:
                action = engine_pb2.Action(seat=seat, leave=True)
                try:
                    await self.runner.apply(table, action, player, common_pb2.CAUSE_PLAYER, w)
                except Unreachable as exc:
                    raise engine_down(exc) from None
                if table.seat_of(player) == seat:  # not an escape the rules recorded
                    table_rules.remove(table, seat, "left", w, bot_seat(table.bot_level))
            else:
                table_rules.remove(table, seat, "left", w, bot_seat(table.bot_level))
                table_rules.close_if_empty(table, w)
            return w

        with acting_as(Priority.MOVE):
            return await self.runner.mutate(table_id, change)

    async def hint(self, table_id: str, player: str) -> engine_pb2.GetHintResponse:
        table = await self.runner.load(table_id)
        seat = seat_or_refuse(table, player)
        if table.state != "playing" or table.token is None:
            raise failed(ServiceReason.NOT_READY, "no game is running at this table")
        try:
            return await self.runner.call_engine(
                self.runner.engine.hint, self.runner.token_of(table), seat
            )
        except Unreachable as exc:
            raise engine_down(exc) from None

    async def seat_view(self, table: Table, seat: int) -> engine_pb2.View | None:
        if table.state != "playing" or table.token is None:
            return None
        try:
            return await self.runner.call_engine(
                self.runner.engine.seat_view, self.runner.token_of(table), seat
            )
        except Unreachable as exc:
            raise engine_down(exc) from None

    # ------------------------------------------------------------------ connections
    @staticmethod
    def opening(after_seq: int) -> contextlib.AbstractContextManager[None]:
        """The priority a seat stream's opening (its table read, its row, its "connected"
        write) runs at.  A stream that resumes after a seq its client saw is a reconnection:
        the seat's disconnect grace (60 s by default, 2 s in the soak) runs meanwhile, and
        past it the seat escapes, so it goes ahead of other people's calls as a move does.
        Traced in bench scale's opening rush, a first opening spent 2.6 s in its table read
        alone, behind 600 players' enqueues and stream openings."""
        return acting_as(Priority.MOVE if after_seq > 0 else Priority.CALL)

    async def connected(self, table_id: str, seat: int, player: str) -> str:
        """A Subscribe stream of ``seat`` opened: its row (live while this instance renews
        it) makes the seat connected for every instance.  The stream's id."""
        stream_id = uuid.uuid4().hex
        opened = asyncio.ensure_future(
            self.runner.db(
                self.runner.store.open_stream, stream_id, table_id, seat, player,
                self.runner.instance, self.runner.settings.stream_lease_ms,
            )
        )  # fmt: skip

        async def change(table: Table) -> Write | None:
            if table.seat_of(player) != seat:
                return None
            w = Write()
            return w if table_rules.connected(table, seat, w) else None

        try:
            await asyncio.shield(opened)
            await self.runner.mutate(table_id, change)
        except BaseException:
            # No stream after all (the caller went, or the table kept moving): a row left
            # behind would be renewed for ever and keep the seat connected.
            self.runner.spawn(self._close_opened(opened, stream_id, table_id, seat))
            raise
        return stream_id

    async def _close_opened(
        self, opened: asyncio.Future[None], stream_id: str, table_id: str, seat: int
    ) -> None:
        with contextlib.suppress(Exception):
            await opened  # the insert may still be running: delete after it
        await self.runner.db(self.runner.store.close_stream, stream_id, table_id, seat)

    async def disconnected(self, stream_id: str, table_id: str, seat: int, player: str) -> None:
        if self.runner.stopping:
            return  # the row lapses: a restarted or other instance takes it from there
        if await self.runner.db(self.runner.store.close_stream, stream_id, table_id, seat):
            return  # another stream of the seat is open, here or on another instance
        with contextlib.suppress(ServiceError):
            await self.runner.mark_disconnected(table_id, seat, player)


def seat_or_refuse(table: Table, player_id: str) -> int:
    seat = table.seat_of(player_id)
    if seat is None:
        raise failed(
            ServiceReason.NOT_SEATED, f"{player_id!r} has no seat at table {table.table_id}"
        )
    return seat


def _replayed(stored: Any, digest: bytes) -> M.ActResponse:
    """The answer a landed request id gave, unless the id came with another action."""
    if bytes(stored.body_hash) != digest:
        raise failed(ServiceReason.REQUEST_ID_REUSED, "this request id was used for another action")
    response: M.ActResponse = M.ActResponse.FromString(stored.response)
    return response


class _Act:
    """One Act: its tries at the table (Runner.mutate calls :meth:`change` once per try) and
    its answer."""

    def __init__(self, runner: Runner, request: M.ActRequest) -> None:
        self.runner, self.request = runner, request
        self.digest = b""
        if request.request_id:
            self.digest = hashlib.sha256(
                request.player_id.encode() + b"\x00"
                + request.action.SerializeToString(deterministic=True)
            ).digest()  # fmt: skip
        self.result: list[M.ActResponse] = []
        self.tries = 0

    async def replayed(self) -> bool:
        """Whether this request id landed already (here or elsewhere): then its answer is
        the answer."""
        q = self.request
        stored = await self.runner.db(self.runner.store.request, q.table_id, q.request_id)
        if stored is not None:
            self.result[:] = [_replayed(stored, self.digest)]
        return stored is not None

    async def change(self, table: Table) -> Write | None:
        # A retry of an Act that landed (here or elsewhere) answers what it answered.  Not
        # looked up before the first try (a database round trip on every Act, in the people's
        # own threads): a landed request's action is then refused (looked up on that
        # refusal), or applied again and its write refused by the request id's unique key (a
        # Conflict: looked up on the next try, under the table's lock, after the load, so a
        # concurrent retry that landed meanwhile is seen).
        self.tries += 1
        rid = self.request.request_id
        if rid and self.tries > 1 and await self.replayed():
            return None
        try:
            return await self.attempt(table)
        except ServiceError:
            if rid and self.tries == 1 and await self.replayed():
                return None
            raise

    def _action(self, table: Table) -> engine_pb2.Action:
        """The seat's action, refused when the table cannot take it now."""
        request = self.request
        seat = seat_or_refuse(table, request.player_id)
        if request.HasField("expected_seq") and request.expected_seq != table.seq:
            raise ServiceError(
                grpc.StatusCode.ABORTED, ServiceReason.STALE_SEQ,
                f"the table is at seq {table.seq}, not {request.expected_seq}",
            )  # fmt: skip
        if table.state != table_rules.State.PLAYING or table.token is None:
            raise failed(ServiceReason.NOT_READY, "no game is running at this table")
        action = engine_pb2.Action()
        action.CopyFrom(request.action)
        action.seat = seat
        if action.WhichOneof("kind") in ("leave", "timeout"):
            raise ServiceError(
                grpc.StatusCode.INVALID_ARGUMENT, RulesReason.BAD_ACTION,
                "leave with LeaveTable; timeouts are the table's", "action",
            )  # fmt: skip
        return action

    async def attempt(self, table: Table) -> Write | None:
        request, runner = self.request, self.runner
        action = self._action(table)
        seat = action.seat
        w = Write()
        try:
            response = await runner.apply(
                table, action, request.player_id, common_pb2.CAUSE_PLAYER, w, view_seat=seat
            )
        except Unreachable as exc:
            runner.engine_ok = False
            raise engine_down(exc) from None
        out = M.ActResponse(
            game_over=response.game_over,
            view=response.seat_view,
            events=[event_of(n) for n in w.notes if rules.may_see(n.to, seat)],
        )
        if response.game_over:
            out.settlement.CopyFrom(response.settlement)
        # The seq of the action's own last event: the moves it makes due at once may join
        # its write (Runner.commit), and a stream resumed after this seq must show them.
        out.seq = table.seq + len(w.notes)
        if request.request_id:
            w.request = (request.table_id, request.request_id, self.digest, out)
        self.result[:] = [out]
        return w
