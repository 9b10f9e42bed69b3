"""The replay store's tables (SQLAlchemy Core).  alembic's migrations in ``migrations/`` build
the same schema; a test asserts the two agree on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Table,
)

from services.common.db import metadata

__all__ = ["append_requests", "events", "game_players", "games", "metadata", "player_stats"]

GAME_ID = String(64)
PLAYER_ID = String(128)
STAMP = DateTime(timezone=True)

games = Table(
    "games",
    metadata,
    Column("game_id", GAME_ID, primary_key=True),
    Column("variant", String(32), nullable=False),
    Column("rules_version", Integer, nullable=False),
    # running, finished, escaped, disbanded or redeal
    Column("status", String(16), nullable=False),
    Column("created_at", STAMP, nullable=False),
    Column("ended_at", STAMP, nullable=True),
    Column("head_seq", Integer, nullable=False),
    Column("head_hash", LargeBinary(32), nullable=False),
    Column("result", JSON, nullable=True),
)
Index("ix_games_variant_created_at", games.c.variant, games.c.created_at)
Index("ix_games_status_created_at", games.c.status, games.c.created_at)

game_players = Table(
    "game_players",
    metadata,
    Column("game_id", GAME_ID, ForeignKey("games.game_id", ondelete="CASCADE"), primary_key=True),
    Column("seat", SmallInteger, primary_key=True),
    Column("player_id", PLAYER_ID, nullable=False),
)
Index("ix_game_players_player_id", game_players.c.player_id)

# The primary key (game_id, seq) is the optimistic-concurrency guard: two writers can never
# both store an event at one sequence number of a game.
events = Table(
    "events",
    metadata,
    Column("game_id", GAME_ID, ForeignKey("games.game_id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("type", String(32), nullable=False),
    Column("server_time", STAMP, nullable=False),
    Column("actor", PLAYER_ID, nullable=False),
    Column("cause", String(16), nullable=False),
    Column("visibility", SmallInteger, nullable=False),  # -1 public, else the one seat
    Column("payload", LargeBinary, nullable=False),  # the event exactly as hashed
    Column("hash", LargeBinary(32), nullable=False),
)

# Idempotent appends: a retried request id gets the first answer back and writes nothing.
append_requests = Table(
    "append_requests",
    metadata,
    Column("request_id", String(128), primary_key=True),
    Column("game_id", GAME_ID, nullable=False),
    Column("first_seq", Integer, nullable=False),
    Column("last_seq", Integer, nullable=False),
    Column("head_hash", LargeBinary(32), nullable=False),
    Column("created_at", STAMP, nullable=False),
    # SHA-256 of the request's body (game id, expected_seq, events): the same id with another
    # body is refused, never answered as if it had been stored.  NULL for rows of revision 1.
    Column("body_hash", LargeBinary(32), nullable=True),
)

player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", PLAYER_ID, primary_key=True),
    Column("family", String(16), primary_key=True),  # doudizhu or zhengshangyou
    Column("games", Integer, nullable=False),
    Column("total", BigInteger, nullable=False),
    Column("last_game_id", GAME_ID, nullable=False),
    Column("last_score", BigInteger, nullable=False),
    # When the last game ended (its game_over's time): the last game is the latest end.
    Column("updated_at", STAMP, nullable=False),
)
