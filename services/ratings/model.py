"""The rating arithmetic, pure: a game's settlement and its players' ratings before it give
their ratings after it.  No SQL, clock or randomness; the same inputs give the same floats,
which is what lets ``cardroom ratings rebuild`` reproduce the stored ratings exactly.

The model is OpenSkill's Plackett-Luce (Weng & Lin 2011): it rates any number of teams of
any size with ties in one update, which is every shape our games take, in time linear in the
players.  Its parameters are OpenSkill's defaults (sigma 25/3, beta 25/6, tau 25/300) but for
the initial mean, 0 instead of 25: a team's skill is the sum of its players', so in Dou
Dizhu's one against two (or three) the farmers of a 25-mean scale are expected to win five
games in six, and every landlord's win then drains the scale (a simulation of 2,000 games
drifted from 25 to about 2 and stayed there: the sums balance only where the mean is 0).
Centred at 0, a side of average players is an even bet from the first game.

How a game ranks its players (issue 27):

* Dou Dizhu: the landlord is one team, the farmers the other; the side that won is first.
* Zheng Shangyou: the winner (the first out, which ends the game, RULES.md §5.3) first, the
  others tied second.
* An escape: the escaper last, everyone else tied first.
* Disbanded games and games with no score (a redeal, every score 0) do not count.

Bots are rated too, but with fixed ratings per family and level (:data:`BOT_RATINGS`,
measured by the self-play simulation in ``bench/ratings_bench.py``): a game moves its people's
ratings and never a bot's.  A bot's player id names the version of the bots that played
(``bot:<level>:<unique>:v<N>``, no suffix for version 1): when the bots change, their
ratings are measured again and added under the new version, and a game keeps being rated with
the ratings of the bots that played it, so a rebuild from the log still reproduces it.

>>> r = rate(["alice", "bot:hard", "bob"], {"status": "finished", "landlord": 0,
...          "scores": [4, -2, -2], "winner": 0, "escaper": None}, {})
>>> r["alice"].mu > 0 > r["bob"].mu, r["bot:hard"] == BOT_RATINGS_BY_VERSION[1]["doudizhu"]["hard"]
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

#: The variant ids ratings are kept under (the rules' canonical variant names).
VARIANTS = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")
BOT_PREFIX = "bot:"
#: A player is provisional until this many rated games of the variant.
PROVISIONAL_GAMES = 10

_MODEL = PlackettLuce(mu=0.0)


@dataclass(frozen=True)
class Rating:
    """A skill belief: mean ``mu`` and uncertainty ``sigma`` (OpenSkill's units)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 sigma`` that leaderboards sort by: a new player
        (-25) starts below anyone whose skill is known to be average."""
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        """The number a person reads: ``1500 + 40 × ordinal``, rounded: a new player 500, an
        average one about 1250 once known (sigma about 2)."""
        return display_of(self.ordinal)


def display_of(ordinal: float) -> int:
    return math.floor(1500.0 + 40.0 * ordinal + 0.5)


INITIAL = Rating(_MODEL.mu, _MODEL.sigma)

#: The bots' fixed ratings per version of the bots (:data:`services.bots.VERSION`), family
#: and level: each level's mean mu (and mean sigma) over
#: its ten simulated players after 2,000 games among thirty, ten per level, three (or four)
#: drawn at random per game: doudizhu3 for Dou Dizhu, zhengshangyou1 for Zheng Shangyou
#: (bench/ratings_bench.py; README.md "Ratings" has the runs).  Version 1: hard only a
#: little stronger than normal at a table of drawn players, and the ratings said so; version
#: 2 made normal the middle level.
BOT_RATINGS_BY_VERSION: dict[int, dict[str, dict[str, Rating]]] = {
    1: {
        "doudizhu": {
            "easy": Rating(-8.63, 2.03),
            "normal": Rating(0.68, 1.87),
            "hard": Rating(1.03, 1.93),
        },
        "zhengshangyou": {
            "easy": Rating(-3.18, 2.21),
            "normal": Rating(1.17, 2.11),
            "hard": Rating(2.41, 2.12),
        },
    },
    # normal answers half the enemies' quiet plays as auto-play would (NormalBot.slip_share);
    # hard searches the middle game's leads (services/bots/rollout.py)
    2: {
        "doudizhu": {
            "easy": Rating(-7.29, 1.99),
            "normal": Rating(-0.73, 1.84),
            "hard": Rating(1.96, 1.92),
        },
        "zhengshangyou": {
            "easy": Rating(-2.75, 2.20),
            "normal": Rating(-0.44, 2.12),
            "hard": Rating(3.68, 2.12),
        },
    },
    # hard searches its answers when an enemy is within six cards (doudizhu3, zhengshangyou2;
    # smart.MID_FOLLOW): measured again with bench ratings.  Zheng Shangyou's are measured
    # in zhengshangyou1, where no level changed, and come out as version 2's.
    3: {
        "doudizhu": {
            "easy": Rating(-7.51, 1.99),
            "normal": Rating(-0.97, 1.84),
            "hard": Rating(2.22, 1.93),
        },
        "zhengshangyou": {
            "easy": Rating(-2.75, 2.20),
            "normal": Rating(-0.44, 2.12),
            "hard": Rating(3.68, 2.12),
        },
    },
    # hard's endgame lets play-outs decide between the moves its exact search ties, and a
    # farmer answers the landlord from eight cards: measured again with bench ratings
    4: {
        "doudizhu": {
            "easy": Rating(-7.10, 1.98),
            "normal": Rating(-0.83, 1.83),
            "hard": Rating(2.20, 1.92),
        },
        "zhengshangyou": {
            "easy": Rating(-3.23, 2.21),
            "normal": Rating(-0.50, 2.13),
            "hard": Rating(4.11, 2.12),
        },
    },
    # hard's doudizhu4 farmers bomb what they cannot beat otherwise: bench ratings plays
    # doudizhu3 and zhengshangyou1, whose games are unchanged, and measured version 4's
    # figures again exactly
    5: {
        "doudizhu": {
            "easy": Rating(-7.10, 1.98),
            "normal": Rating(-0.83, 1.83),
            "hard": Rating(2.20, 1.92),
        },
        "zhengshangyou": {
            "easy": Rating(-3.23, 2.21),
            "normal": Rating(-0.50, 2.13),
            "hard": Rating(4.11, 2.12),
        },
    },
    # hard's doudizhu3 farmers search their leads once the landlord holds 14 cards or fewer
    # (smart.FARMER_LEAD_SEARCH): doudizhu3 measured again with bench ratings; zhengshangyou1,
    # whose games are unchanged, came out as version 5's to the digit
    6: {
        "doudizhu": {
            "easy": Rating(-6.93, 1.98),
            "normal": Rating(-0.60, 1.83),
            "hard": Rating(2.53, 1.93),
        },
        "zhengshangyou": {
            "easy": Rating(-3.23, 2.21),
            "normal": Rating(-0.50, 2.13),
            "hard": Rating(4.11, 2.12),
        },
    },
}
#: The ratings of the bots that play now (``bot_level: "auto"`` chooses among them); a test
#: keeps it the bots' own version, so that new bots cannot play before they are rated.
BOT_VERSION = max(BOT_RATINGS_BY_VERSION)
BOT_RATINGS = BOT_RATINGS_BY_VERSION[BOT_VERSION]
DEFAULT_FAMILY = "doudizhu"


def is_bot(player: str) -> bool:
    return player.startswith(BOT_PREFIX)


def bot_level(player: str) -> str:
    """The level of a bot's player id (``bot:hard``, ``bot:hard:2`` or ``bot:hard:2:v3``)."""
    return player[len(BOT_PREFIX) :].split(":", 1)[0]


def bot_version(player: str) -> int:
    """The version of the bots a bot's player id names (``…:v3``, as the matchmaker writes it:
    ``services/matchmaker/table.py`` ``bot_player_id``; none: 1)."""
    parts = player[len(BOT_PREFIX) :].split(":")
    last = parts[-1] if len(parts) >= 3 else ""
    if last.startswith("v") and last[1:].isdigit() and last[1:].isascii() and len(last) <= 9:
        return int(last[1:])
    return 1


def bot_ratings(family: str, version: int = BOT_VERSION) -> dict[str, Rating]:
    """The fixed ratings of a family's bots (doudizhu or zhengshangyou) of ``version`` (an
    unknown version: the latest)."""
    table = BOT_RATINGS_BY_VERSION.get(version, BOT_RATINGS)
    return table.get(family, table[DEFAULT_FAMILY])


def bot_rating(player: str, family: str = DEFAULT_FAMILY) -> Rating:
    """A bot's fixed rating: its level's in the family, for the version of the bots its id
    names (an unknown level counts as ``normal``)."""
    levels = bot_ratings(family, bot_version(player))
    return levels.get(bot_level(player), levels["normal"])


def closest_level(mean: float, family: str = DEFAULT_FAMILY) -> str:
    """The bot level whose rating's mean is closest to ``mean`` (``bot_level: "auto"``);
    a tie goes to the weaker level."""
    levels = bot_ratings(family)
    return min(levels, key=lambda lv: (abs(levels[lv].mu - mean), levels[lv].mu))


def _seat(value: Any, seats: int) -> int | None:
    """``value`` when it names a seat (a whole number, not a bool), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < seats:
        return value
    return None


def teams_of(result: Mapping[str, Any], seats: int) -> list[tuple[list[int], int]] | None:
    """How a settlement (``Settlement.to_dict()``) ranks the seats: (seats of a team, rank)
    pairs, rank 1 best; None when the game does not count (or the settlement is not one)."""
    status = result.get("status")
    scores = result.get("scores")
    if (
        status not in ("finished", "escaped") or not isinstance(scores, list)
        or len(scores) != seats or not any(scores)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in scores)
    ):  # fmt: skip
        return None
    if status == "escaped":
        escaper = _seat(result.get("escaper"), seats)
        if escaper is None:
            return None
        return [([s], 2 if s == escaper else 1) for s in range(seats)]
    landlord = _seat(result.get("landlord"), seats)
    if landlord is not None:
        farmers = [s for s in range(seats) if s != landlord]
        won = scores[landlord] > 0
        return [([landlord], 1 if won else 2), (farmers, 2 if won else 1)]
    winner = _seat(result.get("winner"), seats)
    if winner is None:
        return None
    return [([s], 1 if s == winner else 2) for s in range(seats)]


def rate(
    players: Sequence[str], result: Mapping[str, Any], before: Mapping[str, Rating]
) -> dict[str, Rating] | None:
    """Every player's rating after the game whose settlement is ``result``, players by
    seat; ``before`` holds the people's ratings before it (a person missing is new).  None
    when the game does not count (see :func:`teams_of`) or seats no person."""
    teams = teams_of(result, len(players))
    if teams is None or all(is_bot(p) for p in players):
        return None
    family = str(result.get("family") or DEFAULT_FAMILY)  # the bots' ratings are per family
    now = {p: bot_rating(p, family) if is_bot(p) else before.get(p, INITIAL) for p in players}
    rated = rate_teams(
        [[now[players[s]] for s in team] for team, _ in teams], [rank for _, rank in teams]
    )
    after = dict(now)
    for (team, _), out in zip(teams, rated, strict=True):
        for seat, r in zip(team, out, strict=True):
            if not is_bot(players[seat]):
                after[players[seat]] = r
    return after


def rate_teams(
    teams: Sequence[Sequence[Rating]], ranks: Sequence[int], model: PlackettLuce = _MODEL
) -> list[list[Rating]]:
    """OpenSkill's update of ``teams`` ranked ``ranks`` (1 best, equal ranks tied)."""
    rated = model.rate(
        [[model.rating(r.mu, r.sigma) for r in team] for team in teams],
        ranks=[float(rank) for rank in ranks],
    )
    return [[Rating(float(r.mu), float(r.sigma)) for r in team] for team in rated]
