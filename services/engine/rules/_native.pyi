"""Types of the compiled rules core (_native.pyx): the same signatures as the pure functions."""

from collections.abc import Sequence

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
