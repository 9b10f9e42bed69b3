"""Types of the compiled rules core (_native.pyx): the same signatures as the pure functions."""

from collections.abc import Callable, Sequence
from typing import Any

from .patterns import Pattern, Play
from .variants import Variant

def legal_plays(
    v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play = ()
) -> tuple[Play, ...]: ...
def legal_ids(
    v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play | None = None
) -> Sequence[int]: ...
def play_from_id(v: Variant, move_id: int) -> Play: ...
def count_plays(
    v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play = ()
) -> int: ...
def classify(
    v: Variant, cards: Sequence[int], reading: str | None = None, last: Pattern | None = None
) -> Pattern: ...
def choose_play(
    v: Variant,
    hand: Sequence[int],
    last: Pattern | None,
    *,
    no_bombs: bool = False,
    must_hold: int | None = None,
) -> Play | None: ...
def autoplay_plays(
    v: Variant,
    hands: list[Any],
    played: list[int],
    made: list[int],
    log: list[Any],
    seat: int,
    last: Play | None,
    last_seat: int | None,
    passes: int,
    landlord: int | None,
    spade_rule: bool,
    opened: bool,
    bombs: tuple[Any, ...],
    by: str | None,
    read_play: Callable[..., Any],
    bomb_record: Callable[..., Any],
    lead_cannot_pass: Callable[[int], None],
) -> tuple[int, Play, int, tuple[Any, ...]]: ...
def shuffle_draws(deck: list[int], draws: tuple[int, ...]) -> list[int] | None: ...
