"""``cardroom web serve``: the page, the seat relay over a WebSocket and the replay viewer.

aiohttp serves all three from one asyncio process: plain files (no build step, no CDN), a
cookie that names the browser's player, a WebSocket per open page relayed to the matchmaker
(:mod:`services.web.relay`) and JSON for the viewer (:mod:`services.web.viewer`).

Configuration: ``--port`` / ``CARDROOM_WEB_PORT`` (8080), ``--host`` / ``CARDROOM_WEB_HOST``
(127.0.0.1), the matchmaker and replay from ``CARDROOM_MATCHMAKER_ADDR`` /
``CARDROOM_REPLAY_ADDR`` as every client takes them, the back end's tokens from
``CARDROOM_WEB_MATCHMAKER_TOKEN`` (a matchmaker back-end token) and
``CARDROOM_WEB_REPLAY_TOKEN`` (a replay auditor token), the bots' think time at its tables
from ``CARDROOM_WEB_BOT_THINK_MS`` (else the matchmaker's default), the cookie key from
``CARDROOM_WEB_COOKIE_KEY`` or a file made in ``CARDROOM_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from services.client import render
from services.common.settings import DEFAULT_PORTS

from .identity import COOKIE, Identities, Identity, data_dir
from .relay import Backend, BadCommand, SeatRelay
from .viewer import ViewerError, load_game

STATIC = Path(__file__).parent / "static"
DEFAULT_PORT = 8080
BACKEND: web.AppKey[Backend] = web.AppKey("backend", Backend)
IDS: web.AppKey[Identities] = web.AppKey("identities", Identities)
#: The open seat sockets.  A stopping server closes them "going away" (1001): each page
#: says it is reconnecting and comes back to whatever serves next, and the stop does not
#: wait out the shutdown timeout for every open page.
SOCKETS: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("sockets", set)
#: Longest browser message read (a play of every card is well under it).
MAX_MESSAGE = 8192
COOKIE_AGE_S = 400 * 86_400


def identity_of(request: web.Request) -> Identity | None:
    return request.app[IDS].load(request.cookies.get(COOKIE))


def with_cookie(request: web.Request, response: web.StreamResponse, who: Identity) -> None:
    response.set_cookie(COOKIE, request.app[IDS].dump(who), max_age=COOKIE_AGE_S,
                        httponly=True, samesite="Strict", path="/")  # fmt: skip


def page(name: str) -> web.FileResponse:
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


async def index(request: web.Request) -> web.StreamResponse:
    response = page("index.html")
    who = identity_of(request)
    if who is None:
        with_cookie(request, response, Identities.guest())
    return response


async def me(request: web.Request) -> web.Response:
    who = identity_of(request)
    if who is None:
        who = Identities.guest()
        response = web.json_response({"player": who.player})
        with_cookie(request, response, who)
        return response
    return web.json_response({"player": who.player})


def refused(status: int, reason: str, message: str) -> web.Response:
    return web.json_response({"ok": False, "reason": reason, "message": message}, status=status)


async def set_name(request: web.Request) -> web.Response:
    """Play as a chosen name: granted to the first browser that takes it, and to it only."""
    who = identity_of(request)
    if who is None:
        return refused(401, "NO_IDENTITY", "open the page first: it gives this browser an id")
    try:
        body = await request.json()
        name = body["name"]
        if not isinstance(name, str):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return refused(400, "INVALID_FIELD", 'send {"name": "…"}')
    why = request.app[IDS].claim(who, name.strip())
    if why is not None:
        return refused(409 if "taken" in why else 400, "NAME_TAKEN" if "taken" in why else
                       "INVALID_FIELD", why)  # fmt: skip
    response = web.json_response({"ok": True, "player": name.strip()})
    with_cookie(request, response, Identity(who.browser, name.strip()))
    return response


async def words(request: web.Request) -> web.Response:
    lang = request.match_info["lang"]
    if lang not in render.LANGS:
        return refused(404, "NOT_FOUND", f"languages: {', '.join(render.LANGS)}")
    return web.json_response(render.web_words(lang))


async def socket(request: web.Request) -> web.StreamResponse:
    """The seat relay: commands in, the seat's stream and answers out (JSON)."""
    who = identity_of(request)
    if who is None:
        return refused(401, "NO_IDENTITY", "open the page first: it gives this browser an id")
    ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    lock = asyncio.Lock()

    async def send(msg: dict[str, Any]) -> None:
        if ws.closed:
            return
        async with lock:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(json.dumps(msg, ensure_ascii=False))

    relay = SeatRelay(request.app[BACKEND], who.player, send)
    request.app[SOCKETS].add(ws)
    try:
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                continue
            await handle(relay, frame.data, send)
    finally:
        request.app[SOCKETS].discard(ws)
        await relay.close()
    return ws


async def handle(relay: SeatRelay, text: str, send: Any) -> None:
    """One browser message: a malformed one is answered with why, never dropped silently."""
    msg_id: Any = None
    try:
        msg = json.loads(text)
        if not isinstance(msg, dict):
            raise BadCommand("a message is a JSON object")
        msg_id = msg.get("id")
        if msg.get("op") == "hello":
            after = msg.get("after_seq", 0)
            if isinstance(after, bool) or not isinstance(after, int) or after < 0:
                raise BadCommand("after_seq must be a whole number ≥ 0")
            await relay.hello(after)
            answer: dict[str, Any] = {"ok": True}
        else:
            answer = await relay.command(msg)
    except (ValueError, BadCommand) as exc:
        answer = {"ok": False, "code": "INVALID_ARGUMENT", "reason": "INVALID_FIELD",
                  "say": {lang: str(exc) for lang in render.LANGS}}  # fmt: skip
    except Exception as exc:  # a matchmaker that is down: say so, keep the socket
        import grpc

        if not isinstance(exc, grpc.RpcError):
            raise
        answer = {"ok": False, "code": "UNAVAILABLE", "reason": "UNAVAILABLE",
                  "say": {lang: render.unreachable_text(relay.b.matchmaker)
                          for lang in render.LANGS}}  # fmt: skip
    await send({"t": "answer", "id": msg_id, **answer})


async def viewer_page(request: web.Request) -> web.StreamResponse:
    return page("viewer.html")


async def viewer_data(request: web.Request) -> web.Response:
    seat_arg = request.query.get("seat", "")
    seat: int | None = None
    if seat_arg:
        if not seat_arg.isdigit() or int(seat_arg) > 3:
            return refused(400, "INVALID_FIELD", "seat must be 0 to 3")
        seat = int(seat_arg)
    try:
        game = await load_game(request.app[BACKEND], request.match_info["game_id"], seat)
    except ViewerError as exc:
        return refused(exc.status, exc.reason, exc.message)
    return web.json_response(game)


async def health(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


def make_app(backend: Backend, identities: Identities) -> web.Application:
    app = web.Application(client_max_size=64 * 1024)
    app[BACKEND] = backend
    app[IDS] = identities
    app.router.add_get("/", index)
    app.router.add_get("/api/me", me)
    app.router.add_post("/api/name", set_name)
    app.router.add_get("/words/{lang}.json", words)
    app.router.add_get("/ws", socket)
    app.router.add_get("/games/{game_id}", viewer_page)
    app.router.add_get("/api/games/{game_id}", viewer_data)
    app.router.add_get("/healthz", health)
    app.router.add_static("/static/", STATIC)

    app[SOCKETS] = set()

    async def going_away(app: web.Application) -> None:
        sockets = app[SOCKETS]
        closes = [ws.close(code=WSCloseCode.GOING_AWAY, message=b"server stopping")
                  for ws in list(sockets)]  # fmt: skip
        await asyncio.gather(*closes, return_exceptions=True)

    async def closing(_app: web.Application) -> None:
        await backend.close()

    app.on_shutdown.append(going_away)
    app.on_cleanup.append(closing)
    return app


def backend_from_env() -> Backend:
    return Backend(
        matchmaker=os.environ.get("CARDROOM_MATCHMAKER_ADDR")
        or f"127.0.0.1:{DEFAULT_PORTS['matchmaker']}",
        replay=os.environ.get("CARDROOM_REPLAY_ADDR") or f"127.0.0.1:{DEFAULT_PORTS['replay']}",
        matchmaker_token=os.environ.get("CARDROOM_WEB_MATCHMAKER_TOKEN", ""),
        replay_token=os.environ.get("CARDROOM_WEB_REPLAY_TOKEN", ""),
        bot_think_ms=bot_think_ms(),
    )


def bot_think_ms() -> int | None:
    """``CARDROOM_WEB_BOT_THINK_MS``: how long bots seem to think at this site's tables."""
    text = os.environ.get("CARDROOM_WEB_BOT_THINK_MS", "")
    if not text:
        return None
    if not text.isdigit() or int(text) > 60_000:
        raise ValueError(f"CARDROOM_WEB_BOT_THINK_MS={text!r} is not 0 to 60000 ms")
    return int(text)


def port_of(args: argparse.Namespace) -> int:
    if getattr(args, "port", None) is not None:
        return int(args.port)
    text = os.environ.get("CARDROOM_WEB_PORT", "")
    if not text:
        return DEFAULT_PORT
    if not text.isdigit() or int(text) > 65535:
        raise ValueError(f"CARDROOM_WEB_PORT={text!r} is not a port (0 to 65535)")
    return int(text)


def serve_main(args: argparse.Namespace) -> int:
    from services.common.console import fail

    try:
        port = port_of(args)
        bot_think_ms()
    except ValueError as exc:
        return fail("web serve", str(exc))
    host = getattr(args, "host", None) or os.environ.get("CARDROOM_WEB_HOST", "127.0.0.1")

    async def build() -> web.Application:
        return make_app(backend_from_env(), Identities(data_dir()))

    def ready(*_a: Any) -> None:
        print(f"cardroom web: serving on http://{host}:{port}/", file=sys.stderr, flush=True)

    try:
        web.run_app(build(), host=host, port=port, print=ready, access_log=None,
                    handle_signals=True, shutdown_timeout=5.0)  # fmt: skip
    except OSError as exc:
        return fail("web serve", f"cannot listen on {host}:{port}: {exc.strerror or exc}", 1)
    return 0
