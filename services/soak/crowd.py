"""``cardroom soak``: drive matchmakers over gRPC as a crowd would, for a bounded time, and
check what came out.

N simulated players (scripted humans) each loop: enqueue on one of the matchmaker addresses
(bots fill the seats no human takes within ``--fill-ms``), open the seat's stream (any
address: any instance serves any call), say Ready, and on each of their turns think
(``--think-ms``: the default is a fast crowd, a throughput test; people think seconds), then
act with the engine's hint — or let the timer run out, or turn auto-play on, or drop the
stream and reconnect after the last seq seen, or leave mid-game (an escape).  After a few
games a player leaves the table and queues again.  When the time is up every player turns
auto-play on and waits for its game to end.

Then every finished game is checked: the replay service's VerifyGame must say ok, and every
seat's stream must have shown that seat no other seat's hidden card before the game ended
(its deal against the seed that game_over reveals).  Refusals that are races a real client
meets too (ABORTED, FAILED_PRECONDITION: the timer moved the table first) are counted, not
faults; every other error, a lost game, a failed verification or a leak is a fault, exit 1.
Loopback or an operator's own cluster only: everything is bounded by --players and --duration.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc

from services import rules
from services.common.console import fail
from services.common.grpc_errors import details
from services.common.wire import (
    batched_events,
    engine_pb2,
    matchmaker_pb2,
    matchmaker_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)

M = matchmaker_pb2
#: The first seconds of a run, reported apart from the rest (the opening rush).
OPENING_S = 30.0
#: Refusals a real client meets when a timer or a bot moved the table first.
RACES = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)


@dataclass
class Mix:
    """What a human does on a turn (shares; the rest is: think, then play the hint).
    ``think_ms``: the default is a fast crowd (a throughput test); people think seconds
    (``--think-ms``)."""

    timeout: float = 0.05
    autoplay: float = 0.02
    reconnect: float = 0.03
    leave: float = 0.01
    think_ms: tuple[int, int] = (20, 250)


@dataclass
class Stats:
    started: float = field(default_factory=time.monotonic)
    act_ms: list[float] = field(default_factory=list)
    #: When each Act of ``act_ms`` started (seconds since the run's start).
    act_at: list[float] = field(default_factory=list)
    actions: int = 0
    races: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    faults: list[str] = field(default_factory=list)
    tables: set[str] = field(default_factory=set)
    #: game id -> variant, for every game a seat saw end.
    finished: dict[str, str] = field(default_factory=dict)
    #: game id -> table id, for every game a seat saw start.
    begun: dict[str, str] = field(default_factory=dict)
    #: game id -> variant, for every game a seat left before it ended (an escape: its end
    #: is not on the leaver's stream, so only replay can say it ended and verifies).
    left: dict[str, str] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    reconnects: int = 0
    leaves: int = 0
    timeouts: int = 0

    def error(self, exc: grpc.RpcError, where: str) -> None:
        d = details(exc)
        key = f"{d.code.name} {d.reason or '-'}"
        if d.code in RACES:
            self.races[key] += 1
        else:
            self.errors[key] += 1
            if len(self.faults) < 50:
                self.faults.append(f"{where}: {key}: {d.message[:200]}")


def hidden_leaks(events: list[Any], seat: int, variant: str, seed: str) -> list[str]:
    """What a seat's stream of one game held, before the game was over, that the seat may not
    see: an event private to another seat, or a dealt hand other than its own (from the seed
    game_over reveals, every redeal included)."""
    v = rules.variant(variant)
    mine = {
        tuple(sorted(rules.deal_from_seed(v, rules.redeal_seed(seed, d)).hands[seat]))
        for d in range(v.max_deals)
    }
    leaks = []
    for ev in events:
        g = ev.game_event
        if g.type == "game_over":
            break
        if g.envelope.HasField("seat") and g.envelope.seat != seat:
            leaks.append(f"private event of seat {g.envelope.seat}: {g.type}")
        body = json.loads(g.data_json)
        dealt = body.get("hand") if g.type == "deal" else None
        if dealt is not None and tuple(sorted(rules.parse_cards(dealt))) not in mine:
            leaks.append(f"a foreign hand dealt to seat {seat}")
        for key in ("hand", "hands"):
            if key in body and g.type != "deal":
                leaks.append(f"{g.type} carries {key}")
    return leaks


class Player:
    def __init__(self, crowd: Crowd, index: int) -> None:
        self.crowd = crowd
        self.id = f"soak-{crowd.run}-{index}"
        self.rng = random.Random(f"{crowd.seed}:{index}")
        self.home = index % len(crowd.stubs)
        self.calling = ""

    def stub(self, any_instance: bool = False) -> Any:
        stubs = self.crowd.stubs
        return stubs[self.rng.randrange(len(stubs))] if any_instance else stubs[self.home]

    async def call(self, name: str, request: Any, any_instance: bool = False) -> Any:
        method = getattr(self.stub(any_instance), name)
        self.calling = name  # a fault names the call that failed
        return await method(request, metadata=self.crowd.meta, timeout=self.crowd.call_timeout)

    async def run(self) -> None:
        crowd = self.crowd
        while not crowd.time_up():
            try:
                await self.sit_and_play()
            except grpc.RpcError as exc:
                crowd.stats.error(exc, f"{self.id} {self.calling}")
                await asyncio.sleep(0.2)

    async def sit_and_play(self) -> None:
        crowd = self.crowd
        ticket = await self.call(
            "Enqueue",
            M.EnqueueRequest(
                player_id=self.id,
                variant=crowd.variant,
                bot_fill_after_ms=crowd.fill_ms,
                timers=crowd.timers,
                request_id=uuid.uuid4().hex,
                bot_level=crowd.bot_level,
                # --solo: a private table per player, the rest bots (one human per table).
                private_code=uuid.uuid4().hex if crowd.solo else "",
            ),
        )
        while ticket.state == M.TICKET_STATE_QUEUED:
            ticket = await self.watch(ticket)
        if ticket.state != M.TICKET_STATE_SEATED:
            return
        await Seat(self, ticket.table_id, ticket.seats[0]).play()

    async def watch(self, ticket: M.Ticket) -> M.Ticket:
        """The ticket once it is no longer queued, followed as our clients follow it
        (services/client/session.py, the web relay): a WatchTicket stream.  The crowd polled
        GetTicket every 50 ms instead, as no client of ours does: in bench scale's opening
        rush every queued player's poll stood in gRPC's queue of new calls, and a stream
        reopening behind them waited there for seconds (its seat escaped past the grace)."""
        self.calling = "WatchTicket"
        call = self.stub(any_instance=True).WatchTicket(
            M.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=self.crowd.meta
        )
        try:
            async for update in call:
                ticket = update
                if ticket.state != M.TICKET_STATE_QUEUED:
                    break
        finally:
            call.cancel()
        return ticket


class Seat:
    """One seat's stay at a table: its stream, its turns, its games."""

    def __init__(self, player: Player, table_id: str, seat: int) -> None:
        self.p = player
        self.crowd = player.crowd
        self.table_id = table_id
        self.seat = seat
        self.ids: dict[str, Any] = {"table_id": table_id, "player_id": player.id}
        self.last_seq = 0
        self.game_id = ""
        self.game_events: list[Any] = []
        self.games_here = 0
        self.want = 1
        self.turns: asyncio.Queue[int] = asyncio.Queue()
        self.closed = asyncio.Event()
        self.game_over = asyncio.Event()
        self.in_game = False
        self.leaving = False
        self.crowd.stats.tables.add(table_id)

    async def play(self) -> None:
        reader = asyncio.ensure_future(self.follow())
        try:
            await self.p.call("Ready", M.ReadyRequest(**self.ids))
            self.want = want = self.p.rng.randint(1, 3)  # games here before queueing again
            while not self.closed.is_set():
                if self.crowd.time_up() and self.in_game:
                    await self.drain()
                    break
                if self.crowd.time_up() or (self.games_here >= want and not self.in_game):
                    break
                try:
                    async with asyncio.timeout(0.25):
                        seq = await self.turns.get()
                except TimeoutError:
                    continue
                await self.turn(seq)
        finally:
            # The stream first, so that no game starts on it between the check and the leave.
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
            if not self.closed.is_set():
                if self.game_id and self.game_id not in self.crowd.stats.finished:
                    self.crowd.stats.left[self.game_id] = self.crowd.variant  # escapes it
                with contextlib.suppress(grpc.RpcError):
                    await self.p.call("LeaveTable", M.LeaveTableRequest(**self.ids))

    async def drain(self) -> None:
        """The time is up: auto-play from this seat's next turn on (after thinking, an Act
        like any other: not every player at the same instant, a rush no crowd makes), and
        wait for this game to end (or count it lost)."""
        end = asyncio.ensure_future(self.game_over.wait())
        try:
            turn = asyncio.ensure_future(self.turns.get())
            await asyncio.wait([end, turn], timeout=self.crowd.drain_s,
                               return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
            if turn.done():
                await asyncio.sleep(self.p.rng.uniform(*self.crowd.mix.think_ms) / 1000.0)
                action = engine_pb2.Action(seat=self.seat, autoplay=True)
                await self.timed_act(action)
            else:
                turn.cancel()
            async with asyncio.timeout(self.crowd.drain_s):
                await end
        except TimeoutError:
            self.crowd.stats.faults.append(f"game {self.game_id} did not end in the drain time")
        finally:
            end.cancel()

    async def turn(self, seq: int) -> None:
        rng, mix, stats = self.p.rng, self.crowd.mix, self.crowd.stats
        roll = rng.random()
        if roll < mix.timeout:
            stats.timeouts += 1
            return  # let the timer play for us
        roll -= mix.timeout
        if roll < mix.leave and self.in_game:
            stats.leaves += 1
            self.leaving = True
            if self.game_id:
                stats.left[self.game_id] = self.crowd.variant
            with contextlib.suppress(grpc.RpcError):
                await self.p.call("LeaveTable", M.LeaveTableRequest(**self.ids))
            self.closed.set()
            return
        roll -= mix.leave
        if roll < mix.reconnect:
            stats.reconnects += 1
            self.crowd.reconnect_requests.append(self)
        await asyncio.sleep(rng.uniform(*mix.think_ms) / 1000.0)
        if roll < mix.reconnect + mix.autoplay:
            action = engine_pb2.Action(seat=self.seat, autoplay=True)
        else:
            try:
                hint = await self.p.call("GetHint", M.HintRequest(**self.ids), any_instance=True)
            except grpc.RpcError as exc:
                stats.error(exc, "GetHint")
                return
            if not hint.HasField("hint"):
                return
            action = hint.hint
        await self.timed_act(action)

    async def timed_act(self, action: Any) -> None:
        stats = self.crowd.stats
        started = time.perf_counter()
        try:
            await self.p.call(
                "Act",
                M.ActRequest(**self.ids, action=action, request_id=uuid.uuid4().hex),
                any_instance=True,
            )
            stats.actions += 1
        except grpc.RpcError as exc:
            stats.error(exc, "Act")
        finally:
            stats.act_ms.append((time.perf_counter() - started) * 1000.0)
            stats.act_at.append(time.monotonic() - stats.started)

    async def follow(self) -> None:
        """The seat's stream, reopened after a drop (or a scripted reconnect) after the last
        seq seen: seqs must go strictly up, with nothing twice."""
        dropped: float | None = None  # when this seat last closed its stream (monotonic)
        while not self.closed.is_set():
            sent = time.monotonic()
            # Batched, as the first-party clients (terminal, web relay) read a seat's stream.
            call = self.p.stub(any_instance=True).SubscribeBatched(
                M.SubscribeRequest(**self.ids, after_seq=self.last_seq), metadata=self.crowd.meta
            )
            try:
                async for ev in batched_events(call):
                    if ev.seq <= self.last_seq:
                        self.crowd.stats.faults.append(
                            f"table {self.table_id}: seq {ev.seq} after {self.last_seq}"
                        )
                    self.last_seq = ev.seq
                    await self.on_event(ev)
                    if self in self.crowd.reconnect_requests:
                        self.crowd.reconnect_requests.remove(self)
                        call.cancel()
                        dropped = time.monotonic()
                        await asyncio.sleep(self.p.rng.uniform(0.05, 0.4))
                        break
                else:
                    return  # the server ended the stream: the table closed or we left
            except grpc.RpcError as exc:
                if exc.code() == grpc.StatusCode.CANCELLED:
                    continue
                self.crowd.stats.error(exc, "Subscribe")
                if exc.code() in RACES:
                    # How long the seat was away, and where the time went: the client's
                    # own lateness (sent) or the service's answer (refused).
                    now, why = time.monotonic(), details(exc).reason
                    if dropped is not None:
                        why += (f"; away {now - dropped:.1f} s, the reopening sent "
                                f"{sent - dropped:.1f} s after the drop")  # fmt: skip
                    self.lost_seat(f"{why}, refused {now - sent:.1f} s after it was sent")
                    return
                await asyncio.sleep(0.2)

    def lost_seat(self, why: str) -> None:
        """The matchmaker refuses this seat's stream though its player never left: the seat
        was taken from him (his stream away past the grace, an escape).  The crowd reopens a
        stream within 0.4 s, well inside the grace, so during a game that is a fault of the
        service; the game ended as an escape, and replay verifies it like any other."""
        stats = self.crowd.stats
        if self.in_game and not self.leaving and self.game_id not in stats.finished:
            stats.left[self.game_id] = self.crowd.variant
            stats.faults.append(
                f"table {self.table_id}: seat {self.seat} taken from {self.p.id} during game "
                f"{self.game_id} as its stream reopened ({why})"
            )
        self.closed.set()

    async def on_event(self, ev: Any) -> None:
        stats = self.crowd.stats
        if ev.type == "game":
            self.game_events.append(ev)
            g = ev.game_event
            if g.type == "game_over" and self.game_id:
                body = json.loads(g.data_json)
                stats.finished[self.game_id] = self.crowd.variant
                leaks = hidden_leaks(self.game_events, self.seat, self.crowd.variant, body["seed"])
                stats.leaks += [f"{self.game_id} seat {self.seat}: {x}" for x in leaks]
                self.in_game = False
                self.games_here += 1
                self.game_over.set()
            return
        body = json.loads(ev.data_json or "{}")
        if ev.type == "game_started":
            self.game_id = body.get("game_id", "")
            stats.begun[self.game_id] = self.table_id
            self.game_events = []
            self.in_game = True
            self.game_over.clear()
        elif ev.type == "deadline" and body.get("seat") == self.seat and not self.leaving:
            if body.get("kind") in ("turn", "bid"):
                self.turns.put_nowait(ev.seq)
        elif ev.type == "series" and not self.crowd.time_up() and self.games_here < self.want:
            with contextlib.suppress(grpc.RpcError):
                await self.p.call("Ready", M.ReadyRequest(**self.ids))
        elif ev.type == "table_closed":
            self.closed.set()


class Crowd:
    def __init__(self, args: argparse.Namespace, targets: list[str]) -> None:
        self.run = uuid.uuid4().hex[:6]
        self.seed = args.seed
        self.variant = args.variant
        self.fill_ms = args.fill_ms
        self.solo = bool(args.solo)
        self.bot_level = args.bot_level
        self.players = args.players
        self.duration = args.duration
        self.drain_s = args.drain
        self.call_timeout = 10.0
        self.mix = Mix(think_ms=think_range(args.think_ms))
        self.timers = M.Timers(
            bid_ms=args.turn_ms, turn_ms=args.turn_ms, start_ms=5000, grace_ms=2000,
            bot_think_ms=args.bot_think_ms,
        )  # fmt: skip
        token = args.token or ""
        self.meta = [("authorization", f"Bearer {token}")] if token else []
        self.replay_meta = (
            [("authorization", f"Bearer {args.replay_token}")] if args.replay_token else []
        )
        self.targets = targets
        self.channels: list[grpc.aio.Channel] = []
        self.stubs: list[Any] = []
        self.replay_target = args.replay
        self.stats = Stats()
        self.reconnect_requests: list[Seat] = []
        self.deadline = 0.0

    def time_up(self) -> bool:
        return time.monotonic() >= self.deadline

    async def go(self) -> dict[str, Any]:
        # Channels belong to the running event loop: made here, not in __init__.
        self.channels = [grpc.aio.insecure_channel(t) for t in self.targets]
        self.stubs = [matchmaker_pb2_grpc.MatchmakerServiceStub(c) for c in self.channels]  # type: ignore[no-untyped-call]
        self.stats = Stats()
        self.deadline = time.monotonic() + self.duration
        players = [Player(self, i) for i in range(self.players)]
        await asyncio.gather(*(p.run() for p in players))
        elapsed = time.monotonic() - self.stats.started
        verified = await self.verify()
        for ch in self.channels:
            await ch.close()
        return self.report(elapsed, verified)

    async def verify(self) -> dict[str, str]:
        """VerifyGame for every finished game (waiting for the outbox to deliver it)."""
        bad: dict[str, str] = {}
        async with grpc.aio.insecure_channel(self.replay_target) as channel:
            stub = replay_pb2_grpc.ReplayServiceStub(channel)  # type: ignore[no-untyped-call]
            sem = asyncio.Semaphore(8)

            async def one(game_id: str) -> None:
                async with sem:
                    end = time.monotonic() + self.drain_s
                    verdict = "not delivered"
                    while time.monotonic() < end:
                        try:
                            answer = await stub.VerifyGame(
                                replay_pb2.VerifyGameRequest(game_id=game_id),
                                metadata=self.replay_meta, timeout=20,
                            )  # fmt: skip
                        except grpc.RpcError as exc:
                            verdict = f"{exc.code().name}"
                            await asyncio.sleep(0.3)
                            continue
                        if answer.ok and answer.settlement_json:
                            return
                        verdict = answer.reason or "no settlement yet"
                        await asyncio.sleep(0.3)
                    bad[game_id] = verdict

            games = set(self.stats.finished) | set(self.stats.left)
            await asyncio.gather(*(one(g) for g in sorted(games)))
        return bad

    def report(self, elapsed: float, bad: dict[str, str]) -> dict[str, Any]:
        s = self.stats
        lat = sorted(s.act_ms)

        def pct(p: float, of: list[float] = lat) -> float:
            return round(of[min(len(of) - 1, int(p * len(of)))], 2) if of else 0.0

        # The opening rush (every player enqueues, is seated and opens a stream at once)
        # apart from the steady state, and the p99 of each 10 s of the run: where a tail
        # comes from.
        timed = list(zip(s.act_at, s.act_ms, strict=True))
        opening = sorted(ms for at, ms in timed if at < OPENING_S)
        steady = sorted(ms for at, ms in timed if at >= OPENING_S)
        slices: dict[int, list[float]] = {}
        for at, ms in timed:
            slices.setdefault(int(at // 10), []).append(ms)

        minutes = max(elapsed, 1e-9) / 60.0
        lost = sorted(set(s.begun) - set(s.finished) - set(s.left))
        faults = list(s.faults) + [f"game {g} failed verification: {v}" for g, v in bad.items()]
        faults += [f"leak: {x}" for x in s.leaks]
        faults += [f"game {g} started and never finished" for g in lost]
        return {
            "players": self.players,
            "instances": len(self.targets),
            "seconds": round(elapsed, 1),
            "tables": len(s.tables),
            "tables_per_min": round(len(s.tables) / minutes, 1),
            "games": len(s.finished),
            "games_per_min": round(len(s.finished) / minutes, 1),
            "actions": s.actions,
            "actions_per_s": round(s.actions / max(elapsed, 1e-9), 1),
            "act_p50_ms": pct(0.50),
            "act_p99_ms": pct(0.99),
            "act_p99_ms_opening": pct(0.99, opening),
            "act_p99_ms_steady": pct(0.99, steady),
            "act_p99_ms_by_10s": [
                pct(0.99, sorted(slices.get(i, []))) for i in range(max(slices, default=-1) + 1)
            ],
            "timeouts": s.timeouts,
            "reconnects": s.reconnects,
            "leaves": s.leaves,
            "left_games": len(set(s.left) - set(s.finished)),
            "verified": len(set(s.finished) | set(s.left)) - len(bad),
            "races": dict(s.races),
            "errors": dict(s.errors),
            "faults": faults[:100],
            "ok": not faults and not s.errors,
            # The pace the figures were measured at (ms).
            "think_ms": list(self.mix.think_ms),
            "bot_think_ms": self.timers.bot_think_ms,
            "turn_ms": self.timers.turn_ms,
        }


def think_range(text: str) -> tuple[int, int]:
    """``LO-HI`` (ms, 0 ≤ LO ≤ HI ≤ 60000) as a pair; ValueError otherwise."""
    lo, sep, hi = text.strip().partition("-")
    if not sep or not lo.strip().isdigit() or not hi.strip().isdigit():
        raise ValueError("--think-ms must be LO-HI in ms, e.g. 1000-4000")
    pair = int(lo), int(hi)
    if not 0 <= pair[0] <= pair[1] <= 60_000:
        raise ValueError("--think-ms must be LO-HI with 0 ≤ LO ≤ HI ≤ 60000")
    return pair


def soak_main(args: argparse.Namespace) -> int:
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    if not targets or any(":" not in t for t in targets):
        return fail("soak", "--targets must be HOST:PORT[,HOST:PORT…]")
    if not 1 <= args.players <= 2000:
        return fail("soak", "--players must be 1–2000")
    if not 1 <= args.duration <= 3600:
        return fail("soak", "--duration must be 1–3600 seconds")
    if not 50 <= args.turn_ms <= 60_000 or not 0 <= args.bot_think_ms <= 10_000:
        return fail("soak", "--turn-ms must be 50–60000 and --bot-think-ms 0–10000")
    if not 0 <= args.fill_ms <= 60_000 or not 1 <= args.drain <= 600:
        return fail("soak", "--fill-ms must be 0–60000 and --drain 1–600 seconds")
    try:
        think_range(args.think_ms)
    except ValueError as exc:
        return fail("soak", str(exc))
    if args.bot_level not in ("easy", "normal", "hard"):
        return fail("soak", "--bot-level must be easy, normal or hard")
    try:
        rules.variant(args.variant)
    except rules.VariantError as exc:
        return fail("soak", str(exc))
    result = asyncio.run(Crowd(args, targets).go())
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        for key, value in result.items():
            print(f"{key:>16}: {value}")
    if not result["ok"]:
        print("soak: FAULTS (see faults/errors above)", file=sys.stderr)
    return 0 if result["ok"] else 1
