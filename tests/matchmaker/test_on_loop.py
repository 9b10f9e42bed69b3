"""Short store calls on the event loop's own thread (SQLite only, backends.run_on_loop): they
run there when SQLite's write lock is free, and never stop the loop to wait for it — a write
while another process holds the file's lock (``make run``'s replay on the same file) goes to
a database thread, lands once the lock is free, and the loop serves everyone meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.matchmaker.clients import Engine, Replay
from services.matchmaker.runner import Runner
from services.matchmaker.store import Store, on_loop

#: How long the other process's transaction holds the file's write lock.
HELD_S = 0.5


def a_runner(db_url: str) -> Runner:
    """A runner on the store (in a running loop: its clients' channels need one)."""
    return Runner(Store(make_engine(db_url)), Engine("127.0.0.1:1"), Replay("127.0.0.1:1"))


def test_a_short_call_runs_on_the_loop_on_sqlite_and_in_a_thread_on_postgresql(
    db_url: str,
) -> None:
    upgrade(db_url)

    def which_thread() -> int:
        return threading.get_ident()

    async def main() -> tuple[int, int, int]:
        runner = a_runner(db_url)
        try:
            short = await runner.db(on_loop(which_thread))
            # Not marked short: a seating pass over thousands of tickets, say.
            long = await runner.db(lambda: threading.get_ident())
            return short, long, threading.get_ident()
        finally:
            await runner.close()

    short, long, loop_thread = asyncio.run(main())
    assert long != loop_thread
    assert (short == loop_thread) is db_url.startswith("sqlite")


def test_a_write_never_stops_the_loop_while_another_process_holds_the_lock(
    db_url: str,
) -> None:
    if not db_url.startswith("sqlite"):
        return  # PostgreSQL's calls all run in threads (above)
    path = db_url.split("///", 1)[1]
    upgrade(db_url)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's write in progress
    released: list[float] = []

    def release_later() -> None:
        time.sleep(HELD_S)
        released.append(time.monotonic())
        other.execute("COMMIT")

    async def main() -> tuple[float, int, int]:
        runner = a_runner(db_url)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        beat = asyncio.create_task(ticker())
        threading.Thread(target=release_later, daemon=True).start()
        try:
            written_in = await runner.db(
                on_loop(lambda: runner.store.lease("t1", 5) or threading.get_ident())
            )
            done = time.monotonic()
            await runner.db(runner.store.lease, "t1", 6)  # and the lock is free again
            return done, written_in, ticks
        finally:
            beat.cancel()
            await runner.close()

    loop_thread = threading.get_ident()
    done, written_in, ticks = asyncio.run(main())
    other.close()
    assert written_in != loop_thread, "the write waited for the lock on the loop's thread"
    assert done >= released[0], "the write did not wait for the other process's lock"
    # The loop ran on while the write waited: about HELD_S / 10 ms ticks.
    assert ticks >= 10
