"""``cardroom soak``, short: a crowd of scripted players against real servers (two matchmaker
instances on PostgreSQL, one on SQLite), zero errors, every game verified, no leak."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from services.cli import build_parser
from services.common.migrate import upgrade
from services.common.server import BackgroundServer
from services.matchmaker.server import MatchmakerConfig, make_spec
from services.soak.crowd import Crowd, Player, Seat, think_range
from tests.matchmaker.conftest import Cluster, settings

#: Seconds of crowd: issue 12 asks CI for two instances for 60 s (PostgreSQL); the one
#: instance on SQLite runs a shorter crowd.  CARDROOM_TEST_SOAK_S sets both.
DURATION = os.environ.get("CARDROOM_TEST_SOAK_S")


def soak_seconds(db_url: str) -> str:
    return DURATION or ("60" if db_url.startswith("postgresql") else "20")


def test_a_short_soak_has_no_fault(db_url: str, engine_target: str) -> None:
    upgrade(db_url)
    cluster = Cluster(db_url, engine_target)
    cluster.start_replay()
    cluster.start_mm()
    servers = []
    try:
        assert cluster.mm_server is not None
        targets = [cluster.mm_server.target]
        if db_url.startswith("postgresql"):  # a second instance on the same database
            config = MatchmakerConfig(
                database_url=db_url, engine_addr=engine_target,
                replay_addr=f"127.0.0.1:{cluster.replay_port}", runner=cluster.runner,
            )  # fmt: skip
            servers.append(BackgroundServer(make_spec(config), settings("matchmaker")).start())
            targets.append(servers[-1].target)
        cmd = [sys.executable, "-m", "services", "soak", "--targets", ",".join(targets),
               "--replay", f"127.0.0.1:{cluster.replay_port}", "--players", "12",
               "--duration", soak_seconds(db_url), "--turn-ms", "600", "--bot-think-ms", "0",
               "--json"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.stdout, done.stderr[-3000:]
        report = json.loads(done.stdout)
        assert report["ok"] and done.returncode == 0, json.dumps(report, indent=1)
        assert report["games"] >= 3
        assert report["verified"] == report["games"] + report["left_games"]
        assert report["instances"] == len(targets)
        assert report["think_ms"] == [20, 250]  # the fast crowd's pace, said in the report
    finally:
        for s in servers:
            s.stop()
        cluster.stop()


def test_the_think_time_is_a_checked_range() -> None:
    """``--think-ms LO-HI`` (people think seconds; the default is the fast crowd): a bad
    range is refused in one line, before any call."""
    assert think_range("1000-4000") == (1000, 4000)
    assert think_range(" 0-0 ") == (0, 0)
    for bad in ("4000-1000", "1000", "a-b", "-5-10", "0-60001", ""):
        with pytest.raises(ValueError, match="--think-ms"):
            think_range(bad)
    cmd = [sys.executable, "-m", "services", "soak", "--think-ms", "9-1", "--duration", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--think-ms" in done.stderr and not done.stdout


def test_a_seat_taken_during_a_game_is_a_fault_and_its_game_is_verified() -> None:
    """A stream refused NOT_SEATED while its player was in a game and never left (the seat
    escaped him: his stream was away past the grace) is reported as what it is, and its game
    (an escape) goes to replay's verification, not "started and never finished"."""
    args = build_parser().parse_args(["soak", "--targets", "127.0.0.1:1"])
    crowd = Crowd(args, ["127.0.0.1:1"])
    crowd.stubs = [object()]
    seat = Seat(Player(crowd, 0), "t1", 0)
    crowd.stats.begun["t1.1"] = "t1"
    seat.game_id, seat.in_game = "t1.1", True
    seat.lost_seat("NOT_SEATED")
    assert seat.closed.is_set()
    assert crowd.stats.left == {"t1.1": args.variant}  # replay verifies it
    report = crowd.report(1.0, {})
    assert not report["ok"]
    assert report["faults"] == [
        f"table t1: seat 0 taken from {seat.p.id} during game t1.1 as its stream reopened"
        " (NOT_SEATED)"
    ]

    between = Seat(Player(crowd, 1), "t2", 0)  # no game running: the seat just ends
    between.lost_seat("NOT_SEATED")
    assert between.closed.is_set() and len(crowd.stats.faults) == 1
