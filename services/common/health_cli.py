"""``cardroom health``: ask the engine, replay and matchmaker services' ``grpc.health.v1``
whether they are SERVING (one JSON line per service on stdout).  Exit 0 when every service
asked is SERVING, 1 when one is not or does not answer, 2 on bad input.  Usable as a container
health check or a Kubernetes exec probe (``cardroom health --only engine``)."""

from __future__ import annotations

import argparse
import json
import os
import re

from .console import fail
from .settings import DEFAULT_PORTS

#: Where each service is, by default: CARDROOM_<SERVICE>_ADDR, else localhost on its port.
SERVICES = ("engine", "replay", "matchmaker")
ADDR_ENV = {name: f"CARDROOM_{name.upper()}_ADDR" for name in SERVICES}
_ADDRESS = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.\-]+):(\d{1,5})$")


def default_address(service: str) -> str:
    return os.environ.get(ADDR_ENV[service], "").strip() or f"127.0.0.1:{DEFAULT_PORTS[service]}"


def check(address: str, timeout: float) -> str:
    """The health status name of the server at ``address`` ("UNREACHABLE" when none answers)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code()
            return "UNREACHABLE" if code == grpc.StatusCode.UNAVAILABLE else str(code.name)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))


def health_main(args: argparse.Namespace) -> int:
    names = args.only or list(SERVICES)
    if not 0 < args.timeout <= 60:
        return fail("health", "--timeout must be more than 0 and at most 60 seconds")
    addresses = {}
    for name in names:
        address = getattr(args, name) or default_address(name)
        m = _ADDRESS.match(address)
        if m is None or not 0 < int(m.group(2)) < 65536:
            return fail("health", f"{name} address {address!r} is not HOST:PORT")
        addresses[name] = address
    healthy = True
    for name, address in addresses.items():
        status = check(address, args.timeout)
        healthy = healthy and status == "SERVING"
        print(json.dumps({"service": name, "address": address, "status": status}), flush=True)
    return 0 if healthy else 1
