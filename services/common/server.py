"""A gRPC server runner shared by every cardroom service.

A service hands over a :class:`ServiceSpec` (how to register its servicers, and what to do
once in the parent before workers start); this module does the rest, the same way for the
engine and the replay store:

* ``--workers N`` processes (default one per core) listening on one port with SO_REUSEPORT,
  so the kernel spreads connections over them (grpc examples/python/multiprocessing).  Workers
  are *spawned*, never forked: gRPC's core must not be inherited across ``fork``.  A worker
  that dies is restarted.
* ``grpc.health.v1`` health (SERVING once started, or, for a service that registered a
  readiness probe, while the probe says its database answers) and server reflection, so
  grpcurl and load tools work without the .proto files.
* Graceful shutdown on SIGTERM/SIGINT: health goes NOT_SERVING, new calls are refused,
  in-flight calls get ``grace_s`` seconds to finish, and the process exits 0.
* Keepalive and message-size limits, optional TLS, deadlines checked before a handler runs,
  and one structlog line per call (request id, method, status code, latency in ms).

It runs on grpc.aio: each call is a task on one event loop per process, cheaper than the
thread-pool server's hand-off for the short CPU-bound handlers services have here.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.common.reasons import ServiceReason

from . import logging as clog
from . import metrics
from .grpc_errors import invalid, to_status
from .lifetime import die_with_parent
from .settings import ServerSettings

log = clog.get_logger("cardroom.server")

#: Registers a service's servicers on a server and returns their full service names.
Register = Callable[[grpc.aio.Server, ServerSettings], Sequence[str]]
#: Whether a service can do its work (its database answers): health says SERVING only then.
Probe = Callable[[], Awaitable[bool]]
#: How often readiness is probed, in seconds.
READINESS_INTERVAL_S = 2.0
_PROBES: dict[int, list[Probe]] = {}  # id(server) -> the probes its register hook added


class _RequestIds:
    """Ids for the calls that come without an x-request-id: a random prefix per process
    and a count, as unique as a uuid4's hex across processes and restarts.  A uuid4 for
    each call read the kernel's random source, and CPython gives up the GIL for that read:
    on the matchmaker's event loop, beside busy PostgreSQL threads, getting it back was 5%
    of the loop thread's samples at 600 tables (py-spy)."""

    def __init__(self) -> None:
        self.renew()
        os.register_at_fork(after_in_child=self.renew)  # a forked worker has its own

    def renew(self) -> None:
        self._prefix = uuid.uuid4().hex[:16]
        self._count = 0

    def next(self) -> str:
        self._count += 1
        return f"{self._prefix}{self._count:016x}"


_request_ids = _RequestIds()


def add_readiness(server: grpc.aio.Server, probe: Probe) -> None:
    """Make ``server``'s health follow ``probe`` (called from a register hook): SERVING while
    it answers True, NOT_SERVING while it answers False or fails, checked every
    :data:`READINESS_INTERVAL_S`.  The process keeps serving either way."""
    _PROBES.setdefault(id(server), []).append(probe)


async def _ready(probes: Sequence[Probe]) -> bool:
    for probe in probes:
        try:
            if not await probe():
                return False
        except Exception:
            return False
    return True


async def _watch_readiness(
    health_servicer: Any, names: Sequence[str], probes: Sequence[Probe], serving: bool
) -> None:
    while True:
        await asyncio.sleep(READINESS_INTERVAL_S)
        ready = await _ready(probes)
        if ready != serving:
            serving = ready
            log.warning("readiness changed", serving=ready)
            status = health_pb2.HealthCheckResponse.SERVING
            if not ready:
                status = health_pb2.HealthCheckResponse.NOT_SERVING
            for name in ("", *names):
                await health_servicer.set(name, status)


@dataclass(frozen=True)
class ServiceSpec:
    """What the runner needs from a service.  Both callables must be module-level functions:
    they travel to spawned workers by reference."""

    name: str
    register: Register
    #: Runs once, in the parent, before any worker starts (e.g. make a key every worker
    #: shares and put it in ``os.environ``, which spawned workers inherit).
    prepare: Callable[[ServerSettings], None] | None = None


def server_options(settings: ServerSettings, reuse_port: bool) -> list[tuple[str, Any]]:
    return [
        ("grpc.so_reuseport", 1 if reuse_port else 0),
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        ("grpc.keepalive_time_ms", settings.keepalive_time_ms),
        ("grpc.keepalive_timeout_ms", settings.keepalive_timeout_ms),
        # Clients may ping to keep idle connections open, but not more often than this.
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
    ]


# --------------------------------------------------------------------------- access log
class Malformed:
    """Stands in for a request body that does not parse, so the handler wrapper can refuse it
    with INVALID_ARGUMENT (grpc.aio would answer UNKNOWN for a deserializer's exception)."""


def tolerant(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None
    inner = deserialize

    def parse(body: bytes) -> Any:
        try:
            return inner(body)
        except Exception:
            return Malformed()

    return parse


class AccessLog(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc ships no types
    """One log line per call, request ids bound for the handler's own log lines, expired
    deadlines refused before the handler runs, and unexpected exceptions turned into a logged
    INTERNAL (never a bare UNKNOWN)."""

    def __init__(self, enabled: bool = True, service: str = "") -> None:
        self._enabled = enabled
        self._service = service
        self._wrapped: dict[str, grpc.RpcMethodHandler | None] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        method: str = handler_call_details.method
        if method in self._wrapped:  # wrapping is per method, not per call
            cached = self._wrapped[method]
            if cached is not None:
                return cached
        handler = await continuation(handler_call_details)
        wrapped = None
        if handler is not None and handler.unary_unary is not None:
            wrapped = grpc.unary_unary_rpc_method_handler(
                self._wrap(method, handler.unary_unary),
                request_deserializer=tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        elif handler is not None and handler.unary_stream is not None and _ours(method):
            wrapped = grpc.unary_stream_rpc_method_handler(
                self._wrap_stream(method, handler.unary_stream),
                request_deserializer=tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        # Other streaming methods (health Watch, reflection) pass through unwrapped.
        self._wrapped[method] = wrapped
        return wrapped if wrapped is not None else handler

    def _wrap(self, method: str, inner: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            async with self._logged(method, request, context) as outcome:
                await _refuse_early(request, context, outcome)
                result = inner(request, context)
                if asyncio.iscoroutine(result):
                    result = await result
                return result

        return call

    def _wrap_stream(self, method: str, inner: Callable[..., Any]) -> Callable[..., Any]:
        async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            async with self._logged(method, request, context) as outcome:
                await _refuse_early(request, context, outcome)
                async for item in inner(request, context):
                    yield item

        return stream

    @contextlib.asynccontextmanager
    async def _logged(
        self, method: str, request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[_Outcome]:
        """One access-log line for the call (unary or streaming) with its final code; the
        request id bound for the handler's own lines; an unexpected exception becomes a
        logged INTERNAL, never its text (which may hold SQL) sent to the caller."""
        start = time.perf_counter()
        request_id = ""
        for key, value in context.invocation_metadata() or ():
            if key == "x-request-id":
                request_id = str(value)[:64]
                break
        clog.bind_request(request_id=request_id or _request_ids.next(), method=method)
        game_id = getattr(request, "game_id", None)
        if isinstance(game_id, str) and game_id:
            clog.bind_request(game_id=game_id[:64])  # every line of a call names its game
        outcome = _Outcome()
        try:
            yield outcome
        except grpc.aio.AbortError:
            set_code = context.code()
            outcome.code = set_code.name if isinstance(set_code, grpc.StatusCode) else "ABORTED"
            raise
        except (asyncio.CancelledError, GeneratorExit):
            outcome.code = "CANCELLED"
            raise
        except Exception:
            log.exception("unexpected error in handler")
            outcome.code = "INTERNAL"
            await context.abort(grpc.StatusCode.INTERNAL, "internal error; see server log")
        finally:
            elapsed = time.perf_counter() - start
            metrics.observe_call(self._service, method, outcome.code, elapsed)
            if self._enabled:
                log.info("rpc", code=outcome.code, latency_ms=round(elapsed * 1000.0, 3))
            clog.clear_request()


@dataclass
class _Outcome:
    code: str = "OK"


def _ours(method: str) -> bool:
    """cardroom's own methods (streams of the health and reflection services are not)."""
    return method.startswith("/cardroom.")


async def _refuse_early(
    request: Any, context: grpc.aio.ServicerContext[Any, Any], outcome: _Outcome
) -> None:
    """Refuse a call whose deadline already passed, or whose body did not parse."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        outcome.code = "DEADLINE_EXCEEDED"
        await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline expired")
    if isinstance(request, Malformed):
        outcome.code = "INVALID_ARGUMENT"
        err = invalid(ServiceReason.MALFORMED_REQUEST, "the request body is not a valid message")
        await context.abort_with_status(to_status(err))


#: Per server: the ``stop_streams`` of its servicers, called when a graceful stop begins.
_STREAM_STOPPERS: dict[int, list[Callable[[], None]]] = {}


def add_service(server: grpc.aio.Server, service_name: str, servicer: Any) -> str:
    """Register ``servicer``'s methods for the service ``service_name`` (e.g.
    ``cardroom.v1.ReplayService``), built from its descriptor, the same way for every service:
    each method is the servicer's attribute of that name.  Returns the service name.

    A servicer with long-waiting streams has a ``stop_streams()``: at a graceful stop it is
    called first, and each such stream ends itself (UNAVAILABLE SERVER_STOPPING) instead of
    waiting on, to be cancelled by the loop's teardown (grpc logged each as an unhandled
    CancelledError with a traceback)."""
    stop_streams = getattr(servicer, "stop_streams", None)
    if stop_streams is not None:
        _STREAM_STOPPERS.setdefault(id(server), []).append(stop_streams)
    service = descriptor_pool.Default().FindServiceByName(service_name)
    handlers = {}
    for m in service.methods:
        request = message_factory.GetMessageClass(m.input_type)
        response = message_factory.GetMessageClass(m.output_type)
        make = (
            grpc.unary_stream_rpc_method_handler
            if m.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[m.name] = make(
            getattr(servicer, m.name),
            request_deserializer=request.FromString,
            response_serializer=response.SerializeToString,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service_name, handlers),))
    server.add_registered_method_handlers(service_name, handlers)
    return service_name


# --------------------------------------------------------------------------- one worker
def _credentials(settings: ServerSettings) -> grpc.ServerCredentials | None:
    if not settings.tls:
        return None
    key = Path(settings.tls_key).read_bytes()
    cert = Path(settings.tls_cert).read_bytes()
    return grpc.ssl_server_credentials([(key, cert)])


async def run_worker(
    spec: ServiceSpec,
    settings: ServerSettings,
    *,
    reuse_port: bool,
    stop: asyncio.Event,
    on_ready: Callable[[int], None] | None = None,
    freeze_heap: bool = False,
) -> None:
    """Serve until ``stop`` is set, then shut down gracefully.  ``freeze_heap``: this
    process is the service's own (not a test's or tool's, whose heap is theirs)."""
    server = grpc.aio.server(
        interceptors=[AccessLog(settings.access_log, spec.name)],
        options=server_options(settings, reuse_port),
        maximum_concurrent_rpcs=settings.max_concurrent_rpcs,
    )
    names = list(spec.register(server, settings))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    creds = _credentials(settings)
    if creds is None:
        port = server.add_insecure_port(settings.address)
    else:
        port = server.add_secure_port(settings.address, creds)
    await server.start()
    if freeze_heap:
        # Everything made at start-up (modules, descriptors, servicers, pools: most of the
        # heap) lives as long as the process: kept out of the collector's full passes, which
        # otherwise stop the event loop, and so every call in flight, for 20-45 ms now and
        # then (a p99 source measured in the engine and the matchmaker alike).
        gc.collect()
        gc.freeze()
    if not reuse_port:  # the only worker: it serves its own metrics (several: the parent does)
        metrics.serve_here(settings.metrics_port, settings.host)
    probes = _PROBES.pop(id(server), [])
    ready = await _ready(probes)
    for name in ("", *names):
        status = health_pb2.HealthCheckResponse.SERVING
        if not ready:
            status = health_pb2.HealthCheckResponse.NOT_SERVING
        await health_servicer.set(name, status)
    watcher = None
    if probes:
        watcher = asyncio.create_task(_watch_readiness(health_servicer, names, probes, ready))
    log.info(
        "serving",
        service=spec.name,
        address=settings.replace(port=port).address,
        tls=settings.tls,
        pid=os.getpid(),
    )
    if on_ready is not None:
        on_ready(port)
    await stop.wait()
    if watcher is not None:
        watcher.cancel()
    log.info("shutting down", service=spec.name, grace_s=settings.grace_s, pid=os.getpid())
    # NOT_SERVING first, so load balancers steer new calls away while in-flight ones finish.
    await health_servicer.enter_graceful_shutdown()
    # Streams that wait for news (a seat's table events, a followed game) end now, telling
    # their clients to resume elsewhere; then the calls in flight get the grace to finish.
    for stop_streams in _STREAM_STOPPERS.pop(id(server), []):
        stop_streams()
    await server.stop(settings.grace_s)
    log.info("stopped", service=spec.name, pid=os.getpid())


async def _serve_until_signal(
    spec: ServiceSpec, settings: ServerSettings, reuse_port: bool
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await run_worker(spec, settings, reuse_port=reuse_port, stop=stop, freeze_heap=True)


def _worker_main(spec: ServiceSpec, settings: ServerSettings, supervisor: int) -> None:
    if not die_with_parent(supervisor):
        return  # the supervisor died while this worker started: nobody would stop it
    clog.configure(settings.log_level, settings.log_format)
    asyncio.run(_serve_until_signal(spec, settings, reuse_port=True))


# --------------------------------------------------------------------------- the runner
def serve(spec: ServiceSpec, settings: ServerSettings) -> int:
    """Run ``spec`` with ``settings.workers`` processes until SIGTERM/SIGINT; exit status."""
    clog.configure(settings.log_level, settings.log_format)
    if spec.prepare is not None:
        spec.prepare(settings)
    workers = settings.resolved_workers()
    if workers == 1:
        asyncio.run(_serve_until_signal(spec, settings, reuse_port=False))
        return 0
    close_metrics = None
    if settings.metrics_port:
        close_metrics = metrics.serve_for_workers(settings.metrics_port, settings.host)
    try:
        return _supervise(spec, settings, workers)
    finally:
        if close_metrics is not None:
            close_metrics()


def _reserve_port(settings: ServerSettings) -> tuple[socket.socket, int]:
    """Port 0 with several workers: pick one port here for all of them.  The socket is bound
    with SO_REUSEPORT but never listens, so it holds the port without taking connections."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    holder = socket.socket(family, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    holder.bind((settings.host, 0))
    return holder, holder.getsockname()[1]


def _supervise(spec: ServiceSpec, settings: ServerSettings, workers: int) -> int:
    holder: socket.socket | None = None
    if settings.port == 0:
        holder, port = _reserve_port(settings)
        settings = settings.replace(port=port)
    ctx = multiprocessing.get_context("spawn")
    stopping = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def start() -> multiprocessing.process.BaseProcess:
        proc = ctx.Process(
            target=_worker_main, args=(spec, settings, os.getpid()), name=f"{spec.name}-worker"
        )
        proc.start()
        return proc

    procs = [start() for _ in range(workers)]
    log.info("supervising", service=spec.name, address=settings.address, workers=workers)
    restarts: list[float] = []
    while not stopping.wait(0.2):
        for i, proc in enumerate(procs):
            if proc.is_alive() or stopping.is_set():
                continue
            # Restart a crashed worker, but give up on a crash loop rather than spin.
            now = time.monotonic()
            restarts = [t for t in restarts if now - t < 60] + [now]
            log.error("worker died", pid=proc.pid, exitcode=proc.exitcode, restarts=len(restarts))
            if len(restarts) > 5 * workers:
                log.error("workers keep dying; stopping")
                stopping.set()
                break
            procs[i] = start()
    if holder is not None:
        holder.close()
    for proc in procs:
        if proc.is_alive() and proc.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + settings.grace_s + 3.0
    status = 0
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            log.error("worker did not stop in time; killing it", pid=proc.pid)
            proc.kill()
            proc.join()
            status = 1
        elif proc.exitcode not in (0, -signal.SIGTERM):
            status = 1
    log.info("stopped", service=spec.name, workers=workers, status=status)
    return status


# --------------------------------------------------------------------------- in-process
class BackgroundServer:
    """One worker on its own event loop in a thread of this process: for tests and tools
    that need a real server on port 0 next to their client.

        with BackgroundServer(spec, settings.replace(port=0)) as server:
            channel = grpc.insecure_channel(server.target)
    """

    def __init__(self, spec: ServiceSpec, settings: ServerSettings) -> None:
        self.spec = spec
        self.settings = settings
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"{spec.name}-server", daemon=True)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await run_worker(
                self.spec, self.settings, reuse_port=False, stop=self._stop, on_ready=self._on_ready
            )

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported to the thread that waits in start()
            self._error = exc
            self._ready.set()

    def _on_ready(self, port: int) -> None:
        self.port = port
        self._ready.set()

    def start(self) -> BackgroundServer:
        clog.configure(self.settings.log_level, self.settings.log_format)
        if self.spec.prepare is not None:
            self.spec.prepare(self.settings)
        self._thread.start()
        if not self._ready.wait(30) or self._error is not None:
            raise RuntimeError(f"server did not start: {self._error!r}")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(self.settings.grace_s + 5)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
