"""Takeover on PostgreSQL with real processes: bot tables on two matchmaker instances; one is
SIGKILLed, or partitioned from the database (a proxy that stops forwarding), or everything is
restarted mid-table.  Every game finishes, verifies in replay, its table's seqs have no gap,
and no deadline waits longer than its own timer plus the takeover bound (the lease, LEASE_S)."""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import select

from services.common.db import make_engine
from services.matchmaker.models import table_events, tables

from .conftest import LEASE_S, Deployment, M

#: Timers of these tables: the human seat never acts, so its turns time out.
TURN_MS = 600
TIMERS = M.Timers(bid_ms=TURN_MS, turn_ms=TURN_MS, start_ms=60_000, grace_ms=60_000,
                  bot_think_ms=300)  # fmt: skip
#: Headroom over the bound for a loaded 2-core test machine (tick, scheduling, commits).
SLACK_S = 2.5


def start_tables(d: Deployment, n: int) -> list[str]:
    """Tables for ``n`` timing-out humans (bots fill the rest), half enqueued on each instance."""
    stubs = [d.mm(0), d.mm(1)]

    def one(i: int) -> str:
        stub = stubs[i % 2]
        ticket = stub.Enqueue(
            M.EnqueueRequest(player_id=f"h{i}", variant="doudizhu3", bot_fill_after_ms=0,
                             timers=TIMERS), timeout=30,
        )  # fmt: skip
        while ticket.state != M.TICKET_STATE_SEATED:
            time.sleep(0.05)
            ticket = stub.GetTicket(M.GetTicketRequest(ticket_id=ticket.ticket_id), timeout=30)
        stub.Ready(M.ReadyRequest(table_id=ticket.table_id, player_id=f"h{i}"), timeout=30)
        return str(ticket.table_id)

    with ThreadPoolExecutor(16) as pool:
        # Humans queued together may share a table: each table once.
        return sorted(set(pool.map(one, range(n))))


def rows(d: Deployment, ids: list[str]) -> list[Any]:
    engine = make_engine(d.db_url)
    with engine.connect() as conn:
        out = conn.execute(select(tables).where(tables.c.table_id.in_(ids))).all()
    engine.dispose()
    return list(out)


def wait_until(check: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out: {what}"
        time.sleep(0.2)


def all_started(d: Deployment, ids: list[str]) -> bool:
    return all(r.game_no >= 1 for r in rows(d, ids))


def mid_game(d: Deployment, ids: list[str]) -> None:
    """Wait for every game to start, then check most are still running (the test's point)."""
    wait_until(lambda: all_started(d, ids), 60, "every game started")
    time.sleep(1.0)
    playing = sum(r.state == "playing" and r.game_no == 1 for r in rows(d, ids))
    assert playing >= len(ids) // 2, f"only {playing} of {len(ids)} games still running"


def all_over(d: Deployment, ids: list[str]) -> bool:
    return all(r.game_no >= 1 and r.state != "playing" for r in rows(d, ids))


def wait_all_over(d: Deployment, ids: list[str], timeout: float, what: str) -> None:
    """Until every game is over; on a timeout, name the tables still playing and where."""
    try:
        wait_until(lambda: all_over(d, ids), timeout, what)
    except AssertionError:
        now = int(time.time() * 1000)
        stuck = [
            f"{r.table_id} seq={r.seq} turn={r.turn} lease_in={r.lease_ms - now}"
            f" due_in={None if r.due_ms is None else r.due_ms - now}"
            for r in rows(d, ids)
            if r.state == "playing"
        ]
        raise AssertionError(f"timed out: {what}; still playing: {stuck}") from None


def check_games(d: Deployment, ids: list[str], bound: bool = True) -> None:
    """Every table's first game verifies; its table events have no gap; no event waited for
    more than its timer and the takeover bound."""
    engine = make_engine(d.db_url)
    bound_ms = max(TURN_MS, 300) + LEASE_S * 1000 + SLACK_S * 1000
    worst = 0
    with engine.connect() as conn:
        for table_id in ids:
            seqs, ats = [], []
            in_game = False
            for r in conn.execute(
                select(table_events.c.seq, table_events.c.body)
                .where(table_events.c.table_id == table_id)
                .order_by(table_events.c.seq)
            ):
                seqs.append(r.seq)
                ev = M.TableEvent.FromString(r.body)
                in_game = in_game or ev.type == "game_started"
                if in_game and ev.at.ToMilliseconds() > 0:  # from the start to the end
                    ats.append(ev.at.ToMilliseconds())
                if ev.type == "game_over":
                    in_game = False
            assert seqs == list(range(1, len(seqs) + 1)), f"table {table_id}: seqs skip"
            gaps = [b - a for a, b in itertools.pairwise(ats)]
            worst = max([worst, *gaps])
    engine.dispose()
    print(f"longest wait between events: {worst} ms (bound {bound_ms:.0f} ms)")
    assert worst <= bound_ms or not bound, f"an event waited {worst} ms (bound {bound_ms} ms)"
    for table_id in ids:
        answer = d.verify(f"{table_id}.1")
        assert answer.ok and answer.settlement_json, (table_id, answer.reason, answer.detail)


def test_sigkill_one_instance_mid_game(deployment: Deployment) -> None:
    d = deployment
    ids = start_tables(d, 40)
    mid_game(d, ids)
    d.matchmakers[0].kill()  # SIGKILL: no goodbye, leases and all
    wait_all_over(d, ids, 180, "every game over on the other instance")
    check_games(d, ids)


def test_a_partitioned_instance_writes_nothing_stale(deployment: Deployment) -> None:
    d = deployment
    ids = start_tables(d, 16)
    mid_game(d, ids)
    proxy = d.proxies[0]  # the first instance's only way to PostgreSQL
    proxy.pause()
    try:
        time.sleep(LEASE_S + 1)
        wait_all_over(d, ids, 180, "every game over on the other instance")
    finally:
        proxy.resume()  # it comes back, holding whatever it had in memory
    time.sleep(LEASE_S + 1)  # let it try its stale writes
    check_games(d, ids)
    # It is serving again, on the same database.
    stub = d.mm(0)
    ticket = stub.Enqueue(M.EnqueueRequest(player_id="back", variant="doudizhu3"), timeout=30)
    assert ticket.ticket_id


def test_everything_restarted_mid_table(deployment: Deployment) -> None:
    d = deployment
    ids = start_tables(d, 12)
    mid_game(d, ids)
    procs = [*d.matchmakers, d.replay, d.engine]
    for p in procs:
        p.stop()
    for p in reversed(procs):  # engine, replay, then the matchmakers, on their ports
        p.start()
    wait_all_over(d, ids, 180, "every game over after the restart")
    check_games(d, ids, bound=False)  # a full restart is no takeover: it takes what it takes
