"""The words a player reads, in one place: cards as the screen shows them (``10♠``, never
``Ts``), pattern and phase names in English and Chinese, seats, refusals, the hint, auto-play
and ready lines, settlements, running totals and escape audits.  Pure — no I/O, no widgets,
no gRPC — so the play screen, the replay watcher, a later web client and the tests all say
the same things."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.text import Text

from services import rules

SUIT_SYMBOLS = {"s": "♠", "h": "♥", "c": "♣", "d": "♦"}
RED_SUITS = frozenset("hd")

#: Pattern kinds in words (RULES.md §3), English and Chinese.
KIND_NAMES: dict[str, str] = {
    "single": "single 单张",
    "pair": "pair 对子",
    "triple": "triple 三张",
    "triple_single": "triple + single 三带一",
    "triple_pair": "triple + pair 三带二",
    "triple_two": "triple + two 三带二",
    "straight": "straight 顺子",
    "straight_flush": "straight flush 同花顺",
    "pair_chain": "pair chain 连对",
    "triple_chain": "triple chain 三顺",
    "plane_single": "plane + single wings 飞机带单",
    "plane_pair": "plane + pair wings 飞机带对",
    "plane_two": "plane + two-card wings 飞机带二",
    "four_two": "four + two 四带二",
    "four_pairs": "four + two pairs 四带两对",
    "bomb": "bomb 炸弹",
    "rocket": "rocket 火箭",
}

#: Reasons a refused action may carry, in words (the server's message follows them).
REASON_WORDS: dict[str, str] = {
    "DOES_NOT_BEAT": "that does not beat the play on the table",
    "NOT_A_PATTERN": "those cards are not a pattern",
    "CARDS_NOT_IN_HAND": "you do not hold those cards",
    "NOT_YOUR_TURN": "it is not your turn",
    "MUST_PLAY": "you lead: you must play",
    "CANNOT_PASS": "you lead: you cannot pass",
    "MUST_BID": "you must bid (forced bid)",
    "BAD_BID": "that bid is not allowed",
    "MUST_HOLD": "the lead must hold the ♠3",
    "NOT_READY": "no game is running",
    "STALE_SEQ": "the table moved on; try again",
    "INVALID_CARDS": "those are not cards",
    "NO_CARDS": "select some cards first",
}


def card_label(card: int) -> str:
    """``3♠``, ``10♥``, ``BJ``, ``RJ``."""
    name = rules.format_cards((card,))
    if name in ("BJ", "RJ"):
        return name
    rank, suit = name[:-1], name[-1]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit]


def card_style(card: int) -> str:
    name = rules.format_cards((card,))
    return "bold red" if name == "RJ" or name[-1] in RED_SUITS else "bold"


def cards_text(cards: Iterable[int], sep: str = " ") -> Text:
    """Cards with suit symbols, red suits in red."""
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(sep)
        out.append(card_label(c), style=card_style(c))
    return out


def cards_plain(cards: Iterable[int], sep: str = " ") -> str:
    return sep.join(card_label(c) for c in cards)


def play_order(cards: Iterable[int]) -> list[int]:
    """A play's cards body first: the ranks it holds most of first (a triple before its
    kicker, ``9♠ 9♣ 9♦ 3♦``), then by rank; a chain stays in rank order."""
    cards = list(cards)
    counts: dict[int, int] = {}
    for c in cards:
        counts[rules.cards.RANK_OF[c]] = counts.get(rules.cards.RANK_OF[c], 0) + 1
    return sorted(cards, key=lambda c: (-counts[rules.cards.RANK_OF[c]], c))


def reading_parts(cards: Sequence[int], reading: str) -> tuple[list[int], list[int]] | None:
    """The body and the kickers of ``cards`` read as ``reading`` (``plane_two:5`` of
    333444555+7: 444555 and 3337), to tell a chooser's readings apart; None for a reading
    without kickers, or one this cannot split (a zhengshangyou2 chain read low)."""
    from services.rules.kinds import SHAPES

    try:
        kind, rank = rules.parse_reading(reading)
    except rules.RulesError:
        return None
    shape = SHAPES.get(kind)
    if shape is None or shape.wings is rules.Wings.NONE:
        return None
    per_rank = shape.unit + shape.wing_count * (2 if shape.wings is rules.Wings.PAIRS else 1)
    length = len(cards) // per_rank
    if length < 1 or length * per_rank != len(cards):
        return None
    body: list[int] = []
    rest = sorted(cards)
    for r in range(rank - length + 1, rank + 1):
        mine = [c for c in rest if rules.cards.RANK_OF[c] == r][: shape.unit]
        if len(mine) < shape.unit:
            return None
        body += mine
        rest = [c for c in rest if c not in mine]
    return body, rest


def by_seat(values: Any, players: Sequence[str] = ()) -> str:
    """Per-seat figures (``[-6, 12, -6]``) with the seats' names."""
    if not isinstance(values, list):
        return str(values)
    return ", ".join(f"{seat_name(players, i)} {v:+d}" if isinstance(v, int) else
                     f"{seat_name(players, i)} {v}" for i, v in enumerate(values))  # fmt: skip


def notation_plain(text: str | None) -> str:
    """Card notation (``3s3hBJ``) with suit symbols (``3♠ 3♥ BJ``)."""
    return cards_plain(rules.parse_cards(text or ""))


def pattern_name(reading: str | None) -> str:
    """``triple_single:3`` -> ``triple + single 三带一, 3``."""
    if not reading:
        return ""
    kind, _sep, rank = reading.partition(":")
    words = KIND_NAMES.get(kind, kind.replace("_", " "))
    if kind == "rocket":
        return words  # all the jokers: a key rank says nothing more
    return f"{words}, {'10' if rank == 'T' else rank}" if rank else words


_READING = re.compile(r"\b([a-z_]+):(10|[2-9TJQKA]|BJ|RJ)\b")
_CARD_RUN = re.compile(r"(?<![A-Za-z0-9])((?:10[shcd]|[2-9TJQKA][shcd]|BJ|RJ)+)(?![A-Za-z0-9])")


def screen_notation(message: str) -> str:
    """A server's message in the screen's words: readings as pattern names (``pair:A`` ->
    ``pair 对子, A``) and cards as the hand shows them (``Ts`` -> ``10♠``)."""

    def reading(m: re.Match[str]) -> str:
        return pattern_name(f"{m[1]}:{m[2]}") if m[1] in KIND_NAMES else m[0]

    def cards(m: re.Match[str]) -> str:
        try:
            return cards_plain(rules.parse_cards(m[1]))
        except rules.RulesError:
            return m[0]

    return _CARD_RUN.sub(cards, _READING.sub(reading, message))


def refusal_text(reason: str, message: str = "") -> str:
    """A refused action as the message line says it."""
    return "Refused: " + reason_words(reason, message)


def reason_words(reason: str, message: str = "") -> str:
    words = REASON_WORDS.get(reason, "")
    parts = [p for p in (words, screen_notation(message)) if p]
    text = " — ".join(parts) if parts else "refused"
    return f"{text} ({reason})" if reason else text


BOT_PREFIX = "bot:"


def name_of(player_id: str, seat: int | None) -> str:
    """A player id as a person reads it: a bot's (``bot:<level>:<unique>``) as ``Bot 1
    (hard)`` — its seat's number and its level, not a random id; a person's as it is."""
    if not player_id.startswith(BOT_PREFIX):
        return player_id
    level = player_id.split(":")[1] if player_id.count(":") >= 2 else ""
    number = f"Bot {seat}" if seat is not None else "Bot"
    return f"{number} ({level})" if level else number


def player_label(players: Sequence[str], seat: int | None) -> str:
    """Who sits in ``seat``: ``Bot 1 (hard)`` for a bot, the player id otherwise."""
    if seat is None or not 0 <= seat < len(players) or not players[seat]:
        return "—" if seat is None else f"seat {seat}"
    return name_of(players[seat], seat)


def seat_name(players: Sequence[str], seat: int | None) -> str:
    """A seat in a line of the log or the settlement: ``seat 0 ann``, ``Bot 1 (hard)``."""
    if seat is None:
        return "—"
    if 0 <= seat < len(players) and players[seat]:
        label = player_label(players, seat)
        return label if players[seat].startswith(BOT_PREFIX) else f"seat {seat} {label}"
    return f"seat {seat}"


def action_text(action: Mapping[str, Any]) -> str:
    """A record action (``{"seat": 0, "play": "3s3h"}``) in words."""
    if "bid" in action:
        return f"bids {action['bid']}"
    if action.get("pass"):
        return "passes"
    if "play" in action:
        by = f" ({action['by']})" if action.get("by") else ""
        return f"plays {notation_plain(action['play'])}{by}"
    if action.get("show_hand"):
        return "shows the hand"
    if action.get("leave"):
        return "leaves (escape)"
    if "autoplay" in action:
        return autoplay_text(bool(action["autoplay"]))
    return str(dict(action))


def event_text(event_type: str, data: Mapping[str, Any], players: Sequence[str] = ()) -> str:
    """One game event in a line."""
    who = seat_name(players, data.get("seat"))
    if event_type == "deal":
        if data.get("hand"):
            return f"{who} is dealt {notation_plain(data['hand'])}"
        return "cards dealt" + (f": {data.get('counts')}" if data.get("counts") else "")
    if event_type == "bid":
        amount = data.get("bid", data.get("amount"))
        return f"{who} bids {amount}"
    if event_type == "pass":
        return f"{who} passes"
    if event_type == "play":
        cards = data.get("cards") or data.get("play") or ""
        reading = data.get("pattern") or data.get("reading") or ""
        if isinstance(reading, Mapping):
            reading = reading.get("reading", "")
        name = pattern_name(str(reading)) if reading else ""
        shown = cards_plain(play_order(rules.parse_cards(cards or "")))
        return f"{who} plays {shown}" + (f" — {name}" if name else "")
    if event_type == "landlord":
        return f"{who} is the landlord (bid {data.get('bid', '?')})"
    if event_type == "bottom":
        cards = data.get("cards") or data.get("bottom") or ""
        return "bottom cards " + (notation_plain(cards) if cards else "(hidden)")
    if event_type == "show_hand":
        cards = data.get("hand") or data.get("cards") or ""
        return f"{who} shows the hand " + notation_plain(cards)
    if event_type == "new_trick":
        return f"new trick: {who} leads"
    if event_type == "autoplay":
        return f"{who} {autoplay_text(bool(data.get('on')))}"
    if event_type == "leave":
        return f"{who} leaves the game (escape)"
    if event_type == "redeal":
        return "nobody bid: the cards are dealt again"
    if event_type == "game_over":
        status = data.get("status") or (data.get("settlement") or {}).get("status", "")
        return f"game over: {status}"
    if event_type == "game_header":
        return f"game {data.get('game_id', '')} {data.get('variant', '')}".strip()
    return f"{event_type} {dict(data)}"


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


#: The phases of a game (RULES.md §2) as the table names them.
PHASE_NAMES: dict[str, str] = {
    "bidding": "bidding 叫分",
    "show_hand": "showing the hand 明牌",
    "play": "play 出牌",
    "over": "game over",
}


def phase_name(phase: str) -> str:
    return PHASE_NAMES.get(phase, phase.replace("_", " "))


def bid_prompt(highest: int, must_bid: bool, top: int = 3) -> str:
    """The bids the seat may still make: only those above the highest so far."""
    bids = [str(b) for b in range(highest + 1, top + 1)]
    offer = ", ".join(bids[:-1]) + (" or " if len(bids) > 1 else "") + (bids[-1] if bids else "")
    if must_bid:
        return f"your bid: {offer} (you must bid)"
    return f"your bid: {offer}, or 0/p for no bid" if bids else "your bid: 0/p for no bid"


def result_words(s: Mapping[str, Any], players: Sequence[str] = ()) -> str:
    """Who won, in words: ``the landlord wins 地主胜``, ``the farmers win 农民胜``."""
    status = s.get("status", "?")
    scores = s.get("scores") or []
    if status == "escaped" and s.get("escaper") is not None:
        return f"{seat_name(players, s['escaper'])} escaped 逃跑"
    if status in ("disbanded", "redeal"):
        return "nobody bid: no game" if status == "redeal" else "the table disbanded the game"
    landlord = s.get("landlord")
    if landlord is not None and landlord < len(scores):
        return "the landlord wins 地主胜" if scores[landlord] > 0 else "the farmers win 农民胜"
    if s.get("winner") is not None:
        return f"{seat_name(players, s['winner'])} wins"
    return str(status)


def bomb_line(b: Mapping[str, Any], players: Sequence[str] = ()) -> str:
    led = ", led" if b.get("led") else ""
    by = seat_name(players, b.get("seat"))
    if b.get("kind") == "rocket":
        return f"rocket 火箭 by {by}{led}"
    rank = "10" if b.get("rank") == "T" else b.get("rank")
    return f"bomb 炸弹 of {b.get('size')} × {rank} by {by}{led}"


def step_how(how: str) -> str:
    # The rules' step says "the landlord win" for either side; said right here.
    return re.sub(r"\bthe landlord win\b", "the landlord wins", how)


def seats_named(text: str, players: Sequence[str], pattern: str = r"\bseat (\d+)\b") -> str:
    """The rules' words for a seat in a settlement's steps and factors (``seat 2``, which
    the record keeps) as the rest of the settlement names it: ``seat 2 cy``, ``Bot 2
    (hard)``.  A seat with nobody known in it stays as written."""

    def name(m: re.Match[str]) -> str:
        seat = int(m[1])
        known = seat < len(players) and bool(players[seat])
        return seat_name(players, seat) if known else m[0]

    return re.sub(pattern, name, text)


def settlement_lines(s: Mapping[str, Any], players: Sequence[str] = ()) -> list[str]:
    """A settlement (its JSON form) with every factor and step."""
    if not s:
        return []
    lines = [f"Result: {result_words(s, players)}   stake {s.get('stake', 1)}"]
    for key, label in (("landlord", "landlord"), ("winner", "winner"), ("escaper", "escaper")):
        if s.get(key) is not None:
            lines.append(f"  {label}: {seat_name(players, s[key])}")
    if s.get("bid"):
        lines.append(f"  bid {s['bid']}, base {s.get('base', 0)}")
    for b in s.get("bombs") or []:
        lines.append("  " + bomb_line(b, players))
    factors = s.get("factors") or []
    if factors:
        lines.append("  factors:")
        for f in factors:
            detail = seats_named(str(f.get("detail", "")), players)
            lines.append(f"    {f.get('name')} ×{f.get('value')}  {detail}")
    if s.get("multiplier_before_cap") not in (None, s.get("multiplier")):
        lines.append(f"  multiplier before cap {s['multiplier_before_cap']}")
    if factors or s.get("multiplier", 1) != 1:
        lines.append(f"  multiplier {s.get('multiplier', 1)}")
    steps = s.get("steps") or []
    if steps:
        lines.append("  steps:")
        for st in steps:
            name = seats_named(str(st.get("name")), players)
            how = seats_named(step_how(str(st.get("how", ""))), players)
            lines.append(f"    {name} = {st.get('value')}   {how}")
    scores = s.get("scores") or []
    if scores:
        lines.append("  scores: " + ", ".join(
            f"{seat_name(players, i)} {v:+d}" for i, v in enumerate(scores)))  # fmt: skip
    return lines


def running_total_lines(last_score: int | None, totals: Iterable[Any], family: str) -> list[str]:
    """The seat's last score and its running total in the variant's family (GetPlayer's
    FamilyTotal: ``family``, ``games``, ``total``)."""
    lines = [] if last_score is None else [f"Your last game: {last_score:+d}"]
    for t in totals:
        if t.family == family:
            lines.append(f"Your running total ({family}): {t.total:+d} in "
                         f"{plural(t.games, 'game')}")  # fmt: skip
    return lines


def series_totals_line(players: Sequence[str], totals: Sequence[int]) -> str:
    """Each seat's total over the table's series, the seats named as people read them."""
    return "Series totals: " + ", ".join(
        f"{player_label(players, i)} {t:+d}" for i, t in enumerate(totals)
    )


def leftover_line(cards: Sequence[int]) -> str:
    return ("Your cards left: " + cards_plain(sorted(cards))) if cards else "You played out."


#: Between games: what the settlement box offers, and the start timer (seed 001 §4.5).
NEXT_GAME_KEYS = "n: ready for the next game    l: leave the table"
READY_SENT = "ready — waiting for the others"
START_WARNING_S = 10.0


def start_countdown(left_s: float, ready: bool) -> str:
    """The start timer between games: how long is left to press n, a warning near the end."""
    if ready:
        return f"you are ready — the next game starts when everyone is ({left_s:.0f} s left)"
    if left_s <= START_WARNING_S:
        return f"⚠ press n within {left_s:.0f} s or you lose your seat"
    return f"press n within {left_s:.0f} s to stay for the next game"


REMOVED_TEXT = ("you were removed from the table: not ready in time — q: queue again, "
                "Ctrl+Q: quit")  # fmt: skip
LEFT_TEXT = "you left the table — q: queue again, Ctrl+Q: quit"


def escape_left_text() -> str:
    return "you left the table (escape); the settlement is below — q: queue again, Ctrl+Q quits"


def autoplay_text(on: bool) -> str:
    return "auto-play on 托管" if on else "auto-play off"


AUTOPLAY_TAG = "[autoplay]"
TIMEOUT_TAG = "[timeout]"
#: The events that are a seat's own action: the ones an [autoplay]/[timeout] tag belongs on.
#: The events the action brings about (a new trick, the landlord, game over) share its cause
#: but are not the seat's doing.
ACTION_EVENTS = frozenset({"bid", "pass", "play", "show_hand", "leave"})


def cause_tag(event_type: str, cause: str) -> str:
    """`` [autoplay]`` after an action auto-play made, `` [timeout]`` after one the clock
    made; nothing on the events it led to."""
    tag = {"timeout": TIMEOUT_TAG, "autoplay": AUTOPLAY_TAG}.get(cause, "")
    return f"  {tag}" if tag and event_type in ACTION_EVENTS else ""


NO_HINT = "no hint"
NO_HINT_NOT_YOUR_TURN = "no hint: it is not your turn"


def hint_play_text(cards: Sequence[int], reading: str = "") -> str:
    named = f" as {pattern_name(reading)}" if reading else ""
    return f"hint: {cards_plain(cards)}{named} — press Enter to play it"


def hint_bid_text(bid: int) -> str:
    return f"hint: bid {bid} — press Enter or {bid}"


HINT_PASS = "hint: pass — press Enter or p"
NO_SHOW_HAND = "this variant has no showing of the hand"


def selection_text(cards: Sequence[int]) -> str:
    """The line once the player changed the hint's selection: what Enter now plays."""
    if not cards:
        return "nothing selected (type ranks, or h for a hint)"
    return f"selected: {cards_plain(cards)} — press Enter to play these"


def resume_command(name: str) -> str:
    return f"cardroom play --name {shlex.quote(name)} --resume"


def watch_command(game_id: str) -> str:
    return f"cardroom replay watch {shlex.quote(game_id)}"


def game_id_lines(game_id: str) -> list[str]:
    """The game's id in the settlement box, and how to watch it again."""
    if not game_id:
        return []
    return [f"Game {game_id} — watch it again: {watch_command(game_id)}"]


def goodbye_text(name: str, seated: bool, game_id: str = "") -> str:
    """What the exit prints: the game's id and how to watch it, how to come back to the
    seat."""
    lines = []
    if game_id:
        lines.append(f"Game {game_id}. To watch it: {watch_command(game_id)}")
    if seated:
        lines.append(f"You still hold your seat for the disconnect grace. To come back: "
                     f"{resume_command(name)}")  # fmt: skip
    return "\n".join(lines) or "Bye."


NOTHING_TO_RESUME = "nothing to resume: you hold no seat — start a new game without --resume"


def unreachable_text(target: str) -> str:
    return (
        f"cannot reach the matchmaker at {target}: is it running? (set --matchmaker or "
        "CARDROOM_MATCHMAKER_ADDR)"
    )


def table_event_text(kind: str, data: Mapping[str, Any], players: Sequence[str]) -> str:
    """One table event in a line; a seat named by the player_id the event carries (the
    player who acted), else by ``players`` as they sat when it happened."""
    seat = data.get("seat")
    who = seat_name(players, seat)
    if data.get("player_id"):
        named = name_of(str(data["player_id"]), seat)
        who = named if named != data["player_id"] else f"seat {seat} {named}"
    if kind in ("seated", "bot_joined"):
        return f"{who} sits down"
    if kind == "ready":
        return f"{who} is ready"
    if kind == "game_started":
        return f"game {data.get('game_no')} starts ({data.get('game_id')})"
    if kind in ("disconnected", "reconnected", "connected"):
        return f"{who} {kind}"
    if kind == "player_left":
        why = data.get("why", "")
        return f"{who} left" + (f" ({str(why).replace('_', ' ')})" if why else "")
    if kind == "game_over":
        return f"scores: {by_seat(data.get('scores'), players)}"
    if kind == "series":
        games = data.get("games")
        totals = by_seat(data.get("totals"), players)
        return f"series after {plural(int(games or 0), 'game')}: totals {totals}"
    if kind == "table_closed":
        return "the table closed"
    return f"{kind} {dict(data)}"


def audit_lines(audit: Any) -> list[str]:
    """A replay AuditEscapeResponse: recomputed next to recorded, step by step."""
    lines = [
        f"Escape audit of {audit.game_id}: seat {audit.escaper} left at event {audit.leave_seq}",
        f"  stake {audit.stake}, highest bid {audit.bid or 'none'}"
        + (f", max_multiplier {audit.max_multiplier}" if audit.HasField("max_multiplier") else "")
        + (
            f", escape_multiplier {audit.escape_multiplier}"
            if audit.HasField("escape_multiplier")
            else ""
        ),
    ]
    for b in audit.bombs:
        led = " led" if b.led else ""
        lines.append(f"  {b.kind} of {b.size} × {b.rank} by seat {b.seat}{led}: ×{b.factor}")
    lines.append(f"  {'step':<10}{'recomputed':>12}  {'recorded':>10}  how")
    for st in audit.steps:
        recorded = str(st.recorded) if st.HasField("recorded") else "—"
        mark = "✓" if st.matches else "✗"
        lines.append(f"  {st.name:<10}{st.recomputed:>12}  {recorded:>10}  {mark} "
                     f"{st.recomputed_how}")  # fmt: skip
    lines.append(f"  scores recomputed {list(audit.recomputed_scores)}, recorded "
                 f"{list(audit.recorded_scores)}: "
                 f"{'consistent' if audit.consistent else 'INCONSISTENT'}")  # fmt: skip
    return lines


def title_text(title: Any) -> str:
    if title is None or not getattr(title, "level", 0):
        return ""
    return f"level {title.level} {title.chinese} {title.english}"


def title_line(title: Any, family: str) -> str:
    """The title under a Zheng Shangyou running total (RULES.md §5.4); Dou Dizhu totals
    carry none, so nothing there."""
    text = title_text(title)
    return f"Title 称号: {text}" if text and family == "zhengshangyou" else ""


def card_rank(card: int) -> str:
    """The rank name of a card: ``3`` … ``A``, ``2``, ``BJ``, ``RJ``."""
    return rules.RANK_NAMES[rules.cards.RANK_OF[card]]


def escape_preview(view: rules.SeatView) -> rules.Settlement | None:
    """What leaving now would cost the view's seat (RULES.md §5.2), by the rules' own
    settlement of an escape, from what the seat has seen: the bombs played so far (a play
    is led when every other seat passed since the last play), the highest bid, its cards."""
    from services.rules.scoring import settle_escape

    if view.seat is None or view.over or view.hand is None:
        return None
    v = view.variant
    bombs: list[rules.BombRecord] = []
    last_seat: int | None = None
    passes = 0
    for a in view.history:
        if isinstance(a, rules.PlayCards):
            try:
                p = rules.classify(v, a.cards, a.reading)
            except rules.RulesError:
                p = None
            if p is not None and p.kind in (rules.Kind.BOMB, rules.Kind.ROCKET):
                bombs.append(
                    rules.BombRecord(a.seat, p.kind.value, p.size, p.rank, last_seat is None)
                )
            last_seat, passes = a.seat, 0
        elif isinstance(a, rules.Pass) and last_seat is not None:
            passes += 1
            if passes >= v.players - 1:
                last_seat, passes = None, 0
    return settle_escape(
        v,
        view.room,
        escaper=view.seat,
        bid=view.bid,
        bombs=tuple(bombs),
        cards_left=len(view.hand),
        landlord=view.landlord,
    )


def escape_warning(view: rules.SeatView | None) -> str:
    s = escape_preview(view) if view is not None else None
    if s is None or view is None or view.seat is None:
        return "Leave the table?"
    penalty = -s.scores[view.seat]
    steps = "; ".join(f"{st.name} = {st.value} ({st.how})" for st in s.steps)
    return (
        f"Leaving now is an escape (逃跑): you pay a penalty of {penalty} and the others "
        f"score 0.\n{steps}"
    )


# ---------------------------------------------------------------------- the play screen's lines
FINDING_TABLE = "finding a table…"
WAITING_FOR_GAME = "waiting for the game to start…"
NO_LONGER_SEATED = "you are no longer seated at this table"
SELECT_FIRST = "select cards first (type ranks, or h for a hint)"
BID_KEYS = "bid with 1, 2 or 3, or 0/p for no bid"
NOT_PLAYED = "not played: choose a reading, or change the selection"
NO_LEAD = "to beat: nothing — the seat to move leads"
SHOW_HAND_PROMPT = "w shows your hand (score ×3), or lead to decline"
CONFIRM_LEAVE = "Leave? y = leave and pay, n = stay"
CHOOSE_READING_KEYS = "1–9 chooses the reading · Esc goes back"
CONNECTION_WORDS = {
    "connected": "● connected",
    "reconnecting": "○ reconnecting…",
    "ended": "× stream ended",
}


def queued_text(variant: str, ticket_id: str) -> str:
    return f"queued for {variant} (ticket {ticket_id})"


def ticket_ended_text(state: str) -> str:
    return f"the ticket ended {state.removeprefix('TICKET_STATE_').lower()}"


def resuming_text(table_id: str) -> str:
    return f"resuming at table {table_id}"


def sorted_text(by: str) -> str:
    return f"sorted by {by}"


def no_more_text(rank: str) -> str:
    return f"no more {'10' if rank == 'T' else rank} in your hand"


def must_hold_text(card: int) -> str:
    return f"your lead must hold {card_label(card)}"


def time_left_text(left_s: float) -> str:
    return f" — {left_s:4.1f} s left"


def can_be_played_as(cards: Sequence[int]) -> str:
    return f"{cards_plain(cards)} can be played as:"


def seat_words(
    *, bot: bool, connected: bool, cards: int | None, landlord: bool, autoplay: bool,
    ready: bool, total: int, partner: bool = False,
) -> list[tuple[str, str]]:  # fmt: skip
    """A seat's state after its name, as (words, kind) pairs; the kind (``landlord``,
    ``partner``, ``alarm``, ``online``, ``offline``, ``autoplay``, or empty) is for the
    client to colour.  A seat down to one or two cards is announced (报单 / 报双)."""
    out: list[tuple[str, str]] = [("bot" if bot else "person", "")]
    if cards is not None:
        out.append((plural(cards, "card"), ""))
        if cards in ALARMS:
            out.append((ALARMS[cards], "alarm"))
    if landlord:
        out.append(("landlord 地主", "landlord"))
    if partner:
        out.append(("your partner 队友", "partner"))
    if not bot:
        out.append(("online", "online") if connected else ("offline", "offline"))
    if autoplay:
        out.append(("auto-play 托管", "autoplay"))
    if ready:
        out.append(("ready", ""))
    out.append((f"total {total:+d}", ""))
    return out


#: A seat down to its last one or two cards, announced to everyone (报单 / 报双).
ALARMS = {1: "报单 last card!", 2: "报双 two cards left!"}


def partners(view: rules.SeatView | None) -> frozenset[int]:
    """The seats on the view's seat's side: in Dou Dizhu, once the landlord is known, a
    farmer's fellow farmers (the landlord plays alone); none in Zheng Shangyou."""
    if view is None or view.seat is None or view.landlord is None:
        return frozenset()
    if not view.variant.bidding or view.seat == view.landlord:
        return frozenset()
    return frozenset(i for i in range(view.variant.players) if i not in (view.seat, view.landlord))


PASS_MARK = "不出 pass"


def last_action_cards(last_action: str | None) -> list[int] | None:
    """A seat's last action in the trick (Seat.last_action) as the cards to show, body first;
    [] for a pass, None for no action in this trick."""
    if not last_action:
        return None
    if last_action == "pass":
        return []
    try:
        return play_order(rules.parse_cards(last_action))
    except rules.RulesError:
        return None


def last_action_plain(last_action: str | None) -> str:
    """The trick at a glance in words: ``3♠ 3♥``, ``不出 pass``, or nothing."""
    cards = last_action_cards(last_action)
    if cards is None:
        return ""
    return cards_plain(cards) if cards else PASS_MARK


def card_counter(view: rules.SeatView) -> list[tuple[str, int]]:
    """The card counter (记牌器): per rank, high to low, the cards the view's seat has not
    seen — the deck less its own hand and every card played this deal.  From what the seat
    may see only (its view)."""
    left: dict[int, int] = {}
    for c in view.variant.deck:
        r = rules.cards.RANK_OF[c]
        left[r] = left.get(r, 0) + 1
    seen = list(view.hand or ())
    for a in view.history:
        if isinstance(a, rules.PlayCards):
            seen += a.cards
    for c in seen:
        left[rules.cards.RANK_OF[c]] -= 1
    return [(rules.RANK_NAMES[r], left[r]) for r in sorted(left, reverse=True)]


def counter_text(view: rules.SeatView) -> str:
    """The card counter in a line that fits 100 columns: ``记牌器 not seen: RJ×1 BJ×0 2×3
    A×4 …`` (10 for T)."""
    parts = [f"{'10' if rank == 'T' else rank}×{n}" for rank, n in card_counter(view)]
    return "记牌器 not seen: " + " ".join(parts)


COUNTER_HINT = "c: card counter 记牌器"


def counter_toggled(on: bool) -> str:
    return "card counter 记牌器 on" if on else "card counter off"


def hands_lines(hands: Sequence[tuple[int, Sequence[int]]], players: Sequence[str],
                me: int | None) -> list[str]:  # fmt: skip
    """Every seat's cards left when the game ended (shown to all, RULES.md §7)."""
    if not hands:
        return []
    lines = ["Cards left 剩牌:"]
    for seat, cards in hands:
        who = "you" if seat == me else seat_name(players, seat)
        shown = cards_plain(sorted(cards)) if cards else "played out"
        lines.append(f"  {who}: {shown}")
    return lines


AUTO_PASS_DONE = "要不起 nothing beats the play — passed for you (o turns this off)"


def auto_pass_toggled(on: bool) -> str:
    if on:
        return "要不起 auto-pass on: when nothing beats the play, you pass at once"
    return "要不起 auto-pass off"


# ---------------------------------------------------------------------- the start screen
START_TITLE = "Choose your table"
START_KEYS = "Tab moves · Enter sits down · Esc quits"
#: The start screen's bot levels, the default (Enqueue's too) first.
BOT_LEVELS = ("auto", "easy", "normal", "hard")


def bot_level_name(level: str) -> str:
    return "auto (fits your rating)" if level == "auto" else level


BAD_STAKE = "the stake is a whole number from 1 to 1000000"

# ---------------------------------------------------------------------- one language at a time
# The web page speaks Chinese by default with an English toggle.  The bilingual words above
# ("single 单张", "landlord 地主") are split here rather than written twice, and the words
# only a pointer client needs (its buttons and status lines) are listed once per language.
LANGS = ("zh", "en")
_HAN = re.compile(r"[\u3400-\u9fff\uff08\uff09\u3001]+")


def in_lang(words: str, lang: str) -> str:
    """One language of a bilingual phrase: ``single 单张`` -> ``单张`` (zh) or ``single`` (en);
    a phrase with no Chinese is the same in both."""
    han = _HAN.findall(words)
    if not han:
        return words
    if lang == "zh":
        return "".join(han)
    return " ".join(_HAN.sub(" ", words).split())


def pattern_name_in(reading: str | None, lang: str) -> str:
    """:func:`pattern_name` in one language: ``对子, A`` or ``pair, A``."""
    if not reading:
        return ""
    kind, _sep, rank = reading.partition(":")
    words = in_lang(KIND_NAMES.get(kind, kind.replace("_", " ")), lang)
    if kind == "rocket" or not rank:
        return words
    return f"{words}, {'10' if rank == 'T' else rank}"


#: (Chinese, English) of every label and line of the web page that the terminal client
#: says with a key instead (its buttons, its lobby, its viewer).
WEB_WORDS: dict[str, tuple[str, str]] = {
    "title": ("牌室", "cardroom"),
    "start": ("开始", "Start"),
    "variant": ("玩法", "Game"),
    "doudizhu3": ("斗地主（三人）", "Dou Dizhu, 3 players"),
    "doudizhu4": ("斗地主（四人）", "Dou Dizhu, 4 players"),
    "zhengshangyou1": ("争上游（一副牌）", "Zheng Shangyou, one deck"),
    "zhengshangyou2": ("争上游（两副牌）", "Zheng Shangyou, two decks"),
    "bot_level": ("电脑水平", "Bots' level"),
    "auto": ("自动（按等级分）", "auto (fits your rating)"),
    "easy": ("简单", "easy"),
    "normal": ("普通", "normal"),
    "hard": ("困难", "hard"),
    "stake": ("底分", "Stake"),
    "private_code": ("好友房号（可不填）", "Private code for friends (optional)"),
    "wait_humans": ("等真人（秒，0 = 电脑立即补位）", "Wait for people (s; 0: bots at once)"),
    "name": ("名字", "Name"),
    "set_name": ("改名", "Use this name"),
    "play": ("出牌", "Play"),
    "pass": ("不出", "Pass"),
    "hint": ("提示", "Hint"),
    "autoplay": ("托管", "Auto-play"),
    "autoplay_off": ("取消托管", "Auto-play off"),
    "bid_pass": ("不叫", "No bid"),
    "bid": ("叫{n}分", "Bid {n}"),
    "show_hand": ("明牌（×3）", "Show hand (×3)"),
    "sort_rank": ("按大小排序", "Sort by rank"),
    "sort_count": ("数目排序", "Sort by count"),
    "next_game": ("准备下一局", "Ready for the next game"),
    "leave": ("离开", "Leave"),
    "leave_confirm": ("确认离开并受罚", "Leave and pay"),
    "stay": ("留下", "Stay"),
    "queue_again": ("再来一桌", "Queue again"),
    "to_beat": ("要压的牌", "To beat"),
    "your_turn": ("轮到你了", "Your turn"),
    "turn_of": ("等待 {who}", "Waiting for {who}"),
    "bottom": ("底牌", "Bottom"),
    "shown_hand": ("明牌", "Shown hand"),
    "single_left": ("报单", "one card left"),
    "pair_left": ("报双", "two cards left"),
    "passed": ("不出", "pass"),
    "you": ("你", "you"),
    "settlement": ("结算", "Settlement"),
    "hands_at_end": ("终局手牌", "Hands at the end"),
    "totals": ("累计", "Totals"),
    "last_game": ("上一局", "Last game"),
    "log": ("记录", "Log"),
    "connected": ("● 已连接", "● connected"),
    "reconnecting": ("○ 重新连接中…", "○ reconnecting…"),
    "ended": ("○ 不在牌桌", "○ not at a table"),  # the seat's stream ended: left or removed
    "finding": ("正在找桌…", "finding a table…"),
    "waiting_game": ("等待开局…", "waiting for the game to start…"),
    "nothing_selected": ("先选牌（点牌，或按提示）", "select cards first (click cards, or Hint)"),
    "no_hint": ("没有提示", "no hint"),
    "hint_pass": ("提示：不出（按“出牌”或“不出”）", "hint: pass — press Play or Pass"),
    "hint_bid": ("提示：叫{n}分", "hint: bid {n}"),
    "left_table": ("你已离开牌桌", "you left the table"),
    "removed": ("你未及时准备，已被移出牌桌", "you were removed from the table: not ready in time"),
    "escape_named": (
        "现在离开算逃跑：你要付罚分 {n}，其他人得 0 分。",
        "Leaving now is an escape (逃跑): you pay a penalty of {n} and the others score 0.",
    ),
    "leave_between": ("离开牌桌？", "Leave the table?"),
    "ready_sent": ("已准备，等待其他人", "ready — waiting for the others"),
    "start_in": (
        "{s} 秒内准备，否则失去座位",
        "press Ready within {s} s to stay for the next game",
    ),
    "start_warning": ("⚠ {s} 秒内不准备将失去座位", "⚠ ready within {s} s or you lose your seat"),
    "ready_wait": (
        "你已准备，等其他人（剩 {s} 秒）",
        "you are ready — the next game starts when everyone is ({s} s left)",
    ),
    "replay": ("回放", "Replay"),
    "verify": ("校验", "Verify"),
    "verified": (
        "校验通过：哈希链、重放、发牌承诺",
        "verified: hash chain, re-execution, deal commitment",
    ),
    "not_verified": ("校验失败", "verification failed"),
    "prev": ("上一步", "Back"),
    "next": ("下一步", "Next"),
    "audit": ("逃跑审计", "Escape audit"),
    "event": ("事件", "Event"),
    "actor": ("执行者", "actor"),
    "cause": ("原因", "cause"),
    "deadline": ("时限", "deadline"),
    "seat_view": ("座位视角", "seen by seat"),
    "all_hands": ("全部手牌", "all hands"),
    "landlord": ("地主", "landlord"),
    "bot": ("电脑", "bot"),
    "person": ("真人", "person"),
    "online": ("在线", "online"),
    "offline": ("离线", "offline"),
    "ready": ("已准备", "ready"),
    "cards_n": ("{n} 张", "{n} cards"),
    "total": ("总分 {n}", "total {n}"),
    "lang": ("English", "中文"),
    "title_zsy": ("称号", "Title"),
    "refused": ("不行：", "Refused: "),
}


def web_words(lang: str) -> dict[str, str]:
    """Every entry of :data:`WEB_WORDS` in one language (the page's word table)."""
    i = 0 if lang == "zh" else 1
    words = {key: pair[i] for key, pair in WEB_WORDS.items()}
    words.update({f"kind:{k}": in_lang(v, lang) for k, v in KIND_NAMES.items()})
    words.update({f"phase:{k}": in_lang(v, lang) for k, v in PHASE_NAMES.items()})
    return words


#: Refusal reasons in Chinese (REASON_WORDS has the English).
REASON_WORDS_ZH: dict[str, str] = {
    "DOES_NOT_BEAT": "压不过桌上的牌",
    "NOT_A_PATTERN": "这些牌不成牌型",
    "CARDS_NOT_IN_HAND": "你没有这些牌",
    "NOT_YOUR_TURN": "还没轮到你",
    "MUST_PLAY": "你先出：必须出牌",
    "CANNOT_PASS": "你先出：不能不出",
    "MUST_BID": "你必须叫分（强制叫分）",
    "BAD_BID": "不能这样叫分",
    "MUST_HOLD": "首出必须带♠3",
    "NOT_READY": "没有进行中的牌局",
    "STALE_SEQ": "牌桌已变化，请再试",
    "INVALID_CARDS": "这不是牌",
    "NO_CARDS": "先选牌",
}


def reason_words_in(reason: str, message: str, lang: str) -> str:
    """:func:`reason_words` in one language (the server's message stays as it came)."""
    if lang != "zh" or reason not in REASON_WORDS_ZH:
        return reason_words(reason, message)
    parts = [REASON_WORDS_ZH[reason], screen_notation(message)]
    return " — ".join(p for p in parts if p) + f" ({reason})"


def seat_label_in(players: Sequence[str], seat: int | None, lang: str) -> str:
    if lang != "zh" or seat is None:
        return seat_name(players, seat)
    name = players[seat] if 0 <= seat < len(players) else ""
    return f"{seat}号座 {name}".strip()


def event_text_in(
    event_type: str, data: Mapping[str, Any], players: Sequence[str], lang: str
) -> str:
    """:func:`event_text` in one language: Chinese for the events of a hand's play."""
    if lang != "zh":
        return event_text(event_type, data, players)
    who = seat_label_in(players, data.get("seat"), lang)
    if event_type == "bid":
        return f"{who} 叫 {data.get('bid', data.get('amount'))} 分"
    if event_type == "pass":
        return f"{who} 不出"
    if event_type == "play":
        reading = data.get("pattern") or data.get("reading") or ""
        if isinstance(reading, Mapping):
            reading = reading.get("reading", "")
        shown = cards_plain(play_order(rules.parse_cards(data.get("cards") or "")))
        name = pattern_name_in(str(reading), lang)
        return f"{who} 出 {shown}" + (f" — {name}" if name else "")
    if event_type == "landlord":
        return f"{who} 是地主（{data.get('bid', '?')} 分）"
    if event_type == "new_trick":
        return f"新一轮：{who} 先出"
    if event_type == "autoplay":
        return f"{who} {'托管' if data.get('on') else '取消托管'}"
    if event_type == "leave":
        return f"{who} 离开（逃跑）"
    if event_type == "redeal":
        return "没人叫分：重新发牌"
    if event_type == "show_hand":
        return f"{who} 明牌 " + notation_plain(data.get("hand") or data.get("cards") or "")
    if event_type == "deal" and not data.get("hand"):
        return "发牌"
    if event_type == "game_over":
        status = data.get("status") or (data.get("settlement") or {}).get("status", "")
        return f"牌局结束：{ {'finished': '打完', 'escaped': '逃跑'}.get(status, status) }"
    return event_text(event_type, data, players)


# --------------------------------------------------------------------------- ratings
def rating_text(display: int, before: int | None = None, provisional: bool = False) -> str:
    """A displayed rating, with its change when ``before`` is given: ``1262 (+18)``; a
    provisional one (fewer than ten rated games) is marked ``?``."""
    mark = "?" if provisional else ""
    if before is None:
        return f"{display}{mark}"
    return f"{display}{mark} ({display - before:+d})"


def rating_line(display: int, before: int, provisional: bool = False) -> str:
    """The player's own rating after a game, in the settlement: ``Rating 等级分: 1262 (+18)``."""
    return f"Rating 等级分: {rating_text(display, before, provisional)}"


#: The settlement's rating line while replay has not yet rated this game (it rates a game
#: once its game_over reaches the log, a moment after the game ends).
RATING_PENDING = "Rating 等级分: pending 计算中…"


def game_rating_change(info: Any, game_id: str) -> tuple[int, int, bool] | None:
    """Game ``game_id``'s rating change in GetPlayer's answer ``info``: (display after,
    display before, provisional), once replay has rated that game (the player's last change
    is then this game's), else None — never an earlier game's change."""
    change = info.last_rating_change
    if not game_id or not info.HasField("last_rating_change") or change.game_id != game_id:
        return None
    provisional = any(r.provisional for r in info.ratings if r.variant == change.variant)
    return change.display, change.display_before, provisional


def rating_line_in(display: int, before: int, provisional: bool, lang: str) -> str:
    """The player's own rating after a game, in one language (the web page's settlement):
    ``等级分：1262（+18）``, ``Rating: 1262 (+18, provisional)``."""
    change = f"{display - before:+d}"
    if lang == "zh":
        return f"等级分：{display}（{change}{'，定级中' if provisional else ''}）"
    return f"Rating: {display} ({change}{', provisional' if provisional else ''})"


#: :data:`RATING_PENDING` in one language.
RATING_PENDING_IN = {"zh": "等级分：计算中…", "en": "Rating: pending…"}


def rating_lines(changes: Sequence[Any], players: Sequence[str] = ()) -> list[str]:
    """Each person's rating change in a rated game (RatingChange messages, by seat); bots'
    ratings are fixed and not shown."""
    lines = [
        f"  {seat_name(players, c.seat)}: {rating_text(c.display, c.display_before)}"
        for c in changes
        if not c.player_id.startswith("bot:")
    ]
    return ["Rating 等级分", *lines] if lines else []


# ------------------------------------------------------------------ the settlement in Chinese
# The web page speaks Chinese by default: the settlement, the moment a player judges a game by,
# in Chinese too.  The rules write a step's "how" as a short formula in English ("stake 1 × bid
# 3"); its words are put into Chinese one by one, and a word not listed stays as written.
_FACTOR_ZH = {"rocket": "火箭", "bomb": "炸弹", "show_hand": "明牌", "spring": "春天",
              "anti_spring": "反春"}  # fmt: skip
_STEP_ZH = {"base": "基数", "multiplier": "倍数", "unit": "每份", "landlord": "地主",
            "farmer": "农民", "penalty": "罚分", "escaper": "逃跑者"}  # fmt: skip
_HOW_ZH = (
    (r"\b(\d+)-card bomb of (\w+)", r"\1张\2炸弹"),
    (r"\brocket\b", "火箭"),
    (r", over a play\b", "，压牌"),
    (r", led\b", "，首出"),
    (r"\bshowed hand\b", "明牌"),
    (r"\bno farmer played a card\b", "农民一张未出（春天）"),
    (r"\bthe landlord played only his first lead\b", "地主只出了第一手（反春）"),
    (r"\bthe landlord wins?\b", "地主胜"),
    (r"\bthe farmers win\b", "农民胜"),
    (r"\bproduct of factors\b", "因素之积"),
    (r"\bno factor\b", "无"),
    (r"\bbombs: none\b", "个炸弹：无"),
    (r"\bcapped by the room's max_multiplier\b", "封顶（房间最高倍数）"),
    (r"\bthe winner: the sum of the losses\b", "赢家：输家之和"),
    (r"\bscores −penalty; the others 0\b", "得 −罚分，其他人 0"),
    (r"\bcards left\b", "张剩牌"),
    (r"\bhighest bid so far\b", "目前最高叫分"),
    (r"\bno bid yet\b", "尚未叫分"),
    (r"\bbomb factor so far\b", "目前炸弹倍数"),
    (r"\bbombs\b", "个炸弹"),
    (r"\bstake\b", "底分"),
    (r"\bbid\b", "叫分"),
    (r"\bbase\b", "基数"),
    (r"\bmultiplier\b", "倍数"),
    (r"\beach\b", "每人"),
    (r"\bdealt\b", "发"),
    (r"\bplayed\b", "出"),
    (r"\bleft\b", "剩"),
    (r"\bseat (\d+)\b", r"\1号位"),
)


def _how_zh(how: str) -> str:
    for pattern, words in _HOW_ZH:
        how = re.sub(pattern, words, how)
    return how


def _result_zh(s: Mapping[str, Any], players: Sequence[str]) -> str:
    status, scores = s.get("status", "?"), s.get("scores") or []
    if status == "escaped" and s.get("escaper") is not None:
        return f"{seat_name(players, s['escaper'])} 逃跑"
    if status == "redeal":
        return "无人叫分，重新发牌"
    if status == "disbanded":
        return "牌局解散"
    landlord = s.get("landlord")
    if landlord is not None and landlord < len(scores):
        return "地主胜" if scores[landlord] > 0 else "农民胜"
    if s.get("winner") is not None:
        return f"{seat_name(players, s['winner'])} 胜"
    return str(status)


def _bomb_zh(b: Mapping[str, Any], players: Sequence[str]) -> str:
    led = "（首出）" if b.get("led") else ""
    by = seat_name(players, b.get("seat"))
    if b.get("kind") == "rocket":
        return f"火箭：{by}{led}"
    rank = "10" if b.get("rank") == "T" else b.get("rank")
    return f"炸弹 {b.get('size')} × {rank}：{by}{led}"


def settlement_lines_zh(s: Mapping[str, Any], players: Sequence[str] = ()) -> list[str]:
    """:func:`settlement_lines` in Chinese: every factor and step, the same numbers."""
    if not s:
        return []
    lines = [f"结果：{_result_zh(s, players)}   底分 {s.get('stake', 1)}"]
    for key, label in (("landlord", "地主"), ("winner", "赢家"), ("escaper", "逃跑者")):
        if s.get(key) is not None:
            lines.append(f"  {label}：{seat_name(players, s[key])}")
    if s.get("bid"):
        lines.append(f"  叫分 {s['bid']}，基数 {s.get('base', 0)}")
    lines += ["  " + _bomb_zh(b, players) for b in s.get("bombs") or []]
    factors = s.get("factors") or []
    if factors:
        lines.append("  倍数因素：")
        for f in factors:
            name = _FACTOR_ZH.get(str(f.get("name")), str(f.get("name")))
            detail = _named_zh(_how_zh(str(f.get("detail", ""))), players)
            lines.append(f"    {name} ×{f.get('value')}  {detail}")
    if s.get("multiplier_before_cap") not in (None, s.get("multiplier")):
        lines.append(f"  封顶前倍数 {s['multiplier_before_cap']}")
    if factors or s.get("multiplier", 1) != 1:
        lines.append(f"  倍数 {s.get('multiplier', 1)}")
    steps = s.get("steps") or []
    if steps:
        lines.append("  计算：")
        lines += ["    " + step_text_in(st, "zh", players) for st in steps]
    scores = s.get("scores") or []
    if scores:
        lines.append("  得分：" + "，".join(
            f"{seat_name(players, i)} {v:+d}" for i, v in enumerate(scores)))  # fmt: skip
    return lines


def _named_zh(text: str, players: Sequence[str]) -> str:
    """:func:`seats_named` for words already in Chinese (``2号位``)."""
    return seats_named(text, players, r"(?<!\d)(\d+)号位")


def step_text_in(st: Mapping[str, Any], lang: str, players: Sequence[str] = ()) -> str:
    """One settlement step (``{"name", "value", "how"}``) in one language: ``基数 = 3   底分 1 ×
    叫分 3`` or ``base = 3 (stake 1 × bid 3)``; its seats named from ``players`` when given."""
    name, value, how = str(st.get("name")), st.get("value"), str(st.get("how", ""))
    if lang != "zh":
        return f"{seats_named(name, players)} = {value} ({seats_named(how, players)})"
    name, how = _how_zh(_STEP_ZH.get(name, name)), _how_zh(how)
    return f"{_named_zh(name, players)} = {value}   {_named_zh(how, players)}"


def settlement_lines_in(s: Mapping[str, Any], players: Sequence[str], lang: str) -> list[str]:
    """The settlement's lines in one language (``zh`` or ``en``)."""
    return settlement_lines_zh(s, players) if lang == "zh" else settlement_lines(s, players)


def running_total_lines_in(
    last_score: int | None, totals: Iterable[Any], family: str, lang: str
) -> list[str]:
    """:func:`running_total_lines` in one language."""
    if lang != "zh":
        return running_total_lines(last_score, totals, family)
    lines = [] if last_score is None else [f"上一局：{last_score:+d}"]
    name = {"doudizhu": "斗地主", "zhengshangyou": "争上游"}.get(family, family)
    lines += [f"累计（{name}）：{t.total:+d}，共 {t.games} 局" for t in totals
              if t.family == family]  # fmt: skip
    return lines


def title_line_in(title: Any, family: str, lang: str) -> str:
    """:func:`title_line` in one language."""
    line = title_line(title, family)
    if not line or lang != "zh":
        return line
    return f"称号：{title.level} 级 {title.chinese}"


_LEFT_WHY_ZH = {"left": "离开", "escaped": "逃跑", "disconnected": "掉线", "not_ready": "未准备"}
_CONNECTION_ZH = {"connected": "已连接", "reconnected": "重新连接", "disconnected": "掉线"}


def _scores_zh(values: Any, players: Sequence[str]) -> str:
    return "，".join(f"{seat_name(players, i)} {int(v):+d}" for i, v in enumerate(values or []))


def table_event_text_in(
    kind: str, data: Mapping[str, Any], players: Sequence[str], lang: str
) -> str:
    """:func:`table_event_text` in one language (the web page's log)."""
    if lang != "zh":
        return table_event_text(kind, data, players)
    seat = data.get("seat")
    who = seat_name(players, seat)
    if data.get("player_id"):
        named = name_of(str(data["player_id"]), seat)
        who = named if named != data["player_id"] else f"seat {seat} {named}"
    if kind in ("seated", "bot_joined"):
        return f"{who} 入座"
    if kind == "ready":
        return f"{who} 已准备"
    if kind == "game_started":
        return f"第 {data.get('game_no')} 局开始（{data.get('game_id')}）"
    if kind in _CONNECTION_ZH:
        return f"{who} {_CONNECTION_ZH[kind]}"
    if kind == "player_left":
        why = str(data.get("why", ""))
        return f"{who} 离桌" + (f"（{_LEFT_WHY_ZH.get(why, why)}）" if why else "")
    if kind == "game_over":
        return f"得分：{_scores_zh(data.get('scores'), players)}"
    if kind == "series":
        return (
            f"共 {int(data.get('games') or 0)} 局，总分：{_scores_zh(data.get('totals'), players)}"
        )
    if kind == "table_closed":
        return "牌桌已关闭"
    return table_event_text(kind, data, players)
