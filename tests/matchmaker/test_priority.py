"""The one priority policy, "a person's move goes before the runner's own work", at each
place work queues: the engine gate, the database threads, SQLite's write lock, and
the priority reaching a database thread from the caller's context."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.matchmaker.priority import (
    EngineGate,
    PeopleFirstLock,
    Priority,
    TableLocks,
    ThreadsByPriority,
    acting_as,
    background_context,
    current,
    in_thread,
)

# ------------------------------------------------------------------ the priority itself


def test_a_call_is_a_person_s_unless_marked_and_the_mark_reaches_its_threads() -> None:
    async def main() -> list[Priority]:
        pool = ThreadPoolExecutor(1)
        try:
            seen = [await in_thread(pool, current)]
            with acting_as(Priority.MOVE):
                seen.append(await in_thread(pool, current))
            seen.append(await in_thread(pool, current))  # the mark ended with the block

            async def background_work() -> Priority:
                return await in_thread(pool, current)

            task = asyncio.get_running_loop().create_task(
                background_work(), context=background_context()
            )
            seen.append(await task)
            seen.append(current())  # the runner's task did not change the caller's
            return seen
        finally:
            pool.shutdown()

    assert asyncio.run(main()) == [
        Priority.CALL,
        Priority.MOVE,
        Priority.CALL,
        Priority.BACKGROUND,
        Priority.CALL,
    ]


# ------------------------------------------------------------------ the engine gate


def test_people_go_first_and_the_runners_calls_keep_to_their_slots() -> None:
    async def main() -> list[str]:
        gate = EngineGate(2, 2, quiet_s=60.0, wait_s=60.0)
        order: list[str] = []
        in_flight = 0
        most = 0
        release = asyncio.Event()

        async def engine(name: str) -> str:
            nonlocal in_flight, most
            in_flight += 1
            most = max(most, in_flight)
            order.append(f"start {name}")
            await release.wait()
            in_flight -= 1
            return name

        background = background_context()
        loop = asyncio.get_running_loop()
        bots = [
            loop.create_task(gate.call(engine, f"bot{i}"), context=background) for i in range(4)
        ]
        await asyncio.sleep(0.01)
        assert order == ["start bot0", "start bot1"]  # two slots: the others wait
        person = loop.create_task(gate.call(engine, "person"))
        await asyncio.sleep(0.01)
        assert order[-1] == "start person"  # no slot needed: at once
        release.set()
        assert await person == "person"
        assert [await b for b in bots] == ["bot0", "bot1", "bot2", "bot3"]
        assert most <= 3  # two slots and the person
        return order

    asyncio.run(main())


def test_the_runners_calls_wait_while_a_persons_call_is_in_flight() -> None:
    async def main() -> None:
        gate = EngineGate(4, 16, quiet_s=60.0, wait_s=60.0)
        order: list[str] = []
        person_done = asyncio.Event()

        async def person_engine() -> None:
            order.append("person")
            await person_done.wait()
            order.append("person done")

        async def bot_engine() -> None:
            order.append("bot")

        background = background_context()
        loop = asyncio.get_running_loop()
        person = loop.create_task(gate.call(person_engine))
        await asyncio.sleep(0.01)
        bot = loop.create_task(gate.call(bot_engine), context=background)
        await asyncio.sleep(0.01)
        assert order == ["person"]  # a free slot, yet it waits for the person's call
        person_done.set()
        await asyncio.gather(person, bot)
        assert order == ["person", "person done", "bot"]

    asyncio.run(main())


def test_with_nobody_acting_the_runners_calls_take_the_larger_cap() -> None:
    async def main() -> None:
        gate = EngineGate(2, 5, quiet_s=60.0, wait_s=60.0)
        started: list[str] = []
        release = asyncio.Event()

        async def engine(name: str) -> str:
            started.append(name)
            await release.wait()
            return name

        loop = asyncio.get_running_loop()
        first = [
            loop.create_task(gate.call(engine, f"bot{i}"), context=background_context())
            for i in range(7)
        ]
        await asyncio.sleep(0.01)
        assert len(started) == 5  # nobody has acted: five slots
        release.set()
        await asyncio.gather(*first)
        # A person acts: from then on (for quiet_s) the runner's calls keep to two.
        release.clear()
        started.clear()

        async def quick() -> None:
            pass

        await gate.call(quick)
        later = [
            loop.create_task(gate.call(engine, f"late{i}"), context=background_context())
            for i in range(4)
        ]
        await asyncio.sleep(0.01)
        assert started == ["late0", "late1"]
        release.set()
        assert [await t for t in later] == ["late0", "late1", "late2", "late3"]

    asyncio.run(main())


def test_a_runners_call_waits_for_overlapping_people_a_bounded_time_only() -> None:
    """People's calls that keep overlapping (one always in flight) would hold the runner's
    calls back for good: after wait_s they start all the same (within their slots)."""

    async def main() -> None:
        gate = EngineGate(4, 16, quiet_s=60.0, wait_s=0.05)
        stop = asyncio.Event()
        order: list[str] = []

        async def person_engine() -> None:
            await asyncio.sleep(0.01)

        async def people() -> None:
            # Two people whose calls overlap: one is always in flight until stop.
            async def one() -> None:
                while not stop.is_set():
                    await gate.call(person_engine)

            first = asyncio.ensure_future(one())
            await asyncio.sleep(0.005)
            await asyncio.gather(first, one())

        async def bot_engine(name: str) -> None:
            order.append(name)

        loop = asyncio.get_running_loop()
        crowd = loop.create_task(people())
        await asyncio.sleep(0.02)
        bots = [
            loop.create_task(gate.call(bot_engine, f"bot{i}"), context=background_context())
            for i in range(3)
        ]
        done, _ = await asyncio.wait(bots, timeout=5.0)
        stop.set()
        await crowd
        assert len(done) == 3 and order == ["bot0", "bot1", "bot2"]  # in order, not starved

    asyncio.run(main())


def test_a_cancelled_wait_gives_its_slot_back() -> None:
    async def main() -> None:
        gate = EngineGate(1, 1, quiet_s=60.0, wait_s=60.0)
        release = asyncio.Event()
        started: list[str] = []

        async def engine(name: str) -> str:
            started.append(name)
            await release.wait()
            return name

        loop = asyncio.get_running_loop()
        first = loop.create_task(gate.call(engine, "first"), context=background_context())
        waiting = loop.create_task(gate.call(engine, "cancelled"), context=background_context())
        last = loop.create_task(gate.call(engine, "last"), context=background_context())
        await asyncio.sleep(0.01)
        waiting.cancel()
        release.set()
        assert await first == "first" and await last == "last"
        assert started == ["first", "last"]

    asyncio.run(main())


# ------------------------------------------------------------------ the database threads


def test_a_move_does_not_wait_for_a_thread_behind_other_work() -> None:
    """Every people's call thread and every background thread is taken: a person's move
    still runs at once, and the work queued behind the busy threads keeps its order."""

    async def main() -> list[str]:
        sizes = {Priority.MOVE: 1, Priority.CALL: 1, Priority.BACKGROUND: 1}
        threads = ThreadsByPriority(sizes, "t")
        busy, order = threading.Event(), []
        try:
            held = [asyncio.ensure_future(threads.run(busy.wait))]  # the call thread
            with acting_as(Priority.BACKGROUND):
                held.append(asyncio.ensure_future(threads.run(busy.wait)))
            queued = [
                asyncio.ensure_future(threads.run(lambda n=n: order.append(n)))
                for n in ("enqueue", "open")
            ]
            with acting_as(Priority.MOVE):
                await threads.run(lambda: order.append("act"))
            busy.set()
            await asyncio.gather(*held, *queued)
            return order
        finally:
            busy.set()
            threads.shutdown()

    assert asyncio.run(main()) == ["act", "enqueue", "open"]


def test_an_error_in_a_database_thread_reaches_the_caller() -> None:
    async def main() -> None:
        sizes = {Priority.MOVE: 1, Priority.CALL: 1, Priority.BACKGROUND: 1}
        threads = ThreadsByPriority(sizes, "t")
        try:
            with pytest.raises(ValueError):
                await threads.run(lambda: int("not a number"))
        finally:
            threads.shutdown()

    asyncio.run(main())


# ------------------------------------------------------------------ SQLite's write lock


def test_a_person_s_write_goes_before_the_background_writes_waiting() -> None:
    """Three background writes wait on the lock; a person's write that comes later still
    takes it next (it waits for the write in progress only)."""
    lock = PeopleFirstLock()
    order: list[str] = []

    def write(name: str, priority: Priority) -> None:
        with acting_as(priority):
            lock.acquire()
            try:
                order.append(name)
            finally:
                lock.release()

    lock.acquire()  # the write in progress
    background = [
        threading.Thread(target=write, args=(f"bot{i}", Priority.BACKGROUND)) for i in range(3)
    ]
    for t in background:
        t.start()
    time.sleep(0.05)  # they are all waiting now (nothing else can hold the lock)
    person = threading.Thread(target=write, args=("act", Priority.MOVE))
    person.start()
    deadline = time.monotonic() + 10
    while not lock.people_waiting and time.monotonic() < deadline:  # the person waits too
        time.sleep(0.001)
    lock.release()
    for t in (*background, person):
        t.join(timeout=10)
    assert order[0] == "act" and sorted(order[1:]) == ["bot0", "bot1", "bot2"]


def test_the_write_lock_lets_one_writer_in_at_a_time_and_every_writer_through() -> None:
    """Writers of both kinds hammering the lock: never two inside, and none left waiting
    (a release wakes one waiter only, so a lost wake-up would hang a thread here)."""
    lock = PeopleFirstLock()
    inside, most, done = [0], [0], []

    def writer(priority: Priority, n: int) -> None:
        with acting_as(priority):
            for _ in range(n):
                lock.acquire()
                try:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                    time.sleep(0)
                    inside[0] -= 1
                finally:
                    lock.release()
        done.append(priority)

    kinds = [Priority.MOVE, Priority.CALL, Priority.BACKGROUND] * 4
    threads = [threading.Thread(target=writer, args=(k, 300)) for k in kinds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(done) == len(kinds) and most[0] == 1


# ------------------------------------------------------------------ a table's lock


def test_a_call_waiting_for_a_table_is_seen_by_the_run_holding_it() -> None:
    # Runner._run_on writes its run of moves as soon as a call waits for the table.
    async def main() -> list[tuple[bool, bool]]:
        locks = TableLocks()
        seen = []
        async with locks.lock("t1"):
            seen.append((locks.wanted("t1"), locks.locked("t1")))
            calls = [asyncio.create_task(_call(locks)) for _ in range(2)]
            await asyncio.sleep(0.01)
            seen.append((locks.wanted("t1"), locks.wanted("t2")))
        await asyncio.gather(*calls)
        seen.append((locks.wanted("t1"), locks.locked("t1")))
        return seen

    async def _call(locks: TableLocks) -> None:
        async with locks.called("t1"):
            await asyncio.sleep(0)

    assert asyncio.run(main()) == [(False, True), (True, False), (False, False)]


def test_a_cancelled_call_is_no_longer_waiting() -> None:
    async def main() -> bool:
        locks = TableLocks()
        async with locks.lock("t1"):
            call = asyncio.create_task(_call(locks))
            await asyncio.sleep(0.01)
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
            return locks.wanted("t1")

    async def _call(locks: TableLocks) -> None:
        async with locks.called("t1"):
            pass

    assert asyncio.run(main()) is False
