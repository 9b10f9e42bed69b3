"""Section ``rules``: the rules core's legal-move and classification speed, per variant."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services import rules
from services.rules import moves, patterns

from .common import Context, Table, fmt_int, fmt_rate, progress, rate, time_reps
from .positions import Position, PositionSet, position_set

VARIANT_NAMES = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")


#: The rules cores a bench can time in one process: the active one (compiled unless it is not
#: built or CARDROOM_PURE=1) and the pure-Python reference, by its own names.
PURE_LEGAL: Any = moves.pure_legal_plays
PURE_CLASSIFY: Any = patterns.pure_classify


def compiled_core() -> bool:
    return rules.CORE == "native"


def legal_moves_runner(
    v: rules.Variant, positions: Sequence[Position], legal_plays: Any = None
) -> Callable[[], None]:
    """One pass of ``rules.legal_plays`` (or ``legal_plays``) over the positions (``last``
    given as cards, so the core classifies it, as it would for a client's move)."""
    pairs = [(p.hand, p.last) for p in positions]
    legal_plays = legal_plays or rules.legal_plays

    def run() -> None:
        for hand, last in pairs:
            legal_plays(v, hand, last)

    return run


def classify_runner(
    v: rules.Variant, card_sets: Sequence[Sequence[int]], classify: Any = None
) -> Callable[[], None]:
    """One pass of ``rules.classify`` (or ``classify``) over the card sets."""
    classify = classify or rules.classify

    def run() -> None:
        for cards in card_sets:
            classify(v, cards)

    return run


def cores() -> list[tuple[str, Any, Any]]:
    """(name, legal_plays, classify) of each core this process can time, compiled first."""
    out: list[tuple[str, Any, Any]] = []
    if compiled_core():
        out.append(("compiled", rules.legal_plays, rules.classify))
    out.append(("pure", PURE_LEGAL, PURE_CLASSIFY))
    return out


def rules_section(ctx: Context) -> list[Table]:
    table = Table(
        f"Rules core: legal moves and classification per variant, both cores "
        f"(best of {ctx.reps} runs)",
        [
            "variant",
            "core",
            "positions",
            "leads",
            "moves/pos",
            "positions/s",
            "leads/s",
            "follows/s",
            "card sets",
            "classify/s",
        ],
    )
    for name in VARIANT_NAMES:
        ps: PositionSet = position_set(ctx, name)
        v = ps.variant
        leads, follows = ps.leads, ps.follows
        n_moves = sum(len(rules.legal_plays(v, p.hand, p.last)) for p in ps.positions)
        progress(f"{name}: timing legal_plays and classify, both cores, {ctx.reps} runs")
        runners: list[Callable[[], None]] = []
        for _core, legal, classify in cores():
            runners += [
                legal_moves_runner(v, leads, legal),
                legal_moves_runner(v, follows, legal),
                classify_runner(v, ps.card_sets, classify),
            ]
        timings = time_reps(runners, ctx.reps)
        for i, (core, _legal, _classify) in enumerate(cores()):
            t_lead, t_follow, t_class = timings[3 * i : 3 * i + 3]
            table.rows.append(
                [
                    name,
                    core,
                    fmt_int(len(ps.positions)),
                    fmt_int(len(leads)),
                    f"{n_moves / len(ps.positions):.1f}",
                    fmt_rate(rate(len(ps.positions), t_lead.best + t_follow.best)),
                    fmt_rate(rate(len(leads), t_lead.best)),
                    fmt_rate(rate(len(follows), t_follow.best)),
                    fmt_int(len(ps.card_sets)),
                    fmt_rate(rate(len(ps.card_sets), t_class.best)),
                ]
            )
    table.notes += [
        "positions/s = positions / (best time of the leads + best time of the follows);",
        "each time is the fastest of the runs (time.perf_counter).  A position is one call of",
        "rules.legal_plays(v, hand, last) with `last` as cards, so it includes classifying",
        "`last`.  moves/pos: plays listed per position (passing not counted).  card sets: a",
        "fixed sample of the cards of every play those hands can make (and of each `last`),",
        "each classified by rules.classify(v, cards).  core: compiled is the Cython module",
        "(services/rules/_native.pyx), pure the Python reference (moves.pure_legal_plays,",
        "patterns.pure_classify), timed in the same process, interleaved.",
    ]
    return [table]
