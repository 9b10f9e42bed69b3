"""The matchmaker's engine client gathers the runner's Apply calls (clients.Engine): against a
real engine server, the calls that come while one is in flight go out together as one
ApplyBatch, each caller gets its own answer — or its own refusal, as the call alone would have
raised it — a person's Apply always goes out alone, and an engine without ApplyBatch (an older
one) is called one Apply at a time."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from cardroom.v1 import engine_pb2

from services.common.grpc_errors import ServiceError
from services.common.server import BackgroundServer, ServiceSpec, add_service
from services.engine import server as engine_server
from services.engine import tokens
from services.engine.service import EngineServicer
from services.matchmaker import clients
from services.matchmaker.priority import Priority, acting_as

from .conftest import settings


class Spied:
    """The client's real stub, noting the requests of each Apply and ApplyBatch call."""

    def __init__(self, engine: clients.Engine) -> None:
        self.alone: list[engine_pb2.ApplyRequest] = []
        self.batches: list[list[engine_pb2.ApplyRequest]] = []
        stub = engine.stub
        apply, batch = stub.Apply, stub.ApplyBatch

        def spy_apply(request: Any, **kw: Any) -> Any:
            self.alone.append(request)
            return apply(request, **kw)

        def spy_batch(request: Any, **kw: Any) -> Any:
            self.batches.append(list(request.requests))
            return batch(request, **kw)

        stub.Apply, stub.ApplyBatch = spy_apply, spy_batch


async def games(engine: clients.Engine, n: int, tag: str) -> list[engine_pb2.NewGameResponse]:
    return [
        await engine.new_game(
            engine_pb2.NewGameRequest(variant="ddz3", deal=engine_pb2.Deal(seed=f"{tag}-{i}"))
        )
        for i in range(n)
    ]


def timeout_of(game: engine_pb2.NewGameResponse) -> engine_pb2.ApplyRequest:
    action = engine_pb2.Action(seat=game.public_view.turn, timeout=True)
    return engine_pb2.ApplyRequest(state=game.state, action=action)


async def in_background(engine: clients.Engine, request: engine_pb2.ApplyRequest) -> Any:
    with acting_as(Priority.BACKGROUND):
        return await engine.apply(request)


def test_the_runners_calls_meanwhile_go_out_together(engine_target: str) -> None:
    async def main() -> None:
        engine = clients.Engine(engine_target)
        spied = Spied(engine)
        started = await games(engine, 12, "gathered")
        requests = [timeout_of(g) for g in started]
        # the tenth request is refused (not that seat's turn); the others are answered
        bad = requests[9]
        bad.action.seat = (bad.action.seat + 1) % 3
        answers = await asyncio.gather(
            *(in_background(engine, r) for r in requests), return_exceptions=True
        )
        first = clients.APPLY_CALLS_IN_FLIGHT  # the first calls go alone
        assert spied.alone == requests[:first]
        gathered = [r for batch in spied.batches for r in batch]
        assert gathered == requests[first:] and len(spied.batches) < len(gathered)
        for i, (request, answer) in enumerate(zip(requests, answers, strict=True)):
            if i == 9:
                assert isinstance(answer, ServiceError)
                assert (answer.code, answer.reason) == (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "NOT_YOUR_TURN",
                )
                continue
            assert isinstance(answer, engine_pb2.ApplyResponse), answer
            alone = await engine.apply(request)  # a person's call: alone
            assert answer.state.seq == alone.state.seq
            assert [e.type for e in answer.events] == [e.type for e in alone.events]
            assert answer.public_view == alone.public_view
        await engine.close()

    asyncio.run(main())


def test_a_persons_apply_goes_out_alone_at_once(engine_target: str) -> None:
    async def main() -> None:
        engine = clients.Engine(engine_target)
        spied = Spied(engine)
        started = await games(engine, 9, "person")
        background = [
            asyncio.ensure_future(in_background(engine, timeout_of(g))) for g in started[:8]
        ]
        await asyncio.sleep(0)  # the first in flight, the others gathered
        person = timeout_of(started[8])
        answer = await engine.apply(person)  # priority CALL: a person's
        assert answer.state.seq > person.state.seq
        assert person in spied.alone
        assert all(person not in batch for batch in spied.batches)
        await asyncio.gather(*background)
        await engine.close()

    asyncio.run(main())


class Older(EngineServicer):
    """An engine from before ApplyBatch: UNIMPLEMENTED, as gRPC answers a method a server
    does not have."""

    async def ApplyBatch(self, request: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")


def _register_older(server: grpc.aio.Server, _: Any) -> list[str]:
    return [add_service(server, engine_server.SERVICE_NAME, Older(tokens.Sealer.from_env()))]


@pytest.fixture
def older_engine(engine_target: str) -> Iterator[str]:
    spec = ServiceSpec(name="engine", register=functools.partial(_register_older))
    with BackgroundServer(spec, settings("engine")) as running:
        yield running.target


def test_an_engine_without_batches_is_called_one_apply_at_a_time(older_engine: str) -> None:
    async def main() -> None:
        engine = clients.Engine(older_engine)
        spied = Spied(engine)
        started = await games(engine, 8, "older")
        requests = [timeout_of(g) for g in started]
        answers = await asyncio.gather(*(in_background(engine, r) for r in requests))
        assert [a.state.seq for a in answers] == [r.state.seq + 1 for r in requests]
        assert len(spied.batches) == 1 and not engine.batches  # tried once, then never
        assert len(spied.alone) == len(requests)
        more = await asyncio.gather(*(in_background(engine, timeout_of(g)) for g in started))
        assert len(more) == 8 and len(spied.batches) == 1
        await engine.close()

    asyncio.run(main())


def test_a_batch_the_engine_never_answers_fails_each_caller_as_unreachable() -> None:
    """No engine at the address: every caller, alone or gathered, gets Unreachable (the
    runner's cue to retry later, the table unchanged) — none waits for ever."""

    async def main() -> None:
        engine = clients.Engine("127.0.0.1:1", timeout=2.0)
        spied = Spied(engine)
        token = engine_pb2.GameToken(game_id="g", seq=1, token=b"t")
        request = engine_pb2.ApplyRequest(
            state=token, action=engine_pb2.Action(seat=0, timeout=True)
        )
        answers = await asyncio.wait_for(
            asyncio.gather(
                *(in_background(engine, request) for _ in range(6)), return_exceptions=True
            ),
            30,
        )
        assert all(isinstance(a, clients.Unreachable) for a in answers), answers
        first = clients.APPLY_CALLS_IN_FLIGHT
        assert len(spied.alone) == first and [len(b) for b in spied.batches] == [6 - first]
        await engine.close()

    asyncio.run(main())
