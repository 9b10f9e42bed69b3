"""The matchmaker's database work: tickets and seating, table rows and their conditional
writes, the table log, the outbox and request ids.  Synchronous SQLAlchemy; the runner calls
it from worker threads.

Every table write is ``UPDATE mm_tables … WHERE table_id = :id AND seq = :old_seq``: a writer
that lost the race (another instance or task moved the table on) writes nothing and raises
:class:`Conflict`, and the caller reloads.  Seating runs in one transaction over the pool's
queued tickets (``FOR UPDATE`` on PostgreSQL, the SQLite write lock otherwise);
``mm_holds`` makes a second live ticket or seat of one player impossible whatever the code
above does.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from services import rules
from services.common.db import answers
from services.common.wire import TABLE_EVENT_TYPES, common_pb2, matchmaker_pb2, replay_pb2
from services.ratings import tables as ratings
from services.ratings.model import closest_level

from . import seating
from .backends import FIXED, Conflict, PostgresBackend, backend_for, results_rows
from .backends import outbox_rows as backend_outbox_rows
from .bots import AUTO_LEVEL
from .bots import VERSION as BOTS_VERSION
from .models import (
    holds,
    outbox,
    player_stats,
    requests,
    streams,
    table_events,
    tables,
    tickets,
)
from .table import Effects, Note, Seat, State, Table, close_if_empty

#: Table events one read of a seat's stream returns at most.
EVENTS_PAGE = 500


# The statements of the per-action path, built once: building a SQLAlchemy statement (and
# its cache key) costs more CPU than the database spends running it.
_LOAD = select(tables).where(tables.c.table_id == bindparam("p_table_id"))
#: The conditional write; the SET clause comes from the parameters (every column that can
#: change: variant, config and created_ms never do, and are not re-sent).
_UPDATE = update(tables).where(
    tables.c.table_id == bindparam("p_table_id"), tables.c.seq == bindparam("p_old_seq")
)


_INSERT_EVENTS = insert(table_events)
_INSERT_OUTBOX = insert(outbox)
_EVENTS_AFTER = (
    select(table_events.c.seq, table_events.c.to_seat, table_events.c.body)
    .where(
        table_events.c.table_id == bindparam("p_table_id"),
        table_events.c.seq > bindparam("p_after"),
        (table_events.c.to_seat.is_(None)) | (table_events.c.to_seat == bindparam("p_seat")),
    )
    .order_by(table_events.c.seq)
    .limit(EVENTS_PAGE)
)
_REQUEST = select(requests).where(
    requests.c.table_id == bindparam("p_table_id"),
    requests.c.request_id == bindparam("p_request_id"),
)


F = TypeVar("F", bound=Callable[..., Any])


def on_loop(fn: F) -> F:
    """Marks a store call short enough (one small transaction or read, bounded rows) to run
    on the event loop's own thread on SQLite (Runner.db): a hop to a database thread and
    back cost more CPU than such a call itself.  A call that would wait for the write lock
    goes to a thread after all (backends.WouldWait)."""
    fn.on_loop = True  # type: ignore[attr-defined]
    return fn


def now_ms() -> int:
    return int(time.time() * 1000)


class HeldError(Exception):
    """A player already holds a live ticket (``seated`` false) or a seat."""

    def __init__(self, player_id: str, seated: bool) -> None:
        super().__init__(player_id)
        self.player_id = player_id
        self.seated = seated


@dataclass
class Write(Effects):
    """What one conditional write commits besides the table row: the table's effects (its
    events, released holds, seats to refill, players' results; services/matchmaker/table.py)
    and the runner's (the engine's events for replay, an Act's answer)."""

    outbox: list[replay_pb2.AppendEventsRequest] = field(default_factory=list)
    #: (table_id, request_id, body_hash, response) of an idempotent Act.
    request: tuple[str, str, bytes, matchmaker_pb2.ActResponse] | None = None
    #: The outbox rows are due this long after the write (RunnerSettings.outbox_gather_ms).
    outbox_delay_ms: int = 0
    #: Filled by the write: (to_seat, TableEvent with its table id and seq) of each note.
    written: list[tuple[int | None, matchmaker_pb2.TableEvent]] = field(default_factory=list)


def event_of(note: Note) -> matchmaker_pb2.TableEvent:
    """The TableEvent a note publishes (without table_id and seq, filled in at the write)."""
    if note.type == "game":
        return matchmaker_pb2.TableEvent(type="game", game_event=note.body)
    return table_event(note.type, note.data)


def pool_key(config: dict[str, Any]) -> str:
    """Tickets wait with others of the same variant, room (its table settings, the skill
    window among them, included), timers, bot level and code."""
    same = {k: v for k, v in config.items() if k not in ("bot_fill_after_ms", "bots")}
    raw = json.dumps(same, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()


def window_of(config: dict[str, Any]) -> seating.Window:
    """The skill window of a pool's (or table's) room: its table settings, in the room's
    stored ``overrides_json`` (Enqueue checked them), else the defaults."""
    return _window(config["room"].get("overrides_json") or "{}")


def room_message(config: dict[str, Any]) -> common_pb2.Room:
    """A table's room (as Enqueue stored it in its config) as the wire's message."""
    room = config["room"]
    msg = common_pb2.Room(stake=room["stake"], overrides_json=room.get("overrides_json", ""))
    if room.get("max_multiplier") is not None:
        msg.max_multiplier = room["max_multiplier"]
    if room.get("escape_multiplier") is not None:
        msg.escape_multiplier = room["escape_multiplier"]
    return msg


@functools.lru_cache(maxsize=256)
def _window(overrides_json: str) -> seating.Window:
    return seating.Window.of_settings(rules.Room.from_dict(json.loads(overrides_json)).skill)


def ticket_pool_key(pool: str) -> str:
    """The wake-up key (Waker, NOTIFY) of a pool's tickets: woken when some of them are
    seated or cancelled, for the WatchTicket streams.  No ``:`` (a table write's key is
    ``table_id:seq``)."""
    return f"pool/{pool}"


#: How many times a seating pass that lost a race to another pass looks again at once (each
#: loss means the other pass seated tickets: the queue shrinks every time).
SEATING_TRIES = 10


def bot_seat(level: str) -> Seat:
    """A new bot of ``level`` for a seat (its id unique: ``bot:<level>:<12 hex digits>:v<the
    bots' version>``)."""
    return Seat.for_bot(level, uuid.uuid4().hex[:12], BOTS_VERSION)


class Store:
    def __init__(self, engine: Engine, *, lock_pools: bool = True) -> None:
        self.engine = engine
        #: Seating locks the pool's queued tickets (FOR UPDATE).  Off only in a test that
        #: shows the conditional writes of :meth:`_form` alone still seat nobody twice.
        self.lock_pools = lock_pools
        #: What differs between SQLite and PostgreSQL, in one place (backends.py).
        self.backend = backend_for(engine)
        #: Single-statement reads (autocommit).
        self.reader = self.backend.reader

    def close(self) -> None:
        """Close every pooled connection (the server stopped)."""
        self.backend.close()

    # ------------------------------------------------------------------ helpers
    def _tx(self) -> contextlib.AbstractContextManager[Connection]:
        """A write transaction (on SQLite, this process's writers queue for it here)."""
        return self.backend.transaction()

    def _any(self, query: Any) -> bool:
        with self.reader.connect() as conn:
            return conn.execute(query).first() is not None

    def _notify(self, conn: Connection, key: str) -> None:
        self.backend.notify(conn, key)

    def reap_stuck(self, older_ms: int) -> list[int]:
        """End the database sessions of any instance stuck on their client inside a
        transaction for over ``older_ms`` (PostgreSQL; backends.PostgresBackend)."""
        return self.backend.reap_stuck(older_ms)

    # ------------------------------------------------------------------ tickets
    def enqueue(
        self,
        *,
        player_id: str,
        players: Sequence[str],
        config: dict[str, Any],
        request_id: str,
        fill_after_ms: int,
        ttl_ms: int,
    ) -> tuple[dict[str, Any], bool]:
        """A new queued ticket (and the holds of its players), or the ticket an earlier
        Enqueue with ``request_id`` made (second value true).  HeldError when a player
        already holds a ticket or seat."""
        now = now_ms()
        with self._tx() as conn:
            if request_id:
                old = conn.execute(
                    select(tickets).where(tickets.c.request_id == request_id)
                ).first()
                if old is not None:
                    return dict(old._mapping), True
            ticket_id = uuid.uuid4().hex
            row = {
                "ticket_id": ticket_id,
                "player_id": player_id,
                "players": list(players),
                "pool": pool_key(config),
                "variant": config["variant"],
                "config": config,
                "state": "queued",
                "table_id": None,
                "seats": None,
                "request_id": request_id or None,
                "created_ms": now,
                "fill_ms": now + fill_after_ms if fill_after_ms >= 0 else None,
                "expires_ms": now + ttl_ms,
            }
            for p in players:
                held = conn.execute(select(holds).where(holds.c.player_id == p)).first()
                if held is not None:
                    raise HeldError(p, held.table_id is not None)
            try:
                with conn.begin_nested():
                    conn.execute(
                        insert(holds),
                        [{"player_id": p, "ticket_id": ticket_id} for p in players],
                    )
            except IntegrityError:
                # A concurrent Enqueue of the same player won: the key is the rule.
                raise HeldError(players[0], False) from None
            conn.execute(insert(tickets).values(**row))
        return row, False

    def ticket(self, ticket_id: str, touch_ttl_ms: int = 0) -> dict[str, Any] | None:
        with self._tx() as conn:
            row = conn.execute(select(tickets).where(tickets.c.ticket_id == ticket_id)).first()
            if row is None:
                return None
            out = dict(row._mapping)
            if touch_ttl_ms and out["state"] == "queued":
                out["expires_ms"] = now_ms() + touch_ttl_ms
                conn.execute(
                    update(tickets)
                    .where(tickets.c.ticket_id == ticket_id, tickets.c.state == "queued")
                    .values(expires_ms=out["expires_ms"])
                )
            return out

    def cancel(self, ticket_id: str) -> tuple[dict[str, Any] | None, bool]:
        """(ticket, whether this call cancelled it)."""
        with self._tx() as conn:
            row = conn.execute(
                select(tickets).where(tickets.c.ticket_id == ticket_id).with_for_update()
            ).first()
            if row is None:
                return None, False
            if row.state != "queued":
                return dict(row._mapping), False
            conn.execute(
                update(tickets).where(tickets.c.ticket_id == ticket_id).values(state="cancelled")
            )
            conn.execute(delete(holds).where(holds.c.ticket_id == ticket_id))
            self._notify(conn, ticket_pool_key(row.pool))
            out = dict(row._mapping)
            out["state"] = "cancelled"
            return out, True

    def expire(self) -> int:
        now = now_ms()
        with self._tx() as conn:
            ids = [
                r.ticket_id
                for r in conn.execute(
                    select(tickets.c.ticket_id)
                    .where(tickets.c.state == "queued", tickets.c.expires_ms <= now)
                    .limit(500)
                    .with_for_update(skip_locked=True)
                )
            ]
            if not ids:
                return 0
            conn.execute(
                update(tickets).where(tickets.c.ticket_id.in_(ids)).values(state="expired")
            )
            conn.execute(delete(holds).where(holds.c.ticket_id.in_(ids)))
        return len(ids)

    def tickets_due(self) -> tuple[int | None, int | None]:
        """The first bot fill time and the first expiry of the queued tickets (the seating
        loop's look, one read: it takes SQLite's write lock only when one is due)."""
        with self.reader.connect() as conn:
            row = conn.execute(
                select(func.min(tickets.c.fill_ms), func.min(tickets.c.expires_ms)).where(
                    tickets.c.state == "queued"
                )
            ).first()
        return (None, None) if row is None else (row[0], row[1])

    def pools_due(self) -> list[str]:
        """Pools with a queued ticket whose bot fill time has come."""
        now = now_ms()
        with self.reader.connect() as conn:
            return [
                r.pool
                for r in conn.execute(
                    select(tickets.c.pool)
                    .where(tickets.c.state == "queued", tickets.c.fill_ms <= now)
                    .distinct()
                    .limit(100)
                )
            ]

    def pools_widening(self, since_ms: int) -> list[tuple[str, int]]:
        """The pools whose tables may form with no new ticket as their skill windows widen
        (seating.Window): two or more queued tickets in a pool that is not private, some of
        whose windows did not reach anyone by ``since_ms``.  Each with the time the last of
        its windows reaches anyone (its last bot fill time, or the last ticket's created time
        plus the room's anyone_ms where a ticket never gets bots); after that only a new
        ticket or a bot fill time changes what the pool seats, and those seat it already."""
        t = tickets.c
        with self.reader.connect() as conn:
            rows = conn.execute(
                select(
                    t.pool,
                    func.count().label("queued"),
                    func.count(t.fill_ms).label("with_bots"),
                    func.max(t.fill_ms).label("last_fill"),
                    func.max(t.created_ms).label("last_created"),
                )
                .where(t.state == "queued")
                .group_by(t.pool)
                .having(func.count() >= 2)
                .limit(100)
            ).all()
            out: list[tuple[str, int]] = []
            for r in rows:
                config = conn.execute(
                    select(t.config).where(t.state == "queued", t.pool == r.pool).limit(1)
                ).scalar()
                if config is None or config.get("private_code"):
                    continue  # seated meanwhile, or private: anyone sits with anyone
                until = int(r.last_fill or 0)
                if r.with_bots < r.queued:  # some never get bots: anyone after anyone_ms
                    until = max(until, int(r.last_created) + window_of(config).anyone_ms)
                if until > since_ms:
                    out.append((str(r.pool), until))
        return out

    def seat_pool(self, pool: str, limit: int = 3000) -> list[str]:
        """Form every table the pool's queued tickets allow now, in one transaction: full
        tables first come first seated, then one table filled with bots when its oldest
        ticket has waited its bot fill time.  The ids of the tables formed."""
        for _ in range(SEATING_TRIES):
            try:
                return self._seat_pool(pool, limit)
            except Conflict:
                # Another pass seated some of these tickets first (or a player's hold
                # moved): look again now.  Returning empty-handed left the tickets it had
                # not seated queued until the next enqueue or bot fill time, for good in
                # a pool that never fills with bots (a CI run: 3 of 300 players).
                continue
        return []

    def _seat_pool(self, pool: str, limit: int) -> list[str]:
        now = now_ms()
        formed: list[str] = []
        with self._tx() as conn:
            query = (
                select(tickets)
                .where(tickets.c.state == "queued", tickets.c.pool == pool)
                .order_by(tickets.c.created_ms, tickets.c.ticket_id)
                .limit(limit)
            )
            if self.lock_pools:
                # Not SKIP LOCKED: two seating passes over one pool that each skipped the
                # other's rows could each see too few tickets and leave both halves waiting.
                # They queue on the rows instead (locked in one order: no deadlock), and the
                # later one sees the earlier one's tickets seated.
                query = query.with_for_update()
            rows = conn.execute(query).all()
            if not rows:
                return formed
            config = rows[0].config
            private = bool(config.get("private_code"))
            skill = self._skill(conn, config, [] if private else rows)
            groups = seating.tables_to_form(
                rows, int(config["players"]), now, skill, window_of(config), private
            )
            if not groups:
                return formed
            table_rows: list[dict[str, Any]] = []
            event_rows: list[dict[str, Any]] = []
            for group in groups:
                table, evs = self._form(conn, group, now, skill)
                table_rows.append(table.values())
                event_rows.extend(evs)
                formed.append(table.table_id)
            conn.execute(insert(tables), table_rows)
            conn.execute(insert(table_events), event_rows)
            for tid in formed:
                self._notify(conn, tid)
            self._notify(conn, ticket_pool_key(pool))
        return formed

    def _skill(
        self,
        conn: Connection,
        config: dict[str, Any],
        rows: Sequence[Any],
        also: Sequence[str] = (),
    ) -> dict[str, float]:
        """The mu of the rated players of ``rows`` (and of ``also``) in the pool's variant
        (the ratings replay writes, in the database the two services share)."""
        if not rows:
            return {}
        players = [p for r in rows for p in r.players] + list(also)
        return ratings.mus_of(conn, config["variant"], players)

    @staticmethod
    def _bot_level(
        conn: Connection, config: dict[str, Any], seats: list[Seat], skill: dict[str, float]
    ) -> str:
        """The table's bot level: the ticket's, or for "auto" the level whose fixed rating is
        nearest the mean mu of the table's people in the variant (a new player: 0)."""
        if config["bot_level"] != AUTO_LEVEL:
            return str(config["bot_level"])
        people = [s.player_id for s in seats]
        if not skill:  # a private pool is seated without ratings
            skill = ratings.mus_of(conn, config["variant"], people)
        mean = sum(skill.get(p, 0.0) for p in people) / max(len(people), 1)
        return closest_level(mean, rules.variant(config["variant"]).family)

    def _form(
        self, conn: Connection, group: list[Any], now: int, skill: dict[str, float]
    ) -> tuple[Table, list[Any]]:
        config = dict(group[0].config)
        n = int(config["players"])
        table_id = uuid.uuid4().hex
        placed = seating.seats_of(group)
        seats = [Seat.human(p) for ticket in group for p in ticket.players]
        # The table keeps the level chosen now, for every bot it ever seats ("bots": beside
        # the level asked for, which names the table's pool for refills).
        config["bots"] = self._bot_level(conn, config, seats, skill)
        while len(seats) < n:
            seats.append(bot_seat(config["bots"]))
        for ticket, mine in placed:
            # Conditional writes, the last line behind the pool lock: a ticket is seated
            # once, a hold (one per player: its key) gets one table.  A pass that lost the
            # race rolls back whole (Conflict) and the seating loop looks again.
            done = conn.execute(
                update(tickets)
                .where(tickets.c.ticket_id == ticket.ticket_id, tickets.c.state == "queued")
                .values(state="seated", table_id=table_id, seats=mine)
            )
            if done.rowcount != 1:
                raise Conflict(ticket.ticket_id)
            for p, seat in zip(ticket.players, mine, strict=True):
                done = conn.execute(
                    update(holds)
                    .where(
                        holds.c.player_id == p,
                        holds.c.ticket_id == ticket.ticket_id,
                        holds.c.table_id.is_(None),
                    )
                    .values(table_id=table_id, seat=seat)
                )
                if done.rowcount != 1:
                    raise Conflict(ticket.ticket_id)
        table = Table(
            table_id=table_id,
            variant=config["variant"],
            config=config,
            state=State.WAITING,
            seq=0,
            seats=seats,
            start_deadline_ms=now + int(config["timers"]["start_ms"]),
            created_ms=now,
            updated_ms=now,
        )
        evs = []
        for i, s in enumerate(seats):
            kind = "bot_joined" if s.bot else "seated"
            ev = table_event(kind, {"seat": i, "player_id": s.player_id, "bot": s.bot})
            table.seq += 1
            ev.table_id, ev.seq = table_id, table.seq
            evs.append(
                {"table_id": table_id, "seq": table.seq, "to_seat": None,
                 "body": ev.SerializeToString()}
            )  # fmt: skip
        table.due_ms = table.compute_due()
        return table, evs

    def holder(self, player_id: str) -> dict[str, Any] | None:
        with self.reader.connect() as conn:
            row = conn.execute(select(holds).where(holds.c.player_id == player_id)).first()
            return None if row is None else dict(row._mapping)

    def player_stats(self, player_id: str) -> list[dict[str, Any]]:
        """The player's rows of mm_player_stats, one per family played."""
        with self.reader.connect() as conn:
            rows = conn.execute(
                select(player_stats)
                .where(player_stats.c.player_id == player_id)
                .order_by(player_stats.c.family)
            )
            return [dict(r._mapping) for r in rows]

    # ------------------------------------------------------------------ ratings
    # Replay writes them (services/ratings) in the database the two services share.
    def player_ratings(self, player_id: str) -> list[ratings.PlayerRating]:
        with self.reader.connect() as conn:
            return ratings.ratings_of(conn, player_id)

    def rating_change(self, game_id: str, player_id: str) -> dict[str, Any] | None:
        with self.reader.connect() as conn:
            return ratings.change_of(conn, game_id, player_id)

    def leaderboard(
        self, variant: str, after: tuple[float, str, int] | None, limit: int
    ) -> list[ratings.PlayerRating]:
        with self.reader.connect() as conn:
            return ratings.leaderboard(conn, variant, after, limit)

    def mean_ratings(self, variant: str, players: Sequence[str]) -> dict[str, float]:
        """The mu of each of ``players`` rated in ``variant`` (the unrated are missing)."""
        if not players:
            return {}
        with self.reader.connect() as conn:
            return ratings.mus_of(conn, variant, players)

    # ------------------------------------------------------------------ tables
    @on_loop
    def load(self, table_id: str) -> Table | None:
        with self.reader.connect() as conn:
            row = conn.execute(_LOAD, {"p_table_id": table_id}).first()
        return None if row is None else Table.from_values(dict(row._mapping))

    @on_loop
    def write(self, table: Table, old_seq: int, w: Write, hold_ms: int = 0) -> Table:
        """Commit ``table`` (its new state), conditional on its seq still being ``old_seq``,
        with the table events, outbox rows, released holds and request id of ``w``.

        ``hold_ms``: the writer takes the table's next step itself, at once when it is already
        due (a bot without think time, an auto-play seat) or at its due time (a timer), so it
        keeps the table leased until then and this long more instead of every instance's
        deadline loop claiming it meanwhile."""
        table = self._write_refilled(table, old_seq, w, hold_ms)
        self.backend.announce(f"{table.table_id}:{table.seq}")
        return table

    def _write_refilled(self, table: Table, old_seq: int, w: Write, hold_ms: int) -> Table:
        if w.refill:
            # The refill changes ``table`` and ``w`` as it seats tickets: undone if the
            # transaction fails, so that a retry (Runner._in, after an outage) refills
            # again rather than write seats whose tickets were rolled back.
            seats, notes, refill = copy.deepcopy(table.seats), list(w.notes), w.refill
            state, start = table.state, table.start_deadline_ms
            try:
                with self._tx() as conn:
                    self._refill(conn, table, w)
                    return self._write(conn, table, old_seq, w, hold_ms)
            except BaseException:
                table.seats, w.notes[:], w.refill = seats, notes, refill
                table.state, table.start_deadline_ms = state, start
                raise
        return self._write(None, table, old_seq, w, hold_ms)

    def _refill(self, conn: Connection, table: Table, w: Write) -> None:
        """Seat the pool's next waiting tickets in the seats of ``w.refill``, first come
        first seated among those whose skill window reaches the mean rating of the people
        still at the table (seating.refill; a party only where enough seats are free); a bot
        keeps every seat no ticket takes.

        The tickets are locked in the seating pass's order, waiting for other holders, not
        skipping them (SKIP LOCKED): a ticket is locked for a moment whenever its owner
        polls it (GetTicket keeps it alive), and for a whole pass whenever a seating pass
        looks at its pool, and a skipped ticket would wait on while a bot took the seat.
        After the wait PostgreSQL re-checks ``state``: a ticket that pass seated drops out.
        The oldest 64 are read (locked): enough for the window to pass over a few out of
        reach; a ticket further back waits for a seating pass or its own bot fill time."""
        free = sorted(w.refill)
        now = now_ms()
        rows = conn.execute(
            select(tickets)
            .where(tickets.c.state == "queued", tickets.c.pool == pool_key(table.config))
            .where(tickets.c.expires_ms > now)
            .order_by(tickets.c.created_ms, tickets.c.ticket_id)
            .limit(max(64, 4 * len(free)))
            .with_for_update()
        ).all()
        private = bool(table.config.get("private_code"))
        people = [s.player_id for i, s in enumerate(table.seats) if not s.bot and i not in free]
        skill: dict[str, float] | None = None
        mean: float | None = None
        if rows and people and not private:
            skill = self._skill(conn, table.config, rows, people)
            mean = sum(skill.get(p, 0.0) for p in people) / len(people)
        chosen = seating.refill(rows, free, now, skill, window_of(table.config), mean, private)
        for r, mine in chosen:
            conn.execute(
                update(tickets)
                .where(tickets.c.ticket_id == r.ticket_id)
                .values(state="seated", table_id=table.table_id, seats=mine)
            )
            for p, seat in zip(r.players, mine, strict=True):
                done = conn.execute(
                    update(holds)
                    .where(holds.c.player_id == p, holds.c.ticket_id == r.ticket_id)
                    .values(table_id=table.table_id, seat=seat)
                )
                if done.rowcount != 1:  # pragma: no cover - the hold is the ticket's
                    raise RuntimeError(f"player {p} has no hold for ticket {r.ticket_id}")
                table.seats[seat] = Seat.human(p)
                w.note("seated", seat=seat, player_id=p, bot=False)
            self._notify(conn, ticket_pool_key(r.pool))
        taken = {seat for _, mine in chosen for seat in mine}
        for seat in free:
            if seat not in taken:
                w.note("bot_joined", seat=seat, player_id=table.seats[seat].player_id, bot=True)
        w.refill = []
        if w.close_if_empty:
            close_if_empty(table, w)

    async def write_on_loop(
        self, table: Table, old_seq: int, w: Write, hold_ms: int = 0
    ) -> Table | None:
        """:meth:`write` on the event loop (PostgreSQL; backends.PostgresBackend.write_on_loop),
        for a write that is one statement (no holds to release or seats to refill); None
        when it did not run here: then :meth:`write` in a database thread."""
        if not self.backend.postgres or w.refill or w.release:
            return None
        values, ev_rows, now = self._prepare(table, old_seq, w, hold_ms)
        assert isinstance(self.backend, PostgresBackend)
        if not await self.backend.write_on_loop(table, values, ev_rows, w, now):
            return None
        self.backend.announce(f"{table.table_id}:{table.seq}")
        return table

    def _write(
        self, conn: Connection | None, table: Table, old_seq: int, w: Write, hold_ms: int = 0
    ) -> Table:
        values, ev_rows, now = self._prepare(table, old_seq, w, hold_ms)
        if conn is None and not w.release:
            done = self.backend.write_in_one_statement(table, values, ev_rows, w, now)
            if done is not None:
                return done
        with contextlib.nullcontext(conn) if conn is not None else self._tx() as conn:
            self._write_rows(conn, table, values, ev_rows, w, now)
        return table

    @staticmethod
    def _prepare(
        table: Table, old_seq: int, w: Write, hold_ms: int
    ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
        """The table's new seq, due time and lease, its events numbered (``w.written``): the
        row's values, the event rows and the write's time.  The same again for the same
        ``old_seq``, so that a write that did not run can be made once more."""
        now = now_ms()
        ev_rows = []
        seq = old_seq
        w.written = []
        for note in w.notes:
            to_seat, ev = note.to, event_of(note)
            w.written.append((to_seat, ev))
            seq += 1
            ev.table_id, ev.seq = table.table_id, seq
            if not ev.HasField("at"):
                ev.at.FromMilliseconds(now)
            ev_rows.append(
                {"table_id": table.table_id, "seq": seq, "to_seat": to_seat,
                 "body": ev.SerializeToString()}
            )  # fmt: skip
        if not w.notes:
            seq += 1  # every write moves the seq on, so two writers can never both win
        table.seq = seq
        table.updated_ms = now
        table.due_ms = table.compute_due()
        # The writer steps the table next itself (Runner.commit: its advance loop goes on
        # when the step is due at once, else a timer here, schedule.Scheduler.step_at), so
        # it keeps it leased until then and ``hold_ms`` more: no deadline loop claims and
        # loads it meanwhile, and if the writer dies, one does ``hold_ms`` after it fell due.
        due = table.due_ms
        table.lease_ms = max(due, now) + hold_ms if hold_ms and due is not None else 0
        values = {k: v for k, v in table.values().items() if k not in FIXED}
        values["p_table_id"], values["p_old_seq"] = table.table_id, old_seq
        return values, ev_rows, now

    def _write_rows(
        self,
        conn: Connection,
        table: Table,
        values: dict[str, Any],
        ev_rows: list[dict[str, Any]],
        w: Write,
        now: int,
    ) -> None:
        """:meth:`_write`'s statements in the transaction ``conn``: the conditional UPDATE
        (Conflict when another writer moved the table), then its rows."""
        outbox_rows = backend_outbox_rows(w, now)
        matched = self.backend.write_table_rows(conn, values, ev_rows, outbox_rows)
        if matched is None:
            matched = conn.execute(_UPDATE, values).rowcount == 1
            if matched and ev_rows:
                conn.execute(_INSERT_EVENTS, ev_rows)
            if matched and outbox_rows:
                conn.execute(_INSERT_OUTBOX, outbox_rows)
        if not matched:
            raise Conflict(table.table_id)
        if w.results:
            conn.execute(self.backend.add_results, results_rows(w))
        if w.release:
            conn.execute(
                delete(holds).where(
                    holds.c.player_id.in_(w.release), holds.c.table_id == table.table_id
                )
            )
        if w.request is not None:
            tid, rid, digest, response = w.request
            try:
                with conn.begin_nested():
                    conn.execute(
                        insert(requests).values(
                            table_id=tid, request_id=rid, body_hash=digest,
                            response=response.SerializeToString(), created_ms=now,
                        )
                    )  # fmt: skip
            except IntegrityError:
                # The same request id won elsewhere meanwhile: this write must not land.
                raise Conflict(table.table_id) from None

    @on_loop
    def claim_due(self, limit: int, lease_ms: int) -> tuple[list[str], int | None]:
        """Tables with something due and no live lease: leased to this caller for
        ``lease_ms`` (another instance skips them until then).  Their ids, and when the
        next unleased table falls due (-1 when more are due now than ``limit``; None: none
        is known, e.g. only leased ones)."""
        now = now_ms()
        with self.reader.connect() as conn:
            # The first deadlines in order (the index on due_ms), one past the limit: how
            # many are due now, and the first one after them, for the loop's sleep.
            first: Sequence[int] = conn.execute(
                select(tables.c.due_ms)
                .where(tables.c.due_ms.is_not(None), tables.c.lease_ms <= now)
                .order_by(tables.c.due_ms)
                .limit(limit + 1)
            ).scalars().all()  # fmt: skip
        later = [d for d in first if d > now]
        if len(later) == len(first):
            return [], (later[0] if later else None)  # without taking SQLite's write lock
        next_ms = later[0] if later else (-1 if len(first) > limit else None)
        with self._tx() as conn:
            ids = [
                r.table_id
                for r in conn.execute(
                    select(tables.c.table_id)
                    .where(tables.c.due_ms <= now, tables.c.lease_ms <= now)
                    .order_by(tables.c.due_ms)
                    .limit(limit)
                    .with_for_update(skip_locked=True)
                )
            ]
            if ids:
                conn.execute(
                    update(tables).where(tables.c.table_id.in_(ids)).values(lease_ms=now + lease_ms)
                )
        return ids, next_ms

    @on_loop
    def claim(self, table_id: str, mine_ms: int, lease_ms: int) -> bool:
        """The table, if its next step is due and its lease is the one this caller's write
        gave it (``mine_ms``) or has lapsed: leased to this caller for ``lease_ms``.  Whether
        it was (not: another writer holds it, or nothing is due)."""
        now = now_ms()
        t = tables.c
        with self._tx() as conn:
            claimed = conn.execute(
                update(tables)
                .where(t.table_id == table_id, t.due_ms <= now)
                .where((t.lease_ms <= now) | (t.lease_ms == mine_ms))
                .values(lease_ms=now + lease_ms)
            )
            return bool(claimed.rowcount)

    @on_loop
    def lease(self, table_id: str, until_ms: int) -> None:
        with self._tx() as conn:
            conn.execute(
                update(tables).where(tables.c.table_id == table_id).values(lease_ms=until_ms)
            )

    @on_loop
    def events_after(self, table_id: str, seat: int, after: int) -> list[Any]:
        """The next page (:data:`EVENTS_PAGE`) of the table's events ``seat`` may read."""
        params = {"p_table_id": table_id, "p_after": after, "p_seat": seat}
        with self.reader.connect() as conn:
            return list(conn.execute(_EVENTS_AFTER, params))

    def request(self, table_id: str, request_id: str) -> Any:
        params = {"p_table_id": table_id, "p_request_id": request_id}
        with self.reader.connect() as conn:
            return conn.execute(_REQUEST, params).first()

    def list_tables(self, variant: str, state: str, limit: int) -> list[Table]:
        query = select(tables).order_by(tables.c.created_ms.desc()).limit(limit)
        if variant:
            query = query.where(tables.c.variant == variant)
        if state:
            query = query.where(tables.c.state == state)
        with self.reader.connect() as conn:
            return [Table.from_values(dict(r._mapping)) for r in conn.execute(query)]

    def counts(self) -> tuple[int, int]:
        with self.reader.connect() as conn:
            running = conn.execute(
                select(func.count()).select_from(tables).where(tables.c.state != "closed")
            ).scalar_one()
            queued = conn.execute(
                select(func.count()).select_from(tickets).where(tickets.c.state == "queued")
            ).scalar_one()
        return int(running), int(queued)

    # ------------------------------------------------------------------ streams
    def open_stream(
        self, stream_id: str, table_id: str, seat: int, player_id: str, instance: str,
        lease_ms: int,
    ) -> None:  # fmt: skip
        """An open Subscribe stream of ``seat``, live for ``lease_ms`` unless renewed."""
        with self._tx() as conn:
            conn.execute(
                insert(streams).values(
                    stream_id=stream_id, table_id=table_id, seat=seat, player_id=player_id,
                    instance=instance, lease_ms=now_ms() + lease_ms,
                )
            )  # fmt: skip

    def close_stream(self, stream_id: str, table_id: str, seat: int) -> bool:
        """The stream ended: its row goes.  Whether ``seat`` still has a live stream."""
        with self._tx() as conn:
            conn.execute(delete(streams).where(streams.c.stream_id == stream_id))
            return self._live(conn, table_id, seat)

    def renew_streams(self, instance: str, lease_ms: int) -> None:
        """This instance's streams are alive: their leases run ``lease_ms`` from now."""
        with self._tx() as conn:
            conn.execute(
                update(streams)
                .where(streams.c.instance == instance)
                .values(lease_ms=now_ms() + lease_ms)
            )

    def lapsed_streams(self, limit: int = 200) -> list[tuple[str, int, str]]:
        """Rows whose lease ran out (their instance died) go; the (table, seat, player) of
        each that has no live stream left, to be marked disconnected."""
        now = now_ms()
        if not self._any(select(streams.c.stream_id).where(streams.c.lease_ms <= now).limit(1)):
            return []
        out: list[tuple[str, int, str]] = []
        with self._tx() as conn:
            rows = conn.execute(
                select(streams)
                .where(streams.c.lease_ms <= now)
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            if not rows:
                return out
            conn.execute(
                delete(streams).where(streams.c.stream_id.in_([r.stream_id for r in rows]))
            )
            for key in {(r.table_id, r.seat, r.player_id) for r in rows}:
                if not self._live(conn, key[0], key[1]):
                    out.append(key)
        return out

    @on_loop
    def live_seats(self, table_id: str) -> set[int]:
        """The seats of ``table_id`` with a live stream on some instance."""
        with self.reader.connect() as conn:
            rows = conn.execute(
                select(streams.c.seat).where(
                    streams.c.table_id == table_id, streams.c.lease_ms > now_ms()
                )
            )
            return {int(r.seat) for r in rows}

    @staticmethod
    def _live(conn: Connection, table_id: str, seat: int) -> bool:
        return (
            conn.execute(
                select(streams.c.stream_id)
                .where(
                    streams.c.table_id == table_id,
                    streams.c.seat == seat,
                    streams.c.lease_ms > now_ms(),
                )
                .limit(1)
            ).first()
            is not None
        )

    # ------------------------------------------------------------------ outbox
    def claim_outbox(self, games: int, lease_ms: int, limit: int = 1000) -> list[Any]:
        """The undelivered rows (at most ``limit``, oldest first) of up to ``games`` games
        whose oldest row is due, claimed for ``lease_ms``.

        A game is claimed through its head, its oldest undelivered row: locked (SKIP LOCKED)
        and leased in ``next_try_ms``, so that while one instance delivers a game no other
        claims any row of it; rows written meanwhile wait until the claimed ones are
        delivered and gone, and then head the game.  Two instances thus never send a later
        batch of a game before an earlier one (replay would refuse it and both would back
        off).  A claim whose snapshot predates another's still loses: the head it locks was
        leased (PostgreSQL re-checks ``next_try_ms`` on the row it locks) or is gone."""
        now = now_ms()
        firsts = select(func.min(outbox.c.id)).group_by(outbox.c.game_id)
        with self._tx() as conn:
            heads = conn.execute(
                select(outbox.c.id, outbox.c.game_id)
                .where(outbox.c.id.in_(firsts), outbox.c.next_try_ms <= now)
                .order_by(outbox.c.id)
                .limit(games)
                .with_for_update(skip_locked=True)
            ).all()
            if not heads:
                return []
            conn.execute(
                update(outbox)
                .where(outbox.c.id.in_([r.id for r in heads]))
                .values(next_try_ms=now + lease_ms)
            )
            rows = conn.execute(
                select(outbox)
                .where(outbox.c.game_id.in_([r.game_id for r in heads]))
                .order_by(outbox.c.id)
                .limit(limit)
            ).all()
        return list(rows)

    def outbox_due(self) -> int | None:
        """When the first undelivered outbox row is due (None: there is none): the outbox
        loop's look, without taking SQLite's write lock."""
        with self.reader.connect() as conn:
            first: int | None = conn.execute(
                select(outbox.c.next_try_ms).order_by(outbox.c.next_try_ms).limit(1)
            ).scalar()
        return first

    @on_loop
    def delivered(self, ids: Iterable[int]) -> None:
        with self._tx() as conn:
            conn.execute(delete(outbox).where(outbox.c.id.in_(list(ids))))

    def retry_later(
        self, game_id: str, failed_id: int, attempts: int, delay_ms: int, error: str
    ) -> None:
        """Back off every undelivered row of the game together, so that they are claimed
        again together and delivered in order (replay refuses a gap)."""
        with self._tx() as conn:
            conn.execute(
                update(outbox)
                .where(outbox.c.game_id == game_id)
                .values(next_try_ms=now_ms() + delay_ms)
            )
            conn.execute(
                update(outbox)
                .where(outbox.c.id == failed_id)
                .values(attempts=attempts, last_error=error[:250])
            )

    def outbox_lag(self) -> tuple[int, float]:
        with self.reader.connect() as conn:
            row = conn.execute(select(func.count(), func.min(outbox.c.created_ms))).first()
        if row is None or not row[0]:
            return 0, 0.0
        return int(row[0]), max(0.0, (now_ms() - int(row[1])) / 1000.0)

    # ------------------------------------------------------------------ stuck peers
    def ping(self) -> bool:
        return answers(self.reader)

    def run(self, fn: Callable[[Connection], Any]) -> Any:
        with self._tx() as conn:
            return fn(conn)


def table_event(kind: str, data: dict[str, Any]) -> matchmaker_pb2.TableEvent:
    # Every table event type has its typed body (filled when sent): a new one needs its message
    # in matchmaker.proto and its name in wire.TABLE_EVENT_TYPES first.
    if kind not in TABLE_EVENT_TYPES:
        raise ValueError(f"table event type {kind!r} has no typed body (wire.TABLE_EVENT_TYPES)")
    return matchmaker_pb2.TableEvent(
        type=kind, data_json=json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    )
