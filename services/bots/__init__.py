"""Bots: players that see only a seat's view.

    from services.bots import make_bot
    bot = make_bot("hard", variant, seed="any string")   # a Variant or its name
    action = bot.act(rules.seat_view(state, seat))      # an Action for view.seat

Levels: ``easy`` (the auto-play policy), ``normal`` (certain plays first, then hand
decomposition), ``hard`` (the same with card counting, a middle-game search of its leads and
an endgame search).  Pure: this package imports the rules library and the standard library
only; a bot's only input is the view.
"""

from __future__ import annotations

from services import rules

from .base import Bot
from .easy import EasyBot
from .observe import Move, Observation, observe
from .smart import HardBot, NormalBot

LEVELS: dict[str, type[Bot]] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot}
#: Levels whose decisions are searches: a few ms on average, now and then half a second or more
#: (bench bots: hard's worst decisions took 0.5-0.8 s).  A service runs them off its event
#: loop (the matchmaker's bot workers), and the engine does not play them in a run.
SEARCHING_LEVELS = frozenset({"hard"})
#: The bots' version: raised whenever a level's play changes.  Every bot's player id names it
#: (``bot:<level>:<unique>:v<VERSION>``) and each version has its own measured fixed ratings
#: (services/ratings/model.py ``BOT_RATINGS_BY_VERSION``), so a game is rated, and rebuilt,
#: with the ratings of the bots that played it.
#: 2: normal slips on half its quiet answers; hard searches middle-game leads.
#: 3: hard searches its answers too when an enemy is within six cards (doudizhu3, zsy2).
#: 4: hard plays out the moves its exact endgame search ties; farmers answer from eight cards.
#: 5: hard's doudizhu4 farmers bomb a landlord's play they cannot beat otherwise.
#: 6: hard's doudizhu3 farmers search their leads once the landlord holds 14 cards or fewer.
VERSION = 6


def make_bot(level: str, variant: rules.Variant | str, seed: str = "") -> Bot:
    """A bot of ``level`` (easy, normal, hard) for ``variant`` (a Variant, room overrides
    included, or a variant name or alias)."""
    cls = LEVELS.get(level)
    if cls is None:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    v = rules.variant(variant) if isinstance(variant, str) else variant
    return cls(v, seed)


__all__ = [
    "LEVELS",
    "SEARCHING_LEVELS",
    "VERSION",
    "Bot",
    "Move",
    "Observation",
    "make_bot",
    "observe",
]
