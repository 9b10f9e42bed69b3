"""The web back end against real services — the matchmaker's in-process cluster (engine,
replay, matchmaker on port 0, tests/matchmaker/conftest.py) — served by aiohttp on port 0 in
a thread of its own, and Debian's chromium driven through Playwright.

Without chromium (or without the playwright package) the browser tests are skipped with the
reason; CI installs chromium through .ci/run."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.web.app import make_app
from services.web.identity import Identities
from services.web.relay import Backend
from tests.matchmaker.conftest import Cluster, cluster, engine_target  # noqa: F401

CHROMIUM = os.environ.get("CARDROOM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Screenshots and figures are kept here as the tests' artifacts.
SHOTS = Path(os.environ.get("CARDROOM_WEB_SHOTS", "/tmp/web-shots"))


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    """SQLite only: these tests are about the browser; the services' own tests run every
    backend."""
    yield f"sqlite:///{tmp_path / 'store.sqlite3'}"


class WebServer:
    """``cardroom web serve``'s app on port 0, in a thread with its own event loop."""

    def __init__(self, backend: dict[str, Any], data_dir: Path) -> None:
        self.backend_args, self.data_dir = backend, data_dir
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> WebServer:
        from aiohttp import web

        self.thread.start()

        async def up() -> Any:
            app = make_app(Backend(**self.backend_args), Identities(self.data_dir))
            runner = web.AppRunner(app)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            self.port = runner.addresses[0][1]
            return runner

        self.runner = asyncio.run_coroutine_threadsafe(up(), self.loop).result(30)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        if not self.thread.is_alive():
            return  # stopped already (by the test itself)
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def web(cluster: Cluster, tmp_path: Path) -> Iterator[WebServer]:  # noqa: F811
    assert cluster.mm_server is not None
    server = WebServer(
        {
            "matchmaker": cluster.mm_server.target,
            "replay": f"127.0.0.1:{cluster.replay_port}",
            "bot_think_ms": 30,
        },
        tmp_path / "web",
    ).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[browser]')")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


class Player:
    """One browser page at the table: what it received over the WebSocket (every frame, in
    order), its console errors, and the gestures a person makes."""

    def __init__(self, context: Any, url: str) -> None:
        self.context, self.url = context, url
        self.page = context.new_page()
        self.frames: list[dict[str, Any]] = []
        self.passes_by_play = 0  # turns passed with Play on a hint to pass
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("websocket", self._socket)
        self.page.set_default_timeout(30_000)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(f"console: {msg.text}")

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self.frames.append(json.loads(payload)))

    # ------------------------------------------------------------------ reading the page
    def state(self, expr: str) -> Any:
        return self.page.evaluate(f"() => {{ const S = window.__cardroom; return {expr}; }}")

    def testid(self, name: str) -> Any:
        return self.page.get_by_test_id(name)

    def hand(self) -> list[str]:
        return [c.get_attribute("data-card") for c in self.testid("card").all()]

    def selected(self) -> list[str]:
        return [
            c.get_attribute("data-card")
            for c in self.page.locator("[data-testid=card][data-selected=true]").all()
        ]

    def my_turn(self) -> bool:
        return self.testid("turn").get_attribute("data-mine") == "true"

    def settled(self) -> bool:
        return self.testid("settlement").is_visible()

    def phase(self) -> str:
        return str(self.state("S.snap?.view?.phase ?? ''"))

    def idle(self) -> None:
        """Every command answered."""
        self.page.wait_for_function("() => window.__cardroom.pending.size === 0")

    # ------------------------------------------------------------------ acting
    def open(self) -> None:
        self.page.goto(self.url)
        self.page.wait_for_function("() => window.__cardroom && window.__cardroom.connected")

    def start(self, variant: str = "doudizhu3", level: str = "easy") -> None:
        self.page.select_option("#variant", variant)
        self.page.select_option("#level", level)
        self.testid("lobby-start").click()
        self.page.wait_for_selector("[data-testid=card]")

    def wait_turn_or_end(self, timeout: float = 60.0) -> None:
        self.page.wait_for_function(
            "() => document.querySelector('[data-testid=turn]').dataset.mine === 'true'"
            " || !document.querySelector('[data-testid=settlement]').hidden",
            timeout=timeout * 1000,
        )

    def after_move(self, seq_before: int) -> None:
        self.page.wait_for_function(
            f"() => (window.__cardroom.snap?.seq ?? 0) > {seq_before}"
            " && window.__cardroom.pending.size === 0"
        )

    def take_turn(self, right_click: bool = False, pass_by_play: bool = False) -> None:
        """One turn as a person takes it with the mouse: bid 3, show the hand, or the hint
        then Play (a right-click when asked) — or Pass when the hint is to pass (Play with
        nothing chosen when ``pass_by_play``: it takes this turn's hint to pass)."""
        seq = int(self.state("S.snap.seq"))
        phase = self.phase()
        if phase == "bidding":
            self.testid("bid-3").click()
        elif phase == "show_hand":
            self.testid("show-hand").click()
        else:
            self.testid("hint").click()
            self.idle()
            if self.selected():
                if right_click:
                    self.testid("table").locator("#center").click(button="right")
                else:
                    self.testid("play").click()
            elif pass_by_play:
                assert "press Play or Pass" in self.message() or "按“出牌”" in self.message()
                self.testid("play").click()
                # not "select cards first" (nor a turn left to run out)
                assert not self.page.locator("#message.refusal").is_visible(), self.message()
                self.passes_by_play += 1
            else:
                self.testid("pass").click()
        self.after_move(seq)

    def message(self) -> str:
        return str(self.page.locator("#message").inner_text())

    def play_to_the_end(self, timeout: float = 240.0, pass_by_play: bool = False) -> int:
        end = time.monotonic() + timeout
        turns = 0
        while not self.settled():
            assert time.monotonic() < end, "the game did not end"
            self.wait_turn_or_end()
            if self.my_turn() and not self.settled():
                self.take_turn(pass_by_play=pass_by_play)
                turns += 1
        return turns

    def moves(self) -> list[float]:
        return [float(x) for x in self.state("S.moves")]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def record_figure(name: str, value: Any) -> None:
    """Keep a measured figure beside the screenshots (figures.json) for the closing note."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "figures.json"
    figures = json.loads(path.read_text()) if path.exists() else {}
    figures[name] = value
    path.write_text(json.dumps(figures, indent=2, sort_keys=True))
