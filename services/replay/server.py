"""The replay service's composition root: configuration, store, servicer, and the shared
server runner (services/common/server.py: workers, health, reflection, TLS, graceful shutdown).

    cardroom db upgrade                      # migrate the configured database first
    cardroom replay serve --port 50052

The server does not migrate the database itself: several replay processes may start at once
against one PostgreSQL, and a schema change is an operator's step.  It refuses to start, with
a message naming ``cardroom db upgrade``, when the database is not at the newest revision.
Re-execution uses the rules library in-process, so no engine server is needed.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import grpc

from services.common import logging as clog
from services.common.db import database_ready, default_url, make_engine
from services.common.migrate import pending
from services.common.server import ServiceSpec, add_readiness, add_service, serve
from services.common.settings import ServerSettings, SettingsError, from_args
from services.common.wire import replay_pb2

from .access import AccessPolicy
from .service import ReplayServicer
from .store import EventStore

SERVICE = replay_pb2.DESCRIPTOR.services_by_name["ReplayService"]
SERVICE_NAME = SERVICE.full_name
POLL_ENV = "CARDROOM_REPLAY_POLL_INTERVAL"


@dataclass(frozen=True)
class ReplayConfig:
    """What the replay service needs beyond the shared server settings."""

    database_url: str
    access: AccessPolicy
    poll_interval: float = 0.25

    @classmethod
    def from_env(cls) -> ReplayConfig:
        raw = os.environ.get(POLL_ENV, "0.25")
        try:
            poll = float(raw)
        except ValueError:
            raise SettingsError(f"{POLL_ENV}={raw!r} is not a number of seconds") from None
        if not 0 < poll <= 60:
            raise SettingsError(f"{POLL_ENV} must be in (0, 60] seconds")
        return cls(default_url(), AccessPolicy.from_env(), poll)


def build_servicer(config: ReplayConfig) -> ReplayServicer:
    store = EventStore(make_engine(config.database_url))
    return ReplayServicer(store, config.access, poll_interval=config.poll_interval)


def add_to_server(server: grpc.aio.Server, servicer: ReplayServicer) -> Sequence[str]:
    """Register the servicer (the shared runner wraps every method, streams included)."""
    add_service(server, SERVICE_NAME, servicer)
    if servicer.access.open:
        clog.get_logger("cardroom.replay").warning(
            "no replay tokens configured: every caller may read and write every game",
            hint="set CARDROOM_REPLAY_WRITER_TOKENS, _AUDITOR_TOKENS and _PLAYER_TOKENS",
        )
    return [SERVICE_NAME]


def register_with(
    config: ReplayConfig | None, server: grpc.aio.Server, settings: ServerSettings
) -> Sequence[str]:
    """The runner's register hook (a module-level function, so spawned workers can import
    it): every worker opens its own engine and connection pool."""
    servicer = build_servicer(config or ReplayConfig.from_env())
    add_readiness(server, functools.partial(database_ready, servicer.store.engine))
    return add_to_server(server, servicer)


def make_spec(config: ReplayConfig | None = None) -> ServiceSpec:
    return ServiceSpec(name="replay", register=functools.partial(register_with, config))


SPEC = make_spec()


def serve_main(args: argparse.Namespace) -> int:
    try:
        settings = from_args("replay", args)
        config = ReplayConfig.from_env()
    except SettingsError as exc:
        print(f"cardroom replay serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        behind = pending(config.database_url)
    except Exception as exc:  # an unreachable database, a bad URL: say so, not a traceback
        print(f"cardroom replay serve: error: cannot open the database: {exc}", file=sys.stderr)
        return 2
    if behind is not None:
        print(
            f"cardroom replay serve: error: {behind}; run `cardroom db upgrade` first",
            file=sys.stderr,
        )
        return 2
    return serve(make_spec(config), settings)
