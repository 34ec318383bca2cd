// The live table: one websocket to /ws/tables/<id>/ (protocol in README, "Websocket protocol").
// Everything shown comes from the frames the server sends to this seat (its observation).
// Layout: one screen (table.css): a slim bar, the other seats as strips around the trick, the
// action buttons and the hand fixed at the bottom. Players are named by where they sit
// relative to this seat (对家 / 上家 / 下家).
import { cardFace, cardLabel, isRed, sortHand } from "./cards.js";
import { createHand } from "./hand.js";
import { quickPhrases } from "./phrases.js";
import { createSpeaker } from "./speech.js";
import { createMoments } from "./moments.js";

const app = document.getElementById("table-app");
// words sent translated with the page: the server's list, then the page's own (data-* attributes)
const W = { ...JSON.parse(document.getElementById("table-words").textContent), ...document.getElementById("table-words-more").dataset };
// the game's facts, sent with the page (games.variants.page_facts): no branch on a game's name
const V = JSON.parse(document.getElementById("table-variant").textContent);
const tableId = app.dataset.table;
const BOMBS = new Set(["bomb", "straight_flush", "joker_bomb", "dragon", "supreme", "two_bomb", "immune", "chain_bomb", "joker3", "joker4"]);
const SOUND_KEY = "table.attention"; // per-user setting on this phone: sound and vibration
const BANNER_MS = 6000;
const WARN_SECONDS = 5;

const state = {
  version: -1, obs: null, table: null, you: null, cards: null, offset: 0,
  selected: [], hints: [], hintIndex: -1, hintVersion: -1, message: "", ok: "",
  checkId: 0, plays: null, playAfterCheck: false, choices: null,
  summary: null, banner: "", bannerAt: 0, sanction: null, historyOpen: false, connected: false, playedDeal: -1,
  acting: false, warned: -1, attention: localStorage.getItem(SOUND_KEY) === "1",
};
let ws = null;
let retry = 500;
let nextId = 1;
let lastFrame = Date.now();
let stopped = false;
let audio = null;
const baseTitle = document.title;

// the server's words use %(name)s, the page's own {name} (no % in template strings)
const fmt = (text, vars = {}) => String(text ?? "").replace(/%\((\w+)\)s|\{(\w+)\}/g, (_, a, b) => (vars[a || b] ?? ""));
const esc = (text) => String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const has = (o, k) => o && o[k] !== undefined && o[k] !== null;
// quick phrases at casual tables (phrases.js): the 💬 list, the words shown by each seat
const phrases = quickPhrases({ send: (data) => send({ ...data, id: nextId++ }), seatName: (s) => seatName(s) });
// sounds, spoken announcements and the ⚙ settings (speech.js); what auto-play did while this
// player was away, and the links after the match (moments.js)
const speaker = createSpeaker(W);
const moments = createMoments(app, W);
// the hand (hand.js): rank columns, touch and slide, 理牌 (asked of the server: hint + arrange)
const hand = createHand({ root: app, words: W, tableId, ask: () => send({ type: "hint", arrange: true, id: nextId++ }), select: (list) => selectCards(list) });

function send(data) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(data));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(`${proto}${location.host}/ws/tables/${tableId}/`);
  ws.onopen = () => {
    state.connected = true;
    if (state.version >= 0) send({ type: "hello", version: state.version });
  };
  ws.onmessage = (e) => { lastFrame = Date.now(); retry = 500; handle(JSON.parse(e.data)); };
  ws.onclose = (e) => {
    state.connected = false;
    moments.disconnected();
    if (stopped) return;
    if (app.dataset.started === "1") render();
    setTimeout(connect, reconnectDelay(e.code));
  };
}

// protocol "Connecting": soon after losing a connection that served the table, then later and
// later while the server turns us away (1013, "try again later": up to 30 s) or cannot be
// reached; jittered, so that a restarted server's clients do not all come back at once
function reconnectDelay(code) {
  const delay = retry * (0.5 + Math.random());
  retry = Math.min(retry * 2, code === 1013 ? 30000 : 5000);
  return delay;
}

// protocol "Versions": an update more than one version ahead (rare: the server forwards them in
// order and fills a gap itself) carries the whole state; hello brings the events in between
function askForMissed(m) {
  if (m.type === "update" && state.version >= 0 && m.version > state.version + 1) send({ type: "hello", version: state.version });
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
      state.refusal = { message: m.message, code: m.code };
      return render();
    case "checked":
      if (m.id !== state.checkId) return;
      state.plays = m.plays;
      state.message = "";
      state.ok = fmt(W.selected_ok, { type: m.plays.map((p) => W[p.type] || p.type || W.immune).join(" / ") });
      if (state.playAfterCheck) { state.playAfterCheck = false; playChecked(); }
      return render();
    case "phrase":
      return phrases.show(m);
    case "arranged":
      return hand.arranged(m);
    case "hints":
      state.hints = m.plays;
      state.hintVersion = m.version;
      state.hintIndex = -1;
      return cycleHint();
    default:
  }
}

function onState(m) {
  // a frame not newer than the last one applied raced it and is dropped; a snapshot, and the
  // answer to hello (events) unless older, resynchronise (protocol: "Versions")
  if (m.type === "snapshot" ? false : m.type === "events" ? m.version < state.version : m.version <= state.version) return;
  askForMissed(m);
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
  speaker.frame({ events: m.event ? [m.event] : (m.events || []), before, obs: m.obs, you: m.you, seatName, wild: state.cards && state.cards.wild });
  moments.connected(m.you);
  render();
  attend();
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
  let played = false;
  let sanction = null; // the last referee sanction not followed by a play
  for (const e of events) {
    const a = e.action || {};
    if (a.play || a.immune) { played = true; sanction = null; }
    if (e.actor === "referee" && a.sanction) sanction = e;
    if (a.type && BOMBS.has(a.type) && a.type !== "bomb") shout.push(`${seatName(e.seat)}: ${W[a.type] || a.type}`);
  }
  // a banner stays until someone plays again (or a few seconds pass); tribute lines until
  // the deal's first play
  // (the play that ends a deal arrives with the next deal's observation: not a play of it)
  if (played && before && before.deal_no === obs.deal_no) { state.playedDeal = obs.deal_no; if (!shout.length) state.banner = ""; }
  if (played || (before && obs.deal_no !== before.deal_no)) state.sanction = null;
  if (sanction) state.sanction = sanctionNotice(sanction.action, before, obs);
  if (before && obs.bao2 && before.bao2 && before.deal_no === obs.deal_no) {
    if (obs.bao2.some((n, t) => n > before.bao2[t])) shout.push(W.bao2);
  }
  if (shout.length) { state.banner = shout.join(" · "); state.bannerAt = Date.now(); }
  if (before && obs.deal_no !== before.deal_no) {
    state.banner = "";
    if (obs.previous) state.summary = { kind: "deal", data: obs.previous, before: before.levels, deal: before.deal_no };
  }
  if (obs.match && obs.match.over && !(before && before.match && before.match.over)) {
    state.banner = "";
    const last = state.summary && state.summary.kind === "deal" ? state.summary : null;
    state.summary = { kind: "match", data: obs.match, previous: obs.previous, before: last ? last.before : before && before.levels, deal: obs.deal_no };
  }
}

// A referee's sanction as every seat and spectator is told it: which, against whom (named
// from this seat), why, and what it cost the team's level (yellow and red cards). It stays
// until play resumes: the next play, or the next deal.
function sanctionNotice(a, before, obs) {
  const text = fmt(W.sanction_against, { sanction: W[`sanction_${a.sanction}`] || a.sanction, name: seatName(a.target), reason: a.reason || "" });
  let drop = "";
  if (teamGame() && before && before.deal_no === obs.deal_no && Array.isArray(before.levels) && Array.isArray(obs.levels)) {
    const t = a.target % 2;
    if (before.levels[t] !== obs.levels[t]) drop = fmt(W.sanction_drop, { team: teamName(t), from: levelName(before.levels[t]), to: levelName(obs.levels[t]) });
  }
  return { kind: a.sanction, text, drop };
}

// ------------------------------------------------------------------ helpers
const seats = () => (state.table ? state.table.seats.length : 4);
const pointsGame = () => state.obs && !V.levels;
const teamGame = () => seats() === 4 && state.obs && V.fixed_sides;
function sortedHand() {
  const obs = state.obs;
  if (!obs || !obs.hand) return [];
  return hand.order(obs.hand, state.cards, obs.level, obs.deal_no);
}
function realName(s) {
  const info = state.table && state.table.seats[s];
  if (!info) return "";
  return info.name || fmt(W.bot_n, { n: s + 1 });
}
// The seat's name as this player sees the table: 你 / 对家 / 上家 / 下家 (spectators: names).
function seatName(s) {
  if (s === null || s === undefined || !state.table) return "";
  if (state.you === null || state.you === undefined) return realName(s);
  if (s === state.you) return W.you;
  const n = seats();
  if (n === 2) return W.opponent;
  const d = (s - state.you + n) % n;
  if (d === 2) return V.fixed_sides ? W.partner : W.opposite;
  return d === 1 ? W.right : W.left;
}
function relation(s) {
  const n = seats();
  const d = (s - (state.you ?? 0) + n) % n;
  if (n === 2) return d === 0 ? "bottom" : "top";
  return ["bottom", "right", "top", "left"][d];
}
function face(card, extra = "") {
  const o = state.obs;
  return cardFace(card, o && o.level, state.cards && state.cards.wild, extra);
}
function miniCards(cards) {
  return `<span class="mini-cards">${cards.map((c) => face(c, " mini")).join("")}</span>`;
}
function selectedCards() {
  const hand = sortedHand();
  return state.selected.map((i) => hand[i]).filter(Boolean);
}
// This seat may act now (both tribute givers may pay, in either order).
function canAct() {
  const o = state.obs;
  if (!o || state.you === null || (o.match && o.match.over)) return false;
  return Array.isArray(o.actors) ? o.actors.includes(state.you) : o.turn === state.you;
}
function action(a) {
  send({ type: "action", id: nextId++, seq: state.version, action: a });
}
function placeName(k) {
  const n = seats();
  if (k === n - 1 && n > 2) return W.place_last;
  return W[`place_${k + 1}`] || `#${k + 1}`;
}
function teamName(t) {
  if (state.you === null || state.you === undefined) return fmt(W.team, { n: t + 1 });
  return t === state.you % 2 ? W.us : W.them;
}
function secondsLeft() {
  const t = state.table;
  if (!t || !t.deadline) return null;
  return Math.max(0, Math.ceil(t.deadline - (Date.now() / 1000 + state.offset)));
}

// The rules guide (/learn/rules/<game>/) at the section of a refusal's code, or of the moment
// (the immune window, a tribute); opened in a new tab, so the table stays connected.
// (wrong_phase: the moment's own section, e.g. a card played in the immune window)
const RULE_OF_CODE = { needs_initiative: "little-2", does_not_beat: "combos", invalid_combo: "combos", must_lead: "play",
  invalid_tribute: "tribute", invalid_return: "tribute", invalid_ask: "counts", wrong_phase: "" };
function ruleUrl(code) {
  const o = state.obs;
  if (!app.dataset.rules || !o) return "";
  let anchor = RULE_OF_CODE[code] || "";
  if (!anchor && (o.immune_window || o.phase === "immune")) anchor = "immune";
  else if (!anchor && (o.phase === "tribute" || o.phase === "return")) anchor = "tribute";
  return `${app.dataset.rules}rules/${encodeURIComponent(o.variant)}/${anchor ? "#" + anchor : ""}`;
}
// the code of the refusal on screen, if one is: the ? then opens its rule (a refused natural 2)
function shownRefusal() {
  return state.refusal && state.message && state.refusal.message === state.message ? state.refusal.code : "";
}
function ruleLink(code) {
  const url = ruleUrl(code);
  return url ? `<a class="rule-link" href="${esc(url)}" target="_blank" rel="noopener" data-rule="${esc(code)}">${esc(app.dataset.rules_label)}</a>` : "";
}

// ------------------------------------------------------------------ attention: sound, vibration, title
function beep(times, pitch) {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    for (let k = 0; k < times; k++) {
      const start = audio.currentTime + k * 0.25;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = pitch;
      gain.gain.setValueAtTime(0.25, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + 0.2);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.2);
    }
  } catch (error) { /* no audio on this device: vibration and the title still tell */ }
}
function alertPlayer(kind) {
  speaker.alert(kind); // 提醒, sound, voice and vibration: the ⚙ settings of this device
}
function attend() {
  const acting = canAct();
  if (acting && !state.acting) alertPlayer("turn");
  state.acting = acting;
  document.title = acting ? `${W.your_turn_title} · ${baseTitle}` : baseTitle;
}
function clockWarning() {
  const t = state.table;
  if (!canAct() || !t || t.to_move !== state.you || state.warned === state.version) return;
  const left = secondsLeft();
  if (left !== null && left <= WARN_SECONDS) { state.warned = state.version; alertPlayer("clock"); }
}

// ------------------------------------------------------------------ user actions
function selectCards(list) {
  state.selected = list;
  state.plays = null; state.ok = ""; state.message = ""; state.choices = null;
  checkSelection(false);
  render();
}
function checkSelection(playAfter) {
  const cards = selectedCards();
  const phase = state.obs && state.obs.phase;
  if (!cards.length || !canAct() || !["play", "immune"].includes(phase)) return;
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
    if (cards.length !== 1) { state.message = W[phase === "tribute" ? "tap_tribute" : "tap_return"]; return render(); }
    action({ [phase]: cards[0] });
    state.selected = [];
    return render();
  }
  if (!cards.length) { state.message = W.select_first; return render(); }
  if (state.plays) return playChecked();
  checkSelection(true);
}
function onPass() { action({ pass: true }); state.selected = []; state.message = ""; render(); }
function onHint() {
  if (state.hintVersion !== state.version || !state.hints.length) {
    send({ type: "hint", id: nextId++ });
    return;
  }
  cycleHint();
}
function cycleHint() {
  const o = state.obs;
  const following = o && (o.phase === "immune" || (o.phase === "play" && !o.lead));
  const plays = state.hints.filter((h) => !h.pass);
  if (!plays.length) {
    state.selected = [];
    state.message = following ? W.nothing_beats : "";
    render();
    return;
  }
  state.hintIndex = (state.hintIndex + 1) % plays.length;
  const h = plays[state.hintIndex];
  const cards = h.play || h.immune || [h.tribute || h.return].filter(Boolean);
  state.selected = remap(cards);
  state.plays = null; state.choices = null; state.message = "";
  checkSelection(false);
  render();
}
function onClear() { state.selected = []; state.plays = null; state.ok = ""; state.message = ""; state.choices = null; render(); }
function onDismiss() {
  const s = state.summary;
  state.summary = null;
  // the server decides when the next deal's clock starts; tell it only if it asks to be told
  if (s && s.kind === "deal" && state.table && has(state.table, "summary_pending")) {
    send({ type: "dismiss_summary", id: nextId++, deal: s.deal });
  }
  render();
}
function onAttention() {
  state.attention = !state.attention;
  localStorage.setItem(SOUND_KEY, state.attention ? "1" : "0");
  if (state.attention) beep(1, 880); // also unlocks audio: browsers allow it after a tap
  render();
}

app.addEventListener("click", (e) => {
  const el = e.target.closest("[data-act]");
  if (!el) return;
  const act = el.dataset.act;
  if (act === "play") onPlay();
  else if (act === "pass") onPass();
  else if (act === "hint") onHint();
  else if (act === "clear") onClear();
  else if (act === "choice") { action(state.choices[Number(el.dataset.index)]); state.selected = []; state.choices = null; render(); }
  else if (act === "choose") action({ choose: el.dataset.value });
  else if (act === "ask") action({ ask: Number(el.dataset.seat) });
  else if (act === "autoplay") send({ type: "autoplay", id: nextId++, on: el.dataset.on === "1" });
  else if (act === "dismiss") onDismiss();
  else if (act === "attention") onAttention();
  else if (act === "banner") { state.banner = ""; render(); }
  else if (act === "sanction") { state.sanction = null; render(); }
  else if (act === "history") { state.historyOpen = !state.historyOpen; render(); }
  else if (act === "rules") window.open(ruleUrl(shownRefusal()), "_blank", "noopener");
});

// ------------------------------------------------------------------ rendering
function clockHtml(s) {
  const t = state.table;
  if (!t || t.to_move !== s || !t.deadline) return "";
  const left = secondsLeft();
  // a bot's (or auto-play's) clock is no alarm: it plays by itself
  const info = t.seats[s];
  const bot = info && (info.bot || info.autoplay) ? " bot" : "";
  return `<span class="clock${left <= WARN_SECONDS && !bot ? " low" : ""}${bot}" data-clock="${s}">${esc(fmt(W.clock, { s: left }))}</span>`;
}
// A game whose sides are found deal by deal (Red Two): the sides are hidden until the deal is
// over; before, what this seat can tell from the ♥2s played and its own hand.
function redTwoAlly() {
  const o = state.obs;
  if (V.fixed_sides || state.you === null) return null;
  if (o.phase === "over" && Array.isArray(o.sides)) {
    const side = o.sides.find((x) => x.includes(state.you)) || [];
    return side.find((s) => s !== state.you) ?? null;
  }
  if (!o.h2_played || (o.mode && o.mode !== "partnership")) return null;
  const mine = (o.hand || []).filter((c) => c === "H2").length + (o.h2_played[state.you] || 0);
  const shown = o.h2_played.map((k, s) => (s !== state.you && k > 0 ? s : -1)).filter((s) => s >= 0);
  if (mine === 1 && shown.length) return shown[0];
  if (mine === 0 && shown.length === 2) return [0, 1, 2, 3].find((s) => s !== state.you && !shown.includes(s));
  return null;
}
function badgesHtml(s) {
  const o = state.obs;
  const info = state.table.seats[s];
  const out = [];
  const pos = o.finished.indexOf(s);
  if (pos >= 0) out.push(`<span class="badge gold">${esc(placeName(pos))}</span>`);
  if (V.initiative && o.phase === "play" && o.initiative && o.initiative[s]) out.push(`<span class="badge init" title="${esc(W.initiative_long)}">${esc(W.initiative)}</span>`);
  if (o.stuck && o.stuck[s]) out.push(`<span class="badge warn" title="${esc(W.stuck_long)}">${esc(W.stuck)}</span>`);
  if (o.suspended && o.suspended[s]) out.push(`<span class="badge warn">${esc(W.suspended)}</span>`);
  if (info.autoplay) out.push(`<span class="badge warn">${esc(W.autoplay)}</span>`);
  if (!V.fixed_sides) {
    if (o.solo === s && o.mode === "solo") out.push(`<span class="badge solo">${esc(W.choose_solo)}</span>`);
    if (o.h2_played && o.h2_played[s] > 0) out.push(`<span class="badge h2">♥2</span>`);
    if (redTwoAlly() === s) out.push(`<span class="badge ally">${esc(W.ally)}</span>`);
  }
  if (pointsGame() && o.match && Array.isArray(o.match.score) && o.match.score.length === seats()) {
    out.push(`<span class="badge score">${esc(fmt(W.total, { n: signed(o.match.score[s]) }))}</span>`);
  }
  return out.join("");
}
function countHtml(s) {
  const o = state.obs;
  let count = o.counts[s];
  if (s === state.you && (count === null || count === undefined)) count = sortedHand().length;
  if (count === 0) return "";
  if (count !== null && count !== undefined) {
    const few = count <= 6 ? " few" : "";
    return `<span class="count${few}" data-count="${count}">${esc(fmt(count === 1 ? W.card_one : W.cards, { n: count }))}</span>`;
  }
  // 7–10 cards not told yet may be asked at any time during play; the engine says whose
  // (``askable``): never above 10, so no button there
  const askable = Array.isArray(o.askable) && o.askable[s];
  if (askable && state.you !== null && s !== state.you && !(o.match && o.match.over)) {
    return `<button class="ask" data-act="ask" data-seat="${s}" title="${esc(W.cards_unknown)}">${esc(W.ask)}</button>`;
  }
  return `<span class="count unknown">${esc(W.cards_unknown)}</span>`;
}
function lastEntries() {
  // each seat's latest entry in the current trick, in the order they were made
  const o = state.obs;
  const last = new Map();
  o.trick.forEach((e, i) => last.set(e.seat, { ...e, i }));
  return [...last.values()].sort((a, b) => a.i - b.i);
}
function seatHtml(s) {
  const o = state.obs;
  const turn = o.turn === s && !(o.match && o.match.over) ? " turn" : "";
  const passed = lastEntries().some((e) => e.seat === s && e.pass) ? `<span class="passed">${esc(W.pass)}</span>` : "";
  const real = seatName(s) !== realName(s) ? `<span class="real">${esc(realName(s))}</span>` : "";
  return `<section class="strip pos-${relation(s)}${turn}" data-seat="${s}" aria-label="${esc(seatName(s))}">
    <div class="who"><strong>${esc(seatName(s))}</strong>${real}</div>
    <div class="facts">${countHtml(s)}${badgesHtml(s)}${passed}${clockHtml(s)}</div></section>`;
}
// A team level index as its rank name (Bao 2's second climb marked with its round).
function levelName(index) {
  const names = state.cards && state.cards.levels;
  const entry = names && names[index];
  if (!entry) return String(index);
  return entry[1] > 1 ? fmt(W.level_round, { rank: entry[0], n: entry[1] }) : entry[0];
}
// "Deal 5", or with a deal limit (计副制) "Deal 5 of 8", past it (a knockout tie) "Deal 9, extra".
function dealText(o) {
  const n = o.deal_no + 1;
  if (!o.deals_limit) return fmt(W.deal, { n });
  return n > o.deals_limit ? fmt(W.deal_extra, { n }) : fmt(W.deal_of, { n, max: o.deals_limit });
}
function barHtml() {
  const o = state.obs;
  const t = state.table;
  const parts = [`<a class="back" href="${esc(app.dataset.lobby)}" aria-label="${esc(W.all_tables)}">‹</a>`,
    `<span class="game">${esc(app.dataset.name)}</span>`, `<span class="deal-no">${esc(dealText(o))}</span>`];
  if (o.level) parts.push(`<span class="lv">${esc(W.level)} <strong class="level-card">${esc(o.level === "T" ? "10" : o.level)}</strong></span>`);
  if (teamGame() && o.levels && o.levels.length === 2) {
    const top = state.cards && state.cards.levels ? state.cards.levels.length - 1 : null;
    const names = [0, 1].map((t) => {
      const star = o.level_team === t ? `<span class="star" title="${esc(W.level_team)}">★</span>` : "";
      let attempt = "";
      if (o.attempts && (o.attempts[t] > 0 || (top !== null && o.levels[t] === top && o.level_team === t))) {
        attempt = ` <span class="attempts">${esc(has(o, "a_attempts") ? fmt(W.attempts_of, { n: o.attempts[t], max: o.a_attempts }) : fmt(W.attempts, { n: o.attempts[t] }))}</span>`;
      }
      return `<span class="team-level${o.level_team === t ? " playing" : ""}" data-team="${t}">${esc(teamName(t))} <b>${esc(levelName(o.levels[t]))}</b>${star}${attempt}</span>`;
    });
    parts.push(`<span class="levels">${names.join(" ")}</span>`);
  }
  if (has(o, "marked_card") && o.phase !== "over") parts.push(`<span class="marked">${esc(W.marked)} <b class="${isRed(o.marked_card) ? "red" : "black"}">${esc(cardLabel(o.marked_card))}</b></span>`);
  if (t && t.ends_at && !(o.match && o.match.over)) {
    const m = Math.max(0, Math.ceil((t.ends_at - (Date.now() / 1000 + state.offset)) / 60));
    parts.push(`<span class="muted">${esc(m > 0 ? fmt(W.time_left, { m }) : W.time_up)}</span>`);
  }
  const tools = [speaker.toolHtml()];
  // the table's show_history option: the server sends past tricks only then
  if (Array.isArray(o.history)) tools.push(`<button class="tool${state.historyOpen ? " on" : ""}" data-act="history" aria-pressed="${state.historyOpen}" aria-controls="history">${esc(W.history)}</button>`);
  const mine = state.you !== null && t.seats[state.you];
  if (mine && !mine.autoplay && !(o.match && o.match.over)) tools.push(`<button class="tool" data-act="autoplay" data-on="1">${esc(W.autoplay)}</button>`);
  if (ruleUrl("")) tools.push(`<button class="tool" data-act="rules" aria-label="${esc(app.dataset.rules_label)}" title="${esc(app.dataset.rules_label)}">?</button>`);
  if (phrases.enabled) tools.push(phrases.toolHtml(state.you));
  return `<header class="bar"><div class="bar-info">${parts.join("")}</div><div class="bar-tools">${tools.join("")}</div></header>`;
}
// A translated line naming a card: the words escaped, the card drawn where %(card)s stands.
function withCard(text, vars, card) {
  return String(text).split("%(card)s").map((part) => esc(fmt(part, vars))).join(face(card, " mini"));
}
function tributeHtml() {
  const o = state.obs;
  const tr = o.tribute;
  if (!tr || state.playedDeal === o.deal_no || (o.phase === "play" && (o.trick.length || o.finished.length))) return "";
  if (tr.anti) return `<p class="tribute">${esc(W.anti_tribute)}</p>`;
  const lines = [];
  tr.givers.forEach((g, k) => {
    const r = tr.receivers[k];
    const paid = tr.paid[k];
    if (paid) lines.push(withCard(W.tribute_to, { giver: seatName(g), receiver: seatName(r) }, paid));
    const back = tr.returned[k];
    if (typeof back === "string") lines.push(withCard(W.return_to, { giver: seatName(r), receiver: seatName(g) }, back));
  });
  return lines.length ? `<div class="tribute">${lines.map((l) => `<p>${l}</p>`).join("")}</div>` : "";
}
function chooseHtml() {
  const o = state.obs;
  if (o.phase !== "choose") return "";
  if (o.solo !== state.you) return `<p class="explain">${esc(fmt(W.choosing, { name: seatName(o.solo) }))}</p>`;
  const base = has(o, "base") ? `<p>${esc(fmt(W.base_is, { n: o.base }))}</p>` : "";
  return `<div class="explain"><p><strong>${esc(W.choose_why)}</strong></p><dl>
    <dt>${esc(W.choose_solo)}</dt><dd>${esc(W.solo_cost)}</dd>
    <dt>${esc(W.choose_surrender)}</dt><dd>${esc(W.surrender_cost)}</dd>
    <dt>${esc(W.choose_compare)}</dt><dd>${esc(W.compare_cost)}</dd></dl>${base}</div>`;
}
function trickHtml() {
  const o = state.obs;
  if (o.phase === "over" || (o.match && o.match.over)) return "";
  const entries = lastEntries();
  const plays = entries.filter((e) => !e.pass);
  if (!plays.length) {
    if (o.phase !== "play" || o.turn === null || o.turn === undefined) return "";
    const who = fmt(o.lead_kind === "jiefeng" ? W.jiefeng : W.leads, { name: seatName(o.turn) });
    return `<div class="trick empty" aria-label="${esc(W.trick)}"><p>${esc(who)}</p></div>`;
  }
  // with the history panel open (it lists every card played) the middle keeps the play to
  // beat: the trick's earlier plays would be pushed under the action bar on a phone
  const shown = state.historyOpen && Array.isArray(o.history) ? plays.slice(-1) : plays;
  return `<div class="trick" aria-label="${esc(W.trick)}">` + shown.map((e) => {
    const standing = o.standing && o.standing.seat === e.seat ? " standing" : "";
    return `<div class="play${standing}" data-seat="${e.seat}"><span class="who">${esc(seatName(e.seat))}</span>${miniCards(e.cards)}<em>${esc(W[e.type] || e.type || "")}</em></div>`;
  }).join("") + "</div>";
}
function sanctionHtml() {
  const n = state.sanction;
  if (!n) return "";
  const drop = n.drop ? `<span class="drop">${esc(n.drop)}</span>` : "";
  return `<p class="sanction ${esc(n.kind)}" role="status" data-act="sanction"><strong>${esc(n.text)}</strong>${drop}</p>`;
}
// Under show_history only: the last finished trick and every card each seat played in this
// deal (past tricks and the current one), sorted by the deal's order.
function historyHtml() {
  const o = state.obs;
  if (!state.historyOpen || !Array.isArray(o.history)) return "";
  const plays = (trick) => trick.filter((e) => !e.pass);
  const last = o.history.length ? plays(o.history[o.history.length - 1]) : [];
  const lastHtml = last.length
    ? last.map((e, k) => `<div class="play${k === last.length - 1 ? " standing" : ""}" data-seat="${e.seat}"><span class="who">${esc(seatName(e.seat))}</span>${miniCards(e.cards)}</div>`).join("")
    : `<p class="muted">${esc(W.nothing_played)}</p>`;
  const played = Array.from({ length: seats() }, () => []);
  for (const trick of [...o.history, o.trick]) for (const e of plays(trick)) played[e.seat].push(...e.cards);
  const rows = played.map((cards, s) => `<li data-seat="${s}"><span class="who">${esc(seatName(s))}</span>${cards.length ? miniCards(sortHand(cards, state.cards, o.level)) : `<span class="muted">—</span>`}</li>`).join("");
  return `<section class="history" id="history" aria-label="${esc(W.history)}"><button class="dismiss" data-act="history">${esc(W.close)}</button>
    <div class="last-trick"><h3>${esc(W.last_trick)}</h3>${lastHtml}</div><h3>${esc(W.played_cards)}</h3><ul class="played">${rows}</ul></section>`;
}
function centerHtml() {
  const o = state.obs;
  let html = "";
  // in the immune window its own banner names the 保2 (the trick it answers stays in view)
  if (state.banner && !o.immune_window && Date.now() - state.bannerAt < BANNER_MS) html += `<p class="banner" data-act="banner">${esc(state.banner)}</p>`;
  if (o.immune_window) {
    const w = o.immune_window;
    html += `<p class="banner immune"><span>${esc(fmt(W.immune_window, { name: seatName(w.bao2_seat) }))}</span> <span>${esc(w.deciding === state.you ? W.immune_you : fmt(W.immune_wait, { name: seatName(w.deciding) }))}</span></p>`;
  }
  html += tributeHtml() + trickHtml();
  return `<div class="table-center">${html}</div>`;
}
function signed(n) { return n > 0 ? `+${n}` : String(n); }
function finishLine(finish) {
  return (finish || []).map((s, k) => `${esc(placeName(k))} ${esc(seatName(s))}`).join(" · ");
}
// Why each team's level moved, as the engine settled it (``breakdown``: reasons with levels).
const bare = (word) => String(word ?? "").replace(/[!！]$/, "");
function levelReasons(prev, t) {
  const items = Array.isArray(prev.breakdown) ? prev.breakdown[t] || [] : [];
  const word = { bao2: bare(W.bao2), guan2: bare(W.guan2) };
  const base = { 3: W.why_double, 2: W.why_second, 1: W.why_single }; // they say their levels
  return items.map((r) => (r.reason === "base" && base[r.levels]) || `${word[r.reason] || W["why_" + r.reason] || r.reason} ${signed(r.levels)}`).join(" · ");
}
// One seat's points of a point-scored deal, as the engine settled them (``breakdown``).
function pointReasons(items) {
  return (items || []).map((r) => {
    const facts = [];
    if (r.fans) facts.push(fmt(W.fans, { n: r.fans }));
    if (r.cards_left) facts.push(fmt(r.cards_left === 1 ? W.cards_left_one : W.cards_left, { n: r.cards_left }));
    if (r.multiplier > 1) facts.push(fmt(W.multiplier, { n: r.multiplier }));
    if (Array.isArray(r.lines) && r.lines.length) facts.push(fmt(W.lines, { n: r.lines.join(" + ") }));
    const name = r.reason === "reward" ? fmt(W.reward, { n: signed(r.points) })
      : `${W["why_" + r.reason] || W["choose_" + r.reason] || ""} ${signed(r.points)}`.trim();
    return facts.length ? `${name} (${facts.join(", ")})` : name;
  }).join(" · ");
}
function dealSummaryHtml(prev, before) {
  let body = "";
  if (prev.finish && prev.finish.length) body += `<p>${finishLine(prev.finish)}</p>`;
  if (prev.levels && prev.levels.length === 2 && teamGame()) {
    body += "<ul class=\"teams\">" + [0, 1].map((t) => {
      const from = before ? levelName(before[t]) : "";
      const why = levelReasons(prev, t);
      return `<li><strong>${esc(teamName(t))}</strong> ${from ? `${esc(from)} → ` : ""}${esc(levelName(prev.levels[t]))}${why ? ` <span class="why">(${esc(why)})</span>` : ""}</li>`;
    }).join("") + "</ul>";
  }
  if (Array.isArray(prev.points)) {
    if (prev.mode && prev.mode !== "partnership") body += `<p>${esc(W["choose_" + prev.mode] || prev.mode)}</p>`;
    body += "<ul class=\"points\">" + prev.points.map((p, s) => {
      const why = pointReasons(Array.isArray(prev.breakdown) ? prev.breakdown[s] : []);
      return `<li data-seat="${s}"><strong>${esc(seatName(s))}</strong> ${esc(signed(p))}${why ? ` <span class="why">(${esc(why)})</span>` : ""}</li>`;
    }).join("") + "</ul>";
    if (Array.isArray(prev.sides) && state.you !== null) {
      const side = prev.sides.find((x) => x.includes(state.you));
      const others = side ? side.filter((s) => s !== state.you) : [];
      if (others.length) body += `<p>${esc(W.ally)}: ${others.map((s) => esc(seatName(s))).join(" · ")}</p>`;
    }
  }
  return body;
}
function summaryHtml() {
  const m = state.summary;
  if (!m) return "";
  let title = W.deal_over;
  let body = "";
  if (m.kind === "match") {
    title = W.match_over;
    const r = m.data;
    let who = W.draw;
    if (r.winner !== null && r.winner !== undefined) {
      if (pointsGame()) who = fmt(W.seat_wins, { name: seatName(r.winner) });
      else who = state.you === null ? fmt(W.winner_team, { n: r.winner + 1 }) : (r.winner === state.you % 2 ? W.we_win : W.they_win);
    }
    let score = "";
    if (Array.isArray(r.score)) {
      score = pointsGame()
        ? r.score.map((p, s) => `${seatName(s)} ${signed(p)}`).join(" · ")
        : r.score.map((lv, t) => `${teamName(t)} ${levelName(lv)}`).join(" · ");
    }
    body = `<p class="big">${esc(who)}</p><p>${esc(score)}</p><p class="muted">${esc(W["reason_" + r.reason] || "")}</p>`;
    if (m.previous) body += dealSummaryHtml(m.previous, m.before);
  } else {
    body = dealSummaryHtml(m.data, m.before);
  }
  return `<section class="summary${m.kind === "match" ? " final" : ""}" role="status" aria-label="${esc(title)}"><div class="summary-head"><h2>${esc(title)}</h2><button class="dismiss" data-act="dismiss">${esc(W.close)}</button></div>${body}</section>`;
}
function controlsHtml() {
  const o = state.obs;
  if (state.you === null) return `<div class="controls"><p class="status muted">${esc(W.spectator)}</p></div>`;
  if (o.match && o.match.over) return `<div class="controls">${moments.afterMatchHtml(state.you)}</div>`;
  const mine = state.table.seats[state.you];
  if (mine && mine.autoplay) {
    return `<div class="controls"><div class="buttons"><button data-act="autoplay" data-on="0">${esc(W.autoplay_off)}</button></div></div>`;
  }
  let status = "";
  let buttons = "";
  if (canAct()) {
    status = `<strong class="your-turn">${esc(W.your_turn)}${o.lead ? " · " + esc(W.lead) : ""}</strong>${clockHtml(state.you)}`;
    if (o.phase === "choose") {
      buttons = ["solo", "surrender", "compare"].map((v) => `<button data-act="choose" data-value="${v}">${esc(W["choose_" + v])}</button>`).join("");
    } else if (o.phase === "tribute" || o.phase === "return") {
      status += ` <span>${esc(W[o.phase === "tribute" ? "tap_tribute" : "tap_return"])}</span>`;
      buttons = `<button data-act="play">${esc(W[o.phase])}</button><button class="secondary" data-act="hint">${esc(W.hint)}</button><button class="secondary" data-act="clear">${esc(W.clear)}</button>`;
    } else {
      const nothing = state.message === W.nothing_beats ? " suggest" : "";
      buttons = `<button data-act="play">${esc(W.play)}</button>`;
      if (o.phase === "immune" || (o.phase === "play" && !o.lead)) buttons += `<button class="secondary${nothing}" data-act="pass">${esc(W.pass)}</button>`;
      buttons += `<button class="secondary" data-act="hint">${esc(W.hint)}</button><button class="secondary" data-act="clear">${esc(W.clear)}</button>`;
    }
  } else if (o.turn !== null && o.turn !== undefined) {
    status = `<span>${esc(fmt(W.waiting_for, { name: seatName(o.turn) }))}</span>`;
  }
  let choices = "";
  if (state.choices) {
    choices = `<div class="choices">${esc(W.choose_type)} ` + state.choices.map((p, i) => `<button data-act="choice" data-index="${i}">${esc(W[p.type] || p.type || W.immune)}</button>`).join("") + "</div>";
  }
  const why = state.refusal && state.refusal.message === state.message && state.refusal.code in RULE_OF_CODE
    ? ` ${ruleLink(state.refusal.code)}` : "";
  const msg = state.message ? `<p class="refusal" role="alert">${esc(state.message)}${why}</p>` : (state.ok ? `<p class="ok">${esc(state.ok)}</p>` : "");
  return `<div class="controls"><div class="status">${status}</div>${msg}${choices}${buttons ? `<div class="buttons">${buttons}</div>` : ""}</div>`;
}
function handHtml() {
  return sortedHand().length ? hand.html(new Set(state.selected)) : "";
}
function layoutHand() { hand.layout(); }
function render() {
  const o = state.obs;
  if (!o) return;
  document.body.classList.add("at-table");
  const n = seats();
  const others = Array.from({ length: n }, (_, s) => s).filter((s) => s !== state.you && !(state.you === null && relation(s) === "bottom"));
  const strip = (pos) => others.filter((s) => relation(s) === pos).map(seatHtml).join("");
  const offline = state.connected ? "" : `<p class="offline" role="status">${esc(W.reconnecting)}</p>`;
  app.innerHTML = `${barHtml()}${offline}
    <div class="middle seats-${n}"><div class="wide">${sanctionHtml()}${summaryHtml()}${historyHtml()}${chooseHtml()}</div>${strip("top")}${strip("left")}${centerHtml()}${strip("right")}${state.you === null ? seatHtml(0) : ""}</div>
    <div class="bottom">${controlsHtml()}${state.you !== null ? `<div class="my-facts">${badgesHtml(state.you)}</div>` : ""}${handHtml()}</div>`;
  app.classList.add("live");
  layoutHand();
  phrases.render(app, state.you);
  app.dataset.version = String(state.version);
  app.dataset.phase = o.phase;
  app.dataset.turn = String(o.turn);
  app.dataset.you = String(state.you);
  app.dataset.deal = String(o.deal_no);
  app.dataset.over = o.match && o.match.over ? "1" : "0";
  app.dataset.acting = canAct() ? "1" : "0";
}

window.addEventListener("resize", layoutHand);
setInterval(() => {
  for (const el of app.querySelectorAll("[data-clock]")) {
    const left = secondsLeft();
    el.textContent = fmt(W.clock, { s: left });
    el.classList.toggle("low", left !== null && left <= WARN_SECONDS && !el.classList.contains("bot"));
  }
  clockWarning();
  if (state.banner && Date.now() - state.bannerAt >= BANNER_MS) { state.banner = ""; render(); }
  // quiet for a while: ask for anything missed (the server answers with the missing events)
  if (state.version >= 0 && Date.now() - lastFrame > 10000) {
    lastFrame = Date.now();
    send({ type: "hello", version: state.version });
  }
}, 500);

if (app.dataset.started === "1" || document.querySelector(".seat-setup")) connect();
