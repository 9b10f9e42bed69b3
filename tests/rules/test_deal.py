"""The documented shuffle: published vectors, an independent re-implementation from the
spec, and the properties a deal must have."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules import format_cards, variant
from services.rules.deal import (
    SHUFFLE_DOMAIN,
    _first_blocks,
    _stream,
    deal_from_seed,
    first_bidder,
    redeal_seed,
    shuffle,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "deal-test-vectors.md"


def _vectors() -> list[dict[str, object]]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert block is not None
    return json.loads(block.group(1))  # type: ignore[no-any-return]


@pytest.mark.parametrize("vec", _vectors(), ids=lambda v: f"{v['variant']}:{v['seed']}")
def test_published_vectors(vec: dict[str, object]) -> None:
    v = variant(str(vec["variant"]))
    seed = str(vec["seed"])
    d = deal_from_seed(v, seed)
    assert [format_cards(h) for h in d.hands] == vec["hands"]
    assert format_cards(d.bottom) == vec["bottom"]
    if v.bidding:
        assert first_bidder(seed, v.players) == vec["first_bidder"]
    else:
        assert d.spade_three_seat == vec["opener"]


def _spec_shuffle(deck: list[int], seed: str) -> list[int]:
    """The shuffle written again from the module docstring alone."""
    prefix = b"cardroom/shuffle/v1\x00" + seed.encode()
    words: list[int] = []
    counter = 0

    def word() -> int:
        nonlocal counter
        if not words:
            block = hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
            counter += 1
            words.extend(int.from_bytes(block[i : i + 8], "big") for i in (24, 16, 8, 0))
        return words.pop()

    out = list(deck)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**64 - 2**64 % n
        while (x := word()) >= limit:
            pass
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


@settings(max_examples=30, deadline=None)
@given(st.text(min_size=1, max_size=20), st.sampled_from(["ddz3", "ddz4", "zsy1", "zsy2"]))
def test_shuffle_matches_the_spec_and_deals_every_card(seed: str, name: str) -> None:
    v = variant(name)
    assert shuffle(v.deck, seed) == _spec_shuffle(list(v.deck), seed)
    d = deal_from_seed(v, seed)
    assert [len(h) for h in d.hands] == [v.hand_size] * v.players
    assert len(d.bottom) == v.bottom_size
    assert Counter(c for h in d.hands for c in h) + Counter(d.bottom) == Counter(v.deck)
    assert 0 <= first_bidder(seed, v.players) < v.players


def test_two_deck_opener_is_the_earlier_spade_three() -> None:
    v = variant("zsy2")
    for i in range(40):
        seed = f"opener{i}"
        order = shuffle(v.deck, seed)
        first = order.index(0)
        d = deal_from_seed(v, seed)
        assert d.spade_three_seat == first % 4
        holders = [s for s, h in enumerate(d.hands) if 0 in h]
        assert d.spade_three_seat in holders


def test_redeal_seeds_differ_and_empty_seed_refused() -> None:
    assert redeal_seed("s", 0) == "s"
    assert redeal_seed("s", 2) == "s/redeal/2"
    v = variant("ddz3")
    assert deal_from_seed(v, "s") != deal_from_seed(v, redeal_seed("s", 1))
    with pytest.raises(ValueError):
        deal_from_seed(v, "")


def _commitment_vectors() -> list[dict[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```commitments\n(.*?)\n```", text, re.S)
    assert block is not None
    return json.loads(block.group(1))  # type: ignore[no-any-return]


@pytest.mark.parametrize("vec", _commitment_vectors(), ids=lambda v: v["game_id"])
def test_published_commitment_vectors(vec: dict[str, str]) -> None:
    from services.rules import deal_commitment

    assert deal_commitment(vec["game_id"], vec["seed"]) == vec["commitment"]
    # And from the documented layout itself, independently of the library.
    g = vec["game_id"].encode()
    body = b"cardroom/deal-commitment/v1\x00" + len(g).to_bytes(8, "big") + g
    assert hashlib.sha256(body + vec["seed"].encode()).hexdigest() == vec["commitment"]


def test_a_game_bound_to_an_id_commits_to_its_deal_and_reveals_the_seed() -> None:
    from services import rules

    state = rules.new_game("doudizhu3", seed="cardroom", game_id="g/1")
    public = [e for e in rules.deal_events(state) if e.to is None]
    assert public[0].data["commitment"] == rules.deal_commitment("g/1", "cardroom")
    state, events = rules.apply(state, rules.Leave(1))
    assert events[-1].type == "game_over" and events[-1].data["seed"] == "cardroom"
    # Without a game id nothing changes: no commitment, no seed in game_over.
    plain = rules.new_game("doudizhu3", seed="cardroom")
    assert "commitment" not in rules.deal_events(plain)[-1].data
    assert "seed" not in rules.apply(plain, rules.Leave(1))[1][-1].data


def test_the_shuffles_first_blocks_then_the_rest_are_the_stream() -> None:
    # shuffle reads the blocks its draws need at once, and the stream after them only when a
    # draw is discarded (odds below 2**-57, so the spec test above never reaches it).
    whole = list(islice(_stream(SHUFFLE_DOMAIN, "blocks"), 40))
    assert list(_first_blocks(SHUFFLE_DOMAIN, "blocks", 6)) == whole[:24]
    assert list(islice(_stream(SHUFFLE_DOMAIN, "blocks", 6), 16)) == whole[24:]
