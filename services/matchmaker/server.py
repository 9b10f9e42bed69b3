"""The matchmaker's composition root: configuration, store, engine and replay clients, the
runner's loops, the servicer and the shared server runner.

    cardroom db upgrade
    cardroom matchmaker serve --port 50053 --engine 127.0.0.1:50051 --replay 127.0.0.1:50052

One worker per instance (the runner's loops and stream bookkeeping are per process; several
instances share the database, which is the next issue).  The process starts and serves health
while the engine or replay service is down; GetStatus and the log say so.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import grpc

from services.common import logging as clog
from services.common import metrics
from services.common.db import database_ready, default_url, make_engine
from services.common.migrate import pending
from services.common.server import ServiceSpec, add_readiness, serve
from services.common.settings import ServerSettings, SettingsError, from_args

from . import metrics as mm_metrics
from .access import Access
from .backends import APPLICATION_NAME
from .clients import Engine, Replay
from .runner import Runner
from .service import MatchmakerServicer, add_to_server
from .settings import RunnerSettings
from .store import Store

ENGINE_ADDR_ENV = "CARDROOM_ENGINE_ADDR"
REPLAY_ADDR_ENV = "CARDROOM_REPLAY_ADDR"
ENGINE_TOKEN_ENV = "CARDROOM_MATCHMAKER_ENGINE_TOKEN"
REPLAY_TOKEN_ENV = "CARDROOM_MATCHMAKER_REPLAY_TOKEN"
TICKET_TTL_ENV = "CARDROOM_MATCHMAKER_TICKET_TTL_S"
LEASE_ENV = "CARDROOM_MATCHMAKER_LEASE_S"
STREAM_LEASE_ENV = "CARDROOM_MATCHMAKER_STREAM_LEASE_S"
OUTBOX_GATHER_ENV = "CARDROOM_MATCHMAKER_OUTBOX_GATHER_S"
#: Worker processes for the searching bots' moves (RunnerSettings.bot_processes).
BOT_PROCESSES_ENV = "CARDROOM_MATCHMAKER_BOT_PROCESSES"
#: "0": choose every bot and auto-play move here (RunnerSettings.engine_runs), for an engine
#: older than ApplyRequest.run.
ENGINE_RUNS_ENV = "CARDROOM_MATCHMAKER_ENGINE_RUNS"
#: Test only: seat without the pool lock, to show the conditional writes alone hold.
NO_POOL_LOCK_ENV = "CARDROOM_MATCHMAKER_TEST_NO_POOL_LOCK"


@dataclass(frozen=True)
class MatchmakerConfig:
    database_url: str
    engine_addr: str = "127.0.0.1:50051"
    replay_addr: str = "127.0.0.1:50052"
    engine_token: str = ""
    replay_token: str = ""
    access: Access = field(default_factory=lambda: Access.from_env({}))
    runner: RunnerSettings = field(default_factory=RunnerSettings)
    #: Called with each runner a worker builds (an in-process server's tests and tools reach
    #: its runner through it).
    on_runner: Callable[[Runner], None] | None = field(default=None, compare=False)

    @classmethod
    def from_env(cls, args: argparse.Namespace | None = None) -> MatchmakerConfig:
        env = os.environ

        def seconds(name: str, default: float, low: float, high: float) -> float:
            raw = env.get(name, "")
            if not raw.strip():
                return default
            try:
                value = float(raw)
            except ValueError:
                raise SettingsError(f"{name}={raw!r} is not a number of seconds") from None
            if not low <= value <= high:  # NaN fails this too
                raise SettingsError(f"{name} must be {low}–{high} seconds")
            return value

        def count(name: str, default: int, low: int, high: int) -> int:
            raw = env.get(name, "").strip()
            if not raw:
                return default
            if (
                not (raw.isascii() and raw.isdigit() and len(raw) <= 6)
                or not low <= int(raw) <= high
            ):
                raise SettingsError(f"{name}={raw[:40]!r} must be a whole number {low}–{high}")
            return int(raw)

        runner = RunnerSettings(
            ticket_ttl_ms=int(seconds(TICKET_TTL_ENV, 600, 1, 86400) * 1000),
            lease_ms=int(seconds(LEASE_ENV, 5, 0.5, 600) * 1000),
            stream_lease_ms=int(seconds(STREAM_LEASE_ENV, 15, 0.5, 600) * 1000),
            outbox_gather_ms=int(seconds(OUTBOX_GATHER_ENV, 0.2, 0, 10) * 1000),
            bot_processes=count(BOT_PROCESSES_ENV, 1, 0, 64),
            engine_runs=bool(count(ENGINE_RUNS_ENV, 1, 0, 1)),
        )
        engine_addr = getattr(args, "engine", None) or env.get(ENGINE_ADDR_ENV, "")
        replay_addr = getattr(args, "replay", None) or env.get(REPLAY_ADDR_ENV, "")
        return cls(
            database_url=default_url(),
            engine_addr=engine_addr.strip() or "127.0.0.1:50051",
            replay_addr=replay_addr.strip() or "127.0.0.1:50052",
            engine_token=env.get(ENGINE_TOKEN_ENV, "").strip(),
            replay_token=env.get(REPLAY_TOKEN_ENV, "").strip(),
            access=Access.from_env(),
            runner=runner,
        )


def build(config: MatchmakerConfig) -> MatchmakerServicer:
    """A servicer with its runner (call on the server's event loop; starts the loops)."""
    # A session idle inside a transaction for a lease is ended by PostgreSQL: an instance cut
    # off mid-transaction releases its row locks by the time another may take its tables over.
    # A row lock wait ends after a lease too (a worker thread is never blocked for good by a
    # peer's lock), and the sessions carry a name by which any instance finds a peer's stuck
    # ones (Store.reap_stuck).
    # One pooled connection per database thread (the runner's four pools; the LISTEN, the
    # metrics and the stuck-session check beside): with fewer, the connections past the pool's
    # size are opened and closed on every busy moment, a PostgreSQL connection's setup each time.
    # No pre-ping: it was a round trip before every statement (a tenth of the database
    # waits).  A connection that died in the pool fails on use instead; SQLAlchemy then
    # discards every connection of the pool opened before, and Runner._in tries once more
    # on a fresh one (Store.ping and the readiness probe try twice themselves).
    r = config.runner
    size = r.threads + 2 * r.call_threads + r.stream_threads + 3
    engine = make_engine(
        config.database_url,
        idle_in_transaction_ms=config.runner.lease_ms,
        lock_timeout_ms=config.runner.lease_ms,
        application_name=APPLICATION_NAME,
        pool_size=size,
        max_overflow=size,
        pool_pre_ping=False,
    )
    store = Store(engine, lock_pools=not os.environ.get(NO_POOL_LOCK_ENV))
    runner = Runner(
        store,
        Engine(config.engine_addr, config.engine_token),
        Replay(config.replay_addr, config.replay_token),
        config.runner,
    )
    runner.start()
    if config.on_runner is not None:
        config.on_runner(runner)
    return MatchmakerServicer(runner, config.access)


def register_with(
    config: MatchmakerConfig | None, server: grpc.aio.Server, settings: ServerSettings
) -> Sequence[str]:
    config = config or MatchmakerConfig.from_env()
    servicer = build(config)
    # Health follows the matchmaker's own readiness, its database; an engine or replay outage
    # shows in GetStatus and the logs instead, and tables wait for it.
    engine = servicer.runner.store.engine
    add_readiness(server, functools.partial(database_ready, engine))
    metrics.add_source(servicer.runner.instance, functools.partial(_gauges, servicer.runner))
    if config.access.open:
        clog.get_logger("cardroom.matchmaker").warning(
            "no matchmaker credentials configured: every caller may act for every player",
            hint="set CARDROOM_MATCHMAKER_BACKEND_TOKENS and CARDROOM_MATCHMAKER_JWT_KEY",
        )
    return add_to_server(server, servicer)


def _gauges(runner: Runner) -> dict[str, tuple[str, float]]:
    if runner.stopping:  # a stopped server (tests run several per process) reports nothing
        metrics.remove_source(runner.instance)
        return {}
    return mm_metrics.gauges(runner.store)


def make_spec(config: MatchmakerConfig | None = None) -> ServiceSpec:
    return ServiceSpec(name="matchmaker", register=functools.partial(register_with, config))


def serve_main(args: argparse.Namespace) -> int:
    try:
        settings = from_args("matchmaker", args)
        config = MatchmakerConfig.from_env(args)
    except SettingsError as exc:
        print(f"cardroom matchmaker serve: error: {exc}", file=sys.stderr)
        return 2
    if settings.workers != 1:
        # The runner's stream bookkeeping is per process: one worker per instance.
        settings = settings.replace(workers=1)
    try:
        behind = pending(config.database_url)
    except Exception as exc:
        print(f"cardroom matchmaker serve: error: cannot open the database: {exc}",
              file=sys.stderr)  # fmt: skip
        return 2
    if behind is not None:
        print(f"cardroom matchmaker serve: error: {behind}; run `cardroom db upgrade` first",
              file=sys.stderr)  # fmt: skip
        return 2
    return serve(make_spec(config), settings)
