"""Hand decomposition: a hand's rank counts split into the fewest plays.

A *group* is one play a hand would make on its own: a single, pair or triple (a triple
carrying its kickers), a chain (straight, pair chain, triple chain or plane with its wings), a
bomb or the rocket.  :meth:`Analyzer.split` finds a split of a hand into groups with the fewest
plays (bombs and the rocket kept whole, the 2s and jokers never used as kickers) and, among
those, the highest *score*:

    score = Σ value(group) − 7 × plays

where a group's value is its key rank minus 10 (a chain's plus 1; 3 → −10, A → 1, 2 → 2,
jokers 3 and 4), a bomb's 10 plus half its rank, the rocket's 20.  So low cards that need a
play of their own cost a hand most, and control cards (2s, jokers, bombs) raise it.  This is
the classic measure of the open rule-based Dou Dizhu players; it serves Zheng Shangyou too.

How it is fast enough: bombs and the rocket are taken out first (a rank held ``bomb_min`` times
is a bomb); what is left holds at most three of a rank.  Chains are searched depth first, each
chain starting no lower than the one before (so every set of chains is met once), and every
(counts, start, planes) node is memoised in a bounded dict per analyser; the leaves attach
kickers greedily (planes first, lowest singles, then lowest pairs).
"""

from __future__ import annotations

from typing import NamedTuple

from services import rules
from services.rules import Kind, Pattern
from services.rules.patterns import bomb_pattern, rocket_pattern

ACE, TWO, BJ, RJ = 11, 12, 13, 14
_MEMO_LIMIT = 50_000


class Group(NamedTuple):
    kind: Kind  # the body's kind: SINGLE PAIR TRIPLE STRAIGHT PAIR_CHAIN TRIPLE_CHAIN BOMB ROCKET
    ranks: tuple[int, ...]  # body ranks, low to high (a rocket: its joker ranks)
    unit: int  # cards per body rank (a bomb: its size)
    wings: tuple[int, ...] = ()  # kicker ranks, one entry per kicker unit
    wing_unit: int = 0  # 1: single kickers, 2: pair kickers

    @property
    def top(self) -> int:
        return self.ranks[-1]

    @property
    def size(self) -> int:
        return self.unit * len(self.ranks) + self.wing_unit * len(self.wings)

    @property
    def is_bomb(self) -> bool:
        return self.kind is Kind.BOMB or self.kind is Kind.ROCKET

    def rank_counts(self) -> list[int]:
        counts = [0] * 15
        for r in self.ranks:
            counts[r] += self.unit
        for r in self.wings:
            counts[r] += self.wing_unit
        return counts


def body_kind(g: Group) -> Kind:
    """The kind ``g`` plays as (its kickers decide among the triple and plane kinds)."""
    if g.kind is Kind.TRIPLE and g.wings:
        if g.wing_unit == 2:
            return Kind.TRIPLE_PAIR
        return Kind.TRIPLE_SINGLE if len(g.wings) == 1 else Kind.TRIPLE_TWO
    if g.kind is Kind.TRIPLE_CHAIN and g.wings:
        if g.wing_unit == 2:
            return Kind.PLANE_PAIR
        return Kind.PLANE_SINGLE if len(g.wings) == len(g.ranks) else Kind.PLANE_TWO
    return g.kind


def group_pattern(v: rules.Variant, g: Group) -> Pattern:
    """The pattern ``g`` plays as (what counting needs: kind, key rank and size)."""
    if g.kind is Kind.ROCKET:
        return rocket_pattern(v)
    if g.kind is Kind.BOMB:
        return bomb_pattern(v, g.top, g.unit)
    return Pattern(body_kind(g), g.top, len(g.ranks), g.size, False, g.top)


# A search result: plays, score, the chains taken (planes aside) and the leaf reached
# (its counts and planes), whose groups are built only for the best one.
_Node = tuple[int, float, tuple[Group, ...], tuple[tuple[int, ...], tuple[tuple[int, int], ...]]]


class Split(NamedTuple):
    plays: int
    score: float
    groups: tuple[Group, ...]


def group_value(g: Group) -> float:
    if g.kind is Kind.ROCKET:
        return 20.0
    if g.kind is Kind.BOMB:
        return 10.0 + g.top / 2 + (g.unit - 4)
    if len(g.ranks) > 1:
        return g.top - 9.0
    return g.top - 10.0


class Analyzer:
    """Splits hands of one variant; keeps a memo of the splits it found."""

    def __init__(self, v: rules.Variant) -> None:
        self.v = v
        p = v.patterns
        self.top = TWO if v.chain_wraps_ace_two else ACE
        self.chain_kinds: list[tuple[int, int, Kind]] = []
        if Kind.STRAIGHT in p:
            self.chain_kinds.append((1, v.min_straight, Kind.STRAIGHT))
        if Kind.PAIR_CHAIN in p:
            # two-deck games: pair chains of two are left out of the search (its cost)
            least = v.min_pair_chain if v.decks == 1 else max(3, v.min_pair_chain)
            self.chain_kinds.append((2, least, Kind.PAIR_CHAIN))
        if Kind.TRIPLE_CHAIN in p or Kind.PLANE_PAIR in p or Kind.PLANE_SINGLE in p:
            self.chain_kinds.append((3, v.min_triple_chain, Kind.TRIPLE_CHAIN))
        self.triple_single = Kind.TRIPLE_SINGLE in p
        self.triple_pair = Kind.TRIPLE_PAIR in p
        self.triple_two = Kind.TRIPLE_TWO in p
        self.plane_single = Kind.PLANE_SINGLE in p
        self.plane_pair = Kind.PLANE_PAIR in p
        self.plane_two = Kind.PLANE_TWO in p
        self.max_plane = v.max_plane or 99
        # Two-deck hands: straights and pair chains never break a triple (the search's cost).
        self.keep_triples = 3 if v.decks == 2 else 9
        self.rocket = v.rocket_counts if Kind.ROCKET in p else None
        self.bomb_min = v.bomb_min if Kind.BOMB in p else 99
        self.aaa = v.aaa_bomb
        self._memo: dict[tuple[object, ...], _Node] = {}
        self._splits: dict[tuple[int, ...], Split] = {}
        self._leaves: dict[tuple[object, ...], tuple[int, float]] = {}

    # ------------------------------------------------------------------ public
    def split(self, counts: tuple[int, ...]) -> Split:
        """The best split of a hand given as 15 rank counts."""
        found = self._splits.get(counts)
        if found is not None:
            return found
        c = list(counts)
        fixed: list[Group] = []
        rc = self.rocket
        if rc is not None and c[BJ] >= rc[BJ] and c[RJ] >= rc[RJ]:
            fixed.append(Group(Kind.ROCKET, (BJ, RJ), rc[BJ]))
            c[BJ] -= rc[BJ]
            c[RJ] -= rc[RJ]
        for r in range(13):
            n = c[r]
            if n >= self.bomb_min or (self.aaa and r == ACE and n >= 3):
                fixed.append(Group(Kind.BOMB, (r,), n))
                c[r] = 0
        plays, score, chains, (leaf_c, planes) = self._search(tuple(c), 0, ())
        groups = chains + self._attach(leaf_c, planes)
        fixed_score = sum(group_value(g) for g in fixed) - 7 * len(fixed)
        result = Split(plays + len(fixed), score + fixed_score, tuple(fixed) + groups)
        if len(self._splits) >= _MEMO_LIMIT:
            self._splits.clear()
        self._splits[counts] = result
        return result

    def hand_split(self, hand: tuple[int, ...]) -> Split:
        return self.split(tuple(rules.rank_counts(hand)))

    # ------------------------------------------------------------------ search
    def _search(self, c: tuple[int, ...], start: int, planes: tuple[tuple[int, int], ...]) -> _Node:
        key = (c, start, planes)
        found = self._memo.get(key)
        if found is not None:
            return found
        leaf_key = (c, planes)
        found_leaf = self._leaves.get(leaf_key)
        if found_leaf is None:
            found_leaf = self._leaves[leaf_key] = self._leaf(c, planes)
        plays0, score0 = found_leaf
        best: _Node = (plays0, score0, (), (c, planes))
        top = self.top
        for s in range(start, top + 1):
            cs = c[s]
            if not cs:
                continue
            for unit, minimum, kind in self.chain_kinds:
                if cs < unit:
                    continue
                e = s
                while e <= top and c[e] >= unit and (unit == 3 or c[e] < self.keep_triples):
                    e += 1
                if e - s < minimum:
                    continue
                lst = list(c)
                for r in range(s, s + minimum - 1):
                    lst[r] -= unit
                for end in range(s + minimum - 1, e):
                    lst[end] -= unit
                    ranks = tuple(range(s, end + 1))
                    if unit == 3:
                        sub_planes = tuple(sorted((*planes, (s, len(ranks)))))
                        # the plane's group is built by the leaf (it owns the wings)
                        cand = self._search(tuple(lst), s, sub_planes)
                    else:
                        plays, score, groups, leaf = self._search(tuple(lst), s, planes)
                        g = Group(kind, ranks, unit)
                        cand = (plays + 1, score + end - 9.0 - 7, (g, *groups), leaf)
                    if cand[0] < best[0] or (cand[0] == best[0] and cand[1] > best[1]):
                        best = cand
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
            self._leaves.clear()
        self._memo[key] = best
        return best

    def _leaf(self, c: tuple[int, ...], planes: tuple[tuple[int, int], ...]) -> tuple[int, float]:
        """Plays and score of ``c`` as singles, pairs and triples with kickers attached to
        the triples and to the planes (``planes``: (start rank, length) of the triple chains
        taken out above) — the numbers of :meth:`_attach`, without building its groups."""
        if not planes and not self.triple_two:
            n_s = n_p = n_t = 0
            small_s = small_p = 0
            value = 0
            for r in range(15):
                k = c[r]
                if k:
                    value += r - 10
                    if k == 1:
                        n_s += 1
                        small_s += r < TWO
                    elif k == 2:
                        n_p += 1
                        small_p += r < TWO
                    else:
                        n_t += 1
            attached = 0
            if n_t:
                # each triple takes the lowest free single, else the lowest free pair
                take_s = min(n_t, small_s) if self.triple_single else 0
                take_p = min(n_t - take_s, small_p) if self.triple_pair else 0
                attached = take_s + take_p
                if attached:
                    free_s = [r for r in range(TWO) if c[r] == 1][:take_s]
                    free_p = [r for r in range(TWO) if c[r] == 2][:take_p]
                    value -= sum(free_s) + sum(free_p) - 10 * attached
            plays = n_s + n_p + n_t - attached
            return plays, value - 7 * plays
        groups = self._attach(c, planes)
        return len(groups), sum(group_value(g) for g in groups) - 7 * len(groups)

    def _attach(self, c: tuple[int, ...], planes: tuple[tuple[int, int], ...]) -> tuple[Group, ...]:
        singles = [r for r in range(15) if c[r] == 1]
        pairs = [r for r in range(15) if c[r] == 2]
        triples = [r for r in range(15) if c[r] == 3]
        # Kickers: never 2s or jokers (they are worth more alone).
        small_s = [r for r in singles if r < TWO]
        small_p = [r for r in pairs if r < TWO]
        used_s: set[int] = set()
        used_p: set[int] = set()
        groups: list[Group] = []
        bodies = [(tuple(range(s, s + k)), True) for s, k in sorted(planes, key=lambda p: -p[1])]
        bodies += [((t,), False) for t in triples]
        for body, is_plane in bodies:
            k = len(body)
            if is_plane:
                can_s, can_p, can_two = self.plane_single, self.plane_pair, self.plane_two
                if k > self.max_plane:
                    can_s = can_p = can_two = False
            else:
                can_s, can_p, can_two = self.triple_single, self.triple_pair, self.triple_two
            free_s = [r for r in small_s if r not in used_s]
            free_p = [r for r in small_p if r not in used_p]
            wings: tuple[int, ...] = ()
            unit = 0
            if can_two and len(free_s) >= 2 * k:
                wings, unit = tuple(free_s[: 2 * k]), 1
                used_s.update(wings)
            elif can_s and len(free_s) >= k:
                wings, unit = tuple(free_s[:k]), 1
                used_s.update(wings)
            elif can_p and len(free_p) >= k:
                wings, unit = tuple(free_p[:k]), 2
                used_p.update(wings)
            elif can_two and len(free_p) >= k:
                wings, unit = tuple(r for r in free_p[:k] for _ in (0, 1)), 1
                used_p.update(free_p[:k])
            if is_plane:
                groups.append(Group(Kind.TRIPLE_CHAIN, body, 3, wings, unit))
            else:
                groups.append(Group(Kind.TRIPLE, body, 3, wings, unit))
        for r in singles:
            if r not in used_s:
                groups.append(Group(Kind.SINGLE, (r,), 1))
        for r in pairs:
            if r not in used_p:
                groups.append(Group(Kind.PAIR, (r,), 2))
        return tuple(groups)
