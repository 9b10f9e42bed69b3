"""Ratings under concurrency, with real processes on PostgreSQL: two matchmaker instances,
each delivering to its own replay process, finish hundreds of games at once among people who
move between tables (and so between instances) from one round to the next; then
``cardroom ratings rebuild`` recomputes every rating from the log alone and finds the stored
ones exactly."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from cardroom.v1 import engine_pb2
from sqlalchemy import func, select

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.matchmaker.models import outbox
from services.ratings.tables import player_ratings, rated_games
from tests.common.test_metrics import free_port
from tests.databases import PG_URL
from tests.matchmaker.conftest import TEST_KEYS

from .conftest import LOG_DIR, Deployment, M, Proc

pytestmark = pytest.mark.skipif(not PG_URL, reason="needs CARDROOM_TEST_PG_URL")

#: The humans put themselves on auto-play as each game starts (a turn that times out first
#: is played by the engine all the same; a bid that does is a pass).
TIMERS = M.Timers(bid_ms=1000, turn_ms=1000, start_ms=60_000, grace_ms=60_000, bot_think_ms=0)
PLAYERS = [f"p{i}" for i in range(12)]  # four tables of three people, two per instance
ROUNDS = 4
GAMES_PER_ROUND = 20  # per table: 4 rounds x 4 tables x 20 = 320 games


@pytest.fixture
def two_of_each(db_url: str, tmp_path: Any) -> Iterator[Deployment]:
    """An engine, two replays and two matchmakers, each matchmaker writing to its own
    replay: the ends of games reach the store from two processes at once."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several instances need PostgreSQL")
    upgrade(db_url)
    base = {"CARDROOM_ENGINE_KEYS": TEST_KEYS, "CARDROOM_DATABASE_URL": db_url}
    logs = LOG_DIR or str(tmp_path / "logs")
    engine = Proc("engine", free_port(), base, log_dir=logs).start()
    replays = [Proc("replay", free_port(), base, log_dir=logs).start() for _ in range(2)]
    mms = [
        Proc("matchmaker", free_port(), base,
             ["--engine", engine.target, "--replay", r.target], logs).start()
        for r in replays
    ]  # fmt: skip
    d = Deployment(db_url, engine, replays[0], mms, [], _NoProxy())
    yield d
    d.stop()
    replays[1].stop()


class _NoProxy:
    def close(self) -> None:
        pass


def play_round(d: Deployment, n: int, order: list[str]) -> None:
    """Tables of three people (private codes), table k on instance k % 2; every person Ready
    for each of the round's games, then leaves."""

    def person(i: int) -> None:
        player, table = order[i], i // 3
        stub = d.mm(table % 2)
        ticket = stub.Enqueue(M.EnqueueRequest(
            player_id=player, variant="doudizhu3", private_code=f"r{n}t{table}",
            bot_fill_after_ms=-1, timers=TIMERS, bot_level="normal"), timeout=30)  # fmt: skip
        while ticket.state != M.TICKET_STATE_SEATED:
            time.sleep(0.05)
            ticket = stub.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id), timeout=30)
        tid = ticket.table_id
        end = time.monotonic() + 600
        while time.monotonic() < end:
            snap = stub.GetTable(M.GetTableRequest(table_id=tid, player_id=player), timeout=30)
            mine = snap.seats[snap.seat]
            if snap.state == M.TABLE_STATE_WAITING and snap.game_no >= GAMES_PER_ROUND:
                break
            if snap.state == M.TABLE_STATE_WAITING and not mine.ready:
                stub.Ready(M.ReadyRequest(table_id=tid, player_id=player), timeout=30)
            elif snap.state == M.TABLE_STATE_PLAYING and not mine.autoplay:
                with contextlib.suppress(grpc.RpcError):  # the game may have just ended
                    stub.Act(
                        M.ActRequest(
                            table_id=tid, player_id=player, action=engine_pb2.Action(autoplay=True)
                        ),
                        timeout=30,
                    )
            time.sleep(0.05)
        else:
            raise AssertionError(f"{player}: the round did not end")
        stub.LeaveTable(M.LeaveTableRequest(table_id=tid, player_id=player), timeout=30)

    with ThreadPoolExecutor(len(order)) as pool:
        list(pool.map(person, range(len(order))))


def count(d: Deployment, table: Any) -> int:
    engine = make_engine(d.db_url)
    with engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(table)).scalar_one()
    engine.dispose()
    return int(n)


def test_rebuild_reproduces_ratings_written_by_two_instances_at_once(
    two_of_each: Deployment,
) -> None:
    d = two_of_each
    draw = random.Random(27)
    for n in range(ROUNDS):
        order = list(PLAYERS)
        draw.shuffle(order)  # new tables, and a new instance for most people
        play_round(d, n, order)
    end = time.monotonic() + 120
    while count(d, outbox) and time.monotonic() < end:
        time.sleep(0.5)
    assert count(d, outbox) == 0, "the outbox did not drain"
    rated = count(d, rated_games)
    assert rated >= 300 and count(d, player_ratings) == len(PLAYERS)
    done = subprocess.run(
        [sys.executable, "-m", "services", "ratings", "rebuild", "--database", d.db_url],
        capture_output=True, timeout=300, env=os.environ,
    )  # fmt: skip
    summary = json.loads(done.stdout)
    assert done.returncode == 0, summary
    assert summary["equal"] and summary["rated_games"] == rated
    assert summary["players"] == len(PLAYERS)
