"""Ratings as replay stores them: real games appended through replay's operations, each
rated in the transaction that stores its game_over, in the order those were stored, and
``rebuild`` reproducing them exactly from the log."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from services import rules
from services.common.db import make_engine
from services.common.migrate import downgrade, upgrade
from services.ratings import tables
from services.ratings.model import INITIAL, Rating, bot_rating, rate
from services.ratings.rebuild import rebuild
from services.replay.games import ReplayGames
from services.replay.store import EventStore
from tests.replay.helpers import batches, escape_record
from tests.replay.helpers import record as self_play


def record(variant: str, seed: str, **extra: Any) -> dict[str, Any]:
    """A self-played game's record with its settlement under "result"."""
    return with_result(self_play(variant, seed, **extra))


def with_result(rec: dict[str, Any]) -> dict[str, Any]:
    final = rules.replay(rec)
    assert final.settlement is not None
    return {**rec, "result": final.settlement.to_dict()}


@pytest.fixture
def games(db_url: str) -> Iterator[ReplayGames]:
    upgrade(db_url)
    engine = make_engine(db_url)
    yield ReplayGames(EventStore(engine))
    engine.dispose()


def store_game(games: ReplayGames, game_id: str, rec: dict[str, Any]) -> None:
    seq = 0
    for i, batch in enumerate(batches(rec, game_id)):
        result, _ = games.append(game_id, seq, batch, f"{game_id}/{i}")
        seq = result.last_seq


def stored(games: ReplayGames) -> dict[tuple[str, str], tuple[Rating, int]]:
    with games.store.engine.connect() as conn:
        return {
            (r.player_id, r.variant): (Rating(r.mu, r.sigma), r.games)
            for r in conn.execute(select(tables.player_ratings))
        }


def test_a_stored_game_is_rated_with_its_end(games: ReplayGames) -> None:
    rec = record("doudizhu3", "rate/1", players=["alice", "bob", "bot:hard:1"])
    store_game(games, "g1", rec)
    want = rate(rec["players"], rec["result"], {})
    assert want is not None
    got = stored(games)
    assert got == {
        ("alice", "doudizhu3"): (want["alice"], 1),
        ("bob", "doudizhu3"): (want["bob"], 1),
    }
    with games.store.engine.connect() as conn:
        change = tables.change_of(conn, "g1", "alice")
        bot = tables.change_of(conn, "g1", "bot:hard:1")
        mine = tables.ratings_of(conn, "alice")
    assert change is not None and change["variant"] == "doudizhu3"
    assert (change["mu_before"], change["sigma_before"]) == (INITIAL.mu, INITIAL.sigma)
    assert (change["mu"], change["sigma"]) == (want["alice"].mu, want["alice"].sigma)
    assert (
        bot is not None and bot["mu"] == bot["mu_before"] == bot_rating("bot:hard:1", "doudizhu").mu
    )
    assert [(m.variant, m.games, m.provisional) for m in mine] == [("doudizhu3", 1, True)]
    # Best first; equal ratings by player id.
    ahead = (-want["alice"].ordinal, "alice") < (-want["bob"].ordinal, "bob")
    assert mine[0].rank == (1 if ahead else 2)


def test_ratings_follow_the_order_games_ended_and_rebuild_reproduces_them(
    games: ReplayGames,
) -> None:
    """Twelve games among four people and bots in two variants, some ending by escape."""
    expected: dict[tuple[str, str], tuple[Rating, int]] = {}
    people = ["ann", "ben", "cat", "dan"]
    for i in range(12):
        variant = "doudizhu3" if i % 3 else "zhengshangyou1"
        v = rules.variant(variant)
        players = [people[(i + s) % 4] for s in range(v.players - 1)] + ["bot:normal:x"]
        rec = with_result(escape_record()) if i == 4 else record(variant, f"order/{i}")
        rec["players"] = players
        store_game(games, f"o{i}", rec)
        before = {p: r for (p, var), (r, _) in expected.items() if var == variant}
        after = rate(players, rec["result"], before)
        assert after is not None
        for p in players:
            if not p.startswith("bot:"):
                expected[(p, variant)] = (after[p], expected.get((p, variant), (INITIAL, 0))[1] + 1)
    assert stored(games) == expected
    found = rebuild(games.store.engine)
    assert found.equal, found.differences
    assert (found.games, found.rated) == (12, 12)
    assert found.ratings == expected


def test_a_retried_end_is_rated_once(games: ReplayGames) -> None:
    rec = record("doudizhu3", "retry/1", players=["alice", "bob", "carl"])
    parts = batches(rec, "r1")
    seq = 0
    for i, batch in enumerate(parts):
        result, _ = games.append("r1", seq, batch, f"r1/{i}")
        seq = result.last_seq
    # The writer lost the answer to the last append and sends it again.
    last = len(parts) - 1
    games.append("r1", seq - len(parts[last]), parts[last], f"r1/{last}")
    assert {n for _, n in stored(games).values()} == {1}


def test_a_disbanded_game_is_not_rated_and_rebuild_says_a_tampered_rating_differs(
    games: ReplayGames,
) -> None:
    # Nobody bids, three deals running: the game is disbanded with no score.
    state = rules.new_game("doudizhu3", seed="nobid")
    while not state.over:
        assert state.turn is not None
        state, _ = rules.apply(state, rules.Pass(state.turn))
    assert state.settlement is not None and state.settlement.status == "disbanded"
    assert not any(state.settlement.scores)
    store_game(games, "nobid", rules.write_record(state, {"players": ["x", "y", "z"]}))
    assert stored(games) == {}
    store_game(games, "real", record("doudizhu3", "t/1", players=["x", "y", "z"]))
    assert rebuild(games.store.engine).equal
    with games.store.engine.begin() as conn:
        conn.execute(tables.player_ratings.update().where(tables.player_ratings.c.player_id == "x")
                     .values(mu=tables.player_ratings.c.mu + 1e-9))  # fmt: skip
    found = rebuild(games.store.engine)
    assert not found.equal
    assert any(d.startswith("x in doudizhu3") for d in found.differences)


def test_migration_0007_rates_the_games_that_ended_before_it(db_url: str) -> None:
    """A database with games from before ratings: 0007 rates them in the order they ended,
    as if each had been rated as it was stored, and rebuild agrees."""
    upgrade(db_url)
    engine = make_engine(db_url)
    games = ReplayGames(EventStore(engine))
    for i in range(5):
        store_game(
            games, f"old{i}", record("doudizhu3", f"old/{i}", players=["ann", "bob", "bot:hard:1"])
        )
    store_game(games, "z", record("zhengshangyou1", "old/z", players=["ann", "bob", "cy", "di"]))
    as_stored = stored(games)
    assert len(as_stored) == 6
    downgrade(db_url, "0006")  # as before ratings: the games, no ratings
    upgrade(db_url)
    assert stored(games) == as_stored
    found = rebuild(engine)
    assert found.equal, found.differences
    assert found.rated == 6
    engine.dispose()


def test_rebuild_names_a_tampered_game_over_and_does_not_stop(games: ReplayGames) -> None:
    from services.replay.models import events

    store_game(games, "t1", record("doudizhu3", "tamper/1", players=["ann", "bob", "cy"]))
    store_game(games, "t2", record("doudizhu3", "tamper/2", players=["ann", "bob", "cy"]))
    with games.store.engine.begin() as conn:
        conn.execute(events.update().where(events.c.game_id == "t1", events.c.type == "game_over")
                     .values(payload=b"\xff\x00not an event"))  # fmt: skip
    found = rebuild(games.store.engine)
    assert not found.equal and found.games == 2
    assert "t1: rated, but its log says it does not count" in found.differences
