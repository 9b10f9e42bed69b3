"""Middle-game sampled search: a few candidate plays compared by playing sampled worlds out.

Before the exact endgame search can run (:mod:`.endgame`), ``hard`` weighs its heuristic's
lead (and, with an enemy close to going out, its answer to an enemy's play, a pass among the
options) against a few alternatives: over worlds of the unseen cards drawn as the endgame draws
them (:meth:`.Endgame.sample`), each candidate is played and the world is then played out on
rank counts until a seat goes out.  In the play-out this seat's side plays a fast version of
the split policy (lead the weakest group of the hand's split; follow with the play that
leaves the best split, when that is no worse than passing or an enemy is close to going
out; never over a partner); the other side plays as auto-play (RULES.md §6, the ``easy``
level) does — the simple model of an opponent that measured best (bench ``bots``: a split
policy for every seat, or more worlds with it, chose worse plays than the heuristic).

The same worlds serve every candidate (they are compared on equal cards); a candidate
replaces the heuristic's choice only when it wins more worlds than that choice by more than
a margin.  The work is bounded by the moves played out (a world is finished once begun), not
by the clock, so the answer depends on the view and the seed only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from services import rules
from services.rules import Kind, Pattern

from .endgame import Endgame, Hand, _passes
from .hand import Analyzer, group_pattern, group_value
from .observe import Observation

#: A play-out stops (and counts as lost) after this many moves: a guard, never reached,
#: since every trick takes at least one card.
MAX_MOVES = 400
#: A follow of this seat's side passes unless the split it leaves loses less than this.
FOLLOW_MARGIN = -3.0
_UNITS = {Kind.SINGLE: 1, Kind.PAIR: 2, Kind.TRIPLE: 3}
_KIND_OF = {1: Kind.SINGLE, 2: Kind.PAIR, 3: Kind.TRIPLE}


class Rollout:
    """Plays worlds out for one variant (keeps a memo of the split policy's leads)."""

    def __init__(self, v: rules.Variant, endgame: Endgame, analyzer: Analyzer) -> None:
        self.v = v
        self.eg = endgame
        self.an = analyzer
        self._leads: dict[Hand, tuple[Hand, Pattern]] = {}
        self.rocket = v.rocket_counts if Kind.ROCKET in v.patterns else None
        self.bomb_min = v.bomb_min if Kind.BOMB in v.patterns else 99
        self.spent = 0  # moves played out by the current search (its budget's measure)

    # ------------------------------------------------------------------ the policy
    def lead(self, hand: Hand) -> tuple[Hand, Pattern]:
        """The split's weakest group that is not a bomb (the whole hand when it is one
        play)."""
        found = self._leads.get(hand)
        if found is not None:
            return found
        sp = self.an.split(hand)
        groups = [g for g in sp.groups if not g.is_bomb] or list(sp.groups)
        if len(sp.groups) == 1:
            g = sp.groups[0]
        else:
            g = min(groups, key=lambda g: (group_value(g) - 2.0 * (g.size - 1), -g.size))
        after = list(hand)
        for r, k in enumerate(g.rank_counts()):
            after[r] -= k
        found = (tuple(after), group_pattern(self.v, g))
        if len(self._leads) > 50_000:
            self._leads.clear()
        self._leads[hand] = found
        return found

    def auto_lead(self, hand: Hand) -> tuple[Hand, Pattern]:
        """Auto-play's lead (RULES.md §6): every card of the lowest rank that is not a bomb
        nor a rocket joker (else the split's lead)."""
        rc = self.rocket
        rocket = rc is not None and hand[13] >= rc[13] and hand[14] >= rc[14]
        aaa = self.v.aaa_bomb
        for r in range(15):
            k = hand[r]
            if not k:
                continue
            if k >= self.bomb_min or (aaa and r == 11 and k >= 3) or (r >= 13 and rocket):
                continue
            kind = _KIND_OF.get(k)
            if kind is None or kind not in self.v.patterns:
                break
            return self._take(hand, kind, r, k)
        return self.lead(hand)

    def auto_follow(self, hand: Hand, last: Pattern, no_bombs: bool) -> tuple[Hand, Pattern] | None:
        """Auto-play's follow: the lowest rank that beats a single, pair or triple (from any
        rank), the lowest plain play of another kind, else the least bomb (none over a
        partner)."""
        unit = _UNITS.get(last.kind, 0)
        if unit:
            aaa = self.v.aaa_bomb
            for r in range(max(last.order + 1, 0), 15):
                if hand[r] >= unit and not (r == 11 and unit == 3 and aaa):
                    return self._take(hand, last.kind, r, unit)
            if no_bombs:
                return None
        moves = self.eg.moves(hand, last)
        for after, p in moves:
            if not p.is_bomb:
                return after, p
        if no_bombs:
            return None
        bombs = sorted((m for m in moves if m[1].is_bomb), key=lambda m: m[1].order)
        return bombs[0] if bombs else None

    def follow(
        self, hand: Hand, last: Pattern, partner_owns: bool, threat: bool
    ) -> tuple[Hand, Pattern] | None:
        """The split policy's follow: going out when a play empties the hand; a pass over a
        partner; else the plain play that leaves the best split, when that is no worse than
        :data:`FOLLOW_MARGIN` or an enemy is close (``threat``), then the least bomb against
        a threat."""
        moves = self.eg.moves(hand, last)
        if not moves:
            return None
        for after, p in moves:
            if not any(after):
                return after, p
        if partner_owns:
            return None
        split = self.an.split
        base = split(hand).score
        best: tuple[Hand, Pattern] | None = None
        best_delta = -1e9
        bomb: tuple[Hand, Pattern] | None = None
        for after, p in moves:
            if p.is_bomb:
                if bomb is None:
                    bomb = (after, p)
                continue
            delta = split(after).score - base
            if delta > best_delta:
                best, best_delta = (after, p), delta
        if best is not None and (best_delta > FOLLOW_MARGIN or threat):
            return best
        if bomb is not None and threat:
            return bomb
        return None

    def _take(self, hand: Hand, kind: Kind, r: int, unit: int) -> tuple[Hand, Pattern]:
        after = list(hand)
        after[r] -= unit
        return tuple(after), Pattern(kind, r, 1, unit, False, r)

    # ------------------------------------------------------------------ playing out
    def play_out(
        self,
        hands: list[Hand],
        turn: int,
        last: Pattern | None,
        last_seat: int,
        passes: int,
        landlord: int | None,
        mine: list[bool],
    ) -> int:
        """The seat that goes out first when the world is played out from here (−1: none
        within :data:`MAX_MOVES`).  ``mine`` marks this seat's side, which plays the split
        policy; the other seats play as auto-play does."""
        n = len(hands)
        counts = [sum(h) for h in hands]
        for _ in range(MAX_MOVES):
            self.spent += 1
            hand = hands[turn]
            if last is None:
                move: tuple[Hand, Pattern] | None = (
                    self.lead(hand) if mine[turn] else self.auto_lead(hand)
                )
            elif not mine[turn]:
                no_bombs = landlord is not None and turn != landlord and last_seat != landlord
                move = self.auto_follow(hand, last, no_bombs)
            else:
                partner_owns = (
                    landlord is not None
                    and turn != landlord
                    and last_seat != landlord
                    and last_seat != turn
                )
                enemies_min = min(
                    counts[s]
                    for s in range(n)
                    if s != turn
                    and counts[s]
                    and (landlord is None or (s == landlord) != (turn == landlord))
                )
                move = self.follow(hand, last, partner_owns, enemies_min <= 2)
            if move is None:
                passes += 1
                if passes >= n - 1:
                    turn, last, passes = last_seat, None, 0
                else:
                    turn = (turn + 1) % n
                continue
            after, p = move
            hands[turn] = after
            counts[turn] = sum(after)
            if counts[turn] == 0:
                return turn
            last, last_seat, passes = p, turn, 0
            turn = (turn + 1) % n
        return -1

    # ------------------------------------------------------------------ the search
    def choose(
        self,
        o: Observation,
        candidates: Sequence[rules.Play | None],
        worlds: int,
        rng: random.Random,
        margin: int = 0,
        budget: int = 1 << 30,
    ) -> int:
        """The index of the candidate (None: pass) that wins the most sampled worlds played
        out (the first on a tie)."""
        n = o.players
        if o.landlord is None:
            mine = [s == o.seat for s in range(n)]
        else:
            mine = [s == o.seat or o.is_partner(s) for s in range(n)]
        hand = tuple(rules.rank_counts(o.hand))
        last = o.last.pattern if o.last is not None else None
        wins = [0] * len(candidates)
        self.spent = 0
        for _ in range(worlds):
            if self.spent >= budget:
                break
            deal = self.eg.sample(o, rng)
            if deal is None:
                return 0
            deal[o.seat] = hand
            for i, cand in enumerate(candidates):
                wins[i] += self._one(o, list(deal), hand, last, cand, mine)
        best = 0
        for i in range(1, len(candidates)):
            if wins[i] > wins[best] and wins[i] > wins[0] + margin:
                best = i
        return best

    def _one(
        self,
        o: Observation,
        hands: list[Hand],
        hand: Hand,
        last: Pattern | None,
        cand: rules.Play | None,
        mine: list[bool],
    ) -> bool:
        n = o.players
        if cand is None:
            assert last is not None and o.last_seat is not None
            passes = _passes(o) + 1
            if passes >= n - 1:
                won = self.play_out(hands, o.last_seat, None, o.last_seat, 0, o.landlord, mine)
            else:
                won = self.play_out(
                    hands, (o.seat + 1) % n, last, o.last_seat, passes, o.landlord, mine
                )
            return won >= 0 and mine[won]
        after = list(hand)
        for c in cand.cards:
            after[13 + (c == 53) if c >= 52 else c >> 2] -= 1
        if not any(after):
            return True
        hands[o.seat] = tuple(after)
        won = self.play_out(hands, (o.seat + 1) % n, cand.pattern, o.seat, 0, o.landlord, mine)
        return won >= 0 and mine[won]
