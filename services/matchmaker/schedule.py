"""The runner's background loops: claim due deadlines and advance their tables, seat the
pools, renew this instance's stream leases (and start the grace of seats whose instance died
with their streams), end database sessions stuck on a cut-off peer, and deliver the outbox."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from services.common import logging as clog
from services.common.db import database_unavailable
from services.common.grpc_errors import ServiceError

if TYPE_CHECKING:
    from .runner import Runner

log = clog.get_logger("cardroom.matchmaker")


class Scheduler:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.settings = runner.settings
        self._sem = asyncio.Semaphore(self.settings.concurrency)
        self._renewed = 0.0
        self._reaped = 0.0
        #: False once the database refused to end a peer's session (another role): not
        #: asked again.
        self._reaping = True

    def start(self) -> None:
        r = self.runner
        r.spawn(self._loop("deadlines", self._deadlines_once, None))
        r.spawn(self._loop("seating", self._seating_once, None))
        r.spawn(self._loop("outbox", r.outbox.deliver_once, r.outbox_kick))
        r.spawn(self._loop("streams", self._streams_once, None))
        r.spawn(self._loop("reaper", self._reap_once, None))

    async def _loop(
        self, name: str, once: Callable[[], Awaitable[bool]], kick: asyncio.Event | None
    ) -> None:
        while not self.runner.stopping:
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
                    async with asyncio.timeout(self.settings.tick_s):
                        await kick.wait()
                kick.clear()

    async def _deadlines_once(self) -> bool:
        ids = await self.runner.db(
            self.runner.store.claim_due, self.settings.concurrency, self.settings.lease_ms
        )
        for table_id in ids:
            self.runner.spawn(self._advance_bounded(table_id))
        return False

    async def _advance_bounded(self, table_id: str) -> None:
        async with self._sem:
            await self.runner.advance(table_id)

    async def _seating_once(self) -> bool:
        await self.runner.db(self.runner.store.expire)
        for pool in await self.runner.db(self.runner.store.pools_due):
            await self.runner.seat(pool)
        return False

    async def _streams_once(self) -> bool:
        """Renew this instance's stream leases, and mark the seats of lapsed streams (another
        instance died with them open) disconnected: their grace runs from then."""
        loop = asyncio.get_running_loop()
        every = self.settings.stream_lease_ms / 3000
        if loop.time() - self._renewed < every:
            return False
        self._renewed = loop.time()
        await self.runner.db(
            self.runner.store.renew_streams, self.runner.instance, self.settings.stream_lease_ms
        )
        for table_id, seat, player in await self.runner.db(self.runner.store.lapsed_streams):
            with contextlib.suppress(ServiceError):
                await self.runner.mark_disconnected(table_id, seat, player)
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
            pids = await loop.run_in_executor(
                None, self.runner.store.reap_stuck, self.settings.lease_ms
            )
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
