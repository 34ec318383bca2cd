// Replay of a finished match: every action, every hand (data rendered into the page). Jumps to
// any deal, steps by trick or by action, or plays itself at three speeds; the step that ends a
// deal shows that deal's summary; a finished trick stays on the felt until the next lead.
import { cardLabel, isRed } from "./cards.js";
// the hands in rank columns, as at the table (hand.js)
import { staticHandHtml } from "./hand.js";

const steps = JSON.parse(document.getElementById("replay-steps").textContent);
const names = JSON.parse(document.getElementById("replay-names").textContent);
// the variant's card order (and wild card) per deal level, as on the table page
const orders = JSON.parse(document.getElementById("replay-orders").textContent);
const slider = document.getElementById("replay-slider");
const dealSelect = document.getElementById("replay-deal");
const summaryBox = document.getElementById("replay-summary");
const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const fmt = (text, values) => String(text).replace(/%\((\w+)\)s/g, (_, k) => (values[k] ?? ""));
const card = (c, level) => `<span class="card small${isRed(c) ? " red" : ""}${level && c[1] === level ? " level" : ""}">${cardLabel(c)}</span>`;
const seatName = (s) => esc(names.seats[s] ?? s);
const clamp = (i) => Math.min(steps.length - 1, Math.max(0, i));

// The step that ends a deal adds its summary (the engine deals the next one at once) and
// belongs to the deal it ends; the next deal starts with the step after it. A trick starts
// with its lead, or with its deal.
const dealsDone = steps.map((s) => (s.views[0].match || {}).deals || 0);
const dealOf = steps.map((_, i) => (i === 0 ? 0 : dealsDone[i - 1]));
const endsDeal = (i) => i > 0 && (dealsDone[i] > dealsDone[i - 1] || (steps[i].views[0].match || {}).over === true);
const dealStarts = [];
const trickStarts = [];
steps.forEach((step, i) => {
  const v = step.views[0];
  if (i === 0 || dealOf[i] !== dealOf[i - 1]) {
    dealStarts.push(i);
    trickStarts.push(i);
  } else if (v.phase === "play" && (v.trick || []).length === 1 && !v.trick[0].pass) trickStarts.push(i);
});

dealSelect.innerHTML = dealStarts.map((i) =>
  `<option value="${i}">${esc(fmt(names.deal, { n: dealOf[i] + 1 }))}</option>`).join("");

function describe(step) {
  const action = step.action;
  if (!action) return "—";
  if (action.pass) return names.pass;
  if (action.play) return action.play.map(cardLabel).join(" ") + ` (${names[action.type] || action.type})`;
  if (action.immune) return `${names.immune}: ${action.immune.map(cardLabel).join(" ")}`;
  if (action.tribute) return `${names.tribute}: ${cardLabel(action.tribute)}`;
  if (action.return) return `${names.return}: ${cardLabel(action.return)}`;
  if (action.time_up) return names.time_up;
  if (action.sanction) {
    return fmt(names.sanction_against, {
      sanction: names[`sanction_${action.sanction}`] || action.sanction,
      name: names.seats[action.target] ?? action.target,
      reason: action.reason || "—",
    });
  }
  return JSON.stringify(action);
}

function summary(i) {
  const v = steps[i].views[0];
  const deal = v.previous;
  const match = v.match || {};
  const parts = [];
  if (deal && dealsDone[i] > dealsDone[i - 1]) {
    parts.push(`<h2>${esc(names.deal_over)} · ${esc(fmt(names.deal, { n: dealsDone[i] }))}</h2>`);
    if (deal.finish) parts.push(`<p>${esc(names.finished)}: ${deal.finish.map(seatName).join(" → ")}</p>`);
    if (deal.levels) parts.push(`<p>${esc(names.levels)}: ${deal.levels.map((l, t) => `${esc(fmt(names.team, { n: t + 1 }))} ${esc(levelName(l))}`).join(" · ")}</p>`);
    if (deal.points) parts.push(`<p>${esc(names.points)}: ${deal.points.map((p, s) => `${seatName(s)} ${p > 0 ? "+" : ""}${esc(p)}`).join(" · ")}</p>`);
  }
  if (match.over) {
    const who = match.winner === null || match.winner === undefined ? names.draw : fmt(names.winner_team, { n: match.winner + 1 });
    parts.push(`<h2>${esc(names.match_over)}</h2><p>${esc(who)}${match.score ? ` · ${esc(match.score.join(" : "))}` : ""}</p>`);
  }
  return parts.join("");
}

function levelName(index) {
  const order = Object.values(orders)[0];
  const level = order && order.levels && order.levels[index];
  return level ? fmt(names.level_round, { rank: level[0], n: level[1] }) : String(index);
}

function show(i) {
  const step = steps[i];
  slider.value = String(i);
  document.getElementById("replay-pos").textContent = `${i} / ${steps.length - 1}`;
  const who = step.seat === null || step.seat === undefined ? "" : `${seatName(step.seat)}: `;
  const actor = step.actor === "referee" ? `${esc(names.referee)}: ` : "";
  const view0 = step.views[0];
  document.getElementById("replay-action").innerHTML =
    `<span>${esc(fmt(names.deal, { n: dealOf[i] + 1 }))}</span><span>${esc(names.level)}: ${esc(view0.level || "-")}</span><span>${actor}${who}${esc(describe(step))}</span>`;
  const ending = endsDeal(i);
  summaryBox.hidden = !ending;
  summaryBox.innerHTML = ending ? summary(i) : "";
  let start = 0;
  dealStarts.forEach((s) => { if (s <= i) start = s; });
  dealSelect.value = String(start);
  // the trick a pass has just ended stays on the felt (dimmed) until the next lead
  const shown = trickOnFelt(i);
  const felt = document.querySelector("#replay-trick .center");
  felt.classList.toggle("ended", shown.ended);
  felt.dataset.ended = shown.ended ? "1" : "0";
  felt.innerHTML = shown.trick.map((e) =>
    `<div class="trick-entry"><span class="who">${seatName(e.seat)}</span> ${e.pass ? esc(names.pass) : e.cards.map((c) => card(c, view0.level)).join("")}</div>`).join("") || "&nbsp;";
  document.getElementById("replay-hands").innerHTML = step.views.map((v, s) =>
    `<div class="replay-hand${s === step.seat ? " acted" : ""}"><strong>${seatName(s)}</strong> (${v.hand.length})${staticHandHtml(v.hand, orders[v.level || ""] || null, v.level)}</div>`).join("");
  // paused, the toggle's word follows the position (继续 part-way); drawn once the page is set up
  if (ready && timer === null) drawAuto();
}

// The current trick at step i; when it is empty (a pass ended a trick, or a deal began) the
// last trick played in this deal, marked ended, until someone leads again.
function trickOnFelt(i) {
  const trick = steps[i].views[0].trick || [];
  if (trick.length) return { trick, ended: false };
  for (let j = i - 1; j >= 0 && dealOf[j] === dealOf[i] && !endsDeal(j); j--) {
    const before = steps[j].views[0].trick || [];
    if (before.length) return { trick: before, ended: true };
  }
  return { trick: [], ended: false };
}

const now = () => Number(slider.value);
document.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => show(clamp(now() + Number(b.dataset.step)))));
document.querySelectorAll("[data-trick]").forEach((b) => b.addEventListener("click", () => {
  const i = now();
  const target = Number(b.dataset.trick) > 0
    ? trickStarts.find((s) => s > i) ?? steps.length - 1
    : [...trickStarts].reverse().find((s) => s < i) ?? 0;
  show(target);
}));
dealSelect.addEventListener("change", () => show(Number(dealSelect.value)));
slider.addEventListener("input", () => show(now()));
document.addEventListener("keydown", (e) => {
  if (e.target === dealSelect) return;
  if (e.key === "ArrowRight") show(clamp(now() + 1));
  if (e.key === "ArrowLeft") show(clamp(now() - 1));
});
// Auto-play at three speeds (seconds a step): it stops at the end, or when the person steps.
const SPEEDS = { slow: 2400, medium: 1200, fast: 500 };
let timer = null;
let speed = "medium";
let ready = false;
const auto = document.createElement("div");
auto.className = "replay-controls replay-auto";
auto.setAttribute("role", "group");
auto.setAttribute("aria-label", names.replay_speed || "");
// The toggle says what a tap does, in words (暂停, 继续, 自动播放: older players read a word
// sooner than a sign), beside a drawn sign: "⏸" is an empty box where the font lacks it
// (Debian's Chromium, many Android phones).
const ICONS = {
  pause: '<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><rect x="3" y="2" width="3.5" height="12" fill="currentColor"/><rect x="9.5" y="2" width="3.5" height="12" fill="currentColor"/></svg>',
  play: '<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="M4 2l10 6-10 6z" fill="currentColor"/></svg>',
};
function drawAuto() {
  const playing = timer !== null;
  // paused part-way: 继续; at the start or the end (where a tap starts again): 自动播放
  const resume = !playing && now() > 0 && now() < steps.length - 1 && names.replay_resume;
  const word = playing ? names.replay_pause : resume || names.replay_start;
  auto.innerHTML = `<button type="button" data-auto="toggle" aria-pressed="${playing}">${ICONS[playing ? "pause" : "play"]}<span>${esc(word)}</span></button>` +
    Object.keys(SPEEDS).map((k) => `<button type="button" class="secondary${k === speed ? " on" : ""}" data-speed="${k}" aria-pressed="${k === speed}">${esc(names[`replay_${k}`] || k)}</button>`).join("");
}
function stop() { if (timer !== null) { clearInterval(timer); timer = null; drawAuto(); } }
function start() {
  stop();
  if (now() >= steps.length - 1) show(0);
  timer = setInterval(() => {
    if (now() >= steps.length - 1) { stop(); return; }
    show(now() + 1);
  }, SPEEDS[speed]);
  drawAuto();
}
auto.addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  if (b.dataset.auto) { if (timer === null) start(); else stop(); return; }
  if (b.dataset.speed) { speed = b.dataset.speed; if (timer !== null) start(); else drawAuto(); }
});
// a step of the person's own pauses the auto-play
for (const el of document.querySelectorAll("[data-step], [data-trick]")) el.addEventListener("click", stop, true);
slider.addEventListener("pointerdown", stop);
dealSelect.addEventListener("change", stop);
drawAuto();
ready = true;
document.querySelector("#replay-action").before(auto);
window.replayAuto = { speeds: SPEEDS, playing: () => timer !== null };

show(0);
