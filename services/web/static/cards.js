// Cards in the browser: drawing (CSS, no images) and ordering.  Cards arrive as plain strings
// in RULES.md §1 notation ("3s", "Th", "BJ"); the rank order is RULES.md §1's.
export const RANKS = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ"];
const SUITS = { s: "♠", h: "♥", c: "♣", d: "♦" };
const SUIT_ORDER = "shcd";

export function rankOf(card) {
  return card === "BJ" || card === "RJ" ? card : card.slice(0, -1).toUpperCase();
}
export function rankIndex(card) {
  return RANKS.indexOf(rankOf(card));
}
export function label(card) {
  if (card === "BJ" || card === "RJ") return card;
  const r = rankOf(card);
  return (r === "T" ? "10" : r) + SUITS[card.slice(-1).toLowerCase()];
}
export function isRed(card) {
  return card === "RJ" || "hd".includes(card.slice(-1).toLowerCase());
}
function suitIndex(card) {
  return SUIT_ORDER.indexOf(card.slice(-1).toLowerCase());
}
// High to low, as a hand is held.
export function byRank(cards) {
  return [...cards].sort((a, b) => rankIndex(b) - rankIndex(a) || suitIndex(a) - suitIndex(b));
}
// 数目排序: the ranks held most first (a bomb, then triples, pairs, singles), high first.
export function byCount(cards) {
  const n = {};
  for (const c of cards) n[rankOf(c)] = (n[rankOf(c)] || 0) + 1;
  return [...cards].sort(
    (a, b) => n[rankOf(b)] - n[rankOf(a)] || rankIndex(b) - rankIndex(a) || suitIndex(a) - suitIndex(b));
}
// One card as an element: rank above suit, red suits red.
export function cardElement(card, small = false) {
  const el = document.createElement("span");
  el.className = "card" + (isRed(card) ? " red" : "") + (small ? " small" : "");
  const text = label(card);
  if (card === "BJ" || card === "RJ") {
    el.classList.add("joker");
    el.innerHTML = `<b>${card === "BJ" ? "小" : "大"}</b><i>王</i>`;
  } else {
    el.innerHTML = `<b>${text.slice(0, -1)}</b><i>${text.slice(-1)}</i>`;
  }
  el.title = text;
  return el;
}
export function cardRow(cards, small = true) {
  const row = document.createElement("span");
  row.className = "cards";
  for (const c of cards) row.append(cardElement(c, small));
  return row;
}
