"""Ratings: do OpenSkill ratings put the bot levels in order, and what rating is each level?

Thirty simulated players, ten per bot level (easy, normal, hard), play doudizhu3 with real
bidding (and zhengshangyou1), three (four) drawn at random per game (a seeded
``random.Random``), each seat played by its player's level; every game is rated by
``services.ratings.model.rate`` exactly as the replay store rates a stored game.  Reported:
each level's mean rating (mu) over its ten players with a 95% interval (mean ± 1.96 × sd /
√10), Kendall's tau-b between rating and level, and the figures that ``BOT_RATINGS`` writes
down (the mean mu per level; sigma: the players' mean sigma).

    python -m bench ratings                          # 2,000 games of each family's variant
    python -m bench.ratings_bench 300 zhengshangyou1  # a quick look
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import sys
from dataclasses import dataclass

from services import rules
from services.bots import make_bot
from services.ratings.model import Rating, rate

from .common import Context, Table, progress

LEVELS = ("easy", "normal", "hard")
PER_LEVEL = 10


@dataclass(frozen=True)
class Outcome:
    ratings: dict[str, Rating]
    games: int
    counted: int


def level_of(player: str) -> str:
    return player.split("-", 1)[0]


def simulate(games: int, seed: int = 20261202, variant: str = "doudizhu3") -> Outcome:
    v = rules.variant(variant)
    players = [f"{lv}-{i}" for lv in LEVELS for i in range(PER_LEVEL)]
    draw = random.Random(seed)
    ratings: dict[str, Rating] = {}
    counted = 0
    for g in range(games):
        seated = draw.sample(players, v.players)
        state = rules.new_game(v, seed=f"sim/{seed}/{g}")
        bots = [make_bot(level_of(p), v, f"{seed}/{g}/{s}") for s, p in enumerate(seated)]
        while not state.over:
            seat = state.turn
            assert seat is not None
            state, _ = rules.apply(state, bots[seat].act(rules.seat_view(state, seat)))
        assert state.settlement is not None
        after = rate(seated, state.settlement.to_dict(), ratings)
        if after is not None:
            ratings.update(after)
            counted += 1
        if (g + 1) % 200 == 0:
            progress(f"ratings: {g + 1}/{games} games")
    return Outcome(ratings, games, counted)


def tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b (ties in either variable corrected), by counting every pair."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    pairs = concordant + discordant
    return (concordant - discordant) / math.sqrt((pairs + ties_x) * (pairs + ties_y))


def summary(out: Outcome) -> tuple[dict[str, tuple[float, float, float, float]], float]:
    """Per level (mean mu, interval low, interval high, mean sigma), and tau-b."""
    levels: dict[str, tuple[float, float, float, float]] = {}
    for lv in LEVELS:
        rs = [r for p, r in out.ratings.items() if level_of(p) == lv]
        mus = [r.mu for r in rs]
        mean = statistics.fmean(mus)
        half = 1.96 * statistics.stdev(mus) / math.sqrt(len(mus))
        levels[lv] = (mean, mean - half, mean + half, statistics.fmean(r.sigma for r in rs))
    names = sorted(out.ratings)
    tau = tau_b([out.ratings[p].mu for p in names], [LEVELS.index(level_of(p)) for p in names])
    return levels, tau


def ratings_section(ctx: Context) -> list[Table]:
    """The simulation in each family's measured variant (BOT_RATINGS holds their means)."""
    games = 300 if ctx.quick else 2000
    return [_variant_table(games, variant) for variant in ("doudizhu3", "zhengshangyou1")]


def _variant_table(games: int, variant: str) -> Table:
    out = simulate(games, variant=variant)
    levels, tau = summary(out)
    table = Table(
        f"Ratings: {games} {variant} games among {PER_LEVEL * len(LEVELS)} simulated players",
        ["level", "mean mu", "95% interval", "mean sigma", "display"],
    )
    for lv, (mean, low, high, sigma) in levels.items():
        table.rows.append(
            [lv, f"{mean:.2f}", f"{low:.2f} – {high:.2f}", f"{sigma:.2f}",
             str(Rating(mean, sigma).display)]
        )  # fmt: skip
    apart = all(levels[a][2] < levels[b][1] for a, b in itertools.pairwise(LEVELS))
    ordered = all(levels[a][0] < levels[b][0] for a, b in itertools.pairwise(LEVELS))
    table.notes.append(
        f"Kendall's tau-b (rating vs level): {tau:.3f} (goal ≥ 0.6); means in order: "
        f"{'yes' if ordered else 'NO'}; 95% intervals apart: {'yes' if apart else 'NO'}; "
        f"{out.counted} of {out.games} games rated."
    )
    return table


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(_variant_table(n, sys.argv[2] if len(sys.argv) > 2 else "doudizhu3").render())
