// The player's own hand at the live table: rank columns, selection by touch and slide, and
// 理牌 (the hand grouped into bombs and straight flushes, then moved by the player).
// docs/table.md says how it works and why. table.js owns what a selection means (indices
// into ``order()``); this module draws the cards, turns touches into selections and keeps
// the arrangement of each deal in this browser (localStorage, one key per table and deal).
import { cardFace, cardLabel, sortHand } from "./cards.js";

const esc = (text) => String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

// Sizes in CSS px. Portrait ("cols"): each column is a rank (or a 理牌 group), its cards
// stacked downwards, each showing a strip STEP px high and the whole column wide (at least
// 45 × 30: the 28 × 44 touch region); columns wrap into bands. Landscape phones ("fan": the
// screen is under 500 px high, too low for columns): the cards of a column lie side by side,
// each showing 45 px of its width and at least 47 px of its height (44 × 44), in up to two
// overlapping rows.
const COLS = { minW: 45, maxW: 58, step: 30, tight: 28, ratio: 1.2, gap: 2, maxStack: 5 };
const COLS_BIG = { minW: 56, maxW: 66, step: 34, tight: 34, ratio: 1.36, gap: 4, maxStack: 6 };
const FAN = { show: 45, w: 54, h: 74, rowShow: 47, gap: 8 };

// A card's column in the rank order: the wild card apart, each joker apart, else its rank.
function columnKey(card, wild) {
  if (wild && card === wild) return "wild";
  return card === "SB" || card === "HR" ? card : card[1];
}

// Take ``cards`` (a multiset) out of ``pool``; the ones found, in their order.
function takeFrom(pool, cards) {
  const out = [];
  for (const c of cards) {
    const k = pool.indexOf(c);
    if (k >= 0) { pool.splice(k, 1); out.push(c); }
  }
  return out;
}

/**
 * The hand of one seat at one table. ``root``: the element the hand is drawn into (events
 * are delegated to it); ``words``: the page's translated words; ``tableId``: the key of the
 * stored arrangement; ``ask()``: send the 理牌 request (hint with arrange); ``select(list)``:
 * the player's new selection (indices into ``order()``), after a touch, a slide or a change
 * of arrangement.
 */
export function createHand({ root, words, tableId, ask, select }) {
  const W = words;
  let deal = null;
  let groups = []; // the arrangement of this deal: [{type, cards}] (type null: the player's own)
  let cache = null;
  let view = { cards: [], columns: [], wild: null, level: null };
  let gesture = null;
  let selectedNow = new Set();

  const storeKey = (d) => `hand:${tableId}:${d}`;
  function load(d) {
    deal = d;
    cache = null;
    try { groups = JSON.parse(localStorage.getItem(storeKey(d)) || "[]"); } catch (error) { groups = []; }
    // (what another version of the page stored, or a hand edited it: only lists of cards)
    if (!Array.isArray(groups)) groups = [];
    groups = groups.filter((g) => g && Array.isArray(g.cards) && g.cards.every((c) => typeof c === "string"));
  }
  function save() {
    cache = null;
    try {
      // one arrangement per table: the last deal's goes when this one is stored
      for (let k = localStorage.length - 1; k >= 0; k--) {
        const key = localStorage.key(k);
        if (key && key.startsWith(`hand:${tableId}:`) && key !== storeKey(deal)) localStorage.removeItem(key);
      }
      if (groups.length) localStorage.setItem(storeKey(deal), JSON.stringify(groups));
      else localStorage.removeItem(storeKey(deal));
    } catch (error) { /* private browsing: the arrangement lasts as long as the page */ }
  }

  // The hand in the order shown: the arrangement's groups (what is left of them in the hand:
  // a 理牌 group that lost a card is no longer a bomb and goes back), then rank columns of
  // the rest, high to low by the variant's order (``info``: the server's cards frame).
  function order(hand, info, level, dealNo) {
    if (!hand || !hand.length) { view = { cards: [], columns: [], wild: null, level }; return []; }
    if (dealNo !== deal) load(dealNo);
    const wild = info ? info.wild : null;
    const stamp = `${dealNo}|${level}|${hand.join(",")}|${JSON.stringify(groups)}|${wild}`;
    if (cache === stamp) return view.cards;
    const pool = [...hand];
    const columns = [];
    const kept = [];
    for (const g of groups) {
      const got = takeFrom(pool, g.cards || []);
      if (g.type && got.length !== g.cards.length) { pool.push(...got); continue; }
      if (!got.length) continue;
      kept.push({ type: g.type || null, cards: got });
      columns.push({ cards: got, type: g.type || "own" });
    }
    if (kept.length !== groups.length) { groups = kept; save(); }
    for (const c of sortHand(pool, info, level)) {
      const key = columnKey(c, wild);
      const last = columns[columns.length - 1];
      if (last && !last.type && last.key === key) last.cards.push(c);
      else columns.push({ cards: [c], key, type: null });
    }
    const cards = [];
    for (const col of columns) col.first = cards.push(...col.cards) - col.cards.length;
    view = { cards, columns, wild, level };
    cache = stamp;
    return cards;
  }

  const big = () => window.innerWidth >= 700 && window.innerHeight >= 600;
  const mode = () => (window.innerHeight < 500 ? "fan" : "cols");

  function toolsHtml(selected) {
    const any = selected.size > 0;
    const arranged = groups.length > 0;
    const grouped = any && [...selected].some((i) => view.columns.some((c) => c.type && i >= c.first && i < c.first + c.cards.length));
    const first = any
      ? `<button class="hand-tool" data-hand="group">${esc(W.hand_group)}</button>`
      : `<button class="hand-tool" data-hand="arrange">${esc(W.hand_arrange)}</button>`;
    let second = "";
    if (grouped) second = `<button class="hand-tool" data-hand="ungroup">${esc(W.hand_ungroup)}</button>`;
    else if (!any && arranged) second = `<button class="hand-tool" data-hand="reset">${esc(W.hand_reset)}</button>`;
    return `<div class="hand-tools">${first}${second}<span class="hand-tip">${esc(W.hand_slide)}</span></div>`;
  }

  // The hand as buttons, one per card, and the frames of the groups (``selected``: a Set of
  // indices into ``order()``; during a slide the slide's own selection is shown).
  function html(selected) {
    const sel = gesture ? gesture.selection : selected;
    selectedNow = new Set(selected);
    if (!view.cards.length) return "";
    const type = (t) => (t === "own" ? W.hand_own_group : W[t] || t);
    let body = "";
    view.columns.forEach((col, k) => {
      if (col.type) body += `<div class="hand-frame ${col.type === "own" ? "own" : "combo"}" data-col="${k}" title="${esc(type(col.type))}"></div>`;
      col.cards.forEach((c, j) => {
        const i = col.first + j;
        const on = sel.has(i);
        body += `<button type="button" class="card-button${on ? " selected" : ""}" data-index="${i}" data-col="${k}" data-pos="${j}" aria-pressed="${on}" aria-label="${esc(cardLabel(c))}">${cardFace(c, view.level, view.wild)}</button>`;
      });
    });
    return `<div class="hand ${mode()}" role="group" aria-label="${esc(W.your_hand)}" data-groups="${groups.length}">${toolsHtml(sel)}<div class="hand-cards">${body}</div></div>`;
  }

  // The hand is laid out again when its box changes width with no resize of the window (a
  // summary panel opens, the bar is drawn again, the screen turns while a panel is open):
  // a ResizeObserver on the cards' box, at most once an animation frame, and only when the
  // width differs from the one the last layout used. The layout sets the box's height only,
  // never its width, so it does not set itself off again (no layout → resize → layout loop).
  let laidWidth = null;
  let watched = null;
  let pending = 0;
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => {
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      const box = root.querySelector(".hand .hand-cards");
      if (box && boxWidth(box) !== laidWidth) layout();
    });
  }) : null;
  function watch(box) {
    if (!observer || box === watched) return;
    if (watched) observer.unobserve(watched);
    observer.observe(box);
    watched = box;
  }
  // the whole px the cards may take: clientWidth rounds a box of 843.6 px up to 844
  const boxWidth = (box) => Math.min(box.clientWidth, Math.floor(box.getBoundingClientRect().width));

  // Place the cards (absolute positions, computed from the width the hand has).
  function layout() {
    const hand = root.querySelector(".hand");
    if (!hand) { laidWidth = null; return; }
    const box = hand.querySelector(".hand-cards");
    watch(box);
    const m = mode();
    hand.classList.toggle("fan", m === "fan");
    hand.classList.toggle("cols", m === "cols");
    const buttons = [...box.querySelectorAll(".card-button")];
    // (a group taller than a column goes on in the next ones: one frame per band it spans,
    // the extra ones copies marked "part", made again at every layout)
    for (const extra of box.querySelectorAll(".hand-frame.part")) extra.remove();
    const frames = [...box.querySelectorAll(".hand-frame")];
    const byCol = new Map();
    for (const b of buttons) {
      const k = Number(b.dataset.col);
      if (!byCol.has(k)) byCol.set(k, []);
      byCol.get(k).push(b);
    }
    const place = (el, x, y, w, h) => { el.style.left = `${x}px`; el.style.top = `${y}px`; el.style.width = `${w}px`; el.style.height = `${h}px`; };
    const frame = (k, x, y, w, h) => { const f = frames.find((e) => Number(e.dataset.col) === k); if (f) place(f, x - 2, y - 2, w + 4, h + 4); };
    const avail = boxWidth(box);
    laidWidth = avail;
    const toolsBox = hand.querySelector(".hand-tools");
    if (toolsBox) { toolsBox.style.left = ""; toolsBox.style.top = ""; toolsBox.style.width = ""; }
    hand.classList.remove("tools-slot");
    if (m === "cols") {
      const s = big() ? COLS_BIG : COLS;
      // tall columns go on in the next column (a bomb of 6 on a phone: 5 + 1)
      const visual = [];
      for (const [k, list] of byCol) for (let a = 0; a < list.length; a += s.maxStack) visual.push({ k, list: list.slice(a, a + s.maxStack) });
      const fit = Math.max(1, Math.floor((avail + s.gap) / (s.minW + s.gap)));
      // the buttons take a free place at the end of the last band, as a column of their own
      // (a row above the cards would cost the middle of the screen 48 px); with no free
      // place, the row above
      const tools = hand.querySelector(".hand-tools");
      const bands = Math.ceil(visual.length / fit);
      // a tall hand (long columns in two bands) takes strips of 28 px, the least a finger
      // needs, and square cards (the index at the top is what is read), so that the trick
      // above keeps its room
      const longest = Math.min(s.maxStack, Math.max(...visual.map((c) => c.list.length)));
      const wOf = (n) => Math.max(s.minW, Math.min(s.maxW, Math.floor((avail - s.gap * (n - 1)) / n)));
      const tall = bands * (Math.round(wOf(Math.ceil(visual.length / bands)) * s.ratio) + 5 + (longest - 1) * s.step) > window.innerHeight * 0.36;
      const step = tall ? s.tight : s.step;
      const hOf = (w) => Math.round(w * (tall && s === COLS ? 1.0 : s.ratio));
      // as many columns a band as make the hand lowest (the long columns together), from
      // bands as even as can be up to full ones
      const heightOf = (n) => {
        let total = 0;
        for (let a = 0; a < visual.length; a += n) total += Math.max(...visual.slice(a, a + n).map((c) => (c.list.length - 1) * step)) + hOf(wOf(n)) + 5;
        return total + (bands * n > visual.length ? 0 : 48); // no free place: the row above
      };
      let per = Math.ceil(visual.length / bands);
      for (let n = per + 1; n <= fit; n++) if (Math.ceil(visual.length / n) === bands && heightOf(n) < heightOf(per)) per = n;
      const w = wOf(per);
      const h = hOf(w);
      const slot = !!tools && bands * per > visual.length;
      hand.classList.toggle("tools-slot", slot);
      let y = 2;
      const spans = []; // the box of each group in each band: {k, band, x, y, r, bottom}
      for (let b = 0; b < bands; b++) {
        const band = visual.slice(b * per, (b + 1) * per);
        const last = slot && b === bands - 1;
        const slots = band.length + (last ? 1 : 0);
        const width = slots * w + (slots - 1) * s.gap;
        let x = Math.max(0, Math.floor((avail - width) / 2));
        let tallest = 0;
        for (const col of band) {
          col.list.forEach((btn, j) => place(btn, x, y + j * step, w, h));
          const height = (col.list.length - 1) * step + h;
          const span = spans[spans.length - 1];
          if (span && span.k === col.k && span.band === b) { span.r = x + w; span.bottom = Math.max(span.bottom, y + height); }
          else spans.push({ k: col.k, band: b, x, y, r: x + w, bottom: y + height });
          tallest = Math.max(tallest, height);
          x += w + s.gap;
        }
        if (last) {
          tools.style.left = `${x}px`; tools.style.top = `${y}px`; tools.style.width = `${w}px`;
          tallest = Math.max(tallest, tools.offsetHeight);
        }
        y += tallest + 5;
      }
      const framed = new Set();
      for (const span of spans) {
        let f = frames.find((e) => Number(e.dataset.col) === span.k);
        if (!f) continue;
        if (framed.has(span.k)) { const copy = f.cloneNode(false); copy.classList.add("part"); box.insertBefore(copy, f); f = copy; }
        framed.add(span.k);
        place(f, span.x - 2, span.y - 2, span.r - span.x + 4, span.bottom - span.y + 4);
      }
      box.style.height = `${y}px`;
      hand.style.setProperty("--card-w", `${w}px`);
      // the index sized to the column: "10♦" whole on one line, never under 18 px
      const [rank, suit] = s === COLS_BIG ? [25, 23] : w >= 50 ? [21, 19] : [19, 18];
      hand.style.setProperty("--ix-b", `${rank}px`);
      hand.style.setProperty("--ix-i", `${suit}px`);
      root.dataset.handRows = String(bands);
    } else {
      const s = FAN;
      const widthOf = (list) => (list.length - 1) * s.show + s.w;
      const cols = [...byCol].map(([k, list]) => ({ k, list, width: widthOf(list) }));
      const wrap = (max, gap) => {
        const out = [[]];
        let used = 0;
        for (const c of cols) {
          const line = out[out.length - 1];
          if (line.length && used + gap + c.width > max) { out.push([c]); used = c.width; } else { used += (line.length ? gap : 0) + c.width; line.push(c); }
        }
        return out;
      };
      // balanced rows: as even as the columns allow, never wider than the hand; when whole
      // groups cannot share the rows their width needs, the gaps between groups narrow (to
      // 4 px, where the frames meet) before the hand takes a row more from the table
      let lines;
      let gap = s.gap;
      for (gap of [s.gap, 4]) {
        const total = cols.reduce((a, c) => a + c.width + gap, -gap);
        const rows = Math.max(1, Math.ceil(total / avail));
        lines = wrap(Math.min(avail, Math.ceil(total / rows) + s.w), gap);
        if (lines.length > rows) lines = wrap(avail, gap);
        if (lines.length <= rows) break;
      }
      lines.forEach((line, r) => {
        const width = line.reduce((a, c) => a + c.width + gap, -gap);
        let x = Math.max(0, Math.floor((avail - width) / 2));
        const y = 2 + r * s.rowShow;
        for (const c of line) {
          c.list.forEach((btn, j) => place(btn, x + j * s.show, y, s.w, s.h));
          frame(c.k, x, y, c.width, r === lines.length - 1 ? s.h : s.rowShow);
          x += c.width + gap;
        }
      });
      box.style.height = `${2 + (lines.length - 1) * s.rowShow + s.h + 2}px`;
      hand.style.setProperty("--card-w", `${s.w}px`);
      root.dataset.handRows = String(lines.length);
    }
  }

  // ------------------------------------------------------------------ touch and slide
  // A touch on a card starts a slide: that card decides whether the slide selects or puts
  // back (it was not selected: select), and every card the finger then crosses gets the same.
  // The page shows the slide as it goes and tells table.js once, when the finger lifts.
  function cardAt(x, y) {
    const el = document.elementFromPoint(x, y);
    const btn = el && el.closest(".hand .card-button");
    return btn && root.contains(btn) ? Number(btn.dataset.index) : null;
  }
  function mark(i, on) {
    const btn = root.querySelector(`.hand .card-button[data-index="${i}"]`);
    if (btn) { btn.classList.toggle("selected", on); btn.setAttribute("aria-pressed", String(on)); }
  }
  function touch(i) {
    if (i === null || gesture.seen.has(i)) return;
    gesture.seen.add(i);
    if (gesture.adding) gesture.selection.add(i); else gesture.selection.delete(i);
    mark(i, gesture.adding);
  }
  root.addEventListener("pointerdown", (e) => {
    const btn = e.target.closest(".hand .card-button");
    if (!btn || (e.pointerType === "mouse" && e.button !== 0)) return;
    e.preventDefault();
    const i = Number(btn.dataset.index);
    gesture = { id: e.pointerId, seen: new Set(), selection: new Set(selectedNow), adding: !selectedNow.has(i) };
    touch(i);
  });
  document.addEventListener("pointermove", (e) => {
    if (!gesture || e.pointerId !== gesture.id) return;
    touch(cardAt(e.clientX, e.clientY));
  });
  const end = (e) => {
    if (!gesture || e.pointerId !== gesture.id) return;
    const done = gesture;
    gesture = null;
    const before = [...selectedNow];
    // the earlier selection keeps its order; the slide's new cards follow in order of touch
    const next = [...before.filter((i) => done.selection.has(i)), ...[...done.seen].filter((i) => done.selection.has(i) && !before.includes(i))];
    select(next);
  };
  // a long press on a phone opens no menu over the cards (an older hand presses longer)
  root.addEventListener("contextmenu", (e) => { if (e.target.closest(".hand-cards")) e.preventDefault(); });
  document.addEventListener("pointerup", end);
  document.addEventListener("pointercancel", end);
  root.addEventListener("click", (e) => {
    // a card pressed with the keyboard (Enter, Space): a click with no pointer before it
    const btn = e.target.closest(".hand .card-button");
    if (btn && e.detail === 0) {
      const i = Number(btn.dataset.index);
      select(selectedNow.has(i) ? [...selectedNow].filter((k) => k !== i) : [...selectedNow, i]);
      return;
    }
    const tool = e.target.closest("[data-hand]");
    if (tool) onTool(tool.dataset.hand);
  });

  // ------------------------------------------------------------------ 理牌
  function chosen() { return [...selectedNow].sort((a, b) => a - b).map((i) => view.cards[i]).filter(Boolean); }
  // every group as shown, with ``cards`` taken out of them (a 理牌 group that loses a card is
  // no longer that bomb: what is left of it goes back to the rank columns)
  function without(cards) {
    const pool = [...cards];
    const out = [];
    for (const col of view.columns.filter((c) => c.type)) {
      const left = [...col.cards];
      const took = takeFrom(left, pool.filter((c) => col.cards.includes(c)));
      takeFrom(pool, took);
      if (!left.length || (col.type !== "own" && took.length)) continue;
      out.push({ type: col.type === "own" ? null : col.type, cards: left });
    }
    return out;
  }
  function onTool(what) {
    if (what === "arrange") { ask(); return; }
    if (what === "group") {
      const cards = chosen();
      groups = [{ type: null, cards }, ...without(cards)];
    } else if (what === "ungroup") {
      groups = without(chosen());
    } else if (what === "reset") {
      groups = [];
    }
    save();
    select([]);
  }
  // The server's answer to 理牌 (``arranged``): its groups replace the arrangement.
  function arranged(m) {
    groups = (m.groups || []).map((g) => ({ type: g.type, cards: g.cards }));
    save();
    select([]);
  }

  return { order, html, layout, arranged, groupsShown: () => groups.map((g) => ({ ...g })) };
}

// A hand drawn in rank columns without touch (the replay's four hands): the same columns as
// the table, stacked by CSS (hand.css, ``.hand-static``).
export function staticHandHtml(hand, info, level) {
  const wild = info ? info.wild : null;
  const columns = [];
  for (const c of sortHand(hand, info, level)) {
    const key = columnKey(c, wild);
    const last = columns[columns.length - 1];
    if (last && last.key === key) last.cards.push(c); else columns.push({ key, cards: [c] });
  }
  return `<div class="hand-static">${columns.map((col) => `<span class="hand-col">${col.cards.map((c) => cardFace(c, level, wild)).join("")}</span>`).join("")}</div>`;
}
