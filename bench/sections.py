"""The benchmark's sections, in the order a full run prints them.

A section is a function ``(Context) -> list[Table]``.  To add one, write the function in its
own module and append a :class:`Section` here; ``python -m bench NAME`` then runs it alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .apply_bench import apply_section
from .bots_bench import bots_section
from .common import Context, Table
from .douzero_bench import douzero_section
from .engine_bench import engine_section
from .games_bench import games_section
from .matchmaker_bench import matchmaker_section
from .openspiel_bench import openspiel_section
from .ratings_bench import ratings_section
from .replay_bench import replay_section
from .rules_bench import rules_section
from .scale_bench import scale_section
from .web_bench import web_section
from .wire_bench import wire_section


class Section(NamedTuple):
    name: str
    help: str
    run: Callable[[Context], list[Table]]


SECTIONS: tuple[Section, ...] = (
    Section(
        "rules",
        "legal-move positions/s and classifications/s of the rules core, all four variants",
        rules_section,
    ),
    Section(
        "douzero",
        "doudizhu3 against DouZero's move generator on the same positions, with ratios",
        douzero_section,
    ),
    Section(
        "openspiel",
        "doudizhu3 move ids (rules.legal_ids) against OpenSpiel's C++ generator, with the ratio",
        openspiel_section,
    ),
    Section(
        "games",
        "complete self-play games/s per variant; doudizhu3 against RLCard's random agents",
        games_section,
    ),
    Section(
        "bots",
        "bot strength (arena: hard vs RLCard's rule agent, the ladder) and time per decision",
        bots_section,
    ),
    Section("replay", "replay store appends/s vs plain INSERT, games verified/s", replay_section),
    Section(
        "apply",
        "the engine servicer's Apply early vs late in a long game, whole history vs delta",
        apply_section,
    ),
    Section("engine", "engine service: game calls vs the empty-RPC baseline", engine_section),
    Section(
        "wire",
        "bytes per Subscribe message with typed bodies vs the JSON only, by event type",
        wire_section,
    ),
    Section(
        "matchmaker",
        "bot tables through the matchmaker vs the engine's Apply rate; seating 1,000 tickets",
        matchmaker_section,
    ),
    Section(
        "ratings",
        "2,000 rated self-play games among 30 simulated players: the bot levels' ratings, tau-b",
        ratings_section,
    ),
    Section(
        "scale",
        "the soak crowd on one matchmaker vs two (PostgreSQL), and 300 streaming tables on one",
        scale_section,
    ),
    Section(
        "web",
        "200 browser sessions (a WebSocket client) on one web process: the relay's p99",
        web_section,
    ),
)
