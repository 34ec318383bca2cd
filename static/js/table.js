// The live table: one websocket to /ws/tables/<id>/ (protocol in README, "Websocket protocol").
// Everything shown comes from the frames the server sends to this seat (its observation).
import { cardLabel, isRed, sortHand } from "./cards.js";

const app = document.getElementById("table-app");
const W = JSON.parse(document.getElementById("table-words").textContent);
const tableId = app.dataset.table;
const BOMBS = new Set(["bomb", "straight_flush", "joker_bomb", "dragon", "supreme", "two_bomb", "immune", "chain_bomb", "joker3", "joker4"]);

const state = {
  version: -1, obs: null, table: null, you: null, cards: null, offset: 0,
  selected: [], hints: [], hintIndex: -1, hintVersion: -1, message: "", ok: "",
  checkId: 0, checkedFor: "", plays: null, playAfterCheck: false, choices: null,
  modal: null, banner: "", connected: false,
};
let ws = null;
let retry = 500;
let nextId = 1;
let lastFrame = Date.now();
let stopped = false;

const fmt = (text, vars = {}) => text.replace(/%\((\w+)\)s/g, (_, k) => (vars[k] ?? ""));
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

function send(data) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(data));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(`${proto}${location.host}/ws/tables/${tableId}/`);
  ws.onopen = () => {
    retry = 500;
    state.connected = true;
    if (state.version >= 0) send({ type: "hello", version: state.version });
  };
  ws.onmessage = (e) => { lastFrame = Date.now(); handle(JSON.parse(e.data)); };
  ws.onclose = () => {
    state.connected = false;
    if (stopped) return;
    if (app.dataset.started === "1") render();
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

// ------------------------------------------------------------------ messages from the server
function handle(m) {
  switch (m.type) {
    case "waiting":
      return;
    case "table_changed":
      if (app.dataset.started !== "1") location.reload();
      return;
    case "snapshot": case "update": case "events":
      return onState(m);
    case "table":
      if (m.version >= state.version) { state.table = m.table; render(); }
      return;
    case "ack":
      state.message = "";
      return render();
    case "refused": case "error":
      if (["login_required", "no_spectators", "not_allowed"].includes(m.code)) {
        stopped = true;
        app.innerHTML = `<p class="refusal" role="alert">${esc(m.message)}</p>`;
        return;
      }
      if (m.id && m.id === state.checkId) { state.plays = null; state.ok = ""; state.playAfterCheck = false; }
      state.message = m.message;
      return render();
    case "checked":
      if (m.id !== state.checkId) return;
      state.plays = m.plays;
      state.message = "";
      state.ok = fmt(W.selected_ok, { type: m.plays.map((p) => W[p.type] || p.type || W.immune).join(" / ") });
      if (state.playAfterCheck) { state.playAfterCheck = false; playChecked(); }
      return render();
    case "hints":
      state.hints = m.plays;
      state.hintVersion = m.version;
      state.hintIndex = -1;
      return cycleHint();
    default:
  }
}

function onState(m) {
  if (m.version < state.version) return;
  if (app.dataset.started !== "1") app.dataset.started = "1";
  const before = state.obs;
  const keep = state.selected.map((i) => (state.obs && state.obs.hand ? sortedHand()[i] : null));
  state.obs = m.obs;
  state.table = m.table;
  state.you = m.you;
  if (m.cards) state.cards = m.cards; // an update carries them only when the level changed
  state.offset = m.table.server_time - Date.now() / 1000;
  if (m.version !== state.version) {
    state.version = m.version;
    state.hints = [];
    state.plays = null;
    state.choices = null;
    state.ok = "";
    state.selected = remap(keep);
  }
  announce(before, m);
  render();
}

function remap(cards) {
  const hand = sortedHand();
  const used = new Set();
  const out = [];
  for (const card of cards) {
    const i = hand.findIndex((c, k) => c === card && !used.has(k));
    if (i >= 0) { used.add(i); out.push(i); }
  }
  return out;
}

function announce(before, m) {
  const obs = m.obs;
  const events = m.event ? [m.event] : (m.events || []);
  const shout = [];
  for (const e of events) {
    const t = e.action && e.action.type;
    if (t && BOMBS.has(t) && t !== "bomb") shout.push(`${seatName(e.seat)}: ${W[t] || t}`);
  }
  if (before && obs.bao2 && before.bao2 && before.deal_no === obs.deal_no) {
    if (obs.bao2.some((n, t) => n > before.bao2[t])) shout.push(W.bao2);
  }
  if (shout.length) state.banner = shout.join(" · ");
  if (before && obs.deal_no !== before.deal_no && obs.previous) {
    state.modal = { kind: "deal", data: obs.previous };
  }
  if (obs.match && obs.match.over && !(before && before.match && before.match.over)) {
    state.modal = { kind: "match", data: obs.match, previous: obs.previous };
  }
}

// ------------------------------------------------------------------ helpers
const seats = () => (state.table ? state.table.seats.length : 4);
function sortedHand() {
  const obs = state.obs;
  if (!obs || !obs.hand) return [];
  return sortHand(obs.hand, state.cards, obs.level);
}
function seatName(s) {
  if (s === null || s === undefined || !state.table) return "";
  const info = state.table.seats[s];
  if (s === state.you) return W.you;
  return info.name || W.bot;
}
function relation(s) {
  const n = seats();
  const me = state.you ?? 0;
  const d = (s - me + n) % n;
  if (n === 2) return d === 0 ? "bottom" : "top";
  return ["bottom", "right", "top", "left"][d];
}
function cardHtml(card, extra = "") {
  const obs = state.obs;
  const rank = card.length === 2 && card !== "SB" && card !== "HR" ? card[1] : "";
  const level = obs && obs.level && rank === obs.level ? " level" : "";
  const wild = state.cards && state.cards.wild === card ? " wild" : "";
  const red = isRed(card) ? " red" : "";
  return `<span class="card${red}${level}${wild}${extra}" data-card="${esc(card)}">${cardLabel(card)}</span>`;
}
function selectedCards() {
  const hand = sortedHand();
  return state.selected.map((i) => hand[i]).filter(Boolean);
}
function myTurn() {
  const o = state.obs;
  return o && state.you !== null && o.turn === state.you && !(o.match && o.match.over);
}
function action(a) {
  send({ type: "action", id: nextId++, seq: state.version, action: a });
}

// ------------------------------------------------------------------ user actions
function toggle(i) {
  const k = state.selected.indexOf(i);
  if (k >= 0) state.selected.splice(k, 1); else state.selected.push(i);
  state.plays = null; state.ok = ""; state.message = ""; state.choices = null;
  checkSelection(false);
  render();
}
function checkSelection(playAfter) {
  const cards = selectedCards();
  const phase = state.obs && state.obs.phase;
  if (!cards.length || !myTurn() || !["play", "immune"].includes(phase)) return;
  state.checkId = nextId++;
  state.playAfterCheck = playAfter;
  send({ type: "check", id: state.checkId, cards });
}
function playChecked() {
  const plays = state.plays || [];
  if (plays.length === 1) { action(plays[0]); state.selected = []; }
  else if (plays.length > 1) state.choices = plays;
  render();
}
function onPlay() {
  const phase = state.obs.phase;
  const cards = selectedCards();
  if (phase === "tribute" || phase === "return") {
    if (cards.length !== 1) { state.message = W[phase === "tribute" ? "select_tribute" : "select_return"]; return render(); }
    action({ [phase]: cards[0] });
    state.selected = [];
    return render();
  }
  if (!cards.length) { state.message = ""; return render(); }
  if (state.plays) return playChecked();
  checkSelection(true);
}
function onPass() { action({ pass: true }); state.selected = []; render(); }
function onHint() {
  if (state.hintVersion !== state.version || !state.hints.length) {
    send({ type: "hint", id: nextId++ });
    return;
  }
  cycleHint();
}
function cycleHint() {
  if (!state.hints.length) { state.message = ""; render(); return; }
  state.hintIndex = (state.hintIndex + 1) % state.hints.length;
  const h = state.hints[state.hintIndex];
  const cards = h.play || h.immune || [h.tribute || h.return].filter(Boolean);
  state.selected = remap(cards);
  state.plays = null; state.choices = null;
  checkSelection(false);
  render();
}
function onClear() { state.selected = []; state.plays = null; state.ok = ""; state.message = ""; state.choices = null; render(); }

app.addEventListener("click", (e) => {
  const el = e.target.closest("[data-act]");
  if (!el) return;
  const act = el.dataset.act;
  if (act === "card") toggle(Number(el.dataset.index));
  else if (act === "play") onPlay();
  else if (act === "pass") onPass();
  else if (act === "hint") onHint();
  else if (act === "clear") onClear();
  else if (act === "choice") { action(state.choices[Number(el.dataset.index)]); state.selected = []; state.choices = null; render(); }
  else if (act === "choose") action({ choose: el.dataset.value });
  else if (act === "ask") action({ ask: Number(el.dataset.seat) });
  else if (act === "autoplay") send({ type: "autoplay", id: nextId++, on: el.dataset.on === "1" });
  else if (act === "close") { state.modal = null; render(); }
  else if (act === "banner") { state.banner = ""; render(); }
});

// ------------------------------------------------------------------ rendering
function clockText(s) {
  const t = state.table;
  if (!t || t.to_move !== s || !t.deadline) return "";
  const left = Math.max(0, Math.ceil(t.deadline - (Date.now() / 1000 + state.offset)));
  return fmt(W.clock, { s: left });
}
function seatHtml(s) {
  const o = state.obs;
  const info = state.table.seats[s];
  const count = o.counts[s];
  const pos = o.finished.indexOf(s);
  const turn = o.turn === s ? " turn" : "";
  const last = [...o.trick].reverse().find((e) => e.seat === s);
  const badges = [];
  if (info.bot) badges.push(`<span class="badge">${esc(W.bot)}</span>`);
  if (info.autoplay) badges.push(`<span class="badge warn">${esc(W.autoplay)}</span>`);
  if (pos >= 0) badges.push(`<span class="badge gold">#${pos + 1}</span>`);
  const n = seats();
  const team = n === 4 && o.levels && o.levels.length === 2 ? ` · ${fmt(W.team, { n: (s % 2) + 1 })}` : "";
  let countText = count === null || count === undefined ? W.cards_unknown : fmt(W.cards, { n: count });
  let ask = "";
  if ((count === null || count === undefined) && myTurn() && s !== state.you) {
    ask = ` <button class="small secondary" data-act="ask" data-seat="${s}">${esc(W.ask)}</button>`;
  }
  if (s === state.you) countText = fmt(W.cards, { n: count ?? sortedHand().length });
  const lastHtml = last ? (last.pass ? `<span class="pass">${esc(W.pass)}</span>` : last.cards.map((c) => cardHtml(c, " small")).join("")) : "";
  return `<div class="seat ${relation(s)}${turn}" data-seat="${s}">
    <div class="seat-top"><strong>${esc(seatName(s))}</strong>${team} ${badges.join(" ")}</div>
    <div class="seat-info">${esc(countText)}${ask} <span class="clock" data-clock="${s}">${esc(clockText(s))}</span></div>
    <div class="seat-last">${lastHtml}</div></div>`;
}
// A team level index as its rank name (Bao 2's second climb marked with its round).
function levelName(index) {
  const names = state.cards && state.cards.levels;
  const entry = names && names[index];
  if (!entry) return String(index);
  return entry[1] > 1 ? fmt(W.level_round, { rank: entry[0], n: entry[1] }) : entry[0];
}
function infoHtml() {
  const o = state.obs;
  const parts = [`<span>${esc(fmt(W.deal, { n: o.deal_no + 1 }))}</span>`];
  if (o.level) parts.push(`<span>${esc(W.level)}: <strong class="level-card">${esc(o.level === "T" ? "10" : o.level)}</strong></span>`);
  if (o.levels && o.levels.length === 2 && seats() === 4 && o.variant !== "honger") {
    const names = o.levels.map((lv, t) => `${esc(fmt(W.team, { n: t + 1 }))} ${esc(levelName(lv))}${o.level_team === t ? " ★" : ""}`);
    parts.push(`<span>${esc(W.levels)}: ${names.join(" / ")}</span>`);
  }
  if (o.match && o.match.score && o.variant !== "bao2" && o.variant !== "guandan") {
    parts.push(`<span>${esc(W.points)}: ${o.match.score.join(" / ")}</span>`);
  }
  if (o.finished.length) parts.push(`<span>${esc(W.finished)}: ${o.finished.map((s) => esc(seatName(s))).join(" → ")}</span>`);
  const t = state.table;
  if (t.ends_at) {
    const left = Math.max(0, Math.ceil((t.ends_at - (Date.now() / 1000 + state.offset)) / 60));
    parts.push(`<span data-timeleft>${esc(fmt(W.time_left, { m: left }))}</span>`);
  }
  return `<div class="info-bar">${parts.join("")}</div>`;
}
function tributeHtml() {
  const tr = state.obs.tribute;
  if (!tr) return "";
  if (tr.anti) return `<p class="tribute">${esc(W.anti_tribute)}</p>`;
  const lines = tr.givers.map((g, k) => {
    const r = tr.receivers[k];
    const out = [];
    if (tr.paid[k]) out.push(fmt(W.tribute_to, { giver: seatName(g), card: cardLabel(tr.paid[k]), receiver: seatName(r) }));
    const back = tr.returned[k];
    if (typeof back === "string") out.push(fmt(W.return_to, { giver: seatName(r), card: cardLabel(back), receiver: seatName(g) }));
    return out.map(esc).join(" · ");
  }).filter(Boolean);
  return lines.length ? `<p class="tribute">${lines.join("<br>")}</p>` : "";
}
function centerHtml() {
  const o = state.obs;
  let html = "";
  if (o.immune_window) {
    const w = o.immune_window;
    html += `<p class="banner immune">${esc(fmt(W.immune_window, { name: seatName(w.bao2_seat) }))}<br>${esc(w.deciding === state.you ? W.immune_you : fmt(W.immune_wait, { name: seatName(w.deciding) }))}</p>`;
  }
  html += tributeHtml();
  if (o.trick.length) {
    html += `<div class="trick" aria-label="${esc(W.trick)}">` + o.trick.map((e) => {
      const standing = o.standing && o.standing.seat === e.seat && !e.pass ? " standing" : "";
      const body = e.pass ? `<span class="pass">${esc(W.pass)}</span>` : `${e.cards.map((c) => cardHtml(c, " small")).join("")} <em>${esc(W[e.type] || e.type)}</em>`;
      return `<div class="trick-entry${standing}"><span class="who">${esc(seatName(e.seat))}</span> ${body}</div>`;
    }).join("") + "</div>";
  } else if (o.phase === "play") {
    html += `<p class="muted">${esc(W.empty_trick)}</p>`;
  }
  return `<div class="center">${html}</div>`;
}
function controlsHtml() {
  const o = state.obs;
  if (state.you === null) return `<p class="muted">${esc(W.spectator)}</p>`;
  if (o.match && o.match.over) return "";
  const mine = state.table.seats[state.you];
  const auto = mine && mine.autoplay
    ? `<button class="secondary" data-act="autoplay" data-on="0">${esc(W.autoplay_off)}</button>`
    : `<button class="secondary small" data-act="autoplay" data-on="1">${esc(W.autoplay_on)}</button>`;
  let status = "";
  let buttons = "";
  if (myTurn()) {
    status = `<strong class="your-turn">${esc(W.your_turn)}${o.lead ? " · " + esc(W.lead) : ""}</strong> <span class="clock" data-clock="${state.you}">${esc(clockText(state.you))}</span>`;
    if (o.phase === "choose") {
      status += ` ${esc(W.phase_choose)}`;
      buttons = ["solo", "surrender", "compare"].map((v) => `<button data-act="choose" data-value="${v}">${esc(W["choose_" + v])}</button>`).join("");
    } else {
      if (o.phase === "tribute") status += ` ${esc(W.select_tribute)}`;
      if (o.phase === "return") status += ` ${esc(W.select_return)}`;
      buttons = `<button data-act="play">${esc(W.play)}</button>`;
      if (o.phase === "immune" || (o.phase === "play" && !o.lead)) buttons += `<button class="secondary" data-act="pass">${esc(W.pass)}</button>`;
      buttons += `<button class="secondary" data-act="hint">${esc(W.hint)}</button><button class="secondary" data-act="clear">${esc(W.clear)}</button>`;
    }
  } else if (o.turn !== null && o.turn !== undefined) {
    status = esc(fmt(W.waiting_for, { name: seatName(o.turn) }));
  }
  let choices = "";
  if (state.choices) {
    choices = `<div class="choices">${esc(W.choose_type)} ` + state.choices.map((p, i) => `<button class="small" data-act="choice" data-index="${i}">${esc(W[p.type] || p.type || W.immune)}</button>`).join("") + "</div>";
  }
  const msg = state.message ? `<p class="refusal" role="alert">${esc(state.message)}</p>` : (state.ok ? `<p class="ok">${esc(state.ok)}</p>` : "");
  return `<div class="controls"><div class="status">${status}</div>${msg}${choices}<div class="buttons">${buttons}</div><div class="auto">${auto}</div></div>`;
}
function handHtml() {
  const hand = sortedHand();
  if (!hand.length) return "";
  const sel = new Set(state.selected);
  return `<div class="hand" role="group">` + hand.map((c, i) =>
    `<button class="card-button${sel.has(i) ? " selected" : ""}" data-act="card" data-index="${i}" aria-pressed="${sel.has(i)}">${cardHtml(c)}</button>`).join("") + "</div>";
}
function modalHtml() {
  const m = state.modal;
  if (!m) return "";
  let body = "";
  const prev = m.kind === "deal" ? m.data : m.previous;
  if (prev) {
    body += `<p>${esc(W.finished)}: ${(prev.finish || []).map((s) => esc(seatName(s))).join(" → ")}</p>`;
    if (prev.bao2 && prev.bao2.some((n) => n)) body += `<p>${esc(W.bao2)} ${prev.bao2.map((n, t) => n ? esc(fmt(W.team, { n: t + 1 })) + " ×" + n : "").filter(Boolean).join(" · ")}</p>`;
    if (prev.closed && prev.closed.some((n) => n)) body += `<p>${esc(W.guan2)} ${prev.closed.map((n, t) => n ? esc(fmt(W.team, { n: t + 1 })) + " ×" + n : "").filter(Boolean).join(" · ")}</p>`;
    if (prev.levels) body += `<p>${esc(W.levels)}: ${prev.levels.map((lv) => esc(levelName(lv))).join(" / ")}</p>`;
    if (prev.points) body += `<p>${esc(W.points)}: ${prev.points.join(" / ")}</p>`;
  }
  let title = W.deal_over;
  if (m.kind === "match") {
    title = W.match_over;
    const r = m.data;
    const who = r.winner === null || r.winner === undefined ? W.draw : fmt(W.winner_team, { n: r.winner + 1 });
    body = `<p class="big">${esc(who)}${r.score ? " · " + r.score.join(" : ") : ""}</p><p class="muted">${esc(W["reason_" + r.reason] || r.reason || "")}</p>` + body;
  }
  return `<div class="modal" role="dialog" aria-modal="true" aria-label="${esc(title)}"><div class="modal-box"><h2>${esc(title)}</h2>${body}<button data-act="close">${esc(W.close)}</button></div></div>`;
}
function render() {
  const o = state.obs;
  if (!o) return;
  const n = seats();
  const seatHtmls = Array.from({ length: n }, (_, s) => seatHtml(s)).join("");
  const banner = state.banner ? `<p class="banner" data-act="banner">${esc(state.banner)}</p>` : "";
  const offline = state.connected ? "" : `<p class="offline" role="status">${esc(W.reconnecting)}</p>`;
  app.innerHTML = `${offline}${infoHtml()}${banner}<div class="felt seats-${n}">${seatHtmls}${centerHtml()}</div>${controlsHtml()}${handHtml()}${modalHtml()}`;
  app.dataset.version = String(state.version);
  app.dataset.phase = o.phase;
  app.dataset.turn = String(o.turn);
  app.dataset.you = String(state.you);
  app.dataset.deal = String(o.deal_no);
  app.dataset.over = o.match && o.match.over ? "1" : "0";
}

setInterval(() => {
  for (const el of app.querySelectorAll("[data-clock]")) el.textContent = clockText(Number(el.dataset.clock));
  // quiet for a while: ask for anything missed (the server answers with the missing events)
  if (state.version >= 0 && Date.now() - lastFrame > 10000) {
    lastFrame = Date.now();
    send({ type: "hello", version: state.version });
  }
}, 500);

if (app.dataset.started === "1" || document.querySelector(".seat-setup")) connect();
