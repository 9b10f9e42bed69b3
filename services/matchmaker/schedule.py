"""The runner's background loops: claim due deadlines and advance their tables, seat the
pools, renew this instance's stream leases (and start the grace of seats whose instance died
with their streams), end database sessions stuck on a cut-off peer, and deliver the outbox.

Each loop sleeps until its next work falls due: the time its last pass read from the
database (the first deadline, bot fill time, outbox row), or earlier when a write of this
instance notes earlier work (:class:`Alarm`), but at most ``idle_s`` (work no pass or note
here saw: another instance's, a dead instance's lapsed leases) and at least ``tick_s`` after
the last pass (work due at scattered times is taken in batches).  Looking every ``tick_s``
instead cost an idle instance 60 queries a second: 77 ms of CPU a second on SQLite, 129 on
PostgreSQL, ~0.05 ms of every action at the bench's rates."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from services.common import logging as clog
from services.common.db import database_unavailable
from services.common.grpc_errors import ServiceError

from .store import now_ms

if TYPE_CHECKING:
    from .runner import Runner

log = clog.get_logger("cardroom.matchmaker")

#: What a loop's pass returns: the wall-clock ms its next work falls due (one already past:
#: after ``tick_s``), None when it knows of none (after ``idle_s``), or FULL.
Next = int | None
#: The pass was full (more is due than it takes at once): the loop looks again at once.
FULL = -1


class Alarm:
    """When a background loop looks next: at the time its pass asked for, or earlier when
    this instance notes earlier work (:meth:`due`: a write that set a deadline, queued a
    ticket or an outbox row), never sooner than ``floor_s`` after its last pass started."""

    def __init__(self, floor_s: float, cap_s: float) -> None:
        self.floor_ms = floor_s * 1000
        self.cap_ms = cap_s * 1000
        self._changed = asyncio.Event()
        #: When the loop looks next (wall-clock ms); infinite during a pass, so that
        #: whatever is noted meanwhile is kept for the sleep after it.
        self._at = math.inf
        #: The soonest the loop looks again: its last pass's start plus the floor.
        self._floor_at = 0.0

    def due(self, at_ms: float) -> None:
        """Work falls due at ``at_ms``: the loop looks by then (or at its floor)."""
        at = max(at_ms, self._floor_at)
        if at < self._at:
            self._at = at
            self._changed.set()

    def passing(self) -> None:
        """A pass starts now."""
        self._at = math.inf
        self._floor_at = now_ms() + self.floor_ms

    async def sleep(self, next_ms: Next) -> None:
        """Until ``next_ms`` (see :data:`Next`), a noted due time or the cap, whichever is
        first, and not before the floor."""
        if next_ms == FULL:
            self._at = math.inf
            await asyncio.sleep(0)
            return
        cap = now_ms() + self.cap_ms
        self._at = max(min(self._at, cap, math.inf if next_ms is None else next_ms),
                       self._floor_at)  # fmt: skip
        while (delay := self._at - now_ms()) > 0:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay / 1000):
                    await self._changed.wait()
        self._at = math.inf


class Scheduler:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.settings = s = runner.settings
        self._sem = asyncio.Semaphore(s.concurrency)
        #: False once the database refused to end a peer's session (another role): not
        #: asked again.
        self._reaping = True
        #: The seating loop's look at the pools whose skill windows widen (:meth:`_widen`):
        #: when it looked last and next (wall-clock ms), and whether a pool still widened.
        self._widened_ms = 0
        self._widen_at = 0
        self._widening = False
        #: The timers of the next steps of the tables this instance wrote (:meth:`step_at`).
        self._steps: dict[str, asyncio.TimerHandle] = {}
        #: The loops' alarms, for the runner's notes of work it wrote (Alarm.due).
        self.deadlines = Alarm(s.tick_s, s.idle_s)
        self.seating = Alarm(s.tick_s, s.idle_s)
        self.outbox = Alarm(s.tick_s, s.idle_s)

    def start(self) -> None:
        r = self.runner
        s = self.settings
        r.spawn(self._loop("deadlines", self._deadlines_once, self.deadlines))
        r.spawn(self._loop("seating", self._seating_once, self.seating))
        r.spawn(self._loop("outbox", r.outbox.deliver_once, self.outbox))
        # Every third of a stream lease and every quarter of a table lease: their passes
        # find nothing due sooner (they return None), so the alarm's cap is their period.
        every_third = Alarm(s.tick_s, s.stream_lease_ms / 3000)
        r.spawn(self._loop("streams", self._streams_once, every_third))
        r.spawn(self._loop("reaper", self._reap_once, Alarm(s.tick_s, s.lease_ms / 4000)))

    def step_at(self, table_id: str, due_ms: int | None) -> None:
        """The table's next step, due at ``due_ms`` (None: none here), taken by this instance
        at that time: its write leased the table to this instance until then (and HOLD_MS
        more), so no deadline loop claims and loads it.  At bench scale's human-paced
        tables (bots that think a second, turn timers) claims and loads were a fifth of an
        instance's CPU.  A table someone else writes meanwhile is theirs: this step then
        finds it not due, or loses its conditional write."""
        old = self._steps.pop(table_id, None)
        if old is not None:
            old.cancel()
        if due_ms is not None and not self.runner.stopping:
            delay = max(due_ms - now_ms(), 0) / 1000
            loop = asyncio.get_running_loop()
            self._steps[table_id] = loop.call_later(delay, self._step_due, table_id, due_ms)

    def _step_due(self, table_id: str, due_ms: int) -> None:
        self._steps.pop(table_id, None)
        if now_ms() < due_ms:  # the loop's clock ran ahead of the wall clock's
            self.step_at(table_id, due_ms)
        elif not self.runner.stopping:
            self.runner.spawn(self._step(table_id, due_ms))

    async def _step(self, table_id: str, due_ms: int) -> None:
        """The step of a table this instance wrote, now due: from the copy it kept, or, when
        that is gone or behind (another instance wrote the table since), claimed as the
        deadline loop would, unless the other writer holds it (its lease: its step)."""
        runner = self.runner
        kept = runner.kept.current(table_id)
        if kept is None or kept.due_ms != due_ms:
            mine = due_ms + self.settings.hold_ms  # what this instance's write gave it
            if not await runner.db(runner.store.claim, table_id, mine, self.settings.lease_ms):
                return
        await self._advance_bounded(table_id)

    async def queued(self, ticket: dict[str, Any]) -> None:
        """A ticket queued here: its pool seated now, and the seating loop looks again at
        its bot fill time and its expiry."""
        self.seating.due(min(ticket["fill_ms"] or math.inf, ticket["expires_ms"]))
        await self.runner.seat(ticket["pool"])

    async def _loop(self, name: str, once: Callable[[], Awaitable[Next]], alarm: Alarm) -> None:
        while not self.runner.stopping:
            alarm.passing()
            next_ms: Next = None
            try:
                next_ms = await once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if database_unavailable(exc):  # an outage: one line a second, no traceback
                    log.warning("database unavailable; retrying", loop=name, error=str(exc)[:200])
                else:
                    log.exception("background loop failed; retrying", loop=name)
                await asyncio.sleep(1.0)
            await alarm.sleep(next_ms)

    async def _deadlines_once(self) -> Next:
        ids, next_ms = await self.runner.db(
            self.runner.store.claim_due, self.settings.concurrency, self.settings.lease_ms
        )
        for table_id in ids:
            self.runner.spawn(self._advance_bounded(table_id))
        return next_ms

    async def _advance_bounded(self, table_id: str) -> None:
        async with self._sem:
            await self.runner.advance(table_id)

    async def _seating_once(self) -> Next:
        store = self.runner.store
        fill_ms, expires_ms = await self.runner.db(store.tickets_due)
        now = now_ms()
        if expires_ms is not None and expires_ms <= now:
            await self.runner.db(store.expire)
            return now  # the next expiry is not known: look again after tick_s
        if fill_ms is not None and fill_ms <= now:
            for pool in await self.runner.db(store.pools_due):
                await self.runner.seat(pool)
            fill_ms = now  # the next fill time is not known: look again after tick_s
        times = [t for t in (fill_ms, expires_ms, await self._widen(now)) if t is not None]
        return min(times) if times else None

    async def _widen(self, now: int) -> Next:
        """Seat again, every ``widen_s``, the pools whose skill windows widen
        (Store.pools_widening), and once more when the last of their windows reaches anyone:
        their tickets may sit together now though nobody new came and no bot fill time
        passed (a pool that never gets bots waited for the next enqueue, past its anyone
        time).  When the next such look is due, if a pool still widens."""
        if now < self._widen_at:
            return self._widen_at if self._widening else None
        since, self._widened_ms = self._widened_ms, now
        pools = await self.runner.db(self.runner.store.pools_widening, since)
        for pool, _ in pools:
            await self.runner.seat(pool)
        later = [until for _, until in pools if until > now]
        self._widening = bool(later)
        self._widen_at = min([now + int(self.settings.widen_s * 1000), *later])
        return self._widen_at if self._widening else None

    async def _streams_once(self) -> Next:
        """Renew this instance's stream leases, and mark the seats of lapsed streams (another
        instance died with them open) disconnected: their grace runs from then."""
        await self.runner.db(
            self.runner.store.renew_streams, self.runner.instance, self.settings.stream_lease_ms
        )
        for table_id, seat, player in await self.runner.db(self.runner.store.lapsed_streams):
            with contextlib.suppress(ServiceError):
                await self.runner.mark_disconnected(table_id, seat, player)
        return None

    async def _reap_once(self) -> Next:
        """Every quarter lease, end the sessions of any instance stuck inside a transaction
        on their client for a lease (Store.reap_stuck): the row locks they hold would keep
        their tables from every other instance, past the takeover bound, for good."""
        if not self._reaping:
            return None
        loop = asyncio.get_running_loop()
        try:
            # On the loop's default executor, not the runner's pools: their threads may all be
            # waiting on the very locks this frees.
            pids = await loop.run_in_executor(
                None, self.runner.store.reap_stuck, self.settings.lease_ms
            )
        except Exception as exc:
            if database_unavailable(exc):
                raise
            self._reaping = False
            log.warning("cannot end stuck sessions; takeover waits for TCP to notice",
                        error=str(exc)[:200])  # fmt: skip
            return None
        if pids:
            log.warning("ended database sessions stuck on their client", pids=pids)
        return None
