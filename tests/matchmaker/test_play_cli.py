"""`cardroom matchmaker play` as a person runs it, against a real matchmaker: when the
matchmaker goes away mid-game the command says why and exits 2, never a silent exit 0 that
reads as "the games are over"."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.proxy import TcpProxy

from .conftest import Cluster

ROOT = Path(__file__).resolve().parents[2]


def test_a_stream_broken_mid_game_is_said_and_exits_2(cluster: Cluster) -> None:
    assert cluster.mm_server is not None
    host, port = cluster.mm_server.target.rsplit(":", 1)
    proxy = TcpProxy(host, int(port))  # the player's network, which the test cuts
    proc = subprocess.Popen(
        [sys.executable, "-m", "services", "matchmaker", "play", "-t", f"127.0.0.1:{proxy.port}",
         "-v", "ddz3", "--player", "alice", "--auto", "--think", "0.5", "--games", "1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        end = time.monotonic() + 60
        for line in proc.stdout:  # the seat's stream, a JSON line per event
            if json.loads(line).get("table") == "game_started":
                break
            assert time.monotonic() < end, "no game started"
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
