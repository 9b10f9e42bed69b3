"""The ratings' tables (SQLAlchemy Core, on the shared metadata; migration 0007), and the
reads the matchmaker serves them by.

* ``rating_heads``: per variant, the number of the last game rated.  Replay's append that
  stores a game's ``game_over`` takes the next number with one upsert, which also holds the
  row's lock until that transaction commits: the games of a variant are rated one after
  another, in the order their ``game_over`` was stored, however many writers end games at
  once (on SQLite the append's write lock does the same).
* ``rated_games``: every rated game, its number in its variant (unique) and each seat's
  rating before and after (``changes``): the rating change recorded with the game.
* ``player_ratings``: each person's rating per variant (bots keep none: theirs are fixed),
  with ``ordinal`` (mu − 3 sigma) indexed for the leaderboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Connection,
    Double,
    Index,
    Integer,
    String,
    Table,
    and_,
    func,
    or_,
    select,
)

from services.common.db import metadata

from .model import PROVISIONAL_GAMES, Rating

__all__ = ["player_ratings", "rated_games", "rating_heads"]

rating_heads = Table(
    "rating_heads",
    metadata,
    Column("variant", String(32), primary_key=True),
    Column("seq", BigInteger, nullable=False),
)

rated_games = Table(
    "rated_games",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("variant", String(32), nullable=False),
    Column("seq", BigInteger, nullable=False),
    # [{"seat", "player_id", "mu_before", "sigma_before", "mu", "sigma"}, …] by seat
    Column("changes", JSON, nullable=False),
)
Index("ix_rated_games_variant_seq", rated_games.c.variant, rated_games.c.seq, unique=True)

player_ratings = Table(
    "player_ratings",
    metadata,
    Column("player_id", String(128), primary_key=True),
    Column("variant", String(32), primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("ordinal", Double, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last_game_id", String(64), nullable=False),
    Column("last_seq", BigInteger, nullable=False),
)
Index(
    "ix_player_ratings_variant_ordinal",
    player_ratings.c.variant,
    player_ratings.c.ordinal,
    player_ratings.c.player_id,
)


@dataclass(frozen=True)
class PlayerRating:
    """One person's rating in one variant, with its place on the variant's leaderboard."""

    player_id: str
    variant: str
    rating: Rating
    games: int
    rank: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def _rank(conn: Connection, variant: str, ordinal: float, player_id: str) -> int:
    """1 + the players above (a higher ordinal, or the same and a smaller id)."""
    r = player_ratings.c
    above = conn.execute(
        select(func.count()).where(
            r.variant == variant,
            or_(r.ordinal > ordinal, and_(r.ordinal == ordinal, r.player_id < player_id)),
        )
    ).scalar_one()
    return int(above) + 1


def ratings_of(conn: Connection, player_id: str) -> list[PlayerRating]:
    """The player's rating in every variant played, by variant."""
    r = player_ratings.c
    rows = conn.execute(
        select(player_ratings).where(r.player_id == player_id).order_by(r.variant)
    ).all()
    return [
        PlayerRating(
            row.player_id, row.variant, Rating(row.mu, row.sigma), row.games,
            _rank(conn, row.variant, row.ordinal, row.player_id),
        )
        for row in rows
    ]  # fmt: skip


def leaderboard(
    conn: Connection, variant: str, after: tuple[float, str, int] | None, limit: int
) -> list[PlayerRating]:
    """A page of the variant's leaderboard, best first: ``after`` is the (ordinal, player id,
    rank) of the previous page's last row (keyset pagination)."""
    r = player_ratings.c
    query = select(player_ratings).where(r.variant == variant)
    first = 1
    if after is not None:
        ordinal, last_id, last_rank = after
        query = query.where(
            or_(r.ordinal < ordinal, and_(r.ordinal == ordinal, r.player_id > last_id))
        )
        first = last_rank + 1
    rows = conn.execute(query.order_by(r.ordinal.desc(), r.player_id).limit(limit)).all()
    return [
        PlayerRating(row.player_id, row.variant, Rating(row.mu, row.sigma), row.games, first + i)
        for i, row in enumerate(rows)
    ]


def mus_of(conn: Connection, variant: str, players: Sequence[str]) -> dict[str, float]:
    """The mean skill (mu) of each of ``players`` rated in ``variant``."""
    r = player_ratings.c
    rows = conn.execute(
        select(r.player_id, r.mu).where(r.variant == variant, r.player_id.in_(list(players)))
    ).all()
    return {str(row.player_id): float(row.mu) for row in rows}


def change_of(conn: Connection, game_id: str, player_id: str) -> dict[str, Any] | None:
    """The player's rating change in a rated game (its row of ``changes``), or None when the
    game was not rated (yet: its ``game_over`` may still be on its way to replay)."""
    row = conn.execute(
        select(rated_games.c.variant, rated_games.c.changes).where(rated_games.c.game_id == game_id)
    ).first()
    if row is None:
        return None
    for change in row.changes:
        if change.get("player_id") == player_id:
            return {"variant": row.variant, **change}
    return None


def changes_of(conn: Connection, game_id: str) -> tuple[str, Sequence[dict[str, Any]]] | None:
    """A rated game's variant and every seat's change, or None."""
    row = conn.execute(
        select(rated_games.c.variant, rated_games.c.changes).where(rated_games.c.game_id == game_id)
    ).first()
    return None if row is None else (row.variant, list(row.changes))
