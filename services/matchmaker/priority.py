"""One policy, in one module: a person's move goes before the runner's own work (bots,
timeouts, deals, seating, the outbox, streams), at each place such work queues:

* the engine (:class:`EngineGate`): while people act, the runner's own calls keep to a few
  slots and wait for people's calls in flight;
* the database threads (:class:`PeopleFirstThreads`): a person's call has threads of its own,
  and a move in a running game goes first among them;
* SQLite's one writer (:class:`PeopleFirstLock`): a person's write waits for the write in
  progress only, not behind every bot move queued.

Who is who travels in context variables: :data:`BACKGROUND` is set in the runner's own tasks,
:data:`PLAYING` (:func:`playing`) around a person's move, and a people's thread marks itself
with :func:`urgent_thread`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import heapq
import itertools
import math
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

T = TypeVar("T")

#: True in the runner's own tasks (due deadlines, bots, seating, outbox, streams): their
#: database work queues in a pool of its own, so a person's call (an RPC) never waits in a
#: queue of bot moves behind a busy SQLite write lock.
BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("mm_background", default=False)
#: True in the calls of a person in a running game (Act, LeaveTable): their database work
#: goes first in the people's threads (:class:`PeopleFirstThreads`).
PLAYING: contextvars.ContextVar[bool] = contextvars.ContextVar("mm_playing", default=False)


@contextlib.contextmanager
def playing() -> Iterator[None]:
    """Marks the database work of the calls inside as a person's move (:data:`PLAYING`)."""
    token = PLAYING.set(True)
    try:
        yield
    finally:
        PLAYING.reset(token)


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
        if not BACKGROUND.get():
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


class PeopleFirstThreads(Executor):
    """The people's database threads: a few threads, one queue, with a person's move in a
    running game (Act, LeaveTable: :data:`PLAYING`) ahead of everything else queued, first
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
        return self.put(fn, *args, first=PLAYING.get(), **kwargs)

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


_urgent = threading.local()


def urgent_thread() -> None:
    """Mark the calling thread as one of people's calls (a thread pool's initializer): its
    SQLite writes go before the runner's background writes (PeopleFirstLock)."""
    _urgent.on = True


class PeopleFirstLock:
    """SQLite's one writer at a time, within this process, with people's calls first: a
    person's write waits for the write in progress only, not behind every bot move queued
    (under load a write holds the lock for several GIL hand-overs, and 16 bot moves ahead
    were most of an Act's time)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._held = False
        self._urgent_waiting = 0

    def acquire(self) -> None:
        urgent = getattr(_urgent, "on", False)
        with self._cond:
            if urgent:
                self._urgent_waiting += 1
                try:
                    while self._held:
                        self._cond.wait()
                finally:
                    self._urgent_waiting -= 1
            else:
                while self._held or self._urgent_waiting:
                    self._cond.wait()
            self._held = True

    def release(self) -> None:
        with self._cond:
            self._held = False
            self._cond.notify_all()
