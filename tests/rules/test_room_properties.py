"""Issue 8, Hypothesis: random rooms and overrides — values at the edges, wrong types, odd
pattern lists — are either refused cleanly (a VariantError naming a field the room set, the
record loader's INVALID_ROOM / INVALID_OVERRIDE) or deal games that play to their end, with
random legal actions and timeouts, every score within MAX_SCORE (so within int64)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from services import rules
from services.rules import Kind, Leave, Room, Timeout, VariantError

INT64_MAX = 2**63 - 1
NAMES = list(rules.VARIANTS)
HUGE = [2**31, 2**53, 10**15, 10**15 + 1, 2**62, 4611686018427387904, INT64_MAX, 2**64, 10**30]
ODD = [None, True, False, "3", "", 1.5, 2.0, float("inf"), [], {}, [1], {"a": 1}]


def _edges(low: int, high: int, valid_only: bool) -> st.SearchStrategy[Any]:
    valid = st.one_of(
        st.sampled_from([low, low + 1, high - 1, high]).filter(lambda x: low <= x <= high),
        st.integers(min_value=low, max_value=min(high, low + 20)),
    )
    if valid_only:
        return valid
    invalid = st.one_of(
        st.sampled_from([low - 1, high + 1, -1, -(2**63), *HUGE]), st.sampled_from(ODD)
    )
    return st.one_of(valid, invalid)


def _field_values(name: str, current: Any, valid_only: bool) -> st.SearchStrategy[Any]:
    if name in rules.variants.INT_LIMITS:
        return _edges(*rules.variants.INT_LIMITS[name], valid_only)
    if isinstance(current, bool):
        if valid_only:
            return st.booleans()
        return st.one_of(st.booleans(), st.sampled_from([0, 1, "true", None]))
    kinds = [k.value for k in Kind]
    if name == "patterns":
        with_single = st.lists(st.sampled_from(kinds), max_size=8).map(lambda ks: ["single", *ks])
        if valid_only:
            return with_single
        return st.one_of(
            with_single,
            st.lists(st.sampled_from([*kinds, "quintuple", "", 3]), max_size=6),
            st.sampled_from([[], ["bomb"], ["single"], "single", None, {"single": 1}]),
        )
    if name == "bomb_factors":
        if valid_only:
            sizes = st.integers(min_value=3, max_value=8)
            factors = st.one_of(st.integers(min_value=1, max_value=5), st.just(rules.MAX_FACTOR))
            return st.dictionaries(sizes, factors, max_size=6).map(
                lambda d: {str(k): f for k, f in d.items()}
            )
        sizes = st.one_of(st.integers(min_value=2, max_value=9), st.sampled_from(HUGE + ODD))
        factors = st.one_of(st.integers(min_value=-1, max_value=5), st.sampled_from(HUGE + ODD))
        pairs = st.lists(st.tuples(sizes, factors), max_size=6)
        return st.one_of(
            pairs.map(lambda ps: [list(p) for p in ps]),
            pairs.map(lambda ps: {str(s): f for s, f in ps}),
            st.sampled_from(ODD),
        )
    return st.sampled_from(ODD)  # pragma: no cover - every choice field is listed above


@st.composite
def rooms(draw: st.DrawFn, valid_only: bool = False) -> tuple[str, dict[str, Any]]:
    """A variant and a room's JSON form: random override fields and room fields, at the
    edges of their ranges — and, unless ``valid_only``, beyond them and of wrong types."""
    name = draw(st.sampled_from(NAMES))
    v = rules.VARIANTS[name]
    keys = draw(st.lists(st.sampled_from(sorted(v.choices())), max_size=4, unique=True))
    data: dict[str, Any] = {k: draw(_field_values(k, getattr(v, k), valid_only)) for k in keys}
    top = rules.MAX_SCORE
    for field in rules.ROOM_FIELDS:
        if draw(st.booleans()):
            # the stakes at the edge of a default ddz4 room (its bound is the lowest)
            valid = st.one_of(
                st.integers(min_value=1, max_value=1000),
                st.sampled_from([1, 3_871_762, 3_871_763, 10**12, top]),
            )
            invalid = st.sampled_from([0, -1, top + 1, *HUGE, *ODD])
            data[field] = draw(valid if valid_only else st.one_of(valid, invalid))
    return name, data


def _play(state: rules.GameState, rng: random.Random) -> rules.GameState:
    for _ in range(5000):
        if state.over:
            return state
        roll = rng.random()
        if roll < 0.005:
            action: rules.Action = Leave(rng.randrange(state.players))
        elif roll < 0.1:
            assert state.turn is not None
            action = Timeout(state.turn)
        else:
            legal = rules.legal_actions(state)
            assert legal, f"a running game always has a legal action: {state.phase}"
            action = rng.choice(legal)
        state, _ = rules.apply(state, action)
    raise AssertionError("the game did not end in 5,000 actions")


def _check(room: tuple[str, dict[str, Any]], seed: int) -> None:
    name, data = room
    try:
        parsed = Room.from_dict(data)
        state = rules.new_game(name, parsed, seed=f"room {seed}")
    except VariantError as exc:
        event(f"refused: {exc.field}")
        # A field the room set — or the multiplier bound it must set to tame its factors.
        named = exc.field in data or exc.field in ("room", "max_multiplier", "escape_multiplier")
        assert named, (exc.field, str(exc))
        # The record loader refuses it the same way, with the service's reason codes.
        record = {"variant": name, "room": data, "deal": {"seed": "x"}}
        try:
            rules.load_record(record)
        except rules.RecordError as rec:
            assert rec.reason in ("INVALID_ROOM", "INVALID_OVERRIDE", "BAD_RECORD")
            assert rec.field.startswith("room")
        else:
            raise AssertionError("the record loader accepted a room new_game refused") from None
        return
    event(f"played {name}")
    end = _play(state, random.Random(seed))
    assert end.settlement is not None
    assert all(abs(s) <= rules.MAX_SCORE for s in end.settlement.scores)
    assert all(abs(s) <= INT64_MAX for s in end.settlement.scores)
    assert all(abs(step.value) <= INT64_MAX for step in end.settlement.steps)
    # The record of the game settles to the same result.
    assert rules.replay(rules.write_record(end)).settlement == end.settlement


SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(room=rooms(), seed=st.integers(min_value=0, max_value=2**32))
def test_a_random_room_is_refused_cleanly_or_plays_to_its_end(
    room: tuple[str, dict[str, Any]], seed: int
) -> None:
    _check(room, seed)


@SETTINGS
@given(room=rooms(valid_only=True), seed=st.integers(min_value=0, max_value=2**32))
def test_rooms_of_values_within_their_ranges_mostly_play_to_their_end(
    room: tuple[str, dict[str, Any]], seed: int
) -> None:
    """Each value alone within its range: only the combined checks (chain limits together,
    the worst score) may refuse the room."""
    _check(room, seed)
