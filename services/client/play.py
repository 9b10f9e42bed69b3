"""``cardroom play``: a seat at a table against bots (or people), in the terminal (Textual).

Everything goes through the matchmaker's public gRPC API (:mod:`.session`).  The screen is
rebuilt from the seat's snapshot (GetTable) whenever the seat's stream says something
happened, so what it shows is exactly what the seat may see.

Keys (also buttons):  type ranks to select (``33344``, ``T`` or ``10``, ``BJ``, ``RJ``; ``A``
with shift for an ace, since ``a`` is auto-play), ←/→ (Home/End) and space, or click a card;
Enter plays the selection (cards that read as several patterns ask which one is meant: ``1``
… ``9``), ``p`` passes, Esc clears, Backspace unselects the last typed card;  ``h`` shows the
hint (the same one again this turn);  ``a`` auto-play on/off;  ``s`` sorts by rank
or by count;  bidding ``1`` ``2`` ``3``, ``0`` or ``p`` no bid;  ``w`` shows the hand (ddz4);
``n`` ready for the next game;  ``l`` leaves (mid-game it asks first and names the escape
penalty);  ``q`` queues again once the seat is gone;  PgUp/PgDn scroll the settlement;
``c`` shows the card counter (记牌器);  ``o`` switches 要不起 auto-pass (pass at once when
nothing beats; off unless ``--auto-pass``).  Mouse (seed 001 §4.10): a click on a card
selects it, a right-click on the hand plays the selection, a double click on an empty part
of the table returns every selected card.  Without ``--variant`` a start screen asks for the
table (variant, the bots' level, stake, private code).
Ctrl+Q quits without leaving (``cardroom play --name NAME --resume`` rejoins the seat
within the disconnect grace; the exit prints it).  Every word shown comes from
:mod:`.render`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioButton, RadioSet, RichLog, Static

from services import rules
from services.common.wire import engine_pb2
from services.common.wire import matchmaker_pb2 as M
from services.ratings.model import teams_of

from . import render
from .session import Refused, Session, SessionClosed, Snapshot, default_target

CELL = 5  # columns per card in the hand: a bracket each side of the widest label (10♥)
RANK_KEYS = {
    **{str(d): str(d) for d in range(3, 10)},
    "t": "T", "T": "T", "j": "J", "J": "J", "q": "Q", "Q": "Q",
    "k": "K", "K": "K", "A": "A", "2": "2",
}  # fmt: skip
PREFIX_KEYS = {"1": "0", "b": "j", "B": "j", "r": "j", "R": "j"}


#: The settlement asks GetPlayer again for the game's rating change once a second this many
#: times, then every RATING_LATER_S while it still waits (the change lags the game's end by
#: the outbox's delivery to replay: seconds, longer on a loaded machine).  It never stops
#: asking while the settlement shows a game that counts and says "rating pending" meanwhile.
RATING_ASKS = 10
RATING_LATER_S = 5.0


class HandView(Static):
    """The seat's hand, one cell per card; selected cards in brackets and in reverse (the
    brackets so that a selection reads on a monochrome terminal too), the cursor underlined."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.cards: list[int] = []
        self.selected: list[int] = []  # indices into cards, in the order chosen
        self.cursor = 0

    def set_cards(self, cards: list[int], keep: bool = False) -> None:
        """A new hand; with ``keep``, the selected cards it still holds stay selected (the
        bottom cards joining the landlord's hand must not drop a selection begun)."""
        chosen = self.selected_cards() if keep else []
        self.cards = cards
        self.selected = []
        for c in chosen:  # each chosen card once, the first unselected copy (two decks)
            i = next((i for i, own in enumerate(cards) if own == c and i not in self.selected),
                     None)  # fmt: skip
            if i is not None:
                self.selected.append(i)
        self.cursor = min(self.cursor, max(0, len(cards) - 1))
        self.refresh_hand()

    def per_row(self) -> int:
        return max(1, (self.size.width or 80) // CELL)

    def refresh_hand(self) -> None:
        out = Text()
        per = self.per_row()
        for i, c in enumerate(self.cards):
            if i and i % per == 0:
                out.append("\n")
            style = render.card_style(c)
            chosen = i in self.selected
            if chosen:
                style += " reverse"
            if i == self.cursor:
                style += " underline"
            label = render.card_label(c)
            cell = f"[{label}]" if chosen else f" {label} "
            out.append(cell, style=style)
            out.append(" " * (CELL - len(cell)))
        self.update(out if self.cards else Text("(no cards)", style="dim"))

    def selected_cards(self) -> list[int]:
        return [self.cards[i] for i in sorted(self.selected)]

    def toggle(self, i: int) -> None:
        if not 0 <= i < len(self.cards):
            return
        if i in self.selected:
            self.selected.remove(i)
        else:
            self.selected.append(i)
        self.cursor = i
        self.refresh_hand()

    def select_rank(self, rank: str) -> bool:
        for i, c in enumerate(self.cards):
            if render.card_rank(c) == rank and i not in self.selected:
                self.selected.append(i)
                self.cursor = i
                self.refresh_hand()
                return True
        return False

    def select_cards(self, cards: tuple[int, ...]) -> None:
        self.selected = []
        for c in cards:
            for i, own in enumerate(self.cards):
                if own == c and i not in self.selected:
                    self.selected.append(i)
                    break
        self.refresh_hand()

    def on_click(self, event: events.Click) -> None:
        """Seed 001 §4.10: a right-click on the hand plays the selected cards; a left click
        on a card selects or unselects it; a double left-click beside the cards (an empty
        part of the table) returns every selected card."""
        event.stop()
        app = self.app
        if event.button == 3:
            if isinstance(app, PlayApp):
                app.do_play()
            return
        at = event.get_content_offset(self)  # inside the border and padding
        if at is None:
            return
        i = at.y * self.per_row() + at.x // CELL
        on_card = 0 <= i < len(self.cards) and at.x < self.per_row() * CELL
        if not on_card:
            if event.chain >= 2 and isinstance(app, PlayApp):
                app.return_selected()
            return
        self.toggle(i)
        if isinstance(app, PlayApp):
            app.selection_changed()

    def on_resize(self) -> None:
        self.refresh_hand()


class ConfirmLeave(ModalScreen[bool]):
    """Leaving mid-game is an escape: say what it costs, then ask."""

    BINDINGS: ClassVar = [
        ("y", "answer(True)", "leave"),
        ("n", "answer(False)", "stay"),
        ("escape", "answer(False)", "stay"),
    ]

    def __init__(self, warning: str) -> None:
        super().__init__()
        self.warning = warning

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.warning, id="warning")
            yield Static(render.CONFIRM_LEAVE)
            with Horizontal():
                yield Button("Leave (y)", id="yes", variant="error")
                yield Button("Stay (n)", id="no", variant="primary")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def reprice(self, warning: str) -> None:
        """The price now (a bid or a bomb since the question was asked raises it)."""
        self.warning = warning
        self.query_one("#warning", Static).update(warning)


class ChooseReading(ModalScreen[str | None]):
    """The selected cards read as several patterns (RULES.md §3): ask which one is meant.
    Keys 1–9 (or a click) choose, Esc goes back to the hand without playing."""

    def __init__(self, cards: Sequence[int], readings: list[str]) -> None:
        super().__init__()
        self.cards = list(cards)
        self.readings = readings

    def compose(self) -> ComposeResult:
        with Vertical(id="choose"):
            yield Static(render.can_be_played_as(self.cards), id="choose-title")
            for i, reading in enumerate(self.readings):
                label = f"{i + 1}  {render.pattern_name(reading)}"
                parts = render.reading_parts(self.cards, reading)
                if parts is not None:  # which cards are the body and which the kickers
                    label += f": {render.cards_plain(parts[0])} + {render.cards_plain(parts[1])}"
                button = Button(label, id=f"r-{i}", compact=True)
                button.can_focus = False
                yield button
            yield Static(render.CHOOSE_READING_KEYS)

    def on_key(self, event: events.Key) -> None:
        ch = event.character or ""
        if ch.isdigit() and 1 <= int(ch) <= len(self.readings):
            event.stop()
            self.dismiss(self.readings[int(ch) - 1])
        elif event.key == "escape":
            event.stop()
            self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.readings[int((event.button.id or "r-0").removeprefix("r-"))])


class StartScreen(ModalScreen[dict[str, Any] | None]):
    """``cardroom play`` without ``--variant``: choose the table — the variant, the bots'
    level, the stake and a private code to sit with friends (the flags given fill it in)."""

    VARIANTS: ClassVar = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")

    def __init__(self, bot_level: str = "", stake: int = 0, private_code: str = "") -> None:
        super().__init__()
        self.bot_level, self.stake, self.private_code = bot_level, stake, private_code

    def compose(self) -> ComposeResult:
        with Vertical(id="start"):
            yield Static(render.START_TITLE, id="start-title")
            with Horizontal(classes="start-row"):
                yield Static("variant", classes="start-label")
                with RadioSet(id="start-variant"):
                    for i, name in enumerate(self.VARIANTS):
                        yield RadioButton(name, value=i == 0, id=f"v-{name}")
            with Horizontal(classes="start-row"):
                yield Static("bots", classes="start-label")
                with RadioSet(id="start-bots"):
                    chosen = self.bot_level or render.BOT_LEVELS[0]
                    for level in render.BOT_LEVELS:
                        yield RadioButton(render.bot_level_name(level),
                                          value=level == chosen, id=f"l-{level}")  # fmt: skip
            with Horizontal(classes="start-row"):
                yield Static("stake", classes="start-label")
                yield Input(str(self.stake or 1), id="start-stake", type="integer")
            with Horizontal(classes="start-row"):
                yield Static("private code", classes="start-label")
                yield Input(self.private_code, id="start-code",
                            placeholder="empty: any table; a code: sit with friends")  # fmt: skip
            yield Static("", id="start-error")
            with Horizontal(classes="start-row"):
                yield Button("Sit down ⏎", id="start-go", variant="primary")
                yield Button("Quit (Esc)", id="start-quit")
            yield Static(render.START_KEYS)

    def choice(self) -> dict[str, Any] | None:
        """The table chosen, or None (and the reason shown) when the stake is no number."""
        variant = self.query_one("#start-variant", RadioSet).pressed_index
        level = self.query_one("#start-bots", RadioSet).pressed_index
        stake_text = self.query_one("#start-stake", Input).value.strip() or "1"
        if not stake_text.isdigit() or not 1 <= int(stake_text) <= 1_000_000:
            self.query_one("#start-error", Static).update(render.BAD_STAKE)
            return None
        return {
            "variant": self.VARIANTS[max(0, variant)],
            "bot_level": render.BOT_LEVELS[max(0, level)],
            "stake": int(stake_text),
            "private_code": self.query_one("#start-code", Input).value.strip(),
        }

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif event.key == "enter":
            event.stop()
            chosen = self.choice()
            if chosen is not None:
                self.dismiss(chosen)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start-quit":
            self.dismiss(None)
            return
        chosen = self.choice()
        if chosen is not None:
            self.dismiss(chosen)


class PlayApp(App[int]):
    TITLE = "cardroom"
    CSS = """
    #seats { height: auto; border: round $primary; padding: 0 1; }
    #table { height: auto; border: round $secondary; padding: 0 1; }
    #message { height: auto; color: $warning; padding: 0 1; }
    #hand { height: auto; min-height: 1; border: round $accent; padding: 0 1; }
    #buttons { height: auto; }
    #buttons Button { min-width: 8; margin: 0 1 0 0; }
    #settlement-box { height: auto; max-height: 45vh; border: double $success; display: none; }
    #settlement { height: auto; padding: 0 1; }
    #log { height: 1fr; min-height: 4; border: round $panel; }
    ConfirmLeave, ChooseReading, StartScreen { align: center middle; }
    #start { width: 100%; max-width: 120; height: auto; border: thick $primary;
             background: $surface; padding: 0 1; }
    .start-row { height: auto; }
    .start-label { width: 13; padding: 1 0; }
    #start RadioSet { layout: horizontal; width: 1fr; }
    #start Input { width: 1fr; }
    #start-error { color: $error; height: auto; }
    #choose { width: 90%; height: auto; border: thick $accent; background: $surface;
              padding: 1 2; }
    #choose Button { width: 100%; margin: 0 0 1 0; }
    #confirm { width: 80%; height: auto; border: thick $error; background: $surface;
               padding: 1 2; }
    #confirm Horizontal { height: auto; }
    """
    BINDINGS: ClassVar = [("ctrl+q", "quit", "quit")]

    def __init__(
        self,
        session: Session,
        variant: str = "doudizhu3",
        *,
        wait_for_humans_s: float = 0.0,
        resume: bool = False,
        timers: M.Timers | None = None,
        bot_level: str = "",
        stake: int = 0,
        private_code: str = "",
        auto_pass: bool = False,
        ask: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.variant = variant
        self.wait_for_humans_s = wait_for_humans_s
        self.resume = resume
        self.timers = timers
        self.bot_level = bot_level
        self.stake = stake
        self.private_code = private_code
        self.auto_pass = auto_pass  # 要不起: pass at once when nothing beats (off by default)
        self.ask = ask and not resume  # the start screen chooses the table
        self.counter_on = False  # the card counter (c)
        self.shown_hands: list[tuple[int, list[int]]] = []  # every seat's, at the game's end
        self.last_game_id = ""  # the game this seat played last (settlement, exit message)
        self._auto_passed: tuple[str, int] | None = None
        self._hands_seq = 0  # the seq of the game_over that showed the hands
        self.snap: Snapshot | None = None
        self.sort_by = "rank"
        self.prefix = ""
        self.hint_key: tuple[str, int] | None = None
        self.hint_action: engine_pb2.Action | None = None
        self.message = ""
        self.log_lines: list[str] = []
        self.player_info: M.PlayerInfo | None = None
        self.game_players: list[str] = []  # who sat where when the current game started
        self._players_game = ""
        self._player_asked = False
        self._player_asked_at = 0.0
        #: GetPlayer asked again for this game's rating change (it lags the end by the
        #: outbox's delivery to replay): once a second RATING_ASKS times, then slower.
        self._rating_asks = 0
        self.last_hand: list[int] = []  # the seat's cards as the game ended
        self.left = ""  # why this seat is gone (render's LEFT_TEXT…), once it is
        self.connection = "connecting"
        self.status_line = render.FINDING_TABLE
        self._dirty = threading.Event()
        self._stopping = False
        self.quit_seated = False
        self.fatal = ""  # why the app gave up (no seat to resume, no matchmaker): one line

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(self.status_line, id="status")
        yield Static("", id="seats")
        yield Static("", id="table")
        yield Static("", id="message")
        yield HandView(id="hand")
        with Horizontal(id="buttons"):
            for label, name in (("Play ⏎", "play"), ("Pass p", "pass"), ("Hint h", "hint"),
                                ("Auto a", "auto"), ("Sort s", "sort"), ("Bid 1", "bid1"),
                                ("Bid 2", "bid2"), ("Bid 3", "bid3"), ("Show w", "show"),
                                ("Next n", "next"), ("Leave l", "leave")):  # fmt: skip
                button = Button(label, id=f"b-{name}", compact=True)
                button.can_focus = False
                yield button
        with VerticalScroll(id="settlement-box"):  # PgUp/PgDn or the wheel on a small screen
            yield Static("", id="settlement")
        yield RichLog(id="log", wrap=True, markup=False)

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick)
        if self.ask:
            self._set_status(render.START_TITLE)
            start = StartScreen(self.bot_level, self.stake, self.private_code)
            self.push_screen(start, self._chosen)
            return
        self._start_workers()

    def _start_workers(self) -> None:
        self.run_worker(self._run, thread=True, name="stream", group="session")
        self.run_worker(self._poll, thread=True, name="snapshots", group="session")

    def _chosen(self, chosen: dict[str, Any] | None) -> None:
        """The start screen's answer: the table to queue for, or None to quit."""
        if chosen is None:
            self._stopping = True
            self.exit(0)
            return
        self.variant, self.bot_level = chosen["variant"], chosen["bot_level"]
        self.stake, self.private_code = chosen["stake"], chosen["private_code"]
        self._set_status(render.FINDING_TABLE)
        self._start_workers()

    # ------------------------------------------------------------------ threads
    def _post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the UI thread; nothing once the app is stopping."""
        if self._stopping:
            return

        def guarded() -> None:
            # A call that a worker posted just before the app began to exit finds the screen
            # taken down (NoMatches): there is nothing left to show it on.
            if self._stopping:
                return
            with contextlib.suppress(NoMatches):
                fn(*args)

        with contextlib.suppress(RuntimeError):
            self.call_from_thread(guarded)

    def _run(self) -> None:
        s = self.session
        try:
            if self.resume:
                info = s.player()
                if not info.table_id:
                    self._post(self._give_up, render.NOTHING_TO_RESUME)
                    return
                s.table_id = info.table_id
                self._post(self._set_status, render.resuming_text(s.table_id))
            else:
                fill = int(self.wait_for_humans_s * 1000) if self.wait_for_humans_s > 0 else 0
                if self.private_code and not fill:
                    fill = -1  # a private table waits for the friends: no bots
                ticket = s.enqueue(self.variant, fill, self.timers, self.bot_level,
                                   stake=self.stake, private_code=self.private_code)  # fmt: skip
                self._post(self._set_status, render.queued_text(self.variant, ticket.ticket_id))
                ticket = s.wait_seated(ticket)
                if ticket.state != M.TICKET_STATE_SEATED:
                    name = M.TicketState.Name(ticket.state)
                    self._post(self._set_status, render.ticket_ended_text(name))
                    return
            snap = s.get_table()
            # A new seat's stream starts now; a resumed one from the table's first event, so
            # the current game's earlier plays are in the log again.
            s.last_seq = 0 if self.resume else snap.seq
            self._post(self._apply_snapshot, snap)
            if snap.message.state == M.TABLE_STATE_WAITING:
                s.ready()
            self._dirty.set()
            for ev in s.events(on_state=lambda st: self._post(self._set_connection, st)):
                self._post(self._on_event, ev)
                self._dirty.set()
        except SessionClosed:
            return
        except Refused as exc:
            if exc.code == "UNAVAILABLE":
                self._post(self._give_up, render.unreachable_text(s.target))
                return
            self._post(self._say, render.reason_words(exc.reason, exc.message))

    def _give_up(self, why: str) -> None:
        """Nothing to show: exit with one line that says why (play_main prints it)."""
        self.fatal = why
        self._stopping = True
        self.exit(1, return_code=1)

    @property
    def game_id_played(self) -> str:
        """The game the exit message names: the one running, else the last one played."""
        snap = self.snap
        if snap is not None and snap.message.game_id and not self.left:
            return snap.message.game_id
        return self._players_game or self.last_game_id

    @property
    def seated(self) -> bool:
        """Whether quitting now leaves a seat to come back to."""
        return bool(self.session.table_id) and not self.left and not self.fatal

    def _poll(self) -> None:
        """The snapshot follower: one GetTable per burst of events (and every second, for
        the seats' connected flags and the deadline)."""
        s = self.session
        while not s.closed:
            self._dirty.wait(1.0)
            self._dirty.clear()
            if not s.table_id or s.closed:
                continue
            try:
                snap = s.get_table()
            except SessionClosed:
                return
            except Refused as exc:
                if exc.reason in ("NOT_SEATED", "TABLE_NOT_FOUND"):
                    self._post(self._set_status, render.NO_LONGER_SEATED)
                    self._post(self._removed)
                    gone = s.table_id
                    while not s.closed and s.table_id == gone:  # until a new queue, if one
                        # (cleared each time: a wake-up left set made this loop spin, a
                        # removed player's idle client at 60% of a core)
                        self._dirty.wait(1.0)
                        self._dirty.clear()
                continue
            self._post(self._apply_snapshot, snap)

    def _work(
        self,
        fn: Callable[[], Any],
        then: Callable[[Any], None] | None = None,
        failed: Callable[[], None] | None = None,
    ) -> None:
        """Run one call off the UI thread; a refusal is shown in words (or, with ``failed``,
        handed to it instead)."""

        def job() -> None:
            try:
                result = fn()
            except SessionClosed:
                return
            except Refused as exc:
                if failed is not None:
                    self._post(failed)
                else:
                    self._post(self._say, render.refusal_text(exc.reason, exc.message))
                return
            if then is not None:
                self._post(then, result)
            self._dirty.set()

        self.run_worker(job, thread=True, group="calls")

    async def action_quit(self) -> None:
        self.quit_seated = self.seated  # Ctrl+Q keeps the seat: the exit says how to return
        await self._stop_session()
        self.exit(0)

    async def _stop_session(self) -> None:
        self._stopping = True
        self.session.close()
        self._dirty.set()

    async def on_unmount(self) -> None:
        await self._stop_session()

    # ------------------------------------------------------------------ state -> screen
    @property
    def view(self) -> rules.SeatView | None:
        return self.snap.view if self.snap is not None else None

    @property
    def players(self) -> list[str]:
        if self.snap is None:
            return []
        return [seat.player_id for seat in self.snap.message.seats]

    def _set_status(self, text: str) -> None:
        self.status_line = text
        self._render_status()

    def _set_connection(self, state: str) -> None:
        self.connection = state
        self._render_status()

    def _render_status(self) -> None:
        conn = render.CONNECTION_WORDS.get(self.connection, self.connection)
        self.query_one("#status", Static).update(
            f"{self.session.player_id} · {self.variant} · {self.status_line} · {conn}"
        )

    def _say(self, text: str) -> None:
        self.message = text
        self.query_one("#message", Static).update(text)

    def _log_line(self, text: str) -> None:
        self.log_lines.append(text)
        self.query_one("#log", RichLog).write(text)

    def _on_event(self, ev: M.TableEvent) -> None:
        if ev.type == "game":
            g = ev.game_event
            data = json.loads(g.data_json or "{}")
            if data.get("seat") is None and g.envelope.HasField("seat"):
                data["seat"] = g.envelope.seat
            text = render.event_text(g.type, data, self.game_players or self.players)
            cause = common_cause(g.envelope.cause)
            text += render.cause_tag(g.type, cause)
            self._log_line(f"#{ev.seq} {text}")
            return
        data = json.loads(ev.data_json or "{}")
        if ev.type == "deadline":
            return
        if ev.type == "game_over":
            self._ask_player()
            self.last_game_id = str(data.get("game_id") or self.last_game_id)
            self.shown_hands = [(int(h["seat"]), list(rules.parse_cards(" ".join(h["cards"]))))
                                for h in data.get("hands") or ()]  # fmt: skip
            me = self.snap.message.seat if self.snap is not None else -1
            for seat, cards in self.shown_hands:  # the cards left, as the game ended
                if seat == me:
                    self.last_hand, self._hands_seq = cards, ev.seq
        if ev.type == "game_started":
            self.shown_hands = []
        if (ev.type == "player_left" and data.get("player_id") == self.session.player_id
                and data.get("why") == "not_ready"):  # fmt: skip
            self._removed()
        players = self.game_players or self.players
        self._log_line(f"#{ev.seq} {render.table_event_text(ev.type, data, players)}")

    def _ask_player(self) -> None:
        """GetPlayer (the running total, the title, the rating change) off the UI thread.  A
        failed ask (the matchmaker busy or away a moment) is asked again by the settlement's
        next redraw, without words: it is not the player's doing."""
        self._player_asked, self._player_asked_at = True, time.monotonic()
        self._work(self.session.player, self._set_player, self._player_failed)

    def _set_player(self, info: M.PlayerInfo) -> None:
        self.player_info = info
        self._player_asked = False
        self._render_settlement()

    def _player_failed(self) -> None:
        self._player_asked = False

    def _apply_snapshot(self, snap: Snapshot) -> None:
        if self.left:
            return  # an answer from before the seat was given up: the screen is settled
        self.snap = snap
        msg = snap.message
        hv = self.query_one("#hand", HandView)
        if msg.game_id and msg.game_id != self._players_game:
            # A new deal: nothing chosen yet.  Cleared here, by the first snapshot of the game,
            # not by the game_started event, which may come after the seat's first cards are
            # chosen and would drop them.
            hv.selected = []
            self._players_game = msg.game_id
            self._rating_asks = 0
            self.game_players = [seat.player_id for seat in msg.seats]
        self.variant = msg.variant or self.variant
        state = M.TableState.Name(msg.state).removeprefix("TABLE_STATE_").lower()
        game = f"game {msg.game_no}" if msg.game_no else "no game yet"
        self._set_status(f"table {msg.table_id} seat {msg.seat} · {game} · {state}")
        view = snap.view
        hand = list(view.hand or ()) if view is not None else []
        if view is not None and view.hand is not None and view.seat is not None:
            if snap.seq > self._hands_seq:  # not a snapshot from before the game's end
                self.last_hand = list(view.hand)
        elif msg.state == M.TABLE_STATE_WAITING and snap.settlement:
            hand = list(self.last_hand)  # the cards the seat was left holding stay in sight
        by_count = self.sort_by == "count"
        hand = list(rules.sort_by_count(hand)) if by_count else sorted(hand)  # type: ignore[arg-type]
        hv.set_cards(hand, keep=True)
        if msg.state == M.TABLE_STATE_PLAYING and self.message == render.READY_SENT:
            self._say("")  # the next game is on
        if isinstance(self.screen, ConfirmLeave):
            # The escape's price shown while the player decides is the price now; once the
            # game is over, leaving is no escape and the question is void.
            if self._game_running():
                self.screen.reprice(render.escape_warning(view))
            else:
                self.screen.dismiss(False)
        self._show_variant_keys()
        self._render_seats()
        self._render_table()
        self._render_settlement()
        self._maybe_auto_pass()

    def _show_variant_keys(self) -> None:
        """Only the buttons that fit the variant and the moment: Bid while the bidding runs
        (and only above the highest bid), Show where the landlord may show the hand."""
        v = self._variant_rules()
        view = self.view
        highest = view.bid or 0 if view is not None else 0
        bidding = view is not None and view.phase is rules.Phase.BIDDING
        for amount in (1, 2, 3):
            self.query_one(f"#b-bid{amount}", Button).display = (
                v is not None and v.bidding and bidding and amount > highest
            )
        self.query_one("#b-show", Button).display = v is not None and v.show_hand_factor > 0

    def _variant_rules(self) -> rules.Variant | None:
        if self.view is not None:
            return self.view.variant
        try:
            return rules.variant(self.variant)
        except rules.RulesError:
            return None

    def selection_changed(self) -> None:
        """Typing or clicking after a hint: the line says what Enter now plays."""
        if not self.message.startswith("hint:"):
            return
        hint = self.hint_action
        cards = self.query_one("#hand", HandView).selected_cards()
        if hint is not None and hint.WhichOneof("kind") == "play" and sorted(
                rules.parse_cards(hint.play.cards)) == sorted(cards):  # fmt: skip
            return
        self._say(render.selection_text(cards))

    def _render_seats(self) -> None:
        snap, view = self.snap, self.view
        if snap is None:
            return
        out = Text()
        players = self.players
        partners = render.partners(view)
        playing = view is not None and not view.over
        for seat in snap.message.seats:
            i = seat.seat
            turn = playing and view is not None and view.turn == i
            out.append("▶ " if turn else "  ", style="bold yellow")
            you = " (you)" if i == snap.message.seat else ""
            out.append(f"seat {i} {render.player_label(players, i)}{you}",
                       style="bold" if you else "")  # fmt: skip
            counts = view.counts if view is not None else ()
            autoplay = view is not None and i < len(view.autoplay) and view.autoplay[i]
            colours = {"landlord": "bold magenta", "online": "green", "offline": "red",
                       "autoplay": "cyan", "partner": "bold green",
                       "alarm": "bold white on red"}  # fmt: skip
            for words, kind in render.seat_words(
                bot=seat.bot, connected=seat.connected,
                cards=counts[i] if i < len(counts) and playing else None,
                landlord=view is not None and view.landlord == i,
                autoplay=seat.autoplay or autoplay,
                ready=snap.message.state == M.TABLE_STATE_WAITING and seat.ready,
                total=seat.total, partner=i in partners,
            ):  # fmt: skip
                out.append(f"  {words}", style=colours.get(kind, ""))
            shown = render.last_action_cards(seat.last_action if playing else None)
            if shown is not None:  # the trick at a glance: its play, or 不出
                out.append("   │ ", style="dim")
                if shown:
                    out.append_text(render.cards_text(shown))
                else:
                    out.append(render.PASS_MARK, style="dim italic")
            out.append("\n")
        self.query_one("#seats", Static).update(out)

    def _render_table(self) -> None:
        view = self.view
        lines = Text()
        if view is None:
            snap = self.snap
            over = snap is not None and snap.message.state == M.TABLE_STATE_WAITING
            text = render.WAITING_FOR_GAME
            if self.left:
                text = self.left
            elif over and snap is not None and snap.settlement:
                text = "game over — " + render.NEXT_GAME_KEYS
            self.query_one("#table", Static).update(text)
            return
        lines.append(f"phase: {render.phase_name(view.phase.value)}")
        if view.bid:
            lines.append(f"   highest bid {view.bid}")
        lines.append("\n")
        if view.last is not None:
            lines.append("to beat: ")
            lines.append_text(render.cards_text(render.play_order(view.last.cards)))
            lines.append(f"  — {render.pattern_name(view.last.pattern.reading)}"
                         f"  by {render.seat_name(self.players, view.last_seat)}\n")  # fmt: skip
        elif not view.over and view.phase is not rules.Phase.BIDDING:
            lines.append(render.NO_LEAD + "\n")
        if view.turn is not None and not view.over:
            who = "you" if view.to_move else render.seat_name(self.players, view.turn)
            label = "bid" if view.phase is rules.Phase.BIDDING else "turn"
            lines.append(f"{label}: {who}{self._countdown()}\n",
                         style="bold" if view.to_move else "")  # fmt: skip
        if view.bottom:
            lines.append("bottom: ")
            lines.append_text(render.cards_text(sorted(view.bottom)))
            lines.append("\n")
        if view.shown_hand:
            lines.append("shown hand 亮牌: ")
            lines.append_text(render.cards_text(view.shown_hand))
            lines.append("\n")
        if view.must_hold is not None and view.to_move:
            lines.append(render.must_hold_text(view.must_hold) + "\n")
        if view.to_move and view.phase is rules.Phase.BIDDING:
            lines.append(render.bid_prompt(view.bid or 0, view.must_bid) + "\n")
        if self.counter_on and not view.over:
            lines.append(render.counter_text(view) + "\n", style="cyan")
        if view.to_move and view.phase is rules.Phase.SHOW_HAND:
            lines.append(render.SHOW_HAND_PROMPT + "\n")
        self.query_one("#table", Static).update(lines)

    def _countdown(self) -> str:
        if self.snap is None or self.snap.deadline_s is None:
            return ""
        left = max(0.0, self.snap.deadline_s - time.time())
        return render.time_left_text(left)

    def _tick(self) -> None:
        if self.view is not None and not self.view.over:
            self._render_table()
        elif self.snap is not None and (
            self.snap.message.state == M.TABLE_STATE_WAITING or self.left
        ):
            # The start timer's countdown; and, between games or after leaving (the table
            # may have closed), the rating line still pending asks again from here.
            self._render_settlement()

    def _removed(self) -> None:
        """The table let the seat go (not ready in time): say so, offer to queue again."""
        if self.left:
            return
        self.left = render.REMOVED_TEXT
        self._say(render.REMOVED_TEXT)
        self._render_table()
        self._render_settlement()

    def _render_settlement(self) -> None:
        panel = self.query_one("#settlement", Static)
        snap = self.snap
        between = snap is not None and snap.message.state == M.TABLE_STATE_WAITING
        box = self.query_one("#settlement-box", VerticalScroll)
        if snap is None or not snap.settlement or not (between or self.left):
            panel.display = box.display = False
            return
        seat = snap.message.seat
        players = self.game_players or self.players
        lines = render.game_id_lines(self._players_game or self.last_game_id)
        lines += render.settlement_lines(snap.settlement, players)
        if self.shown_hands:  # every seat's cards left, this seat's among them
            lines += render.hands_lines(self.shown_hands, players, seat)
        else:  # a game_over from before the hands were shown (an older matchmaker)
            lines.append(render.leftover_line(self.last_hand))
        info = self.player_info
        if info is not None and info.last_game_id == self._players_game:
            family = rules.variant(self.variant).family
            lines += render.running_total_lines(info.last_score, info.totals, family)
            title = render.title_line(info.title if info.HasField("title") else None, family)
            if title:
                lines.append(title)
            lines += self._rating_lines(info)
        elif not self._player_asked and time.monotonic() - self._player_asked_at > 1.0:
            # GetPlayer answers from the game_over write: ask now (again, at most once a
            # second, while its last game is not yet this one)
            self._ask_player()
        if 0 <= seat < len(snap.message.seats):
            seats = snap.message.seats
            totals = render.series_totals_line(
                [s.player_id for s in seats], [s.total for s in seats]
            )
            lines.append(totals)
        if self.left:
            lines.append(self.left)
        else:
            lines.append(render.NEXT_GAME_KEYS)
            if snap.deadline_s is not None and snap.message.deadline_kind == "start":
                left = max(0.0, snap.deadline_s - time.time())
                ready = 0 <= seat < len(snap.message.seats) and snap.message.seats[seat].ready
                lines.append(render.start_countdown(left, ready))
        panel.update("\n".join(lines))
        # A tall screen shows the whole settlement (totals included) without scrolling; a
        # small one keeps the log in sight and scrolls the box (PgUp/PgDn).
        box.styles.max_height = "62vh" if self.size.height >= 40 else "45vh"
        panel.display = box.display = True

    def _rating_lines(self, info: M.PlayerInfo) -> list[str]:
        """The player's rating and this game's change (``info`` is GetPlayer's answer whose
        last game is this one: its change is this game's, never an earlier one's), once
        replay has rated the game; until then "rating pending", and GetPlayer is asked again
        (RATING_ASKS, RATING_LATER_S).  A game that does not count (disbanded, or without a
        score: ratings.model.teams_of) never gets a change and shows no line."""
        change = render.game_rating_change(info, self._players_game)
        if change is not None:
            return [render.rating_line(*change)]
        snap = self.snap
        if snap is None or teams_of(snap.settlement, len(snap.message.seats)) is None:
            return []
        wait = 1.0 if self._rating_asks < RATING_ASKS else RATING_LATER_S
        if not self._player_asked and time.monotonic() - self._player_asked_at > wait:
            self._rating_asks += 1
            self._ask_player()
        return [render.RATING_PENDING]

    # ------------------------------------------------------------------ input
    def on_key(self, event: events.Key) -> None:
        if isinstance(self.screen, ModalScreen):
            return
        key, ch = event.key, event.character or ""
        handled = self._handle(key, ch)
        if handled:
            event.stop()
            event.prevent_default()

    def _handle(self, key: str, ch: str) -> bool:
        view = self.view
        hv = self.query_one("#hand", HandView)
        bidding = view is not None and view.phase is rules.Phase.BIDDING
        if self.prefix:
            want, self.prefix = self.prefix, ""
            first = want[0]
            if ch.lower() == want[1]:
                rank = {"1": "T", "b": "BJ", "r": "RJ"}[first.lower()]
                self._select_rank(rank)
                return True
        if bidding and ch in ("1", "2", "3"):
            self.do_bid(int(ch))
            return True
        if bidding and ch == "0":
            self.do_pass()
            return True
        if ch == "w":
            v = self._variant_rules()
            if v is None or not v.show_hand_factor:
                self._say(render.NO_SHOW_HAND)
                return True
        if ch == "q" and self.left:
            self.do_requeue()
            return True
        if ch == "c":
            self.counter_on = not self.counter_on
            self._say(render.counter_toggled(self.counter_on))
            self._render_table()
            return True
        if ch == "o":
            self.auto_pass = not self.auto_pass
            self._say(render.auto_pass_toggled(self.auto_pass))
            self._maybe_auto_pass()
            return True
        if ch in RANK_KEYS:
            self._select_rank(RANK_KEYS[ch])
            self.selection_changed()
            return True
        if ch in PREFIX_KEYS:
            self.prefix = ch + PREFIX_KEYS[ch]
            return True
        simple: dict[str, Callable[[], None]] = {
            "enter": self.do_play, "p": self.do_pass, "h": self.do_hint, "a": self.do_auto,
            "s": self.do_sort, "w": self.do_show, "n": self.do_next, "l": self.do_leave,
        }  # fmt: skip
        name = key if key in ("enter",) else ch
        if name in simple:
            simple[name]()
            return True
        if key == "left":
            hv.cursor = max(0, hv.cursor - 1)
            hv.refresh_hand()
            return True
        if key == "right":
            hv.cursor = min(max(0, len(hv.cards) - 1), hv.cursor + 1)
            hv.refresh_hand()
            return True
        if key in ("home", "end"):
            hv.cursor = 0 if key == "home" else max(0, len(hv.cards) - 1)
            hv.refresh_hand()
            return True
        if key in ("pageup", "pagedown"):
            box = self.query_one("#settlement-box", VerticalScroll)
            (box.scroll_page_up if key == "pageup" else box.scroll_page_down)(animate=False)
            return True
        if key == "space":
            hv.toggle(hv.cursor)
            self.selection_changed()
            return True
        if key == "escape":
            self.return_selected()
            return True
        if key == "backspace":
            if hv.selected:
                hv.selected.pop()
                hv.refresh_hand()
                self.selection_changed()
            return True
        return False

    def return_selected(self) -> None:
        """Every selected card back to the hand (Esc, or a double click on the table)."""
        hv = self.query_one("#hand", HandView)
        hv.selected = []
        hv.refresh_hand()
        self._say("")

    def on_click(self, event: events.Click) -> None:
        """A double left-click on an empty part of the table (not a card, not a button)
        returns every selected card to the hand (seed 001 §4.10)."""
        if isinstance(self.screen, ModalScreen) or isinstance(event.widget, Button):
            return
        if event.button == 1 and event.chain >= 2:
            self.return_selected()

    def _maybe_auto_pass(self) -> None:
        """要不起: with the option on, pass at once (once a turn) when the seat is to follow
        and holds nothing that beats the play on the table."""
        view = self.view
        if not self.auto_pass or view is None or not view.to_move or view.last is None:
            return
        if view.phase is not rules.Phase.PLAY:
            return
        key = self._turn_key(view)
        if key == self._auto_passed:
            return
        if any(not isinstance(a, rules.Pass) for a in view.legal_actions()):
            return
        self._auto_passed = key
        self._say(render.AUTO_PASS_DONE)
        self._work(self.session.pass_)

    def _select_rank(self, rank: str) -> None:
        if not self.query_one("#hand", HandView).select_rank(rank):
            self._say(render.no_more_text(rank))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        name = (event.button.id or "").removeprefix("b-")
        actions: dict[str, Callable[[], None]] = {
            "play": self.do_play, "pass": self.do_pass, "hint": self.do_hint,
            "auto": self.do_auto, "sort": self.do_sort, "show": self.do_show,
            "next": self.do_next, "leave": self.do_leave,
            "bid1": lambda: self.do_bid(1), "bid2": lambda: self.do_bid(2),
            "bid3": lambda: self.do_bid(3),
        }  # fmt: skip
        if name in actions:
            actions[name]()

    # ------------------------------------------------------------------ commands
    def _after_act(self, response: M.ActResponse) -> None:
        self._say("")

    def do_play(self) -> None:
        view = self.view
        if view is None or view.over:
            return
        if view.phase is rules.Phase.BIDDING:
            if self.hint_action is not None and self.hint_action.WhichOneof("kind"):
                action = engine_pb2.Action()
                action.CopyFrom(self.hint_action)
                self._work(lambda: self.session.act(action), self._after_act)
            else:
                self._say(render.BID_KEYS)
            return
        cards = self.query_one("#hand", HandView).selected_cards()
        hint = self._hint_this_turn(view)
        if not cards:
            if hint is not None and hint.WhichOneof("kind") == "pass":
                self.do_pass()  # "hint: pass — press Enter or p": Enter takes it, as a play's
                return
            self._say(render.SELECT_FIRST)
            return
        text = rules.format_cards(cards)

        def done(response: M.ActResponse) -> None:
            self.query_one("#hand", HandView).selected = []
            self._say("")

        def send(reading: str | None) -> None:
            if reading is None:
                self._say(render.NOT_PLAYED)
                return
            self._work(lambda: self.session.play(text, reading), done)

        choices = play_readings(view, cards)
        if (len(choices) > 1 and hint is not None and hint.WhichOneof("kind") == "play"
                and hint.play.reading in choices
                and sorted(rules.parse_cards(hint.play.cards)) == sorted(cards)):  # fmt: skip
            send(hint.play.reading)  # the hint this turn named its reading: play it as shown
        elif len(choices) > 1:
            self.push_screen(ChooseReading(cards, choices), send)
        else:
            send("")

    def do_pass(self) -> None:
        self._work(self.session.pass_, self._after_act)

    def do_bid(self, amount: int) -> None:
        self._work(lambda: self.session.bid(amount), self._after_act)

    def do_show(self) -> None:
        self._work(self.session.show_hand, self._after_act)

    def do_auto(self) -> None:
        snap = self.snap
        if snap is None or not snap.message.seats:
            return
        on = not snap.message.seats[snap.message.seat].autoplay
        self._say(render.autoplay_text(on) + "…")
        self._work(lambda: self.session.autoplay(on), self._after_act)

    def do_sort(self) -> None:
        self.sort_by = "count" if self.sort_by == "rank" else "rank"
        self._say(render.sorted_text(self.sort_by))
        if self.snap is not None:
            self._apply_snapshot(self.snap)

    def _turn_key(self, view: rules.SeatView) -> tuple[str, int]:
        """This turn: the game and the actions so far (a hint or an auto-pass is for one)."""
        return (self.snap.message.game_id if self.snap else "", len(view.history))

    def _hint_this_turn(self, view: rules.SeatView) -> engine_pb2.Action | None:
        """The hint asked on this very turn, if any (an older one no longer fits)."""
        return self.hint_action if self.hint_key == self._turn_key(view) else None

    def do_hint(self) -> None:
        view = self.view
        if view is None or not view.to_move:
            self._say(render.NO_HINT_NOT_YOUR_TURN)
            return
        key = self._turn_key(view)
        if key == self.hint_key and self.hint_action is not None:
            self._show_hint(self.hint_action)  # the same suggestion again this turn
            return

        def got(action: engine_pb2.Action | None) -> None:
            self.hint_key = key
            self.hint_action = action
            self._show_hint(action)

        self._work(self.session.hint, got)

    def _show_hint(self, action: engine_pb2.Action | None) -> None:
        if action is None:
            self._say(render.NO_HINT)
            return
        kind = action.WhichOneof("kind")
        if kind == "play":
            cards = rules.parse_cards(action.play.cards)
            self.query_one("#hand", HandView).select_cards(tuple(cards))
            view, named = self.view, ""
            if action.play.reading and view is not None and len(play_readings(view, cards)) > 1:
                named = action.play.reading  # it reads several ways: say which
            self._say(render.hint_play_text(cards, named))
        elif kind == "bid":
            self._say(render.hint_bid_text(action.bid))
        elif kind == "pass":
            self._say(render.HINT_PASS)
        else:
            self._say(f"hint: {kind}")

    def do_next(self) -> None:
        snap = self.snap
        if snap is None or snap.message.state != M.TABLE_STATE_WAITING:
            return
        if self.left:
            return
        self._say(render.READY_SENT)
        self._work(self.session.ready, self._apply_snapshot)

    def _game_running(self) -> bool:
        """Whether leaving now is an escape: a game of this seat's is on and not over."""
        view = self.view
        return (self.snap is not None and self.snap.message.state == M.TABLE_STATE_PLAYING
                and view is not None and not view.over)  # fmt: skip

    def do_leave(self) -> None:
        view = self.view
        if not self._game_running():
            self._work(self.session.leave, lambda _snap: self._exit_after_leave())
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self._work(self.session.leave, self._left)

        self.push_screen(ConfirmLeave(render.escape_warning(view)), answered)

    def _exit_after_leave(self) -> None:
        self._stopping = True  # the workers' late answers have no screen to go to
        self.quit_seated = False
        self.exit(0)

    def _left(self, snap: Snapshot) -> None:
        """The seat is given up (escape): the table shows the settlement and stays so — the
        snapshots still on their way are from before."""
        self._say(render.escape_left_text())
        self.snap = snap
        self.left = render.LEFT_TEXT
        self._render_seats()
        self._render_table()
        self._render_settlement()

    def do_requeue(self) -> None:
        """After leaving or being removed: a new ticket for the same variant."""
        if not self.left:
            return
        self.left, self.snap, self.resume = "", None, False
        self.game_players, self._players_game, self.last_hand = [], "", []
        self.shown_hands, self._hands_seq = [], 0  # a new table counts its seqs anew
        self.session.table_id, self.session.last_seq = "", 0
        self.query_one("#hand", HandView).set_cards([])
        self.query_one("#settlement-box", VerticalScroll).display = False
        self._say("")
        self._render_table()
        self.run_worker(self._run, thread=True, name="stream", group="session")


def play_readings(view: rules.SeatView, cards: Sequence[int]) -> list[str]:
    """The readings the seat may mean by playing ``cards`` now (``kind:RANK``): every reading
    on a lead, those that beat the play on the table on a follow.  More than one and the
    player names one (RULES.md §3: it decides what the next seat must beat); none and the
    engine's refusal says why."""
    try:
        found = rules.readings(view.variant, cards)
    except rules.RulesError:
        return []
    if view.last is not None:
        last = view.last.pattern
        found = [p for p in found if rules.beats(p, last)]
    return [p.reading for p in found]


def common_cause(cause: int) -> str:
    from services.common.wire import common_pb2

    name: str = common_pb2.Cause.Name(cause)
    return name.removeprefix("CAUSE_").lower()


def play_main(args: argparse.Namespace) -> int:
    import os

    from services.common.console import fail

    name = f"guest-{uuid.uuid4().hex[:6]}" if args.name is None else args.name
    if not name.strip() or len(name) > 128 or not name.isprintable():
        return fail("play", "--name must be 1–128 printable characters")
    if args.wait_for_humans < 0:
        return fail("play", "--wait-for-humans must be ≥ 0 seconds")
    token = os.environ.get("CARDROOM_MATCHMAKER_TOKEN", "")
    session = Session(args.matchmaker or default_target(), name, token)
    app = PlayApp(
        session,
        args.variant or "doudizhu3",
        wait_for_humans_s=args.wait_for_humans,
        resume=args.resume,
        bot_level=args.bot_level or "",
        stake=args.stake or 0,
        private_code=args.private_code or "",
        auto_pass=args.auto_pass,
        ask=args.variant is None,
    )
    try:
        app.run()
    finally:
        session.shutdown()
    if app.fatal:
        return fail("play", app.fatal, 1)
    if app.return_code == 0 and (app.quit_seated or app.game_id_played):
        print(render.goodbye_text(name, app.quit_seated, app.game_id_played))
    return app.return_code or 0
