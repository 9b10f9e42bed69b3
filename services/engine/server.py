"""The engine service's composition root: keys, callers' tokens, servicer, and the shared
server runner.

cardroom engine serve --port 50051 --workers 2

The engine is a trusted internal service: whoever may call it may ask for any seat's view,
any game's legal actions and hints.  Only the matchmaker and other backends should reach it.
``CARDROOM_ENGINE_TOKENS="tok1,tok2"`` (each at least 16 characters) makes it demand one of
those bearer tokens on every call (UNAUTHENTICATED otherwise; health and reflection stay
open); unset, every caller is allowed and the server logs a warning at start.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc

from services.common import auth
from services.common import logging as clog
from services.common.db import DEFAULT_DATA_DIR
from services.common.server import ServiceSpec, add_service, serve
from services.common.settings import ServerSettings, SettingsError, from_args
from services.common.wire import engine_pb2

from . import tokens
from .service import EngineServicer

SERVICE_NAME = engine_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name


#: The engine's roles: one, the callers (the matchmaker, other backends).  Data, so that
#: distinguishing callers later is one more entry.
CALLER = "caller"
TOKENS_ENV = "CARDROOM_ENGINE_TOKENS"
#: The key file an engine without CARDROOM_ENGINE_KEYS keeps under the data directory.
KEY_FILE = "engine.keys"
ROLES = (auth.RoleSource(CALLER, TOKENS_ENV),)


def access_from_env(environ: Any = None) -> auth.AccessPolicy:
    return auth.AccessPolicy.from_env(ROLES, environ, "engine")


def prepare(settings: ServerSettings, access: auth.AccessPolicy | None = None) -> None:
    """Runs once in the parent: without configured keys, make one that every worker shares
    (spawned workers inherit the environment), so a token sealed by one worker opens in all.
    And warn once when no caller token is configured."""
    log = clog.get_logger("cardroom.engine")
    if (access if access is not None else access_from_env()).open:
        log.warning(
            "no engine caller tokens configured: every caller may use the engine, "
            "including any seat's view",
            hint=f"set {TOKENS_ENV}=token1,token2 to require a bearer token",
        )
    if tokens.parse_keys(os.environ.get(tokens.ENV_VAR, "")):
        return
    path = key_file()
    os.environ[tokens.ENV_VAR] = load_or_create_keys(path)
    log.warning(
        "no state token key configured; using the one kept in the data directory",
        path=str(path),
        hint=f"set {tokens.ENV_VAR}=kid:BASE64KEY to share keys between engine machines",
    )


def key_file() -> Path:
    """Where an engine without configured keys keeps its own (under CARDROOM_DATA_DIR)."""
    return Path(os.environ.get("CARDROOM_DATA_DIR", DEFAULT_DATA_DIR)) / KEY_FILE


def load_or_create_keys(path: Path) -> str:
    """The CARDROOM_ENGINE_KEYS text kept in ``path``, made once (mode 0600) when absent, so
    tokens outlive an engine restart: a table's stored token still opens afterwards."""
    if path.exists():
        text = path.read_text().strip()
        tokens.parse_keys(text)  # a damaged file is an error, never silently replaced
        return text
    path.parent.mkdir(parents=True, exist_ok=True)
    text = tokens.format_keys({"local": tokens.new_key()})
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    try:
        os.link(tmp, path)  # atomic, and never over a key another process made meanwhile
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return load_or_create_keys(path)


def register_with(
    access: auth.AccessPolicy | None, server: grpc.aio.Server, settings: ServerSettings
) -> Sequence[str]:
    """The runner's register hook (module-level, so spawned workers can import it)."""
    policy = access if access is not None else access_from_env()
    servicer: Any = EngineServicer(tokens.Sealer.from_env())
    if not policy.open:
        servicer = auth.Guarded(servicer, policy)
    return [add_service(server, SERVICE_NAME, servicer)]


def make_spec(access: auth.AccessPolicy | None = None) -> ServiceSpec:
    """The engine's spec; ``access`` overrides the caller tokens of the environment."""
    return ServiceSpec(
        name="engine",
        register=functools.partial(register_with, access),
        prepare=functools.partial(prepare, access=access),
    )


SPEC = make_spec()


def serve_main(args: argparse.Namespace) -> int:
    try:
        settings = from_args("engine", args)
        tokens.parse_keys(os.environ.get(tokens.ENV_VAR, ""))
        access_from_env()
    except (SettingsError, tokens.KeyConfigError) as exc:
        print(f"cardroom engine serve: error: {exc}", file=sys.stderr)
        return 2
    return serve(SPEC, settings)
