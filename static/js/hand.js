// The player's own hand at the live table (and the replay's hands): how the cards are laid
// out and how a finger selects them. table.js owns the selection (indices into ``order``)
// and what a selection means; this module draws the cards and turns taps into selections.
import { cardFace, cardLabel, sortHand } from "./cards.js";

const esc = (text) => String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

// The hand in the order it is shown: high to low by the variant's order.
export function handOrder(hand, order, level) {
  return hand && hand.length ? sortHand(hand, order, level) : [];
}

// The hand as buttons, one per card (``selected``: a Set of indices into ``cards``).
export function handHtml(cards, selected, { label, level, wild }) {
  if (!cards.length) return "";
  return `<div class="hand" role="group" aria-label="${esc(label)}">` + cards.map((c, i) =>
    `<button class="card-button${selected.has(i) ? " selected" : ""}" data-act="card" data-index="${i}" aria-pressed="${selected.has(i)}" aria-label="${esc(cardLabel(c))}">${cardFace(c, level, wild)}</button>`).join("") + "</div>";
}

// Cards overlap in one row when they fit with a readable corner, else two rows (the first row
// shows its top corner, the second whole); sizes follow the screen.
export function layoutHand(root) {
  const hand = root.querySelector(".hand");
  if (!hand) return;
  const buttons = hand.querySelectorAll(".card-button");
  const n = buttons.length;
  const big = window.innerWidth >= 700 && window.innerHeight >= 600;
  const tall = window.innerHeight >= 700;
  const w = big ? 66 : tall ? 58 : 52;
  const h = Math.round(w * 1.4);
  const exposed = big || tall ? 58 : 52;
  const lift = 12;
  const avail = hand.clientWidth - 8;
  const rows = n > 1 && (avail - w) / (n - 1) < (window.innerHeight < 500 ? 27 : 30) ? 2 : 1;
  const perRow = Math.ceil(n / rows);
  const step = perRow > 1 ? Math.min(w * 0.66, (avail - w) / (perRow - 1)) : w;
  hand.style.setProperty("--card-w", `${w}px`);
  hand.style.setProperty("--card-h", `${h}px`);
  hand.style.height = `${lift + (rows - 1) * exposed + h + 4}px`;
  buttons.forEach((b, i) => {
    const row = Math.floor(i / perRow);
    const inRow = row === rows - 1 ? n - perRow * (rows - 1) : perRow;
    const col = i - row * perRow;
    const left = (avail - ((inRow - 1) * step + w)) / 2 + 4 + col * step;
    b.style.left = `${left}px`;
    b.style.top = `${lift + row * exposed}px`;
  });
  root.dataset.handRows = String(rows);
}
