// The web table: a lobby, the table and the hand, driven by one WebSocket to the back end
// (services/web/relay.py).  Every sentence comes from the server (render.py) — the word table
// at /words/<lang>.json for labels, a "say" per event and answer for everything else.
import { byCount, byRank, cardElement, cardRow, rankOf } from "/static/cards.js";

const $ = (sel) => document.querySelector(sel);
const S = {
  lang: localStorage.getItem("cardroom.lang") || "zh",
  words: {},
  ws: null,
  lastSeq: 0,
  snap: null,
  hand: [],          // the hand as shown (sorted)
  selected: new Set(), // indices into S.hand
  hintPass: null,    // the snapshot seq of a turn whose hint was to pass
  sortMode: "rank",
  lastAction: {},    // seat -> "pass" | [cards] in the current trick
  players: [],
  names: [],
  lastGameId: "",
  endHands: null,
  playerLines: {},
  rating: null,
  title: {},
  nextId: 1,
  pending: new Map(),
  playing: false,    // a command is on its way: the round trip is measured
  moves: [],         // round trips in ms (click to the table updated)
  moveStart: 0,
  connected: false,
  backoff: 250,
  left: false,
};
window.__cardroom = S; // for tests and automation: the page's state, read-only by contract

const w = (key, vars = {}) => {
  let text = S.words[key] ?? key;
  for (const [k, v] of Object.entries(vars)) text = text.replace(`{${k}}`, v);
  return text;
};
const say = (obj) => (obj ? obj[S.lang] ?? obj.en ?? "" : "");

// ------------------------------------------------------------------ words and language
async function loadWords() {
  const r = await fetch(`/words/${S.lang}.json`);
  S.words = await r.json();
  document.documentElement.lang = S.lang === "zh" ? "zh" : "en";
  for (const el of document.querySelectorAll("[data-w]")) el.textContent = w(el.dataset.w);
  for (const n of [1, 2, 3]) document.querySelector(`[data-testid=bid-${n}]`).textContent = w("bid", { n });
  render();
}

// ------------------------------------------------------------------ the socket
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  S.ws = ws;
  ws.onopen = () => {
    S.connected = true;
    S.backoff = 250;
    send({ op: "hello", after_seq: S.lastSeq });
    showConn("connected");
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    S.connected = false;
    showConn("reconnecting");
    setTimeout(connect, S.backoff);
    S.backoff = Math.min(4000, S.backoff * 2);
  };
}

function send(msg) {
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN) return null;
  const id = S.nextId++;
  S.ws.send(JSON.stringify({ id, ...msg }));
  S.pending.set(id, msg);
  return id;
}

function showConn(state) {
  $("#conn").textContent = w(state);
  $("#conn").dataset.state = state;
}

function onMessage(m) {
  switch (m.t) {
    case "hello":
      $("#me").textContent = m.player;
      if (!m.table_id && !S.snap) showLobby();
      break;
    case "conn":
      showConn(m.state);
      break;
    case "queued":
      message(m.say);
      break;
    case "status":
      message(m.say);
      break;
    case "event":
      onEvent(m);
      break;
    case "snapshot":
      onSnapshot(m);
      break;
    case "player":
      S.playerLines = m.lines;
      S.title = m.title;
      S.rating = m.rating;
      renderSettlement();
      break;
    case "gone":
      if (!S.left) showGone(m.reason === "NOT_SEATED" ? w("removed") : w("left_table"));
      break;
    case "answer":
      onAnswer(m);
      break;
  }
}

// ------------------------------------------------------------------ the stream
function onEvent(m) {
  S.lastSeq = Math.max(S.lastSeq, m.seq);
  const line = document.createElement("li");
  line.textContent = `#${m.seq} ${say(m.say)}`;
  $("#log").prepend(line);
  if (m.type === "game_started") {
    S.lastAction = {};
    S.endHands = null;
    S.players = m.data.players || S.players;
    S.names = m.names || S.names;
  } else if (m.type === "game_over") {
    S.lastGameId = m.data.game_id || S.lastGameId;
    if (m.data.hands) S.endHands = m.data.hands;
    // The totals and the rating of the game before are not this game's: GetPlayer's answer
    // (asked by the back end at this game_over) brings this game's.
    S.playerLines = {};
    S.rating = null;
    // The table's snapshot may come first (an escape closes the table): the box it opened
    // gets the game's id and every seat's cards now.
    renderSettlement();
  } else if (m.type === "game") {
    const g = m.game;
    const seat = g.data.seat;
    if (g.type === "play") S.lastAction[seat] = g.data.cards;
    else if (g.type === "pass" && S.snap?.view?.phase === "play") S.lastAction[seat] = "pass";
    else if (g.type === "new_trick" || g.type === "deal") S.lastAction = {};
    if (g.type === "play" || g.type === "pass") message(null);
  }
}

function onSnapshot(m) {
  const old = S.snap;
  S.snap = m;  // (the resume point stays the last event seen: a snapshot skips none)
  if (m.left) S.left = true;
  const hand = m.view?.hand ?? [];
  // A new deal starts with nothing chosen (cards picked in the last game's hand stay out of
  // it); the same game keeps the cards chosen that the hand still holds.
  const sameGame = !old || !m.game_id || old.game_id === m.game_id;
  const chosen = sameGame ? [...S.selected].map((i) => S.hand[i]).filter(Boolean) : [];
  S.hand = S.sortMode === "rank" ? byRank(hand) : byCount(hand);
  S.selected = new Set();
  for (const c of chosen) {
    const i = S.hand.findIndex((h, j) => h === c && !S.selected.has(j));
    if (i >= 0) S.selected.add(i);
  }
  for (const seat of m.seats) if (seat.last_action !== undefined) S.lastAction[seat.seat] = seat.last_action;
  if (S.playing && old && m.seq !== old.seq) {
    S.moves.push(performance.now() - S.moveStart);
    S.playing = false;
  }
  // "Ready — waiting for the others" is over once the next game is on (nothing else clears
  // it before the first play: the bidding would read under it).
  if (m.state === "playing" && $("#message").textContent === w("ready_sent")) message(null);
  // The escape's price shown while the player decides is the price now; once the game is
  // over, leaving is no escape and the question is void.
  if (!$("#confirm").hidden) {
    if (running() && m.escape) fillConfirm();
    else $("#confirm").hidden = true;
  }
  if (!S.left) showTable();
  render();
}

function onAnswer(m) {
  const sent = S.pending.get(m.id);
  S.pending.delete(m.id);
  if (!sent) return;
  if (!m.ok) {
    S.playing = false;
    message(`${w("refused")}${say(m.say)}`, true);
    return;
  }
  if (sent.op === "hint") applyHint(m);
  if (sent.op === "leave") showGone(w("left_table"));
  // (Not once the next game is on: the last Ready starts it, and its first snapshot may
  // come before this answer.)
  if (sent.op === "ready" && S.snap?.state !== "playing") message(w("ready_sent"));
  if (sent.op === "play") {
    S.selected = new Set();
    renderHand();
  }
}

// ------------------------------------------------------------------ screens
function showLobby() {
  $("#lobby").hidden = false;
  $("#table").hidden = true;
  $("#gone").hidden = true;
}
function showTable() {
  $("#lobby").hidden = true;
  $("#table").hidden = false;
  $("#gone").hidden = true;
}
// The seat is given up (left, or removed): say so and offer a new table; the last
// settlement (an escape's too) stays on the table below.
function showGone(text) {
  S.left = true;
  $("#gone-text").textContent = text;
  $("#gone").hidden = false;
  $("#lobby").hidden = false;
  render();
}

function message(text, refusal = false) {
  const el = $("#message");
  el.textContent = text || "";
  el.classList.toggle("refusal", refusal);
}

// ------------------------------------------------------------------ drawing the table
const mySeat = () => S.snap?.seat ?? -1;

// The name the table shows for seat i ("Bot 1 (hard)" for a bot: the back end's render
// words): the seat's own while the game's player still sits there, else the game's player's
// (a bot may have taken an escaper's seat since the game began).
function seatLabel(i) {
  const seat = S.snap?.seats?.[i];
  const player = S.players?.[i];
  if (seat && (!player || player === seat.player_id)) return seat.name ?? seat.player_id;
  return S.names?.[i] ?? player ?? `${i}`;
}
const view = () => S.snap?.view ?? null;
const running = () => S.snap?.state === "playing" && view() && view().status === "running";
const myTurn = () => running() && view().turn === mySeat();

function render() {
  if (!S.snap) return;
  renderSeats();
  renderCenter();
  renderControls();
  renderHand();
  renderSettlement();
}

function seatOrder() {
  const n = S.snap.seats.length;
  const me = Math.max(0, mySeat());
  return Array.from({ length: n }, (_, k) => (me + 1 + k) % n);
}

function renderSeats() {
  const box = $("#seats");
  box.replaceChildren();
  const v = view();
  for (const i of seatOrder()) {
    const seat = S.snap.seats[i];
    const el = document.createElement("div");
    el.className = "seat" + (i === mySeat() ? " mine" : "") + (v && v.turn === i && running() ? " to-move" : "");
    el.dataset.testid = "seat";
    el.dataset.seat = i;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = (i === mySeat() ? `${w("you")} · ` : "") + (seat.name ?? seat.player_id);
    el.append(name);
    const facts = [];
    const count = v?.counts?.[i];
    if (count !== undefined && running()) facts.push(w("cards_n", { n: count }));
    if (v && v.landlord === i) facts.push(`<b class="landlord">${w("landlord")}</b>`);
    facts.push(seat.bot ? w("bot") : (seat.connected ? w("online") : `<span class="offline">${w("offline")}</span>`));
    if (seat.autoplay) facts.push(`<span class="autoplay">${w("autoplay")}</span>`);
    if (seat.ready && S.snap.state === "waiting") facts.push(w("ready"));
    facts.push(w("total", { n: (seat.total >= 0 ? "+" : "") + seat.total }));
    const f = document.createElement("div");
    f.className = "facts";
    f.innerHTML = facts.join(" · ");
    el.append(f);
    if (running() && (count === 1 || count === 2)) {
      const warn = document.createElement("div");
      warn.className = "alarm";
      warn.textContent = w(count === 1 ? "single_left" : "pair_left");
      el.append(warn);
    }
    const last = S.lastAction[i];
    const act = document.createElement("div");
    act.className = "last";
    if (running() && last === "pass") act.textContent = w("passed");
    else if (running() && Array.isArray(last)) act.append(cardRow(last));
    el.append(act);
    box.append(el);
  }
}

let countdownTimer = null;
function renderCenter() {
  const v = view();
  const turn = $("#turn");
  const mine = myTurn();
  turn.dataset.mine = mine ? "true" : "false";
  clearInterval(countdownTimer);
  const tick = () => {
    const left = S.snap.deadline_ms ? Math.max(0, (S.snap.deadline_ms - Date.now()) / 1000) : null;
    let text = "";
    if (running()) {
      const who = seatLabel(v.turn);
      text = mine ? w("your_turn") : w("turn_of", { who });
      text += ` · ${w("phase:" + v.phase)}`;
      if (left !== null) text += ` · ${left.toFixed(0)} s`;
    } else if (S.snap.state === "waiting") {
      text = w("waiting_game");
    }
    turn.textContent = text;
    renderStartTimer(left);
  };
  tick();
  countdownTimer = setInterval(tick, 500);
  const beat = $("#to-beat");
  beat.replaceChildren();
  if (running() && v.last_play && v.last_play.length) {
    const who = seatLabel(v.last_seat);
    beat.append(`${w("to_beat")}: `, cardRow(v.last_play, false), ` ${say(S.snap.to_beat)} — ${who}`);
  }
  const bottom = $("#bottom");
  bottom.replaceChildren();
  if (v && v.bottom && v.bottom.length && running()) bottom.append(`${w("bottom")}: `, cardRow(v.bottom));
  const shown = $("#shown");
  shown.replaceChildren();
  if (v && v.shown_hand && v.shown_hand.length && running()) shown.append(`${w("shown_hand")}: `, cardRow(v.shown_hand));
}

function control(testid) {
  return document.querySelector(`[data-testid=${testid}]`);
}

function renderControls() {
  const v = view();
  const mine = myTurn();
  const phase = running() ? v.phase : "";
  const bidding = phase === "bidding";
  for (const n of [1, 2, 3]) {
    const b = control(`bid-${n}`);
    b.hidden = !(bidding && mine);
    b.disabled = !(v && n > v.bid);
  }
  control("bid-pass").hidden = !(bidding && mine) || (v && v.must_bid);
  control("show-hand").hidden = !(phase === "show_hand" && mine);
  const inPlay = phase === "play";
  control("play").hidden = !inPlay;
  control("pass").hidden = !inPlay;
  control("play").disabled = !mine;
  const leads = !v || !v.last_play || !v.last_play.length || v.last_seat === mySeat();
  control("pass").disabled = !mine || leads;
  control("hint").hidden = !(inPlay || bidding);
  control("hint").disabled = !mine;
  const auto = running() && v.autoplay && v.autoplay[mySeat()];
  const ap = control("autoplay");
  ap.hidden = !running();
  ap.dataset.on = auto ? "true" : "false";
  ap.textContent = auto ? w("autoplay_off") : w("autoplay");
  $("#sort").textContent = S.sortMode === "rank" ? w("sort_count") : w("sort_rank");
  control("leave").hidden = S.snap.state === "closed" || S.left;
}

function renderHand() {
  const box = $("#hand");
  box.replaceChildren();
  if (!S.snap) return;
  S.hand.forEach((card, i) => {
    const el = cardElement(card);
    el.dataset.testid = "card";
    el.dataset.card = card;
    el.dataset.index = i;
    el.dataset.selected = S.selected.has(i) ? "true" : "false";
    box.append(el);
  });
}

function renderStartTimer(left) {
  const el = $("#start-timer");
  if (!(S.snap.state === "waiting" && S.snap.deadline_kind === "start" && left !== null)) {
    el.textContent = "";
    return;
  }
  const mine = S.snap.seats[mySeat()];
  const s = left.toFixed(0);
  el.textContent = mine?.ready ? w("ready_wait", { s }) : w(left <= 10 ? "start_warning" : "start_in", { s });
  el.classList.toggle("warning", !mine?.ready && left <= 10);
}

function renderSettlement() {
  const box = $("#settlement");
  if (!S.snap) return;
  const show = S.snap.state !== "playing" && S.snap.settlement && Object.keys(S.snap.settlement).length > 0;
  box.hidden = !show;
  if (!show) return;
  box.dataset.gameId = S.lastGameId || S.snap.game_id;
  $("#settlement-lines").textContent = (say(S.snap.settlement_lines) || []).join("\n");
  const hands = $("#end-hands");
  hands.replaceChildren();
  const endHands = S.endHands;
  if (endHands) {
    const h = document.createElement("h3");
    h.textContent = w("hands_at_end");
    hands.append(h);
    for (const { seat, cards } of endHands) {
      const row = document.createElement("div");
      row.className = "end-hand";
      row.dataset.seat = seat;
      const name = seatLabel(seat);
      row.append(`${name}: `, cards.length ? cardRow(cards) : "—");
      hands.append(row);
    }
  }
  $("#player-lines").textContent = [...(say(S.playerLines) || []), say(S.rating), say(S.title)].filter(Boolean).join("\n");
  const mine = S.snap.seats[mySeat()];
  $("#next-game").hidden = S.snap.state !== "waiting" || S.left;
  $("#next-game").disabled = Boolean(mine?.ready);
  $("#settle-leave").hidden = S.left;
}

// ------------------------------------------------------------------ actions
function selectedCards() {
  return [...S.selected].sort((a, b) => a - b).map((i) => S.hand[i]);
}

function startMove() {
  S.playing = true;
  S.moveStart = performance.now();
}

function play() {
  const cards = selectedCards();
  if (!cards.length && S.hintPass === S.snap?.seq) {
    pass();  // the hint of this very turn was to pass: Play with nothing chosen takes it
    return;
  }
  if (!cards.length) {
    message(w("nothing_selected"), true);
    return;
  }
  startMove();
  send({ op: "play", cards });
}

function pass() {
  startMove();
  send({ op: "pass" });
}

function applyHint(m) {
  if (!m.hint) {
    message(w("no_hint"));
    return;
  }
  if (m.hint === "bid") {
    message(w("hint_bid", { n: m.bid }));
    return;
  }
  if (m.hint !== "play") {
    S.hintPass = S.snap.seq;  // this turn's (a new snapshot is another turn)
    message(w("hint_pass"));
    return;
  }
  S.selected = new Set();
  for (const c of m.cards) {
    const i = S.hand.findIndex((h, j) => h === c && !S.selected.has(j));
    if (i >= 0) S.selected.add(i);
  }
  message(`${w("hint")}: ${m.cards.join(" ")}${m.reading ? " · " + m.reading : ""}`);
  renderHand();
}

function leave() {
  if (running() && S.snap.escape) {
    fillConfirm();
    $("#confirm").hidden = false;
    return;
  }
  send({ op: "leave" });
}

// What leaving costs now, from the latest snapshot: filled when Leave is clicked and again
// at every snapshot while the question is open (a bid or a bomb meanwhile raises it).
function fillConfirm() {
  const escape = S.snap.escape;
  $("#confirm-text").textContent = w("escape_named", { n: escape.penalty });
  const steps = $("#confirm-steps");
  steps.replaceChildren(...escape.steps[S.lang].map((s) => Object.assign(document.createElement("li"), { textContent: s })));
}

const ops = {
  hint: () => send({ op: "hint" }),
  play,
  pass,
  bid: (el) => { startMove(); send({ op: "bid", bid: Number(el.dataset.bid) }); },
  bidpass: () => pass(),
  show_hand: () => { startMove(); send({ op: "show_hand" }); },
  autoplay: (el) => send({ op: "autoplay", on: el.dataset.on !== "true" }),
  sort: () => {
    S.sortMode = S.sortMode === "rank" ? "count" : "rank";
    const chosen = selectedCards();
    S.hand = S.sortMode === "rank" ? byRank(S.hand) : byCount(S.hand);
    S.selected = new Set();
    for (const c of chosen) {
      const i = S.hand.findIndex((h, j) => h === c && !S.selected.has(j));
      if (i >= 0) S.selected.add(i);
    }
    render();
  },
  leave,
};

// ------------------------------------------------------------------ pointer gestures
// Click toggles a card; a drag across cards selects (or clears) the run; right-click plays
// the selection; a double-click on the table outside the hand's cards and the controls
// returns every selected card (seed 001 §4.10).
let drag = null;
function cardIndex(target) {
  const el = target.closest?.("[data-testid=card]");
  return el ? Number(el.dataset.index) : null;
}
function setSelected(i, on) {
  if (on) S.selected.add(i);
  else S.selected.delete(i);
  const el = document.querySelector(`#hand [data-index="${i}"]`);
  if (el) el.dataset.selected = on ? "true" : "false";
}
function wireGestures() {
  const hand = $("#hand");
  hand.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    const i = cardIndex(e.target);
    if (i === null) return;
    e.preventDefault();
    drag = { on: !S.selected.has(i), seen: new Set([i]) };
    setSelected(i, drag.on);
  });
  hand.addEventListener("pointerover", (e) => {
    if (!drag) return;
    const i = cardIndex(e.target);
    if (i === null || drag.seen.has(i)) return;
    drag.seen.add(i);
    setSelected(i, drag.on);
  });
  // A touch drag: the pointer stays captured by the first card, so follow the point.
  hand.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerType === "mouse") return;
    const el = document.elementFromPoint(e.clientX, e.clientY);
    const i = el ? cardIndex(el) : null;
    if (i === null || drag.seen.has(i)) return;
    drag.seen.add(i);
    setSelected(i, drag.on);
  });
  window.addEventListener("pointerup", () => { drag = null; });
  const table = $("#table");
  table.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    if (myTurn() && view().phase === "play") play();
  });
  table.addEventListener("dblclick", (e) => {
    if (e.target.closest("[data-testid=card], #controls, button, #settlement, #confirm")) return;
    S.selected = new Set();
    renderHand();
  });
  $("#controls").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-op]");
    if (b && !b.disabled) ops[b.dataset.op](b);
  });
}

// ------------------------------------------------------------------ keys (the terminal client's)
let prevKey = "";
function selectRank(rank) {
  for (let i = 0; i < S.hand.length; i++) {
    if (rankOf(S.hand[i]) === rank && !S.selected.has(i)) {
      setSelected(i, true);
      return;
    }
  }
}
function onKey(e) {
  if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (!S.snap || $("#table").hidden) return;
  const k = e.key;
  const phase = running() ? view().phase : "";
  let handled = true;
  if (k === "Enter") play();
  else if (k === "Escape") { S.selected = new Set(); renderHand(); $("#confirm").hidden = true; }
  else if (k === "p") pass();
  else if (k === "h") ops.hint();
  else if (k === "a") ops.autoplay(control("autoplay"));
  else if (k === "s") ops.sort();
  else if (k === "w") ops.show_hand();
  else if (k === "n") send({ op: "ready" });
  else if (k === "l") leave();
  else if (phase === "bidding" && "0123".includes(k)) {
    if (k === "0") pass();
    else { startMove(); send({ op: "bid", bid: Number(k) }); }
  } else if (k === "j" && (prevKey === "b" || prevKey === "r")) {
    selectRank(prevKey === "b" ? "BJ" : "RJ");
  } else if (k === "0" && prevKey === "1") selectRank("T");
  else if ("3456789".includes(k) && k.length === 1) selectRank(k);
  else if (k === "t") selectRank("T");
  else if (k === "A") selectRank("A");
  else if (k === "2") selectRank("2");
  else if ("jqk".includes(k) && k.length === 1) selectRank(k.toUpperCase());
  else handled = k === "b" || k === "r" || k === "1";
  prevKey = k;
  if (handled) e.preventDefault();
}

// ------------------------------------------------------------------ lobby, name, language
function wireForms() {
  $("#start").addEventListener("click", () => {
    S.left = false;
    S.lastSeq = 0;
    S.snap = null;
    $("#log").replaceChildren();
    message(w("finding"));
    send({
      op: "start",
      variant: $("#variant").value,
      bot_level: $("#level").value,
      stake: Number($("#stake").value) || 1,
      private_code: $("#code").value.trim(),
      wait_s: Number($("#wait").value) || 0,
    });
    $("#gone").hidden = true;
  });
  $("#again").addEventListener("click", () => $("#start").click());
  $("#next-game").addEventListener("click", () => send({ op: "ready" }));
  $("#settle-leave").addEventListener("click", () => send({ op: "leave" }));
  $("#confirm-yes").addEventListener("click", () => { $("#confirm").hidden = true; send({ op: "leave" }); });
  $("#confirm-no").addEventListener("click", () => { $("#confirm").hidden = true; });
  $("#lang").addEventListener("click", () => {
    S.lang = S.lang === "zh" ? "en" : "zh";
    localStorage.setItem("cardroom.lang", S.lang);
    loadWords();
  });
  $("#name-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const r = await fetch("/api/name", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: $("#name-input").value }),
    });
    const body = await r.json();
    if (!r.ok) { message(body.message, true); return; }
    location.reload();
  });
}

wireGestures();
wireForms();
document.addEventListener("keydown", onKey);
await loadWords();
connect();
