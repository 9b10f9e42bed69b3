"""The API from another language: tests/interop/client.js, a Node.js back end on @grpc/grpc-js
that loads proto/ and nothing else, plays a whole game of every variant against real engine,
replay and matchmaker servers (a human seat, bots filling), reading only the typed bodies,
resuming its stream once with after_seq, and checks each game with replay's VerifyGame.

Its packages come from package-lock.json (``npm ci``, run here when node_modules is missing or
older than the lock file).  Skipped, saying why, where node or npm is missing (CI has both)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.matchmaker.conftest import Cluster, cluster, engine_target  # noqa: F401

HERE = Path(__file__).resolve().parent
VARIANTS = ["doudizhu3", "doudizhu4", "zhengshangyou", "zhengshangyou2"]
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(
    NODE is None or NPM is None,
    reason="node and npm are needed for the Node.js client (CI has both)",
)


@pytest.fixture
def db_url(tmp_path: Any) -> Iterator[str]:
    """SQLite only: this is about the API; the services' own tests run every backend."""
    yield f"sqlite:///{tmp_path / 'store.sqlite3'}"


def installed() -> None:
    """node_modules as package-lock.json pins it."""
    marker = HERE / "node_modules" / ".package-lock.json"
    lock = HERE / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    assert NPM is not None
    subprocess.run(
        [NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=HERE, check=True, timeout=300,
    )  # fmt: skip


def test_a_node_client_plays_and_verifies_a_game_of_every_variant(cluster: Cluster) -> None:  # noqa: F811
    installed()
    assert NODE is not None and cluster.mm_server is not None
    done = subprocess.run(
        [NODE, str(HERE / "client.js"), "--matchmaker", cluster.mm_server.target,
         "--replay", f"127.0.0.1:{cluster.replay_port}", *VARIANTS],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    print(done.stdout)  # the games as the client tells them (pytest -s)
    assert done.returncode == 0, done.stdout + done.stderr
    results = [
        json.loads(line.removeprefix("RESULT "))
        for line in done.stdout.splitlines()
        if line.startswith("RESULT ")
    ]
    assert [r["variant"] for r in results] == VARIANTS
    for r in results:
        assert r["verification"]["ok"], r
        assert r["increasing"] and r["resumed_after"] > 0, r
        assert r["hand"] and r["my_actions"] > 0 and r["plays"] > 0, r
        assert r["settlement"]["status"] != "GAME_STATUS_UNSPECIFIED", r
        assert sum(r["scores"]) == 0 and len(r["scores"]) == len(r["settlement"]["scores"]), r
        assert r["seed_revealed"], r
