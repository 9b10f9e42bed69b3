"""Takeover on PostgreSQL with real processes: bot tables on two matchmaker instances; one is
SIGKILLed, or partitioned from the database (a proxy that stops forwarding), or everything is
restarted mid-table.  Every game finishes, verifies in replay, its table's seqs have no gap,
and no deadline waits longer than its own timer plus the takeover bound (the lease, LEASE_S,
and the survivor's next look, within its loops' idle sleep)."""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
from sqlalchemy import func, select, text

from services.common.db import make_engine
from services.matchmaker.backends import APPLICATION_NAME
from services.matchmaker.models import outbox, table_events, tables
from services.matchmaker.settings import RunnerSettings

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
        raise AssertionError(
            f"timed out: {what}; still playing: {stuck}; matchmaker sessions: {sessions(d)}"
        ) from None


def sessions(d: Deployment) -> list[str]:
    """The matchmakers' busy database sessions: who may hold a stuck table's row lock."""
    engine = make_engine(d.db_url)
    with engine.connect() as conn:
        out = conn.execute(
            text(
                "SELECT pid, state, wait_event_type, wait_event,"
                " clock_timestamp() - state_change AS for_, left(query, 60) AS query"
                " FROM pg_stat_activity WHERE application_name = :app AND state <> 'idle'"
            ),
            {"app": APPLICATION_NAME},
        ).all()
    engine.dispose()
    return [f"{r.pid} {r.state} {r.wait_event_type}:{r.wait_event} {r.for_} {r.query!r}"
            for r in out]  # fmt: skip


def outbox_empty(d: Deployment) -> bool:
    engine = make_engine(d.db_url)
    with engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(outbox)).scalar_one()
    engine.dispose()
    return int(n) == 0


def assert_outbox_in_order(d: Deployment) -> None:
    """Both instances delivered every game's events in order: replay refused none (an
    out-of-order batch is refused and retried, logged as "replay append failed")."""
    wait_until(lambda: outbox_empty(d), 60, "the outbox delivered")
    for mm in d.matchmakers:
        failed = [line for line in mm.log_text().splitlines() if "replay append failed" in line]
        assert not failed, failed[:3]


def check_games(d: Deployment, ids: list[str], bound: bool = True) -> None:
    """Every table's first game verifies; its table events have no gap; no event waited for
    more than its timer and the takeover bound."""
    engine = make_engine(d.db_url)
    look_s = RunnerSettings().idle_s  # the survivor's loops sleep at most this long
    bound_ms = max(TURN_MS, 300) + (LEASE_S + look_s + SLACK_S) * 1000
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


@contextlib.contextmanager
def stuck_mid_write(db_url: str, table_id: str) -> Iterator[int]:
    """A session as a matchmaker cut off in the middle of a write leaves it: inside a
    transaction, the table's row locked by an UPDATE whose batch never got its Sync (pipeline
    mode, flushed without one: as when a proxy or network stalls between the pieces of a
    large batch).  PostgreSQL sees it "active", waiting on its client, so the idle-in-
    transaction timeout (set as the matchmakers set it) never ends it."""
    conn = psycopg.connect(db_url, application_name=APPLICATION_NAME)
    try:
        conn.execute(f"SET idle_in_transaction_session_timeout = {int(LEASE_S * 1000)}")
        conn.commit()
        pid = conn.info.backend_pid
        pipeline = conn.pipeline()
        pipeline.__enter__()
        cur = conn.execute(
            "UPDATE mm_tables SET lease_ms = lease_ms WHERE table_id = %s RETURNING table_id",
            (table_id,),
        )
        assert cur.fetchone() is not None  # a Flush, not a Sync: the row is locked
        yield pid
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def test_a_peer_stuck_mid_write_holds_no_table(deployment: Deployment) -> None:
    """The flake of the partition test, made certain: a session stuck on its client inside a
    transaction holds a playing table's row.  Any instance ends it after a lease (the reaper),
    and the table goes on within the takeover bound; meanwhile both instances deliver every
    game's events to replay in order."""
    d = deployment
    ids = start_tables(d, 12)
    mid_game(d, ids)
    playing = [r.table_id for r in rows(d, ids) if r.state == "playing"]
    with stuck_mid_write(d.db_url, playing[0]) as pid:
        wait_all_over(d, ids, 120, "every game over despite the stuck session")
        assert not any(s.startswith(f"{pid} ") for s in sessions(d)), "the session lives on"
    check_games(d, ids)
    assert_outbox_in_order(d)


def stop_holding_leases(d: Deployment, ids: list[str]) -> set[str]:
    """SIGSTOP the first instance at a moment it holds the lease of a due playing table: a
    table still leased, due and unmoved 0.5 s later, while the second instance runs, is the
    stopped one's.  Those tables."""
    mm = d.matchmakers[0]
    # A lease lives only while an instance works a claimed table (milliseconds a step): a stop
    # at a random moment mostly catches none (a run of 600 tries once ran past the games' end).
    # So the first instance's engine calls are held first (its proxy stops forwarding): the
    # tables it claims meanwhile stay claimed, mid-step, when it is stopped.  Its calls go on
    # after SIGCONT, with answers for states the other instance has moved past.
    for _ in range(20):
        d.engine_proxy.pause()
        time.sleep(0.3)  # it claims due tables and waits on the engine
        mm.stop_signal()
        d.engine_proxy.resume()
        now = int(time.time() * 1000)
        before = {r.table_id: r.seq for r in rows(d, ids)
                  if r.state == "playing" and r.lease_ms > now}  # fmt: skip
        if before:
            time.sleep(0.5)
            now = int(time.time() * 1000)
            held = {
                r.table_id for r in rows(d, ids)
                if r.table_id in before and r.seq == before[r.table_id]
                and r.due_ms is not None and r.due_ms <= now
            }  # fmt: skip
            if held:
                return held
        mm.cont_signal()
        if not any(r.state == "playing" for r in rows(d, ids)):
            break  # every game ended first: say so below
        time.sleep(0.2)
    playing = sum(r.state == "playing" for r in rows(d, ids))
    raise AssertionError(
        f"the first instance never held a lease when stopped ({playing} tables still playing)"
    )


def test_a_stopped_instance_holding_leases_is_taken_over(deployment: Deployment) -> None:
    """SIGSTOP an instance while it holds leases on running tables (bots thinking): the other
    drives every due deadline within the bound (timer + lease + slack, in check_games); after
    SIGCONT the first writes nothing stale (no seq skipped, every game verifies)."""
    d = deployment
    ids = start_tables(d, 16)
    mid_game(d, ids)
    held = stop_holding_leases(d, ids)
    try:
        wait_all_over(d, ids, 120, "every game over while the first instance is stopped")
    finally:
        d.matchmakers[0].cont_signal()
    print(f"taken over while leased by the stopped instance: {len(held)} tables")
    time.sleep(LEASE_S + 1)  # let it try its stale writes
    check_games(d, ids)
    ticket = d.mm(0).Enqueue(M.EnqueueRequest(player_id="back", variant="doudizhu3"), timeout=30)
    assert ticket.ticket_id
