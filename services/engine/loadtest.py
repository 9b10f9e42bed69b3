"""``cardroom loadtest``: drive an engine server and report requests/second and latency.

``--rpc apply`` plays real games: each client task deals a game (NewGame), then lists the
legal actions of the seat to move and applies a random one, until the game ends, and starts
over.  ``--rpc baseline`` sends the empty Ping, so the cost of the rules can be read against
the cost of gRPC itself on the same server in the same run.  ``--history-delta`` sets
``history_delta`` on every Apply (the views then carry only that call's actions, as for a
client that keeps its own history), so Apply's cost does not grow with the game.  Clients run
in several processes (a Python process is one core), each with ``concurrency / processes``
calls in flight; ``--rate`` paces them to a total request rate instead of running flat out
(the tasks' calls spread evenly over each interval, as a steady load arrives, not in bursts).

Throughput and latency count successful calls only.  When more than ``--max-error-rate``
(default 0) of the calls failed, the command says so on stderr and exits 1: a run against a
dead or refusing server is a failed run, not a fast one.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import multiprocessing
import queue
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from services.common.console import fail


@dataclass
class Result:
    rpc: str
    duration_s: float
    #: Calls made, and calls that failed (by method and status code).
    requests: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    #: Latencies in ms of the successful calls, per method.
    latencies: dict[str, list[float]] = field(default_factory=dict)
    games: int = 0

    def merge(self, other: Result) -> None:
        self.requests += other.requests
        self.errors.update(other.errors)
        self.games += other.games
        for method, values in other.latencies.items():
            self.latencies.setdefault(method, []).extend(values)

    @property
    def failed(self) -> int:
        return sum(self.errors.values())

    @property
    def succeeded(self) -> int:
        return self.requests - self.failed

    @property
    def error_rate(self) -> float:
        """The share of calls that failed; 1.0 when no call was made at all."""
        return self.failed / self.requests if self.requests else 1.0

    def summary(self) -> dict[str, Any]:
        every = sorted(v for values in self.latencies.values() for v in values)
        ok = self.succeeded
        out: dict[str, Any] = {
            "rpc": self.rpc,
            "duration_s": round(self.duration_s, 2),
            "requests": self.requests,
            "succeeded": ok,
            "failed": self.failed,
            "error_rate": round(self.error_rate, 6),
            "rps": round(ok / self.duration_s, 1) if self.duration_s else 0.0,
            "errors": dict(self.errors),
            "games": self.games,
            **percentiles(every),
            "methods": {},
        }
        for method, values in sorted(self.latencies.items()):
            values.sort()
            out["methods"][method] = {
                "requests": len(values),
                "rps": round(len(values) / self.duration_s, 1) if self.duration_s else 0.0,
                **percentiles(values),
            }
        return out


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0}

    def at(q: float) -> float:
        return round(values[min(len(values) - 1, int(q * len(values)))], 3)

    return {"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99)}


class _Grid:
    """A paced task's call times: every ``interval`` seconds from its own start.  A call that
    overran its slot waits for the next slot of its own grid.  Going at once instead (the
    wait shortened by the call's time), every task held up by one stall of the server went
    together afterwards and stayed together: the phases that spread the tasks over the
    interval collapsed, and the steady load became bursts of every task's call at once."""

    def __init__(self, start: float, interval: float) -> None:
        self.start = start
        self.interval = interval

    def wait_at(self, now: float) -> float:
        """Seconds from ``now`` to this task's next slot."""
        slots = math.floor((now - self.start) / self.interval) + 1
        return self.start + slots * self.interval - now

    async def next_slot(self) -> None:
        await asyncio.sleep(self.wait_at(time.perf_counter()))


async def _client(
    target: str,
    rpc: str,
    tasks: int,
    duration: float,
    rate: float,
    variant: str,
    seed: int,
    history_delta: bool = False,
) -> Result:
    import grpc

    from services.common.wire import engine_pb2, engine_pb2_grpc

    # What is loaded by now lives as long as the process: out of the collector's full passes,
    # which would otherwise pause this loop (and show in the latencies it measures) for ms.
    gc.collect()
    gc.freeze()
    result = Result(rpc, duration)
    rnd = random.Random(seed)
    stop_at = time.perf_counter() + duration
    interval = tasks / rate if rate > 0 else 0.0

    async with grpc.aio.insecure_channel(target) as channel:
        make_stub: Any = engine_pb2_grpc.EngineServiceStub  # generated, untyped
        stub = make_stub(channel)

        async def call(method: str, fn: Any, request: Any, grid: _Grid | None) -> Any:
            start = time.perf_counter()
            try:
                answer = await fn(request, timeout=10)
            except grpc.aio.AioRpcError as exc:
                result.errors[f"{method}:{exc.code().name}"] += 1
                answer = None
            else:
                elapsed = (time.perf_counter() - start) * 1e3
                result.latencies.setdefault(method, []).append(elapsed)
            result.requests += 1
            if grid is not None:
                await grid.next_slot()
            return answer

        async def stagger(i: int) -> _Grid | None:
            # Paced tasks start spread over one interval, not all at once, and each keeps
            # its phase (_Grid): started together, or let go together after a stall, they
            # would send bursts of ``tasks`` calls and the latency measured would be the time
            # to drain a burst, not that of a steady rate.
            if not interval:
                return None
            await asyncio.sleep(interval * i / tasks)
            return _Grid(time.perf_counter(), interval)

        async def baseline(i: int) -> None:
            grid = await stagger(i)
            ping = engine_pb2.PingRequest()
            while time.perf_counter() < stop_at:
                await call("Ping", stub.Ping, ping, grid)

        async def games(i: int) -> None:
            grid = await stagger(i)
            while time.perf_counter() < stop_at:
                deal = engine_pb2.Deal(seed=f"load-{rnd.getrandbits(48):x}")
                game = await call(
                    "NewGame",
                    stub.NewGame,
                    engine_pb2.NewGameRequest(variant=variant, deal=deal),
                    grid,
                )
                if game is None:
                    continue
                state = game.state
                while time.perf_counter() < stop_at:
                    legal = await call(
                        "ListLegalActions",
                        stub.ListLegalActions,
                        engine_pb2.ListLegalActionsRequest(state=state),
                        grid,
                    )
                    if legal is None or not legal.actions:
                        break
                    action = legal.actions[rnd.randrange(len(legal.actions))]
                    answer = await call(
                        "Apply",
                        stub.Apply,
                        engine_pb2.ApplyRequest(
                            state=state, action=action, history_delta=history_delta
                        ),
                        grid,
                    )
                    if answer is None:
                        break
                    state = answer.state
                    if answer.game_over:
                        result.games += 1
                        break

        body = baseline if rpc == "baseline" else games
        await asyncio.gather(*(body(i) for i in range(tasks)))
    return result


def _process_main(args: tuple[Any, ...], queue: Any) -> None:
    queue.put(asyncio.run(_client(*args)))


def run(
    target: str,
    rpc: str = "apply",
    concurrency: int = 32,
    duration: float = 10.0,
    processes: int = 2,
    variant: str = "doudizhu3",
    rate: float = 0.0,
    history_delta: bool = False,
) -> Result:
    """Run the load and return the merged result of every client process (``history_delta``:
    set it on every Apply)."""
    processes = max(1, min(processes, concurrency))
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    per = [
        concurrency // processes + (1 if i < concurrency % processes else 0)
        for i in range(processes)
    ]
    procs = [
        ctx.Process(
            target=_process_main,
            args=((target, rpc, n, duration, rate / processes, variant, i, history_delta), queue),
        )
        for i, n in enumerate(per)
    ]
    for p in procs:
        p.start()
    total = Result(rpc, duration)
    for _ in procs:
        total.merge(queue.get(timeout=duration + 60))
    for p in procs:
        p.join()
    return total


def format_summary(s: dict[str, Any]) -> str:
    lines = [
        f"{s['rpc']}: {s['rps']:.0f} successful req/s over {s['duration_s']} s "
        f"({s['succeeded']} of {s['requests']} requests succeeded, {s['games']} games finished)",
        f"  latency p50 {s['p50_ms']:.2f} ms  p95 {s['p95_ms']:.2f} ms  p99 {s['p99_ms']:.2f} ms",
    ]
    for method, m in s["methods"].items():
        lines.append(
            f"  {method:<17} {m['rps']:>8.0f} req/s  p50 {m['p50_ms']:.2f}  "
            f"p95 {m['p95_ms']:.2f}  p99 {m['p99_ms']:.2f} ms"
        )
    errors = s["errors"]
    lines.append("  errors: " + (", ".join(f"{k} ×{v}" for k, v in errors.items()) or "none"))
    return "\n".join(lines)


#: Bounds on the flags: past these a run is a mistake (or a fork bomb), not a load test.
MAX_CONCURRENCY = 100_000
MAX_PROCESSES = 256
MAX_DURATION = 7 * 24 * 3600.0


def _bad_flags(args: argparse.Namespace) -> str | None:
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        return f"--concurrency must be 1–{MAX_CONCURRENCY}"
    if not 1 <= args.processes <= MAX_PROCESSES:
        return f"--processes must be 1–{MAX_PROCESSES}"
    if not (math.isfinite(args.duration) and 0 < args.duration <= MAX_DURATION):
        return f"--duration must be a number of seconds in (0, {MAX_DURATION:.0f}]"
    if not (math.isfinite(args.rate) and args.rate >= 0):
        return "--rate must be a finite number ≥ 0 (0 = flat out)"
    if not (math.isfinite(args.max_error_rate) and 0 <= args.max_error_rate <= 1):
        return "--max-error-rate must be a share in [0, 1]"
    if args.rpc == "apply":
        from services.rules import VariantError, variant

        try:
            variant(args.variant)
        except VariantError as exc:
            return str(exc)
    if not args.target or any(not c.isprintable() or c.isspace() for c in args.target):
        return f"--target must be HOST:PORT, not {args.target!r}"
    return None


def loadtest_main(args: argparse.Namespace) -> int:
    bad = _bad_flags(args)
    if bad is not None:
        return fail("loadtest", bad)
    print(
        f"loadtest {args.rpc} → {args.target}: {args.concurrency} in flight from "
        f"{args.processes} processes for {args.duration} s…",
        file=sys.stderr,
    )
    try:
        result = run(
            args.target,
            args.rpc,
            args.concurrency,
            args.duration,
            args.processes,
            args.variant,
            args.rate,
            getattr(args, "history_delta", False),
        )
    except queue.Empty:
        return fail("loadtest", "a client process did not report back", status=1)
    summary = result.summary()
    print(json.dumps(summary) if args.json else format_summary(summary))
    if result.requests == 0:
        return fail("loadtest", "no call was made", status=1)
    if result.error_rate > args.max_error_rate:
        return fail(
            "loadtest",
            f"{result.failed} of {result.requests} calls failed "
            f"({result.error_rate:.2%} > --max-error-rate {args.max_error_rate:.2%}): "
            + ", ".join(f"{k} ×{v}" for k, v in result.errors.most_common(3)),
            status=1,
        )
    return 0
