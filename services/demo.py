"""``make run``: migrate the local store, start every service on localhost, and show how to
call them.

Each service runs as its own ``cardroom <service> serve`` process (one worker each unless
``CARDROOM_<SERVICE>_WORKERS`` says otherwise).  The services are the entries of
:data:`SERVICES` (engine, replay, matchmaker).  In order:

1. Settings come from the environment (``CARDROOM_ENGINE_PORT``, default 50051;
   ``CARDROOM_REPLAY_PORT``, 50052; ``CARDROOM_MATCHMAKER_PORT``, 50053; the store from
   ``CARDROOM_DATABASE_URL``, default a SQLite file under ``CARDROOM_DATA_DIR``, ./data).  A
   port that is taken is reported in one line — which port, which variable to set — and
   nothing starts (exit 1).  The matchmaker calls the engine and replay started beside it.
2. The store is migrated, then the services start.
3. The banner prints once every port answers a gRPC health check with SERVING; a service
   that exits or does not answer within :data:`READY_TIMEOUT_S` stops the others (exit 1).
4. SIGTERM to this process (a supervisor, ``docker stop``) or SIGINT (Ctrl-C reaches the
   whole process group) stops every service gracefully; one that outlives its grace is
   killed.  On Linux the services also get SIGTERM should this process die without a
   chance to stop them (``PR_SET_PDEATHSIG``).

No replay or engine tokens are configured unless the environment sets them, so the services
allow every call (and log a warning saying so).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType

from services.common.lifetime import die_with_parent
from services.common.settings import ServerSettings, SettingsError, from_env

#: Seconds the services get to answer health checks after they start.
READY_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Service:
    """One service ``make run`` starts: ``cardroom <name> serve``, health-checked as
    ``health_name``."""

    name: str
    health_name: str
    #: Runs once before any service starts (the replay store's migration); a one-line
    #: reason for refusing to go on, or None.
    prepare: Callable[[], str | None] | None = None

    @property
    def port_variable(self) -> str:
        return f"CARDROOM_{self.name.upper()}_PORT"


def _migrate() -> str | None:
    from services.common.db import default_url
    from services.common.migrate import upgrade

    url = default_url()
    try:
        upgrade(url)
    except Exception as exc:  # an unreachable server, a bad URL, a read-only directory
        return f"cannot migrate {url}: {' '.join(str(exc).split())[:200]}"
    return None


SERVICES: list[Service] = [
    Service("engine", "cardroom.v1.EngineService"),
    Service("replay", "cardroom.v1.ReplayService", prepare=_migrate),
    Service("matchmaker", "cardroom.v1.MatchmakerService"),
]


#: The browser's back end (``cardroom web serve``): started once the gRPC services answer,
#: health-checked over HTTP, stopped with them.  Not in SERVICES: it speaks HTTP, not gRPC.
WEB_PORT_VARIABLE = "CARDROOM_WEB_PORT"
WEB_DEFAULT_PORT = 8080


def web_port() -> int:
    """``CARDROOM_WEB_PORT`` (8080); SettingsError naming the variable when it is no port."""
    text = os.environ.get(WEB_PORT_VARIABLE, "") or str(WEB_DEFAULT_PORT)
    if not text.isdigit() or not 0 < int(text) <= 65535:
        raise SettingsError(f"{WEB_PORT_VARIABLE}={text!r}: make run needs a port from 1 to 65535")
    return int(text)


def start_web(port: int, peers: dict[str, str]) -> subprocess.Popen[bytes]:
    env = dict(os.environ) | {WEB_PORT_VARIABLE: str(port)}
    for key, value in peers.items():
        env.setdefault(key, value)
    return subprocess.Popen(
        [sys.executable, "-m", "services", "web", "serve"],
        env=env,
        preexec_fn=die_with_parent if sys.platform == "linux" else None,
    )


def web_serving(port: int, timeout: float = 1.0) -> bool:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
            return bool(r.status == 200)
    except (OSError, urllib.error.URLError):
        return False


def say(message: str) -> None:
    print(f"make run: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- ports
def port_taken(settings: ServerSettings) -> bool:
    """Whether something already listens on (or holds) the service's address."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # SO_REUSEADDR, as the gRPC server sets it: a port in TIME_WAIT is not taken.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((settings.host, settings.port))
        except OSError:
            return True
    return False


def check_ports(services: Sequence[Service], settings: Sequence[ServerSettings]) -> str | None:
    """A one-line reason why the services cannot have their ports, or None."""
    seen: dict[int, Service] = {}
    for service, s in zip(services, settings, strict=True):
        if s.port == 0:
            return f"{service.port_variable}=0: make run needs a fixed port for the {service.name}"
        if s.port in seen:
            other = seen[s.port]
            return (
                f"the {service.name} and the {other.name} both want port {s.port}; "
                f"set {service.port_variable} to another port"
            )
        seen[s.port] = service
        if port_taken(s):
            return (
                f"port {s.port} ({service.name}) is taken by another process; stop it or set "
                f"{service.port_variable} to a free port"
            )
    return None


# --------------------------------------------------------------------------- processes
def start(service: Service, peers: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``cardroom <service> serve``; ``peers`` are the CARDROOM_*_ADDR of the services it
    calls (the matchmaker calls the engine and replay started beside it)."""
    env = dict(os.environ)
    for key, value in (peers or {}).items():
        env.setdefault(key, value)
    env.setdefault(f"CARDROOM_{service.name.upper()}_WORKERS", "1")  # plenty for a try-out
    return subprocess.Popen(
        [sys.executable, "-m", "services", service.name, "serve"],
        env=env,
        # SIGTERM when this process dies, so not even a SIGKILL to ``make run`` leaves a
        # service behind.
        preexec_fn=die_with_parent if sys.platform == "linux" else None,
    )


def serving(settings: ServerSettings, health_name: str, timeout: float = 1.0) -> bool:
    """Whether the service's port answers a gRPC health check with SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    host = "127.0.0.1" if settings.host in ("0.0.0.0", "") else settings.host
    host = "[::1]" if host == "::" else (f"[{host}]" if ":" in host else host)
    target = f"{host}:{settings.port}"
    if settings.tls:
        with open(settings.tls_cert, "rb") as f:
            creds = grpc.ssl_channel_credentials(root_certificates=f.read())
        channel = grpc.secure_channel(target, creds)
    else:
        channel = grpc.insecure_channel(target)
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=health_name), timeout=timeout)
        except grpc.RpcError:
            return False
    return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def stop_all(procs: Sequence[subprocess.Popen[bytes]], grace_s: float) -> None:
    """SIGTERM to every service still running, then wait; kill one that outlives its grace."""
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace_s + 5.0
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def banner(settings: dict[str, ServerSettings], url: str, web: int | None = None) -> str:
    e, r = settings["engine"].address, settings["replay"].address
    m = settings["matchmaker"].address if "matchmaker" in settings else "127.0.0.1:50053"
    where = ", ".join(f"{name} service on {s.address}" for name, s in settings.items())
    browser = (
        f"Play in a browser: http://127.0.0.1:{web}/  (a stored game: "
        f"http://127.0.0.1:{web}/games/GAME_ID)\n"
        if web
        else ""
    )
    return f"""cardroom {where} (store: {url})
{browser}Ctrl-C stops them all.

Play a game against two bots (another terminal):
  .venv/bin/cardroom play --matchmaker {m}

Call any RPC with a JSON body (grpcurl works too, through server reflection):
  .venv/bin/cardroom call engine Classify '{{"variant": "ddz3", "cards": "3s3h3d4c"}}' --target {e}
  .venv/bin/cardroom simulate -v ddz3 -n 20 --records /tmp/games.jsonl
  .venv/bin/cardroom replay import /tmp/games.jsonl        # into the same store
  .venv/bin/cardroom call replay ListGames '{{"page_size": 3}}' --target {r}
  .venv/bin/cardroom call replay VerifyGame '{{"game_id": "…"}}' --target {r}
  .venv/bin/cardroom replay watch GAME_ID --replay {r}    # step through it, event by event
  .venv/bin/cardroom replay show GAME_ID

A whole game against two bots, through the matchmaker (the seat's stream on stdout):
  .venv/bin/cardroom matchmaker play -t {m} -v ddz3 --player alice --auto
  .venv/bin/cardroom matchmaker play -t {m} -v ddz3 --player alice     # you type the moves

or from Python:
  .venv/bin/python -c "import grpc; from cardroom.v1 import replay_pb2 as m, \\
replay_pb2_grpc as g; print(g.ReplayServiceStub(grpc.insecure_channel('{r}'))\\
.ListGames(m.ListGamesRequest(page_size=3)))"
"""


# --------------------------------------------------------------------------- main
def main(services: Sequence[Service] = SERVICES, with_web: bool = True) -> int:
    try:
        settings = [from_env(s.name) for s in services]
        web = web_port() if with_web and any(s.name == "matchmaker" for s in services) else None
    except SettingsError as exc:
        say(str(exc))
        return 2
    reason = check_ports(services, settings)
    if reason is None and web is not None and port_taken(settings[0].replace(port=web)):
        reason = (f"port {web} (web) is taken by another process; stop it or set "
                  f"{WEB_PORT_VARIABLE} to a free port")  # fmt: skip
    if reason is not None:
        say(reason)
        return 1

    # From here on SIGTERM and SIGINT only ask to stop: every path below ends in stop_all.
    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    for s in services:
        reason = s.prepare() if s.prepare is not None else None
        if reason is not None:
            say(reason)
            return 2
        if stopping.is_set():
            return 0
    procs: list[subprocess.Popen[bytes]] = []
    status = 0
    try:
        named_settings = {s.name: settings[i] for i, s in enumerate(services)}
        peers = {
            f"CARDROOM_{name.upper()}_ADDR": f"127.0.0.1:{named_settings[name].port}"
            for name in ("engine", "replay")
            if name in named_settings
        }
        procs = [start(s, peers) for s in services]
        waiting = dict(enumerate(services))
        deadline = time.monotonic() + READY_TIMEOUT_S
        while waiting and not stopping.is_set():
            for i, s in list(waiting.items()):
                if procs[i].poll() is not None:
                    say(f"the {s.name} service exited (status {procs[i].returncode}) on start")
                    return 1
                if serving(settings[i], s.health_name, timeout=0.5):
                    del waiting[i]
            if waiting and time.monotonic() > deadline:
                names = ", ".join(s.name for s in waiting.values())
                say(f"no health answer from the {names} service in {READY_TIMEOUT_S:.0f} s")
                return 1
            stopping.wait(0.1)
        if stopping.is_set():
            return 0
        if web is not None:
            procs.append(start_web(web, {
                "CARDROOM_MATCHMAKER_ADDR": f"127.0.0.1:{named_settings['matchmaker'].port}",
                **peers,
            }))  # fmt: skip
            while not web_serving(web, timeout=0.5) and not stopping.is_set():
                if procs[-1].poll() is not None or time.monotonic() > deadline:
                    say(f"the web server did not start on port {web}")
                    return 1
                stopping.wait(0.1)
        if stopping.is_set():
            return 0
        from services.common.db import default_url

        named = {s.name: settings[i] for i, s in enumerate(services)}
        print(banner(named, default_url(), web), flush=True)
        while not stopping.wait(0.2):
            for i, p in enumerate(procs):
                if p.poll() is not None:
                    name = services[i].name if i < len(services) else "web"
                    say(f"the {name} service stopped (status {p.returncode})")
                    status = 1
                    stopping.set()
        return status
    finally:
        say("stopping the services")
        stop_all(procs, max(s.grace_s for s in settings))


if __name__ == "__main__":
    sys.exit(main())
