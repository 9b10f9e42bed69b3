"""The matchmaker's tables (SQLAlchemy Core, on the shared metadata; migration 0003).

Everything a table needs to go on lives here, so any instance can serve any call and a
restarted instance loses nothing (DESIGN.md principle 6):

* ``mm_tickets``: queued, seated, cancelled or expired tickets, by pool.
* ``mm_holds``: one row per human player who holds a live ticket or seat.  Its primary key is
  the rule "a player holds at most one live ticket or seat": a second Enqueue, or a bug that
  would seat a player twice, fails on it.  Bots (``bot:<level>:<unique>``) never hold one.
* ``mm_tables``: the table's state, seats (JSON), its latest engine token and seq, its own
  ``seq`` (every write is conditional on it), the next deadline ``due_ms`` (indexed, claimed
  with ``FOR UPDATE SKIP LOCKED`` plus a short lease) and series totals.
* ``mm_table_events``: the table's log, one row per table seq, each addressed to every seat
  (``to_seat`` null) or one seat; a seat's stream is a projection of it.
* ``mm_outbox``: engine events waiting for replay's ``AppendEvents``.
* ``mm_requests``: Act request ids and their answers (idempotent retries).
* ``mm_streams``: the open Subscribe streams, one row each, with the instance serving it and
  a lease that instance renews: a seat is connected while it has a live row, on any
  instance, and a dead instance's rows lapse (migration 0004).

The outbox's (game_id, id) index is migration 0005.

* ``mm_player_stats``: each human player's running total per family and the last game that
  ended (by its own end, not by when its log reached replay), written in the same
  transaction as that game's ``game_over`` table event, so GetPlayer never lags the table a
  player just saw settle (migration 0006).

Times are epoch milliseconds (BIGINT), compared the same way on SQLite and PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Table,
    Text,
)

from services.common.db import metadata

__all__ = [
    "holds",
    "metadata",
    "outbox",
    "player_stats",
    "requests",
    "streams",
    "table_events",
    "tables",
    "tickets",
]

ID = String(64)
PLAYER_ID = String(128)

tickets = Table(
    "mm_tickets",
    metadata,
    Column("ticket_id", ID, primary_key=True),
    Column("player_id", PLAYER_ID, nullable=False),
    # The player and his party, in seat order of preference.
    Column("players", JSON, nullable=False),
    Column("pool", String(512), nullable=False),
    Column("variant", String(32), nullable=False),
    # Room, timers, bot level and bot fill wait, as the pool's tables will use them.
    Column("config", JSON, nullable=False),
    # queued, seated, cancelled or expired
    Column("state", String(16), nullable=False),
    Column("table_id", ID, nullable=True),
    Column("seats", JSON, nullable=True),
    Column("request_id", String(128), nullable=True, unique=True),
    Column("created_ms", BigInteger, nullable=False),
    # When bots may fill a table for this ticket (null: never).
    Column("fill_ms", BigInteger, nullable=True),
    Column("expires_ms", BigInteger, nullable=False),
    Index("ix_mm_tickets_state_pool_created_ms", "state", "pool", "created_ms"),
)

holds = Table(
    "mm_holds",
    metadata,
    Column("player_id", PLAYER_ID, primary_key=True),
    Column("ticket_id", ID, nullable=True),
    Column("table_id", ID, nullable=True),
    Column("seat", SmallInteger, nullable=True),
)

tables = Table(
    "mm_tables",
    metadata,
    Column("table_id", ID, primary_key=True),
    Column("variant", String(32), nullable=False),
    Column("config", JSON, nullable=False),
    # waiting, playing or closed
    Column("state", String(16), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("seats", JSON, nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("game_id", ID, nullable=True),
    Column("engine_seq", Integer, nullable=False),
    Column("token", LargeBinary, nullable=True),
    # The seat to move and its deadline (ms), the start deadline, the next thing due.
    Column("turn", SmallInteger, nullable=True),
    Column("turn_deadline_ms", BigInteger, nullable=True),
    Column("start_deadline_ms", BigInteger, nullable=True),
    Column("due_ms", BigInteger, nullable=True),
    Column("lease_ms", BigInteger, nullable=False),
    Column("first_bidder", SmallInteger, nullable=True),
    Column("last_scores", JSON, nullable=True),
    Column("last_settlement", Text, nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    Index("ix_mm_tables_due_ms", "due_ms"),
    Index("ix_mm_tables_state_variant", "state", "variant"),
)

table_events = Table(
    "mm_table_events",
    metadata,
    Column("table_id", ID, primary_key=True),
    Column("seq", Integer, primary_key=True),
    # The one seat this event is for; null: every seat.
    Column("to_seat", SmallInteger, nullable=True),
    # A serialized cardroom.v1.TableEvent.
    Column("body", LargeBinary, nullable=False),
)

outbox = Table(
    "mm_outbox",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", ID, nullable=False),
    Column("first_seq", Integer, nullable=False),
    # A serialized cardroom.v1.AppendEventsRequest.
    Column("body", LargeBinary, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("next_try_ms", BigInteger, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("last_error", String(256), nullable=True),
    Index("ix_mm_outbox_next_try_ms", "next_try_ms"),
    # The claim takes each game's oldest row (min id per game) and then the claimed games'
    # rows in order; a backoff moves all of a game's rows (migration 0005).
    Index("ix_mm_outbox_game_id_id", "game_id", "id"),
)

requests = Table(
    "mm_requests",
    metadata,
    Column("table_id", ID, primary_key=True),
    Column("request_id", String(128), primary_key=True),
    Column("body_hash", LargeBinary(32), nullable=False),
    # A serialized cardroom.v1.ActResponse.
    Column("response", LargeBinary, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
)

streams = Table(
    "mm_streams",
    metadata,
    Column("stream_id", ID, primary_key=True),
    Column("table_id", ID, nullable=False),
    Column("seat", SmallInteger, nullable=False),
    Column("player_id", PLAYER_ID, nullable=False),
    Column("instance", String(32), nullable=False),
    # Live until then (epoch ms); the serving instance renews it while it runs.
    Column("lease_ms", BigInteger, nullable=False),
    Index("ix_mm_streams_table_id_seat", "table_id", "seat"),
    Index("ix_mm_streams_lease_ms", "lease_ms"),
)

player_stats = Table(
    "mm_player_stats",
    metadata,
    Column("player_id", PLAYER_ID, primary_key=True),
    Column("family", String(16), primary_key=True),  # doudizhu or zhengshangyou
    Column("games", Integer, nullable=False),
    Column("total", BigInteger, nullable=False),
    Column("last_game_id", ID, nullable=False),
    Column("last_score", BigInteger, nullable=False),
    # When that game ended (its game_over's time): the latest end wins, whatever the order
    # in which two instances commit two endings.
    Column("last_ended_ms", BigInteger, nullable=False),
)
