"""The replay store: each game's events, in order, idempotent and tamper-evident.

Every event is stored as the exact bytes the writer sent, with
``hash = SHA-256(previous hash ‖ the event's bytes)``; the chain of a game starts from
``genesis_hash(game_id) = SHA-256(b"cardroom/v1 genesis\\0" ‖ UTF-8 game id)``, so events
cannot be moved between games or reordered without breaking it.  The head hash of a game can
be exported and compared anywhere.

Appends are one transaction: the events, the game's head, the request id that makes a retry
harmless (with a digest of the request's body: the same id with another body is refused),
and — when the append ends the game — the game's result and every player's running
total.  A wrong ``expected_seq`` raises :class:`SeqConflict`; the primary key (game_id, seq)
guarantees that concurrent writers never both succeed at one sequence number.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from services.common.reasons import RulesReason, ServiceReason

from .models import append_requests, events, game_players, games, player_stats

GENESIS_PREFIX = b"cardroom/v1 genesis\x00"
NOTIFY_CHANNEL = "cardroom_events"  # PostgreSQL: the payload is the game id
PUBLIC = -1


# The statements of the append fast path, built once: constructing a statement and its cache
# key costs more than running it on SQLite.
_GUARD = and_(
    games.c.game_id == bindparam("g"),
    games.c.head_seq == bindparam("old_seq"),
    games.c.head_hash == bindparam("old_hash"),
    games.c.status == "running",
)
_END_GAME = (
    update(games)
    .where(_GUARD)
    .values(
        head_seq=bindparam("new_seq"),
        head_hash=bindparam("new_hash"),
        status=bindparam("new_status"),
        ended_at=bindparam("ended"),
        result=bindparam("res", type_=games.c.result.type),
    )
)
_INSERT_EVENTS = insert(events)
_EVENT_COLUMNS = (
    "game_id", "seq", "type", "server_time", "actor", "cause", "visibility", "payload", "hash"
)  # fmt: skip
_REQUEST_COLUMNS = (
    "request_id", "game_id", "first_seq", "last_seq", "head_hash", "created_at", "body_hash"
)  # fmt: skip


class _Driver:
    """The hot path of an append in the database driver's own SQL.

    SQLAlchemy's per-statement and per-transaction work costs several times what SQLite
    itself spends on these few small statements, so the append of a running game (move the
    head, insert the events, record the request id, NOTIFY) runs on a pooled DBAPI
    connection (EventStore._fast_append), and the request id of every other append on the
    DBAPI cursor of its SQLAlchemy connection.  Values still pass through SQLAlchemy's own
    type processors, so the rows are exactly what the Core statements would have written."""

    def __init__(self, engine: Engine) -> None:
        dialect = engine.dialect
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        self.integrity_error: type[Exception] = dialect.loaded_dbapi.IntegrityError

        def processor(column: Any) -> Callable[[Any], Any]:
            process = column.type.bind_processor(dialect)
            return process if process is not None else (lambda value: value)

        self.event_processors = [processor(events.c[name]) for name in _EVENT_COLUMNS]
        self.request_processors = [processor(append_requests.c[n]) for n in _REQUEST_COLUMNS]
        self.move_head = (
            f"UPDATE games SET head_seq = {mark}, head_hash = {mark} WHERE game_id = {mark} "
            f"AND head_seq = {mark} AND head_hash = {mark} AND status = 'running'"
        )
        self.insert_events = (
            f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) "
            f"VALUES ({', '.join([mark] * len(_EVENT_COLUMNS))})"
        )
        self.insert_request = (
            f"INSERT INTO append_requests ({', '.join(_REQUEST_COLUMNS)}) "
            f"VALUES ({', '.join([mark] * len(_REQUEST_COLUMNS))})"
        )
        # PostgreSQL: move the head, record the request id and NOTIFY in one round trip; it
        # inserts (and returns) a row only when the head was where the writer said.
        self.advance = (
            f"WITH moved AS ({self.move_head} RETURNING game_id) "
            f"INSERT INTO append_requests ({', '.join(_REQUEST_COLUMNS)}) "
            f"SELECT {mark}, game_id, {mark}, {mark}, {mark}, {mark}, {mark} FROM moved "
            f"RETURNING pg_notify({mark}, game_id)"
        )

    def event_row(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(p(row[c]) for p, c in zip(self.event_processors, _EVENT_COLUMNS, strict=True))

    def request_row(self, values: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(p(v) for p, v in zip(self.request_processors, values, strict=True))


def _cursor(conn: Connection) -> Any:
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    return dbapi.cursor()


def genesis_hash(game_id: str) -> bytes:
    return hashlib.sha256(GENESIS_PREFIX + game_id.encode()).digest()


def chain_hash(previous: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(previous + payload).digest()


class StoreError(Exception):
    reason: str = ServiceReason.STORE_ERROR


class SeqConflict(StoreError):
    """The game's head is not where the writer expected it (gRPC ABORTED)."""

    reason: str = ServiceReason.SEQ_CONFLICT

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        self.expected, self.actual = expected, actual
        super().__init__(f"game {game_id!r} is at seq {actual}, not {expected}")


class GameNotFound(StoreError):
    reason: str = ServiceReason.GAME_NOT_FOUND


class BadAppend(StoreError):
    """An append that can never succeed as sent (gRPC INVALID_ARGUMENT/FAILED_PRECONDITION)."""

    reason: str = ServiceReason.BAD_APPEND

    def __init__(self, message: str, reason: str = ServiceReason.BAD_APPEND) -> None:
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True)
class NewEvent:
    """One event to append; ``payload`` is stored and hashed exactly as given."""

    type: str
    payload: bytes
    actor: str
    cause: str = "player"
    visibility: int = PUBLIC
    server_time: datetime | None = None  # None: the store's clock


@dataclass(frozen=True)
class GameHeader:
    """What the first append of a game declares about it."""

    variant: str
    rules_version: int
    players: Sequence[str]


@dataclass(frozen=True)
class GameEnding:
    """The outcome, when an append ends the game: status and one score per seat."""

    status: str
    scores: Sequence[int]
    family: str
    result: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AppendResult:
    first_seq: int
    last_seq: int
    head_hash: bytes
    replayed: bool = False  # true when a retried request id returned the first answer


@dataclass(frozen=True)
class StoredEvent:
    game_id: str
    seq: int
    type: str
    server_time: datetime
    actor: str
    cause: str
    visibility: int
    payload: bytes
    hash: bytes


@dataclass(frozen=True)
class GameRow:
    game_id: str
    variant: str
    rules_version: int
    status: str
    created_at: datetime
    ended_at: datetime | None
    head_seq: int
    head_hash: bytes
    result: dict[str, Any] | None
    players: tuple[str, ...]


@dataclass(frozen=True)
class PlayerStats:
    player_id: str
    family: str
    games: int
    total: int
    last_game_id: str
    last_score: int
    updated_at: datetime | None = None


def _utc_now() -> datetime:
    return datetime.now(UTC)


class EventStore:
    """The replay store over one SQLAlchemy engine (SQLite or PostgreSQL)."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = _utc_now) -> None:
        self.engine = engine
        self.clock = clock
        self._pg = engine.dialect.name == "postgresql"
        # game id -> (seq, hash) of the head this store last appended (running games only).
        self._heads: dict[str, tuple[int, bytes]] = {}
        self._heads_lock = threading.Lock()
        self._driver = _Driver(engine)

    # ------------------------------------------------------------------ writing
    def append(
        self,
        game_id: str,
        expected_seq: int,
        new_events: Sequence[NewEvent],
        request_id: str,
        header: GameHeader | None = None,
        ending: GameEnding | None = None,
        digest: bytes = b"",
        expected_hash: bytes | None = None,
    ) -> AppendResult:
        """Append ``new_events`` after ``expected_seq`` (0 creates the game, with
        ``header``).  Retrying the same ``request_id`` with the same request ``digest`` returns
        the first answer; another digest under a used id is refused (REQUEST_ID_REUSED).
        ``expected_hash``, when given, must be the head's hash too (the writer validated the
        events against the game at that head)."""
        if not game_id or len(game_id) > 64:
            raise BadAppend("game_id must be 1–64 characters", ServiceReason.BAD_GAME_ID)
        if not request_id or len(request_id) > 128:
            raise BadAppend("request_id must be 1–128 characters", ServiceReason.BAD_REQUEST_ID)
        if not new_events:
            raise BadAppend("an append needs at least one event", ServiceReason.NO_EVENTS)
        try:
            fast = self._fast_append(
                game_id, expected_seq, new_events, request_id, ending, digest, expected_hash
            )
            if fast is not None:
                result = fast
            else:
                result = self._slow_append(
                    game_id, expected_seq, new_events, request_id, header, ending, digest,
                    expected_hash,
                )  # fmt: skip
        except (IntegrityError, self._driver.integrity_error, SeqConflict, BadAppend) as exc:
            self._forget(game_id)
            # A retry of an answered request finds the head moved on (or the game over), and a
            # concurrent writer may have got there first: either way, a request id already
            # answered gets its first answer.  Only a failed append pays for this look-up.
            with self.engine.connect() as conn:
                done = self._replayed(conn, game_id, request_id, digest)
                if done is not None:
                    return done
                if not isinstance(exc, IntegrityError | self._driver.integrity_error):
                    raise
                actual = self._head(conn, game_id)
            raise SeqConflict(game_id, expected_seq, actual[0] if actual else 0) from None
        except BaseException:
            self._forget(game_id)
            raise
        if ending is None:
            with self._heads_lock:
                if len(self._heads) > 10_000:
                    self._heads.clear()
                self._heads[game_id] = (result.last_seq, result.head_hash)
        else:
            self._forget(game_id)
        return result

    def _slow_append(
        self,
        game_id: str,
        expected_seq: int,
        new_events: Sequence[NewEvent],
        request_id: str,
        header: GameHeader | None,
        ending: GameEnding | None,
        digest: bytes,
        expected_hash: bytes | None,
    ) -> AppendResult:
        """Any append, through SQLAlchemy: a new game, an ending, an unknown head."""
        with self.engine.begin() as conn:
            result = self._append(
                conn, game_id, expected_seq, new_events, header, ending, expected_hash
            )
            _cursor(conn).execute(
                self._driver.insert_request,
                self._driver.request_row(
                    (
                        request_id,
                        game_id,
                        result.first_seq,
                        result.last_seq,
                        result.head_hash,
                        self.clock(),
                        digest,
                    )
                ),
            )
        return result

    def _fast_append(
        self,
        game_id: str,
        expected_seq: int,
        new_events: Sequence[NewEvent],
        request_id: str,
        ending: GameEnding | None,
        digest: bytes,
        expected_hash: bytes | None,
    ) -> AppendResult | None:
        """The append of a running game at the head this store last wrote, on a pooled
        DBAPI connection in a transaction of its own: no SQLAlchemy statement or transaction
        machinery on the path every move takes.  None when the game is not at that head (the
        caller then takes the general path)."""
        if ending is not None or expected_seq <= 0:
            return None
        with self._heads_lock:
            cached = self._heads.get(game_id)
        if cached is None or cached[0] != expected_seq:
            return None
        if expected_hash is not None and expected_hash != cached[1]:
            return None
        now = self.clock()
        rows, seq, head = self._rows(game_id, cached, new_events, now)
        driver = self._driver
        request = driver.request_row(
            (request_id, game_id, expected_seq + 1, seq, head, now, digest)
        )
        guard = (seq, head, game_id, cached[0], cached[1])
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            if self._pg:
                cur.execute(driver.advance, (*guard, request[0], *request[2:], NOTIFY_CHANNEL))
            else:
                cur.execute("BEGIN IMMEDIATE")  # the write lock first, as engine.begin() does
                cur.execute(driver.move_head, guard)
            if cur.rowcount != 1:
                raw.rollback()
                self._forget(game_id)
                return None
            cur.executemany(driver.insert_events, [driver.event_row(r) for r in rows])
            if not self._pg:
                cur.execute(driver.insert_request, request)
            raw.commit()
        except BaseException:
            raw.rollback()
            raise
        finally:
            raw.close()  # back to the pool
        return AppendResult(expected_seq + 1, seq, head)

    def _forget(self, game_id: str) -> None:
        with self._heads_lock:
            self._heads.pop(game_id, None)

    def answered(self, game_id: str, request_id: str, digest: bytes) -> AppendResult | None:
        """The first answer to ``request_id`` when it was answered (see :meth:`append`)."""
        with self.engine.connect() as conn:
            return self._replayed(conn, game_id, request_id, digest)

    def _replayed(
        self, conn: Connection, game_id: str, request_id: str, digest: bytes
    ) -> AppendResult | None:
        row = conn.execute(
            select(append_requests).where(append_requests.c.request_id == request_id)
        ).first()
        if row is None:
            return None
        if row.game_id != game_id:
            raise BadAppend(
                f"request_id {request_id!r} was used for game {row.game_id!r}",
                ServiceReason.REQUEST_ID_REUSED,
            )
        # Rows written before the digest was kept (NULL) answer any body, as they did then.
        if row.body_hash is not None and bytes(row.body_hash) != digest:
            raise BadAppend(
                f"request_id {request_id!r} was used for another append to {game_id!r} "
                "(other events or another expected_seq): nothing was written",
                ServiceReason.REQUEST_ID_REUSED,
            )
        return AppendResult(row.first_seq, row.last_seq, bytes(row.head_hash), replayed=True)

    def _head(self, conn: Connection, game_id: str, lock: bool = False) -> tuple[int, bytes] | None:
        query = select(games.c.head_seq, games.c.head_hash, games.c.status).where(
            games.c.game_id == game_id
        )
        if lock and self._pg:
            query = query.with_for_update()
        row = conn.execute(query).first()
        return None if row is None else (row.head_seq, bytes(row.head_hash))

    def _append(
        self,
        conn: Connection,
        game_id: str,
        expected_seq: int,
        new_events: Sequence[NewEvent],
        header: GameHeader | None,
        ending: GameEnding | None,
        expected_hash: bytes | None = None,
    ) -> AppendResult:
        now = self.clock()
        with self._heads_lock:
            cached = self._heads.get(game_id)
        if (
            ending is not None
            and cached is not None
            and cached[0] == expected_seq > 0
            and expected_hash in (None, cached[1])
        ):
            # The head this process last wrote: one guarded UPDATE both checks it (sequence
            # number, hash and status, so a stale cache can never pass) and takes the row lock
            # that serialises writers, instead of a locking SELECT first.
            done = self._append_after(conn, game_id, cached, new_events, ending, now)
            if done is not None:
                return done
        head = self._head(conn, game_id, lock=True)
        if head is None:
            if expected_seq != 0:
                raise SeqConflict(game_id, expected_seq, 0)
            if header is None:
                raise BadAppend(
                    "the first append of a game needs its header", ServiceReason.NO_HEADER
                )
            head = (0, genesis_hash(game_id))
            conn.execute(
                insert(games).values(
                    game_id=game_id,
                    variant=header.variant,
                    rules_version=header.rules_version,
                    status="running",
                    created_at=now,
                    head_seq=0,
                    head_hash=head[1],
                )
            )
            if header.players:
                conn.execute(
                    insert(game_players),
                    [
                        {"game_id": game_id, "seat": seat, "player_id": player}
                        for seat, player in enumerate(header.players)
                    ],
                )
        else:
            status: str = conn.execute(
                select(games.c.status).where(games.c.game_id == game_id)
            ).scalar_one()
            if head[0] != expected_seq:
                raise SeqConflict(game_id, expected_seq, head[0])
            if expected_hash is not None and head[1] != expected_hash:
                raise SeqConflict(game_id, expected_seq, -1)  # another log at that seq
            if status != "running":
                raise BadAppend(f"game {game_id!r} is over ({status})", RulesReason.GAME_OVER)
        rows, seq, digest = self._rows(game_id, head, new_events, now)
        conn.execute(insert(events), rows)
        values: dict[str, Any] = {"head_seq": seq, "head_hash": digest}
        if ending is not None:
            values |= {"status": ending.status, "ended_at": now, "result": ending.result}
        # The head only moves from where we read it: a second guard beside the primary key.
        moved = conn.execute(
            update(games)
            .where(and_(games.c.game_id == game_id, games.c.head_seq == head[0]))
            .values(**values)
        )
        if moved.rowcount != 1:
            raise SeqConflict(game_id, expected_seq, -1)
        if ending is not None:
            self._record_totals(conn, game_id, ending, now)
        if self._pg:
            # Delivered at commit, to every replay process LISTENing (services/replay/follow.py).
            conn.execute(select(func.pg_notify(NOTIFY_CHANNEL, game_id)))
        return AppendResult(head[0] + 1, seq, digest)

    def _rows(
        self, game_id: str, head: tuple[int, bytes], new_events: Sequence[NewEvent], now: datetime
    ) -> tuple[list[dict[str, Any]], int, bytes]:
        seq, digest = head
        rows = []
        for ev in new_events:
            seq += 1
            digest = chain_hash(digest, ev.payload)
            rows.append(
                {
                    "game_id": game_id,
                    "seq": seq,
                    "type": ev.type,
                    "server_time": ev.server_time or now,
                    "actor": ev.actor,
                    "cause": ev.cause,
                    "visibility": ev.visibility,
                    "payload": ev.payload,
                    "hash": digest,
                }
            )
        return rows, seq, digest

    def _append_after(
        self,
        conn: Connection,
        game_id: str,
        head: tuple[int, bytes],
        new_events: Sequence[NewEvent],
        ending: GameEnding,
        now: datetime,
    ) -> AppendResult | None:
        """The ending of a game at the head this store last wrote (one guarded UPDATE instead
        of a locking read): None when the game is not at ``head``."""
        rows, seq, digest = self._rows(game_id, head, new_events, now)
        result = AppendResult(head[0] + 1, seq, digest)
        params: dict[str, Any] = {
            "g": game_id,
            "old_seq": head[0],
            "old_hash": head[1],
            "new_seq": seq,
            "new_hash": digest,
            "new_status": ending.status,
            "ended": now,
            "res": ending.result,
        }
        moved = conn.execute(_END_GAME, params)
        if moved.rowcount != 1:
            return None
        conn.execute(_INSERT_EVENTS, rows)
        self._record_totals(conn, game_id, ending, now)
        if self._pg:
            conn.execute(select(func.pg_notify(NOTIFY_CHANNEL, game_id)))
        return result

    def _record_totals(
        self, conn: Connection, game_id: str, ending: GameEnding, now: datetime
    ) -> None:
        seats = conn.execute(
            select(game_players.c.seat, game_players.c.player_id).where(
                game_players.c.game_id == game_id
            )
        ).all()
        for row in seats:
            seat_no, player_id = int(row.seat), str(row.player_id)
            if player_id.startswith("bot:") or seat_no >= len(ending.scores):
                continue
            score = int(ending.scores[seat_no])
            key = and_(
                player_stats.c.player_id == player_id, player_stats.c.family == ending.family
            )
            changed = conn.execute(
                update(player_stats)
                .where(key)
                .values(
                    games=player_stats.c.games + 1,
                    total=player_stats.c.total + score,
                    last_game_id=game_id,
                    last_score=score,
                    updated_at=now,
                )
            )
            if changed.rowcount == 0:
                conn.execute(
                    insert(player_stats).values(
                        player_id=player_id,
                        family=ending.family,
                        games=1,
                        total=score,
                        last_game_id=game_id,
                        last_score=score,
                        updated_at=now,
                    )
                )

    # ------------------------------------------------------------------ reading
    def head(self, game_id: str) -> tuple[int, str]:
        """The game's last sequence number and status (cheap: one indexed row)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(games.c.head_seq, games.c.status).where(games.c.game_id == game_id)
            ).first()
        if row is None:
            raise GameNotFound(f"no game {game_id!r}")
        return int(row.head_seq), str(row.status)

    def game(self, game_id: str) -> GameRow:
        with self.engine.connect() as conn:
            return self._game(conn, game_id)

    def _game(self, conn: Connection, game_id: str, with_players: bool = True) -> GameRow:
        row = conn.execute(select(games).where(games.c.game_id == game_id)).first()
        if row is None:
            raise GameNotFound(f"no game {game_id!r}")
        players: list[str] = []
        if with_players:
            players = list(
                conn.execute(
                    select(game_players.c.player_id)
                    .where(game_players.c.game_id == game_id)
                    .order_by(game_players.c.seat)
                ).scalars()
            )
        return GameRow(
            game_id=row.game_id,
            variant=row.variant,
            rules_version=row.rules_version,
            status=row.status,
            created_at=row.created_at,
            ended_at=row.ended_at,
            head_seq=row.head_seq,
            head_hash=bytes(row.head_hash),
            result=row.result,
            players=tuple(players),
        )

    def events(
        self, game_id: str, from_seq: int = 1, limit: int | None = None
    ) -> list[StoredEvent]:
        with self.engine.connect() as conn:
            return self._events(conn, game_id, from_seq, limit)

    def _events(
        self, conn: Connection, game_id: str, from_seq: int = 1, limit: int | None = None
    ) -> list[StoredEvent]:
        query = (
            select(events)
            .where(and_(events.c.game_id == game_id, events.c.seq >= from_seq))
            .order_by(events.c.seq)
        )
        if limit is not None:
            query = query.limit(limit)
        return [_stored(row) for row in conn.execute(query)]

    def game_and_events(
        self, game_id: str, with_players: bool = True
    ) -> tuple[GameRow, list[StoredEvent]]:
        """A game's row and its whole log, read on one connection in one transaction (a
        consistent pair, and on PostgreSQL half the round trips of reading them apart).
        ``with_players=False`` leaves the row's players empty and saves a query."""
        with self.engine.connect() as conn:
            return self._game(conn, game_id, with_players), self._events(conn, game_id)

    def verify_chain(self, game_id: str) -> int | None:
        """The first sequence number whose stored hash, order or payload does not follow from
        the chain (a tampered row), or None when the whole chain and the head hold."""
        return first_chain_break(*self.game_and_events(game_id, with_players=False))

    def player_stats(self, player_id: str) -> list[PlayerStats]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(player_stats)
                .where(player_stats.c.player_id == player_id)
                .order_by(player_stats.c.family)
            )
            return [
                PlayerStats(
                    r.player_id,
                    r.family,
                    r.games,
                    r.total,
                    r.last_game_id,
                    r.last_score,
                    r.updated_at,
                )
                for r in rows
            ]

    def list_games(
        self,
        player_id: str | None = None,
        variant: str | None = None,
        status: str | None = None,
        after: tuple[datetime, str] | None = None,
        limit: int = 50,
        created_from: datetime | None = None,
        created_until: datetime | None = None,
        ended_only: bool = False,
    ) -> list[GameRow]:
        """Games newest first, filtered; ``after`` is the (created_at, game_id) of the last
        row of the previous page (keyset pagination: stable while games are added).
        ``created_from`` is inclusive, ``created_until`` exclusive."""
        query = select(games.c.game_id)
        if player_id is not None:
            query = query.join(game_players, game_players.c.game_id == games.c.game_id).where(
                game_players.c.player_id == player_id
            )
        if variant is not None:
            query = query.where(games.c.variant == variant)
        if status is not None:
            query = query.where(games.c.status == status)
        if ended_only:
            query = query.where(games.c.status != "running")
        if created_from is not None:
            query = query.where(games.c.created_at >= created_from)
        if created_until is not None:
            query = query.where(games.c.created_at < created_until)
        if after is not None:
            stamp, last_id = after
            query = query.where(
                (games.c.created_at < stamp)
                | and_(games.c.created_at == stamp, games.c.game_id < last_id)
            )
        query = query.order_by(games.c.created_at.desc(), games.c.game_id.desc()).limit(limit)
        with self.engine.connect() as conn:
            ids: list[str] = list(conn.execute(query).scalars())
        return [self.game(game_id) for game_id in ids]


def first_chain_break(game: GameRow, rows: Sequence[StoredEvent]) -> int | None:
    """The first sequence number of ``rows`` (a game's whole log, in order) whose hash, order
    or payload does not follow from the chain and the game's head, or None."""
    digest = genesis_hash(game.game_id)
    expected_seq = 0
    for ev in rows:
        expected_seq += 1
        digest = chain_hash(digest, ev.payload)
        if ev.seq != expected_seq or ev.hash != digest:
            return expected_seq
    if expected_seq != game.head_seq or digest != game.head_hash:
        return expected_seq + 1 if expected_seq < game.head_seq else max(expected_seq, 1)
    return None


def _stored(row: Any) -> StoredEvent:
    return StoredEvent(
        game_id=row.game_id,
        seq=row.seq,
        type=row.type,
        server_time=row.server_time,
        actor=row.actor,
        cause=row.cause,
        visibility=row.visibility,
        payload=bytes(row.payload),
        hash=bytes(row.hash),
    )
