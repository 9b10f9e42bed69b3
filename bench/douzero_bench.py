"""Section ``douzero``: doudizhu3 against DouZero's move generator, same positions, same run.

Both sides get the same positions (DouZero's copy converted to its encoding before any
timing) and are timed interleaved, repetition by repetition.  Ours is
``rules.legal_plays(v, hand, last)``; DouZero's is a faithful copy of its env's
``get_legal_card_play_actions`` (see :mod:`bench.douzero_adapter`), which classifies the
rival move with ``get_move_type``, generates with ``MovesGener`` and filters with
``move_selector``.  Classification compares ``rules.classify`` with ``get_move_type`` on the
same card sets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from services import rules

from . import douzero_adapter
from .common import Context, Table, fmt_rate, fmt_ratio, progress, rate, time_reps
from .positions import Position, position_set
from .rules_bench import classify_runner, cores, legal_moves_runner

VARIANT = "doudizhu3"
GOAL_POSITIONS = 5.0
GOAL_CLASSIFY = 4.0


def _dz_moves_runner(
    dz: douzero_adapter.DouZero, positions: Sequence[tuple[list[int], list[int]]]
) -> Callable[[], None]:
    legal_actions = dz.legal_actions

    def run() -> None:
        for hand, rival in positions:
            legal_actions(hand, rival)

    return run


def _dz_classify_runner(
    dz: douzero_adapter.DouZero, card_sets: Sequence[list[int]]
) -> Callable[[], None]:
    get_move_type = dz.get_move_type

    def run() -> None:
        for move in card_sets:
            get_move_type(move)

    return run


def _encode_positions(positions: Sequence[Position]) -> list[tuple[list[int], list[int]]]:
    enc = douzero_adapter.encode
    return [(enc(p.hand), enc(p.last)) for p in positions]


def _goal(ratio: float, goal: float) -> str:
    return f"≥ {goal:g}×: {'met' if ratio >= goal else 'NOT met'}"


def douzero_section(ctx: Context) -> list[Table]:
    try:
        dz = douzero_adapter.load()
    except douzero_adapter.DouZeroMissing as exc:
        table = Table("doudizhu3: cardroom vs DouZero", ["status"], [["skipped"]], [str(exc)])
        return [table]
    ps = position_set(ctx, VARIANT)
    v = ps.variant
    leads, follows = ps.leads, ps.follows
    dz_leads, dz_follows = _encode_positions(leads), _encode_positions(follows)
    dz_sets = [douzero_adapter.encode(cards) for cards in ps.card_sets]

    progress(f"{VARIANT}: timing cardroom and DouZero {dz.version}, {ctx.reps} runs interleaved")
    ours = cores()
    runners: list[Callable[[], None]] = []
    for _core, legal, classify in ours:
        runners += [
            legal_moves_runner(v, leads, legal),
            legal_moves_runner(v, follows, legal),
            classify_runner(v, ps.card_sets, classify),
        ]
    runners += [
        _dz_moves_runner(dz, dz_leads),
        _dz_moves_runner(dz, dz_follows),
        _dz_classify_runner(dz, dz_sets),
    ]
    timings = [t.best for t in time_reps(runners, ctx.reps)]
    n = len(ps.positions)
    counts = (len(leads), len(follows), len(dz_sets))

    def rates(i: int) -> tuple[float, float, float, float]:
        lead, follow, classified = timings[3 * i : 3 * i + 3]
        return (
            rate(n, lead + follow),
            rate(counts[0], lead),
            rate(counts[1], follow),
            rate(counts[2], classified),
        )

    theirs = rates(len(ours))
    per_core = [rates(i) for i in range(len(ours))]
    names = [core for core, _, _ in ours]
    table = Table(
        f"doudizhu3: cardroom vs DouZero {dz.version} (same {n:,} positions and "
        f"{len(dz_sets):,} card sets; best of {ctx.reps} runs, interleaved)",
        ["measure", *names, "DouZero", *(f"{c}/DouZero" for c in names), "goal (compiled)"],
    )
    labels = ("positions/s", "  leads/s", "  follows/s", "classifications/s")
    goals = (GOAL_POSITIONS, None, None, GOAL_CLASSIFY)
    for j, label in enumerate(labels):
        ratios = [r[j] / theirs[j] for r in per_core]
        goal = "" if goals[j] is None else _goal(ratios[0], goals[j] or 0.0)
        if goals[j] is not None and names[0] != "compiled":
            goal = "compiled core not built"
        table.rows.append(
            [
                label,
                *(fmt_rate(r[j]) for r in per_core),
                fmt_rate(theirs[j]),
                *(fmt_ratio(x) for x in ratios),
                goal,
            ]
        )
    table.notes += [
        "DouZero side: a faithful copy of douzero/env/game.py get_legal_card_play_actions",
        "(get_move_type on the rival move, MovesGener, move_selector filters, bombs + rocket",
        "added, pass [] added, every move sorted), loaded without torch or numpy from",
        f"{dz.path}.",
        "Cards were converted to DouZero's encoding before timing.  Classification: our",
        "rules.classify(v, cards) against DouZero's get_move_type(sorted move).",
    ]
    table.notes += _agreement(dz, v, ps.positions, ps.card_sets, dz_sets)
    return [table]


def _agreement(
    dz: douzero_adapter.DouZero,
    v: rules.Variant,
    positions: Sequence[Position],
    card_sets: Sequence[Sequence[int]],
    dz_sets: Sequence[list[int]],
) -> list[str]:
    """Do both generators list the same distinct moves (as rank multisets)?  Reported, not
    asserted: the rule sets differ in places and DouZero has known generator quirks."""
    progress(f"{VARIANT}: comparing the two generators' moves position by position")
    enc = douzero_adapter.encode
    get_type = dz.get_move_type
    same = same_count = 0
    lead_same = lead_total = 0
    dz_dupes = 0
    example: dict[str, str] = {}  # a move of each kind/type only one side lists
    only_dz: Counter[str] = Counter()  # moves only DouZero lists, by DouZero's type
    only_ours: Counter[str] = Counter()  # moves only we list, by our kind
    pos_only_dz: Counter[str] = Counter()
    pos_only_ours: Counter[str] = Counter()
    rival_wrong = 0
    for p in positions:
        ours: dict[tuple[int, ...], str] = {}
        for play in rules.legal_plays(v, p.hand, p.last):
            ours.setdefault(tuple(enc(play.cards)), play.pattern.kind.value)
        rival = enc(p.last)
        if rival and get_type(list(rival))["type"] == dz.move_detector.TYPE_15_WRONG:
            rival_wrong += 1
        theirs_list = [tuple(m) for m in dz.legal_actions(enc(p.hand), rival) if m]
        theirs = set(theirs_list)
        dz_dupes += len(theirs_list) != len(theirs)
        agree = theirs == set(ours)
        same += agree
        same_count += len(theirs) == len(ours)
        if not p.last:
            lead_total += 1
            lead_same += agree
        kinds_dz: Counter[str] = Counter()
        for m in sorted(theirs - set(ours)):
            name = dz.type_names[get_type(list(m))["type"]]
            kinds_dz[name] += 1
            example.setdefault(f"dz:{name}", _ranks(m))
        kinds_ours: Counter[str] = Counter()
        for m in sorted(set(ours) - theirs):
            kinds_ours[ours[m]] += 1
            example.setdefault(f"ours:{ours[m]}", _ranks(m))
        only_dz.update(kinds_dz)
        only_ours.update(kinds_ours)
        pos_only_dz.update(kinds_dz.keys())
        pos_only_ours.update(kinds_ours.keys())
    dz_wrong = sum(
        get_type(m)["type"] == dz.move_detector.TYPE_15_WRONG for m in dz_sets if len(m) > 0
    )
    type_mismatch: Counter[str] = Counter()
    for cards, move in zip(card_sets, dz_sets, strict=True):
        kind = rules.classify(v, cards).kind.value
        theirs_type = dz.type_names[get_type(move)["type"]]
        if _DZ_TYPE_OF_KIND.get(kind) != theirs_type:
            type_mismatch[f"{kind}→{theirs_type}"] += 1
    n = len(positions)

    def breakdown(side: str, moves: Counter[str], where: Counter[str]) -> list[str]:
        if not moves:
            return ["    none"]
        return [
            f"    {kind}: {count:,} moves in {where[kind]:,} positions,"
            f" e.g. {example[f'{side}:{kind}']}"
            for kind, count in moves.most_common()
        ]

    return [
        "",
        f"Agreement on the {n:,} positions (distinct moves as rank multisets, pass left out):",
        f"  same set of distinct moves: {same:,}/{n:,} "
        f"(leads {lead_same:,}/{lead_total:,}, follows {same - lead_same:,}/{n - lead_total:,});"
        f" same number: {same_count:,}/{n:,}",
        f"  DouZero lists some move twice in {dz_dupes:,} positions;"
        f" it reads {rival_wrong:,} of our `last` plays as TYPE_15_WRONG",
        f"  and {dz_wrong:,}/{len(dz_sets):,} of the classified card sets.",
        f"  Classification: DouZero's type matches our kind on"
        f" {len(dz_sets) - type_mismatch.total():,}/{len(dz_sets):,} card sets"
        + (
            "; the others (ours→DouZero): "
            + ", ".join(f"{k} {c:,}" for k, c in type_mismatch.most_common())
            if type_mismatch
            else ""
        ),
        "  moves only DouZero lists, by its type:",
        *breakdown("dz", only_dz, pos_only_dz),
        "  moves only cardroom lists, by our kind:",
        *breakdown("ours", only_ours, pos_only_ours),
    ]


def _ranks(move: Sequence[int]) -> str:
    """A DouZero move in rank notation (``[3, 3, 3, 4, 20, 30]`` → ``3334BJRJ``)."""
    return "".join(_RANK_NAME_OF_DZ[c] for c in move)


_RANK_NAME_OF_DZ = dict(zip(douzero_adapter.DOUZERO_RANK, rules.RANK_NAMES, strict=True))

#: Our kind → DouZero's move type, for the kinds both games have.
_DZ_TYPE_OF_KIND = {
    "single": "single",
    "pair": "pair",
    "triple": "triple",
    "bomb": "bomb",
    "rocket": "king_bomb",
    "triple_single": "3_1",
    "triple_pair": "3_2",
    "straight": "serial_single",
    "pair_chain": "serial_pair",
    "triple_chain": "serial_triple",
    "plane_single": "serial_3_1",
    "plane_pair": "serial_3_2",
    "four_two": "4_2",
    "four_pairs": "4_22",
}
