"""Section ``openspiel``: doudizhu3 legal moves against OpenSpiel's C++ generator, same run.

OpenSpiel is called the way it is called: ``state.legal_actions()`` on states built before
any timing (:mod:`bench.openspiel_adapter`), one state per position — the C++ generator
behind pybind11, answering a Python list of action ids.  Ours is ``rules.legal_ids(v, hand,
last)``, the play to beat given as cards (so it is classified, as a client's move would be),
answering the move ids (an ``array('Q')`` in doudizhu3), no ``Play`` per move; and, for
reference, ``rules.legal_plays`` (a ``Play`` per move) on the same positions.

OpenSpiel's game reaches only some of the bench's positions (a landlord's lead of 20 cards,
a peasant's answer of 17: see the adapter), so the ratio is taken on exactly those, both
sides timed interleaved, repetition by repetition; ours on every position is printed too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services import rules
from services.rules.cards import RANK_OF

from . import openspiel_adapter
from .common import Context, Table, fmt_int, fmt_rate, fmt_ratio, progress, rate, time_reps
from .positions import Position, position_set
from .rules_bench import compiled_core, legal_moves_runner

VARIANT = "doudizhu3"
GOAL = 1.5  # issue 29: legal moves ≥ 1.5× OpenSpiel's C++ core


def _openspiel_runner(states: Sequence[Any]) -> Callable[[], None]:
    def run() -> None:
        for state in states:
            state.legal_actions()

    return run


def openspiel_section(ctx: Context) -> list[Table]:
    title = f"{VARIANT}: cardroom's legal moves vs OpenSpiel's C++ Dou Dizhu"
    try:
        os = openspiel_adapter.load()
    except openspiel_adapter.OpenSpielMissing as exc:
        return [Table(title, ["status"], [["skipped"]], [str(exc)])]
    ps = position_set(ctx, VARIANT)
    v = ps.variant
    progress(f"{VARIANT}: building OpenSpiel {os.version} states for the positions")
    built = openspiel_adapter.states(os, [(p.hand, p.last, p.landlord) for p in ps.positions])
    common: list[Position] = [ps.positions[i] for i, _ in built]
    states = [state for _, state in built]
    progress(f"{VARIANT}: timing legal_ids, legal_plays and OpenSpiel, {ctx.reps} runs")
    runners = [
        legal_moves_runner(v, common, rules.legal_ids),
        legal_moves_runner(v, common, rules.legal_plays),
        _openspiel_runner(states),
        legal_moves_runner(v, ps.positions, rules.legal_ids),
        legal_moves_runner(v, ps.positions, rules.legal_plays),
    ]
    ids_t, plays_t, os_t, all_ids_t, all_plays_t = (t.best for t in time_reps(runners, ctx.reps))
    n, total = len(common), len(ps.positions)
    theirs = rate(n, os_t)
    ids_rate, plays_rate = rate(n, ids_t), rate(n, plays_t)
    ratio = ids_rate / theirs
    goal = f"≥ {GOAL:g}×: {'met' if ratio >= GOAL else 'NOT met'}"
    if not compiled_core():
        goal = "compiled core not built"
    table = Table(
        f"{title} {os.version} (same {n:,} positions, best of {ctx.reps} runs, interleaved)",
        ["engine", "call", "positions", "positions/s", "vs OpenSpiel", "goal"],
        [
            ["cardroom", "rules.legal_ids", fmt_int(n), fmt_rate(ids_rate), fmt_ratio(ratio), goal],
            [
                "cardroom",
                "rules.legal_plays",
                fmt_int(n),
                fmt_rate(plays_rate),
                fmt_ratio(plays_rate / theirs),
                "",
            ],
            ["OpenSpiel", "state.legal_actions()", fmt_int(n), fmt_rate(theirs), "1.00×", ""],
            [
                "cardroom",
                "rules.legal_ids",
                fmt_int(total),
                fmt_rate(rate(total, all_ids_t)),
                "",
                "",
            ],
            [
                "cardroom",
                "rules.legal_plays",
                fmt_int(total),
                fmt_rate(rate(total, all_plays_t)),
                "",
                "",
            ],
        ],
    )
    leads = sum(1 for p in common if not p.last)
    table.notes += [
        f"Positions: the {n:,} of the run's {total:,} {VARIANT} positions OpenSpiel's game can",
        f"reach ({leads:,} landlord leads of 20 cards, {n - leads:,} peasant answers of 17 cards);",
        "the last two rows are ours on all of them.  OpenSpiel: pyspiel.load_game('dou_dizhu'),",
        "one state per position reached by its own deal, bid and (for an answer) the landlord's",
        "lead of the play to beat, built before timing; state.legal_actions() lists pass too.",
        "Ours: rules.legal_ids(v, hand, last) with `last` as cards (classified in the call);",
        "an array of move ids, no Play per move.  rules.legal_plays builds a Play per move.",
        "Core: " + ("compiled (_native.pyx)" if compiled_core() else "pure Python") + ".",
    ]
    table.notes += _agreement(v, common, states)
    return [table]


def _agreement(v: rules.Variant, positions: Sequence[Position], states: list[Any]) -> list[str]:
    """How often both list the same number of distinct moves by ranks (pass left out).
    Reported, not asserted: the rule sets differ (OpenSpiel has no four-with-two pairs, say)."""
    progress(f"{VARIANT}: comparing move counts with OpenSpiel")
    same = 0
    for p, state in zip(positions, states, strict=True):
        ours = {
            tuple(sorted(RANK_OF[c] for c in play.cards))
            for play in rules.legal_plays(v, p.hand, p.last)
        }
        theirs = [a for a in state.legal_actions() if state.action_to_string(a) != "Pass"]
        same += len(ours) == len(theirs)
    return [
        "",
        f"Same number of distinct moves by ranks (pass aside): {same:,}/{len(positions):,}"
        " positions",
        "(reported, not asserted: the two games' rules differ in places).",
    ]
