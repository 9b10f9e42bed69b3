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
import collections
import contextlib
import contextvars
import hashlib
import heapq
import itertools
import json
import math
import secrets
import threading
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from services.common import logging as clog
from services.common.db import database_unavailable
from services.common.fields import room_of, variant_in_room
from services.common.grpc_errors import ServiceError, failed
from services.common.notify import Notifier
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import common_pb2, engine_pb2, matchmaker_pb2, replay_pb2
from services.engine import rules

from . import bots
from . import table as table_rules
from .clients import Engine, Replay, Unreachable
from .store import (
    NOTIFY_CHANNEL,
    Conflict,
    Store,
    Write,
    bot_seat,
    event_of,
    now_ms,
    ticket_pool_key,
    urgent_thread,
)
from .table import Table

log = clog.get_logger("cardroom.matchmaker")
T = TypeVar("T")
M = matchmaker_pb2

#: Conditional-write retries before a call gives up with ABORTED CONFLICT.
MAX_RETRIES = 8
#: Table seqs the Waker remembers before it forgets them all (bounded memory; a forgotten
#: one costs one spare wake-up).
MAX_WOKEN = 100_000
#: How long (s) and how often at most the Waker waits, while this process writes a table,
#: to tell the NOTIFY of that write from another instance's (Waker._notified).
NOTIFY_RECHECK_S = 0.01
NOTIFY_RECHECKS = 20
#: Writes of one table the Waker keeps for its streams (their events, :meth:`Waker.written`):
#: a stream reads at once on its wake-up, so one or two are all it ever needs.
RECENT_WRITES = 4
#: Tables whose recent writes the Waker keeps before it forgets them all (a forgotten write
#: costs its streams one read each).
MAX_RECENT = 10_000
#: One table event as written: (seq, the one seat it is for or None for every seat, event).
Written = tuple[int, int | None, matchmaker_pb2.TableEvent]
#: Predicted seat views kept (one per table at most) before they are all dropped.
MAX_VIEWS = 10_000
#: The lease an advancing table keeps while its next step is due at once (ms): short, so a
#: loop that died mid-way (an outage) is taken up again soon.
HOLD_MS = 1000
#: True in the runner's own tasks (due deadlines, bots, seating, outbox, streams): their
#: database work queues in a pool of its own, so a person's call (an RPC) never waits in a
#: queue of bot moves behind a busy SQLite write lock.
_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("mm_background", default=False)
#: True in the calls of a person in a running game (Act, LeaveTable): their database work
#: goes first in the people's threads (:class:`_FirstThreads`).
_PLAYING: contextvars.ContextVar[bool] = contextvars.ContextVar("mm_playing", default=False)


@contextlib.contextmanager
def playing() -> Iterator[None]:
    """Marks the database work of the calls inside as a person's move (:data:`_PLAYING`)."""
    token = _PLAYING.set(True)
    try:
        yield
    finally:
        _PLAYING.reset(token)


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
    #: a few, and none start while a person's call is in flight (:class:`_EngineGate`).
    background_engine_calls: int = 4
    #: People act while one of their engine calls is in flight or ended less than this ago
    #: (seconds); else the steps' engine calls are not capped below ``background_steps``.
    people_quiet_s: float = 0.05
    #: The longest a step's engine call waits for people's calls in flight (seconds).
    people_first_wait_s: float = 0.03
    #: An open Subscribe stream's row lives this long unless its instance renews it (every
    #: third of it): the time a dead instance's seats still look connected.
    stream_lease_ms: int = 15_000


class Waker(Notifier):
    """The shared Notifier (LISTEN on PostgreSQL, polling beneath) with asyncio waiters."""

    def __init__(
        self,
        engine: Any,
        loop: asyncio.AbstractEventLoop,
        poll: float,
        writing: Callable[[str], bool] | None = None,
    ) -> None:
        self._loop = loop
        #: Whether this process is writing a table now (its lock is held).
        self._writing = writing or (lambda key: False)
        self._futures: dict[str, asyncio.Future[None]] = {}
        #: Set by :meth:`stop` (a graceful stop): streams waiting here end.
        self.stopped = False
        #: The latest table seq this process wrote and woke its own waiters for: the NOTIFY
        #: of that same write (``table_id:seq``) comes back through LISTEN and would wake
        #: every stream of the table a second time for nothing (an empty read each).
        self._woken: dict[str, int] = {}
        #: The latest table seq another instance's NOTIFY announced (:meth:`latest`).
        self._heard: dict[str, int] = {}
        #: Per table, this process's latest writes, consecutive: (seq before, seq after, the
        #: events written), so that its streams take them from here instead of each reading
        #: the log again (one read per stream per write was most of the stream path's work).
        self._recent: dict[str, collections.deque[tuple[int, int, list[Written]]]] = {}
        super().__init__(engine, NOTIFY_CHANNEL, poll)

    @property
    def listening(self) -> bool:
        """Whether LISTEN is up (set by the LISTEN thread)."""
        return self._listening

    @listening.setter
    def listening(self, value: bool) -> None:
        changed = value != getattr(self, "_listening", False)
        self._listening = value
        if changed:
            # LISTEN came up or went: every waiter looks again now.  Lost, the notifications
            # meanwhile are gone and the waiters must poll at the short interval; back, any
            # write between their last read and the LISTEN is seen.  So a waiter's long
            # poll while LISTEN is up is only a safety net, never the way a write is seen.
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                self._loop.call_soon_threadsafe(self._fire_all)

    def _fire_all(self) -> None:
        futures, self._futures = self._futures, {}
        for fut in futures.values():
            if not fut.done():
                fut.set_result(None)

    def wake_written(
        self,
        key: str,
        before: int,
        seq: int,
        events: Sequence[tuple[int | None, matchmaker_pb2.TableEvent]] | None = None,
    ) -> None:
        """A write of this process moved ``key`` from seq ``before`` to ``seq`` (committed):
        wake its local waiters now (on the event loop's thread: no hop through
        call_soon_threadsafe).  ``events``: the write's table events (store.Write.events,
        numbered by the write), kept for :meth:`written`."""
        if len(self._woken) > MAX_WOKEN:
            self._woken.clear()
        self._woken[key] = seq
        if events is not None:
            kept = self._recent.get(key)
            if kept is None:
                if len(self._recent) > MAX_RECENT:
                    self._recent.clear()
                kept = self._recent[key] = collections.deque(maxlen=RECENT_WRITES)
            elif kept[-1][1] != before:
                kept.clear()  # another writer (instance) wrote in between: not consecutive
            kept.append((before, seq, [(ev.seq, to, ev) for to, ev in events]))
        self._fire(key)

    def latest(self, key: str) -> int:
        """The latest seq of table ``key`` known here: this process's latest write, or a newer
        one another instance announced (-1: none remembered).  A copy of the table older than
        this is stale."""
        return max(self._woken.get(key, -1), self._heard.get(key, -1))

    def written(self, key: str, after: int) -> tuple[int, list[Written]] | None:
        """The seq of this process's latest write of table ``key`` and every event after seq
        ``after`` up to it, when this process wrote all of them (and still has them); else
        None: read the log.  The rows of a committed seq range never change, so these are
        exactly the rows a read would return, up to that write.  A newer write of another
        instance wakes the stream again, and then this has nothing new: the stream reads."""
        kept = self._recent.get(key)
        if not kept or kept[-1][1] <= after:
            return None
        out: list[Written] | None = None
        for before, _, events in kept:
            if out is not None:
                out += events
            elif before == after:
                out = list(events)
        return None if out is None else (kept[-1][1], out)

    def _wake(self, key: Any) -> None:
        key = str(key)
        name, sep, seq = key.rpartition(":")
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            if sep and seq.isdigit():
                # A table write's NOTIFY (``table_id:seq``): decided on the loop's thread,
                # where this process's own writes are known.
                self._loop.call_soon_threadsafe(self._notified, name, int(seq), 0)
                return
            super()._wake(key)
            self._loop.call_soon_threadsafe(self._fire, key)

    def _notified(self, name: str, seq: int, tries: int) -> None:
        """A table write's NOTIFY, on the loop: nothing if it was this process's own (woken
        already), else a wake-up.  The NOTIFY of this process's write can outrun the write's
        return to the event loop: while this process writes the table, it looks again a
        little later (the write then wakes the streams itself, with its events in memory:
        no read), and wakes only if it was another's after all."""
        if self._woken.get(name, -1) >= seq:
            return
        if tries < NOTIFY_RECHECKS and self._writing(name):
            self._loop.call_later(NOTIFY_RECHECK_S, self._notified, name, seq, tries + 1)
            return
        if len(self._heard) > MAX_WOKEN:
            self._heard.clear()
        if self._heard.get(name, -1) < seq:
            self._heard[name] = seq
        super()._wake(name)
        self._fire(name)

    def _fire(self, key: str) -> None:
        fut = self._futures.pop(key, None)
        if fut is not None and not fut.done():
            fut.set_result(None)

    def future(self, key: str) -> asyncio.Future[None]:
        fut = self._futures.get(key)
        if fut is None or fut.done():
            fut = self._loop.create_future()
            self._futures[key] = fut
        return fut

    def stop(self) -> None:
        """The server is stopping: every wait returns now, and every later one at once."""
        self.stopped = True
        self._fire_all()

    async def wait(self, key: str, timeout: float, fut: asyncio.Future[None] | None = None) -> bool:
        """Until ``key`` is woken or ``timeout`` passes: whether it was woken.  ``fut``: a
        future taken with :meth:`future` before reading, so that a wake-up between the read
        and this wait is not missed."""
        if self.stopped:
            return True
        fut = fut or self.future(key)
        try:
            await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            return False
        return True


class _EngineGate:
    """People's engine calls first, while people act.  The engine answers in turn on one
    worker, so a person's call (an RPC) waits behind every call in flight: it takes no slot,
    and while one is in flight, or ended less than ``quiet_s`` ago, the runner's own calls
    (bot moves, timeouts, deals) keep to ``slots`` in flight and wait to start until no
    person's call is in flight (at most ``wait_s``: people's calls that keep overlapping do
    not starve the bots).  With nobody acting they may keep ``idle_slots`` in flight: a cap
    of a few cost the bot tables a fifth of their moves (with 16 steps in flight, each step
    waited on the gate longer than on the engine), for nobody's benefit."""

    def __init__(self, slots: int, idle_slots: int, quiet_s: float, wait_s: float) -> None:
        self._slots = slots
        self._idle_slots = max(idle_slots, slots)
        self._quiet_s = quiet_s
        self._wait_s = wait_s
        self._busy = 0  # the runner's calls in flight (or granted a start)
        self._people = 0  # people's calls in flight
        self._person_at = -math.inf  # loop time the last person's call ended
        #: The runner's calls waiting to start, in order: (granted, latest start).
        self._waiting: collections.deque[tuple[asyncio.Future[None], float]] = collections.deque()

    def _may_start(self, now: float, latest: float) -> bool:
        people = self._people > 0
        cap = self._slots if people or now - self._person_at < self._quiet_s else self._idle_slots
        return self._busy < cap and (not people or now >= latest)

    def _grant(self) -> None:
        """Start the waiting calls that may start now, in order."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self._waiting:
            fut, latest = self._waiting[0]
            if fut.done():  # cancelled while waiting
                self._waiting.popleft()
                continue
            if not self._may_start(now, latest):
                return
            self._waiting.popleft()
            self._busy += 1
            fut.set_result(None)

    async def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        if not _BACKGROUND.get():
            self._people += 1
            try:
                return await fn(*args)
            finally:
                self._people -= 1
                if not self._people:
                    self._person_at = asyncio.get_running_loop().time()
                    self._grant()
        loop = asyncio.get_running_loop()
        latest = loop.time() + self._wait_s
        if not self._waiting and self._may_start(loop.time(), latest):
            self._busy += 1
        else:
            fut: asyncio.Future[None] = loop.create_future()
            self._waiting.append((fut, latest))
            # The bound on waiting for people's calls: look again then.
            timer = loop.call_at(latest, self._grant)
            try:
                await fut
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():  # granted, then cancelled
                    self._busy -= 1
                    self._grant()
                raise
            finally:
                timer.cancel()
        try:
            return await fn(*args)
        finally:
            self._busy -= 1
            self._grant()


class _FirstThreads(Executor):
    """The people's database threads: a few threads, one queue, with a person's move in a
    running game (Act, LeaveTable: :data:`_PLAYING`) ahead of everything else queued, first
    come first served within each.  Games that start together end together, so their
    players Enqueue, get seated and open their streams in waves of hundreds of calls; an Act
    behind such a wave in a plain FIFO queue waited hundreds of ms (the p99 of issue 12)."""

    def __init__(self, threads: int, prefix: str, initializer: Callable[[], None]) -> None:
        self._size, self._prefix, self._initializer = threads, prefix, initializer
        self._cond = threading.Condition()
        #: (0 for a move, 1 for the rest; arrival; future; call); None ends a thread.
        self._queue: list[tuple[int, int, Future[Any] | None, Callable[[], Any] | None]] = []
        self._order = itertools.count()
        self._threads: list[threading.Thread] = []
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self.put(fn, *args, first=_PLAYING.get(), **kwargs)

    def put(self, fn: Callable[..., T], *args: Any, first: bool, **kwargs: Any) -> Future[T]:
        fut: Future[T] = Future()
        with self._cond:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            item = (0 if first else 1, next(self._order), fut, lambda: fn(*args, **kwargs))
            heapq.heappush(self._queue, item)
            if len(self._threads) < self._size:
                t = threading.Thread(target=self._work, daemon=True,
                                     name=f"{self._prefix}_{len(self._threads)}")  # fmt: skip
                self._threads.append(t)
                t.start()
            else:
                self._cond.notify()
        return fut

    def _work(self) -> None:
        self._initializer()
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                _, _, fut, call = heapq.heappop(self._queue)
            if fut is None or call is None:
                return
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(call())
            except BaseException as exc:
                fut.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._cond:
            if not self._closed:
                self._closed = True
                for _ in self._threads:  # after the work queued (an end sorts last)
                    heapq.heappush(self._queue, (2, next(self._order), None, None))
                self._cond.notify_all()
        if wait:
            for t in self._threads:
                t.join()


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
        self._calls = _FirstThreads(self.settings.call_threads, "mm-call", urgent_thread)
        self._streams = ThreadPoolExecutor(
            self.settings.stream_threads, thread_name_prefix="mm-stream"
        )
        self._steps = asyncio.Semaphore(self.settings.background_steps)
        self._engine_gate = _EngineGate(
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
        self.replay_ok = True
        #: Engine Apply calls that moved a game on (the bench's actions/s).
        self.applied = 0

    # ------------------------------------------------------------------ plumbing
    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        pool = self._pool if _BACKGROUND.get() else self._calls
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
        context.run(_BACKGROUND.set, True)
        context.run(_PLAYING.set, False)
        task = asyncio.get_running_loop().create_task(coro, context=context)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        """Start the background loops (on the running event loop)."""
        _ = self.waker
        self.spawn(self._lifetime())
        self.spawn(self._loop("deadlines", self._deadlines_once, self._kick))
        self.spawn(self._loop("seating", self._seating_once, None))
        self.spawn(self._loop("outbox", self._outbox_once, self._outbox_kick))
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

    async def _outbox_once(self) -> bool:
        games = 200
        # Claimed for one lease, like a table's deadline: a dead instance's rows (and every
        # later row of their games, which wait behind them) go to another within the lease.
        rows = await self.db(self.store.claim_outbox, games, self.settings.lease_ms)
        if not rows:
            return False
        by_game: dict[str, list[Any]] = {}
        for r in rows:
            by_game.setdefault(r.game_id, []).append(r)

        # The rows replay now holds, deleted together after every game's append (one
        # transaction a pass, not one a game).
        done: list[int] = []

        async def deliver(game_rows: list[Any]) -> Unreachable | None:
            """The game's claimed rows as one append (their events are consecutive); after a
            SEQ_CONFLICT (an earlier attempt was stored but not yet deleted here, or another
            instance delivered) the rows replay already holds are dropped.  The error when
            replay did not answer."""
            requests = [replay_pb2.AppendEventsRequest.FromString(r.body) for r in game_rows]
            merged = replay_pb2.AppendEventsRequest(
                game_id=requests[0].game_id,
                expected_seq=requests[0].expected_seq,
                events=[e for q in requests for e in q.events],
            )
            last = merged.events[-1].envelope.seq
            merged.request_id = f"{requests[0].request_id}-{last}"
            first = game_rows[0]
            try:
                await self.replay.append(merged)
                self.replay_ok = True
                done.extend(r.id for r in game_rows)
                return None
            except ServiceError as exc:
                if exc.reason == ServiceReason.SEQ_CONFLICT:
                    with contextlib.suppress(Unreachable, ServiceError):
                        head = await self.replay.head_seq(first.game_id)
                        stored = [
                            r.id for r, q in zip(game_rows, requests, strict=True)
                            if q.events[-1].envelope.seq <= head
                        ]  # fmt: skip
                        if stored:
                            done.extend(stored)
                            return None
                await back_off(game_rows, exc)
                return None
            except Unreachable as exc:
                self.replay_ok = False
                await back_off(game_rows, exc)
                return exc

        async def back_off(game_rows: list[Any], error: Exception) -> None:
            first = game_rows[0]
            attempts = first.attempts + 1
            delay = min(
                self.settings.backoff_cap_ms, self.settings.backoff_ms * 2 ** min(attempts - 1, 16)
            )
            log.warning(
                "replay append failed; will retry",
                game_id=first.game_id, first_seq=first.first_seq, attempts=attempts,
                error=str(error)[:200],
            )  # fmt: skip
            await self.db(self.store.retry_later, first.game_id, first.id, attempts, delay,
                          str(error))  # fmt: skip

        # One append in flight, the games in the order they were claimed (oldest first).
        # Replay re-executes and commits each append in turn on one worker: appends sent at
        # once only waited there, in threads contending for its interpreter and for the
        # database, in bursts that a person's Act queued behind.  A pass in turn also takes
        # longer, and the next one finds more of each game's actions to send in one append.
        # Measured in the bench's bot tables on PostgreSQL (alternated runs): replay's CPU
        # per action 0.39-0.42 -> 0.23-0.26 ms, actions/s +15%, a person's Act p99 at ~70%
        # load 75-94 -> 40-57 ms.  A replay that does not answer costs a pass one call's
        # timeout, not one per game: the games after it back off untried.
        down: Unreachable | None = None
        for game_rows in by_game.values():
            if down is None:
                down = await deliver(game_rows)
            else:
                await back_off(game_rows, down)
        if done:
            await self.db(self.store.delivered, done)
        return len(by_game) >= games

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
