"""``bot_level: "auto"`` (Enqueue's default) over gRPC: the bots that fill a table are the
level whose fixed rating is nearest the mean rating of the table's people."""

from __future__ import annotations

from sqlalchemy import insert

from services.common.db import make_engine
from services.ratings.model import BOT_RATINGS, closest_level
from services.ratings.tables import player_ratings
from tests.matchmaker.conftest import SHORT, Cluster, M, seated


def rated(cluster: Cluster, player: str, mu: float) -> None:
    """An established player (as if replay had rated their games)."""
    engine = make_engine(cluster.db_url)
    with engine.begin() as conn:
        conn.execute(insert(player_ratings).values(
            player_id=player, variant="doudizhu3", mu=mu, sigma=2.0, ordinal=mu - 6.0,
            games=40, last_game_id="g", last_seq=1,
        ))  # fmt: skip
    engine.dispose()


def bots_for(cluster: Cluster, player: str, **extra: object) -> set[str]:
    stub = cluster.mm()
    ticket = seated(stub, stub.Enqueue(M.EnqueueRequest(
        player_id=player, variant="ddz3", bot_fill_after_ms=0, timers=SHORT, **extra,
    ), timeout=10).ticket_id)  # fmt: skip
    snap = stub.GetTable(M.GetTableRequest(table_id=ticket.table_id, player_id=player), timeout=10)
    return {s.player_id.split(":")[1] for s in snap.seats if s.bot}


def test_auto_is_the_default_and_fits_the_player(cluster: Cluster) -> None:
    ddz = BOT_RATINGS["doudizhu"]
    rated(cluster, "weak", ddz["easy"].mu + 0.5)
    rated(cluster, "strong", ddz["hard"].mu + 3.0)
    assert bots_for(cluster, "new") == {closest_level(0.0)}  # a new player: mu 0
    assert bots_for(cluster, "weak") == {"easy"}
    assert bots_for(cluster, "strong") == {"hard"}
    # Asked for by name, a level is kept whatever the rating.
    rated(cluster, "strong2", ddz["hard"].mu + 3.0)
    assert bots_for(cluster, "strong2", bot_level="easy") == {"easy"}
    assert bots_for(cluster, "weak2", bot_level="auto", private_code="solo") == {closest_level(0.0)}
