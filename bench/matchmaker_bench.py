"""Matchmaker benchmark: actions/s through the matchmaker next to the engine's own Apply rate
(same engine process, same run), and the time to seat 1,000 waiting tickets.

* The engine, replay and matchmaker services run as their own processes (one worker each),
  on a fresh SQLite file and, when one is configured, a fresh PostgreSQL schema.
* Engine Apply rate: N games at once straight against the engine, one Apply (a timeout, the
  auto-play move) per action.
* Matchmaker: N tables of one human with auto-play on and two bots with zero think time; each
  game ends, the human is ready again and turns auto-play on again.  Each reads its seat's
  stream with SubscribeBatched (a write's events in one message).  The engine plays a run
  of their moves in one Apply (ApplyRequest.run; the runner's calls go out gathered, as
  ApplyBatch calls), and a run is one conditional write with its events and outbox row.
  With CARDROOM_MATCHMAKER_ENGINE_RUNS=0, every move is chosen by the matchmaker: a
  GetSeatView (unless the last Apply predicted it) and an Apply each.  Actions/s = the moves
  the engine made for the matchmaker per second (its GetStatus).
* Seating: 1,000 rated tickets queued in one public pool (bot fill never), then one
  seating pass, which groups them by rating.
* Act latency: the same bot tables slowed (a think time) to ~70% of the measured rate, beside
  a few tables where a human plays his own turns; the p99 of those Act calls.
Goals (issue 10): ≥ 0.3× the engine's Apply rate; Act p99 < 50 ms at ~70% load; 1,000 tickets
seated in < 5 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import grpc
from sqlalchemy import delete, insert

from services import rules
from services.common.db import make_engine
from services.common.migrate import upgrade
from services.common.wire import (
    batched_events,
    engine_pb2,
    engine_pb2_grpc,
    matchmaker_pb2,
    matchmaker_pb2_grpc,
)
from services.engine import tokens
from services.matchmaker.service import config_of
from services.matchmaker.store import Store
from services.ratings.tables import player_ratings

from .common import Context, fmt_rate, fmt_ratio, progress
from .common import Table as BenchTable
from .engine_bench import _free_port, _wait_healthy
from .replay_bench import backends

M = matchmaker_pb2
VARIANT = "doudizhu3"
RATIO_GOAL = 0.3
#: Issue 29's goal 3 (twice the tables per core): actions/s ≥ half the engine's Apply rate,
#: and the matchmaker's CPU per action no more than the engine's.
RATIO_GOAL_29 = 0.5
SEAT_GOAL_S = 5.0
ACT_P99_GOAL_MS = 50.0
#: The load of the Act latency run, as a share of the measured top rate.
LOAD_SHARE = 0.7
#: Seconds of the short run that sizes that load.
CALIBRATE_S = 3.0
#: Tables with a human playing his own turns during that run (each acts about once a
#: second: the bots' think time).
HUMAN_TABLES = 16
#: The easy bot plays the engine's own auto-play policy: the figure is the matchmaker's cost,
#: not a bot's thinking (the bots section times that).
BOT_LEVEL = "easy"
#: Games in flight against the bare engine: enough to saturate its one worker.
ENGINE_GAMES = 16
#: "single": the bench's tables read their seat's stream with Subscribe (one event a
#: message) instead of SubscribeBatched, for an A/B of the two.
STREAM_ENV = "CARDROOM_BENCH_STREAM"


def replay_url(db_url: str) -> str:
    """Replay's store: on SQLite a file of its own (one SQLite file has one writer at a time,
    and replay holds it while it re-executes an append); on PostgreSQL the same database."""
    if db_url.startswith("sqlite:///"):
        return db_url.replace(".sqlite3", "-replay.sqlite3")
    return db_url


@contextlib.contextmanager
def services(db_url: str, pids: dict[str, int] | None = None) -> Iterator[tuple[str, str]]:
    """Engine and replay processes (one worker each) on free ports; their process ids go
    into ``pids`` ("engine", "replay") when given."""
    env = dict(os.environ)
    env[tokens.ENV_VAR] = tokens.format_keys({"bench": tokens.new_key()})
    env["CARDROOM_DATABASE_URL"] = replay_url(db_url)
    env["CARDROOM_LOG_LEVEL"] = "warning"
    procs = []
    targets = []
    try:
        for name in ("engine", "replay"):
            port = _free_port()
            cmd = [sys.executable, "-m", "services", name, "serve", "--port", str(port),
                   "--workers", "1", "--no-access-log"]  # fmt: skip
            proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
            procs.append(proc)
            if pids is not None:
                pids[name] = proc.pid
            targets.append(f"127.0.0.1:{port}")
            _wait_healthy(targets[-1], proc)
        yield targets[0], targets[1]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(15)


async def engine_rate(target: str, duration: float, games: int) -> float:
    """Apply calls/s of ``games`` auto-played games at once, straight to the engine."""
    count = 0
    async with grpc.aio.insecure_channel(target) as channel:
        stub: Any = engine_pb2_grpc.EngineServiceStub(channel)  # type: ignore[no-untyped-call]
        end = time.monotonic() + duration

        async def play(i: int) -> None:
            nonlocal count
            n = 0
            while time.monotonic() < end:
                game = await stub.NewGame(
                    engine_pb2.NewGameRequest(
                        variant=VARIANT, deal=engine_pb2.Deal(seed=f"{i}/{n}")
                    )
                )
                n += 1
                state, view = game.state, game.public_view
                while time.monotonic() < end:
                    action = engine_pb2.Action(seat=view.turn, timeout=True)
                    out = await stub.Apply(engine_pb2.ApplyRequest(state=state, action=action))
                    count += 1
                    if out.game_over:
                        break
                    state, view = out.state, out.public_view

        start = time.monotonic()
        await asyncio.gather(*(play(i) for i in range(games)))
        return count / (time.monotonic() - start)


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def warm_up(ready: Callable[[], bool], cap_s: float = 20.0) -> None:
    """Until every table has started its first game (at most ``cap_s``), and a moment more:
    a window that opens while tables still form measures their seating, not their play."""
    end = time.monotonic() + cap_s
    while not ready() and time.monotonic() < end:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)


async def sit_alone(stub: Any, player: str, timers: M.Timers) -> M.Ticket:
    """``player`` enqueued and seated at a table of his own with two bots.  A private code
    keeps him alone: tickets that wait in one pool together are seated together, and a
    table of three auto-play humans would have no bot (and no think time) to measure."""
    ticket: M.Ticket = await stub.Enqueue(M.EnqueueRequest(
        player_id=player, variant=VARIANT, bot_fill_after_ms=0, timers=timers,
        bot_level=BOT_LEVEL, private_code=player))  # fmt: skip
    while ticket.state != M.TICKET_STATE_SEATED:
        await asyncio.sleep(0.02)
        ticket = await stub.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id))
    return ticket


async def leave_all(stub: Any, tables_of: dict[str, str]) -> None:
    """Every player leaves his table (an escape ends a running game; the table, left without
    a human, closes), so that no bot of a finished run loads the next one."""
    for player, table_id in tables_of.items():
        with contextlib.suppress(grpc.RpcError):
            await stub.LeaveTable(M.LeaveTableRequest(table_id=table_id, player_id=player))


def stream_name() -> str:
    return "Subscribe" if os.environ.get(STREAM_ENV, "").strip() == "single" else "SubscribeBatched"


def subscribe(stub: Any, request: M.SubscribeRequest) -> Any:
    """The seat's stream the way a back end following many tables reads it: SubscribeBatched
    (every event of a write in one message); Subscribe with CARDROOM_BENCH_STREAM=single."""
    if stream_name() == "Subscribe":
        return stub.Subscribe(request)
    return StreamEvents(stub.SubscribeBatched(request))


class StreamEvents:
    """A SubscribeBatched call read as its events (cancel() cancels the call)."""

    def __init__(self, call: Any) -> None:
        self.call = call

    def __aiter__(self) -> AsyncIterator[Any]:
        return batched_events(self.call)

    def cancel(self) -> None:
        self.call.cancel()


async def matchmaker_rate(
    target: str, duration: float, tables: int, pids: dict[str, int] | None = None
) -> tuple[float, int, dict[str, float]]:
    """Apply calls/s the matchmaker makes for ``tables`` auto-played tables; games ended;
    the CPU milliseconds per action of each process of ``pids`` (name -> pid; 0 where not
    measurable).  CPU per action compares two builds more steadily than actions/s: this
    machine's speed drifts by a fifth within minutes, and both move with it."""
    pids = pids or {}
    games = started = 0
    tables_of: dict[str, str] = {}
    timers = M.Timers(bot_think_ms=0, turn_ms=60_000, bid_ms=60_000, start_ms=600_000)
    async with grpc.aio.insecure_channel(target) as channel:
        stub: Any = matchmaker_pb2_grpc.MatchmakerServiceStub(channel)  # type: ignore[no-untyped-call]
        stop = asyncio.Event()

        async def table(i: int) -> None:
            nonlocal games, started
            player = f"bench-{i}"
            ticket = await sit_alone(stub, player, timers)
            tables_of[player] = ticket.table_id
            ids: dict[str, Any] = {"table_id": ticket.table_id, "player_id": player}
            stream = subscribe(stub, M.SubscribeRequest(**ids))
            await stub.Ready(M.ReadyRequest(**ids))
            async for ev in stream:
                if stop.is_set():
                    break
                if ev.type == "game_started":
                    started += 1
                    await stub.Act(M.ActRequest(**ids, action=engine_pb2.Action(autoplay=True)))
                elif ev.type == "series":
                    games += 1
                    await stub.Ready(M.ReadyRequest(**ids))
            stream.cancel()

        tasks = [asyncio.ensure_future(table(i)) for i in range(tables)]
        await warm_up(lambda: started >= tables)  # tables form and their first games start
        status = M.GetStatusRequest()
        before = (await stub.GetStatus(status)).actions_applied
        games_before, start = games, time.monotonic()
        cpu = {name: cpu_s(pid) for name, pid in pids.items()}
        await asyncio.sleep(duration)
        applied = (await stub.GetStatus(status)).actions_applied - before
        cpu = {name: cpu_s(pid) - cpu[name] for name, pid in pids.items()}
        ended = games - games_before
        elapsed = time.monotonic() - start
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await leave_all(stub, tables_of)
    return applied / elapsed, ended, {n: 1000 * c / max(applied, 1) for n, c in cpu.items()}


async def act_latency(
    target: str, duration: float, tables: int, humans: int, think_ms: int, tag: str = "load"
) -> tuple[float, list[float]]:
    """A human seat's Act latency under load: ``tables`` bot tables as in
    :func:`matchmaker_rate` but with bots thinking ``think_ms`` (the load), beside ``humans``
    tables where a human plays his own turns (GetHint, then a timed Act) with the same bots.
    The actions/s the matchmaker applied meanwhile, and the Act times (seconds).  ``tag``
    names the players (a run after another needs players of its own); every one leaves his
    table at the end, so that its bots stop and load no later run."""
    times: list[float] = []
    tables_of: dict[str, str] = {}
    started = 0
    timers = M.Timers(bot_think_ms=think_ms, turn_ms=60_000, bid_ms=60_000, start_ms=600_000)
    async with grpc.aio.insecure_channel(target) as channel:
        stub: Any = matchmaker_pb2_grpc.MatchmakerServiceStub(channel)  # type: ignore[no-untyped-call]
        stop = asyncio.Event()
        measuring = asyncio.Event()

        async def seat(i: int, human: bool) -> None:
            nonlocal started
            player = f"{tag}-{'h' if human else 'b'}{i}"
            ticket = await sit_alone(stub, player, timers)
            mine = ticket.seats[0]
            tables_of[player] = ticket.table_id
            ids: dict[str, Any] = {"table_id": ticket.table_id, "player_id": player}
            stream = stub.Subscribe(M.SubscribeRequest(**ids))
            await stub.Ready(M.ReadyRequest(**ids))
            async for ev in stream:
                if stop.is_set():
                    break
                started += ev.type == "game_started"
                if ev.type == "game_started" and not human:
                    await stub.Act(M.ActRequest(**ids, action=engine_pb2.Action(autoplay=True)))
                elif ev.type == "series":
                    await stub.Ready(M.ReadyRequest(**ids))
                elif human and ev.type == "deadline" and json.loads(ev.data_json)["seat"] == mine:
                    hint = await stub.GetHint(M.HintRequest(**ids))
                    t0 = time.perf_counter()
                    with contextlib.suppress(grpc.RpcError):  # a race with the game's end
                        await stub.Act(M.ActRequest(**ids, action=hint.hint))
                        if measuring.is_set():
                            times.append(time.perf_counter() - t0)
            stream.cancel()

        tasks = [asyncio.ensure_future(seat(i, False)) for i in range(tables)]
        tasks += [asyncio.ensure_future(seat(i, True)) for i in range(humans)]
        await warm_up(lambda: started >= tables + humans)
        status = M.GetStatusRequest()
        before = (await stub.GetStatus(status)).actions_applied
        start = time.monotonic()
        measuring.set()
        await asyncio.sleep(duration)
        applied = (await stub.GetStatus(status)).actions_applied - before
        elapsed = time.monotonic() - start
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await leave_all(stub, tables_of)
    return applied / elapsed, times


def p99_ms(times: list[float]) -> float:
    if not times:
        return float("nan")
    ordered = sorted(times)
    return 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def seating_time(db_url: str, tickets: int = 1000) -> float:
    """Seconds one seating pass takes over ``tickets`` queued tickets of one public pool,
    each player rated (mu drawn from a normal of sd 5, a seeded draw): the pass groups them
    by rating within their windows (services/matchmaker/seating.py), reading every rating."""
    store = Store(make_engine(db_url))
    config, _ = config_of(M.EnqueueRequest(variant=VARIANT, bot_level="normal"))
    draw = random.Random(1000)
    with store.engine.begin() as conn:
        conn.execute(delete(player_ratings).where(player_ratings.c.player_id.like("seat-%")))
        conn.execute(insert(player_ratings), [
            {"player_id": f"seat-{i}", "variant": config["variant"], "mu": mu, "sigma": 2.0,
             "ordinal": mu - 6.0, "games": 50, "last_game_id": "bench", "last_seq": 0}
            for i, mu in enumerate(draw.gauss(0.0, 5.0) for _ in range(tickets))
        ])  # fmt: skip
    pool = ""
    for i in range(tickets):
        row, _ = store.enqueue(player_id=f"seat-{i}", players=[f"seat-{i}"], config=config,
                               request_id="", fill_after_ms=-1, ttl_ms=600_000)  # fmt: skip
        pool = row["pool"]
    start = time.perf_counter()
    formed = store.seat_pool(pool)
    elapsed = time.perf_counter() - start
    store.engine.dispose()
    # Nearly all: a few at the tails wait for their windows to widen.
    assert len(formed) >= 0.9 * (tickets // 3), len(formed)
    return elapsed


def run_backend(
    name: str, db_url: str, duration: float, tables: int, act_s: float
) -> dict[str, Any]:
    upgrade(db_url)
    if replay_url(db_url) != db_url:
        upgrade(replay_url(db_url))
    pids: dict[str, int] = {}
    with services(db_url, pids) as (engine_target, replay_target):
        progress(f"matchmaker: {name}: engine Apply rate, {ENGINE_GAMES} games at once")
        engine_before = asyncio.run(engine_rate(engine_target, duration, ENGINE_GAMES))
        port = _free_port()
        env = dict(os.environ)
        env.update(
            CARDROOM_DATABASE_URL=db_url, CARDROOM_ENGINE_ADDR=engine_target,
            CARDROOM_REPLAY_ADDR=replay_target, CARDROOM_LOG_LEVEL="warning",
        )  # fmt: skip
        cmd = [sys.executable, "-m", "services", "matchmaker", "serve", "--port", str(port),
               "--no-access-log"]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
        try:
            target = f"127.0.0.1:{port}"
            _wait_healthy(target, proc)
            progress(f"matchmaker: {name}: {tables} bot tables through the matchmaker")
            pids["matchmaker"] = proc.pid
            mm, games, cpu_ms = asyncio.run(matchmaker_rate(target, duration, tables, pids))
            # The engine's rate again, right after (its players gone, the matchmaker idle):
            # this machine's speed drifts within minutes, and the mean of a measurement on
            # each side of the matchmaker's cancels a steady drift out of the ratio.
            progress(f"matchmaker: {name}: engine Apply rate again")
            engine_after = asyncio.run(engine_rate(engine_target, duration, ENGINE_GAMES))
            engine = (engine_before + engine_after) / 2
            # ~70% of that load: each bot table slowed by a think time to 0.7 of its share.
            # Only the two bots think; the auto-play seat moves at once, so a table makes
            # players / bots actions per think time.
            players = rules.variant(VARIANT).players
            per_think = players / (players - 1)
            think_ms = int(1000 * tables * per_think / (LOAD_SHARE * max(mm, 1.0)))
            # That first guess overshoots (the human tables add load of their own): a short
            # run at it, then the think time scaled by the share of the rate it gave.
            progress(f"matchmaker: {name}: sizing the ~70% load (bots think {think_ms} ms)")
            sized, _ = asyncio.run(
                act_latency(target, CALIBRATE_S, tables, HUMAN_TABLES, think_ms, "sizing")
            )
            think_ms = max(1, round(think_ms * sized / max(mm, 1.0) / LOAD_SHARE))
            progress(f"matchmaker: {name}: a human's Act at ~70% load (bots think {think_ms} ms)")
            load, times = asyncio.run(act_latency(target, act_s, tables, HUMAN_TABLES, think_ms))
        finally:
            proc.terminate()
            proc.wait(15)
    progress(f"matchmaker: {name}: seating 1,000 waiting tickets")
    seat_s = seating_time(db_url)
    return {"backend": name, "engine": engine, "engine_runs": (engine_before, engine_after),
            "mm": mm, "games": games, "seat_s": seat_s,
            "cpu_ms": cpu_ms, "load": load, "act_p99": p99_ms(times),
            "acts": len(times)}  # fmt: skip


def cpu_text(cpu_ms: dict[str, float]) -> str:
    """The CPU per action of the matchmaker, the engine and replay, and their sum (what a
    table's action costs the machine, beside the database's): ``2.05/0.98/0.41 (3.44)``."""
    each = [cpu_ms.get(name, 0.0) for name in ("matchmaker", "engine", "replay")]
    return "/".join(f"{c:.2f}" for c in each) + f" ({sum(each):.2f})"


def matchmaker_section(ctx: Context) -> list[BenchTable]:
    duration = 3.0 if ctx.quick else 8.0
    act_s = 5.0 if ctx.quick else 20.0  # a person acts about once a second: 300+ Acts
    tables = 48
    rows = []
    with backends() as found:
        for backend in found:
            rows.append(run_backend(backend.name, backend.url, duration, tables, act_s))
    table = BenchTable(
        "Matchmaker: bot tables end to end, next to the engine's own Apply rate (same run)",
        ["backend", "engine Apply/s (before / after)", "matchmaker actions/s", "ratio",
         "CPU ms/action (mm/engine/replay (sum))",
         "games", "load (of max)", "Act p99 ms (n)", "seat 1,000 s", "issue 29 goal 3"],
    )  # fmt: skip
    for r in rows:
        ratio = r["mm"] / r["engine"]
        mm_cpu, engine_cpu = r["cpu_ms"].get("matchmaker", 0.0), r["cpu_ms"].get("engine", 0.0)
        met = ratio >= RATIO_GOAL_29 and 0 < mm_cpu <= engine_cpu
        table.rows.append([
            r["backend"],
            f"{fmt_rate(r['engine'])} ({' / '.join(fmt_rate(e) for e in r['engine_runs'])})",
            fmt_rate(r["mm"]),
            fmt_ratio(ratio), cpu_text(r["cpu_ms"]), str(r["games"]),
            f"{fmt_rate(r['load'])} ({r['load'] / max(r['mm'], 1.0):.0%})",
            f"{r['act_p99']:.1f} ({r['acts']})", f"{r['seat_s']:.2f}",
            f"{'met' if met else 'NOT met'} (CPU {mm_cpu / max(engine_cpu, 1e-9):.2f}× the "
            "engine's)",
        ])  # fmt: skip
    table.notes.append(
        f"{VARIANT}; {ENGINE_GAMES} games at once for the engine (one Apply per action; "
        "measured before and right after the matchmaker's run, their mean), "
        f"{tables} tables (one auto-play human, two {BOT_LEVEL} bots thinking 0 s) for the "
        "matchmaker, "
        f"{duration:g} s each (the Act latency {act_s:g} s); engine, replay and matchmaker as "
        "their own one-worker processes "
        "(on SQLite, replay in a file of its own: one file has one writer at a time).  A "
        "matchmaker action is a move of a run that the engine plays in one Apply (the bots' and "
        "the auto-play seat's moves, ApplyRequest.run; the runner's calls gathered into "
        "ApplyBatch calls), one conditional write (events, outbox) a run.  Each table's "
        f"seat stream is read as a back end following many tables reads it, {stream_name()} "
        "(CARDROOM_BENCH_STREAM=single: Subscribe, one event a message).  With "
        "CARDROOM_MATCHMAKER_ENGINE_RUNS=0: each move the bot's choice here from its seat view "
        "(a GetSeatView unless the last Apply predicted it) and an Apply.  "
        "Load: the same bot tables with a think time sized for ~70% of the measured rate (a "
        f"first guess, then scaled by the share a {CALIBRATE_S:g} s run at it gave), "
        f"beside {HUMAN_TABLES} tables where a human plays his turns (GetHint, then the timed "
        "Act).  Seating: one pass over 1,000 queued rated tickets of one public pool "
        "(grouped by rating).  Goals: ratio ≥ "
        f"{RATIO_GOAL}×; Act p99 < {ACT_P99_GOAL_MS:g} ms at ~70% load; seating < "
        f"{SEAT_GOAL_S:g} s.  Issue 29's goal 3: ratio ≥ {RATIO_GOAL_29}× and the "
        "matchmaker's CPU per action ≤ the engine's (both from this run)."
    )
    return [table]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        print(run_backend("SQLite", f"sqlite:///{tmp}/b.sqlite3", 3.0, 16, 5.0))
