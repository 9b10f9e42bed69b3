"""``normal`` and ``hard``: players built on the hand decomposition of :mod:`.hand`.

Both first look for a certain play (:mod:`.tactics`: going out through plays no enemy can
beat, letting a partner go out, stopping an enemy about to go out, keeping bombs whole); the
heuristics below decide only when there is none.

``normal`` splits its hand into the fewest plays and plays by the split: it leads its weakest
group (the lowest-valued one, each card past the first lowering the value), follows with the
play that leaves the best split — and only when that split is no worse than passing, unless
an enemy is close to going out — keeps bombs for a threat or a finish, never beats a Dou
Dizhu partner's play unless it goes out with it, blocks an enemy holding one or two cards (no
lead he may beat when it has another, the highest single played against him), and bids from
the split's score.  It is the middle level: it answers half of the enemies' plays, when
nothing is at stake, as auto-play would (``NormalBot.slip_share``).

``hard`` adds card counting (:mod:`.counting`): a group no enemy can beat, given the cards
still out and every seat's count, is a *control*. It leads the weakest group that is not a
control and keeps its controls to regain the lead: its measure of a hand counts each control
as a play that costs nothing. A farmer playing just before the landlord tops up a weak play
of its partner's, so that the landlord must spend a high card. It answers an enemy within
six cards of going out (a farmer: the landlord within eight; bombs included), follows at a
small cost where ``normal`` passes, lets a partner's play stand when no enemy can beat it,
feeds a partner holding one or two cards, bombs (a doudizhu4 farmer) a landlord's play it
cannot beat otherwise, shows a ddz4 hand that is a certain win or splits
very well, bids on most hands (its thresholds were measured against auto-play), and with few
cards left searches the plays exactly over sampled deals of the unknown cards
(:mod:`.endgame`), the plays tied there played out as below. Before that, a Dou Dizhu
landlord's lead (every lead in Zheng Shangyou) is weighed against the next few groups of its
split by playing sampled deals out (:mod:`.rollout`): it takes another lead only when that
wins clearly more of them; in doudizhu3 and zhengshangyou2 its answer to an enemy's play,
when an enemy is within six cards of going out, is weighed so too against a pass and the
other follows that cost least.
"""

from __future__ import annotations

from collections.abc import Sequence

from services import rules
from services.rules import Kind, Pattern, Play
from services.rules.cards import RANK_OF

from .base import Bot
from .counting import Threats
from .easy import autoplay_play
from .endgame import Endgame
from .hand import Analyzer, Group, Split, body_kind, group_pattern, group_value
from .observe import Observation
from .rollout import Rollout
from .tactics import Tactics

#: Bid thresholds on a split's score (the hand as dealt), per level and variant: the least
#: score for a bid of 1, 2 and 3.  Measured (bench ``bots``; 1,200 doudizhu3 and 570
#: doudizhu4 games of a hard landlord against easy farmers): a hard landlord wins about 0.8
#: (doudizhu3) and 0.9 (doudizhu4) against auto-play whatever its score, so hard bids on most
#: hands; the score's deciles are about −96 … −42 (doudizhu3) and −83 … −43 (doudizhu4).
BID_SCORES: dict[tuple[str, str], tuple[float, float, float]] = {
    ("normal", "doudizhu3"): (-75.0, -62.0, -50.0),
    ("normal", "doudizhu4"): (-72.0, -60.0, -50.0),
    ("hard", "doudizhu3"): (-84.0, -72.0, -60.0),
    ("hard", "doudizhu4"): (-80.0, -68.0, -58.0),
}
#: doudizhu4: the landlord shows his hand (×3) from this score up, or with a certain win.
SHOW_SCORE = -30.0


def remove(hand: Sequence[int], cards: Sequence[int]) -> tuple[int, ...]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return tuple(rest)


class NormalBot(Bot):
    level = "normal"
    threat_cards = 2  # an enemy holding this many cards or fewer is about to go out
    farmer_threat_cards = 2  # the same for a Dou Dizhu farmer (:meth:`threat_of`)
    follow_margin = 0.0  # follow when the rest's score gains more than this
    #: A lead's value counts each card past the first as this much less, so that a long
    #: chain goes before the low single it would otherwise wait behind (and that the enemies
    #: answer cheaply), while the lead is still ours.  Measured for hard (bench ``bots``,
    #: paired deals): 0 → 2 raised ddz3 vs RLCard's agent 0.803 → 0.820 (800 deals), first out
    #: in zsy1 0.463 → 0.524 and zsy2 0.730 → 0.763 (400 and 300 deals); 4 was no better.
    lead_size_weight = 1.0
    #: ``normal`` is the middle of the ladder: on this share of its answers to an enemy's play
    #: (no enemy about to go out; never a lead, never over a partner: :meth:`slips`) it plays
    #: auto-play's move (``easy``'s), drawn from its seeded generator.  Without it normal was
    #: nearly hard's equal at a table of drawn players and the levels' ratings overlapped
    #: (issue 27).  Measured (bench ``ratings``: 2,000 games among thirty players, ten per
    #: level; mean mu and 95% interval): doudizhu3, 0 → 0.5: normal 0.73 [−0.46, 1.92] →
    #: −0.83 [−1.69, 0.02], hard 1.51 [0.01, 3.01] → 1.99 [0.55, 3.43], easy −8.46 → −7.12,
    #: tau-b 0.565 → 0.742; zhengshangyou1 tau-b 0.698 → 0.775, intervals apart.  With hard's
    #: middle-game search added: normal −0.73 [−1.70, 0.23], hard 1.96 [0.50, 3.43], tau-b
    #: 0.714 (zhengshangyou1 0.797).  0.3 left
    #: doudizhu3's intervals touching; 0.7 was no clearer.  (Slips on leads too separated the
    #: levels as well, but led a lone low card before a long straight: a person's complaint.)
    slip_share = 0.5

    def __init__(self, v: rules.Variant, seed: str) -> None:
        super().__init__(v, seed)
        self.an = Analyzer(v)
        self.endgame = Endgame(v)

    # ------------------------------------------------------------------ helpers
    def split(self, cards: Sequence[int]) -> Split:
        return self.an.split(tuple(rules.rank_counts(cards)))

    def group_play(self, hand: Sequence[int], g: Group) -> Play | None:
        """The cards of ``g`` from ``hand`` (lowest suits) and their reading, or None."""
        by_rank: list[list[int]] = [[] for _ in range(15)]
        for c in sorted(hand):
            by_rank[RANK_OF[c]].append(c)
        cards: list[int] = []
        for r in g.ranks:
            cards += by_rank[r][: g.unit]
            del by_rank[r][: g.unit]
        for r in g.wings:
            cards += by_rank[r][: g.wing_unit]
            del by_rank[r][: g.wing_unit]
        if len(cards) != g.size:
            return None
        cards.sort()
        try:
            found = rules.readings(self.variant, cards)
        except rules.RulesError:
            return None
        if not found:
            return None
        want = body_kind(g)
        chosen = next((p for p in found if p.kind is want), None)
        if chosen is None:
            chosen = rules.preferred(found)
        return Play(tuple(rules.CARDS[c] for c in cards), chosen)

    def whole_hand(self, hand: Sequence[int]) -> Play | None:
        """The whole hand as one play, when it is one (a lead that goes out)."""
        try:
            p = rules.classify(self.variant, hand)
        except rules.RulesError:
            return None
        return Play(tuple(sorted(hand)), p)

    def min_enemy(self, o: Observation) -> int:
        return min(o.counts[s] for s in o.enemies())

    def threat_of(self, o: Observation) -> int:
        """An enemy holding this many cards or fewer is about to go out."""
        farmer = o.landlord is not None and o.landlord != o.seat
        return self.farmer_threat_cards if farmer else self.threat_cards

    def group_pattern(self, g: Group) -> Pattern:
        return group_pattern(self.variant, g)

    # ------------------------------------------------------------------ bidding
    def bid(self, o: Observation) -> int:
        key = (self.level, self.variant.name)
        t1, t2, t3 = BID_SCORES.get(key, BID_SCORES[self.level, "doudizhu3"])
        score = self.split(o.hand).score
        want = 3 if score >= t3 else 2 if score >= t2 else 1 if score >= t1 else 0
        return want if want > o.bid else 0

    # ------------------------------------------------------------------ playing
    def play(self, o: Observation) -> Play | None:
        """A certain play when there is one (:mod:`.tactics`), else the heuristic's."""
        self.threats = Threats(o)
        self.tactics = Tactics(o, self.threats, self.endgame, self.an)
        if o.must_hold is None:
            last = o.last.pattern if o.last is not None else ()
            sure = self.tactics.certain(rules.legal_plays(self.variant, o.hand, last))
            if sure is not None:
                return sure.play
        if self.slips(o):
            slip = autoplay_play(self.variant, o)
            if not self.breaks_bomb(o.hand, slip):  # a bomb kept whole is a certain play too
                return slip
        choice = self.lead(o) if o.last is None else self.follow(o)
        return self.refine(o, choice)

    def breaks_bomb(self, hand: Sequence[int], play: Play | None) -> bool:
        """Whether ``play`` (not a bomb itself) spends cards of a bomb of the hand's split."""
        if play is None or play.pattern.is_bomb:
            return False
        bomb_ranks = {r for g in self.split(hand).groups if g.is_bomb for r in g.ranks}
        return any(RANK_OF[c] in bomb_ranks for c in play.cards)

    def slips(self, o: Observation) -> bool:
        """Whether this decision is one of the share :attr:`slip_share` played as auto-play
        would: an answer to an enemy's play, when no enemy is about to go out — never a lead
        (a lead sets the hand's course: a lone low card led before a long straight was a
        person's complaint, issue 28), nor over a partner's play."""
        if not self.slip_share or o.last is None or o.last_seat is None:
            return False
        if o.is_partner(o.last_seat) or self.min_enemy(o) <= self.threat_of(o):
            return False
        return self.rng(o).random() < self.slip_share

    def refine(self, o: Observation, choice: Play | None) -> Play | None:
        """The final say on the heuristic's ``choice``: ``hard`` searches the endgame."""
        return choice

    def lead(self, o: Observation) -> Play:
        hand = o.hand
        if o.must_hold is not None:
            return self.lead_holding(o, o.must_hold)
        whole = self.whole_hand(hand)
        if whole is not None:
            return whole
        sp = self.split(hand)
        play = self.pick_lead(o, sp)
        if play is None:  # pragma: no cover - a split group is always a play
            fallback = rules.choose_play(self.variant, hand, None)
            assert fallback is not None
            return fallback
        return play

    def lead_holding(self, o: Observation, card: int) -> Play:
        """A lead holding ``card``: the split's group holding its rank, else auto-play's."""
        sp = self.split(o.hand)
        rank = RANK_OF[card]
        groups = [g for g in sp.groups if rank in g.ranks or rank in g.wings]
        for g in sorted(groups, key=lambda g: -g.size):
            play = self.group_play(o.hand, g)
            if play is not None and card in play.cards:
                return play
        found = rules.choose_play(self.variant, o.hand, None, must_hold=card)
        assert found is not None
        return found

    def lead_key(self, o: Observation, g: Group) -> tuple[float, ...]:
        """Smaller leads first: the weakest group (long ones weigh less), more cards before
        fewer; any group an enemy about to go out may beat after every other."""
        bad = 0.0
        if self.tactics.close and not self.tactics.blocks(self.group_pattern(g)):
            bad = 1.0  # an enemy about to go out may beat it
        return (bad, group_value(g) - self.lead_size_weight * (g.size - 1), -g.size)

    def pick_lead(self, o: Observation, sp: Split) -> Play | None:
        groups = [g for g in sp.groups if not g.is_bomb] or list(sp.groups)
        partner_next = (o.seat + 1) % o.players
        if o.is_partner(partner_next) and o.counts[partner_next] == 1:
            singles = [g for g in sp.groups if g.kind is Kind.SINGLE]
            if singles:
                g = min(singles, key=lambda g: g.top)
                return self.group_play(o.hand, g)
            low = min(o.hand)
            return Play((low,), rules.classify(self.variant, (low,)))
        ordered = sorted(groups, key=lambda g: self.lead_key(o, g))
        g = ordered[0]
        if self.lead_key(o, g)[0] > 0 and g.kind is Kind.SINGLE:
            # only singles (pairs) left against a short enemy: the highest one
            g = max((x for x in groups if x.kind is g.kind), key=lambda x: x.top)
        elif self.lead_key(o, g)[0] > 0 and g.kind is Kind.PAIR:
            g = max((x for x in groups if x.kind is g.kind), key=lambda x: x.top)
        return self.group_play(o.hand, g)

    def follow(self, o: Observation) -> Play | None:
        assert o.last is not None and o.last_seat is not None
        hand = o.hand
        plays = rules.legal_plays(self.variant, hand, o.last.pattern)
        if not plays:
            return None
        for p in plays:
            if len(p.cards) == len(hand):
                return p
        options, must_play = self.tactics.follow_options(plays)
        if must_play:
            return self.forced_follow(o, options)
        if o.is_partner(o.last_seat):
            return self.follow_partner(o, options)
        return self.follow_enemy(o, options)

    def forced_follow(self, o: Observation, plays: Sequence[Play]) -> Play:
        """The play among ``plays`` (passing is out) that leaves the best hand, bombs last."""
        scored = self.rest_scores(o, plays)
        return max(scored, key=lambda t: (not t[1].pattern.is_bomb, t[0], -t[1].pattern.order))[1]

    def follow_partner(self, o: Observation, plays: Sequence[Play]) -> Play | None:
        return None

    def rest_scores(self, o: Observation, plays: Sequence[Play]) -> list[tuple[float, Play]]:
        base = self.split(o.hand).score
        out = []
        for p in plays:
            rest = self.split(remove(o.hand, p.cards))
            out.append((rest.score - base, p))
        return out

    def follow_enemy(self, o: Observation, plays: Sequence[Play]) -> Play | None:
        assert o.last is not None and o.last_seat is not None
        plain = [p for p in plays if not p.pattern.is_bomb]
        bombs = [p for p in plays if p.pattern.is_bomb]
        worry = self.min_enemy(o)
        close = self.threat_of(o)
        threat = o.counts[o.last_seat] <= close or worry <= close
        if plain and o.last.pattern.kind is Kind.SINGLE and worry == 1:
            return max(plain, key=lambda p: p.pattern.order)
        if plain:
            scored = self.rest_scores(o, plain)
            delta, best = max(scored, key=lambda t: (t[0], -t[1].pattern.order))
            if delta > self.follow_margin or threat:
                return best
        if bombs:
            bomb = min(bombs, key=lambda p: p.pattern.order)
            rest = self.split(remove(o.hand, bomb.cards))
            if threat or rest.plays <= 1:
                return bomb
        return None


#: The endgame search starts when the seats hold this many cards in all, per (players, decks).
#: Two-deck games rarely come down to 30: the first seat out leaves the others some 15 cards
#: each, so the search seldom ran there.  Measured with version 3's pruned search (hard's CPU
#: per decision in zsy2 self-play 0.43 → 0.73 ms average, p99 7.4 → 9.8 ms; version 4 counts
#: every option's worlds, to find its ties): 30 → 40 raised first out in zhengshangyou2 a
#: little, on the same 1,000 deals 0.753 → 0.758 (+0.005 ±0.003 paired; the bench's deals 0.756
#: → 0.759, +0.003 ±0.003); doudizhu4 unchanged; 50 was no better, nor 40 in zhengshangyou1.
ENDGAME_CARDS = {(3, 1): 24, (4, 1): 30, (4, 2): 40}
ENDGAME_WORLDS = 6
ENDGAME_BUDGET = 2500  # search nodes per decision
#: The endgame's tie-break (:meth:`HardBot.search`): worlds played out and the moves played
#: out at most per decision.  Measured (bench ``bots``, paired deals; tuned on deals of
#: another seed than the bench's): doudizhu3 vs RLCard's agent, 1,000 deals, landlord +0.014
#: ±0.012, farmers +0.005 ±0.012 (with farmer_threat_cards 8: +0.026 ±0.015); on the bench's
#: 2,000 deals, both: landlord 0.825 → 0.856 (+0.031 ±0.009), farmers 0.838 → 0.843 (+0.005
#: ±0.010); first out in zhengshangyou1 (400 deals) 0.564 → 0.598.  48 worlds no better, nor
#: a tie taken as within one world.  Hard's time per decision (60 self-play games): doudizhu3
#: 4.15 ms average, p99 42.6 ms (3.35 and 46.9 before); zhengshangyou2 4.54 and 32.3.
TIE_WORLDS = 24
TIE_MOVES = 2000
CONTROL_BONUS = 7.0  # a control's worth in hand_value: one play
TOP_UP_BELOW = 11  # a partner's play below an ace may be topped up before the landlord
TOP_UP_MARGIN = -4.0
#: The middle-game search (:mod:`.rollout`), before the endgame search can run: hard's lead
#: (a Dou Dizhu landlord's only) against the next MID_OPTIONS groups of its split, over
#: MID_WORLDS sampled worlds played out, an alternative taken when it wins more than
#: MID_MARGIN worlds more than the heuristic's lead; at most MID_MOVES[variant]
#: moves played out per decision (0: no search).  Measured (bench ``bots``): doudizhu3
#: landlord vs RLCard's agent, 800 paired deals, +0.033 ±0.023 (0.789 → 0.821); on the
#: bench's 2,000 deals 0.817 [0.799, 0.833]; first out zhengshangyou1 +0.027 ±0.012 (400
#: paired deals; bench 1,000 deals 0.557), zhengshangyou2 +0.018 ±0.011 (300; bench 0.770);
#: doudizhu4 landlord vs easy 0.897.  Searching follows too lost (landlord 0.795 with 16
#: worlds against 0.819 for leads only), as did the farmers' leads (0.860 → 0.846); with the
#: split policy for every seat in the play-outs the landlord won 0.799 (12 worlds) and 0.780
#: (24): a poor model of the enemies misleads the more it is sampled.
MID_WORLDS = 24
MID_OPTIONS = 4
MID_MARGIN = 1
#: doudizhu3's cap is 2,000, not the 3,000 its figures above were measured with: at 3,000 hard's
#: CPU per decision there had p99 60.5 ms (goal 50; avg 3.57), at 2,000 44.4 ms (avg 2.94),
#: 60 self-play games on a loaded machine.  12 worlds without a cap gained +0.029 of the
#: +0.033 (paired), so the loss should be small: measured, landlord 0.815 [0.797, 0.831] on
#: the bench's 2,000 deals (0.817 at 3,000).  doudizhu4, 1,000 paired deals vs easy: 1,000 →
#: 3,000 landlord 0.897 → 0.908 (+0.011 ±0.011; hard's CPU per decision 1.20 → 2.34 ms avg,
#: p99 20 → 44), → 2,000 0.901 (+0.004 ±0.010); the farmers' 0.896 unchanged: kept at 1,000.
MID_MOVES = {"doudizhu3": 2000, "zhengshangyou1": 3000, "doudizhu4": 1000, "zhengshangyou2": 1000}
#: The middle-game search of follows, per variant: (c, m): when an enemy holds at most c
#: cards, hard's answer to an enemy's play is weighed as its leads are — the heuristic's
#: choice, a pass, and the follows that leave the best hand (:meth:`HardBot.mid_options`) —
#: with at most m moves played out (absent: no search of follows).  Measured (bench seed,
#: paired on the same deals, against no search of follows): doudizhu3 vs RLCard's agent,
#: the bench's 2,000 deals, (6, 1000): landlord 0.815 → 0.825 [0.808, 0.841] (+0.010
#: ±0.007), farmers 0.836 → 0.838 (+0.002 ±0.006); on the first 1,000, (6, 2000) the same
#: within −0.002 ±0.004, (4, 2000) +0.005 and +0.007.  zhengshangyou2 first out, the
#: bench's 1,000 deals: (6, 500) 0.771 → 0.785 [0.772, 0.797] (+0.015 ±0.005); on the first
#: 800, (8, 500) the same; (6, 1000) +0.019 ±0.008 but hard's CPU per decision 2.57 →
#: 4.06 ms avg (p99 23 → 30; (6, 500): 3.03 ms, p99 22.6), over the speed goal on a slower
#: machine; (4, 1000) +0.003 ±0.003.  doudizhu4 vs easy (1,000 deals), (6, 1000): +0.002
#: ±0.007, so not searched there; nor are the farmers' leads (−0.003 ±0.009 for the farmers).
#: Searching every follow lost (see MID_WORLDS).
MID_FOLLOW: dict[str, tuple[int, int]] = {"doudizhu3": (6, 1000), "zhengshangyou2": (6, 500)}
#: The middle-game search of a Dou Dizhu farmer's leads, per variant: (c, m): when the
#: landlord holds at most c cards, the farmer's lead is weighed against its split's other
#: groups as the landlord's leads are (:data:`MID_WORLDS`), with at most m moves played out.
#: Searching every farmer lead lost (see MID_WORLDS, measured with version 2's bots); with
#: the landlord near going out the lead decides more.  Measured (bench ``bots``, doudizhu3
#: farmers vs RLCard's agent, paired deals; tuned on seeds "tune1" and "tune2", 1,000 deals
#: each): (10, 2000) +0.005 ±0.011 and +0.009 ±0.008; (14, 2000) +0.007 ±0.012 and +0.010
#: ±0.010; (20, 2000) +0.006 ±0.014 and +0.012 ±0.010, at more time per decision; (10, 4000)
#: no better than (10, 2000) (−0.001 on tune1).  Searching a farmer's answer to its
#: partner instead, from 6 or 10 cards: −0.005 ±0.006, −0.003 ±0.009.  On the bench's 2,000
#: deals, (14, 2000): farmers 0.843 → 0.853 (+0.010 ±0.008), the landlord's games unchanged.
FARMER_LEAD_SEARCH: dict[str, tuple[int, int]] = {"doudizhu3": (14, 2000)}
#: The variants where a farmer that cannot beat the landlord's play but with a bomb bombs it
#: (the least bomb), however many cards the landlord holds.  In doudizhu4 three farmers share
#: two decks' bombs and a bomb of four or five cards does not even double the score, while a
#: pass leaves the landlord the lead: normal's slips (auto-play's bombs) beat hard's waiting
#: for the landlord to come within eight cards on the deals where they differed.  Measured
#: (bench ``bots``, paired deals; tuned on seeds "tune1" and "tune2", 1,000 deals each):
#: doudizhu4 farmers vs normal 0.579 → 0.691 (+0.112 ±0.034) and 0.602 → 0.705 (+0.103
#: ±0.033), vs easy (600 deals) 0.883 → 0.898 (+0.015 ±0.030); answering the landlord at any
#: cost from 12 or 16 cards (farmer_threat_cards) gained +0.052 and +0.057 only, at any
#: count +0.113 and +0.094.  On the bench's 500 deals, farmers vs normal 0.542 → 0.686
#: [0.644, 0.725] (+0.144 ±0.046).  doudizhu3, where a bomb doubles the score and a deck
#: has few: −0.015 ±0.010 against RLCard's agent (1,000 deals).
FARMERS_BOMB_FREELY = frozenset({"doudizhu4"})


class HardBot(NormalBot):
    level = "hard"
    slip_share = 0.0
    threat_cards = 6
    #: A Dou Dizhu farmer answers the landlord at any cost from this many cards left (the
    #: landlord alone has two seats to get past).  Measured (bench ``bots``, paired deals):
    #: doudizhu3 vs RLCard's agent, 1,000 deals, 6 → 8 farmers +0.018 ±0.011 (10 no better;
    #: 8 for the landlord too cost it −0.007).
    farmer_threat_cards = 8
    follow_margin = -3.0
    lead_size_weight = 2.0

    def __init__(self, v: rules.Variant, seed: str) -> None:
        super().__init__(v, seed)
        self.rollout = Rollout(v, self.endgame, self.an)

    def refine(self, o: Observation, choice: Play | None) -> Play | None:
        start = ENDGAME_CARDS.get((o.players, self.variant.decks), 16)
        if o.must_hold is not None:
            return choice
        if sum(o.counts) <= start:
            return self.search(o, choice)
        name = self.variant.name
        if o.last is None and (o.landlord is None or o.landlord == o.seat):
            return self.mid_search(o, choice, MID_MOVES.get(name, 0))
        if o.last is not None and o.last_seat is not None and not o.is_partner(o.last_seat):
            close, moves = MID_FOLLOW.get(name, (0, 0))
            if self.min_enemy(o) <= close:
                return self.mid_search(o, choice, moves)
        if o.last is None and o.landlord is not None:  # a farmer's lead
            close, moves = FARMER_LEAD_SEARCH.get(name, (0, 0))
            if o.counts[o.landlord] <= close:
                return self.mid_search(o, choice, moves)
        return choice

    def mid_options(self, o: Observation, choice: Play | None) -> list[Play | None]:
        """What the middle-game search decides between: the heuristic's ``choice`` first (it
        wins ties), then for a lead the split's other groups, weakest first (one play per
        pattern, at most MID_OPTIONS); for a follow a pass (when the tactics leave one) and
        the follows of :meth:`search_options` that leave the best hand (MID_OPTIONS besides
        the choice)."""
        if o.last is not None:  # a follow: the choice, a pass, the follows that cost least
            found = self.search_options(o, choice)
            plays = [p for p in found[1:] if p is not None]
            scored = sorted(self.rest_scores(o, plays), key=lambda t: -t[0])
            out = [choice] + [None for p in found[1:] if p is None]
            return out + [p for _, p in scored][: MID_OPTIONS + 1 - len(out)]
        candidates: list[Play | None] = [choice]
        seen: set[tuple[Kind, int, int]] = set()
        if choice is not None:
            seen.add((choice.pattern.kind, choice.pattern.order, choice.pattern.size))
        sp = self.split(o.hand)
        groups = [g for g in sp.groups if not g.is_bomb] or list(sp.groups)
        for g in sorted(groups, key=lambda g: self.lead_key(o, g)):
            p = self.group_play(o.hand, g)
            if p is None or len(candidates) > MID_OPTIONS:
                continue
            key = (p.pattern.kind, p.pattern.order, p.pattern.size)
            if key not in seen:
                seen.add(key)
                candidates.append(p)
        return candidates

    def mid_search(self, o: Observation, choice: Play | None, budget: int) -> Play | None:
        """The heuristic's ``choice`` unless another of :meth:`mid_options` wins clearly
        more sampled worlds played out (at most ``budget`` moves)."""
        if not budget or not MID_WORLDS:
            return choice
        candidates = self.mid_options(o, choice)
        if len(candidates) < 2:
            return choice
        rng = self.rng(o)
        best = self.rollout.choose(o, candidates, MID_WORLDS, rng, MID_MARGIN, budget)
        return candidates[best]

    def search_options(self, o: Observation, choice: Play | None) -> list[Play | None]:
        """What the search decides between: the heuristic's ``choice`` first (it wins ties),
        one play of each pattern the tactics leave (:meth:`.Tactics.follow_options`), and a
        pass whenever it is legal and the tactics leave it."""
        last = o.last.pattern if o.last is not None else ()
        plays = rules.legal_plays(self.variant, o.hand, last)
        may_pass = o.last is not None
        if o.last is not None:
            plays, must_play = self.tactics.follow_options(plays)
            may_pass = not must_play
        candidates: list[Play | None] = [choice]
        seen: set[tuple[Kind, int, int]] = set()
        if choice is not None:
            seen.add((choice.pattern.kind, choice.pattern.order, choice.pattern.size))
        for p in plays:
            key = (p.pattern.kind, p.pattern.order, p.pattern.size)
            if key not in seen:
                seen.add(key)
                candidates.append(p)
        if may_pass and choice is not None:
            candidates.append(None)
        return candidates

    def search(self, o: Observation, choice: Play | None) -> Play | None:
        """The move of :meth:`search_options` that wins the most sampled worlds solved
        exactly; between the moves that tie there (when none wins them all), or when no world
        could be solved, the one that wins the most worlds played out against the model of
        auto-play (:mod:`.rollout`), the heuristic's ``choice`` first on a tie.

        The exact search takes the enemies to play perfectly, seeing every card: in a world
        lost against that, every move loses alike, though people (and auto-play) lose many
        of them — the play-outs tell those moves apart."""
        candidates = self.search_options(o, choice)
        if len(candidates) < 2:
            return choice
        rng = self.rng(o)
        wins = self.endgame.solve(o, candidates, ENDGAME_WORLDS, ENDGAME_BUDGET, rng)
        tied = candidates
        if wins is not None:
            top = max(wins)
            tied = [c for c, w in zip(candidates, wins, strict=True) if w == top]
            if len(tied) == 1 or top == ENDGAME_WORLDS:
                return tied[0]
        best = self.rollout.choose(o, tied, TIE_WORLDS, rng, MID_MARGIN, TIE_MOVES)
        return tied[best]

    # ------------------------------------------------------------------ controls
    def pick_lead(self, o: Observation, sp: Split) -> Play | None:
        feed = self.feed_partner(o, sp)
        if feed is not None:
            return feed
        groups = [g for g in sp.groups if not g.is_bomb] or list(sp.groups)
        plays = [(g, self.group_play(o.hand, g)) for g in groups]
        weak = [
            (g, p) for g, p in plays if p is not None and not self.tactics.is_control(p.pattern)
        ]
        if weak:
            g, p = min(weak, key=lambda t: self.lead_key(o, t[0]))
            worry = self.min_enemy(o)
            if self.lead_key(o, g)[0] > 0 and worry <= 2:
                same = [(x, q) for x, q in weak if x.kind is g.kind]
                g, p = max(same, key=lambda t: t[0].top)
            return p
        return super().pick_lead(o, sp)

    def feed_partner(self, o: Observation, sp: Split) -> Play | None:
        """A Dou Dizhu farmer whose partner holds one (two) cards leads its lowest single
        (pair): the partner goes out over it unless the landlord stops it."""
        partners = [s for s in range(o.players) if o.is_partner(s) and o.counts[s] <= 2]
        if not partners:
            return None
        k = min(o.counts[s] for s in partners)
        by_rank: list[list[int]] = [[] for _ in range(15)]
        for c in o.hand:
            by_rank[RANK_OF[c]].append(c)
        for r in range(15):
            if len(by_rank[r]) >= k and (k == 1 or r < 13 or self.variant.decks == 2):
                cards = tuple(by_rank[r][:k])
                try:
                    return Play(cards, rules.classify(self.variant, cards))
                except rules.RulesError:
                    continue
        return None

    def follow_enemy(self, o: Observation, plays: Sequence[Play]) -> Play | None:
        """The heuristic's answer; in :data:`FARMERS_BOMB_FREELY`, a farmer with no plain
        play that beats the landlord's bombs it rather than pass."""
        choice = super().follow_enemy(o, plays)
        if choice is not None or self.variant.name not in FARMERS_BOMB_FREELY:
            return choice
        if o.landlord is None or o.landlord == o.seat:
            return None
        if any(not p.pattern.is_bomb for p in plays):
            return None
        return min(plays, key=lambda p: p.pattern.order, default=None)

    def follow_partner(self, o: Observation, plays: Sequence[Play]) -> Play | None:
        assert o.last is not None
        if self.tactics.is_control(o.last.pattern):
            return None
        lord = o.landlord
        assert lord is not None
        # the partner's play can be beaten: take over only with a control that costs
        # nothing, when the landlord plays next and the partner is not about to go out
        if o.counts[o.last_seat or 0] <= 2 or (o.seat + 1) % o.players != lord:
            return None
        plain = [p for p in plays if not p.pattern.is_bomb]
        if not plain:
            return None
        scored = self.rest_scores(o, plain)
        delta, best = max(scored, key=lambda t: (t[0], -t[1].pattern.order))
        if self.tactics.is_control(best.pattern):
            return best if delta > 0 else None
        # a weak play of the partner's, the landlord next: top it up so that the landlord
        # must spend a high card, when that costs the hand little
        if o.last.pattern.order < TOP_UP_BELOW and delta >= TOP_UP_MARGIN:
            return best
        return None

    # ------------------------------------------------------------------ control-aware score

    def hand_value(self, o: Observation, cards: Sequence[int]) -> float:
        """The split's score, each control counted as a play that costs nothing (it wins
        its trick and keeps the lead)."""
        sp = self.split(cards)
        enemies = o.enemies()
        controls = sum(
            1 for g in sp.groups if not self.threats.any_beats(enemies, self.group_pattern(g))
        )
        return sp.score + CONTROL_BONUS * min(controls, max(sp.plays - 1, 0))

    def rest_scores(self, o: Observation, plays: Sequence[Play]) -> list[tuple[float, Play]]:
        base = self.hand_value(o, o.hand)
        return [(self.hand_value(o, remove(o.hand, p.cards)) - base, p) for p in plays]

    def show_hand(self, o: Observation) -> bool:
        if self.split(o.hand).score >= SHOW_SCORE:
            return True
        tactics = Tactics(o, Threats(o), self.endgame, self.an)
        return tactics.sure_lead(tuple(rules.rank_counts(o.hand)))
