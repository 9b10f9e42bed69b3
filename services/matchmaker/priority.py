"""One policy, in one module: a person's move goes before the runner's own work (bots,
timeouts, deals, seating, the outbox, streams).

One mechanism carries it out: every piece of work runs at a :class:`Priority`, held in one
context variable (:func:`current`; the runner's own tasks start in :func:`background_context`,
a person's move runs inside :func:`acting_as` ``(Priority.MOVE)``, and any other call is
``Priority.CALL``, the default).  :func:`in_thread` carries the caller's context into the
database threads, so the priority follows the work wherever it queues, and each queue orders
by it:

* the engine (:class:`EngineGate`): while people act, background calls keep to a few slots
  and wait for people's calls in flight;
* the database threads (:class:`ThreadsByPriority`): a pool of threads a priority, so a
  move never waits for a thread behind other work;
* SQLite's one writer (:class:`PeopleFirstLock`): a person's write waits for the write in
  progress only, not behind every background write queued;
* PostgreSQL's connections of the event loop (backends.LoopConnections): one given back
  goes to the most urgent write waiting for one.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import enum
import math
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class Priority(enum.IntEnum):
    """Whose work this is, the most urgent first (the order the queues serve it in)."""

    #: A person's move in a running game (Act, LeaveTable), and a seat's stream reopening
    #: (its disconnect grace runs meanwhile: Commands.opening).
    MOVE = 0
    #: Any other call of a person (an RPC: Enqueue, Ready, a stream opening, ...).
    CALL = 1
    #: The runner's own work: due deadlines, bots, seating, the outbox, streams' upkeep.
    BACKGROUND = 2


_PRIORITY: contextvars.ContextVar[Priority] = contextvars.ContextVar(
    "mm_priority", default=Priority.CALL
)


def current() -> Priority:
    """The priority of the work running here (in a task, or in a thread :func:`in_thread`
    started)."""
    return _PRIORITY.get()


@contextlib.contextmanager
def acting_as(priority: Priority) -> Iterator[None]:
    """Runs the work inside at ``priority`` (a person's move: ``Priority.MOVE``)."""
    token = _PRIORITY.set(priority)
    try:
        yield
    finally:
        _PRIORITY.reset(token)


def background_context() -> contextvars.Context:
    """A copy of the current context at ``Priority.BACKGROUND``: the runner's own tasks start
    in one."""
    context = contextvars.copy_context()
    context.run(_PRIORITY.set, Priority.BACKGROUND)
    return context


async def in_thread(pool: Executor, call: Callable[[], T]) -> T:
    """``call()`` in one of ``pool``'s threads, in a copy of the caller's context (as
    ``asyncio.to_thread`` does): its priority reaches the write lock the call takes there."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(pool, context.run, call)


class EngineGate:
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
        if current() is not Priority.BACKGROUND:
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


class ThreadsByPriority:
    """The database threads: a standard pool per :class:`Priority`, so a person's move never
    queues behind other work.  Games that start together end together, so their players
    Enqueue, get seated and open their streams in waves of hundreds of calls; an Act behind
    such a wave in one FIFO queue waited hundreds of ms (the p99 of issue 12).  A queue
    ordered by priority did as well but was a hand-written executor: pools of the standard
    library, a pool a priority, measured no worse (issue 24's A/B in the closing note)."""

    def __init__(self, sizes: Mapping[Priority, int], prefix: str) -> None:
        self._pools = {
            p: ThreadPoolExecutor(sizes[p], thread_name_prefix=f"{prefix}-{p.name.lower()}")
            for p in Priority
        }

    async def run(self, call: Callable[[], T]) -> T:
        """``call()`` in a thread of the pool of the caller's priority (:func:`in_thread`)."""
        return await in_thread(self._pools[current()], call)

    def shutdown(self) -> None:
        for pool in self._pools.values():
            pool.shutdown(wait=False)


class PeopleFirstLock:
    """SQLite's one writer at a time, within this process, with people's work first: a
    write above ``Priority.BACKGROUND`` waits for the write in progress only, not behind
    every background write queued (under load a write holds the lock for several GIL
    hand-overs, and 16 bot moves ahead were most of an Act's time).  The priority is the
    writing thread's context's (:func:`in_thread`)."""

    def __init__(self) -> None:
        mutex = threading.Lock()
        # A condition for each kind of waiter, and a release wakes one waiter only: with
        # notify_all every waiting thread woke on every write to find the lock taken again
        # (6% of the matchmaker's CPU under the bench's bot tables).
        self._people = threading.Condition(mutex)
        self._background = threading.Condition(mutex)
        self._held = False
        self._people_waiting = 0

    def acquire(self) -> None:
        with self._people:
            if current() is not Priority.BACKGROUND:
                self._people_waiting += 1
                try:
                    while self._held:
                        self._people.wait()
                except BaseException:  # gave up waiting: the background may go on
                    self._people_waiting -= 1
                    if not self._people_waiting and not self._held:
                        self._background.notify()
                    raise
                self._people_waiting -= 1
            else:
                while self._held or self._people_waiting:
                    self._background.wait()
            self._held = True

    def acquire_now(self) -> bool:
        """The lock if it is free and nobody waits for it; never waits (the event loop's
        thread, which must not block, takes it this way or leaves the write to a thread)."""
        with self._people:
            if self._held or self._people_waiting:
                return False
            self._held = True
            return True

    @property
    def people_waiting(self) -> int:
        """People's writes waiting for the lock now."""
        return self._people_waiting

    def release(self) -> None:
        with self._people:
            self._held = False
            if self._people_waiting:
                self._people.notify()
            else:
                self._background.notify()


class TableLocks:
    """One asyncio lock a table, for this process's writers of it (a step of its advance loop,
    a call's change), and how many calls wait for each: a run of moves in progress (the
    runner's) stops for them."""

    #: Locks kept before the free ones are dropped.
    MAX = 10_000

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._wanted: dict[str, int] = {}

    def lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            if len(self._locks) > self.MAX:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    def locked(self, table_id: str) -> bool:
        lock = self._locks.get(table_id)
        return lock is not None and lock.locked()

    def wanted(self, table_id: str) -> bool:
        """Whether a call waits for the table's lock."""
        return table_id in self._wanted

    @contextlib.asynccontextmanager
    async def called(self, table_id: str) -> AsyncIterator[None]:
        """The table's lock for a call, counted as wanted while the call waits for it."""
        lock = self.lock(table_id)
        self._wanted[table_id] = self._wanted.get(table_id, 0) + 1
        try:
            await lock.acquire()
        finally:
            if (left := self._wanted.pop(table_id) - 1) > 0:
                self._wanted[table_id] = left
        try:
            yield
        finally:
            lock.release()
