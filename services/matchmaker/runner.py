"""The table runner carries out what happens at a table, in the steps of DESIGN.md "How one
move flows": load the table; ask the engine (a deal, an Apply with the stored token, a bot's
or an auto-play seat's move chosen from its view); hand the answer to the table's rules
(table.py), which change the table and say what else to write; commit it all in one write
conditional on the table's seq (store.py; a writer that lost the race starts over); wake the
streams (waker.py: this instance's from memory, others' through NOTIFY).

Around it: commands.py (a person's Act, Ready, LeaveTable, streams), schedule.py (the loops
that claim due deadlines with a lease and advance their tables, seat the pools, renew stream
leases), outbox.py (the engine's events to replay), priority.py (people before bots).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

import grpc

from services import rules
from services.common import logging as clog
from services.common.db import database_unavailable
from services.common.fields import room_of, variant_in_room
from services.common.grpc_errors import ServiceError, not_found
from services.common.reasons import ServiceReason
from services.common.wire import common_pb2, engine_pb2, matchmaker_pb2, trick_move

from . import bots
from . import table as table_rules
from .backends import Conflict, WouldWait, run_on_loop
from .clients import Engine, Replay, Unreachable
from .outbox import Outbox, append_request
from .priority import (
    EngineGate,
    Priority,
    TableLocks,
    ThreadsByPriority,
    background_context,
    in_thread,
)
from .schedule import Scheduler
from .settings import RunnerSettings
from .store import Store, Write, bot_seat, now_ms, room_message, ticket_pool_key
from .table import Table
from .waker import KeptTables, Waker

log = clog.get_logger("cardroom.matchmaker")
T = TypeVar("T")
M = matchmaker_pb2

#: Conditional-write retries before a call gives up with ABORTED CONFLICT.
MAX_RETRIES = 8


def hands_at_end(view: engine_pb2.View) -> list[list[str]]:
    """Every seat's cards left once the game is over (public now, RULES.md §7), card by card;
    from the record when an engine older than ``View.hands`` leaves them out."""
    hands: list[tuple[int, ...]] = [rules.parse_cards(h) for h in view.hands] or list(
        rules.replay(json.loads(view.view_json)["record"]).hands
    )
    return [rules.format_cards(hand, " ").split() for hand in hands]


class Runner:
    def __init__(
        self,
        store: Store,
        engine: Engine,
        replay: Replay,
        settings: RunnerSettings | None = None,
    ) -> None:
        self.store = store
        self.engine = engine
        self.replay = replay
        self.settings = settings or RunnerSettings()
        self.instance = uuid.uuid4().hex[:12]
        r = self.settings
        self._threads = ThreadsByPriority(
            {Priority.MOVE: r.call_threads, Priority.CALL: r.call_threads,
             Priority.BACKGROUND: r.threads}, "mm-db")  # fmt: skip
        #: SQLite: short store calls run on the event loop's thread (run_on_loop).
        #: PostgreSQL's are round trips to a server, whose waits would stop the loop.
        self._loop_calls = not store.backend.postgres
        self._streams = ThreadPoolExecutor(
            self.settings.stream_threads, thread_name_prefix="mm-stream"
        )
        self._steps = asyncio.Semaphore(self.settings.background_steps)
        self._engine_gate = EngineGate(
            self.settings.background_engine_calls,
            self.settings.background_steps,
            self.settings.people_quiet_s,
            self.settings.people_first_wait_s,
        )
        self.locks = TableLocks()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._advancing: set[str] = set()
        self._again: set[str] = set()
        #: Seat views for the moves chosen here (bots.KeptViews).
        self.views = bots.KeptViews()
        #: Tables as this instance's advance loops left them.
        self.kept = KeptTables(lambda table_id: self.waker.latest(table_id))
        self._waker: Waker | None = None
        self.stopping = False
        self.engine_ok = True
        self.outbox = Outbox(store, replay, self.settings, self.db)
        #: The background loops, told of the work this instance writes (schedule.Alarm).
        self.schedule = Scheduler(self)
        #: Actions the engine applied for this instance, each move of a run (the bench's actions/s).
        self.applied = 0

    async def call_engine(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """An engine call through the people-first gate (priority.EngineGate)."""
        return await self._engine_gate.call(fn, *args)

    @property
    def replay_ok(self) -> bool:
        """Whether replay answered the outbox's last append."""
        return self.outbox.replay_ok

    # ------------------------------------------------------------------ plumbing
    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a database thread of its priority, or here (run_on_loop)."""
        return await self._once_more(self._threads.run, fn, partial(fn, *args, **kwargs))

    async def stream_db(self, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`db` for the reads of seat streams, in their own pool."""
        return await self._once_more(partial(in_thread, self._streams), fn, partial(fn, *args))

    async def _once_more(
        self, run: Callable[[Callable[[], T]], Awaitable[T]], fn: Any, call: Callable[[], T]
    ) -> T:
        if self._loop_calls and getattr(fn, "on_loop", False):
            with contextlib.suppress(WouldWait):
                return run_on_loop(call)
        try:
            return await run(call)
        except Exception as exc:
            # A dropped session (outage, or the idle-in-transaction timeout after a pause)
            # rolled its transaction back: once more on a fresh connection, then the caller
            # answers UNAVAILABLE DATABASE_UNAVAILABLE.
            if not database_unavailable(exc):
                raise
        return await run(call)

    @property
    def waker(self) -> Waker:
        if self._waker is None:
            loop = asyncio.get_running_loop()
            self._waker = Waker(
                self.store.engine, loop, self.settings.poll_interval_s, self.locks.locked,
                self.instance,
            )  # fmt: skip
            self.store.backend.announce_unless(self._waker.alone)
        return self._waker

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro, context=background_context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        """Start the background loops (on the running event loop)."""
        _ = self.waker
        self.spawn(self._lifetime())
        self.schedule.start()

    async def _lifetime(self) -> None:
        """Lives as long as the server's event loop: when the server stops (its loop cancels
        what is left), the LISTEN thread ends and the database connections close."""
        try:
            await asyncio.Event().wait()
        finally:
            self.stopping = True
            if self._waker is not None:
                self._waker.close()
            self._threads.shutdown()
            self._streams.shutdown(wait=False)
            self.store.close()

    async def close(self) -> None:
        self.stopping = True
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        if self._waker is not None:
            self._waker.close()
        await self.engine.close()
        await self.replay.close()
        self._threads.shutdown()
        self._streams.shutdown(wait=False)
        self.store.close()

    async def seat(self, pool: str) -> None:
        """Form the tables the pool's queued tickets allow now, and wake their streams and
        the pool's WatchTicket streams (other instances: by the seating's NOTIFY)."""
        formed = await self.db(self.store.seat_pool, pool)
        for table_id in formed:
            self.waker.wake(table_id)
        if formed:
            self.waker.wake(ticket_pool_key(pool))
            self.schedule.deadlines.due(now_ms())  # the new tables' first steps

    def _wrote(self, table: Table, old_seq: int, w: Write, advancing: bool = False) -> None:
        self.waker.wake_written(table.table_id, old_seq, table.seq, w.written)
        now = now_ms()
        if w.outbox:
            self.schedule.outbox.due(now + w.outbox_delay_ms)
        due_now = table.due_ms is not None and table.due_ms <= now + 5
        self.schedule.step_at(table.table_id, None if due_now else table.due_ms)
        if due_now and not advancing:  # (an advance loop looks again itself)
            self.spawn(self.advance(table.table_id))

    # ------------------------------------------------------------------ tables
    async def load(self, table_id: str) -> Table:
        table = await self.db(self.store.load, table_id)
        if table is None:
            raise not_found(ServiceReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        return table

    async def commit(self, table: Table, old_seq: int, w: Write, advancing: bool = False) -> Table:
        # The writer goes on with the table itself while something is due at once (the advance
        # loop, or the advance a call's write starts in _wrote): leased meanwhile, so no
        # deadline loop (here or on another instance) claims it and steps it a second time.
        hold = self.settings.hold_ms
        if not advancing:
            self.kept.drop(table.table_id)  # a person's call moved it on
            # The steps the call makes due at once (the deal once all are ready, auto-play
            # turned on, bots that do not think) join its write, as a run joins a step's.
            # Only the engine's own moves (runs): a searching bot's is the advance loop's.
            with contextlib.suppress(Unreachable, ServiceError):
                if table_rules.deals_now(table):
                    await self._start_game(table, w)
                if self.settings.engine_runs:
                    await self._run_on(table, w, 0, bots.SEARCHING_LEVELS)
        w.outbox_delay_ms = self.settings.outbox_gather_ms
        written = await self.store.write_on_loop(table, old_seq, w, hold)  # PostgreSQL
        if written is None:
            written = await self.db(self.store.write, table, old_seq, w, hold)
        if not advancing:
            # The table as just written: its next step (a timer here, step_at) starts from it
            # instead of a load.  The caller only reads it before its next await.
            self.kept.keep(written)
        self._wrote(written, old_seq, w, advancing)
        return written

    async def mutate(
        self, table_id: str, change: Callable[[Table], Awaitable[Write | None]]
    ) -> Table:
        """Load, change and write conditionally, again on a lost race.

        The first try starts from the table as this instance's advance loop left it, when it
        kept it (:meth:`_keep`): no load.  The write is conditional on its seq, so a copy that
        another instance made stale loses its race and the next try loads; a refusal or a
        no-op decided on the copy stands only if the database's seq is the copy's."""
        async with self.locks.called(table_id):
            kept = self.kept.take(table_id)
            for _ in range(MAX_RETRIES):
                if kept is not None:
                    table, kept, cached = kept, None, True
                else:
                    table, cached = await self.load(table_id), False
                old = table.seq
                try:
                    w = await change(table)
                except ServiceError:
                    if cached and await self._moved(table_id, old):
                        continue
                    raise
                if w is None:
                    if cached and await self._moved(table_id, old):
                        continue
                    return table
                try:
                    return await self.commit(table, old, w)
                except Conflict:
                    continue
        raise ServiceError(
            grpc.StatusCode.ABORTED, ServiceReason.CONFLICT, "the table kept moving; retry"
        )

    async def _moved(self, table_id: str, seq: int) -> bool:
        """Whether the stored table is no longer at ``seq`` (or is gone); if it is not, it is
        kept for the table's next step (its timer here, Scheduler.step_at) or call."""
        stored = await self.db(self.store.load, table_id)
        if stored is None or stored.seq != seq:
            return True
        self.kept.keep(stored)
        return False

    # ------------------------------------------------------------------ engine steps
    def token_of(self, table: Table) -> engine_pb2.GameToken:
        return engine_pb2.GameToken(
            game_id=table.game_id or "", seq=table.engine_seq, token=table.token or b""
        )

    @staticmethod
    def _set_turn(table: Table, view: engine_pb2.View, now: int, w: Write) -> None:
        """The seat to move and its deadline after the game changed to ``view``."""
        over = not view.HasField("turn") or view.phase == engine_pb2.PHASE_OVER
        bidding = view.phase == engine_pb2.PHASE_BIDDING
        table_rules.set_turn(table, None if over else view.turn, bidding, now, w)

    @staticmethod
    def _game_events(table: Table, events: Any, w: Write) -> None:
        for e in events:
            seat, cards = trick_move(e) if e.type in table_rules.TRICK_MOVES else (None, "")
            table_rules.trick_event(table, e.type, seat, cards)
            vis = e.envelope.visibility
            if vis == common_pb2.VISIBILITY_AUDITOR:
                continue  # the header: its seed reveals every hand; replay keeps it
            w.game_event(e, e.envelope.seat if vis == common_pb2.VISIBILITY_SEAT else None)

    @staticmethod
    def _variant(table: Table) -> rules.Variant:
        """The table's variant with its room's overrides (``rotate_first_bidder`` among
        them): the base variant alone would ignore what the room chose.  Enqueue checked the
        room with these same functions, so this cannot fail."""
        return variant_in_room(table.variant, room_of(room_message(table.config)))

    async def _start_game(self, table: Table, w: Write) -> None:
        v = self._variant(table)
        game_id = table_rules.next_game_id(table)
        request = engine_pb2.NewGameRequest(
            variant=table.variant,
            room=room_message(table.config),
            deal=engine_pb2.Deal(seed=secrets.token_hex(16)),
            game_id=game_id,
            players=[s.player_id for s in table.seats],
            table=engine_pb2.TableRef(id=table.table_id, game_no=table.game_no + 1),
        )
        # RULES.md §4.3: without rotation every game draws its first bidder from its own
        # seed (the engine does when none is given); with it, only the table's first game.
        if v.bidding and v.rotate_first_bidder and table.first_bidder is not None:
            request.first_bidder = (table.first_bidder + 1) % v.players
        response = await self._engine_gate.call(self.engine.new_game, request)
        now = now_ms()
        table.token = response.state.token
        table.engine_seq = response.state.seq
        if v.bidding and response.public_view.HasField("turn"):
            table.first_bidder = response.public_view.turn
        table_rules.start_game(table, game_id, now, w)
        self._game_events(table, response.events, w)
        w.outbox.append(append_request(game_id, response.events))
        self._set_turn(table, response.public_view, now, w)

    async def apply(
        self,
        table: Table,
        action: engine_pb2.Action,
        actor: str,
        cause: Any,
        w: Write,
        view_seat: int | None = None,
    ) -> engine_pb2.ApplyResponse:
        # The public view is read for its turn and phase only (_set_turn), never its history:
        # the engine need not encode the deal's history into it (the seat view keeps it; the
        # bots read it).
        request = engine_pb2.ApplyRequest(
            state=self.token_of(table), action=action, actor=actor, cause=cause,
            public_history_delta=True,
        )  # fmt: skip
        if table.turn_deadline_ms is not None and table.turn is not None:
            request.turn_deadline.FromMilliseconds(table.turn_deadline_ms)
        predicted = earlier = None
        if view_seat is not None:
            request.view_seat = view_seat
        else:  # the next seat in turn order: its view spares a GetSeatView if it moves next
            predicted = (action.seat + 1) % len(table.seats)
            earlier = self.views.ask(table.table_id, table.token or b"", predicted, request)
        response = await self._engine_gate.call(self.engine.apply, request)
        self._answered(table, response, w, action)
        if predicted is not None and response.HasField("seat_view"):
            token = table.token or b""
            self.views.answered(table.table_id, token, predicted, response.seat_view, earlier)
        return response

    def _answered(
        self,
        table: Table,
        response: engine_pb2.ApplyResponse,
        w: Write,
        action: engine_pb2.Action | None = None,
    ) -> None:
        """The table after the engine applied ``action`` and the moves of its run, if any
        (only the game after the last move matters: a run's seats in between move at once,
        with no deadline to announce)."""
        self.engine_ok = True
        self.applied += (action is not None) + len(response.run_actions)
        now = now_ms()
        table.token = response.state.token
        table.engine_seq = response.state.seq
        if response.events:
            self._game_events(table, response.events, w)
            w.outbox.append(append_request(table.game_id or "", response.events))
        kind = action.WhichOneof("kind") if action is not None else None
        if action is not None and kind == "autoplay":
            table.seats[action.seat].autoplay = action.autoplay
        if response.game_over:
            self._finish_game(table, response, now, w)
        elif action is None or kind != "autoplay" or table.turn == action.seat:
            self._set_turn(table, response.public_view, now, w)

    async def _run(self, table: Table, seat: int, moves: int, w: Write) -> int:
        """The engine plays a run from ``seat``'s move, at most ``moves`` moves, in one Apply
        (ApplyRequest.run; its seats: table.run_seats); returns the moves it made, 0 when the
        move is to be chosen here (a searching bot, or runs turned off)."""
        if not self.settings.engine_runs:
            return 0
        seats = table_rules.run_seats(table, seat, moves, bots.SEARCHING_LEVELS)
        if not seats:
            return 0
        run = [engine_pb2.RunSeat(seat=i, bot=s.bot_level if s.bot else "", actor=s.player_id)
               for i, s in ((i, table.seats[i]) for i in seats)]  # fmt: skip
        request = engine_pb2.ApplyRequest(
            state=self.token_of(table), run=run, run_moves=moves, public_history_delta=True
        )
        if table.turn_deadline_ms is not None:
            request.turn_deadline.FromMilliseconds(table.turn_deadline_ms)
        response = await self._engine_gate.call(self.engine.apply, request)
        self.views.drop(table.table_id)  # no seat view was predicted for the new state
        self._answered(table, response, w)
        return max(1, len(response.run_actions))

    def _finish_game(
        self, table: Table, response: engine_pb2.ApplyResponse, now: int, w: Write
    ) -> None:
        s = response.settlement
        table.last_settlement = s.settlement_json
        table_rules.finish_game(
            table, list(s.scores), s.escaper if s.HasField("escaper") else None,
            json.loads(s.settlement_json or "{}"), rules.variant(table.variant).family, now, w,
            lambda: bot_seat(table.bot_level),
            hands_at_end(response.public_view),
        )  # fmt: skip

    # ------------------------------------------------------------------ due work
    async def advance(self, table_id: str) -> None:
        """Do whatever is due at the table, repeatedly, until nothing is.  One loop per table
        in this process: a wake-up while it runs makes it look once more."""
        if table_id in self._advancing:
            self._again.add(table_id)
            return
        self._advancing.add(table_id)
        table = self.kept.take(table_id)
        recheck = table is not None
        try:
            for _ in range(100_000):
                try:
                    async with self._steps:
                        progressed, table = await self._advance_once(table_id, table, recheck)
                    recheck = False
                except Unreachable as exc:
                    self.engine_ok = False
                    log.warning("engine unreachable; the table waits", table_id=table_id,
                                error=str(exc)[:200])  # fmt: skip
                    await self.db(self.store.lease, table_id, now_ms() + 1000)
                    return
                except ServiceError as exc:
                    log.error("a due action was refused", table_id=table_id, reason=exc.reason,
                              error=exc.message[:200])  # fmt: skip
                    await self.db(self.store.lease, table_id, now_ms() + self.settings.lease_ms)
                    return
                except Exception as exc:
                    if not database_unavailable(exc):
                        raise
                    # An outage, or the row stayed locked past the lock timeout (a peer cut
                    # off mid-write, until it is ended): the claim's lease lapses and the
                    # deadline loop of some instance claims the table again.
                    log.warning("database unavailable; the table waits", table_id=table_id,
                                error=str(exc)[:200])  # fmt: skip
                    return
                if not progressed:
                    if table_id not in self._again:
                        self.kept.keep(table)
                        return
                    self._again.discard(table_id)
                    table = None
                elif (
                    table is not None
                    and table_id not in self._again
                    and not table_rules.due_by(table, now_ms())
                ):
                    # The table as just written, nothing due yet: kept without taking a step
                    # slot and the lock once more (a person's call meanwhile would leave this
                    # copy behind its own write, and a kept copy that is behind costs that
                    # person's next call a lost race).
                    self.kept.keep(table)
                    return
        finally:
            self._advancing.discard(table_id)
            self._again.discard(table_id)

    async def _advance_once(
        self, table_id: str, cached: Table | None, recheck: bool = False
    ) -> tuple[bool, Table | None]:
        """One due step.  ``cached`` is the table as this loop last wrote it (``recheck``: as
        an earlier loop left it): if another writer moved it meanwhile, the conditional write
        fails and the table is reloaded."""
        async with self.locks.lock(table_id):
            table = cached or await self.db(self.store.load, table_id)
            if table is None or table.due_ms is None or table.due_ms > now_ms():
                if recheck:
                    return True, None  # the kept copy may be behind: the database decides
                return False, table
            old = table.seq
            w = Write()
            moves = await self._due(table, w, self.settings.run_moves)
            await self._run_on(table, w, moves)
            try:
                return True, await self.commit(table, old, w, advancing=True)
            except Conflict:
                return True, None  # someone else moved it: look again

    async def _run_on(
        self, table: Table, w: Write, made: int, searching: frozenset[str] | None = None
    ) -> None:
        """The moves due at once after the ``made`` just taken (bots with no think time, seats
        on auto-play; ``searching``: as table.moves_at_once), into the same write, up to
        RunnerSettings.run_moves and run_ms, or until a call waits for the table.  Nobody sees
        a run before its write (streams, replay and the table row follow it), so a run lost to
        a conflict or a crash is taken again."""
        r = self.settings
        started = now_ms()
        while made < r.run_moves:
            now = now_ms()
            late = now - started >= r.run_ms or self.locks.wanted(table.table_id)
            if late or not table_rules.moves_at_once(table, now, searching):
                return
            made += await self._due(table, w, r.run_moves - made)

    async def _due(self, table: Table, w: Write, moves: int = 1) -> int:
        """The step due now (a bot's or auto-play seat's move may start a run of up to ``moves``
        moves, :meth:`_run`); returns the moves made, at least one (a caller counts them)."""
        now = now_ms()
        expired = table_rules.graced(table, now)
        if expired:
            # A stream of the seat may have opened on another instance meanwhile (its
            # "connected" write lost a race with this seat's "disconnected"): the rows of
            # open streams decide, and such a seat is connected, not escaped.
            live = await self.db(self.store.live_seats, table.table_id)
            table_rules.back_in_time(table, [i for i in expired if i in live], w)
            if live & set(expired) and not (expired := [i for i in expired if i not in live]):
                return 1  # only the grace was due, and it ended: written as it is
        due = table_rules.due_step(table, now, expired, lambda: bot_seat(table.bot_level), w)
        if due.step is table_rules.Step.DEAL:
            await self._start_game(table, w)
            return 1
        if due.step is table_rules.Step.NOTHING or due.seat is None:
            return 1
        chosen_here = due.step not in (table_rules.Step.BOT, table_rules.Step.AUTOPLAY)
        if not chosen_here and (made := await self._run(table, due.seat, moves, w)):
            return made
        s = table.seats[due.seat]
        if due.step is table_rules.Step.LEAVE:
            action = engine_pb2.Action(seat=due.seat, leave=True)
            await self.apply(table, action, s.player_id, common_pb2.CAUSE_DISCONNECT, w)
        elif due.step is table_rules.Step.TIMEOUT:
            action = engine_pb2.Action(seat=due.seat, timeout=True)
            await self.apply(table, action, s.player_id, common_pb2.CAUSE_TIMEOUT, w)
        else:
            view = await self.turn_view(table, due.seat)
            if due.step is table_rules.Step.BOT:
                seed = f"{table.game_id}:{table.engine_seq}"
                chosen = await bots.choose_bot_move(
                    s.bot_level, view, seed, self.settings.bot_processes
                )
                cause = common_pb2.CAUSE_BOT
            else:
                chosen = bots.autoplay_move(view)
                cause = common_pb2.CAUSE_AUTOPLAY
            await self.apply(table, bots.action_message(chosen), s.player_id, cause, w)
        return 1

    async def turn_view(self, table: Table, seat: int) -> rules.SeatView:
        """The view of ``seat``, the seat to move, for its bot or auto-play (bots.KeptViews)."""
        return await self.views.view(
            table.table_id, table.token or b"", seat,
            lambda: self._engine_gate.call(self.engine.seat_view, self.token_of(table), seat),
        )  # fmt: skip

    async def mark_disconnected(self, table_id: str, seat: int, player: str) -> None:
        """The seat's last stream closed (here, or its instance died): its grace starts."""

        async def change(table: Table) -> Write | None:
            if table.seat_of(player) != seat or table.state == table_rules.State.CLOSED:
                return None
            w = Write()
            return w if table_rules.disconnected(table, seat, now_ms(), w) else None

        await self.mutate(table_id, change)
