"""Following a running game from a second store (as a second replay process would): every
event arrives, in order, and the follow ends when the game does — LISTEN/NOTIFY on
PostgreSQL, polling on SQLite."""

from __future__ import annotations

import threading
import time

from services.common.db import make_engine
from services.common.migrate import upgrade
from services.replay.follow import EventFollower
from services.replay.store import EventStore, GameEnding, GameHeader, NewEvent


def test_a_second_process_follows_a_running_game_to_its_end(db_url: str) -> None:
    upgrade(db_url)
    writer = EventStore(make_engine(db_url))
    reader = EventStore(make_engine(db_url))
    follower = EventFollower(reader, poll_interval=0.2)
    writer.append("g", 0, [NewEvent("deal", b"e1", "x")], "r0", header=GameHeader("ddz3", 1, []))
    if reader.engine.dialect.name == "postgresql":
        deadline = time.monotonic() + 10
        while not follower.listening and time.monotonic() < deadline:
            time.sleep(0.05)
        assert follower.listening

    def write() -> None:
        for seq in range(1, 20):
            time.sleep(0.01)
            ending = GameEnding("finished", [], "doudizhu") if seq == 19 else None
            writer.append("g", seq, [NewEvent("play", f"e{seq + 1}".encode(), "x")], f"r{seq}",
                          ending=ending)  # fmt: skip

    thread = threading.Thread(target=write)
    thread.start()
    seen: list[int] = []
    next_seq = 1
    while True:
        batch = reader.events("g", from_seq=next_seq)
        seen += [e.seq for e in batch]
        next_seq += len(batch)
        head, status = follower.wait("g", next_seq - 1, timeout=5)
        if status != "running" and head < next_seq:
            break
    thread.join()
    follower.close()
    assert seen == list(range(1, 21))
    writer.engine.dispose()
    reader.engine.dispose()
