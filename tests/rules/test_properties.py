"""Properties of the move generator and of ``beats`` on generated hands, for all four games.

Hands are random sub-multisets of the variant's deck, half of them drawn from a few
neighbouring ranks so bombs, chains, planes and rival readings turn up (strategies.deals).
The brute-force check is the strongest: on hands of up to 10 cards the generator must list
exactly what an enumeration of every subset through the classifier finds.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import rules
from services.rules import Card, Kind, Pattern, Play, Variant

from . import brute_force
from .strategies import (
    VARIANT_NAMES,
    deals,
    lowest_plane,
    play_identity,
    positions,
    rival_planes,
    suited_positions,
)

# Two cores: keep each property to a few seconds; deadline=None because a shaped two-deck
# hand can take a few ms more than the default deadline allows on a busy machine.
FEW = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BRUTE = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VARIANTS = [pytest.param(rules.variant(name), id=name) for name in VARIANT_NAMES]


def _last_pattern(last: Play | None) -> Pattern | None:
    return None if last is None else last.pattern


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_deals_are_disjoint_sub_multisets_of_the_deck(v: Variant, data: st.DataObject) -> None:
    # The generators below rely on this: a hand the deck could not hold would be refused.
    hands = data.draw(deals(v, (v.hand_size, v.hand_size, 5)))
    dealt = Counter(int(c) for hand in hands for c in hand)
    assert not dealt - Counter(v.deck)
    assert all(len(h) <= n for h, n in zip(hands, (v.hand_size, v.hand_size, 5), strict=True))


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_every_play_classifies_as_its_pattern_and_beats_last(
    v: Variant, data: st.DataObject
) -> None:
    hand, last = data.draw(positions(v, max_hand=v.hand_size + v.bottom_size))
    last_p = _last_pattern(last)
    plays = rules.legal_plays(v, hand, last=() if last is None else last)
    listed = {(play_identity(p.cards, p.pattern), p.pattern) for p in plays}
    for play in plays:
        if last_p is None:
            # A lead may be any reading of its cards: naming it must give it back…
            assert rules.classify(v, play.cards, reading=play.pattern.reading) == play.pattern
            # …and every other reading of the same cards is a lead too.
            for other in rules.readings(v, play.cards):
                assert (play_identity(play.cards, other), other) in listed, (play, other)
        else:
            # A follow is read the way the classifier reads it against `last`.
            assert rules.classify(v, play.cards, last=last_p) == play.pattern
            assert rules.beats(play.pattern, last_p)
        assert play.pattern.size == len(play.cards)


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_plays_use_only_cards_from_the_hand(v: Variant, data: st.DataObject) -> None:
    hand, last = data.draw(positions(v, max_hand=v.hand_size + v.bottom_size))
    have = Counter(map(int, hand))
    for play in rules.legal_plays(v, hand, last=() if last is None else last):
        assert not Counter(map(int, play.cards)) - have, (
            f"{play} is not in {rules.format_cards(hand)}"
        )
        assert all(isinstance(c, Card) for c in play.cards)


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_no_play_is_generated_twice(v: Variant, data: st.DataObject) -> None:
    hand, last = data.draw(positions(v, max_hand=v.hand_size + v.bottom_size))
    plays = rules.legal_plays(v, hand, last=() if last is None else last)
    if last is None:
        # A lead lists each reading of a set of cards once: (cards up to suits, reading).
        keys: list[object] = [(play_identity(p.cards, p.pattern), p.pattern) for p in plays]
    else:
        # A follow lists each set of cards once, whatever readings it has.
        keys = [play_identity(p.cards, p.pattern) for p in plays]
    repeated = [k for k, n in Counter(keys).items() if n > 1]
    assert not repeated
    assert rules.count_plays(v, hand, last=() if last is None else last) == len(plays)


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_move_ids_are_the_plays_in_order(v: Variant, data: st.DataObject) -> None:
    # legal_ids lists legal_plays' moves as ints, in the same order, whatever form `last`
    # takes; play_from_id turns each back into that play, and distinct plays have distinct ids.
    # (Bare cards read as their default reading, which for ambiguous cards is not always the
    # drawn play's: 3s3h3c4s4h4c5s5h5c6s is plane_two:4 or, by default, plane_two:5.)
    hand, last = data.draw(positions(v, max_hand=v.hand_size + v.bottom_size))
    plays = rules.legal_plays(v, hand, last=() if last is None else last)
    forms: list[object] = [None, ()] if last is None else [last, last.pattern, last.cards]
    for form in forms:
        expected = rules.legal_plays(v, hand, last=() if form is None else form)  # type: ignore[arg-type]
        ids = rules.legal_ids(v, hand, form)  # type: ignore[arg-type]
        assert len(ids) == len(expected)
        assert [rules.play_from_id(v, i) for i in ids] == list(expected)
    assert len(set(rules.legal_ids(v, hand, last))) == len(plays)


def test_bare_cards_of_an_ambiguous_play_answer_as_their_default_reading() -> None:
    # The example CI's hypothesis run found: the cards alone are the higher plane.
    v = rules.variant("zhengshangyou1")
    hand = rules.parse_cards("3s3h3c3d4s4h4c4d5s5h5c5d6s")
    cards = rules.parse_cards("3s3h3c4s4h4c5s5h5c6s")
    low = rules.Play(tuple(cards), rules.classify(v, cards, reading="plane_two:4"))
    assert rules.classify(v, cards).order > low.pattern.order
    for last in (low, tuple(cards)):
        ids = rules.legal_ids(v, hand, last)
        assert [rules.play_from_id(v, i) for i in ids] == list(
            rules.legal_plays(v, hand, last=last)
        )
    assert len(rules.legal_ids(v, hand, low)) == len(rules.legal_ids(v, hand, tuple(cards))) + 1


PLANES = [
    pytest.param(rules.variant(name), kind, id=f"{name}-{kind.value}")
    for name, kind in (
        ("doudizhu3", Kind.PLANE_SINGLE),
        ("doudizhu3", Kind.PLANE_PAIR),
        ("doudizhu4", Kind.PLANE_PAIR),
        ("zhengshangyou1", Kind.PLANE_TWO),
        ("zhengshangyou2", Kind.PLANE_PAIR),
    )
]


@pytest.mark.parametrize(("v", "kind"), PLANES)
@FEW
@given(data=st.data())
def test_rival_plane_readings(v: Variant, kind: Kind, data: st.DataObject) -> None:
    hand, k = data.draw(rival_planes(v))
    leads = rules.legal_plays(v, hand)
    listed = {(p.cards, p.pattern) for p in leads}
    assert len(listed) == len(leads)
    # Led: every reading of every set of cards, each once.
    for play in leads:
        for other in rules.readings(v, play.cards):
            assert (play.cards, other) in listed, (play, other)
    # Followed: the lowest plane of k (from 3) is beaten by both readings of the hand's rival
    # sets; each set of cards is offered once, in the highest reading, and kickers never
    # split a bomb or the rocket (classify refuses those).
    last = lowest_plane(v, kind, k)
    follows = rules.legal_plays(v, hand, last=last)
    assert len({p.cards for p in follows}) == len(follows)
    for play in follows:
        assert rules.classify(v, play.cards, last=last) == play.pattern


@pytest.mark.parametrize("v", VARIANTS)
@BRUTE
@given(data=st.data())
def test_one_or_two_suit_hands_equal_brute_force(v: Variant, data: st.DataObject) -> None:
    # Straights and straight flushes: a run of one suit only is only a straight flush; a run
    # with a choice of suits is both; a flush answers a plain straight of its length.
    hand, last = data.draw(suited_positions(v, max_hand=10))
    last_p = _last_pattern(last)
    plays = rules.legal_plays(v, hand, last=() if last is None else last)
    generated = {(play_identity(p.cards, p.pattern), p.pattern) for p in plays}
    assert len(generated) == len(plays)
    for play in plays:
        if last_p is None:
            assert rules.classify(v, play.cards, reading=play.pattern.reading) == play.pattern
        else:
            assert rules.classify(v, play.cards, last=last_p) == play.pattern
    assert generated == brute_force.by_subsets(v, hand, last_p)


@pytest.mark.parametrize("v", VARIANTS)
@BRUTE
@given(data=st.data())
def test_generator_equals_brute_force_on_small_hands(v: Variant, data: st.DataObject) -> None:
    hand, last = data.draw(positions(v, max_hand=10))
    last_p = _last_pattern(last)
    plays = rules.legal_plays(v, hand, last=() if last is None else last)
    generated = {(play_identity(p.cards, p.pattern), p.pattern) for p in plays}
    assert len(generated) == len(plays)  # nothing repeated
    expected = brute_force.by_subsets(v, hand, last_p)
    missing = expected - generated
    extra = generated - expected
    assert not missing and not extra, (
        f"hand {rules.format_cards(hand)} last {last}: missing {sorted(map(str, missing))}, "
        f"extra {sorted(map(str, extra))}"
    )


@pytest.mark.parametrize("v", VARIANTS)
@BRUTE
@given(data=st.data())
def test_counting_by_ranks_agrees_with_subsets(v: Variant, data: st.DataObject) -> None:
    # Keeps the faster brute force (used by make_golden.py on full hands) honest.
    hand, last = data.draw(positions(v, max_hand=9))
    last_p = _last_pattern(last)
    assert brute_force.count_by_rank_counts(v, hand, last_p) == len(
        brute_force.by_subsets(v, hand, last_p)
    )


@st.composite
def _patterns(draw: st.DrawFn, v: Variant) -> list[Pattern]:
    """Patterns met in play: the generated leads of a few hands, classified."""
    # Shaped hands for bombs and chains, one dealt uniformly so there is always variety.
    hands = [*draw(deals(v, (12, 12), mode="shaped")), *draw(deals(v, (12,), mode="uniform"))]
    found: set[Pattern] = set()
    for hand in hands:
        for play in rules.legal_plays(v, hand):
            found.add(rules.classify(v, play.cards, reading=play.pattern.reading))
    ordered = sorted(found)
    picks = draw(st.lists(st.sampled_from(ordered), min_size=3, max_size=25, unique=True))
    return picks


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_beats_is_a_strict_order(v: Variant, data: st.DataObject) -> None:
    pats = data.draw(_patterns(v))
    for a in pats:
        assert not rules.beats(a, a), f"{a} beats itself"
        for b in pats:
            if rules.beats(a, b):
                assert not rules.beats(b, a), f"{a} and {b} beat each other"
                for c in pats:
                    # Transitive everywhere (so in particular within a kind): a rocket or a
                    # bomb that beats something beats what that beats too.
                    if rules.beats(b, c):
                        assert rules.beats(a, c), f"{a} > {b} > {c} but not {a} > {c}"


@pytest.mark.parametrize("v", VARIANTS)
@FEW
@given(data=st.data())
def test_same_kind_and_size_compare_by_order(v: Variant, data: st.DataObject) -> None:
    # Two non-bomb patterns of one kind and size: exactly one beats the other unless they
    # are equal in order (then neither does) — the totality half of "wins by a strictly
    # higher key rank".
    pats = [p for p in data.draw(_patterns(v)) if not p.is_bomb]
    for a in pats:
        for b in pats:
            if a.kind is b.kind and a.size == b.size:
                assert rules.beats(a, b) == (a.order > b.order)
