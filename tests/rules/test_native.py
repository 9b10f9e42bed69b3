"""The compiled rules core (_native.pyx) gives exactly what the pure-Python one gives.

Skipped when the compiled core is not built.  The seeded loop covers at least 100,000
positions per variant (leads and follows, the play to beat given as cards, as a Pattern and
as a Play, hands of every size, bad cards), comparing every move set object for object, the
move ids (legal_ids, the same sequence type and ints from both cores, each turned back by
play_from_id of both cores into the play legal_plays lists at its place), and
the classification of the play to beat and of a sample of each position's plays, in every
reading, alone and against the play to beat.  The golden move counts run through both cores
here; `make test` reruns tests/rules with CARDROOM_PURE=1, so the brute-force oracle and every
other rules test also check the pure core.
"""

from __future__ import annotations

import json
import os
import pickle
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import rules
from services.rules import moves, patterns, policies
from services.rules.cards import NUM_RANKS, RANK_OF
from services.rules.kinds import Kind

from . import make_golden
from .strategies import positions

native: Any = pytest.importorskip("services.rules._native")

POSITIONS = 100_000  # per variant
CHUNKS = 4  # the loop is split in tests so that -x stops early and -n spreads it
PURE_LEGAL = moves.pure_legal_plays
PURE_IDS = moves.pure_legal_ids
PURE_FROM_ID = moves.pure_play_from_id
PURE_CLASSIFY = patterns.pure_classify


def _outcome(fn: Any, *args: Any, **kw: Any) -> Any:
    """A result or the error it raised (type and message), for comparing both cores."""
    try:
        return ("ok", fn(*args, **kw))
    except Exception as exc:
        return ("error", type(exc), str(exc))


def _same_plays(a: tuple[rules.Play, ...], b: tuple[rules.Play, ...], types: bool = True) -> None:
    assert a == b
    if not types:
        return
    for x, y in zip(a, b, strict=True):
        # The same objects: Play and Pattern named tuples, Card ints.
        assert type(x) is type(y) is rules.Play
        assert type(x.pattern) is type(y.pattern) is rules.Pattern
        assert [type(c) for c in x.cards] == [type(c) for c in y.cards]


def _check_ids(v: rules.Variant, hand: Any, last: Any, plays: tuple[rules.Play, ...]) -> None:
    """legal_ids of both cores: one id per play of ``plays``, in order, each turned back into
    its play by play_from_id of both cores."""
    got = native.legal_ids(v, hand, last)
    want = PURE_IDS(v, hand, last)
    assert type(got) is type(want)
    assert list(got) == list(want)
    assert len(set(got)) == len(got)
    back = [native.play_from_id(v, i) for i in got]
    _same_plays(tuple(back), plays)
    _same_plays(tuple(PURE_FROM_ID(v, i) for i in got), plays)


def _check_classify(v: rules.Variant, cards: tuple[int, ...], last: Any) -> None:
    assert _outcome(native.classify, v, cards) == _outcome(PURE_CLASSIFY, v, cards)
    if last is not None:
        got = _outcome(native.classify, v, cards, None, last)
        assert got == _outcome(PURE_CLASSIFY, v, cards, None, last)
    for reading in rules.readings(v, cards):
        name = reading.reading
        assert _outcome(native.classify, v, cards, name) == _outcome(PURE_CLASSIFY, v, cards, name)
        if last is not None:
            assert _outcome(native.classify, v, cards, name, last) == _outcome(
                PURE_CLASSIFY, v, cards, name, last
            )


def _compare_many(name: str, seed: int, count: int) -> int:
    v = rules.variant(name)
    rng = random.Random(f"native:{name}:{seed}")
    # Hands are slices of a few hundred shuffled decks (doubled, so any start fits): shuffling
    # a deck per position would cost as much as both cores together.
    decks = []
    for _ in range(256):
        deck = list(v.deck)
        rng.shuffle(deck)
        decks.append(deck + deck[: v.hand_size + v.bottom_size])
    width = len(v.deck)
    biggest = v.hand_size + v.bottom_size
    prev: tuple[rules.Play, ...] = ()
    checked = 0
    while checked < count:
        deck, start = decks[rng.getrandbits(8)], rng.randrange(width)
        size = biggest if rng.getrandbits(1) else rng.randint(0, biggest)
        hand = tuple(sorted(deck[start : start + size]))
        last: Any = ()
        if prev and rng.getrandbits(2):  # three follows in four
            play = rng.choice(prev)
            last = rng.choice((play, play.pattern, play.cards))
        got = native.legal_plays(v, hand, last)
        checked += 1
        _same_plays(got, PURE_LEGAL(v, hand, last), types=checked % 64 == 0)
        if checked % 4 == 0:
            _check_ids(v, hand, last or rng.choice((None, ())), got)
        if got and last == ():
            prev = got
        # Classification: the play to beat, and a few of the plays, every reading of each.
        last_pattern = None
        if isinstance(last, rules.Play):
            last_pattern = last.pattern
        elif isinstance(last, rules.Pattern):
            last_pattern = last
        elif last:
            last_pattern = PURE_CLASSIFY(v, last)
        if got and checked % 16 == 0:
            for play in rng.sample(got, min(2, len(got))):
                _check_classify(v, play.cards, last_pattern)
    return checked


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", list(rules.VARIANTS))
def test_both_cores_agree_on_random_positions(name: str, chunk: int) -> None:
    assert _compare_many(name, chunk, POSITIONS // CHUNKS) == POSITIONS // CHUNKS


@pytest.mark.parametrize("name", list(rules.VARIANTS))
def test_bad_cards_raise_the_same_errors(name: str) -> None:
    v = rules.variant(name)
    hands: list[Any] = [
        (0, 0, 0),  # more copies than the deck holds
        (52, 53, 53, 53),
        (-1, 3),
        (54,),
        (1 << 70,),
        ("3s",),
        (3.0,),
        (True, 4),
        (),
    ]
    for hand in hands:
        for last in ((), (4,), (0, 0, 0, 0, 0), ("x",)):
            assert _outcome(native.legal_plays, v, hand, last) == _outcome(
                PURE_LEGAL, v, hand, last
            )
        assert _outcome(native.classify, v, hand) == _outcome(PURE_CLASSIFY, v, hand)
        low = PURE_CLASSIFY(v, (4,))  # a single 4
        got = _outcome(native.classify, v, hand, None, low)
        assert got == _outcome(PURE_CLASSIFY, v, hand, None, low)
        pure_count = _outcome(lambda h: len(PURE_LEGAL(v, h)), hand)
        assert _outcome(native.count_plays, v, hand) == pure_count
        for last in (None, (4,), ("x",)):
            got_ids = _outcome(native.legal_ids, v, hand, last)
            want_ids = _outcome(PURE_IDS, v, hand, last)
            if got_ids[0] == "ok":  # arrays compare with arrays, not tuples
                got_ids, want_ids = (got_ids[0], list(got_ids[1])), (want_ids[0], list(want_ids[1]))
            assert got_ids == want_ids


@pytest.mark.parametrize("name", list(rules.VARIANTS))
def test_ints_that_are_no_move_id_raise_the_same_errors(name: str) -> None:
    v = rules.variant(name)
    real = list(native.legal_ids(v, v.deck[: v.hand_size]))
    shift = moves._tables(v).pattern_shift
    bad = [-1, 0, 1 << 200, 1 << shift, (1 << 60) - 1, real[0] | 1 << (shift + 20), 3.0, "1"]
    bad += [i ^ 1 for i in real[:50]] + [i | 1 << 53 for i in real[:50]]
    for move_id in bad:
        got = _outcome(native.play_from_id, v, move_id)
        assert got == _outcome(PURE_FROM_ID, v, move_id)
    assert _outcome(native.play_from_id, v, 0)[0] == "error"


@given(data=st.data(), name=st.sampled_from(list(rules.VARIANTS)))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_both_cores_agree_on_hypothesis_positions(name: str, data: st.DataObject) -> None:
    v = rules.variant(name)
    hand, last = data.draw(positions(v, v.hand_size + v.bottom_size))
    target: Any = () if last is None else last
    got = native.legal_plays(v, hand, target)
    _same_plays(got, PURE_LEGAL(v, hand, target))
    _check_ids(v, hand, last, got)
    if last is not None:
        _check_classify(v, last.cards, None)
        for play in got[:4]:  # follows: read against the play they beat
            _check_classify(v, play.cards, last.pattern)


def test_golden_counts_through_both_cores() -> None:
    golden = json.loads(make_golden.GOLDEN.read_text(encoding="utf-8"))["positions"]
    for position in golden:
        v = rules.variant(position["variant"])
        hand = rules.parse_cards(position["hand"])
        last = make_golden.last_pattern(v, position)
        target: Any = () if last is None else last
        assert native.count_plays(v, hand, target) == position["count"]
        assert len(PURE_LEGAL(v, hand, target)) == position["count"]


def test_the_active_core_is_the_compiled_one_unless_disabled() -> None:
    disabled = os.environ.get("CARDROOM_PURE", "").strip() not in ("", "0")
    assert ("pure" if disabled else "native") == rules.CORE
    assert (rules.legal_plays is native.legal_plays) is not disabled
    assert (rules.legal_ids is native.legal_ids) is not disabled
    assert (rules.play_from_id is native.play_from_id) is not disabled
    assert (rules.classify is native.classify) is not disabled
    assert (policies.choose_play is native.choose_play) is not disabled


def test_a_pickled_variant_leaves_the_compiled_tables_behind() -> None:
    # Variants go to worker processes (the arena, the load generator): the compiled core's
    # tables, cached on the variant, are rebuilt there rather than pickled.
    v = rules.variant("doudizhu3").override({"aaa_bomb_highest": False})
    hand = rules.parse_cards("3s4s5s6s7s 8h8d")
    before = native.legal_plays(v, hand)
    copy = pickle.loads(pickle.dumps(v))
    assert copy.__dict__.get("_native_tables") is None
    assert native.legal_plays(copy, hand) == before == PURE_LEGAL(copy, hand)


PURE_CHOOSE = policies.pure_choose_play


def _same_choice(got: Any, want: Any) -> None:
    assert got == want
    if got[0] == "ok" and got[1] is not None:
        play, pure = got[1], want[1]
        assert type(play) is type(pure) is rules.Play
        assert type(play.pattern) is type(pure.pattern) is rules.Pattern
        assert [type(c) for c in play.cards] == [type(c) for c in pure.cards]


@pytest.mark.parametrize("name", list(rules.VARIANTS))
def test_both_cores_choose_the_same_auto_play(name: str) -> None:
    """The compiled policy (its own leads, unit follows and bombs; the rest handed to the pure
    code) against policies.pure_choose_play: hands of every size, sorted or not, the play to
    beat drawn from another hand's leads (every kind, bombs and rockets included), with and
    without the farmer's no-bomb rule and the ♠3 the first lead must hold."""
    v = rules.variant(name)
    rng = random.Random(f"choose:{name}")
    spade_three = rules.parse_cards("3s")[0]
    answers: Counter[str] = Counter()
    for _ in range(3000):
        deck = list(v.deck)
        rng.shuffle(deck)
        if rng.random() < 0.25:  # every copy of one rank first: a bomb (or the rocket) in hand
            rank = rng.randrange(NUM_RANKS)
            deck.sort(key=lambda c: RANK_OF[c] != rank)
        size = rng.choice((v.hand_size + v.bottom_size, v.hand_size, rng.randint(0, 12)))
        hand: Any = deck[:size]
        if rng.random() < 0.1:  # whole ranks only: bombs, the rocket, a lead of those alone
            ranks = rng.sample(range(NUM_RANKS), rng.randint(1, 3))
            hand = [c for c in deck if RANK_OF[c] in ranks]
            size = len(hand)
        if rng.getrandbits(1):
            hand = tuple(sorted(hand))
        leads = native.legal_plays(v, deck[size : size + 20])
        units = [p for p in leads if p.pattern.kind in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE)]
        pick = rng.random()
        last = None
        if units and pick < 0.5:
            last = rng.choice(units).pattern
        elif leads and pick < 0.8:
            last = rng.choice(leads).pattern
        no_bombs = rng.random() < 0.3
        must = spade_three if last is None and spade_three in hand and rng.random() < 0.3 else None
        got = _outcome(native.choose_play, v, hand, last, no_bombs=no_bombs, must_hold=must)
        want = _outcome(PURE_CHOOSE, v, hand, last, no_bombs=no_bombs, must_hold=must)
        _same_choice(got, want)
        play = got[1] if got[0] == "ok" else None
        if play is None:
            answers["pass"] += 1
        elif play.pattern.is_bomb:
            answers["bomb"] += 1
        else:
            answers["lead" if last is None else "follow"] += 1
    assert len(answers) == 4 and min(answers.values()) > 40, answers


@pytest.mark.parametrize("name", list(rules.VARIANTS))
def test_both_cores_choose_the_same_auto_play_in_games(name: str) -> None:
    """Every play-phase turn of self-play games (the positions simulate meets), and hands the
    compiled core hands back to the pure code (odd values, cards the deck cannot hold)."""
    v = rules.variant(name)
    for g in range(40):
        s = rules.new_game(v, seed=f"choose-{g}")
        while s.turn is not None:
            if s.phase is not rules.Phase.BIDDING:
                seat, last = s.turn, s.last
                no_bombs = (
                    s.landlord is not None and seat != s.landlord and s.last_seat != s.landlord
                )
                args = (v, s.hands[seat], last.pattern if last else None)
                kw = {"no_bombs": no_bombs and last is not None, "must_hold": s.must_hold()}
                _same_choice(
                    _outcome(native.choose_play, *args, **kw), _outcome(PURE_CHOOSE, *args, **kw)
                )
            s, _ = rules.apply(s, rules.autoplay_move(s))
    single = rules.classify(v, (4,))
    for hand in ((0, 0, 0), (52, 53, 53, 53), (-1, 3), (54,), (1 << 70,), ("3s",), (True, 4), ()):
        for last in (None, single):
            got = _outcome(native.choose_play, v, hand, last)
            assert got == _outcome(PURE_CHOOSE, v, hand, last)


def test_the_compiled_shuffle_deals_what_the_pure_one_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.rules import deal

    decks = [rules.variant(name).deck for name in ("doudizhu3", "doudizhu4")]
    seeds = [f"shuffle-{i}" for i in range(300)] + ["", "x" * 200]
    compiled = [deal.shuffle(d, s) for d in decks for s in seeds if s]
    monkeypatch.setattr(deal, "native_core", None)
    assert compiled == [deal.shuffle(d, s) for d in decks for s in seeds if s]
    # A draw the pure loop would discard (x ≥ 2**64 - 2**64 % n), or too few draws: None, so
    # that the pure loop goes on into the stream.
    top = (1 << 64) - 1
    assert native.shuffle_draws(list(range(3)), (top, 0)) is None  # 2**64 % 3 = 1: discarded
    assert native.shuffle_draws(list(range(4)), (top, 0, top)) == [2, 1, 0, 3]  # n = 4, 2: kept
    assert native.shuffle_draws(list(range(5)), (0, 0)) is None
    assert native.shuffle_draws(list(range(3)), (4, 7)) == [0, 2, 1]
