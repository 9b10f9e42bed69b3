"""The engine service's composition root: keys, servicer, and the shared server runner.

cardroom engine serve --port 50051 --workers 2
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import grpc
from cardroom.v1 import engine_pb2, engine_pb2_grpc

from services.common import logging as clog
from services.common.server import ServiceSpec, serve
from services.common.settings import ServerSettings, SettingsError, from_args

from . import tokens
from .service import EngineServicer

SERVICE_NAME = engine_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name


def prepare(settings: ServerSettings) -> None:
    """Runs once in the parent: without configured keys, make one that every worker shares
    (spawned workers inherit the environment), so a token sealed by one worker opens in all."""
    if tokens.parse_keys(os.environ.get(tokens.ENV_VAR, "")):
        return
    os.environ[tokens.ENV_VAR] = tokens.format_keys({"generated": tokens.new_key()})
    clog.get_logger("cardroom.engine").warning(
        "no state token key configured; generated one for this run only",
        hint=f"set {tokens.ENV_VAR}=kid:BASE64KEY so tokens survive restarts and replicas",
    )


def register(server: grpc.aio.Server, settings: ServerSettings) -> Sequence[str]:
    add: Any = engine_pb2_grpc.add_EngineServiceServicer_to_server  # generated, untyped
    add(EngineServicer(tokens.Sealer.from_env()), server)
    return [SERVICE_NAME]


SPEC = ServiceSpec(name="engine", register=register, prepare=prepare)


def serve_main(args: argparse.Namespace) -> int:
    try:
        settings = from_args("engine", args)
        tokens.parse_keys(os.environ.get(tokens.ENV_VAR, ""))
    except (SettingsError, tokens.KeyConfigError) as exc:
        print(f"cardroom engine serve: error: {exc}", file=sys.stderr)
        return 2
    return serve(SPEC, settings)
