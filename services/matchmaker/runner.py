"""The table runner: every move of every table, whether a seat's Act or a due deadline, in
the steps of DESIGN.md "How one move flows".

1. Load the table (its seq, seats, latest engine token).
2. Ask the engine (Apply with the stored token; a bot's or an auto-play seat's move chosen
   from the seat's view first).  A refusal leaves the table as it was.
3. One conditional write (store.Store.write): new token and seq, next deadline, the table
   events (the game's events projected per seat plus table events) and the same engine
   events in the outbox.  A writer that lost the race writes nothing and starts over.
4. NOTIFY (PostgreSQL) and a local wake-up; this instance's seat streams take the write's
   events from memory (Waker.written), another instance's read the log.

Deadlines (turn, bid, start, disconnect grace, bot think time) live on the table row as
``due_ms``; a loop claims due tables (``FOR UPDATE SKIP LOCKED`` and a short lease, so one
instance works on a table at a time and another takes over once the lease lapses) and runs
:meth:`Runner.advance`.  The outbox loop delivers engine events to replay's AppendEvents with
backoff; an engine or replay outage slows or stops nothing but the calls that need it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from services.common import logging as clog
from services.common.db import database_unavailable
from services.common.fields import room_of, variant_in_room
from services.common.grpc_errors import ServiceError, failed
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import common_pb2, engine_pb2, matchmaker_pb2, replay_pb2
from services.engine import rules

from . import bots
from . import table as table_rules
from .clients import Engine, Replay, Unreachable
from .outbox import Outbox
from .priority import BACKGROUND, PLAYING, EngineGate, PeopleFirstThreads, playing, urgent_thread
from .store import (
    Conflict,
    Store,
    Write,
    bot_seat,
    event_of,
    now_ms,
    ticket_pool_key,
)
from .table import Table
from .waker import Waker

log = clog.get_logger("cardroom.matchmaker")
T = TypeVar("T")
M = matchmaker_pb2

#: Conditional-write retries before a call gives up with ABORTED CONFLICT.
MAX_RETRIES = 8
#: Predicted seat views kept (one per table at most) before they are all dropped.
MAX_VIEWS = 10_000
#: The lease an advancing table keeps while its next step is due at once (ms): short, so a
#: loop that died mid-way (an outage) is taken up again soon.
HOLD_MS = 1000


def room_message(config: dict[str, Any]) -> common_pb2.Room:
    """A table's room (as Enqueue stored it in its config) as the wire's message."""
    room = config["room"]
    msg = common_pb2.Room(stake=room["stake"], overrides_json=room.get("overrides_json", ""))
    if room.get("max_multiplier") is not None:
        msg.max_multiplier = room["max_multiplier"]
    if room.get("escape_multiplier") is not None:
        msg.escape_multiplier = room["escape_multiplier"]
    return msg


def _due_now(table: Table) -> bool:
    return table.due_ms is not None and table.due_ms <= now_ms()


def not_found(reason: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, reason, message)


def engine_down(exc: Unreachable) -> ServiceError:
    reason = (
        ServiceReason.ENGINE_UNAVAILABLE
        if exc.service == "engine"
        else ServiceReason.REPLAY_UNAVAILABLE
    )
    return ServiceError(grpc.StatusCode.UNAVAILABLE, reason, str(exc))


@dataclass(frozen=True)
class RunnerSettings:
    #: How often the loops look for due deadlines, seatable pools and outbox rows (seconds).
    tick_s: float = 0.05
    #: A claimed deadline is this instance's for this long (the takeover bound).
    lease_ms: int = 5000
    #: A queued ticket lives this long unless watched or polled.
    ticket_ttl_ms: int = 600_000
    #: Outbox retry backoff: first delay and cap.
    backoff_ms: int = 200
    backoff_cap_ms: int = 30_000
    #: A game's outbox rows wait this long before they are delivered, so that its next
    #: actions join them in one append: replay re-executes and commits a few actions a call
    #: instead of one (a bot table makes several a second; replay's CPU per action fell
    #: from 0.62 to 0.39 ms in the bench's bot tables).  Replay, and so GetPlayer's totals,
    #: lag the tables by about this much more; a player's streams and snapshots come from
    #: the matchmaker's own log and never wait for it.
    outbox_gather_ms: int = 200
    #: Tables advanced at once by this instance.
    concurrency: int = 64
    poll_interval_s: float = 0.25
    threads: int = 8
    #: Database threads for the calls of people (RPCs), beside ``threads`` for the runner's
    #: own tasks.
    call_threads: int = 4
    #: Database threads for the reads of the seat streams (Subscribe), so that a person's
    #: Act never queues behind hundreds of streams' reads.
    stream_threads: int = 4
    #: Steps of the runner's own work (bot moves, timeouts, game starts) in flight at once:
    #: a person's call, which skips this queue, then waits behind at most these in the
    #: engine's queue and the database's, however many bot tables run.
    background_steps: int = 16
    #: Engine calls of those steps in flight at once while people act.  The engine answers
    #: in turn on one worker, so a person's call waits behind every call in flight: kept to
    #: a few, and none start while a person's call is in flight (:class:`EngineGate`).
    background_engine_calls: int = 4
    #: People act while one of their engine calls is in flight or ended less than this ago
    #: (seconds); else the steps' engine calls are not capped below ``background_steps``.
    people_quiet_s: float = 0.05
    #: The longest a step's engine call waits for people's calls in flight (seconds).
    people_first_wait_s: float = 0.03
    #: An open Subscribe stream's row lives this long unless its instance renews it (every
    #: third of it): the time a dead instance's seats still look connected.
    stream_lease_ms: int = 15_000


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
        self._pool = ThreadPoolExecutor(self.settings.threads, thread_name_prefix="mm-db")
        self._calls = PeopleFirstThreads(self.settings.call_threads, "mm-call", urgent_thread)
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
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._renewed = 0.0
        self._reaped = 0.0
        #: False once the database refused to end a peer's session (another role): not
        #: asked again.
        self._reaping = True
        self._advancing: set[str] = set()
        self._again: set[str] = set()
        #: The view of the seat predicted to move next, from the last Apply (the engine
        #: token it is a view of, seat, view): saves a GetSeatView when the table's stored
        #: token is still that one and the prediction holds.  Kept between a table's steps
        #: (a bot that thinks is a step of its own); the token, not the seq, identifies the
        #: state, so a write that lost its race leaves a prediction that never matches.
        self._views: dict[str, tuple[bytes, int, engine_pb2.View, bots.Deal | None]] = {}
        #: table id -> (token, deal): the deal's history as of that token, as the last seat
        #: view read here held it.  The next Apply from that very token asks the engine for
        #: the new actions only (history_delta), and the bot's view is this plus those: the
        #: engine encodes and this process parses each action once, not once per move.
        self._deals: dict[str, tuple[bytes, bots.Deal]] = {}
        #: Tables as this instance's advance loops left them (:meth:`_keep`).
        self._kept: dict[str, Table] = {}
        self._waker: Waker | None = None
        self._kick = asyncio.Event()
        self._outbox_kick = asyncio.Event()
        self._stopping = False
        self._sem = asyncio.Semaphore(self.settings.concurrency)
        self.engine_ok = True
        self.outbox = Outbox(store, replay, self.settings, self.db)
        #: Engine Apply calls that moved a game on (the bench's actions/s).
        self.applied = 0

    @property
    def replay_ok(self) -> bool:
        """Whether replay answered the outbox's last append."""
        return self.outbox.replay_ok

    # ------------------------------------------------------------------ plumbing
    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        pool = self._pool if BACKGROUND.get() else self._calls
        return await self._in(pool, lambda: fn(*args, **kwargs))

    async def stream_db(self, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`db` for the reads of seat streams, in their own pool."""
        return await self._in(self._streams, lambda: fn(*args))

    @staticmethod
    async def _in(pool: Executor, call: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, call)
        except Exception as exc:
            # A dropped session (outage, or the idle-in-transaction timeout after a pause)
            # rolled its transaction back: once more on a fresh connection, then the caller
            # answers UNAVAILABLE DATABASE_UNAVAILABLE.
            if not database_unavailable(exc):
                raise
        return await loop.run_in_executor(pool, call)

    @property
    def waker(self) -> Waker:
        if self._waker is None:
            loop = asyncio.get_running_loop()
            self._waker = Waker(
                self.store.engine, loop, self.settings.poll_interval_s, self._writing
            )
        return self._waker

    def _writing(self, table_id: str) -> bool:
        lock = self._locks.get(table_id)
        return lock is not None and lock.locked()

    def lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            if len(self._locks) > 10_000:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        context = contextvars.copy_context()
        context.run(BACKGROUND.set, True)
        context.run(PLAYING.set, False)
        task = asyncio.get_running_loop().create_task(coro, context=context)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        """Start the background loops (on the running event loop)."""
        _ = self.waker
        self.spawn(self._lifetime())
        self.spawn(self._loop("deadlines", self._deadlines_once, self._kick))
        self.spawn(self._loop("seating", self._seating_once, None))
        self.spawn(self._loop("outbox", self.outbox.deliver_once, self._outbox_kick))
        self.spawn(self._loop("streams", self._streams_once, None))
        self.spawn(self._loop("reaper", self._reap_once, None))

    async def _lifetime(self) -> None:
        """Lives as long as the server's event loop: when the server stops (its loop cancels
        what is left), the LISTEN thread ends and the database connections close."""
        try:
            await asyncio.Event().wait()
        finally:
            self._stopping = True
            if self._waker is not None:
                self._waker.close()
            self._pool.shutdown(wait=False)
            self._calls.shutdown(wait=False)
            self._streams.shutdown(wait=False)
            self.store.close()

    async def close(self) -> None:
        self._stopping = True
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        if self._waker is not None:
            self._waker.close()
        await self.engine.close()
        await self.replay.close()
        self._pool.shutdown(wait=False)
        self._calls.shutdown(wait=False)
        self._streams.shutdown(wait=False)
        self.store.close()

    async def _loop(
        self, name: str, once: Callable[[], Awaitable[bool]], kick: asyncio.Event | None
    ) -> None:
        while not self._stopping:
            busy = False
            try:
                busy = await once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if database_unavailable(exc):  # an outage: one line a second, no traceback
                    log.warning("database unavailable; retrying", loop=name, error=str(exc)[:200])
                else:
                    log.exception("background loop failed; retrying", loop=name)
                await asyncio.sleep(1.0)
            if busy:
                await asyncio.sleep(0)
                continue
            if kick is None:
                await asyncio.sleep(self.settings.tick_s)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(kick.wait(), self.settings.tick_s)
                kick.clear()

    def _wrote(self, table: Table, old_seq: int, w: Write, advancing: bool = False) -> None:
        self.waker.wake_written(table.table_id, old_seq, table.seq, w.written)
        if w.outbox and not w.outbox_delay_ms:
            self._outbox_kick.set()  # else not due yet: the outbox loop's tick finds them
        if advancing:
            return  # the table's advance loop looks again itself
        if table.due_ms is not None and table.due_ms <= now_ms() + 5:
            self.spawn(self.advance(table.table_id))

    # ------------------------------------------------------------------ loops
    async def _deadlines_once(self) -> bool:
        ids = await self.db(self.store.claim_due, self.settings.concurrency, self.settings.lease_ms)
        for table_id in ids:
            self.spawn(self._advance_bounded(table_id))
        return False

    async def _advance_bounded(self, table_id: str) -> None:
        async with self._sem:
            await self.advance(table_id)

    async def _seating_once(self) -> bool:
        await self.db(self.store.expire)
        for pool in await self.db(self.store.pools_due):
            await self.seat(pool)
        return False

    async def seat(self, pool: str) -> None:
        """Form the tables the pool's queued tickets allow now, and wake their streams and
        the pool's WatchTicket streams (other instances: by the seating's NOTIFY)."""
        formed = await self.db(self.store.seat_pool, pool)
        for table_id in formed:
            self.waker.wake(table_id)
        if formed:
            self.waker.wake(ticket_pool_key(pool))

    async def _streams_once(self) -> bool:
        """Renew this instance's stream leases, and mark the seats of lapsed streams (another
        instance died with them open) disconnected: their grace runs from then."""
        loop = asyncio.get_running_loop()
        every = self.settings.stream_lease_ms / 3000
        if loop.time() - self._renewed < every:
            return False
        self._renewed = loop.time()
        await self.db(self.store.renew_streams, self.instance, self.settings.stream_lease_ms)
        for table_id, seat, player in await self.db(self.store.lapsed_streams):
            with contextlib.suppress(ServiceError):
                await self._mark_disconnected(table_id, seat, player)
        return False

    async def _reap_once(self) -> bool:
        """Every quarter lease, end the sessions of any instance stuck inside a transaction
        on their client for a lease (Store.reap_stuck): the row locks they hold would keep
        their tables from every other instance, past the takeover bound, for good."""
        loop = asyncio.get_running_loop()
        if not self._reaping or loop.time() - self._reaped < self.settings.lease_ms / 4000:
            return False
        self._reaped = loop.time()
        try:
            # On the loop's default executor, not the runner's pools: their threads may all be
            # waiting on the very locks this frees.
            pids = await loop.run_in_executor(None, self.store.reap_stuck, self.settings.lease_ms)
        except Exception as exc:
            if database_unavailable(exc):
                raise
            self._reaping = False
            log.warning("cannot end stuck sessions; takeover waits for TCP to notice",
                        error=str(exc)[:200])  # fmt: skip
            return False
        if pids:
            log.warning("ended database sessions stuck on their client", pids=pids)
        return False

    # ------------------------------------------------------------------ tables
    async def load(self, table_id: str) -> Table:
        table = await self.db(self.store.load, table_id)
        if table is None:
            raise not_found(ServiceReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        return table

    @staticmethod
    def seat_or_refuse(table: Table, player_id: str) -> int:
        seat = table.seat_of(player_id)
        if seat is None:
            raise failed(
                ServiceReason.NOT_SEATED, f"{player_id!r} has no seat at table {table.table_id}"
            )
        return seat

    async def commit(self, table: Table, old_seq: int, w: Write, advancing: bool = False) -> Table:
        # The writer goes on with the table itself while something is due at once (the advance
        # loop, or the advance a call's write starts in _wrote): leased meanwhile, so no
        # deadline loop (here or on another instance) claims it and steps it a second time.
        hold = min(self.settings.lease_ms, HOLD_MS)
        if not advancing:
            self._kept.pop(table.table_id, None)  # a person's call moved it on
        w.outbox_delay_ms = self.settings.outbox_gather_ms
        table = await self.db(self.store.write, table, old_seq, w, hold)
        self._wrote(table, old_seq, w, advancing)
        return table

    async def mutate(
        self, table_id: str, change: Callable[[Table], Awaitable[Write | None]]
    ) -> Table:
        """Load, change and write conditionally, again on a lost race.

        The first try starts from the table as this instance's advance loop left it, when it
        kept it (:meth:`_keep`): no load.  The write is conditional on its seq, so a copy that
        another instance made stale loses its race and the next try loads; a refusal or a
        no-op decided on the copy stands only if the database's seq is the copy's."""
        async with self.lock(table_id):
            kept = self._take_kept(table_id)
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
        """Whether the stored table is no longer at ``seq`` (or is gone)."""
        stored = await self.db(self.store.load, table_id)
        return stored is None or stored.seq != seq

    # ------------------------------------------------------------------ engine steps
    def _token(self, table: Table) -> engine_pb2.GameToken:
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
    def _game_events(events: Any, w: Write) -> None:
        for e in events:
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
            table=engine_pb2.TableRef(id=table.table_id, game_no=table.game_no),
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
        self._game_events(response.events, w)
        w.outbox.append(self._append_request(game_id, response.events))
        self._set_turn(table, response.public_view, now, w)

    @staticmethod
    def _append_request(game_id: str, events: Any) -> replay_pb2.AppendEventsRequest:
        first = events[0].envelope.seq
        return replay_pb2.AppendEventsRequest(
            game_id=game_id,
            expected_seq=first - 1,
            events=list(events),
            request_id=f"mm:{game_id}:{first}",
        )

    async def _apply(
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
            state=self._token(table), action=action, actor=actor, cause=cause,
            public_history_delta=True,
        )  # fmt: skip
        if table.turn_deadline_ms is not None and table.turn is not None:
            request.turn_deadline.FromMilliseconds(table.turn_deadline_ms)
        predicted = None
        earlier: bots.Deal | None = None
        if view_seat is not None:
            request.view_seat = view_seat
        else:  # the next seat in turn order: its view spares a GetSeatView if it moves next
            predicted = (action.seat + 1) % len(table.seats)
            request.view_seat = predicted
            known = self._deals.get(table.table_id)
            if known is not None and known[0] == table.token:
                earlier = known[1]
                request.history_delta = True
        response = await self._engine_gate.call(self.engine.apply, request)
        self.engine_ok = True
        self.applied += 1
        now = now_ms()
        table.token = response.state.token
        table.engine_seq = response.state.seq
        if response.events:
            self._game_events(response.events, w)
            w.outbox.append(self._append_request(table.game_id or "", response.events))
        kind = action.WhichOneof("kind")
        if kind == "autoplay":
            table.seats[action.seat].autoplay = action.autoplay
        if response.game_over:
            self._finish_game(table, response, now, w)
        elif kind != "autoplay" or table.turn == action.seat:
            self._set_turn(table, response.public_view, now, w)
        if predicted is not None and response.HasField("seat_view"):
            if len(self._views) > MAX_VIEWS:
                self._views.clear()
            self._views[table.table_id] = (
                table.token or b"",
                predicted,
                response.seat_view,
                earlier,
            )
        return response

    def _finish_game(
        self, table: Table, response: engine_pb2.ApplyResponse, now: int, w: Write
    ) -> None:
        s = response.settlement
        table.last_settlement = s.settlement_json
        table_rules.finish_game(
            table, list(s.scores), s.escaper if s.HasField("escaper") else None,
            json.loads(s.settlement_json or "{}"), rules.variant(table.variant).family, now, w,
            lambda: bot_seat(table.bot_level),
        )  # fmt: skip

    # ------------------------------------------------------------------ due work
    async def advance(self, table_id: str) -> None:
        """Do whatever is due at the table, repeatedly, until nothing is.  One loop per table
        in this process: a wake-up while it runs makes it look once more."""
        if table_id in self._advancing:
            self._again.add(table_id)
            return
        self._advancing.add(table_id)
        table = self._take_kept(table_id)
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
                        self._keep(table)
                        return
                    self._again.discard(table_id)
                    table = None
                elif table is not None and table_id not in self._again and not _due_now(table):
                    # The table as just written, nothing due yet: kept without taking a step
                    # slot and the lock once more (a person's call meanwhile would leave this
                    # copy behind its own write, and a kept copy that is behind costs that
                    # person's next call a lost race).
                    self._keep(table)
                    return
        finally:
            self._advancing.discard(table_id)
            self._again.discard(table_id)

    def _keep(self, table: Table | None) -> None:
        """Keep the table as the advance loop leaves it (its next step is not due yet): that
        step then starts from it instead of a load.  Only a cache: the step's write is
        conditional on its seq, and a copy that another writer made stale costs a Conflict
        and a reload, never a stale write."""
        if table is None or table.state == "closed":
            return
        if self.waker.latest(table.table_id) > table.seq:
            return  # this instance wrote the table since: that copy is behind
        if len(self._kept) > MAX_VIEWS:
            self._kept.clear()
        self._kept[table.table_id] = table

    def _take_kept(self, table_id: str) -> Table | None:
        """The kept copy of the table, unless a newer write is known here (another instance's
        NOTIFY came since it was kept): that copy would cost an engine call and a lost race."""
        table = self._kept.pop(table_id, None)
        if table is not None and self.waker.latest(table_id) > table.seq:
            return None
        return table

    async def _advance_once(
        self, table_id: str, cached: Table | None, recheck: bool = False
    ) -> tuple[bool, Table | None]:
        """One due step.  ``cached`` is the table as this loop last wrote it (``recheck``: as
        an earlier loop left it): if another writer moved it meanwhile, the conditional write
        fails and the table is reloaded."""
        async with self.lock(table_id):
            table = cached or await self.db(self.store.load, table_id)
            if table is None or table.due_ms is None or table.due_ms > now_ms():
                if recheck:
                    return True, None  # the kept copy may be behind: the database decides
                return False, table
            old = table.seq
            w = Write()
            await self._due(table, w)
            try:
                return True, await self.commit(table, old, w, advancing=True)
            except Conflict:
                return True, None  # someone else moved it: look again

    async def _due(self, table: Table, w: Write) -> None:
        now = now_ms()
        expired = table_rules.graced(table, now)
        if expired:
            # A stream of the seat may have opened on another instance meanwhile (its
            # "connected" write lost a race with this seat's "disconnected"): the rows of
            # open streams decide, and such a seat is connected, not escaped.
            live = await self.db(self.store.live_seats, table.table_id)
            table_rules.back_in_time(table, [i for i in expired if i in live], w)
            if live & set(expired) and not (expired := [i for i in expired if i not in live]):
                return  # only the grace was due, and it ended: written as it is
        due = table_rules.due_step(table, now, expired, lambda: bot_seat(table.bot_level), w)
        if due.step is table_rules.Step.DEAL:
            await self._start_game(table, w)
            return
        if due.step is table_rules.Step.NOTHING or due.seat is None:
            return
        s = table.seats[due.seat]
        if due.step is table_rules.Step.LEAVE:
            action = engine_pb2.Action(seat=due.seat, leave=True)
            await self._apply(table, action, s.player_id, common_pb2.CAUSE_DISCONNECT, w)
        elif due.step is table_rules.Step.TIMEOUT:
            action = engine_pb2.Action(seat=due.seat, timeout=True)
            await self._apply(table, action, s.player_id, common_pb2.CAUSE_TIMEOUT, w)
        else:
            view = await self._turn_view(table, due.seat)
            if due.step is table_rules.Step.BOT:
                seed = f"{table.game_id}:{table.engine_seq}"
                chosen = bots.choose_bot_action(s.bot_level, view, seed)
                cause = common_pb2.CAUSE_BOT
            else:
                chosen = bots.autoplay_move(view)
                cause = common_pb2.CAUSE_AUTOPLAY
            await self._apply(table, bots.action_message(chosen), s.player_id, cause, w)

    async def _turn_view(self, table: Table, seat: int) -> rules.SeatView:
        """The view of ``seat``, the seat to move, for its bot or auto-play: the one the last
        Apply predicted if it is of this very state, else the engine's GetSeatView."""
        known = self._views.pop(table.table_id, None)
        earlier = None
        if known is not None and known[0] == table.token and known[1] == seat:
            msg, earlier = known[2], known[3]
        else:
            msg = await self._engine_gate.call(self.engine.seat_view, self._token(table), seat)
        view = bots.view_of(msg, earlier)
        if len(self._deals) > MAX_VIEWS:
            self._deals.clear()
        self._deals[table.table_id] = (table.token or b"", (view.deal_no, view.history))
        return view

    # ------------------------------------------------------------------ seat calls
    async def act(self, request: M.ActRequest) -> M.ActResponse:
        with playing():
            return await self._act(request)

    async def _act(self, request: M.ActRequest) -> M.ActResponse:
        table_id, player = request.table_id, request.player_id
        digest = b""
        if request.request_id:
            digest = hashlib.sha256(
                player.encode() + b"\x00" + request.action.SerializeToString(deterministic=True)
            ).digest()
        result: list[M.ActResponse] = []
        tries = 0

        async def replayed() -> bool:
            """Whether this request id landed already (here or elsewhere): then its answer
            is the answer."""
            stored = await self.db(self.store.request, table_id, request.request_id)
            if stored is not None:
                result[:] = [self._replayed(stored, digest)]
            return stored is not None

        async def change(table: Table) -> Write | None:
            # A retry of an Act that landed (here or elsewhere) answers what it answered.
            # Not looked up before the first try (a database round trip on every Act, in
            # the people's own threads): a landed request's action is then refused (looked
            # up on that refusal), or applied again and its write refused by the request
            # id's unique key (a Conflict: looked up on the next try, under the table's
            # lock, after the load, so a concurrent retry that landed meanwhile is seen).
            nonlocal tries
            tries += 1
            if request.request_id and tries > 1 and await replayed():
                return None
            try:
                return await attempt(table)
            except ServiceError:
                if request.request_id and tries == 1 and await replayed():
                    return None
                raise

        async def attempt(table: Table) -> Write | None:
            seat = self.seat_or_refuse(table, player)
            if request.HasField("expected_seq") and request.expected_seq != table.seq:
                raise ServiceError(
                    grpc.StatusCode.ABORTED, ServiceReason.STALE_SEQ,
                    f"the table is at seq {table.seq}, not {request.expected_seq}",
                )  # fmt: skip
            if table.state != "playing" or table.token is None:
                raise failed(ServiceReason.NOT_READY, "no game is running at this table")
            action = engine_pb2.Action()
            action.CopyFrom(request.action)
            action.seat = seat
            if action.WhichOneof("kind") in ("leave", "timeout"):
                raise ServiceError(
                    grpc.StatusCode.INVALID_ARGUMENT, RulesReason.BAD_ACTION,
                    "leave with LeaveTable; timeouts are the table's", "action",
                )  # fmt: skip
            w = Write()
            try:
                response = await self._apply(table, action, player, common_pb2.CAUSE_PLAYER, w,
                                             view_seat=seat)  # fmt: skip
            except Unreachable as exc:
                self.engine_ok = False
                raise engine_down(exc) from None
            out = M.ActResponse(
                game_over=response.game_over,
                view=response.seat_view,
                events=[event_of(n) for n in w.notes if rules.may_see(n.to, seat)],
            )
            if response.game_over:
                out.settlement.CopyFrom(response.settlement)
            if request.request_id:
                w.request = (table_id, request.request_id, digest, out)
            result.clear()
            result.append(out)
            return w

        try:
            table = await self.mutate(table_id, change)
        except Conflict:  # pragma: no cover - mutate retries
            raise
        except ServiceError as exc:
            if exc.reason == ServiceReason.CONFLICT and request.HasField("expected_seq"):
                raise ServiceError(
                    grpc.StatusCode.ABORTED, ServiceReason.STALE_SEQ, exc.message
                ) from None
            raise
        out = result[0]
        if not out.seq:
            out.seq = table.seq
        return out

    def _replayed(self, stored: Any, digest: bytes) -> M.ActResponse:
        if bytes(stored.body_hash) != digest:
            raise failed(
                ServiceReason.REQUEST_ID_REUSED, "this request id was used for another action"
            )
        response: M.ActResponse = M.ActResponse.FromString(stored.response)
        return response

    async def ready(self, table_id: str, player: str) -> Table:
        async def change(table: Table) -> Write | None:
            seat = self.seat_or_refuse(table, player)
            if table.state == "closed":
                raise failed(ServiceReason.TABLE_CLOSED, "the table is closed")
            w = Write()
            return w if table_rules.ready(table, seat, w) else None

        return await self.mutate(table_id, change)

    async def leave(self, table_id: str, player: str) -> Table:
        async def change(table: Table) -> Write | None:
            seat = self.seat_or_refuse(table, player)
            w = Write()
            if table.state == "playing" and table.token is not None:
                action = engine_pb2.Action(seat=seat, leave=True)
                try:
                    await self._apply(table, action, player, common_pb2.CAUSE_PLAYER, w)
                except Unreachable as exc:
                    raise engine_down(exc) from None
                if table.seat_of(player) == seat:  # not an escape the rules recorded
                    table_rules.remove(table, seat, "left", w, bot_seat(table.bot_level))
            else:
                table_rules.remove(table, seat, "left", w, bot_seat(table.bot_level))
                table_rules.close_if_empty(table, w)
            return w

        with playing():
            return await self.mutate(table_id, change)

    async def hint(self, table_id: str, player: str) -> engine_pb2.GetHintResponse:
        table = await self.load(table_id)
        seat = self.seat_or_refuse(table, player)
        if table.state != "playing" or table.token is None:
            raise failed(ServiceReason.NOT_READY, "no game is running at this table")
        try:
            return await self._engine_gate.call(self.engine.hint, self._token(table), seat)
        except Unreachable as exc:
            raise engine_down(exc) from None

    async def seat_view(self, table: Table, seat: int) -> engine_pb2.View | None:
        if table.state != "playing" or table.token is None:
            return None
        try:
            return await self._engine_gate.call(self.engine.seat_view, self._token(table), seat)
        except Unreachable as exc:
            raise engine_down(exc) from None

    # ------------------------------------------------------------------ connections
    async def connected(self, table_id: str, seat: int, player: str) -> str:
        """A Subscribe stream of ``seat`` opened: its row (live while this instance renews
        it) makes the seat connected for every instance.  The stream's id."""
        stream_id = uuid.uuid4().hex
        opened = asyncio.ensure_future(
            self.db(self.store.open_stream, stream_id, table_id, seat, player, self.instance,
                    self.settings.stream_lease_ms)
        )  # fmt: skip

        async def change(table: Table) -> Write | None:
            if table.seat_of(player) != seat:
                return None
            w = Write()
            return w if table_rules.connected(table, seat, w) else None

        try:
            await asyncio.shield(opened)
            await self.mutate(table_id, change)
        except BaseException:
            # No stream after all (the caller went, or the table kept moving): a row left
            # behind would be renewed for ever and keep the seat connected.
            self.spawn(self._close_opened(opened, stream_id, table_id, seat))
            raise
        return stream_id

    async def _close_opened(
        self, opened: asyncio.Future[None], stream_id: str, table_id: str, seat: int
    ) -> None:
        with contextlib.suppress(Exception):
            await opened  # the insert may still be running: delete after it
        await self.db(self.store.close_stream, stream_id, table_id, seat)

    async def disconnected(self, stream_id: str, table_id: str, seat: int, player: str) -> None:
        if self._stopping:
            return  # the row lapses: a restarted or other instance takes it from there
        if await self.db(self.store.close_stream, stream_id, table_id, seat):
            return  # another stream of the seat is open, here or on another instance
        with contextlib.suppress(ServiceError):
            await self._mark_disconnected(table_id, seat, player)

    async def _mark_disconnected(self, table_id: str, seat: int, player: str) -> None:
        async def change(table: Table) -> Write | None:
            if table.seat_of(player) != seat or table.state == table_rules.State.CLOSED:
                return None
            w = Write()
            return w if table_rules.disconnected(table, seat, now_ms(), w) else None

        await self.mutate(table_id, change)
