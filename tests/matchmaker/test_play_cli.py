"""`cardroom matchmaker play` as a person runs it, against a real matchmaker: when the
matchmaker goes away mid-game the command says why and exits 2, never a silent exit 0 that
reads as "the games are over"."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from services.common.health_cli import check
from tests.common.test_metrics import free_port
from tests.proxy import TcpProxy

from .conftest import TEST_KEYS, Cluster

ROOT = Path(__file__).resolve().parents[2]


def play(target: str, player: str) -> subprocess.Popen[str]:
    """`cardroom matchmaker play --auto` for one game, bots thinking half a second."""
    return subprocess.Popen(
        [sys.executable, "-m", "services", "matchmaker", "play", "-t", target, "-v", "ddz3",
         "--player", player, "--auto", "--think", "0.5", "--games", "1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def until_started(proc: subprocess.Popen[str]) -> None:
    """Read the seat's stream (a JSON line per event) until the game starts."""
    assert proc.stdout is not None
    end = time.monotonic() + 60
    for line in proc.stdout:
        if json.loads(line).get("table") == "game_started":
            return
        assert time.monotonic() < end, "no game started"
    raise AssertionError("the stream ended before the game started")


def test_a_stream_broken_mid_game_is_said_and_exits_2(cluster: Cluster) -> None:
    assert cluster.mm_server is not None
    host, port = cluster.mm_server.target.rsplit(":", 1)
    proxy = TcpProxy(host, int(port))  # the player's network, which the test cuts
    proc = play(f"127.0.0.1:{proxy.port}", "alice")
    try:
        until_started(proc)
        # The matchmaker goes away, the game half played: the seat's stream breaks at once,
        # before the player's next poll of the table finds it gone.
        proxy.cut()
        out, err = proc.communicate(timeout=60)
    finally:
        proxy.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err[-2000:]
    assert "cardroom matchmaker play: error: UNAVAILABLE" in err, err[-2000:]
    assert '"game_over"' not in out


def test_a_graceful_stop_ends_open_streams_quietly(cluster: Cluster, tmp_path: Path) -> None:
    """A matchmaker process stopped with SIGTERM (a deploy) while a seat streams: the stream
    ends itself (UNAVAILABLE SERVER_STOPPING: resume elsewhere), not as grpc's "Exception not
    handled ... CancelledError" error and a traceback on stderr, once per open stream at every
    stop, and without finding grpc's call tasks by their private names."""
    port = free_port()
    log = tmp_path / "matchmaker.log"
    env = {**os.environ, "CARDROOM_DATABASE_URL": cluster.db_url, "CARDROOM_ENGINE_KEYS": TEST_KEYS}
    with log.open("w") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "services", "matchmaker", "serve", "--port", str(port),
             "--workers", "1", "--log-level", "debug", "--engine", cluster.engine_target,
             "--replay", f"127.0.0.1:{cluster.replay_port}"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=sink,
        )  # fmt: skip
    proc = None
    try:
        end = time.monotonic() + 30
        while check(f"127.0.0.1:{port}", 1.0) != "SERVING":
            assert server.poll() is None and time.monotonic() < end, log.read_text()[-2000:]
            time.sleep(0.1)
        proc = play(f"127.0.0.1:{port}", "ann")
        until_started(proc)
        time.sleep(2)  # the stream waits for the bots' moves
        server.send_signal(signal.SIGTERM)
        assert server.wait(30) == 0
        _, err = proc.communicate(timeout=30)  # the client says why its stream ended
    finally:
        for p in (server, proc):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(30)
    text = log.read_text()
    assert '"method": "/cardroom.v1.MatchmakerService/Subscribe"' in text
    assert '"code": "UNAVAILABLE"' in text and "SERVER_STOPPING" in text, text[-3000:]
    assert "not handled" not in text and "Traceback" not in text, text[-3000:]
    assert "UNAVAILABLE" in err, err[-2000:]
