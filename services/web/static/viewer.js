// The replay viewer: /games/<game id>[?seat=S] — every event of a stored game with its
// envelope, the hands (face up once ended, or one seat's view), the settlement with every
// step, an escape's audit beside it, and VerifyGame's answer at the top.
import { cardRow } from "/static/cards.js";

const $ = (sel) => document.querySelector(sel);
const V = { lang: localStorage.getItem("cardroom.lang") || "zh", words: {}, game: null, index: 0 };
window.__viewer = V;
const w = (key) => V.words[key] ?? key;
const gameId = decodeURIComponent(location.pathname.split("/").pop());
const seat = new URLSearchParams(location.search).get("seat");

async function loadWords() {
  V.words = await (await fetch(`/words/${V.lang}.json`)).json();
  document.documentElement.lang = V.lang === "zh" ? "zh" : "en";
  for (const el of document.querySelectorAll("[data-w]")) el.textContent = w(el.dataset.w);
  if (V.game) show();
}

async function load() {
  const q = seat !== null && seat !== "" ? `?seat=${encodeURIComponent(seat)}` : "";
  const r = await fetch(`/api/games/${encodeURIComponent(gameId)}${q}`);
  const body = await r.json();
  if (!r.ok) {
    const err = $("#error");
    err.hidden = false;
    err.textContent = `${body.message} (${body.reason})`;
    $("#controls").hidden = true;
    $("#event").hidden = true;
    $("#step-seats").hidden = true;
    return;
  }
  V.game = body;
  const g = body;
  $("#game-title").textContent = `${g.game_id} · ${g.variant} · ${g.status} · ${g.players.join(", ")}`;
  const verify = $("#verify");
  verify.hidden = false;
  verify.dataset.ok = g.verify.ok ? "true" : "false";
  const v = g.verify;
  verify.textContent = v.ok
    ? `✓ ${w("verified")} (${v.events})`
    : `✗ ${w("not_verified")}: ${v.reason} — ${v.detail} (chain ${v.chain_ok ? "✓" : "✗"}, re-execution ${v.replay_ok ? "✓" : "✗"}, event ${v.first_bad_seq})`;
  const select = $("#seat-view");
  g.players.forEach((p, i) => select.append(new Option(`${i} ${p}`, String(i))));
  select.value = g.seat === null ? "" : String(g.seat);
  select.addEventListener("change", () => {
    location.search = select.value === "" ? "" : `?seat=${select.value}`;
  });
  $("#settlement-lines").textContent = g.settlement_lines.join("\n");
  $("#audit-lines").textContent = g.audit_lines.join("\n");
  show();
}

function show() {
  const g = V.game;
  const step = g.steps[V.index];
  $("#position").textContent = `${V.index + 1} / ${g.steps.length}`;
  $("#prev").disabled = V.index === 0;
  $("#next").disabled = V.index >= g.steps.length - 1;
  if (!step) return;
  const ev = $("#event");
  ev.dataset.seq = step.seq;
  ev.dataset.type = step.type;
  $("#event-say").textContent = step.say[V.lang] ?? step.say.en;
  $("#event-envelope").textContent = step.envelope;
  const seats = $("#step-seats");
  seats.replaceChildren();
  for (const s of step.seats) {
    const row = document.createElement("div");
    const mark = s.turn ? "▶ " : "";
    row.append(`${mark}${s.name}${s.landlord ? " · " + w("landlord") : ""} · ${s.count} `);
    if (s.cards) row.append(cardRow(s.cards));
    seats.append(row);
  }
  if (step.to_beat) {
    const row = document.createElement("div");
    row.append(`${w("to_beat")}: `, cardRow(step.to_beat.cards), ` ${step.to_beat.say[V.lang]} — ${g.players[step.to_beat.seat] ?? ""}`);
    seats.append(row);
  }
  if (step.bottom) {
    const row = document.createElement("div");
    row.append(`${w("bottom")}: `, cardRow(step.bottom));
    seats.append(row);
  }
  const last = V.index === g.steps.length - 1;
  $("#settlement-panel").hidden = !(last && g.settlement_lines.length);
  $("#audit-panel").hidden = !(last && g.audit_lines.length);
}

function go(delta) {
  if (!V.game) return;
  V.index = Math.max(0, Math.min(V.game.steps.length - 1, V.index + delta));
  show();
}

$("#prev").addEventListener("click", () => go(-1));
$("#next").addEventListener("click", () => go(1));
document.addEventListener("keydown", (e) => {
  if (e.target.closest("select, input")) return;
  if (e.key === "ArrowRight" || e.key === " ") { go(1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { go(-1); e.preventDefault(); }
  else if (e.key === "Home") { go(-Infinity); e.preventDefault(); }
  else if (e.key === "End") { go(Infinity); e.preventDefault(); }
});
$("#lang").addEventListener("click", () => {
  V.lang = V.lang === "zh" ? "en" : "zh";
  localStorage.setItem("cardroom.lang", V.lang);
  loadWords();
});
await loadWords();
await load();
