"""Certain plays: what every level above ``easy`` checks before its heuristics.

The unseen cards are known up to their distribution (:class:`.counting.Threats`: what each
other seat may hold, given its count, every card played and the bottom cards when seen).  A
play is *certain* when it wins whatever that distribution is, assuming only that a partner
goes out when it can and never beats a play of ours that wins for our side:

* **going out now**: a sequence of plays no enemy can beat empties the hand — the first play
  of the sequence (a follow: the play that starts it), bombs included, so "bomb, then the one
  play left" is one of these;
* **letting a partner's play stand**: a Dou Dizhu partner holding one card owns the trick and no
  enemy still to answer can beat its play — a pass gives it the lead and its last card;
* **letting a partner on one card out**: the partner plays next and every card it may hold
  beats our lowest single — that single.

Then come the plays that may lose where another cannot, struck out of a follow's options:

* **stopping an enemy on one or two cards**: when passing lets such an enemy (still to answer,
  or owning the trick) go out over the play, and some play of ours is one no such enemy can
  beat, a pass and every other play are struck out (a lead prefers such a play too: see
  :meth:`Tactics.blocks`);
* **keeping a bomb whole**: a play that takes cards from a bomb (or one joker of the rocket)
  is struck out when another play beats the play to beat.

Zheng Shangyou has no partners: every other seat is an enemy, and only going out and stopping
apply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from services import rules
from services.rules import Kind, Play
from services.rules.cards import RANK_OF

from .counting import Threats
from .endgame import Endgame, Hand
from .hand import Analyzer, group_pattern
from .observe import Observation

#: An enemy holding this many cards or fewer is about to go out.
CLOSE = 2
#: Positions the search for a sequence of unbeatable plays may visit per decision.
SURE_BUDGET = 400
#: The search runs only on a hand whose best split (:mod:`.hand`) has at most this many
#: groups an enemy may beat: a cheap gate (the split is memoised) that keeps the search off
#: the many hands far from going out, at the price of a rare sequence the split misses.
SURE_GATE = 2


@dataclasses.dataclass(frozen=True, slots=True)
class Certain:
    """A certain play (``play`` None: pass) and the family it belongs to."""

    play: Play | None
    why: str


class _Spent(Exception):
    pass


class Tactics:
    """The certain plays of one decision (built per decision: it reads one observation)."""

    def __init__(
        self, o: Observation, threats: Threats, endgame: Endgame, analyzer: Analyzer
    ) -> None:
        self.o = o
        self.threats = threats
        self.endgame = endgame
        self.analyzer = analyzer
        self.enemies = o.enemies()
        self.close = tuple(s for s in self.enemies if 0 < o.counts[s] <= CLOSE)
        self._sure: dict[Hand, bool] = {}
        self._budget = SURE_BUDGET
        v = o.variant
        self.bomb_min = v.bomb_min if Kind.BOMB in v.patterns else 99

    # ------------------------------------------------------------------ questions
    def is_control(self, p: rules.Pattern) -> bool:
        """No enemy may hold a play that beats ``p``."""
        return not self.threats.any_beats(self.enemies, p)

    def blocks(self, p: rules.Pattern) -> bool:
        """No enemy about to go out may hold a play that beats ``p``."""
        return not self.threats.any_beats(self.close, p)

    def sure_lead(self, hand: Hand) -> bool:
        """Whether leading from ``hand`` (rank counts) wins whatever the unseen cards are: a
        play no enemy can beat, then the same from the rest, until the hand is one play.  Runs
        out of its budget into False (not known to be certain)."""
        v = self.o.variant
        split = self.analyzer.split(hand)
        beatable = sum(1 for g in split.groups if not self.is_control(group_pattern(v, g)))
        if beatable > SURE_GATE:
            return False
        try:
            return self._sure_lead(hand)
        except _Spent:
            return False

    def _sure_lead(self, hand: Hand) -> bool:
        if not any(hand):
            return True
        found = self._sure.get(hand)
        if found is not None:
            return found
        self._budget -= 1
        if self._budget < 0:
            raise _Spent
        moves = self.endgame.moves(hand, None)
        result = any(not any(after) for after, _ in moves) or any(
            self.is_control(p) and self._sure_lead(after) for after, p in moves
        )
        self._sure[hand] = result
        return result

    def breaks_bomb(self, play: Play) -> bool:
        """Whether ``play`` takes cards from a bomb or one joker of the rocket in the hand,
        without being that bomb or rocket."""
        if play.pattern.is_bomb:
            return False
        have = rules.rank_counts(self.o.hand)
        used = rules.rank_counts(play.cards)
        rc = self.o.variant.rocket_counts if Kind.ROCKET in self.o.variant.patterns else None
        for r in range(15):
            if not used[r]:
                continue
            if r < 13 and have[r] >= self.bomb_min:
                return True
            if r >= 13 and rc is not None and have[13] >= rc[13] and have[14] >= rc[14]:
                return True
        return False

    def responders(self) -> tuple[int, ...]:
        """The seats still to answer the play to beat after this one, in turn order."""
        o = self.o
        assert o.last_seat is not None
        out = []
        s = (o.seat + 1) % o.players
        while s != o.last_seat and s != o.seat:
            if o.counts[s]:
                out.append(s)
            s = (s + 1) % o.players
        return tuple(out)

    def pass_risks(self) -> bool:
        """Whether a pass may let an enemy about to go out do so: it still answers and may
        beat the play, or it owns the trick."""
        o = self.o
        assert o.last is not None and o.last_seat is not None
        if o.last_seat in self.close:
            return True
        return any(
            s in self.close and self.threats.can_beat(s, o.last.pattern) for s in self.responders()
        )

    # ------------------------------------------------------------------ the certain plays
    def certain(self, plays: Sequence[Play]) -> Certain | None:
        """The certain play among ``plays`` (the legal plays) and a pass, if there is one."""
        o = self.o
        hand = tuple(rules.rank_counts(o.hand))
        for p in plays:
            if len(p.cards) == len(o.hand):
                return Certain(p, "goes out")
        if o.last is None:
            first = self._first_of_sure_lead(plays) if self.sure_lead(hand) else None
            if first is not None:
                return Certain(first, "unbeatable plays empty the hand")
            feed = self.feed_partner()
            if feed is not None:
                return Certain(feed, "the partner on one card goes out over it")
            return None
        for p in sorted(plays, key=lambda p: (p.pattern.is_bomb, p.pattern.order)):
            if self.is_control(p.pattern) and self.sure_lead(_after(hand, p)):
                why = "the bomb and the play left win" if p.pattern.is_bomb else "goes out"
                return Certain(p, f"unbeatable plays empty the hand ({why})")
        partner = o.last_seat
        assert partner is not None
        if (
            o.is_partner(partner)
            and o.counts[partner] == 1
            and not any(
                s in self.enemies and self.threats.can_beat(s, o.last.pattern)
                for s in self.responders()
            )
        ):
            return Certain(None, "the partner's play stands and it goes out")
        return None

    def _first_of_sure_lead(self, plays: Sequence[Play]) -> Play | None:
        """The play that starts the sequence :meth:`sure_lead` found (controls before the one
        play that may be beaten, which can only be the last)."""
        hand = tuple(rules.rank_counts(self.o.hand))
        for p in sorted(plays, key=lambda p: (p.pattern.is_bomb, -p.pattern.size)):
            if not self.is_control(p.pattern):
                continue
            after = _after(hand, p)
            if not any(after) or self._sure.get(after) or self.sure_lead(after):
                return p
        return None  # a sequence through a straight flush the hand's suits do not make

    def feed_partner(self) -> Play | None:
        """Our lowest single, when the partner plays next, holds one card and every card it
        may hold beats it."""
        o = self.o
        nxt = (o.seat + 1) % o.players
        if not o.is_partner(nxt) or o.counts[nxt] != 1:
            return None
        may_hold = self.threats.possible[nxt]
        lowest_theirs = min((r for r in range(15) if may_hold[r]), default=None)
        low = min(o.hand, key=lambda c: RANK_OF[c])
        if lowest_theirs is None or RANK_OF[low] >= lowest_theirs:
            return None
        return Play((low,), rules.classify(o.variant, (low,)))

    # ------------------------------------------------------------------ a follow's options
    def follow_options(self, plays: Sequence[Play]) -> tuple[tuple[Play, ...], bool]:
        """The plays left once those that may lose where another cannot are struck out, and
        whether a pass is struck out too."""
        kept = tuple(plays)
        must_play = False
        if self.close and self.pass_risks():
            stops = tuple(p for p in kept if self.blocks(p.pattern))
            if stops:
                kept, must_play = stops, True
        whole = tuple(p for p in kept if not self.breaks_bomb(p))
        if whole:
            kept = whole
        return kept, must_play


def _after(hand: Hand, p: Play) -> Hand:
    counts = list(hand)
    for c in p.cards:
        counts[RANK_OF[c]] -= 1
    return tuple(counts)
