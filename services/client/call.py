"""``cardroom call engine|replay|matchmaker METHOD JSON [--target HOST:PORT]``: any RPC of
the three services, with a JSON body, through the generated stubs — for the README's
examples and for machines without grpcurl.

The body is the request message in protobuf's JSON mapping (field names as in the .proto or
lowerCamelCase); the answer is printed the same way, one JSON object per line (a streaming
RPC prints one line per message).  A refusal prints its code, ErrorInfo reason and message on
stderr and exits 2; bad JSON, an unknown method or field exits 2; an unreachable service
exits 1.  The target is ``--target``, else ``CARDROOM_ENGINE_ADDR`` / ``CARDROOM_REPLAY_ADDR``
/ ``CARDROOM_MATCHMAKER_ADDR``, else the local default port.  ``CARDROOM_CALL_TOKEN`` (or
``--token``) is sent as ``authorization: Bearer …``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from services.common.console import fail
from services.common.settings import DEFAULT_PORTS

#: service -> (proto module attribute in services.common.wire, service name, address variable)
SERVICES: dict[str, tuple[str, str, str]] = {
    "engine": ("engine", "EngineService", "CARDROOM_ENGINE_ADDR"),
    "replay": ("replay", "ReplayService", "CARDROOM_REPLAY_ADDR"),
    "matchmaker": ("matchmaker", "MatchmakerService", "CARDROOM_MATCHMAKER_ADDR"),
}

COMMAND = "call"


def default_target(service: str, environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    _module, _name, variable = SERVICES[service]
    return env.get(variable) or f"127.0.0.1:{DEFAULT_PORTS[service]}"


def _line(message: Any) -> str:
    from google.protobuf import json_format

    text: str = json_format.MessageToJson(
        message, preserving_proto_field_name=True, indent=None, ensure_ascii=False
    )
    return text


def call_main(args: argparse.Namespace) -> int:
    import grpc
    from google.protobuf import json_format, message_factory

    from services.common import wire
    from services.common.grpc_errors import details

    service = args.service
    module_name, service_name, _var = SERVICES[service]
    pb2 = getattr(wire, f"{module_name}_pb2")
    pb2_grpc = getattr(wire, f"{module_name}_pb2_grpc")
    descriptor = pb2.DESCRIPTOR.services_by_name[service_name]
    method = descriptor.methods_by_name.get(args.method)
    if method is None:
        names = ", ".join(sorted(descriptor.methods_by_name))
        return fail(COMMAND, f"{service} has no method {args.method!r}; it has: {names}")
    body = sys.stdin.read() if args.json == "-" else args.json
    request = message_factory.GetMessageClass(method.input_type)()
    try:
        json_format.Parse(body or "{}", request)
    except (json_format.ParseError, ValueError, RecursionError) as exc:
        return fail(COMMAND, f"the body is not a {method.input_type.name}: {exc}")
    target = args.target or default_target(service)
    token = args.token or os.environ.get("CARDROOM_CALL_TOKEN", "")
    metadata = [("authorization", f"Bearer {token}")] if token else []
    with grpc.insecure_channel(target) as channel:
        stub = getattr(pb2_grpc, f"{service_name}Stub")(channel)
        rpc = getattr(stub, method.name)
        try:
            if method.server_streaming:
                for item in rpc(request, metadata=metadata, timeout=args.timeout or None):
                    print(_line(item), flush=True)
            else:
                print(_line(rpc(request, metadata=metadata, timeout=args.timeout or 30.0)))
        except grpc.RpcError as exc:
            d = details(exc)
            if d.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                return fail(COMMAND, f"{service} at {target}: {d.code.name}: {d.message}",
                            status=1)  # fmt: skip
            where = f" ({', '.join(d.fields)})" if d.fields else ""
            return fail(COMMAND, f"{d.code.name} {d.reason or '-'}: {d.message}{where}")
    return 0
