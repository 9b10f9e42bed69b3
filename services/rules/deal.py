"""The documented shuffle and deal (RULES.md §4.1–4.2), reproducible in any language.

Everything here is a pure function of the seed (any non-empty string) and the variant; the
randomness of a new seed comes from outside (the CLI and the services draw 128 bits and write
them as 32 lowercase hex digits).

**The byte stream.**  For a *domain* (an ASCII label, below) and a seed, block ``i`` (i = 0, 1,
2, …) is ``SHA-256(domain ‖ 0x00 ‖ utf8(seed) ‖ uint64_be(i))``; the stream is the blocks
concatenated.  The stream is read as unsigned 64-bit big-endian integers, four per block, in
order.

**An unbiased integer in [0, n-1]** (``n ≥ 1``): ``limit = 2^64 - (2^64 mod n)``; read the next
64-bit integer ``x``; if ``x ≥ limit`` discard it and read the next; return ``x mod n``.

**The shuffle** (domain ``cardroom/shuffle/v1``): start from the variant's deck as a list of card
ids in increasing order (a card's id is ``rank*4 + suit`` with ranks 3..2 = 0..12 and suits s,
h, c, d = 0..3; BJ = 52, RJ = 53; a two-deck game lists each id twice, side by side).  For
``i`` from ``len-1`` down to 1: draw ``j`` in ``[0, i]`` (n = i+1) and swap items ``i`` and
``j`` (Fisher–Yates).

**The deal**: item ``k`` of the shuffled list goes to seat ``k mod players`` for
``k < players × hand_size``; the items left over, in order, are the bottom cards.  Hands are
kept sorted by card id.  In Zheng Shangyou the opener is the seat that received the ♠3 (id 0)
of the lowest index ``k`` — in a two-deck game the earlier of the two.

**The first bidder** (Dou Dizhu, domain ``cardroom/first-bidder/v1``): the first unbiased
integer in ``[0, players-1]`` drawn from that domain's stream of the game's seed.

**Redeals**: deal number ``d`` (0 for the first deal, 1 for the first redeal, …) is dealt from
the seed ``redeal_seed(seed, d)``: the game's seed itself for ``d = 0``, else the string
``seed + "/redeal/" + str(d)``.  The first bidder stays the one of the game's seed.

Test vectors (also checked by ``tests/rules/test_deal.py`` and listed in
``docs/deal-test-vectors.md``):

>>> from .variants import variant
>>> from .cards import format_cards
>>> d = deal_from_seed(variant("doudizhu3"), "cardroom")
>>> [format_cards(h) for h in d.hands], format_cards(d.bottom), first_bidder("cardroom", 3)
... # doctest: +NORMALIZE_WHITESPACE
(['3h3c5s5c7h8sJsJcQsQcKsKhKcAhAd2hBJ',
  '4h4c4d5h6s7c7d8h8c9cTsTdQhKdAc2c2d',
  '3s3d4s5d6h6d7s8d9s9hThTcJhJdQd2sRJ'],
 'As9d6c',
 0)
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from collections.abc import Iterator
from itertools import chain
from typing import Final, NamedTuple

from .cards import SPADE_THREE
from .patterns import native_core
from .variants import Variant

SHUFFLE_DOMAIN: Final = b"cardroom/shuffle/v1"
COMMITMENT_DOMAIN: Final = b"cardroom/deal-commitment/v1"
FIRST_BIDDER_DOMAIN: Final = b"cardroom/first-bidder/v1"
_TWO64: Final = 1 << 64
_FOUR_U64: Final = struct.Struct(">4Q")


class Deal(NamedTuple):
    """A dealt game: sorted hands, the bottom cards, and the seat that received the first ♠3
    (None when no hand holds one)."""

    hands: tuple[tuple[int, ...], ...]
    bottom: tuple[int, ...]
    spade_three_seat: int | None


@dataclasses.dataclass(frozen=True)
class SeedDeal:
    """A deal from a seed (any non-empty string; its UTF-8 bytes are hashed)."""

    seed: str


@dataclasses.dataclass(frozen=True)
class ExplicitDeal:
    """Given hands (and bottom cards), for tests, puzzles and imported games.  A hand may be
    shorter than the variant's (a short game); the cards must be cards of the deck, each at
    most as often as the deck holds it.  ``opener``: Zheng Shangyou's opening seat (default:
    the lowest seat holding a ♠3, else seat 0)."""

    hands: tuple[tuple[int, ...], ...]
    bottom: tuple[int, ...] = ()
    opener: int | None = None


DealSpec = SeedDeal | ExplicitDeal
"""How a game's cards were given: the one thing a record needs besides its actions."""


def _prefix(domain: bytes, seed: str) -> bytes:
    if not seed:
        raise ValueError("a seed is a non-empty string")
    return domain + b"\x00" + seed.encode("utf-8")


def _stream(domain: bytes, seed: str, start: int = 0) -> Iterator[int]:
    """The 64-bit integers of the counter-mode SHA-256 stream of (domain, seed), from block
    ``start`` on."""
    prefix = _prefix(domain, seed)
    sha256 = hashlib.sha256
    unpack = _FOUR_U64.unpack  # the block's four big-endian 64-bit integers at once
    counter = start
    while True:
        yield from unpack(sha256(prefix + counter.to_bytes(8, "big")).digest())
        counter += 1


def _first_blocks(domain: bytes, seed: str, blocks: int) -> tuple[int, ...]:
    """The 64-bit integers of the stream's first ``blocks`` blocks, all at once."""
    prefix = _prefix(domain, seed)
    sha256 = hashlib.sha256
    data = b"".join([sha256(prefix + i.to_bytes(8, "big")).digest() for i in range(blocks)])
    return struct.unpack(f">{4 * blocks}Q", data)


def _below(stream: Iterator[int], n: int) -> int:
    """An unbiased integer in [0, n-1] by rejection sampling on 64-bit blocks."""
    limit = _TWO64 - _TWO64 % n
    while True:
        x = next(stream)
        if x < limit:
            return x % n


def _limits(count: int) -> tuple[int, ...]:
    """``_below``'s limit for each n below ``count`` (index 0 unused)."""
    return (0, *(_TWO64 - _TWO64 % n for n in range(1, count)))


_LIMITS: Final = _limits(2 * 54 + 1)  # every deck: one or two packs of 54


def shuffle(deck: tuple[int, ...], seed: str) -> list[int]:
    """The deck in the order the seed gives (Fisher–Yates, documented above)."""
    out = list(deck)
    # A shuffle makes len - 1 draws, and a draw is discarded with odds below 2**-57: read the
    # blocks those draws take in one go, and the stream beyond them only if one is discarded.
    blocks = (len(out) + 2) // 4
    first = _first_blocks(SHUFFLE_DOMAIN, seed, blocks)
    if native_core is not None:
        # The loop below, compiled; None in the rare case it needs the stream's next blocks.
        done: list[int] | None = native_core.shuffle_draws(out, first)
        if done is not None:
            return done
    draw = chain(first, _stream(SHUFFLE_DOMAIN, seed, blocks)).__next__
    limits = _LIMITS if len(out) <= len(_LIMITS) else _limits(len(out) + 1)
    for i in range(len(out) - 1, 0, -1):
        # _below(stream, i + 1), inlined: a new game shuffles once per deal.
        n = i + 1
        limit = limits[n]
        x = draw()
        while x >= limit:
            x = draw()
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


def deal_from_seed(v: Variant, seed: str) -> Deal:
    """Shuffle the variant's deck with ``seed`` and deal it one card at a time from seat 0."""
    order = shuffle(v.deck, seed)
    players, n = v.players, v.players * v.hand_size
    hands = tuple(tuple(sorted(order[s:n:players])) for s in range(players))
    opener = None
    for k in range(n):
        if order[k] == SPADE_THREE:
            opener = k % players
            break
    return Deal(hands, tuple(order[n:]), opener)


def first_bidder(seed: str, players: int) -> int:
    """The Dou Dizhu first bidder drawn from a game's seed (domain-separated from the shuffle)."""
    return _below(_stream(FIRST_BIDDER_DOMAIN, seed), players)


def deal_commitment(game_id: str, seed: str) -> str:
    """The commitment to a seeded game's deal (docs/deal-test-vectors.md), as 64 lowercase hex
    digits: ``SHA-256(domain ‖ 0x00 ‖ uint64_be(len(g)) ‖ g ‖ utf8(seed))`` with the domain
    ``cardroom/deal-commitment/v1`` and ``g`` the UTF-8 bytes of the game id.  The public deal
    event carries it before the first bid; ``game_over`` reveals the seed, so anyone can check
    that the cards were fixed for this game before anybody acted (every redeal's seed derives
    from the game's seed, so one commitment covers them all)."""
    g = game_id.encode("utf-8")
    body = COMMITMENT_DOMAIN + b"\x00" + len(g).to_bytes(8, "big") + g + seed.encode("utf-8")
    return hashlib.sha256(body).hexdigest()


def redeal_seed(seed: str, deal_no: int) -> str:
    """The seed of deal number ``deal_no`` of a game (0: the game's own seed)."""
    return seed if deal_no == 0 else f"{seed}/redeal/{deal_no}"
