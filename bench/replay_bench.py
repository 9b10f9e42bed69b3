"""Section ``replay``: the replay store's appends and verifications, on SQLite and (when one is
configured) PostgreSQL.

Appends: several writer threads, one game per writer at a time, each game appended the way the
matchmaker appends it — the header and deal in one append, then one append per action (the 1–3
events the action produced) — through ``ReplayGames.append``: envelope checks, deterministic
serialization, the hash chain, the idempotency row, the head update (and NOTIFY on PostgreSQL),
one transaction per append.  Beside it, in the same run and the same database, a plain
``INSERT`` of the same rows (the same payload bytes and key columns) into a table without
constraints, batched the same way (one executemany and one transaction per append), from the
same number of threads.  Goal: appends at ≥ 0.5× the plain insert rate.

Verification: ``ReplayGames.verify`` of every stored game — read its events, check the hash
chain, re-execute it through the rules library and compare every event and the stored result.
Goal: a median under 5 ms per game.

PostgreSQL is used when ``CARDROOM_BENCH_PG_URL`` or ``CARDROOM_TEST_PG_URL`` names one (or
``CARDROOM_DATABASE_URL`` is a PostgreSQL URL); the bench works in a schema of its own and
drops it afterwards.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cardroom.v1 import common_pb2
from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    create_engine,
    insert,
    text,
)

from services import rules
from services.common.db import make_engine, normalize_url
from services.common.migrate import upgrade
from services.common.wire import CAUSE_OF_BY, event_message, header_message
from services.engine.game_cli import play_out
from services.replay.events import prepare_append
from services.replay.games import ReplayGames
from services.replay.store import EventStore

from .common import Context, fmt_int, fmt_rate, fmt_ratio, progress
from .common import Table as BenchTable

WRITERS = 4
GAMES = (240, 40)  # games appended per backend (full run, --quick run)
APPEND_GOAL = 0.5
VERIFY_GOAL_MS = 5.0
VARIANT = "doudizhu3"

_plain_meta = MetaData()
plain_events = Table(
    "bench_plain_events",
    _plain_meta,
    Column("game_id", String(64)),
    Column("seq", Integer),
    Column("type", String(32)),
    Column("server_time", DateTime(timezone=True)),
    Column("actor", String(128)),
    Column("cause", String(16)),
    Column("visibility", SmallInteger),
    Column("payload", LargeBinary),
    Column("hash", LargeBinary(32)),
)


def game_batches(seed: str, game_id: str) -> list[list[common_pb2.Event]]:
    """One self-played game as its appends to ``game_id`` (its deal commits to that id):
    header and deal, then one batch per action."""
    players = ["p0", "p1", "p2"]
    final = play_out(rules.new_game(VARIANT, seed=seed))
    rec = rules.write_record(final, {"players": players, "game_id": game_id})
    loaded = rules.load_record(rec)
    state = rules.initial_state(loaded, game_id)
    header = {k: v for k, v in rec.items() if k != "actions"}
    out = [[header_message(header), *(event_message(e) for e in rules.deal_events(state))]]
    for action in loaded.actions:
        state, produced = rules.apply(state, action)
        cause = CAUSE_OF_BY.get(getattr(action, "by", None) or "", common_pb2.CAUSE_PLAYER)
        out.append([event_message(e, actor=players[action.seat], cause=cause) for e in produced])
    return out


@dataclass
class Backend:
    name: str
    url: str


@contextmanager
def backends() -> Iterator[list[Backend]]:
    """A fresh SQLite file, and a fresh schema on the configured PostgreSQL if there is one."""
    with tempfile.TemporaryDirectory(prefix="cardroom-bench-") as tmp:
        found = [Backend("SQLite", f"sqlite:///{tmp}/bench.sqlite3")]
        pg = next(
            (
                u
                for u in (
                    os.environ.get("CARDROOM_BENCH_PG_URL", ""),
                    os.environ.get("CARDROOM_TEST_PG_URL", ""),
                    os.environ.get("CARDROOM_DATABASE_URL", ""),
                )
                if u.strip().startswith(("postgresql", "postgres:"))
            ),
            "",
        ).strip()
        admin = None
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        if pg:
            try:
                admin = create_engine(normalize_url(pg))
                with admin.begin() as conn:
                    conn.execute(text(f'CREATE SCHEMA "{schema}"'))
                sep = "&" if "?" in pg else "?"
                found.append(Backend("PostgreSQL", f"{pg}{sep}options=-csearch_path%3D{schema}"))
            except Exception as exc:  # unreachable: bench SQLite only, and say so
                progress(f"replay: PostgreSQL at {pg} not reachable ({exc.__class__.__name__})")
                admin = None
        try:
            yield found
        finally:
            if admin is not None:
                with admin.begin() as conn:
                    conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                admin.dispose()


def _threads(work: Sequence[Any], target: Any) -> float:
    """Run ``target(item)`` over ``work`` split across WRITERS threads; wall seconds."""
    shares = [work[i::WRITERS] for i in range(WRITERS)]
    threads = [threading.Thread(target=lambda s=s: [target(x) for x in s]) for s in shares]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def measure(
    backend: Backend, games: list[list[list[common_pb2.Event]]], tag: str
) -> dict[str, Any]:
    upgrade(backend.url)
    engine = make_engine(backend.url, pool_size=WRITERS + 2)
    replay = ReplayGames(EventStore(engine))
    events = sum(len(b) for g in games for b in g)

    def append_game(item: tuple[int, list[list[common_pb2.Event]]]) -> None:
        i, batches = item
        game_id = f"{tag}-{i}"
        seq = 0
        for n, batch in enumerate(batches):
            seq = replay.append(game_id, seq, batch, f"{game_id}/{n}")[0].last_seq

    append_s = _threads(list(enumerate(games)), append_game)

    # The same rows, the same batches, into a plain table.
    _plain_meta.create_all(engine)
    now = replay.store.clock()
    plain_rows: list[list[dict[str, Any]]] = []
    for i, batches in enumerate(games):
        seq = 0
        for batch in batches:
            # The events as the store serializes them (bound to their own game id).
            prepared = prepare_append(f"{tag}-{i}", seq, batch, rules.variant(VARIANT), now)
            rows = []
            for ev in prepared.events:
                seq += 1
                rows.append(
                    {
                        "game_id": f"plain-{i}",
                        "seq": seq,
                        "type": ev.type,
                        "server_time": now,
                        "actor": ev.actor,
                        "cause": ev.cause,
                        "visibility": ev.visibility,
                        "payload": ev.payload,
                        "hash": b"\0" * 32,
                    }
                )
            plain_rows.append(rows)
    by_game: list[list[list[dict[str, Any]]]] = []
    k = 0
    for batches in games:
        by_game.append(plain_rows[k : k + len(batches)])
        k += len(batches)

    def insert_game(batches: list[list[dict[str, Any]]]) -> None:
        for rows in batches:
            with engine.begin() as conn:
                conn.execute(insert(plain_events), rows)

    plain_s = _threads(by_game, insert_game)

    times = []
    ok = 0
    for i in range(len(games)):
        start = time.perf_counter()
        result = replay.verify(f"{tag}-{i}")
        times.append(time.perf_counter() - start)
        ok += result.ok
    engine.dispose()
    return {
        "events": events,
        "append_rate": events / append_s,
        "plain_rate": events / plain_s,
        "verify_rate": len(times) / sum(times),
        "verify_median_ms": statistics.median(times) * 1000.0,
        "verified": ok,
        "games": len(games),
    }


def replay_rows(quick: bool = False) -> list[dict[str, Any]]:
    """One row per backend: append and plain insert rates (events/s), their ratio, and the
    verification rate (games/s) with its median time per game."""
    count = GAMES[1] if quick else GAMES[0]
    progress(f"replay: self-playing {count} {VARIANT} games")
    games = [game_batches(f"bench/{i}", f"g-{i}") for i in range(count)]
    rows = []
    with backends() as found:
        for backend in found:
            progress(f"replay: {backend.name}: {count} games, {WRITERS} writers")
            figures = measure(backend, games, "g")
            rows.append({"backend": backend.name, **figures})
    return rows


def replay_section(ctx: Context) -> list[BenchTable]:
    rows = replay_rows(ctx.quick)
    table = BenchTable(
        "Replay store: appends and verification",
        [
            "backend",
            "events",
            "appends ev/s",
            "plain INSERT ev/s",
            "ratio",
            "verify games/s",
            "median ms",
        ],
    )
    for r in rows:
        table.rows.append(
            [
                r["backend"],
                fmt_int(r["events"]),
                fmt_rate(r["append_rate"]),
                fmt_rate(r["plain_rate"]),
                fmt_ratio(r["append_rate"] / r["plain_rate"]),
                fmt_rate(r["verify_rate"]),
                f"{r['verify_median_ms']:.2f}",
            ]
        )
        if r["verified"] != r["games"]:
            table.notes.append(f"{r['backend']}: only {r['verified']}/{r['games']} verified!")
    table.notes.append(
        f"{WRITERS} writer threads, one game per writer at a time, one append per action "
        f"(header and deal first), {VARIANT}; the plain INSERT writes the same rows in the same "
        f"batches (one transaction each) into a table without constraints. Goals: appends ≥ "
        f"{APPEND_GOAL}× the plain rate; verification median < {VERIFY_GOAL_MS:g} ms per game."
    )
    return [table]
