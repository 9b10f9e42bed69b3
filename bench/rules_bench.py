"""Section ``rules``: the rules core's legal-move and classification speed, per variant."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from services.engine import rules

from .common import Context, Table, fmt_int, fmt_rate, progress, rate, time_reps
from .positions import Position, PositionSet, position_set

VARIANT_NAMES = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")


def legal_moves_runner(v: rules.Variant, positions: Sequence[Position]) -> Callable[[], None]:
    """One pass of ``rules.legal_plays`` over the positions (``last`` given as cards, so the
    core classifies it, as it would for a client's move)."""
    pairs = [(p.hand, p.last) for p in positions]
    legal_plays = rules.legal_plays

    def run() -> None:
        for hand, last in pairs:
            legal_plays(v, hand, last)

    return run


def classify_runner(v: rules.Variant, card_sets: Sequence[Sequence[int]]) -> Callable[[], None]:
    """One pass of ``rules.classify`` over the card sets."""
    classify = rules.classify

    def run() -> None:
        for cards in card_sets:
            classify(v, cards)

    return run


def rules_section(ctx: Context) -> list[Table]:
    table = Table(
        f"Rules core: legal moves and classification per variant (best of {ctx.reps} runs)",
        [
            "variant",
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
        moves = sum(len(rules.legal_plays(v, p.hand, p.last)) for p in ps.positions)
        progress(f"{name}: timing legal_plays and classify, {ctx.reps} runs")
        t_lead, t_follow, t_class = time_reps(
            [
                legal_moves_runner(v, leads),
                legal_moves_runner(v, follows),
                classify_runner(v, ps.card_sets),
            ],
            ctx.reps,
        )
        table.rows.append(
            [
                name,
                fmt_int(len(ps.positions)),
                fmt_int(len(leads)),
                f"{moves / len(ps.positions):.1f}",
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
        "each classified by rules.classify(v, cards).",
    ]
    return [table]
