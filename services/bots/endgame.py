"""Endgame search: with few cards left, play the position exactly over sampled deals of the
cards this seat cannot see.

A *world* deals the cards still out (:func:`.counting.out_counts`) to the other seats,
consistent with every seat's count and with the cards known to be in the landlord's hand;
the worlds are drawn from the bot's seeded generator.  In each world the game is then a game
of perfect information, solved by an AND-OR search over rank counts: this seat's side wins
when, on its turns, some play wins, and on the others' turns every answer still loses for
them (Dou Dizhu partners play together; in Zheng Shangyou the other three are taken as one
side — the cautious view).  Positions are memoised; a node budget bounds the work, and a
search that runs out of it says nothing (the caller falls back on its heuristic).

Each root move is scored by the number of worlds it wins; the best wins.  Against perfect
play many moves lose the same worlds; ``hard`` then lets play-outs against the model of
auto-play decide between them (:meth:`.smart.HardBot.search`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from services import rules
from services.rules import Kind, Pattern

from .counting import known_of, out_counts
from .observe import Observation

Hand = tuple[int, ...]  # 15 rank counts
_KICKER_KINDS = frozenset(
    {
        Kind.TRIPLE_SINGLE,
        Kind.TRIPLE_PAIR,
        Kind.TRIPLE_TWO,
        Kind.PLANE_SINGLE,
        Kind.PLANE_PAIR,
        Kind.PLANE_TWO,
        Kind.FOUR_TWO,
        Kind.FOUR_PAIRS,
    }
)


class OutOfBudget(Exception):
    pass


class Endgame:
    """The search of one variant; keeps a memo of the moves of small hands."""

    def __init__(self, v: rules.Variant) -> None:
        self.v = v
        self._moves: dict[tuple[Hand, Pattern | None], list[tuple[Hand, Pattern]]] = {}

    def moves(self, hand: Hand, last: Pattern | None) -> list[tuple[Hand, Pattern]]:
        """(the hand after, the pattern) of each play, one kicker choice per body and kind
        (the lowest), bombs last."""
        key = (hand, last)
        found = self._moves.get(key)
        if found is not None:
            return found
        # suits turn with the rank, so that no run of one card per rank reads as a straight
        # flush: a rank count says nothing of suits (the counting takes flushes as unknown)
        cards = [
            r * 4 + (r + k) % 4 if r < 13 else 52 + r - 13
            for r in range(15)
            for k in range(hand[r])
        ]
        out: list[tuple[Hand, Pattern]] = []
        seen: set[tuple[Kind, int, int]] = set()
        for play in rules.legal_plays(self.v, cards, last if last is not None else ()):
            p = play.pattern
            if p.kind in _KICKER_KINDS:
                body = (p.kind, p.order, p.size)
                if body in seen:
                    continue
                seen.add(body)
            after = list(hand)
            for c in play.cards:
                after[13 + (c == 53) if c >= 52 else c >> 2] -= 1
            out.append((tuple(after), p))
        out.sort(key=lambda m: (m[1].is_bomb, -m[1].size, m[1].order))
        if len(self._moves) > 100_000:
            self._moves.clear()
        self._moves[key] = out
        return out

    def solve(
        self,
        o: Observation,
        candidates: Sequence[rules.Play | None],
        worlds: int,
        budget: int,
        rng: random.Random,
    ) -> list[int] | None:
        """For each candidate (None: pass) the number of sampled worlds it wins, or None
        when no world could be solved within the node budget.

        Each world gets an even share of what is left of the budget (a world solved early
        leaves more to the next); a world that runs out of its share is left out for every
        candidate, so the counts always compare the candidates on the same worlds."""
        n = o.players
        mine = [s == o.seat or o.is_partner(s) for s in range(n)]
        deals = [self.sample(o, rng) for _ in range(worlds)]
        if any(d is None for d in deals):
            return None
        hand = tuple(rules.rank_counts(o.hand))
        last = o.last.pattern if o.last is not None else None
        wins = [0] * len(candidates)
        solved = 0
        left = budget
        for k, deal in enumerate(deals):
            assert deal is not None
            hands = list(deal)
            hands[o.seat] = hand
            share = left // (len(deals) - k)
            search = _Search(self, mine, n, share)
            try:
                won = [self._root(search, o, hand, hands, last, cand) for cand in candidates]
            except OutOfBudget:
                won = None
            left -= share - max(search.budget, 0)
            if won is not None:
                solved += 1
                wins = [w + x for w, x in zip(wins, won, strict=True)]
        return wins if solved else None

    def _root(
        self,
        search: _Search,
        o: Observation,
        hand: Hand,
        hands: list[Hand],
        last: Pattern | None,
        cand: rules.Play | None,
    ) -> bool:
        """Whether ``cand`` (None: pass) wins the world ``hands``."""
        n = o.players
        if cand is None:
            assert last is not None and o.last_seat is not None
            passes = _passes(o) + 1
            if passes == n - 1:
                return search.win(tuple(hands), o.last_seat, None, o.last_seat, 0)
            return search.win(tuple(hands), (o.seat + 1) % n, last, o.last_seat, passes)
        after = list(hand)
        for c in cand.cards:
            after[13 + (c == 53) if c >= 52 else c >> 2] -= 1
        if not any(after):
            return True
        hs = list(hands)
        hs[o.seat] = tuple(after)
        return search.win(tuple(hs), (o.seat + 1) % n, cand.pattern, o.seat, 0)

    def sample(self, o: Observation, rng: random.Random) -> list[Hand] | None:
        """One deal of the unseen cards to the other seats, or None if none fits."""
        n = o.players
        pool_counts = out_counts(o)
        known = {s: known_of(o, s) for s in range(n) if s != o.seat}
        shown = o.shown_hand is not None
        hands: list[list[int]] = [[0] * 15 for _ in range(n)]
        for s, k in known.items():
            for r in range(15):
                hands[s][r] = k[r]
                if not (shown and s == o.landlord):
                    pool_counts[r] -= k[r]
        if any(c < 0 for c in pool_counts):
            return None
        pool = [r for r in range(15) for _ in range(pool_counts[r])]
        rng.shuffle(pool)
        at = 0
        for s in range(n):
            if s == o.seat:
                continue
            need = o.counts[s] - sum(hands[s])
            if need < 0:
                return None
            if at + need > len(pool):
                return None
            for r in pool[at : at + need]:
                hands[s][r] += 1
            at += need
        # cards left in the pool are out of play (a short game dealt by hand)
        return [tuple(h) for h in hands]


def _passes(o: Observation) -> int:
    """Passes since the play to beat."""
    count = 0
    for m in reversed(o.plays):
        if m.cards:
            break
        count += 1
    return count


class _Search:
    def __init__(self, eg: Endgame, mine: list[bool], n: int, budget: int) -> None:
        self.eg = eg
        self.mine = mine
        self.n = n
        self.budget = budget
        self.memo: dict[tuple[object, ...], bool] = {}

    def win(
        self,
        hands: tuple[Hand, ...],
        turn: int,
        last: Pattern | None,
        last_seat: int,
        passes: int,
    ) -> bool:
        """Whether this seat's side wins from here with both sides playing perfectly."""
        key = (hands, turn, last, last_seat, passes)
        found = self.memo.get(key)
        if found is not None:
            return found
        self.budget -= 1
        if self.budget < 0:
            raise OutOfBudget
        mine = self.mine[turn]
        n = self.n
        result = not mine
        hand = hands[turn]
        moves = self.eg.moves(hand, last)
        for after, _ in moves:
            if not any(after):
                result = mine
                break
        else:
            for after, p in moves:
                hs = list(hands)
                hs[turn] = after
                r = self.win(tuple(hs), (turn + 1) % n, p, turn, 0)
                if r == mine:
                    result = mine
                    break
            else:
                if last is not None:
                    if passes + 1 == n - 1:
                        r = self.win(hands, last_seat, None, last_seat, 0)
                    else:
                        r = self.win(hands, (turn + 1) % n, last, last_seat, passes + 1)
                    if r == mine:
                        result = mine
        self.memo[key] = result
        return result
