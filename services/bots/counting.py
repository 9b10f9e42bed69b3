"""Card counting: which cards are still out, who may hold them, and whether a play can be
beaten by a seat given only that.

Everything here reads the observation: the deck less this seat's hand, every card played this
deal and the landlord's shown hand are the cards *out*; the Dou Dizhu bottom cards, once seen,
are known to sit in the landlord's hand until he plays them.  A seat may hold any card out
(except the ones known elsewhere), up to its card count.
"""

from __future__ import annotations

from services import rules
from services.rules import Kind, Pattern
from services.rules.cards import RANK_OF
from services.rules.kinds import SHAPES
from services.rules.patterns import bomb_pattern

from .observe import Observation

ACE, TWO = 11, 12


def out_counts(o: Observation) -> list[int]:
    """Rank counts of the cards this seat cannot place: the deck less its hand, the cards
    played, and the shown hand."""
    counts = list(o.variant.copies)
    for c in o.hand:
        counts[RANK_OF[c]] -= 1
    for cards in o.played:
        for c in cards:
            counts[RANK_OF[c]] -= 1
    if o.shown_hand is not None and o.landlord != o.seat:
        for c in o.shown_hand:
            counts[RANK_OF[c]] -= 1
    return counts


def known_of(o: Observation, seat: int) -> list[int]:
    """Rank counts of the cards ``seat`` is known to hold (bottom cards not yet played, or the
    whole shown hand)."""
    counts = [0] * 15
    if seat == o.seat:
        for c in o.hand:
            counts[RANK_OF[c]] += 1
        return counts
    if seat != o.landlord:
        return counts
    if o.shown_hand is not None:
        for c in o.shown_hand:
            counts[RANK_OF[c]] += 1
        return counts
    if o.bottom is not None:
        for c in o.bottom:
            counts[RANK_OF[c]] += 1
        for c in o.played[seat]:
            r = RANK_OF[c]
            if counts[r]:
                counts[r] -= 1
    return counts


class Threats:
    """For each other seat, the rank counts it may hold and how many cards it holds."""

    def __init__(self, o: Observation) -> None:
        self.o = o
        v = o.variant
        out = out_counts(o)
        self.out = out
        self.possible: dict[int, list[int]] = {}
        known = {s: known_of(o, s) for s in range(v.players) if s != o.seat}
        unplaced = list(out)
        for s, k in known.items():
            if o.shown_hand is not None and s == o.landlord:
                continue  # not in `out` already
            for r in range(15):
                unplaced[r] -= k[r]
        for s, k in known.items():
            if o.shown_hand is not None and s == o.landlord:
                self.possible[s] = k
            else:
                self.possible[s] = [min(unplaced[r] + k[r], o.counts[s]) for r in range(15)]
        self.top = TWO if v.chain_wraps_ace_two else ACE
        self.bomb_min = v.bomb_min if Kind.BOMB in v.patterns else 99
        self.rocket = v.rocket_counts if Kind.ROCKET in v.patterns else None
        self._memo: dict[tuple[int, Pattern], bool] = {}

    def can_beat(self, seat: int, p: Pattern) -> bool:
        """Whether ``seat`` may hold a play that beats ``p`` (kickers assumed available)."""
        key = (seat, p)
        found = self._memo.get(key)
        if found is None:
            found = self._can_beat(seat, p)
            self._memo[key] = found
        return found

    def any_beats(self, seats: tuple[int, ...], p: Pattern) -> bool:
        return any(self.can_beat(s, p) for s in seats)

    def _can_beat(self, seat: int, p: Pattern) -> bool:
        v = self.o.variant
        have = self.possible[seat]
        n = self.o.counts[seat]
        if n == 0 or p.kind is Kind.ROCKET:
            return False
        rc = self.rocket
        if rc is not None and have[13] >= rc[13] and have[14] >= rc[14] and n >= rc[13] + rc[14]:
            return True
        # bombs: (size, rank) orders as in the rules
        for r in range(13):
            k = min(have[r], n, v.bomb_max)
            size = 0
            if k >= self.bomb_min:
                size = k
            elif v.aaa_bomb and r == ACE and k >= 3:
                size = 3
            if size:
                if p.kind is not Kind.BOMB:
                    return True
                if rules.beats(bomb_pattern(v, r, size), p):
                    return True
        if p.is_bomb or p.size > n:
            return False
        shape = SHAPES[p.kind]
        unit = shape.unit
        if p.kind is Kind.STRAIGHT_FLUSH:
            return False  # suits unknown: a straight flush is taken as safe
        if not shape.chain:
            for r in range(max(p.order + 1, 0), 15):
                if have[r] >= unit:
                    if p.kind is Kind.TRIPLE and v.aaa_bomb and r == ACE:
                        continue
                    return True
            return False
        length = p.length
        run = 0
        for r in range(self.top + 1):
            run = run + 1 if have[r] >= unit else 0
            if run >= length and r > p.order:
                return True
        return False
