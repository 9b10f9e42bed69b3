"""Web benchmark: browser sessions on one ``cardroom web serve`` process, driven by a
WebSocket client (not browsers), and the relay's cost on top of the matchmaker's.

* Engine, replay and matchmaker run as their own processes (one worker each) on a fresh
  SQLite store; one web process relays every session.
* Each session is a browser's: it gets its cookie, opens the WebSocket, starts a doudizhu3
  table against two bots and plays its own turns (the hint, then that move) for the run.
* For every command the back end answers with ``upstream_ms``, the time it waited on the
  matchmaker; the relay's cost is the command's round trip at the client minus that.
  Goal (issue 26): its p99 under 50 ms with 200 sessions; the page's first load under 200 KB.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .common import Context, Table, progress
from .engine_bench import _free_port, _wait_healthy
from .matchmaker_bench import cpu_s, replay_url, services

SESSIONS = 200
CLIENTS = 4
#: Seconds over which the sessions arrive, as browsers would, not all in one instant.
RAMP_S = 5.0
#: The commands by what they are to a player.
KINDS = {"play": "moves", "pass": "moves", "bid": "moves", "hint": "hint"}
RUN_S = 40.0
RELAY_P99_GOAL_MS = 50.0
PAGE_GOAL_KB = 200.0
#: The bots' think time at the web's tables: 200 tables then make ~100 bot moves a second,
#: a load the one-worker matchmaker carries on a small machine.
BOT_THINK_MS = 2000
STATIC = Path(__file__).resolve().parents[1] / "services" / "web" / "static"


def page_weight_kb() -> float:
    """The page's first load: the table's HTML, its modules, its style (the word table is
    measured in the run)."""
    return sum((STATIC / n).stat().st_size for n in ("index.html", "table.js", "cards.js",
                                                      "style.css")) / 1024  # fmt: skip


@contextlib.contextmanager
def web_stack(tmp: str, pids: dict[str, int]) -> Iterator[str]:
    db_url = f"sqlite:///{tmp}/store.sqlite3"
    from services.common.migrate import upgrade

    upgrade(db_url)
    upgrade(replay_url(db_url))
    env = dict(os.environ) | {"CARDROOM_DATA_DIR": tmp, "CARDROOM_DATABASE_URL": db_url,
                              "CARDROOM_LOG_LEVEL": "warning"}  # fmt: skip
    procs: list[subprocess.Popen[bytes]] = []
    with services(db_url) as (engine, replay):
        try:
            mm_port, web_port = _free_port(), _free_port()
            env |= {"CARDROOM_ENGINE_ADDR": engine, "CARDROOM_REPLAY_ADDR": replay,
                    "CARDROOM_MATCHMAKER_ADDR": f"127.0.0.1:{mm_port}",
                    "CARDROOM_WEB_BOT_THINK_MS": str(BOT_THINK_MS)}  # fmt: skip
            mm = [sys.executable, "-m", "services", "matchmaker", "serve", "--port", str(mm_port),
                  "--workers", "1", "--no-access-log"]  # fmt: skip
            procs.append(subprocess.Popen(mm, env=env, stderr=subprocess.DEVNULL))
            _wait_healthy(f"127.0.0.1:{mm_port}", procs[-1])
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "services", "web", "serve", "--port", str(web_port)],
                env=env, stderr=subprocess.DEVNULL))  # fmt: skip
            pids["web"] = procs[-1].pid
            from services.demo import web_serving

            while not web_serving(web_port, 0.5):
                time.sleep(0.1)
            yield f"http://127.0.0.1:{web_port}/"
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(15)


async def session(url: str, end: float, out: dict[str, list[float]]) -> None:
    import random

    import aiohttp

    await asyncio.sleep(random.uniform(0, RAMP_S))
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        async with s.get(url) as r:
            await r.read()
        async with s.get(f"{url}words/zh.json") as r:
            out["words_kb"].append(len(await r.read()) / 1024)
        async with s.ws_connect(f"{url}ws") as ws:
            sent: dict[int, float] = {}
            ops: dict[int, str] = {}
            next_id = 0

            async def command(msg: dict[str, Any]) -> None:
                nonlocal next_id
                next_id += 1
                sent[next_id] = time.perf_counter()
                ops[next_id] = msg["op"]
                await ws.send_str(json.dumps(msg | {"id": next_id}))

            await command({"op": "hello", "after_seq": 0})
            while json.loads((await ws.receive()).data)["t"] != "answer":
                pass  # as the page does: the lobby's Start comes once the socket said hello
            sent.clear()
            await command({"op": "start", "bot_level": "easy"})
            acting = False
            while time.monotonic() < end:
                try:
                    async with asyncio.timeout(max(0.1, end - time.monotonic())):
                        frame = await ws.receive()
                except TimeoutError:
                    break
                if frame.type != aiohttp.WSMsgType.TEXT:
                    break
                m = json.loads(frame.data)
                if m["t"] == "answer":
                    rtt = (time.perf_counter() - sent.pop(m["id"], time.perf_counter())) * 1000
                    if "upstream_ms" in m:
                        out["relay_ms"].append(rtt - m["upstream_ms"])
                        kind = KINDS.get(ops.get(m["id"], ""), "lobby")
                        out.setdefault(kind, []).append(rtt - m["upstream_ms"])
                        out["command_ms"].append(rtt)
                    if m.get("hint") == "play":
                        await command({"op": "play", "cards": m["cards"]})
                    elif m.get("hint") == "bid":
                        await command({"op": "bid", "bid": m["bid"]})
                    elif "hint" in m:
                        await command({"op": "pass"})
                    else:
                        acting = False
                elif m["t"] == "snapshot":
                    v = m.get("view")
                    mine = v and v.get("turn") == m["seat"] and v.get("status") == "running"
                    if mine and not acting:
                        acting = True
                        await command({"op": "hint"})
                    elif m["state"] == "waiting" and m.get("settlement"):
                        await command({"op": "ready"})


def client(url: str, sessions: int, run_s: float) -> dict[str, list[float]]:
    """One client process: ``sessions`` browser sessions for ``run_s`` seconds."""
    out: dict[str, list[float]] = {"relay_ms": [], "command_ms": [], "words_kb": []}

    async def run() -> None:
        end = time.monotonic() + run_s
        await asyncio.gather(*(session(url, end, out) for _ in range(sessions)))

    asyncio.run(run())
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def web_section(ctx: Context) -> list[Table]:
    sessions = 40 if ctx.quick else SESSIONS
    run_s = 15.0 if ctx.quick else RUN_S
    out: dict[str, list[float]] = {"relay_ms": [], "command_ms": [], "words_kb": []}
    pids: dict[str, int] = {}
    cpu = [0.0]
    with tempfile.TemporaryDirectory() as tmp, web_stack(tmp, pids) as url:
        cpu_before, wall_before = cpu_s(pids["web"]), time.monotonic()
        progress(f"web: {sessions} WebSocket sessions on one web process for {run_s:.0f} s")

        # The sessions run in a few client processes, so that one client's own event loop
        # lag is not counted as the relay's.
        with concurrent.futures.ProcessPoolExecutor(CLIENTS) as pool:
            share = [sessions // CLIENTS + (i < sessions % CLIENTS) for i in range(CLIENTS)]
            for part in pool.map(client, [url] * CLIENTS, share, [run_s] * CLIENTS):
                for key, values in part.items():
                    out.setdefault(key, []).extend(values)
        cpu[0] = 100 * (cpu_s(pids["web"]) - cpu_before) / (time.monotonic() - wall_before)
    page = page_weight_kb() + (max(out["words_kb"]) if out["words_kb"] else 0.0)
    relay, cmd = out["relay_ms"], out["command_ms"]
    t = Table(
        f"Web back end: {sessions} sessions (doudizhu3 against bots) on one web process",
        ["measure", "p50", "p99", "goal"],
    )
    t.rows.append(["command round trip, ms", f"{pct(cmd, 0.5):.1f}", f"{pct(cmd, 0.99):.1f}", ""])
    t.rows.append(["relay on top of the matchmaker, ms", f"{pct(relay, .5):.1f}",
                   f"{pct(relay, .99):.1f}", f"p99 < {RELAY_P99_GOAL_MS:.0f}"])  # fmt: skip
    for kind, label in (("moves", "  moves (play, pass, bid)"), ("hint", "  hints"),
                        ("lobby", "  lobby (start, ready)")):  # fmt: skip
        values = out.get(kind, [])
        t.rows.append([f"{label}, ms (n={len(values)})", f"{pct(values, 0.5):.1f}",
                       f"{pct(values, 0.99):.1f}", ""])  # fmt: skip
    t.rows.append(["page's first load, KB", f"{page:.1f}", "", f"< {PAGE_GOAL_KB:.0f}"])
    t.rows.append(["web process CPU, % of a core", f"{cpu[0]:.0f}", "", ""])
    t.notes.append(
        f"{len(cmd)} commands answered; bots think {BOT_THINK_MS} ms; relay = round trip at "
        "the client − upstream_ms (its time on the matchmaker)"
    )
    return [t]
