"""Regenerate tests/rules/golden/move_counts.json: golden legal-move counts (like a chess
engine's perft file), so any change in what the generator offers shows up in review.

    .venv/bin/python -m tests.rules.make_golden          # check, then write the file
    .venv/bin/python -m tests.rules.make_golden --dry    # check only
    .venv/bin/python -m tests.rules.make_golden --verify --limit 25000000  # the file, fully

Positions per variant, all from one fixed seed (a ``random.Random`` of its own, never the
global one):

* ``deal``: a hand of the variant's hand size dealt from a shuffled deck;
* ``landlord`` (Dou Dizhu): the landlord's hand, hand size + the bottom cards;
* ``small``: 7–11 cards from a few neighbouring ranks, where bombs, chains and planes are
  dense — small enough to check against every subset.

Each has a ``last`` that is empty (a lead) or a play led from another hand of the same deal,
chosen kind first so every kind the other hand can lead turns up; ``reading`` names that
play's reading, since the same cards may have several.

The counts are checked before the file is written: every ``small`` position against the
enumeration of all subsets (brute_force.by_subsets), and every position whose sub-multisets
of ranks are few enough against brute_force.count_by_rank_counts.  Both brute forces use
only the classifier, never the generator.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

from services import rules
from services.rules import Card, Pattern, Variant
from services.rules.cards import RANK_OF

from . import brute_force

GOLDEN = Path(__file__).with_name("golden") / "move_counts.json"
SEED = "cardroom golden move counts v1"
PER_VARIANT, LANDLORD, SMALL = 40, 6, 6  # the rest are ``deal`` positions
RANK_COUNT_LIMIT = 400_000  # check a full hand by ranks when it has at most this many subsets

VARIANTS = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")


def _cards(ids: list[int]) -> tuple[Card, ...]:
    return tuple(sorted(rules.CARDS[c] for c in ids))


def _play_key(play: rules.Play) -> tuple[int, int, tuple[int, ...]]:
    return play.pattern.order, play.pattern.size, tuple(play.cards)


def _pick_last(rng: random.Random, v: Variant, other: tuple[Card, ...]) -> rules.Play | None:
    """None (a lead) a quarter of the time, else a lead of ``other``: a random kind among
    those it can lead, then a random play of that kind."""
    if not other or rng.random() < 0.25:
        return None
    by_kind: dict[str, list[rules.Play]] = {}
    # Sorted, so the positions depend on which plays exist, not on the generator's order.
    for play in sorted(rules.legal_plays(v, other), key=_play_key):
        by_kind.setdefault(play.pattern.kind.value, []).append(play)
    kind = rng.choice(sorted(by_kind))
    return rng.choice(by_kind[kind])


def _position(
    v: Variant, kind: str, hand: tuple[Card, ...], last: rules.Play | None
) -> dict[str, Any]:
    return {
        "variant": v.name,
        "kind": kind,
        "hand": rules.format_cards(hand, " "),
        "last": "" if last is None else rules.format_cards(last.cards, " "),
        "reading": "" if last is None else last.pattern.reading,
    }


def build_positions() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    out: list[dict[str, Any]] = []
    for name in VARIANTS:
        v = rules.variant(name)
        landlord = LANDLORD if v.bottom_size else 0
        plan = [("deal", v.hand_size)] * (PER_VARIANT - SMALL - landlord)
        plan += [("landlord", v.hand_size + v.bottom_size)] * landlord
        for kind, size in plan:
            deck = list(v.deck)
            rng.shuffle(deck)
            hand = _cards(deck[:size])
            other = _cards(deck[size : size + v.hand_size])
            out.append(_position(v, kind, hand, _pick_last(rng, v, other)))
        for _ in range(SMALL):
            start, width = rng.randrange(13), rng.randint(2, 5)
            ranks = {(start + i) % 13 for i in range(width)}
            if v.jokers and rng.random() < 0.5:
                ranks |= {13, 14}
            pool = [c for c in v.deck if RANK_OF[c] in ranks]
            rng.shuffle(pool)
            size = rng.randint(7, 11)
            hand = _cards(pool[:size])
            other = _cards(pool[size : size + 10])
            out.append(_position(v, "small", hand, _pick_last(rng, v, other)))
    return out


def last_pattern(v: Variant, position: dict[str, Any]) -> Pattern | None:
    """The play to beat, in the reading the position names."""
    if not position["last"]:
        return None
    return rules.classify(v, rules.parse_cards(position["last"]), reading=position["reading"])


def count(position: dict[str, Any]) -> int:
    v = rules.variant(position["variant"])
    hand = rules.parse_cards(position["hand"])
    last = last_pattern(v, position)
    return rules.count_plays(v, hand, last=() if last is None else last)


def rank_subsets(hand: tuple[Card, ...]) -> int:
    counts = rules.rank_counts(hand)
    return math.prod(n + 1 for n in counts)


def check(position: dict[str, Any], got: int, limit: int = RANK_COUNT_LIMIT) -> str:
    """Compare ``got`` with a brute force when one is affordable; returns how it was checked
    (raises AssertionError on a mismatch)."""
    v = rules.variant(position["variant"])
    hand = rules.parse_cards(position["hand"])
    last = last_pattern(v, position)
    if len(hand) <= 12:
        expected = len(brute_force.by_subsets(v, hand, last))
        how = "subsets"
    elif rank_subsets(hand) <= limit:
        expected = brute_force.count_by_rank_counts(v, hand, last)
        how = "ranks"
    else:
        return "unchecked"
    assert got == expected, f"{position}: generator {got}, brute force {expected}"
    return how


def dump(positions: list[dict[str, Any]]) -> str:
    """One position per line, so a diff shows exactly which counts moved."""
    lines = ",\n".join("    " + json.dumps(p, ensure_ascii=False) for p in positions)
    head = {
        "about": "legal-move counts (passing not counted); regenerate: "
        "python -m tests.rules.make_golden",
        "rules_version": rules.RULES_VERSION,
        "seed": SEED,
    }
    head_text = json.dumps(head, ensure_ascii=False)[1:-1]
    return "{" + head_text + ',\n  "positions": [\n' + lines + "\n  ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry", action="store_true", help="check the counts, write nothing")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="check the committed file's counts by brute force instead of rebuilding it",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=RANK_COUNT_LIMIT,
        help="brute-force full hands with at most this many rank sub-multisets",
    )
    args = parser.parse_args(argv)
    if args.verify:
        positions = json.loads(GOLDEN.read_text(encoding="utf-8"))["positions"]
    else:
        positions = build_positions()
    tally: dict[str, int] = {}
    for p in positions:
        if args.verify:
            assert count(p) == p["count"], f"{p}: generator {count(p)}"
        else:
            p["count"] = count(p)
        how = check(p, p["count"], args.limit)
        tally[how] = tally.get(how, 0) + 1
    print(f"{len(positions)} positions; checked by brute force: {tally}", file=sys.stderr)
    if not (args.dry or args.verify):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(dump(positions), encoding="utf-8")
        print(f"wrote {GOLDEN}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
