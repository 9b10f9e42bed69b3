"""The fixed, seeded position sets every section measures on.

A position is a hand of the variant's hand size (the landlord's hand holds the bottom cards
too in Dou Dizhu) and the play to beat: empty (a lead) in about a third of the positions, and
otherwise a real play of another seat's hand from the same deal.  That play is drawn by
picking one of the kinds that hand can lead, uniformly, then one play of that kind — drawing
uniformly among all plays would give almost only planes and triples with kickers, which
outnumber everything else in a lead's list.

Everything is drawn from ``random.Random`` seeded by (seed, variant): never global randomness,
so a run is reproducible and the sections of one run see the same positions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from services import rules
from services.rules.cards import CARDS

from .common import Context, progress

LEAD_SHARE = 1 / 3


@dataclass(frozen=True)
class Position:
    hand: tuple[rules.Card, ...]
    last: tuple[rules.Card, ...]  # () for a lead
    landlord: bool  # the hand holds the bottom cards (Dou Dizhu)


@dataclass(frozen=True)
class PositionSet:
    variant: rules.Variant
    positions: tuple[Position, ...]
    card_sets: tuple[tuple[rules.Card, ...], ...]  # classification inputs
    plays_listed: int  # plays the hands have in all, before sampling the card sets

    @property
    def leads(self) -> tuple[Position, ...]:
        return tuple(p for p in self.positions if not p.last)

    @property
    def follows(self) -> tuple[Position, ...]:
        return tuple(p for p in self.positions if p.last)


def _deal(v: rules.Variant, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    deck = list(v.deck)
    rng.shuffle(deck)
    size = v.hand_size
    hands = [deck[i * size : (i + 1) * size] for i in range(v.players)]
    return hands, deck[v.players * size :]


def _as_cards(ids: Sequence[int]) -> tuple[rules.Card, ...]:
    return tuple(CARDS[c] for c in sorted(ids))


def make_positions(v: rules.Variant, count: int, seed: int) -> list[Position]:
    rng = random.Random(f"{seed}:{v.name}")
    out: list[Position] = []
    while len(out) < count:
        hands, bottom = _deal(v, rng)
        landlord = rng.randrange(v.players) if v.bottom_size else -1
        if landlord >= 0:
            hands[landlord] = hands[landlord] + bottom
        seat = rng.randrange(v.players)
        hand = _as_cards(hands[seat])
        last: tuple[rules.Card, ...] = ()
        if rng.random() >= LEAD_SHARE:
            other = rng.choice([s for s in range(v.players) if s != seat])
            plays = rules.legal_plays(v, _as_cards(hands[other]))
            kinds = sorted({p.pattern.kind for p in plays})
            kind = rng.choice(kinds)
            play = rng.choice([p for p in plays if p.pattern.kind is kind])
            last = tuple(CARDS[c] for c in play.cards)
        out.append(Position(hand, last, seat == landlord))
    return out


def _sample_card_sets(
    v: rules.Variant, positions: Sequence[Position], count: int, seed: int
) -> tuple[list[tuple[rules.Card, ...]], int]:
    """A fixed sample of the cards of every play the positions' hands can make."""
    everything: list[tuple[rules.Card, ...]] = []
    for p in positions:
        everything.extend(
            tuple(CARDS[c] for c in play.cards) for play in rules.legal_plays(v, p.hand, p.last)
        )
        if p.last:
            everything.append(p.last)
    rng = random.Random(f"{seed}:{v.name}:card-sets")
    if len(everything) <= count:
        return everything, len(everything)
    return rng.sample(everything, count), len(everything)


def position_set(ctx: Context, name: str) -> PositionSet:
    """The run's position set of a variant (built once per run, shared by the sections)."""

    def make() -> PositionSet:
        v = rules.variant(name)
        progress(f"{name}: dealing {ctx.positions:,} positions (seed {ctx.seed})")
        positions = make_positions(v, ctx.positions, ctx.seed)
        card_sets, listed = _sample_card_sets(v, positions, ctx.card_sets, ctx.seed)
        return PositionSet(v, tuple(positions), tuple(card_sets), listed)

    result: PositionSet = ctx.cached(("positions", name), make)
    return result
