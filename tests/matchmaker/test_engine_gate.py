"""The runner's engine-call gate: a person's call never queues behind the runner's own."""

from __future__ import annotations

import asyncio
import contextvars

from services.matchmaker.runner import _BACKGROUND, _EngineGate


def test_people_go_first_and_the_runners_calls_keep_to_their_slots() -> None:
    async def main() -> list[str]:
        gate = _EngineGate(2)
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
        background.run(_BACKGROUND.set, True)
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
        gate = _EngineGate(4)
        order: list[str] = []
        person_done = asyncio.Event()

        async def person_engine() -> None:
            order.append("person")
            await person_done.wait()
            order.append("person done")

        async def bot_engine() -> None:
            order.append("bot")

        background = contextvars.copy_context()
        background.run(_BACKGROUND.set, True)
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
