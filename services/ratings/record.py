"""Rating a game inside the transaction that stores its ``game_over`` (replay's recorder),
on that transaction's DBAPI cursor, in the driver's own SQL.

The order: one upsert on the variant's ``rating_heads`` row takes the game's number and the
row's lock (PostgreSQL holds it to commit; SQLite's append already holds the database's write
lock), so a second writer ending a game of that variant waits here and then reads the ratings
this one wrote.  The numbers are unique per variant (``ix_rated_games_variant_seq``) and the
game rated once (``rated_games``' primary key), so a race that slipped past the lock would
fail the append rather than store a rating computed from stale ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, Table

from .model import DEFAULT_FAMILY, INITIAL, Rating, bot_rating, is_bot, rate
from .tables import player_ratings, rated_games


class RatingWriter:
    def __init__(self, engine: Engine, mark: str) -> None:
        dialect = engine.dialect

        def processors(table: Table) -> list[Callable[[Any], Any] | None]:
            return [c.type.dialect_impl(dialect).bind_processor(dialect) for c in table.columns]

        self._game_types = processors(rated_games)
        self._player_types = processors(player_ratings)
        m = mark
        self.next_seq = (
            f"INSERT INTO rating_heads (variant, seq) VALUES ({m}, 1) ON CONFLICT (variant) "
            "DO UPDATE SET seq = rating_heads.seq + 1 RETURNING seq"
        )
        self.read = (
            "SELECT player_id, mu, sigma, games FROM player_ratings "
            f"WHERE variant = {m} AND player_id IN "
        )
        cols = ", ".join(c.name for c in player_ratings.columns)
        self.upsert = (
            f"INSERT INTO player_ratings ({cols}) VALUES ({', '.join([m] * 8)}) "
            "ON CONFLICT (player_id, variant) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in
                        ("mu", "sigma", "ordinal", "games", "last_game_id", "last_seq"))
        )  # fmt: skip
        gcols = ", ".join(c.name for c in rated_games.columns)
        self.insert_game = f"INSERT INTO rated_games ({gcols}) VALUES ({m}, {m}, {m}, {m})"
        self.mark = m

    @staticmethod
    def _bind(types: list[Callable[[Any], Any] | None], values: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(
            v if p is None or v is None else p(v) for p, v in zip(types, values, strict=True)
        )

    def rate_game(
        self, cur: Any, game_id: str, variant: str, players: Sequence[str],
        result: Mapping[str, Any],
    ) -> bool:  # fmt: skip
        """Rate the game whose settlement is ``result``; False (nothing written) when it does
        not count."""
        people = sorted({p for p in players if not is_bot(p)})
        if not people:
            return False
        if rate(players, result, {}) is None:  # cheap: no lock taken for a game that won't count
            return False
        cur.execute(self.next_seq, (variant,))
        seq = int(cur.fetchone()[0])
        cur.execute(f"{self.read}({', '.join([self.mark] * len(people))})", (variant, *people))
        known = {str(p): (Rating(float(mu), float(sigma)), int(games))
                 for p, mu, sigma, games in cur.fetchall()}  # fmt: skip
        after = rate(players, result, {p: r for p, (r, _) in known.items()})
        assert after is not None
        rows = []
        for p in people:
            r, games = after[p], known.get(p, (None, 0))[1] + 1
            rows.append(self._bind(
                self._player_types, (p, variant, r.mu, r.sigma, r.ordinal, games, game_id, seq)
            ))  # fmt: skip
        cur.executemany(self.upsert, rows)
        changes = [
            change(seat, p, known[p][0] if p in known else None, after[p], family_of(result))
            for seat, p in enumerate(players)
        ]
        cur.execute(
            self.insert_game, self._bind(self._game_types, (game_id, variant, seq, changes))
        )
        return True


def family_of(result: Mapping[str, Any]) -> str:
    """The family a settlement names (the one its bots' fixed ratings are of)."""
    return str(result.get("family") or DEFAULT_FAMILY)


def change(
    seat: int, player: str, before: Rating | None, after: Rating, family: str = DEFAULT_FAMILY
) -> dict[str, Any]:
    """One seat's row of a rated game's ``changes`` (a bot's before and after are its fixed
    rating; a new person's before is the initial one)."""
    was = bot_rating(player, family) if is_bot(player) else (before or INITIAL)
    return {
        "seat": seat, "player_id": player, "mu_before": was.mu, "sigma_before": was.sigma,
        "mu": after.mu, "sigma": after.sigma,
    }  # fmt: skip
