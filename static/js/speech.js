// A table that speaks and sounds (issue 43, point 3). Card sounds are synthesised with
// WebAudio (nothing to download); announcements go through the browser's own speech
// synthesis (speechSynthesis: no network), in the page's language: a Chinese voice for
// Chinese, an English one for English, and silence where the device has no such voice.
// The texts are the server's translated templates (matches.announcements, words "say_*").
//
// Settings of this device (localStorage, all on unless turned off): 提醒 (the turn's alert),
// sound, voice, vibration — one toggle each in the ⚙ panel, next to the text size.
import { sizeName } from "./textsize.js";

const KEYS = { attention: "table.attention", sound: "table.sound", voice: "table.voice", vibrate: "table.vibrate" };
const SIZES = ["standard", "large", "xlarge"];
const BOMBS = new Set(["bomb", "straight_flush", "joker_bomb", "dragon", "supreme", "two_bomb", "immune", "chain_bomb", "joker3", "joker4"]);
const esc = (t) => String(t ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const fmt = (text, vars = {}) => String(text ?? "").replace(/%\((\w+)\)s|\{(\w+)\}/g, (_, a, b) => (vars[a || b] ?? ""));
const RANKS = "23456789TJQKA";

function stored(key) {
  try { return localStorage.getItem(KEYS[key]) !== "0"; } catch (error) { return true; }
}

// The rank a combo is said with: the entry's key, else the rank most of its natural cards share.
export function comboRank(cards, type, key, wild) {
  if (key) return key;
  const count = new Map();
  for (const c of cards || []) {
    if (c === wild) continue;
    const r = c === "SB" || c === "HR" ? c : c[1];
    count.set(r, (count.get(r) || 0) + 1);
  }
  let best = null;
  for (const [r, n] of count) if (!best || n > count.get(best) || (n === count.get(best) && RANKS.indexOf(r) > RANKS.indexOf(best))) best = r;
  return best;
}

// The text for one announcement kind, as matches.announcements.announcement builds it.
export function announcementText(W, kind, vars = {}) {
  const template = W[`say_${kind}`];
  if (!template) return "";
  const values = { ...vars };
  if (kind === "play") {
    const combo = W[`say_combo_${vars.type}`] || "";
    const rank = vars.rank ? (W[`say_rank_${vars.rank}`] || vars.rank) : "";
    values.combo = fmt(combo, { rank }).trim();
  }
  return fmt(template, values).split(/\s+/).filter(Boolean).join(" ");
}

export function createSpeaker(W, { lang = document.documentElement.lang || "zh-hans" } = {}) {
  const on = { attention: stored("attention"), sound: stored("sound"), voice: stored("voice"), vibrate: stored("vibrate") };
  let audio = null;
  let panelOpen = false;
  const chinese = lang.toLowerCase().startsWith("zh");

  function context() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume().catch(() => {});
      return audio;
    } catch (error) { return null; } // no audio on this device: the words and vibration still tell
  }
  // A short tone: ``pitch`` Hz, ``length`` s, ``kind`` of wave; several ``times`` a quarter second apart.
  function tone(pitch, length = 0.2, times = 1, kind = "sine", volume = 0.25) {
    const ctx = context();
    if (!ctx) return;
    for (let k = 0; k < times; k++) {
      const start = ctx.currentTime + k * 0.25;
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = kind;
      osc.frequency.value = pitch;
      gain.gain.setValueAtTime(volume, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(start);
      osc.stop(start + length);
    }
  }
  // A card laid on the felt: a short filtered noise (a bomb: a low thump under it).
  function cardSound(bomb) {
    if (!on.sound) return;
    const ctx = context();
    if (!ctx) return;
    try {
      const length = 0.08;
      const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * length), ctx.sampleRate);
      const data = buffer.getChannelData(0);
      for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / data.length, 3);
      const src = ctx.createBufferSource();
      const filter = ctx.createBiquadFilter();
      const gain = ctx.createGain();
      filter.type = "bandpass"; filter.frequency.value = 2200;
      gain.gain.value = 0.5;
      src.buffer = buffer;
      src.connect(filter).connect(gain).connect(ctx.destination);
      src.start();
      if (bomb) tone(90, 0.35, 1, "triangle", 0.5);
    } catch (error) { /* nothing to hear */ }
  }
  function pickVoice() {
    const synth = window.speechSynthesis;
    if (!synth || !synth.getVoices) return null;
    const voices = synth.getVoices();
    const want = chinese ? (v) => /^zh([-_](CN|Hans)|$)/i.test(v.lang) || /^cmn/i.test(v.lang) : (v) => /^en/i.test(v.lang);
    return voices.find((v) => want(v) && v.localService !== false) || voices.find(want) || null;
  }
  function say(text) {
    if (!on.voice || !text) return;
    try {
      const synth = window.speechSynthesis;
      if (!synth || typeof window.SpeechSynthesisUtterance !== "function") return;
      const voice = pickVoice();
      if (!voice) return; // no voice of this language on the device: silent
      const u = new SpeechSynthesisUtterance(text);
      u.voice = voice;
      u.lang = voice.lang;
      u.rate = 0.95;
      synth.speak(u);
    } catch (error) { /* silent fallback */ }
  }
  function vibrate(pattern) {
    if (on.vibrate && navigator.vibrate) navigator.vibrate(pattern);
  }
  // The turn's alert (提醒) and the clock's warning.
  function alert(kind) {
    if (!on.attention) return;
    if (on.sound) { if (kind === "turn") tone(880); else tone(660, 0.2, 3); }
    vibrate(kind === "turn" ? 200 : [120, 80, 120, 80, 120]);
    if (kind === "turn") say(announcementText(W, "your_turn"));
  }

  // What happened in a frame, said and sounded. ``ctx``: {events, before, obs, you, seatName, wild}.
  function frame(ctx) {
    const { events = [], before, obs, seatName, wild } = ctx;
    if (!obs) return [];
    const lines = [];
    let sounded = false;
    for (const e of events) {
      const a = e.action || {};
      if (e.seat === null || e.seat === undefined) continue;
      const name = seatName(e.seat);
      if (a.play || a.immune) {
        const cards = a.play || a.immune;
        const type = a.immune ? "immune" : a.type;
        const entry = (obs.trick || []).find((t) => t.seat === e.seat && !t.pass) || {};
        cardSound(BOMBS.has(type)); sounded = true;
        lines.push(announcementText(W, "play", { name, type, rank: comboRank(cards, type, entry.key, wild) }));
      } else if (a.pass) {
        lines.push(announcementText(W, "pass", { name }));
      } else if (a.tribute) {
        if (!sounded) { cardSound(false); sounded = true; }
        lines.push(announcementText(W, "tribute", { name }));
      }
    }
    const sameDeal = before && before.deal_no === obs.deal_no;
    if (sameDeal && obs.bao2 && before.bao2) {
      obs.bao2.forEach((n, t) => {
        if (n > before.bao2[t]) {
          const seat = events.map((e) => e.seat).filter((s) => s !== null && s !== undefined && s % 2 === t).pop();
          lines.push(announcementText(W, "bao2", { name: seat === undefined ? "" : seatName(seat) }));
        }
      });
    }
    // 报牌: a count newly told at few cards
    if (sameDeal && Array.isArray(obs.counts) && Array.isArray(before.counts)) {
      obs.counts.forEach((n, s) => {
        if (s === ctx.you || n === null || n === undefined || n <= 0 || n > 6 || n === before.counts[s]) return;
        lines.push(announcementText(W, n === 1 ? "report_one" : "report", { name: seatName(s), n }));
      });
    }
    if (before && obs.deal_no !== before.deal_no && obs.previous) {
      const guan2 = Array.isArray(obs.previous.breakdown) && obs.previous.breakdown.some((items) => (items || []).some((r) => r.reason === "guan2"));
      if (guan2) lines.push(announcementText(W, "guan2"));
      if (!(obs.match && obs.match.over)) lines.push(announcementText(W, "deal_over"));
    }
    if (obs.match && obs.match.over && !(before && before.match && before.match.over)) lines.push(announcementText(W, "match_over"));
    const said = lines.filter(Boolean);
    // only what is news: a resynchronisation (no previous state) says nothing
    if (before) for (const line of said) say(line);
    return said;
  }

  function set(key, value) {
    on[key] = value;
    try { localStorage.setItem(KEYS[key], value ? "1" : "0"); } catch (error) { /* kept for this page */ }
    if (key === "sound" && value) tone(880); // a tap also unlocks audio in browsers
    if (key === "vibrate" && value) vibrate(100);
    if (key === "voice" && value) say(W.say_your_turn || "");
  }
  function toolHtml() {
    return `<button class="tool${panelOpen ? " on" : ""}" data-voice="panel" aria-expanded="${panelOpen}" aria-controls="table-settings" aria-label="${esc(W.settings)}" title="${esc(W.settings)}">⚙</button>`;
  }
  function panelHtml() {
    if (!panelOpen) return "";
    const row = (key) => `<button class="switch${on[key] ? " on" : ""}" role="switch" aria-checked="${on[key]}" data-voice="${key}">${esc(W[`setting_${key}`])}<span>${esc(on[key] ? W.setting_on : W.setting_off)}</span></button>`;
    const size = document.documentElement.className.match(/text-(\w+)/);
    const current = size ? size[1] : "standard";
    const sizes = SIZES.map((s) => `<button class="size${s === current ? " on" : ""}" data-text-size="${s}" aria-pressed="${s === current}">${esc(sizeName(s))}</button>`).join("");
    return `<section class="table-settings" id="table-settings" aria-label="${esc(W.settings)}">${["attention", "sound", "voice", "vibrate"].map(row).join("")}
      <div class="sizes" role="group" aria-label="${esc(document.documentElement.dataset.textSizeLabel || "")}">${sizes}</div>
      <button class="dismiss" data-voice="panel">${esc(W.close)}</button></section>`;
  }
  // The panel lives outside the table's app (its render rewrites the app).
  function drawPanel() {
    let box = document.getElementById("table-settings-box");
    if (!box) {
      box = document.createElement("div");
      box.id = "table-settings-box";
      document.body.appendChild(box);
    }
    box.innerHTML = panelHtml();
    const bar = document.querySelector(".live .bar");
    if (bar && box.firstElementChild) box.firstElementChild.style.top = `${Math.round(bar.getBoundingClientRect().bottom) + 4}px`;
    for (const b of document.querySelectorAll("[data-voice=panel].tool")) { b.classList.toggle("on", panelOpen); b.setAttribute("aria-expanded", String(panelOpen)); }
  }
  document.addEventListener("click", (event) => {
    const el = event.target instanceof Element && event.target.closest("[data-voice]");
    if (!el) {
      if (panelOpen && event.target instanceof Element && event.target.closest("[data-text-size]")) setTimeout(drawPanel, 0);
      return;
    }
    const key = el.dataset.voice;
    if (key === "panel") panelOpen = !panelOpen;
    else set(key, !on[key]);
    drawPanel();
  });
  return { on, alert, frame, say, cardSound, toolHtml, drawPanel, available: () => !!window.speechSynthesis };
}
