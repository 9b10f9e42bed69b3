"""The arena: its interval arithmetic on known inputs, mirrored seatings, the command."""

from __future__ import annotations

import json
import math

import pytest

from services import cli, rules
from services.arena import stats
from services.arena.cli import run, summarize
from services.arena.match import GameResult, seatings


def test_wilson_known_values() -> None:
    # Textbook values (Wilson 1927; e.g. Newcombe 1998, table I): 95% intervals.
    lo, hi = stats.wilson(60, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.502, 0.6906)
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = stats.wilson(10, 10)
    assert round(lo, 4) == 0.7225 and hi == 1.0
    lo, hi = stats.wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    assert stats.wilson(0, 0) == (0.0, 0.0)


def test_wilson_is_symmetric_and_narrows() -> None:
    lo, hi = stats.wilson(30, 100)
    lo2, hi2 = stats.wilson(70, 100)
    assert math.isclose(lo, 1 - hi2) and math.isclose(hi, 1 - lo2)
    assert stats.wilson(600, 1000)[1] - stats.wilson(600, 1000)[0] < hi - lo


def test_mean_interval_known_values() -> None:
    mean, lo, hi = stats.mean_interval([1.0, -1.0, 1.0, 1.0])
    # sample sd = 1, n = 4: half-width 1.959964 × 1 / 2
    assert mean == 0.5 and math.isclose(hi - mean, stats.Z95 / 2)
    assert math.isclose(lo, 0.5 - 0.979982, abs_tol=1e-6)
    assert stats.mean_interval([]) == (0.0, 0.0, 0.0)
    assert stats.mean_interval([3.0]) == (3.0, 3.0, 3.0)
    mean, lo, hi = stats.mean_interval([2.0] * 10)
    assert lo == hi == mean == 2.0


def test_summarize_counts_roles() -> None:
    def game(role: str, win: bool, score: float) -> GameResult:
        return GameResult(0, role, "finished", win, score, 0, (0,))

    results = [game("landlord", True, 4.0), game("landlord", False, -4.0)]
    results += [game("farmers", True, 2.0)] * 3 + [game("farmers", False, -2.0)]
    results.append(GameResult(1, "alone", "disbanded", False, 0.0, 2, (0,)))
    s = summarize(results)
    assert s["games"] == 7 and s["finished"] == 6 and s["disbanded"] == 1 and s["refused"] == 2
    assert s["roles"]["landlord"]["games"] == 2 and s["roles"]["landlord"]["wins"] == 1
    assert s["roles"]["farmers"]["win_rate"] == 0.75
    assert s["roles"]["farmers"]["win_rate_ci"] == list(stats.wilson(3, 4))
    assert s["roles"]["all"]["wins"] == 4 and math.isclose(s["roles"]["all"]["score"], 4 / 6)


def test_seatings_mirror_the_roles() -> None:
    v3, z1 = rules.variant("doudizhu3"), rules.variant("zhengshangyou1")
    assert seatings(v3, False, 2) == [("landlord", {2}), ("farmers", {0, 1})]
    assert seatings(v3, True, None) == [("alone", {0}), ("alone", {1}), ("alone", {2})]
    assert [seats for _, seats in seatings(z1, False, None)] == [{0}, {1}, {2}, {3}]


@pytest.mark.parametrize("name", ["doudizhu3", "doudizhu4", "zhengshangyou1"])
def test_run_plays_every_seating_of_every_deal(name: str) -> None:
    v = rules.variant(name)
    results = run(v, "t", "hard", "easy", 3, progress=False)
    per_deal = 2 if v.bidding else v.players
    assert len(results) == 3 * per_deal
    assert [r.deal for r in results] == sorted(r.deal for r in results)
    again = run(v, "t", "hard", "easy", 3, progress=False)
    assert again == results  # deterministic


def test_bidding_seats_one_player_alone() -> None:
    v = rules.variant("doudizhu3")
    results = run(v, "t", "normal", "easy", 2, bidding=True, progress=False)
    assert len(results) == 6
    assert {r.role for r in results} <= {"landlord", "farmer", "disbanded", "alone"}


def test_the_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--variant", "ddz3", "--a", "normal", "--b", "easy", "--deals", "2"]
    assert cli.main([*argv, "--json", "--seed", "cmd"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["variant"] == "doudizhu3" and out["games"] == 4
    assert set(out["roles"]) == {"landlord", "farmers", "all"}
    assert cli.main(argv) == 0
    assert "95% CI" in capsys.readouterr().out


def test_the_command_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["arena", "--variant", "ddz3", "--a", "genius"]) == 2
    assert cli.main(["arena", "--variant", "zsy1", "--b", "rlcard"]) == 2
    assert cli.main(["arena", "--variant", "ddz3", "--deals", "0"]) == 2
    assert "error" in capsys.readouterr().err
