"""The rating arithmetic against OpenSkill's own worked numbers and a hand computation of
Weng & Lin's Plackett-Luce update, and how each kind of game ranks its players."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from services import bots
from services.matchmaker.store import bot_seat
from services.ratings.model import (
    BOT_RATINGS,
    BOT_RATINGS_BY_VERSION,
    BOT_VERSION,
    INITIAL,
    Rating,
    bot_version,
    closest_level,
    rate,
    rate_teams,
    teams_of,
)
from services.ratings.model import bot_level as level_of_bot

BETA = 25.0 / 6.0
V = BOT_VERSION  # the bots that play now: their ids name it
TAU = 25.0 / 300.0
KAPPA = 0.0001


def test_openskill_published_two_teams_of_two() -> None:
    """The example of the OpenSkill READMEs (openskill.js, openskill.ex), from before the
    additive dynamics factor tau existed: the same numbers with tau 0."""
    teams = [[Rating(25.0, 25.0 / 3.0), Rating(32.444, 5.123)],
             [Rating(43.381, 2.421), Rating(25.188, 6.211)]]  # fmt: skip
    out = rate_teams(teams, [1, 2], PlackettLuce(tau=0))
    assert out == [
        [Rating(28.669648436582808, 8.071520788025197),
         Rating(33.83086971107981, 5.062772998705765)],
        [Rating(43.071274808241974, 2.4166900452721256),
         Rating(23.149503312339064, 6.1378606973362135)],
    ]  # fmt: skip


def by_hand(teams: list[list[Rating]], ranks: list[int]) -> list[list[Rating]]:
    """Weng & Lin (2011), Algorithm 4 (Plackett-Luce) as OpenSkill states it: sigma first
    widened by tau, team skill the sum of its players', ties shared (A_q), gamma = sigma_i/c."""
    teams = [[Rating(r.mu, math.sqrt(r.sigma**2 + TAU**2)) for r in t] for t in teams]
    mus = [sum(r.mu for r in t) for t in teams]
    var = [sum(r.sigma**2 for r in t) for t in teams]
    c = math.sqrt(sum(v + BETA**2 for v in var))
    e = [math.exp(m / c) for m in mus]
    n = len(teams)
    sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    a = [sum(1 for i in range(n) if ranks[i] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            p = e[i] / sum_q[q]
            omega += ((1.0 if q == i else 0.0) - p) / a[q]
            delta += p * (1 - p) / a[q]
        gamma = math.sqrt(var[i]) / c
        omega *= var[i] / c
        delta *= gamma * var[i] / c**2
        out.append([
            Rating(r.mu + r.sigma**2 / var[i] * omega,
                   r.sigma * math.sqrt(max(1 - r.sigma**2 / var[i] * delta, KAPPA)))
            for r in teams[i]
        ])  # fmt: skip
    return out


def close(a: Rating, b: Rating) -> bool:
    return math.isclose(a.mu, b.mu, rel_tol=1e-12) and math.isclose(a.sigma, b.sigma, rel_tol=1e-12)


def test_doudizhu_landlord_wins_by_hand() -> None:
    """Three new players; the landlord (seat 1) wins against the two farmers."""
    after = rate(["a", "b", "c"], {"status": "finished", "landlord": 1, "scores": [-2, 4, -2]}, {})
    assert after is not None
    want = by_hand([[INITIAL], [INITIAL, INITIAL]], [1, 2])
    assert close(after["b"], want[0][0])
    assert close(after["a"], want[1][0]) and close(after["c"], want[1][1])
    # Centred at 0, a new landlord against two new farmers is an even bet: the winner gains
    # what each loser loses.
    assert math.isclose(after["b"].mu, -after["a"].mu, rel_tol=1e-12)


def test_doudizhu_on_openskills_own_scale() -> None:
    """OpenSkill's default scale (mu 25): the digits openskill.py 6.2 gives for one landlord
    beating two farmers, all three new."""
    new = Rating(25.0, 25.0 / 3.0)
    before = {"a": new, "b": new, "c": new}
    after = rate(["a", "b", "c"], {"status": "finished", "landlord": 1, "scores": [-2, 4, -2]},
                 before)  # fmt: skip
    assert after is not None
    want = by_hand([[new], [new, new]], [1, 2])
    assert close(after["b"], want[0][0])
    assert close(after["a"], want[1][0]) and close(after["c"], want[1][1])
    # The published digits of this game (openskill.py 6.2, default PlackettLuce).
    assert after["b"] == Rating(28.70849197619708, 8.244535891006825)
    assert after["a"] == after["c"] == Rating(21.29150802380292, 8.207298168569771)


def test_doudizhu_farmers_win_against_a_strong_landlord_by_hand() -> None:
    before = {"a": Rating(30.0, 3.0), "b": Rating(22.0, 6.0), "c": Rating(27.5, 4.5)}
    after = rate(["a", "b", "c"], {"status": "finished", "landlord": 0, "scores": [-4, 2, 2]},
                 before)  # fmt: skip
    assert after is not None
    want = by_hand([[before["a"]], [before["b"], before["c"]]], [2, 1])
    assert close(after["a"], want[0][0])
    assert close(after["b"], want[1][0]) and close(after["c"], want[1][1])
    assert after["a"].mu < 30.0 and after["b"].mu > 22.0 and after["c"].mu > 27.5


def test_zhengshangyou_winner_first_others_tied_by_hand() -> None:
    before = {"a": Rating(5.0, 8.0), "b": Rating(-3.0, 5.0), "c": INITIAL, "d": Rating(11.0, 2.0)}
    result = {"status": "finished", "landlord": None, "winner": 1, "scores": [-3, 9, -2, -4]}
    after = rate(["a", "b", "c", "d"], result, before)
    assert after is not None
    want = by_hand([[before[p]] for p in "abcd"], [2, 1, 2, 2])
    for p, w in zip("abcd", want, strict=True):
        assert close(after[p], w[0])
    assert after["b"].mu > -3.0 and all(after[p].mu < before[p].mu for p in "acd")


def test_an_escape_is_the_escapers_loss_by_hand() -> None:
    """Even in Dou Dizhu: the escaper last, everyone else (landlord or not) tied first."""
    before = {"a": Rating(26.0, 4.0), "b": Rating(24.0, 7.0), "c": Rating(25.0, 5.0)}
    result = {"status": "escaped", "landlord": 0, "escaper": 2, "scores": [0, 0, -12]}
    after = rate(["a", "b", "c"], result, before)
    assert after is not None
    want = by_hand([[before[p]] for p in "abc"], [1, 1, 2])
    for p, w in zip("abc", want, strict=True):
        assert close(after[p], w[0])
    assert after["c"].mu < 25.0 < after["a"].mu and after["b"].mu > 24.0


def test_bots_keep_their_level_and_pull_by_it() -> None:
    result = {"status": "finished", "landlord": 0, "scores": [4, -2, -2]}
    after = rate(["a", f"bot:hard:x1:v{V}", f"bot:easy:x2:v{V}"], result, {})
    assert after is not None
    ddz = BOT_RATINGS["doudizhu"]
    assert after[f"bot:hard:x1:v{V}"] == ddz["hard"]
    assert after[f"bot:easy:x2:v{V}"] == ddz["easy"]
    want = by_hand([[INITIAL], [ddz["hard"], ddz["easy"]]], [1, 2])
    assert close(after["a"], want[0][0])
    # Beating a table of hard bots is worth more than beating one of easy bots.
    easy = rate(["a", f"bot:easy:1:v{V}", f"bot:easy:2:v{V}"], result, {})
    assert easy is not None and after["a"].mu > easy["a"].mu


@pytest.mark.parametrize(
    "result",
    [
        {"status": "disbanded", "landlord": None, "scores": [0, 0, 0]},
        {"status": "redeal", "landlord": None, "scores": [0, 0, 0]},
        {"status": "finished", "landlord": 0, "scores": [0, 0, 0]},
        {"status": "running", "scores": [4, -2, -2], "landlord": 0},
        {"status": "finished", "scores": [4, -2], "landlord": 0},
        {"status": "escaped", "scores": [0, -3, 0], "escaper": 7},
        {"status": "escaped", "scores": [0, -3, 0], "escaper": True},
        {"status": "finished", "scores": ["4", "-2", "-2"], "landlord": 0},
        {"status": "finished", "scores": [4, -2, None], "landlord": 0},
        {"status": "finished", "scores": "4,-2,-2", "landlord": 0},
        {},
    ],
)
def test_games_that_do_not_count(result: dict[str, object]) -> None:
    assert rate(["a", "b", "c"], result, {}) is None


def test_a_game_of_bots_alone_does_not_count() -> None:
    result = {"status": "finished", "landlord": 0, "scores": [4, -2, -2]}
    assert rate([f"bot:easy:1:v{V}", f"bot:hard:2:v{V}", f"bot:normal:3:v{V}"], result, {}) is None


def test_bots_are_rated_by_their_family() -> None:
    zsy = {"status": "finished", "family": "zhengshangyou", "landlord": None, "winner": 0,
           "scores": [6, -2, -2, -2]}  # fmt: skip
    after = rate(["a", f"bot:hard:1:v{V}", f"bot:easy:2:v{V}", f"bot:normal:3:v{V}"], zsy, {})
    assert after is not None
    assert after[f"bot:hard:1:v{V}"] == BOT_RATINGS["zhengshangyou"]["hard"]
    assert after[f"bot:easy:2:v{V}"] == BOT_RATINGS["zhengshangyou"]["easy"]


@pytest.mark.parametrize("family", ["doudizhu", "zhengshangyou"])
def test_closest_level(family: str) -> None:
    levels = BOT_RATINGS[family]
    assert sorted(levels, key=lambda lv: levels[lv].mu) == ["easy", "normal", "hard"]
    for level, r in levels.items():
        assert closest_level(r.mu, family) == level
    assert closest_level(-100.0, family) == "easy"
    assert closest_level(100.0, family) == "hard"


scores = st.lists(st.integers(-50, 50), min_size=3, max_size=3)


@given(
    st.lists(st.tuples(st.floats(0, 50), st.floats(0.5, 9)), min_size=3, max_size=3),
    scores, st.integers(0, 2), st.sampled_from(["finished", "escaped"]),
)  # fmt: skip
def test_rating_is_a_function_of_its_inputs(
    ratings: list[tuple[float, float]], score: list[int], seat: int, status: str
) -> None:
    """Recomputing gives the same floats (what rebuild relies on); the last never gains, and
    in a two-sided game the winners never drop (a tie with a weaker player may cost a
    stronger one: Plackett-Luce's ties)."""
    before = {p: Rating(mu, s) for p, (mu, s) in zip("abc", ratings, strict=True)}
    result = {"status": status, "landlord": seat, "escaper": seat, "scores": score}
    first = rate(["a", "b", "c"], result, before)
    assert first == rate(["a", "b", "c"], result, dict(before))
    teams = teams_of(result, 3)
    if first is None:
        assert teams is None
        return
    assert teams is not None
    for team, rank in teams:
        for s in team:
            p = "abc"[s]
            if rank == 2:
                assert first[p].mu <= before[p].mu
            elif len(teams) == 2:
                assert first[p].mu >= before[p].mu


def test_a_game_is_rated_with_the_ratings_of_the_bots_that_played_it() -> None:
    """The bots' version is in a bot's id, and so in the log: a game keeps the fixed ratings
    of the bots that played it after the bots (and their measured ratings) change."""
    assert bots.VERSION == BOT_VERSION, "new bots need their measured ratings (bench ratings)"
    seat = bot_seat("hard")  # the id the matchmaker gives a bot
    assert level_of_bot(seat.player_id) == "hard" and bot_version(seat.player_id) == bots.VERSION
    assert bot_version("bot:hard:x1") == 1  # ids from before versions: the first bots
    assert bot_version("bot:hard") == bot_version("bot:hard:v2") == 1  # "v2" is the unique
    assert bot_version("bot:hard:x1:v" + "9" * 5000) == 1  # not a version: no huge int
    result = {"status": "finished", "landlord": 0, "scores": [4, -2, -2]}
    for version, table in BOT_RATINGS_BY_VERSION.items():
        ids = [f"bot:hard:x1:v{version}", f"bot:easy:x2:v{version}"]
        after = rate(["a", *ids], result, {})
        assert after is not None
        assert after[ids[0]] == table["doudizhu"]["hard"]
        assert after[ids[1]] == table["doudizhu"]["easy"]
