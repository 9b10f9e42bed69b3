"""Server settings: command-line flags over ``CARDROOM_*`` environment variables over safe
defaults.

Every service server (engine, replay, …) reads the same :class:`ServerSettings`; the service
name picks its own port variable (``CARDROOM_ENGINE_PORT``, ``CARDROOM_REPLAY_PORT``) so
several services can run side by side from one environment.  Defaults are safe: localhost
only, no TLS unless both a certificate and a key are given, bounded message sizes.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import ssl
from collections.abc import Mapping
from typing import Any

DEFAULT_PORTS = {"engine": 50051, "replay": 50052, "matchmaker": 50053}
#: Services whose bound on concurrent calls differs from ServerSettings'.  Every seated
#: person holds a matchmaker Subscribe stream for the whole table, and gRPC counts a stream
#: as a call: at 1,000 the 600 tables of issue 29's bench refused streams and Acts alike
#: (RESOURCE_EXHAUSTED).  An idle stream costs a waiter, not a thread: the bound is there
#: for a flood of calls, and two streams a person (a terminal and a browser) at 4,000 tables
#: still fit.
DEFAULT_MAX_CONCURRENT_RPCS = {"matchmaker": 10_000}
#: Where a service keeps its files unless ``CARDROOM_DATA_DIR`` says otherwise.
DEFAULT_DATA_DIR = "data"


class SettingsError(ValueError):
    """A setting that cannot be used; names the variable or flag."""


@dataclasses.dataclass(frozen=True)
class ServerSettings:
    service: str = "engine"
    host: str = "127.0.0.1"
    port: int = 50051
    #: Worker processes sharing the port (SO_REUSEPORT); 0 means one per core.
    workers: int = 0
    #: Seconds in-flight calls get to finish after SIGTERM before they are cancelled.
    grace_s: float = 5.0
    max_message_bytes: int = 4 * 1024 * 1024
    keepalive_time_ms: int = 30_000
    keepalive_timeout_ms: int = 10_000
    #: Bound on concurrent calls per worker, so overload queues in the client, not here.
    max_concurrent_rpcs: int = 1000
    tls_cert: str = ""
    tls_key: str = ""
    log_level: str = "info"
    #: "auto" (JSON unless stderr is a terminal), "json" or "console".
    log_format: str = "auto"
    #: One log line per call; switchable for benchmarks of the bare transport.
    access_log: bool = True
    #: Prometheus metrics over HTTP on this port (services/common/metrics.py); 0: none.
    metrics_port: int = 0

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def tls(self) -> bool:
        return bool(self.tls_cert and self.tls_key)

    def resolved_workers(self) -> int:
        return self.workers if self.workers > 0 else max(1, os.cpu_count() or 1)

    def replace(self, **changes: Any) -> ServerSettings:
        return dataclasses.replace(self, **changes)


def _env_name(service: str, field: str) -> list[str]:
    # A service-specific variable wins over the shared one: CARDROOM_ENGINE_PORT, then
    # CARDROOM_PORT.
    return [f"CARDROOM_{service.upper()}_{field.upper()}", f"CARDROOM_{field.upper()}"]


def _convert(name: str, raw: str, kind: type) -> Any:
    try:
        if kind is bool:
            low = raw.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(raw)
        return kind(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a valid {kind.__name__}") from None


def from_env(service: str, environ: Mapping[str, str] | None = None) -> ServerSettings:
    """The settings of ``service`` from the environment, defaults for what is unset."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {
        "service": service,
        "port": DEFAULT_PORTS.get(service, 50051),
        "max_concurrent_rpcs": DEFAULT_MAX_CONCURRENT_RPCS.get(
            service, ServerSettings.max_concurrent_rpcs
        ),
    }
    for field in dataclasses.fields(ServerSettings):
        if field.name == "service":
            continue
        kind = type(getattr(ServerSettings(), field.name))
        for name in _env_name(service, field.name):
            if name in env:
                values[field.name] = _convert(name, env[name], kind)
                break
    settings = ServerSettings(**values)
    validate(settings)
    return settings


def from_args(service: str, args: argparse.Namespace) -> ServerSettings:
    """Environment settings with the flags that were given applied on top."""
    settings = from_env(service)
    names = {f.name for f in dataclasses.fields(ServerSettings)}
    given = {k: v for k, v in vars(args).items() if k in names and v is not None}
    settings = settings.replace(**given)
    validate(settings)
    return settings


def _check_tls_pair(cert: str, key: str) -> None:
    """Load the pair as the standard library's TLS would, so a file that is not PEM (or a key
    that does not match its certificate) is named now, not found by gRPC's bind as a bare
    "Failed to bind" in every worker."""
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except ssl.SSLError as exc:
        raise SettingsError(
            f"TLS certificate {cert!r} and key {key!r} are not a PEM certificate and its "
            f"private key ({exc.reason or exc})"
        ) from None
    except OSError as exc:
        raise SettingsError(f"TLS files cannot be read: {exc.strerror}: {exc.filename!r}") from None


def validate(s: ServerSettings) -> None:
    if not 0 <= s.port <= 65535:
        raise SettingsError(f"port {s.port} is out of range 0–65535")
    if not 0 <= s.metrics_port <= 65535:
        raise SettingsError(f"metrics port {s.metrics_port} is out of range 0–65535")
    if s.metrics_port and s.metrics_port == s.port:
        raise SettingsError("the metrics port must differ from the gRPC port")
    if not 0 <= s.workers <= 256:
        raise SettingsError("workers must be 0–256 (0 = one per core)")
    if not 0 <= s.grace_s <= 3600:  # NaN fails this too
        raise SettingsError("the shutdown grace must be 0–3600 seconds")
    if s.max_message_bytes < 1024:
        raise SettingsError("max_message_bytes must be at least 1024")
    if bool(s.tls_cert) != bool(s.tls_key):
        raise SettingsError("TLS needs both CARDROOM_TLS_CERT and CARDROOM_TLS_KEY")
    for path in (s.tls_cert, s.tls_key):
        if path and not os.path.isfile(path):
            raise SettingsError(f"TLS file {path!r} does not exist")
    if s.tls_cert and s.tls_key:
        _check_tls_pair(s.tls_cert, s.tls_key)
    if s.log_level.lower() not in ("debug", "info", "warning", "error", "critical"):
        raise SettingsError("log level must be debug, info, warning or error")
    if s.log_format not in ("auto", "json", "console"):
        raise SettingsError("log format must be auto, json or console")
