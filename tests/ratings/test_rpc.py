"""Ratings over gRPC: people play whole series against bots through the matchmaker, replay
rates each game as it stores its end, and GetPlayer and ListLeaderboard show what the games'
own records give when rated by hand."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from cardroom.v1 import matchmaker_pb2, replay_pb2

from services import rules
from services.matchmaker.access import Access, mint
from services.ratings.model import PROVISIONAL_GAMES, Rating, rate
from tests.matchmaker.conftest import Cluster, wait_for
from tests.matchmaker.test_access import BACKEND, KEY, reason
from tests.matchmaker.test_queue import _series

M = matchmaker_pb2


def by_hand(cluster: Cluster, game_ids: list[str]) -> dict[str, Rating]:
    """Every person's doudizhu3 rating after ``game_ids`` (in the order they ended), from
    replay's exported records."""
    out: dict[str, Rating] = {}
    for gid in game_ids:
        rec = json.loads(cluster.replay().ExportGame(
            replay_pb2.ExportGameRequest(game_id=gid), timeout=10).record_json)  # fmt: skip
        final = rules.replay(rec)  # the settlement, re-executed from the record
        assert final.settlement is not None
        after = rate(rec["players"], final.settlement.to_dict(), out)
        if after is not None:
            out.update({p: r for p, r in after.items() if not p.startswith("bot:")})
    return out


def info(cluster: Cluster, player: str) -> M.PlayerInfo:
    answer: M.PlayerInfo = cluster.mm().GetPlayer(M.GetPlayerRequest(player_id=player), timeout=10)
    return answer


def test_get_player_and_the_leaderboard_after_real_games(cluster: Cluster) -> None:
    _, _, ann_games, _ = _series(cluster, "ann", "doudizhu3", 3)
    _, _, ben_games, _ = _series(cluster, "ben", "doudizhu3", 2)
    want = by_hand(cluster, ann_games + ben_games)
    ann = wait_for(lambda: (p := info(cluster, "ann")).ratings and p)
    assert [(r.variant, r.games) for r in ann.ratings] == [("doudizhu3", 3)]
    mine = ann.ratings[0]
    assert (mine.mu, mine.sigma) == (want["ann"].mu, want["ann"].sigma)
    assert mine.display == want["ann"].display
    assert mine.provisional == (PROVISIONAL_GAMES > 3)
    # The last game's change, recorded with the game.
    assert ann.last_rating_change.game_id == ann.last_game_id == ann_games[-1]
    assert (ann.last_rating_change.mu, ann.last_rating_change.sigma) == (mine.mu, mine.sigma)
    before = by_hand(cluster, ann_games[:-1])["ann"]
    assert ann.last_rating_change.mu_before == before.mu
    assert ann.last_rating_change.display_before == before.display

    board = cluster.mm().ListLeaderboard(M.ListLeaderboardRequest(variant="ddz3"), timeout=10)
    order = sorted(want, key=lambda p: (-want[p].ordinal, p))
    ranked = [(p, i + 1) for i, p in enumerate(order)]
    assert [(e.player_id, e.rank) for e in board.entries] == ranked
    assert board.next_page_token == ""
    assert {e.player_id: e.rank for e in board.entries}["ann"] == mine.rank
    # A page at a time.
    first = cluster.mm().ListLeaderboard(
        M.ListLeaderboardRequest(variant="doudizhu3", page_size=1), timeout=10
    )
    second = cluster.mm().ListLeaderboard(
        M.ListLeaderboardRequest(
            variant="doudizhu3", page_size=1, page_token=first.next_page_token
        ),
        timeout=10,
    )
    assert [e.player_id for e in (*first.entries, *second.entries)] == order
    assert [e.rank for e in second.entries] == [2]
    third = cluster.mm().ListLeaderboard(
        M.ListLeaderboardRequest(variant="ddz3", page_size=1, page_token=second.next_page_token),
        timeout=10,
    )
    assert list(third.entries) == [] and third.next_page_token == ""
    # A variant nobody played has an empty board.
    empty = cluster.mm().ListLeaderboard(M.ListLeaderboardRequest(variant="zsy2"), timeout=10)
    assert list(empty.entries) == []


def _token(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode()


OTHER_VARIANT = _token(["doudizhu4", "0x0p+0", "a", 1])
DEEP = _token(json.loads("[" * 900 + "]" * 900))  # nested past the decoder's patience
LONG = _token(["doudizhu3", "0x0p+0", "a" * 2000, 1])
INFINITE = _token(["doudizhu3", "inf", "a", 1])


@pytest.mark.parametrize(
    ("request_", "why"),
    [
        (M.ListLeaderboardRequest(), "MISSING_FIELD"),
        (M.ListLeaderboardRequest(variant="chess"), "UNKNOWN_VARIANT"),
        (M.ListLeaderboardRequest(variant="ddz3", page_size=501), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_size=-1), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token="%%%"), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token=OTHER_VARIANT), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token=INFINITE), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token=DEEP), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token=LONG), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token=_token("[" * 5000)), "INVALID_FIELD"),
        (M.ListLeaderboardRequest(variant="ddz3", page_token=_token({"a": 1})), "INVALID_FIELD"),
    ],
)
def test_bad_leaderboard_requests_are_named(
    cluster: Cluster, request_: M.ListLeaderboardRequest, why: str
) -> None:
    assert reason(cluster.mm().ListLeaderboard, request_, None) == why


def test_the_leaderboard_takes_getplayers_credentials(cluster: Cluster) -> None:
    cluster.stop_mm()
    cluster.access = Access.from_env(
        {"CARDROOM_MATCHMAKER_BACKEND_TOKENS": BACKEND, "CARDROOM_MATCHMAKER_JWT_KEY": KEY}
    )
    cluster.start_mm()
    stub = cluster.mm()
    board = M.ListLeaderboardRequest(variant="ddz3")
    assert reason(stub.ListLeaderboard, board, None) == "UNAUTHENTICATED"
    assert reason(stub.ListLeaderboard, board, "not-a-token") == "UNAUTHENTICATED"
    assert reason(stub.ListLeaderboard, board, mint("alice", "x" * 40)) == "UNAUTHENTICATED"
    assert reason(stub.ListLeaderboard, board, mint("alice", KEY)) == "OK"
    assert reason(stub.ListLeaderboard, board, BACKEND) == "OK"
    bob = M.GetPlayerRequest(player_id="bob")
    assert reason(stub.GetPlayer, bob, mint("alice", KEY)) == "PERMISSION_DENIED"
    assert reason(stub.GetPlayer, bob, mint("bob", KEY)) == "OK"
