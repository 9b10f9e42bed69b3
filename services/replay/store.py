"""The replay store: each game's events, in order, idempotent and tamper-evident.

Every event is stored as the exact bytes the writer sent, with
``hash = SHA-256(previous hash ‖ the event's bytes)``; the chain of a game starts from
``genesis_hash(game_id) = SHA-256(b"cardroom/v1 genesis\\0" ‖ UTF-8 game id)``, so events
cannot be moved between games or reordered without breaking it.  The head hash of a game can
be exported and compared anywhere.

Appends are one transaction: the events, the game's head, the request id that makes a retry
harmless (with a digest of the request's body: the same id with another body is refused),
and — when the append ends the game — the game's result and every player's running
total.  A wrong ``expected_seq`` (or ``expected_hash``) raises :class:`SeqConflict`: the head
moves only by an UPDATE guarded on the head the writer named (a new game: an INSERT that does
nothing when the game exists), and the primary key (game_id, seq) stands behind it, so
concurrent writers never both succeed at one sequence number.  Every append takes that one
path, written by a :class:`Recorder` per database in its driver's own SQL (see there).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import Connection, Engine, Select, Table, and_, select
from sqlalchemy.exc import OperationalError

from services.common.reasons import RulesReason, ServiceReason
from services.ratings import tables as rating_tables
from services.ratings.record import RatingWriter

from .models import append_requests, events, game_players, games, metadata, player_stats

GENESIS_PREFIX = b"cardroom/v1 genesis\x00"
NOTIFY_CHANNEL = "cardroom_events"  # PostgreSQL: the payload is the game id
PUBLIC = -1


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


class WriteConflict(StoreError):
    """A write some other database constraint refused (never a head conflict: that is
    :class:`SeqConflict`); nothing was stored.  ``constraint`` names it, without SQL."""

    reason: str = ServiceReason.WRITE_CONFLICT

    def __init__(self, game_id: str, constraint: str) -> None:
        self.constraint = constraint
        super().__init__(
            f"an append to game {game_id!r} broke the constraint {constraint}: nothing was stored"
        )


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


# --------------------------------------------------------------------------- recorders
@dataclass(frozen=True)
class _Write:
    """One append as the recorder writes it: the events chained after ``base`` (the head the
    writer named), the head they lead to, and the request that asked for them."""

    game_id: str
    request_id: str
    digest: bytes
    now: datetime
    base_seq: int
    base_hash: bytes
    events: Sequence[NewEvent]
    hashes: list[bytes]
    header: GameHeader | None  # a new game (base_seq 0)
    ending: GameEnding | None

    @property
    def head(self) -> tuple[int, bytes]:
        return self.base_seq + len(self.events), self.hashes[-1]


#: The columns of ``games`` an append moves.
_MOVED = ("head_seq", "head_hash", "status", "ended_at", "result")


def _columns(table: Table) -> str:
    return ", ".join(c.name for c in table.columns)


class Recorder:
    """The one write path of an append, on a pooled DBAPI connection in the driver's own SQL.

    SQLAlchemy's per-statement and per-transaction work costs several times what the database
    spends on these few small statements, so every append runs prebuilt statements on the raw
    connection: *advance* the head (a new game: INSERT its row unless it exists; else an UPDATE
    guarded on the head seq, hash and status the writer named, which both checks the head and
    takes the row lock that serialises writers, with no locking SELECT first) and record the
    request id; then the players of a new game, the events (one executemany) and, when the
    append ends the game, every player's total (an upsert).  Values pass through SQLAlchemy's
    own type processors, so the rows are what Core statements would write.

    A subclass per database says how to advance (:meth:`_advance`) and names the constraint an
    integrity error broke (:meth:`constraint`); everything else is shared."""

    dialect_name: ClassVar[str]
    mark: ClassVar[str] = "?"

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        dialect = engine.dialect
        dbapi = dialect.loaded_dbapi
        self.integrity_error: type[Exception] = dbapi.IntegrityError
        self.operational_error: type[Exception] = dbapi.OperationalError

        def processors(table: Table, *names: str) -> list[Callable[[Any], Any] | None]:
            columns = [table.c[n] for n in names] if names else table.columns
            return [c.type.dialect_impl(dialect).bind_processor(dialect) for c in columns]

        self._event_types = processors(events)
        self._request_types = processors(append_requests)
        self._game_types = processors(games)
        self._move_types = processors(games, *_MOVED)
        self._stats_types = processors(player_stats)
        m = self.mark
        self.ratings = RatingWriter(engine, m)

        def values(table: Table) -> str:
            marks = ", ".join([m] * len(table.columns))
            return f"INSERT INTO {table.name} ({_columns(table)}) VALUES ({marks})"

        self.insert_events = values(events)
        self.insert_players = values(game_players)
        self.insert_request = values(append_requests)
        self.create_game = f"{values(games)} ON CONFLICT (game_id) DO NOTHING"
        self.move_head = (
            f"UPDATE games SET {', '.join(f'{c} = {m}' for c in _MOVED)} "
            f"WHERE game_id = {m} AND head_seq = {m} AND head_hash = {m} AND status = 'running'"
        )
        self.seats = f"SELECT seat, player_id FROM game_players WHERE game_id = {m}"
        self.variant = f"SELECT variant FROM games WHERE game_id = {m}"
        # Two games ending at once for one new player both count: one statement inserts the
        # row or adds to it, never an UPDATE then an INSERT that races.
        self.add_totals = (
            f"{values(player_stats)} ON CONFLICT (player_id, family) DO UPDATE SET "
            "games = player_stats.games + excluded.games, "
            "total = player_stats.total + excluded.total, "
            + ", ".join(
                # The last game is the one that ended last (updated_at: its game_over's
                # time), not the one whose end arrived last from two writers.
                f"{c} = CASE WHEN excluded.updated_at >= player_stats.updated_at "
                f"THEN excluded.{c} ELSE player_stats.{c} END"
                for c in ("last_game_id", "last_score", "updated_at")
            )
        )

    @staticmethod
    def _bind(types: list[Callable[[Any], Any] | None], values: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(
            v if p is None or v is None else p(v) for p, v in zip(types, values, strict=True)
        )

    # The rows, in the tables' column order (models.py).
    def _request_row(self, w: _Write) -> tuple[Any, ...]:
        last_seq, head_hash = w.head
        return self._bind(
            self._request_types,
            (w.request_id, w.game_id, w.base_seq + 1, last_seq, head_hash, w.now, w.digest),
        )

    def record(self, w: _Write) -> bool:
        """Write the append in one transaction; False (and nothing written) when the head is
        not where the writer said, or the game exists when it says the game is new.  Raises
        the driver's IntegrityError when a constraint refuses a row."""
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            if not self._advance(cur, w):
                raw.rollback()
                return False
            if w.header is not None and w.header.players:
                cur.executemany(
                    self.insert_players,
                    [(w.game_id, seat, p) for seat, p in enumerate(w.header.players)],
                )
            types, now, seq = self._event_types, w.now, w.base_seq
            rows = []
            for ev, digest in zip(w.events, w.hashes, strict=True):
                seq += 1
                rows.append(self._bind(types, (
                    w.game_id, seq, ev.type, ev.server_time or now, ev.actor, ev.cause,
                    ev.visibility, ev.payload, digest,
                )))  # fmt: skip
            cur.executemany(self.insert_events, rows)
            if w.ending is not None:
                seats = self._seats(cur, w)
                self._add_totals(cur, w, seats)
                self._rate(cur, w, seats)
            raw.commit()
            return True
        except self.operational_error as exc:
            raw.rollback()
            raise OperationalError(None, None, exc) from exc
        except BaseException:
            raw.rollback()
            raise
        finally:
            raw.close()  # back to the pool

    def _seats(self, cur: Any, w: _Write) -> list[tuple[int, str]]:
        """The game's (seat, player id) pairs, in seat order."""
        if w.header is not None:
            return list(enumerate(w.header.players))
        cur.execute(self.seats, (w.game_id,))
        return sorted((int(seat), str(player)) for seat, player in cur.fetchall())

    def _rate(self, cur: Any, w: _Write, seats: list[tuple[int, str]]) -> None:
        """The game's ratings, after every game of its variant whose end was stored before
        (services/ratings/record.py takes the turn)."""
        assert w.ending is not None
        if w.header is not None:
            variant = w.header.variant
        else:
            cur.execute(self.variant, (w.game_id,))
            variant = str(cur.fetchone()[0])
        players = [p for _, p in seats]
        self.ratings.rate_game(cur, w.game_id, variant, players, w.ending.result)

    def _add_totals(self, cur: Any, w: _Write, seats: list[tuple[int, str]]) -> None:
        """Every player's running total of the game's family (bots keep none)."""
        assert w.ending is not None
        scores, family = w.ending.scores, w.ending.family
        ended = next((e.server_time for e in w.events if e.type == "game_over"), None) or w.now
        rows = [
            self._bind(
                self._stats_types,
                (player, family, 1, int(scores[seat]), w.game_id, int(scores[seat]), ended),
            )
            for seat, player in seats
            if not player.startswith("bot:") and seat < len(scores)
        ]
        if rows:
            # In one order everywhere, so two endings never wait on each other's rows.
            cur.executemany(self.add_totals, sorted(rows, key=lambda r: r[0]))

    def _game_row(self, w: _Write) -> tuple[Any, ...]:
        """The row of a new game, at the head its first append leads to."""
        assert w.header is not None
        (status, ended, result), (last_seq, head_hash) = self._outcome(w), w.head
        values = (w.game_id, w.header.variant, w.header.rules_version, status, w.now, ended)
        return self._bind(self._game_types, (*values, last_seq, head_hash, result))

    def _guard(self, w: _Write) -> tuple[Any, ...]:
        """The parameters of :attr:`move_head`: the new head, then the one it moves from."""
        new = (*w.head, *self._outcome(w))
        return (*self._bind(self._move_types, new), w.game_id, w.base_seq, w.base_hash)

    @staticmethod
    def _outcome(w: _Write) -> tuple[str, datetime | None, dict[str, Any] | None]:
        """The game's status, ended_at and result after the append."""
        if w.ending is None:
            return "running", None, None
        return w.ending.status, w.now, w.ending.result

    def _advance(self, cur: Any, w: _Write) -> bool:
        """Move the game's head from ``w.base_seq`` (0: create the game) and record the
        request id, in the transaction ``cur`` begins; False when the head is elsewhere."""
        raise NotImplementedError

    def constraint(self, exc: Exception) -> str:
        """The name of the constraint an IntegrityError broke (``pk_events``, …)."""
        raise NotImplementedError


class SQLiteRecorder(Recorder):
    dialect_name = "sqlite"
    #: SQLite names the columns a UNIQUE/PRIMARY KEY constraint failed on, not the constraint.
    _PRIMARY_KEYS: ClassVar[dict[str, str]] = {
        ", ".join(f"{t.name}.{c.name}" for c in t.primary_key.columns): f"pk_{t.name}"
        for t in metadata.tables.values()
    }

    def _advance(self, cur: Any, w: _Write) -> bool:
        cur.execute("BEGIN IMMEDIATE")  # the write lock first, as engine.begin() does
        if w.base_seq == 0:
            cur.execute(self.create_game, self._game_row(w))
        else:
            cur.execute(self.move_head, self._guard(w))
        if cur.rowcount != 1:
            return False
        cur.execute(self.insert_request, self._request_row(w))
        return True

    def constraint(self, exc: Exception) -> str:
        # "UNIQUE constraint failed: events.game_id, events.seq" → pk_events
        kind, found, columns = str(exc).partition(" constraint failed: ")
        if not found:
            return exc.__class__.__name__
        return self._PRIMARY_KEYS.get(columns) or f"{kind} ({columns})"


class PostgresRecorder(Recorder):
    dialect_name = "postgresql"
    mark = "%s"

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        # Move the head, record the request id and NOTIFY (delivered at commit to every
        # replay process LISTENing: services/replay/follow.py) in one round trip; the request
        # row is inserted (and returned) only when the head moved.
        request = (
            f"INSERT INTO append_requests ({_columns(append_requests)}) "
            "SELECT %s, game_id, %s, %s, %s, %s, %s FROM moved RETURNING pg_notify(%s, game_id)"
        )
        self.advance_new = f"WITH moved AS ({self.create_game} RETURNING game_id) {request}"
        self.advance = f"WITH moved AS ({self.move_head} RETURNING game_id) {request}"

    def _advance(self, cur: Any, w: _Write) -> bool:
        request = self._request_row(w)
        tail = (request[0], *request[2:], NOTIFY_CHANNEL)
        if w.base_seq == 0:
            cur.execute(self.advance_new, (*self._game_row(w), *tail))
        else:
            cur.execute(self.advance, (*self._guard(w), *tail))
        return bool(cur.rowcount == 1)

    def constraint(self, exc: Exception) -> str:
        diag = getattr(exc, "diag", None)
        name = getattr(diag, "constraint_name", None)
        return str(name) if name else exc.__class__.__name__


RECORDERS: dict[str, type[Recorder]] = {
    r.dialect_name: r for r in (SQLiteRecorder, PostgresRecorder)
}

#: The constraints that guard a game's head: breaking one is a :class:`SeqConflict`.
_HEAD_CONSTRAINTS = frozenset({"pk_events", "pk_games"})


def _utc_now() -> datetime:
    return datetime.now(UTC)


class EventStore:
    """The replay store over one SQLAlchemy engine (SQLite or PostgreSQL)."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = _utc_now) -> None:
        self.engine = engine
        self.clock = clock
        self.recorder = RECORDERS[engine.dialect.name](engine)

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
        events against the game at that head); without it the store reads the head first."""
        if not game_id or len(game_id) > 64:
            raise BadAppend("game_id must be 1–64 characters", ServiceReason.BAD_GAME_ID)
        if not request_id or len(request_id) > 128:
            raise BadAppend("request_id must be 1–128 characters", ServiceReason.BAD_REQUEST_ID)
        if not new_events:
            raise BadAppend("an append needs at least one event", ServiceReason.NO_EVENTS)
        base: bytes | None = expected_hash
        if expected_seq == 0:
            base = genesis_hash(game_id) if header is not None else None
        elif base is None:
            found = self._head(game_id)
            if found is not None and found[0] == expected_seq:
                base = found[1]
        if base is not None:
            hashes, link = [], base
            for ev in new_events:
                link = chain_hash(link, ev.payload)
                hashes.append(link)
            w = _Write(
                game_id, request_id, digest, self.clock(), expected_seq, base, new_events,
                hashes, header if expected_seq == 0 else None, ending,
            )  # fmt: skip
            try:
                if self.recorder.record(w):
                    return AppendResult(expected_seq + 1, *w.head)
            except self.recorder.integrity_error as exc:
                broken = self.recorder.constraint(exc)
                if broken not in _HEAD_CONSTRAINTS:
                    # A reused request id is answered below; anything else is no conflict
                    # of heads, and is never reported as one.
                    done = self.answered(game_id, request_id, digest)
                    if done is not None:
                        return done
                    raise WriteConflict(game_id, broken) from None
        # Nothing was written.  A retry of an answered request finds the head moved on (or
        # the game over), and a concurrent writer may have got there first: either way, a
        # request id already answered gets its first answer.  Only a refusal pays for this.
        done = self.answered(game_id, request_id, digest)
        if done is not None:
            return done
        raise self._refusal(game_id, expected_seq, expected_hash)

    def _refusal(self, game_id: str, expected_seq: int, expected_hash: bytes | None) -> StoreError:
        """Why an append after ``expected_seq`` could not be written."""
        found = self._head(game_id, with_status=True)
        if found is None:
            if expected_seq == 0:
                return BadAppend(
                    "the first append of a game needs its header", ServiceReason.NO_HEADER
                )
            return SeqConflict(game_id, expected_seq, 0)
        seq, head_hash, status = found
        if seq != expected_seq:
            return SeqConflict(game_id, expected_seq, seq)
        if expected_hash is not None and head_hash != expected_hash:
            return SeqConflict(game_id, expected_seq, -1)  # another log at that seq
        if status != "running":
            return BadAppend(f"game {game_id!r} is over ({status})", RulesReason.GAME_OVER)
        return SeqConflict(game_id, expected_seq, -1)  # moved and back: only a race

    def answered(self, game_id: str, request_id: str, digest: bytes) -> AppendResult | None:
        """The first answer to ``request_id`` when it was answered (see :meth:`append`)."""
        with self.engine.connect() as conn:
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

    def _head(self, game_id: str, with_status: bool = False) -> Any:
        """(head seq, head hash[, status]) of a game, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(games.c.head_seq, games.c.head_hash, games.c.status).where(
                    games.c.game_id == game_id
                )
            ).first()
        if row is None:
            return None
        found = (int(row.head_seq), bytes(row.head_hash))
        return (*found, str(row.status)) if with_status else found

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
        query = select(games).where(games.c.game_id == game_id)
        found = _game_rows(conn, query, with_players)
        if not found:
            raise GameNotFound(f"no game {game_id!r}")
        return found[0]

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

    def rating_changes(self, game_id: str) -> tuple[str, list[dict[str, Any]]] | None:
        """A rated game's variant and each seat's rating before and after, or None."""
        with self.engine.connect() as conn:
            found = rating_tables.changes_of(conn, game_id)
        return None if found is None else (found[0], list(found[1]))

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
        query = select(games)
        if player_id is not None:
            query = query.where(
                games.c.game_id.in_(
                    select(game_players.c.game_id).where(game_players.c.player_id == player_id)
                )
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
            return _game_rows(conn, query)


def _game_rows(conn: Connection, query: Select[Any], with_players: bool = True) -> list[GameRow]:
    """The games ``query`` (a select of ``games``) finds, in its order, each with its players
    in seat order: one query, the page joined to the players of its games."""
    if with_players:
        page = query.subquery()
        query = (
            select(page, game_players.c.player_id)
            .select_from(page.outerjoin(game_players, game_players.c.game_id == page.c.game_id))
            .order_by(page.c.created_at.desc(), page.c.game_id.desc(), game_players.c.seat)
        )
    found: dict[str, tuple[Any, list[str]]] = {}
    for row in conn.execute(query):
        players = found.setdefault(row.game_id, (row, []))[1]
        if with_players and row.player_id is not None:
            players.append(row.player_id)
    return [
        GameRow(
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
        for row, players in found.values()
    ]


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
