"""Every example of the seeds (seeds/*.txt, their 例如/如 examples) and of RULES.md §1–3.2,
per variant, as its own test: the plays the texts allow (with kind and key rank), the ones
they forbid, and how plays compare.

Cards are written by rank only, as the texts write them (``333+47``); strategies.cards gives
them suits that never form an accidental straight flush.  Straight flushes are written with
suits.
"""

from __future__ import annotations

import pytest

from services import rules
from services.rules import Kind, Pattern

from .strategies import cards

V = {alias: rules.variant(alias) for alias in ("ddz3", "ddz4", "zsy1", "zsy2")}


def _classify(variant: str, text: str) -> Pattern:
    """The default reading; suited text (``3h4h5h6h7h``) is parsed as written."""
    suited = any(ch in text for ch in "shcd")
    played = rules.parse_cards(text) if suited else cards(text)
    return rules.classify(V[variant], played)


def _param(*values: object, source: str = "") -> object:
    variant, text = values[0], values[1]
    return pytest.param(*values, id=f"{variant}-{text}" + (f"-{source}" if source else ""))


# --------------------------------------------------------------------------- legal plays
# (variant, cards, the reading the engine must give: kind and key rank)
LEGAL = [
    # seed 000 (zhengshangyou1), 牌型介紹
    _param("zsy1", "AAA", "bomb:A", source="三張A炸彈"),
    _param("zsy1", "3333", "bomb:3", source="四張炸彈"),
    _param("zsy1", "AAAA", "bomb:A", source="AAAA"),
    _param("zsy1", "A", "single:A"),
    _param("zsy1", "AA", "pair:A"),
    _param("zsy1", "333", "triple:3"),
    _param("zsy1", "333+4", "triple_single:3", source="三帶一"),
    _param("zsy1", "333+47", "triple_two:3", source="三帶二兩張單牌"),
    _param("zsy1", "333+44", "triple_two:3", source="三帶二一個對子"),
    _param("zsy1", "345678", "straight:8", source="順子"),
    _param("zsy1", "TJQKA", "straight:A"),
    _param("zsy1", "3344", "pair_chain:4", source="連對"),
    _param("zsy1", "334455", "pair_chain:5", source="連對"),
    _param("zsy1", "QQKKAA", "pair_chain:A"),
    _param("zsy1", "333444", "triple_chain:4", source="三順"),
    _param("zsy1", "444555666777", "triple_chain:7", source="三順"),
    _param("zsy1", "333444+5678", "plane_two:4", source="飛機帶翅膀"),
    _param("zsy1", "333444555+667899", "plane_two:5", source="飛機帶翅膀"),
    _param("zsy1", "333444+5566", "plane_two:4", source="pair wings are two-card wings"),
    _param("zsy1", "3333+47", "four_two:3", source="四帶二"),
    _param("zsy1", "3333+44", "four_two:3", source="四帶二"),
    # RULES.md §3, choices for zsy1: AAA alone is a bomb, but aces still make triples
    _param("zsy1", "AAA+5", "triple_single:A"),
    _param("zsy1", "AAA+47", "triple_two:A"),
    _param("zsy1", "333+AA", "triple_two:3", source="two aces are fine kickers"),
    _param("zsy1", "KKKAAA", "triple_chain:A"),
    _param("zsy1", "QQQKKKAAA", "triple_chain:A"),
    _param("zsy1", "KKKAAA+3456", "plane_two:A"),
    _param("zsy1", "AAAA+33", "four_two:A"),
    # seed 001 (doudizhu3), 牌型
    _param("ddz3", "BJRJ", "rocket:RJ", source="火箭"),
    _param("ddz3", "5555", "bomb:5", source="炸弹"),
    _param("ddz3", "3", "single:3", source="单牌"),
    _param("ddz3", "BJ", "single:BJ"),
    _param("ddz3", "RJ", "single:RJ"),
    _param("ddz3", "44", "pair:4", source="对牌"),
    _param("ddz3", "333", "triple:3", source="三张牌"),
    _param("ddz3", "333+4", "triple_single:3", source="三带一"),
    _param("ddz3", "333+44", "triple_pair:3", source="三带二"),
    _param("ddz3", "34567", "straight:7", source="单顺"),
    _param("ddz3", "3456789TJQKA", "straight:A", source="longest straight"),
    _param("ddz3", "334455", "pair_chain:5", source="双顺"),
    _param("ddz3", "333444555", "triple_chain:5", source="三顺"),
    _param("ddz3", "333444+5566", "plane_pair:4", source="飞机带对"),
    _param("ddz3", "333444555+678", "plane_single:5", source="飞机带单"),
    _param("ddz3", "5555+38", "four_two:5", source="四带二单"),
    _param("ddz3", "4444+5577", "four_pairs:4", source="四带二对"),
    # RULES.md §3, ddz3 kickers
    _param("ddz3", "333+5", "triple_single:3"),
    _param("ddz3", "333+BJ", "triple_single:3", source="a joker is a kicker"),
    _param("ddz3", "333444+55", "plane_single:4", source="wings may repeat a rank"),
    _param("ddz3", "333444555+777", "plane_single:5", source="wings may be a triple"),
    _param("ddz3", "333444+BJ5", "plane_single:4", source="one joker in the wings"),
    _param("ddz3", "3333+55", "four_two:3", source="a pair is two cards"),
    _param("ddz3", "3333+4455", "four_pairs:3"),
    _param("ddz3", "3333+BJ5", "four_two:3"),
    _param("ddz3", "333444555666", "triple_chain:6", source="default without kickers"),
    _param("ddz3", "333444555666+7778", "plane_single:7", source="default highest key"),
    # seed 002 (zhengshangyou2), 牌型
    _param("zsy2", "A2345", "straight:5", source="A2345"),
    _param("zsy2", "9TJQKA2", "straight:2", source="910JQKA2"),
    _param("zsy2", "BJBJ", "pair:BJ", source="兩個小王"),
    _param("zsy2", "RJRJ", "pair:RJ", source="兩個大王"),
    _param("zsy2", "5566", "pair_chain:6", source="連對"),
    _param("zsy2", "AA223344", "pair_chain:4", source="AA223344"),
    _param("zsy2", "JJQQKKAA22", "pair_chain:2", source="JJQQKKAA22"),
    _param("zsy2", "555666", "triple_chain:6", source="三順"),
    _param("zsy2", "555666777", "triple_chain:7", source="三順"),
    _param("zsy2", "AAA222333444", "triple_chain:4", source="AAA222333444"),
    _param("zsy2", "JJJQQQKKKAAA222", "triple_chain:2", source="JJJQQQKKKAAA222"),
    _param("zsy2", "555+77", "triple_pair:5", source="三帶二"),
    _param("zsy2", "555666777+99JJKK", "plane_pair:7", source="飛機帶翅膀"),
    _param("zsy2", "6666", "bomb:6", source="炸彈"),
    _param("zsy2", "777777", "bomb:7", source="炸彈"),
    _param("zsy2", "BJBJRJRJ", "rocket:RJ", source="天王炸彈"),
    # RULES.md §3.2: A and 2 at the ends of chains, low order only when the high one fails
    _param("zsy2", "23456", "straight:6"),
    _param("zsy2", "TJQKA", "straight:A"),
    _param("zsy2", "JQKA2", "straight:2"),
    _param("zsy2", "3456789TJQKA2", "straight:2", source="all 13 ranks read high"),
    _param("zsy2", "A23456789TJQ", "straight:Q", source="12 ranks from A read low"),
    _param("zsy2", "23456789TJQK", "straight:K", source="12 ranks from 2 read low"),
    _param("zsy2", "2233", "pair_chain:3"),
    _param("zsy2", "AA22", "pair_chain:2"),
    _param("zsy2", "AAA222333", "triple_chain:3"),
    _param("zsy2", "222333", "triple_chain:3"),
    _param("zsy2", "AAA222", "triple_chain:2"),
    _param("zsy2", "AAA222+3344", "plane_pair:2"),
    _param("zsy2", "222333+4455", "plane_pair:3"),
    # RULES.md §3, two-deck games
    _param("zsy2", "33333", "bomb:3", source="five of a rank is a bomb not triple+pair"),
    _param("zsy2", "22222222", "bomb:2"),
    _param("zsy2", "333+BJBJ", "triple_pair:3", source="a pair of jokers is a pair kicker"),
    _param("zsy2", "555666+BJBJ99", "plane_pair:6"),
    # seed 004 (doudizhu4)
    _param("ddz4", "BJBJRJRJ", "rocket:RJ", source="火箭四王"),
    _param("ddz4", "8888", "bomb:8", source="四个8"),
    _param("ddz4", "44444", "bomb:4", source="五个4"),
    _param("ddz4", "66666", "bomb:6", source="66666"),
    _param("ddz4", "999999", "bomb:9", source="999999"),
    _param("ddz4", "33333333", "bomb:3", source="eight-card bomb"),
    _param("ddz4", "33", "pair:3", source="对牌"),
    _param("ddz4", "BJBJ", "pair:BJ", source="两个小王"),
    _param("ddz4", "RJRJ", "pair:RJ", source="两个大王"),
    _param("ddz4", "333", "triple:3", source="三张牌"),
    _param("ddz4", "888+99", "triple_pair:8", source="三张带一对"),
    _param("ddz4", "55577", "triple_pair:5", source="三带二"),
    _param("ddz4", "334455", "pair_chain:5", source="双顺"),
    _param("ddz4", "556677", "pair_chain:7", source="连对"),
    _param("ddz4", "333444", "triple_chain:4", source="三顺"),
    _param("ddz4", "555666", "triple_chain:6", source="三顺"),
    _param("ddz4", "555666+7799", "plane_pair:6", source="飞机带翅膀"),
    _param("ddz4", "555666777+99JJKK", "plane_pair:7", source="飞机带翅膀"),
    _param("ddz4", "34567", "straight:7", source="顺子"),
    _param("ddz4", "3", "single:3", source="single is a choice"),
    _param("ddz4", "333+BJBJ", "triple_pair:3", source="a pair of jokers is a pair kicker"),
]


@pytest.mark.parametrize(("variant", "text", "reading"), LEGAL)
def test_allowed_play_reads_as_the_texts_say(variant: str, text: str, reading: str) -> None:
    pattern = _classify(variant, text)
    assert pattern.reading == reading
    assert pattern.size == len(cards(text))


# ------------------------------------------------------------------------ forbidden plays
# (variant, cards) that are not a pattern of that game
NOT_A_PATTERN = [
    # seed 000 / RULES.md: zsy1 chains use 3..A only ("2不可以作為順子當中的牌")
    _param("zsy1", "JQKA2", source="2 not in a straight"),
    _param("zsy1", "TJQKA2"),
    _param("zsy1", "A2345", source="no A/2 rule in zsy1"),
    _param("zsy1", "23456"),
    _param("zsy1", "AA22"),
    _param("zsy1", "2233"),
    _param("zsy1", "KKKAAA222"),
    _param("zsy1", "3456", source="four singles"),
    _param("zsy1", "3355", source="pairs not consecutive"),
    _param("zsy1", "333444+56", source="plane needs 2k wing cards"),
    _param("zsy1", "333444555666+778899TJ", source="plane wings only for 2 or 3 triples"),
    _param("zsy1", "333444+AAA5", source="AAA bomb split as kickers"),
    _param("zsy1", "333444+5555", source="bomb split as kickers"),
    _param("zsy1", "3333+4455", source="no quad+two pairs in zsy1"),
    _param("zsy1", "3333+5555"),
    _param("zsy1", "333+4455"),
    # seed 001 / RULES.md: ddz3
    _param("ddz3", "3344", source="pair chain needs 3 pairs"),
    _param("ddz3", "JQKA2", source="不包括2点"),
    _param("ddz3", "TJQKA2"),
    _param("ddz3", "A2345"),
    _param("ddz3", "23456"),
    _param("ddz3", "QQKKAA22", source="不包括2点"),
    _param("ddz3", "KKKAAA222", source="不包括2点"),
    _param("ddz3", "JQKA+BJ", source="不包括双王"),
    _param("ddz3", "333444+BJRJ", source="BJ+RJ as wings"),
    _param("ddz3", "3333+BJRJ", source="BJ+RJ as four+two kickers"),
    _param("ddz3", "333+BJRJ", source="BJ+RJ is not a pair"),
    _param("ddz3", "3333+5555", source="RULES four+two"),
    _param("ddz3", "333444555666+7777", source="all four 7s as wings"),
    _param("ddz3", "333+47", source="no triple+two singles in ddz3"),
    _param("ddz3", "333444+5678", source="neither single nor pair wings"),
    _param("ddz3", "333444+5", source="too few wings"),
    _param("ddz3", "3333+445566", source="quad with three pairs"),
    _param("ddz3", "4444+5"),
    _param("ddz3", "BJRJ3"),
    # seed 002 / RULES.md §3.2: zsy2
    _param("zsy2", "JQKA23", source="JQKA23"),
    _param("zsy2", "QQKKAA2233", source="QQKKAA2233"),
    _param("zsy2", "QQQKKKAAA222333", source="QQQKKKAAA222333"),
    _param("zsy2", "KA234"),
    _param("zsy2", "BJRJ", source="BJ+RJ is not a pair"),
    _param("zsy2", "BJBJRJ"),
    _param("zsy2", "333+4", source="no triple+single in zsy2"),
    _param("zsy2", "333+47"),
    _param("zsy2", "3333+47", source="no four+two in zsy2"),
    _param("zsy2", "333444+56", source="no single wings in zsy2"),
    _param("zsy2", "333444+5678"),
    _param("zsy2", "333444+BJBJRJRJ", source="heavenly bomb split as wings"),
    _param("zsy2", "333444+5555", source="wing pairs of one rank"),
    _param("zsy2", "333+555"),
    # seed 004 / RULES.md: ddz4
    _param("ddz4", "333+4", source="no triple+single in ddz4"),
    _param("ddz4", "3333+47", source="no four+two in ddz4"),
    _param("ddz4", "4444+5577"),
    _param("ddz4", "333444+56", source="no single wings in ddz4"),
    _param("ddz4", "3344", source="pair chain needs 3 pairs"),
    _param("ddz4", "QQKKAA22", source="2和王不能出现在连对中"),
    _param("ddz4", "JQKA2", source="2和王不能出现在顺子中"),
    _param("ddz4", "KKKAAA222", source="2和王不能出现在三顺中"),
    _param("ddz4", "JQKA+BJ", source="2和王不能出现在顺子中"),
    _param("ddz4", "QQKKAA+BJBJ", source="2和王不能出现在连对中"),
    _param("ddz4", "BJRJ"),
    _param("ddz4", "BJBJRJ"),
    _param("ddz4", "333444+BJBJRJRJ", source="heavenly bomb split as wings"),
    _param("ddz4", "333444+5555"),
]


@pytest.mark.parametrize(("variant", "text"), NOT_A_PATTERN)
def test_forbidden_play_is_not_a_pattern(variant: str, text: str) -> None:
    played = cards(text)
    assert rules.readings(V[variant], played) == []
    with pytest.raises(rules.NotAPattern) as err:
        rules.classify(V[variant], played)
    assert err.value.reason == "NOT_A_PATTERN"
    assert V[variant].name in str(err.value)  # the message says which game refused it


@pytest.mark.parametrize(
    ("variant", "text"),
    [
        _param("ddz3", "BJ BJ", source="one black joker"),
        _param("ddz3", "RJ RJ"),
        _param("ddz3", "3s 3s", source="one deck"),
        _param("zsy1", "BJ", source="no jokers"),
        _param("zsy1", "RJ"),
        _param("zsy1", "3s 3h 3c BJ"),
        _param("ddz4", "3s 3s 3s", source="two decks hold two 3s"),
        _param("zsy2", "BJ BJ BJ"),
    ],
)
def test_cards_the_deck_lacks_are_refused(variant: str, text: str) -> None:
    played = rules.parse_cards(text)
    with pytest.raises(rules.CardsNotInDeck) as err:
        rules.classify(V[variant], played)
    assert err.value.reason == "CARDS_NOT_IN_DECK"
    with pytest.raises(rules.CardsNotInDeck):
        rules.legal_plays(V[variant], played)


def test_two_copies_of_a_card_are_a_pair_with_two_decks() -> None:
    assert rules.classify(V["ddz4"], rules.parse_cards("3s 3s")).reading == "pair:3"


def test_no_cards_is_not_a_play() -> None:
    with pytest.raises(rules.NotAPattern):
        rules.classify(V["ddz3"], ())


# ------------------------------------------------------------------------------ comparing
# (variant, a, b, whether a beats b), each side read by default
BEATS = [
    # RULES.md §3.1 rockets
    _param("ddz3", "BJRJ", "2222", True, source="火箭最大"),
    _param("ddz3", "2222", "BJRJ", False),
    _param("ddz3", "BJRJ", "3", True),
    _param("ddz3", "BJRJ", "BJRJ", False, source="nothing beats a rocket"),
    _param("ddz4", "BJBJRJRJ", "22222222", True, source="火箭什么牌型都可打"),
    _param("ddz4", "22222222", "BJBJRJRJ", False),
    _param("zsy2", "BJBJRJRJ", "33333333", True, source="天王炸彈最大"),
    _param("zsy2", "BJBJRJRJ", "BJBJ", True),
    # bombs beat every non-bomb
    _param("ddz3", "3333", "2", True),
    _param("ddz3", "3333", "BJ", True),
    _param("ddz3", "3333", "3456789TJQKA", True),
    _param("ddz3", "3333", "2222+55", True, source="four+two is not a bomb"),
    _param("ddz3", "2222+55", "3333", False, source="four+two is not a bomb"),
    _param("ddz3", "3333+47", "2", False, source="four+two only follows four+two"),
    _param("ddz3", "3333+47", "KKK", False),
    _param("ddz3", "4444+56", "3333+78", True),
    _param("ddz3", "4444+5566", "3333+78", False, source="other kind, other size"),
    _param("ddz3", "4444", "3333", True),
    _param("zsy1", "3333", "3333+47", True),
    _param("zsy1", "2222+34", "AAA", False, source="四帶二不算炸彈"),
    _param("zsy1", "AAA", "2222+34", True),
    _param("zsy1", "AAA", "2", True, source="AAA is a bomb"),
    _param("zsy1", "AAA", "222", True),
    _param("zsy1", "3333", "AAA", True, source="AAA is the lowest bomb"),
    _param("zsy1", "AAA", "3333", False),
    _param("zsy1", "AAAA", "KKKK", True),
    _param("zsy1", "2222", "AAAA", True),
    # bomb vs bomb: more cards wins, then rank (seed 004, seed 002)
    _param("ddz4", "44444", "2222", True, source="张数多的炸弹大"),
    _param("ddz4", "2222", "44444", False),
    _param("ddz4", "2222", "AAAA", True, source="2的大小仅次于王牌"),
    _param("ddz4", "33333333", "2222222", True),
    _param("zsy2", "777777", "66666", True),
    _param("zsy2", "66666", "777777", False),
    # other patterns: same kind, same size, strictly higher key rank; kickers never count
    _param("ddz3", "444+3", "333+A", True, source="kickers are not compared"),
    _param("ddz3", "333+A", "444+3", False),
    _param("ddz3", "444+33", "333+AA", True),
    _param("zsy1", "444+35", "333+AA", True),
    _param("zsy1", "444+3", "333+47", False, source="三帶一 does not follow 三帶二"),
    _param("ddz4", "888+99", "777+AA", True),
    _param("ddz3", "345678", "34567", False, source="a 6-straight never follows a 5"),
    _param("ddz3", "45678", "345678", False),
    _param("ddz3", "34567", "34567", False, source="equal does not beat"),
    _param("ddz3", "444555666777", "333444+5566", False, source="other plane size"),
    _param("ddz3", "444555+7799", "333444+56", False, source="other wings"),
    _param("ddz3", "444555+7799", "333444+5566", True),
    _param("ddz3", "444555666777", "333444555+678", False, source="triple chain vs plane"),
    _param("ddz3", "334455667788", "3456789TJQKA", False, source="same size, other kind"),
    _param("ddz3", "BJ", "22", False, source="a single never follows a pair"),
    _param("ddz3", "44", "33", True),
    _param("zsy1", "KKKAAA", "QQQKKK", True),
    _param("zsy1", "444555+6789", "333444+AKQJ", True, source="wings never count"),
    _param("zsy2", "RJRJ", "BJBJ", True),
    _param("zsy2", "BJBJ", "2222", False),
]


@pytest.mark.parametrize(("variant", "a", "b", "expected"), BEATS)
def test_comparison(variant: str, a: str, b: str, expected: bool) -> None:
    assert rules.beats(_classify(variant, a), _classify(variant, b)) is expected


# (variant, plays from lowest to highest): every later one beats every earlier one and
# never the other way round
ORDERS = [
    _param("ddz3", "3 4 5 6 7 8 9 T J Q K A 2 BJ RJ", source="单张 3<…<A<2<BJ<RJ"),
    _param("zsy1", "3 4 5 6 7 8 9 T J Q K A 2", source="2>A>K>…>3"),
    _param("zsy2", "3 4 5 6 7 8 9 T J Q K A 2 BJ RJ"),
    _param("ddz3", "34567 45678 56789 6789T 789TJ 89TJQ 9TJQK TJQKA"),
    _param("zsy2", "A2345 23456 34567 45678 9TJQK TJQKA JQKA2", source="A2345<23456<34567"),
    _param("zsy2", "2233 3344 4455 KKAA AA22", source="low order below high order"),
    _param("zsy2", "AA223344 22334455 33445566 99TTJJQQ JJQQKKAA QQKKAA22"),
    _param("zsy2", "AAA222333 222333444 333444555 QQQKKKAAA KKKAAA222"),
    _param("zsy2", "A23456789TJQ 23456789TJQK 3456789TJQKA 456789TJQKA2"),
    _param("zsy1", "AAA 3333 4444 KKKK AAAA 2222", source="AAA the lowest bomb"),
    _param("ddz4", "3333 AAAA 2222 33333 22222 333333 2222222 33333333 22222222 BJBJRJRJ"),
    _param("zsy2", "3333 2222 33333 222222 33333333 22222222 BJBJRJRJ"),
    _param("ddz3", "3333 4444 AAAA 2222 BJRJ"),
]


@pytest.mark.parametrize(("variant", "chain"), ORDERS)
def test_order_from_lowest_to_highest(variant: str, chain: str) -> None:
    plays = [_classify(variant, text) for text in chain.split()]
    for i, low in enumerate(plays):
        for high in plays[i + 1 :]:
            assert rules.beats(high, low), f"{high} should beat {low}"
            assert not rules.beats(low, high), f"{low} should not beat {high}"


def test_aaa_bomb_can_be_ranked_highest_by_a_room() -> None:
    # RULES.md §3.1: "a room may rank it highest instead".
    v = V["zsy1"].override({"aaa_bomb_highest": True})
    aaa = rules.classify(v, cards("AAA"))
    for text in ("3333", "AAAA", "2222"):
        assert rules.beats(aaa, rules.classify(v, cards(text)))
        assert not rules.beats(rules.classify(v, cards(text)), aaa)


# ------------------------------------------------------------- A and 2 in zsy2 chains (3.2)
@pytest.mark.parametrize(
    ("text", "low"),
    [
        ("A2345", True),
        ("23456", True),
        ("AA223344", True),
        ("AAA222333", True),
        ("2233", True),
        ("222333", True),
        ("A23456789TJQ", True),
        ("23456789TJQK", True),
        ("9TJQKA2", False),
        ("JJQQKKAA22", False),
        ("AA22", False),
        ("AAA222", False),
        ("3456789TJQKA2", False),
        ("34567", False),
    ],
)
def test_zsy2_run_is_read_low_only_when_high_fails(text: str, low: bool) -> None:
    assert _classify("zsy2", text).low is low


def test_zsy2_low_run_key_rank_is_its_top_in_low_order() -> None:
    # A2345's key rank is 5 and 23456's is 6: A and 2 are the lowest ranks there.
    assert _classify("zsy2", "A2345").rank == rules.RANK_NAMES.index("5")
    assert _classify("zsy2", "AA223344").rank == rules.RANK_NAMES.index("4")


# --------------------------------------------------------------------- straight flushes
@pytest.mark.parametrize(
    ("variant", "a", "b", "expected"),
    [
        # 同花色的34567比雜色的56789大 (seeds 000 and 002)
        _param("zsy1", "3h4h5h6h7h", "5s6h7c8d9s", True, source="同花色的34567比雜色的56789大"),
        _param("zsy2", "3h4h5h6h7h", "5s6h7c8d9s", True, source="同花色的34567比雜色的56789大"),
        _param("zsy1", "Ts Jh Qc Kd As", "3h4h5h6h7h", False, source="plain never beats it"),
        _param("zsy2", "As2s3s4s5s", "Js Qh Kc Ad 2s", True, source="lowest flush beats JQKA2"),
        _param("zsy1", "4s5s6s7s8s", "3h4h5h6h7h", True, source="flushes compare by rank"),
        _param("zsy1", "3h4h5h6h7h", "4s5s6s7s8s", False),
        _param("zsy2", "3s4s5s6s7s", "As2s3s4s5s", True, source="low flush below high"),
        _param("zsy1", "3h4h5h6h7h", "3s4h5c6d7s8h", False, source="same length only"),
        _param("zsy1", "3s3h3c3d", "9hThJhQhKh", True, source="not a bomb: bombs beat it"),
        _param("zsy1", "9hThJhQhKh", "3s3h3c3d", False, source="not a bomb"),
        _param("zsy1", "9hThJhQhKh", "2s2h", False, source="not a bomb"),
        _param("zsy1", "3s4h5c6d7s", "3h4h5h6h7h", False),
    ],
)
def test_straight_flush(variant: str, a: str, b: str, expected: bool) -> None:
    assert rules.beats(_classify(variant, a), _classify(variant, b)) is expected


@pytest.mark.parametrize(
    ("variant", "kind"),
    [
        ("zsy1", Kind.STRAIGHT_FLUSH),
        ("zsy2", Kind.STRAIGHT_FLUSH),
        ("ddz3", Kind.STRAIGHT),  # Dou Dizhu ignores suits
        ("ddz4", Kind.STRAIGHT),
    ],
)
def test_one_suit_straight_is_a_flush_in_zheng_shangyou_only(variant: str, kind: Kind) -> None:
    assert _classify(variant, "3h4h5h6h7h").kind is kind


def test_zsy2_straight_flush_with_a_and_2() -> None:
    p = _classify("zsy2", "As2s3s4s5s")
    assert (p.reading, p.low) == ("straight_flush:5", True)


# --------------------------------------------------------------- ambiguous sets (RULES §3)
@pytest.mark.parametrize(
    ("variant", "text", "expected"),
    [
        # a chain of four triples, and a plane of three with the wings 666 (or 333)
        _param(
            "ddz3",
            "333444555666",
            {"triple_chain:6", "plane_single:5", "plane_single:6"},
        ),
        # the chain 3–6 with wings 7778, or the chain 4–7 with wings 3338
        _param("ddz3", "333444555666+7778", {"plane_single:6", "plane_single:7"}),
        _param("zsy1", "333444+5556", {"plane_two:4", "plane_two:5"}),
        _param("ddz3", "333444+5566", {"plane_pair:4"}),
    ],
)
def test_every_reading_is_listed(variant: str, text: str, expected: set[str]) -> None:
    found = [p.reading for p in rules.readings(V[variant], cards(text))]
    assert set(found) == expected
    assert len(found) == len(expected)


@pytest.mark.parametrize(
    ("variant", "text", "reading"),
    [
        _param("ddz3", "333444555666", "triple_chain:6", source="without kickers first"),
        _param("ddz3", "333444555666+7778", "plane_single:7", source="else highest key"),
        _param("zsy1", "333444+5556", "plane_two:5", source="else highest key"),
    ],
)
def test_a_lead_without_a_named_reading(variant: str, text: str, reading: str) -> None:
    assert rules.classify(V[variant], cards(text)).reading == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [("333444555666", "triple_chain:6"), ("333444555666+7778", "plane_single:7")],
)
def test_the_default_reading_does_not_depend_on_listing_order(text: str, reading: str) -> None:
    # preferred() applies the rule itself, whatever order the readings come in: the one
    # without kickers (the triple chain ties on key rank with the plane 4-6), else the highest.
    found = rules.readings(V["ddz3"], cards(text))
    assert rules.preferred(found).reading == reading
    assert rules.preferred(found[::-1]).reading == reading


@pytest.mark.parametrize(
    ("variant", "text", "last", "reading"),
    [
        # plane_single:5 (three triples + three wings) is beaten only as the plane 4–6
        _param("ddz3", "333444555666", "333444555+789", "plane_single:6"),
        # a plane of four with wings, top 6, is beaten only by the reading 4–7
        _param("ddz3", "333444555666+7778", "333444555666+89TJ", "plane_single:7"),
        # led as a triple chain: the same cards follow it as a triple chain
        _param("ddz3", "444555666777", "333444555666", "triple_chain:7"),
        _param("zsy1", "333444+5556", "333444+789T", "plane_two:5"),
    ],
)
def test_a_follow_takes_the_reading_that_beats(
    variant: str, text: str, last: str, reading: str
) -> None:
    v = V[variant]
    assert rules.classify(v, cards(text), last=_classify(variant, last)).reading == reading


def test_a_follow_no_reading_of_which_beats_is_refused() -> None:
    v = V["ddz3"]
    last = rules.classify(v, cards("444555666+789"))  # plane_single:6
    with pytest.raises(rules.DoesNotBeat) as err:
        rules.classify(v, cards("333444555666"), last=last)
    assert err.value.reason == "DOES_NOT_BEAT"


@pytest.mark.parametrize("reading", ["plane_single:5", "plane_single:6", "triple_chain:6"])
def test_a_lead_may_name_its_reading(reading: str) -> None:
    got = rules.classify(V["ddz3"], cards("333444555666"), reading=reading)
    assert got.reading == reading


@pytest.mark.parametrize(
    "reading", ["plane_single:7", "triple_chain:5", "bomb:3", "plane_pair:5", "nonsense:5", "x"]
)
def test_naming_a_reading_the_cards_do_not_have_is_refused(reading: str) -> None:
    with pytest.raises(rules.NotAPattern):
        rules.classify(V["ddz3"], cards("333444555666"), reading=reading)


def test_a_named_reading_must_still_beat_last() -> None:
    v = V["ddz3"]
    last = rules.classify(v, cards("333444555+789"))  # plane_single:5
    with pytest.raises(rules.DoesNotBeat):
        rules.classify(v, cards("333444555666"), reading="plane_single:5", last=last)
    got = rules.classify(v, cards("333444555666"), reading="plane_single:6", last=last)
    assert got.reading == "plane_single:6"


def test_parse_reading_accepts_10_and_any_case() -> None:
    assert rules.parse_reading("Plane_Single:10") == (
        Kind.PLANE_SINGLE,
        rules.RANK_NAMES.index("T"),
    )


# ---------------------------------------------------------------- what each game allows
ALL_KINDS = set(Kind)
ABSENT: dict[str, set[Kind]] = {
    "ddz3": {Kind.TRIPLE_TWO, Kind.STRAIGHT_FLUSH, Kind.PLANE_TWO},
    "ddz4": {
        Kind.TRIPLE_SINGLE,
        Kind.TRIPLE_TWO,
        Kind.STRAIGHT_FLUSH,
        Kind.PLANE_SINGLE,
        Kind.PLANE_TWO,
        Kind.FOUR_TWO,
        Kind.FOUR_PAIRS,
    },
    "zsy1": {Kind.TRIPLE_PAIR, Kind.PLANE_SINGLE, Kind.PLANE_PAIR, Kind.FOUR_PAIRS, Kind.ROCKET},
    "zsy2": {
        Kind.TRIPLE_SINGLE,
        Kind.TRIPLE_TWO,
        Kind.PLANE_SINGLE,
        Kind.PLANE_TWO,
        Kind.FOUR_TWO,
        Kind.FOUR_PAIRS,
    },
}


@pytest.mark.parametrize("variant", list(ABSENT))
def test_each_game_allows_the_kinds_of_the_rules_table(variant: str) -> None:
    assert V[variant].patterns == ALL_KINDS - ABSENT[variant]


def test_rocket_is_every_joker_of_the_game() -> None:
    assert _classify("ddz3", "BJRJ").size == 2
    assert _classify("ddz4", "BJBJRJRJ").size == 4
    assert _classify("zsy2", "BJBJRJRJ").is_bomb


def test_four_plus_two_is_not_a_bomb() -> None:
    assert not _classify("ddz3", "3333+47").is_bomb
    assert not _classify("zsy1", "3333+47").is_bomb
