"""``cardroom ratings rebuild``: every rating recomputed from the replay log alone, and
compared with the stored ones.

For each variant, the games are taken in the order replay stored their ``game_over`` (the
number each was given when it was stored, ``rated_games.seq``; games that ended before
ratings existed were numbered by migration 0007 in the order they ended, :func:`backfill`);
each game's settlement is read from its ``game_over`` event in the hash-chained log and its
players from its header, and rated by the same pure function the store used
(services/ratings/model.py).  Every ended game
of the log is looked at: a game the log says counts but that has no rating, or a rated game the
log says does not count, is a difference too.  Floats are compared exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError
from sqlalchemy import Connection, Engine, insert, select

from services.replay.events import decode
from services.replay.models import events, game_players, games

from .model import Rating, rate
from .record import change, family_of
from .tables import player_ratings, rated_games, rating_heads


@dataclass
class Rebuilt:
    """What a rebuild found: the recomputed ratings and every difference from the stored."""

    games: int = 0  # ended games looked at
    rated: int = 0  # games that count
    ratings: dict[tuple[str, str], tuple[Rating, int]] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differences

    def summary(self) -> dict[str, Any]:
        return {
            "games": self.games, "rated_games": self.rated,
            "players": len({p for p, _ in self.ratings}), "ratings": len(self.ratings),
            "equal": self.equal, "differences": self.differences[:100],
            "more_differences": max(0, len(self.differences) - 100),
        }  # fmt: skip


def _settlement(payload: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(decode(payload).data_json or "{}")
    except (ValueError, TypeError, DecodeError, RecursionError):  # a tampered row
        return None
    settlement = data.get("settlement") if isinstance(data, dict) else None
    return settlement if isinstance(settlement, dict) else None


def game_inputs(conn: Connection, game_id: str) -> tuple[list[str], dict[str, Any] | None]:
    """What rates a game, from the log alone: its players by seat (its header) and the
    settlement its ``game_over`` event carries (None without one)."""
    seated: Any = conn.execute(
        select(game_players.c.player_id)
        .where(game_players.c.game_id == game_id)
        .order_by(game_players.c.seat)
    ).scalars()
    players = [str(p) for p in seated]
    over = conn.execute(
        select(events.c.payload).where(events.c.game_id == game_id, events.c.type == "game_over")
    ).scalar()
    return players, (_settlement(bytes(over)) if over is not None else None)


def backfill(conn: Connection) -> int:
    """Rate the games that ended before ratings existed (migration 0007), in the order they
    ended, as if each had been rated when its end was stored; the number rated."""
    ended = conn.execute(
        select(games.c.game_id, games.c.variant)
        .where(games.c.status != "running", games.c.game_id.not_in(select(rated_games.c.game_id)))
        .order_by(games.c.ended_at, games.c.game_id)
    ).all()
    current: dict[tuple[str, str], tuple[Rating, int, str, int]] = {}
    heads: dict[str, int] = {}
    rated = []
    for g in ended:
        players, settlement = game_inputs(conn, g.game_id)
        before = {p: current[(p, g.variant)][0] for p in players if (p, g.variant) in current}
        after = rate(players, settlement, before) if settlement is not None else None
        if after is None:
            continue
        seq = heads[g.variant] = heads.get(g.variant, 0) + 1
        changes = [
            change(s, p, before.get(p), after[p], family_of(settlement or {}))
            for s, p in enumerate(players)
        ]
        rated.append({"game_id": g.game_id, "variant": g.variant, "seq": seq, "changes": changes})
        for p in players:
            if not p.startswith("bot:"):
                games_before = current.get((p, g.variant), (after[p], 0, "", 0))[1]
                current[(p, g.variant)] = (after[p], games_before + 1, g.game_id, seq)
    if rated:
        conn.execute(insert(rated_games), rated)
        conn.execute(insert(rating_heads), [{"variant": v, "seq": n} for v, n in heads.items()])
        conn.execute(insert(player_ratings), [
            {"player_id": p, "variant": v, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal,
             "games": n, "last_game_id": gid, "last_seq": seq}
            for (p, v), (r, n, gid, seq) in current.items()
        ])  # fmt: skip
    return len(rated)


def rebuild(engine: Engine, progress: Callable[[str], None] = lambda _: None) -> Rebuilt:
    out = Rebuilt()
    with engine.connect() as conn:
        order = {
            r.game_id: (r.variant, int(r.seq), list(r.changes))
            for r in conn.execute(select(rated_games))
        }
        ended = list(
            conn.execute(
                select(games.c.game_id, games.c.variant).where(games.c.status != "running")
            ).all()
        )
        # Games by their number in their variant; the log's ended games nobody rated last
        # (each must turn out not to count).
        ended.sort(key=lambda g: (g.variant, 0, order[g.game_id][1]) if g.game_id in order
                   else (g.variant, 1, 0))  # fmt: skip
        current: dict[tuple[str, str], tuple[Rating, int]] = {}
        for n, g in enumerate(ended, 1):
            out.games += 1
            players, settlement = game_inputs(conn, g.game_id)
            before = {p: r for (p, v), (r, _) in current.items() if v == g.variant and p in players}
            after = rate(players, settlement, before) if settlement is not None else None
            stored = order.get(g.game_id)
            if after is None:
                if stored is not None:
                    out.differences.append(
                        f"{g.game_id}: rated, but its log says it does not count"
                    )
                continue
            out.rated += 1
            if stored is None:
                out.differences.append(f"{g.game_id}: its log says it counts, but it is not rated")
                continue
            want = [
                change(s, p, before.get(p), after[p], family_of(settlement or {}))
                for s, p in enumerate(players)
            ]
            if want != stored[2]:
                out.differences.append(f"{g.game_id}: the stored rating change differs")
            for p in players:
                if not p.startswith("bot:"):
                    games_before = current.get((p, g.variant), (after[p], 0))[1]
                    current[(p, g.variant)] = (after[p], games_before + 1)
            if n % 500 == 0:
                progress(f"{n}/{len(ended)} games")
        stored_ratings = {
            (r.player_id, r.variant): (Rating(r.mu, r.sigma), int(r.games))
            for r in conn.execute(select(player_ratings))
        }
    out.ratings = current
    for key in sorted(set(current) | set(stored_ratings)):
        if current.get(key) != stored_ratings.get(key):
            out.differences.append(
                f"{key[0]} in {key[1]}: stored {stored_ratings.get(key)}, "
                f"recomputed {current.get(key)}"
            )
    return out
