"""The runner's engine-call gate: a person's call never queues behind the runner's own while
people act; with nobody acting the runner's calls keep to a larger cap; and a runner's call
waits for people's calls a bounded time only."""

from __future__ import annotations

import asyncio
import contextvars

from services.matchmaker.priority import BACKGROUND, EngineGate


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

        background = contextvars.copy_context()
        background.run(BACKGROUND.set, True)
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

        background = contextvars.copy_context()
        background.run(BACKGROUND.set, True)
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


def _background() -> contextvars.Context:
    ctx = contextvars.copy_context()
    ctx.run(BACKGROUND.set, True)
    return ctx


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
            loop.create_task(gate.call(engine, f"bot{i}"), context=_background()) for i in range(7)
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
            loop.create_task(gate.call(engine, f"late{i}"), context=_background()) for i in range(4)
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
            loop.create_task(gate.call(bot_engine, f"bot{i}"), context=_background())
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
        first = loop.create_task(gate.call(engine, "first"), context=_background())
        waiting = loop.create_task(gate.call(engine, "cancelled"), context=_background())
        last = loop.create_task(gate.call(engine, "last"), context=_background())
        await asyncio.sleep(0.01)
        waiting.cancel()
        release.set()
        assert await first == "first" and await last == "last"
        assert started == ["first", "last"]

    asyncio.run(main())
