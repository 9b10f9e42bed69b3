"""Wake-ups of this instance's streams and loops: a table's writes (this process's, with
their events kept so its streams need not read them back, and other instances' through
NOTIFY), a pool's seatings, and a graceful stop that ends every wait."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from services.common.notify import Notifier, Peers
from services.common.wire import matchmaker_pb2

from .backends import NOTIFY_CHANNEL
from .table import Table

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


class Waker(Notifier):
    """The shared Notifier (LISTEN on PostgreSQL, polling beneath) with asyncio waiters."""

    def __init__(
        self,
        engine: Any,
        loop: asyncio.AbstractEventLoop,
        poll: float,
        writing: Callable[[str], bool] | None = None,
        instance: str = "",
    ) -> None:
        self._loop = loop
        self._sqlite = engine.dialect.name == "sqlite"
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
        # Its presence among the instances (Peers): when another comes, or comes back, every
        # waiter reads again, for the writes it did not announce while it was alone.
        peers = Peers(instance or uuid.uuid4().hex[:12], self._fire_all_soon)
        super().__init__(engine, NOTIFY_CHANNEL, poll, peers)

    @property
    def hears_every_write(self) -> bool:
        """Whether every write of a table reaches its waiters here as a wake-up, so that their
        polls are only a safety net: LISTEN is up (another instance's writes come by NOTIFY),
        or the store is SQLite, which one matchmaker process alone writes (README: "SQLite is
        for one machine and one matchmaker").  On the bench's bot tables, SQLite streams
        polling every 0.25 s read the log 115 times a second for nothing (beside 140 reads
        of their writes from memory): 10% of the instance's CPU per action."""
        return self.listening or self._sqlite

    def alone(self) -> bool:
        """Whether no other instance listens (Peers.alone): its writes need no NOTIFY."""
        return self.peers is not None and self.peers.alone()

    def _fire_all_soon(self) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self._loop.call_soon_threadsafe(self._fire_all)

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
            self._fire_all_soon()

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
            async with asyncio.timeout(timeout):
                await asyncio.shield(fut)
        except TimeoutError:
            return False
        return True


class KeptTables:
    """Tables as this instance's advance loops left them (their next step not due yet): that
    step then starts from the copy instead of a load.  Only a cache: a step's write is
    conditional on the table's seq, and a copy another writer made stale costs a Conflict and
    a reload, never a stale write.  ``latest(table_id)``: the newest seq of the table known
    here (Waker.latest), by which a copy is known to be behind."""

    def __init__(self, latest: Callable[[str], int], limit: int = 10_000) -> None:
        self._latest = latest
        self._limit = limit
        self._tables: dict[str, Table] = {}

    def get(self, table_id: str) -> Table | None:
        """The kept copy, if any (left where it is)."""
        return self._tables.get(table_id)

    def current(self, table_id: str) -> Table | None:
        """The kept copy, left where it is, unless a newer write is known here: for a read
        that starts from it before its next await (it may be stepped in place after)."""
        table = self._tables.get(table_id)
        if table is not None and self._latest(table_id) > table.seq:
            return None
        return table

    def keep(self, table: Table | None) -> None:
        if table is None or table.state == "closed":
            return
        if self._latest(table.table_id) > table.seq:
            return  # this instance wrote the table since: that copy is behind
        if len(self._tables) > self._limit:
            self._tables.clear()
        self._tables[table.table_id] = table

    def take(self, table_id: str) -> Table | None:
        """The kept copy (no longer kept), unless a newer write is known here (another
        instance's NOTIFY came since it was kept): that copy would cost an engine call and a
        lost race."""
        table = self.current(table_id)
        self._tables.pop(table_id, None)
        return table

    def drop(self, table_id: str) -> None:
        self._tables.pop(table_id, None)
