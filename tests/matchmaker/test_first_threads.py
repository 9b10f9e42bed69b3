"""The people's database threads: a move in a running game (Act, LeaveTable) goes ahead of
the Enqueues, seatings and stream opens queued before it; the rest keep their order."""

from __future__ import annotations

import asyncio
import threading

import pytest

from services.matchmaker.priority import PeopleFirstThreads, playing


def test_a_move_goes_ahead_of_the_calls_queued_before_it() -> None:
    pool = PeopleFirstThreads(1, "t", lambda: None)
    busy, order = threading.Event(), []
    try:
        first = pool.put(busy.wait, first=False)  # the one thread is taken
        later = [pool.put(order.append, name, first=False) for name in ("enqueue", "open")]
        move = pool.put(order.append, "act", first=True)
        busy.set()
        for f in (first, *later, move):
            f.result(timeout=10)
        assert order == ["act", "enqueue", "open"]
    finally:
        busy.set()
        pool.shutdown()


def test_submit_takes_the_move_flag_from_the_callers_context() -> None:
    async def main() -> list[str]:
        pool = PeopleFirstThreads(1, "t", lambda: None)
        busy, order = threading.Event(), []
        loop = asyncio.get_running_loop()
        try:
            first = loop.run_in_executor(pool, busy.wait)
            other = loop.run_in_executor(pool, order.append, "seat")
            with playing():
                move = loop.run_in_executor(pool, order.append, "act")
            busy.set()
            await asyncio.gather(first, other, move)
            return order
        finally:
            busy.set()
            pool.shutdown()

    assert asyncio.run(main()) == ["act", "seat"]


def test_errors_reach_the_caller_and_shutdown_runs_what_was_queued() -> None:
    pool = PeopleFirstThreads(2, "t", lambda: None)
    failed = pool.put(int, "not a number", first=True)
    with pytest.raises(ValueError):
        failed.result(timeout=10)
    done = [pool.put(lambda i=i: i * 2, first=False) for i in range(20)]
    pool.shutdown(wait=True)
    assert [f.result(timeout=0) for f in done] == [i * 2 for i in range(20)]
    with pytest.raises(RuntimeError):
        pool.put(int, "1", first=False)


def test_the_initializer_runs_in_each_thread() -> None:
    seen: set[str] = set()
    pool = PeopleFirstThreads(2, "t", lambda: seen.add(threading.current_thread().name))
    try:
        busy = threading.Event()
        held = [pool.put(busy.wait, first=False) for _ in range(2)]
        busy.set()
        for f in held:
            f.result(timeout=10)
    finally:
        pool.shutdown()
    assert seen == {"t_0", "t_1"}
