"""``cardroom classify`` and ``cardroom moves``: the rules library from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from services.common.console import decode, fail, lines_of, one_line, parse_json
from services.rules import (
    CardParseError,
    RulesError,
    Variant,
    VariantError,
    classify,
    format_cards,
    legal_plays,
    parse_cards,
    variant,
)

_BAD_INPUT = (CardParseError, RulesError, VariantError)


def classify_main(args: argparse.Namespace) -> int:
    try:
        v = variant(args.variant)
        cards = parse_cards(" ".join(args.cards))
        pattern = classify(v, cards, reading=args.reading)
    except _BAD_INPUT as exc:
        return fail("classify", str(exc))
    out = {"cards": format_cards(cards), **pattern.to_dict()}
    print(json.dumps(out, ensure_ascii=False))
    return 0


def moves_for(v: Variant, request: Any) -> list[str]:
    """The answer to one ``moves`` request: distinct plays in card notation, ``""`` (pass)
    first when there is a play to answer.  A lead's alternative readings of one set of cards
    are listed once here (the Python API lists each reading)."""
    if not isinstance(request, dict):
        raise ValueError('each line must be a JSON object like {"hand": "3s4s", "last": ""}')
    hand_text, last_text = request.get("hand"), request.get("last", "")
    if not isinstance(hand_text, str) or not isinstance(last_text, str):
        raise ValueError('"hand" (required) and "last" must be strings of cards')
    hand, last = parse_cards(hand_text), parse_cards(last_text)
    seen: dict[str, None] = {"": None} if last else {}
    for play in legal_plays(v, hand, last):
        seen.setdefault(format_cards(play.cards), None)
    return list(seen)


def moves_main(args: argparse.Namespace) -> int:
    try:
        v = variant(args.variant)
    except VariantError as exc:
        return fail("moves", str(exc))
    out = sys.stdout
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    # Each line gets its own answer, an error included: one bad line never ends the loop.
    for _number, raw in lines_of(stdin):
        try:
            answer: dict[str, Any] = {"moves": moves_for(v, parse_json(decode(raw)))}
        except (*_BAD_INPUT, ValueError) as exc:  # BadInput is a ValueError
            answer = {"error": one_line(str(exc))}
        except RecursionError:
            answer = {"error": "nested too deeply"}
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return 0


def version_text() -> str:
    """``cardroom version``: the package, the rules version and the active rules core."""
    from importlib.metadata import PackageNotFoundError, version

    from services.rules import CORE, RULES_VERSION

    try:
        package = version("cardroom")
    except PackageNotFoundError:
        package = "unknown"
    core = "compiled (Cython)" if CORE == "native" else "pure Python"
    return f"cardroom {package}; rules {RULES_VERSION}; rules core: {core}"


def version_main(args: argparse.Namespace) -> int:
    print(version_text())
    return 0
