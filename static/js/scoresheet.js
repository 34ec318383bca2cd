// The score sheet page (保2记分器). It never computes a rule: every number shown comes from the
// server (the engine replays the entries). Entries go into a queue kept in localStorage, each
// with a UUID made here; the queue is sent in order whenever the connection allows, and the
// server stores each UUID once, so resending after a lost answer never adds a deal twice.
(function () {
  "use strict";

  const root = document.getElementById("sheet");
  if (!root) return;
  const L = JSON.parse(document.getElementById("sheet-labels").textContent);
  const embedded = JSON.parse(document.getElementById("sheet-data").textContent);
  let sheet = embedded;
  const api = root.dataset.api;
  const queueKey = "scoresheet:" + sheet.id + ":queue";
  // The last state this phone was sent. A page reloaded without signal comes from the service
  // worker's copy, which may be older: then this one is shown.
  const copyKey = "scoresheet:" + sheet.id + ":sheet";
  try {
    const copy = JSON.parse(localStorage.getItem(copyKey) || "null");
    if (copy && copy.id === sheet.id && copy.version > sheet.version) sheet = copy;
  } catch (e) {
    localStorage.removeItem(copyKey);
  }
  localStorage.setItem(copyKey, JSON.stringify(sheet));
  function keep(fresh) {
    syncClock(fresh);
    sheet = fresh;
    localStorage.setItem(copyKey, JSON.stringify(fresh));
  }
  // Whether two states of the sheet differ in what the page shows (``now`` always does).
  function differs(a, b) {
    return JSON.stringify({ ...a, now: null }) !== JSON.stringify({ ...b, now: null });
  }
  if ("serviceWorker" in navigator && window.caches) {
    navigator.serviceWorker.register(root.dataset.worker).catch(() => {});
    // A first visit did not go through the worker: keep this page for a reload offline.
    if (!navigator.serviceWorker.controller) {
      caches.open(root.dataset.cache).then((cache) => cache.add(location.pathname)).catch(() => {});
    }
  }
  // the game's facts, sent with the page (games.variants.page_facts): no branch on its name
  const FACTS = JSON.parse(document.getElementById("sheet-facts").textContent);
  const LEVELS = FACTS.levels;
  const FIELDS = new Set(FACTS.deal_fields);
  const SIDE_NAMES = [L.red, L.blue];
  let draft = freshDraft();
  let flushing = false;
  let lastError = "";
  let disputeReason = "";

  // ------------------------------------------------------------------ helpers
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, "");
      else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }
  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const x = Array.from(b, (v) => v.toString(16).padStart(2, "0")).join("");
    return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
  }
  function csrf() {
    const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }
  function rankName(r) {
    return r === "T" ? "10" : r || "—";
  }
  function player(seat) {
    return sheet.players.find((p) => p.seat === seat);
  }
  function sideClass(side) {
    return side === 0 ? "side-red" : "side-blue";
  }
  function seatSide(seat) {
    return seat % 2;
  }
  function freshDraft() {
    return {
      finish: [],
      bao2: { twos: 0, red: 0 },
      immune: false,
      twosLeft: [0, 1, 2, 3].map(() => ({ twos: 0, red: 0 })),
      stuck: false,
      mode: "partnership",
      h2: [],
      solo: 0,
      receiver: null,
      fans: [0, 0, 0, 0],
      dealt: [0, 0, 0, 0],
      winner: null,
      cardsLeft: 1,
      bombs: ["", ""],
    };
  }

  // ------------------------------------------------------------------ queue
  function loadQueue() {
    try {
      return JSON.parse(localStorage.getItem(queueKey) || "[]");
    } catch (e) {
      return [];
    }
  }
  function saveQueue(q) {
    localStorage.setItem(queueKey, JSON.stringify(q));
  }
  function enqueue(path, body, label) {
    const q = loadQueue();
    q.push({ path, body: Object.assign({ key: uuid() }, body), label });
    saveQueue(q);
    render();
    flush();
  }
  async function post(path, body) {
    return fetch(api + path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(), Accept: "application/json" },
      body: JSON.stringify(body || {}),
    });
  }
  function describeError(data) {
    if (!data || typeof data !== "object") return L.refused;
    if (data.detail) return data.detail;
    const parts = [];
    const walk = (v) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") Object.entries(v).forEach(([k, x]) => k !== "code" && walk(x));
      else if (typeof v === "string") parts.push(v);
    };
    walk(data);
    return parts.join(" ") || L.refused;
  }
  async function flush() {
    if (flushing) return;
    flushing = true;
    try {
      let q = loadQueue();
      while (q.length) {
        const item = q[0];
        let res;
        try {
          res = await post(item.path, item.body);
        } catch (e) {
          setOffline(true);
          return;
        }
        if (res.status >= 500 || res.status === 429) {
          setOffline(true);
          return;
        }
        setOffline(false);
        let data = null;
        try {
          data = await res.json();
        } catch (e) {
          data = null;
        }
        q = loadQueue();
        q.shift();
        saveQueue(q);
        if (res.ok) {
          if (data && data.sheet) keep(data.sheet);
          lastError = "";
        } else {
          lastError = (item.label ? item.label + ": " : "") + L.refused + " — " + describeError(data);
        }
        render();
      }
    } finally {
      flushing = false;
    }
  }
  async function refresh() {
    if (loadQueue().length) return flush();
    try {
      const res = await fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (res.ok) {
        const fresh = await res.json();
        setOffline(false);
        // Re-render only when something changed, so typing in a field is never interrupted.
        syncClock(fresh);
        if (differs(fresh, sheet)) {
          keep(fresh);
          render();
        }
      }
    } catch (e) {
      setOffline(true);
    }
  }
  let offline = !navigator.onLine;
  function setOffline(value) {
    if (offline !== value) {
      offline = value;
      render();
    }
  }
  async function verdict(path, body) {
    lastError = "";
    let res;
    try {
      res = await post(path, body);
    } catch (e) {
      setOffline(true);
      return;
    }
    const data = await res.json().catch(() => null);
    if (res.ok) keep(data);
    else lastError = describeError(data);
    render();
  }

  // ------------------------------------------------------------------ board
  function renderBoard() {
    const board = document.getElementById("board");
    const st = sheet.state || {};
    board.replaceChildren();
    if (LEVELS) {
      for (const side of [0, 1]) {
        const names = sheet.players.filter((p) => p.side === side).map((p) => p.name).join(" · ");
        const idx = st.levels ? st.levels[side] : 0;
        const sub = [];
        if (FACTS.levels_per_round) sub.push(`${L.round} ${Math.floor(idx / FACTS.levels_per_round) + 1}`);
        if (st.attempts && st.attempts[side]) {
          sub.push(`${FACTS.levels_per_round ? L.attempts : L.a_attempts} ${st.attempts[side]}`);
        }
        const cards = [];
        for (let i = 0; i < (st.yellows ? st.yellows[side] : 0); i++) cards.push(h("span", { class: "ycard", title: L.yellow }));
        for (let i = 0; i < (st.reds ? st.reds[side] : 0); i++) cards.push(h("span", { class: "rcard", title: L.red_card }));
        board.append(
          h("div", { class: "side " + sideClass(side), "data-side": side },
            h("div", { class: "side-name" }, SIDE_NAMES[side]),
            h("div", { class: "names" }, names),
            h("div", { class: "big level", "data-testid": "level-" + side }, rankName(st.ranks ? st.ranks[side] : null)),
            h("div", { class: "sub" }, sub.join(" · "), cards))
        );
      }
    } else {
      const totals = st.totals || [];
      for (const p of sheet.players) {
        board.append(
          h("div", { class: "side " + sideClass(p.side) + (sheet.players.length > 2 ? " small" : ""), "data-seat": p.seat },
            h("div", { class: "names" }, p.name),
            h("div", { class: "big points", "data-testid": "total-" + p.seat }, totals[p.seat] || 0))
        );
      }
    }
    const next = document.getElementById("next-card");
    next.replaceChildren();
    if (LEVELS && !(st.over)) {
      const team = st.level_team;
      // Element.append writes a null child as the text "null": pass only real nodes
      const parts = [
        h("span", {}, (st.deals ? L.next_deal : L.first_deal) + " "),
        h("span", { class: "level-card " + (team === null || team === undefined ? "" : sideClass(team)) }, rankName(st.level_rank)),
      ];
      if (team !== null && team !== undefined) parts.push(h("span", {}, " (" + SIDE_NAMES[team] + ")"));
      next.append(...parts);
    }
    document.getElementById("status").textContent = sheet.status_display;
    document.getElementById("status").className = "status status-" + sheet.status;
  }

  // ------------------------------------------------------------------ clock
  // The clock counts from the server's times, never from this phone's clock: ``now`` in every
  // state the server sends is its time then, taken together with this page's monotonic clock
  // (performance.now) on arrival. A later answer moves that base only when the two disagree by
  // more than CLOCK_SLACK_MS (a phone that slept, a page first shown from the offline copy):
  // the jitter of network delays alone would step the shown time back or skip a second. Each
  // tick is scheduled just after the shown second changes, so every second is shown once.
  const CLOCK_SLACK_MS = 1500;
  let clockBase = null;
  let clockTimer = null;
  function syncClock(data) {
    const server = Date.parse(data && data.now);
    if (!Number.isFinite(server)) return;
    const mono = performance.now();
    if (clockBase && Math.abs(clockBase.server + (mono - clockBase.mono) - server) < CLOCK_SLACK_MS) return;
    clockBase = { server, mono };
  }
  function serverNow() {
    // no answer from the server yet (offline since the page came from its copy): the phone's
    return clockBase ? clockBase.server + (performance.now() - clockBase.mono) : Date.now();
  }
  // A page served online is fresh (the service worker goes to the network first); the copy
  // it keeps for offline use, or an older state than this phone's, would set a stale base.
  if (sheet === embedded && navigator.onLine) syncClock(embedded);

  function tickClock() {
    const el = document.getElementById("clock");
    clearTimeout(clockTimer);
    let text;
    let over = false;
    if (sheet.finished_at) {
      text = fmt((Date.parse(sheet.finished_at) - Date.parse(sheet.started_at)) / 1000);
    } else {
      const now = serverNow();
      let wait;
      if (sheet.ends_at) {
        const left = Date.parse(sheet.ends_at) - now;
        over = left <= 0;
        text = over ? L.time_over : fmt(left / 1000);
        wait = untilNextSecond(left, -1);
      } else {
        const elapsed = now - Date.parse(sheet.started_at);
        text = fmt(elapsed / 1000);
        wait = untilNextSecond(elapsed, 1);
      }
      if (!over) clockTimer = setTimeout(tickClock, wait + 15);
    }
    el.textContent = text;
    el.classList.toggle("over", over);
  }
  // Milliseconds until floor(ms / 1000) next changes as ms grows (dir 1) or shrinks (dir -1).
  function untilNextSecond(ms, dir) {
    const into = ((ms % 1000) + 1000) % 1000;
    return dir > 0 ? 1000 - into : into || 1000;
  }
  function fmt(secs) {
    secs = Math.max(0, Math.floor(secs));
    const hh = Math.floor(secs / 3600);
    const mm = String(Math.floor((secs % 3600) / 60)).padStart(2, "0");
    const ss = String(secs % 60).padStart(2, "0");
    return (hh ? hh + ":" : "") + mm + ":" + ss;
  }

  // ------------------------------------------------------------------ entry form
  function stepper(label, value, max, onchange, testid) {
    return h("span", { class: "stepper" },
      h("span", { class: "stepper-label" }, label),
      h("button", { type: "button", class: "secondary step", "aria-label": label + " −", onclick: () => onchange(Math.max(0, value - 1)) }, "−"),
      h("output", { "data-testid": testid }, value),
      h("button", { type: "button", class: "secondary step", "aria-label": label + " +", onclick: () => onchange(Math.min(max, value + 1)) }, "+"));
  }
  function finishPicker(count) {
    const wrap = h("div", { class: "finish-picker" }, h("p", { class: "label" }, L.finish_order));
    const row = h("div", { class: "seat-buttons" });
    for (const p of sheet.players) {
      const place = draft.finish.indexOf(p.seat);
      row.append(
        h("button", {
          type: "button",
          class: "seat-button " + sideClass(p.side) + (place >= 0 ? " picked" : ""),
          "data-seat": p.seat,
          "aria-pressed": place >= 0 ? "true" : "false",
          onclick: () => {
            if (place >= 0) draft.finish = draft.finish.slice(0, place);
            else if (draft.finish.length < count) draft.finish.push(p.seat);
            render();
          },
        }, p.name, place >= 0 ? h("span", { class: "place" }, L.places[place]) : null)
      );
    }
    wrap.append(row, h("button", { type: "button", class: "secondary small", onclick: () => { draft.finish = []; render(); } }, L.clear));
    return wrap;
  }
  function twosInputs(value, onchange, testid) {
    const parts = [stepper(L.twos, value.twos, 8, (v) => { value.twos = v; value.red = Math.min(value.red, v); onchange(); }, testid)];
    if (sheet.options.colour_twos) {
      parts.push(stepper(L.red_twos, value.red, Math.min(4, value.twos), (v) => { value.red = v; onchange(); }, testid + "-red"));
    }
    return parts;
  }
  function levelDealForm(form) {
    form.append(finishPicker(4));
    if (!FIELDS.has("bao2")) return;
    const w = draft.finish.length ? seatSide(draft.finish[0]) : null;
    const bao = h("fieldset", { class: "bao2" }, h("legend", {}, L.bao2 + (w === null ? "" : " — " + SIDE_NAMES[w])));
    bao.append(...twosInputs(draft.bao2, render, "bao2-twos"));
    bao.append(h("label", { class: "check" },
      h("input", { type: "checkbox", checked: draft.immune, onchange: (e) => { draft.immune = e.target.checked; } }), " ", L.immune));
    form.append(bao);
    const left = h("fieldset", { class: "twos-left" }, h("legend", {}, L.twos_left));
    for (const p of sheet.players) {
      left.append(h("div", { class: "seat-twos " + sideClass(p.side) }, h("span", { class: "who" }, p.name),
        ...twosInputs(draft.twosLeft[p.seat], render, "left-" + p.seat)));
    }
    left.append(h("label", { class: "check" },
      h("input", { type: "checkbox", checked: draft.stuck, onchange: (e) => { draft.stuck = e.target.checked; } }), " ", L.stuck_end));
    form.append(left);
  }
  function seatSelect(label, value, onchange, allowNone) {
    const sel = h("select", { onchange: (e) => onchange(e.target.value === "" ? null : Number(e.target.value)) });
    if (allowNone) sel.append(h("option", { value: "", selected: value === null }, L.nobody));
    for (const p of sheet.players) sel.append(h("option", { value: p.seat, selected: value === p.seat }, p.name));
    return h("label", { class: "field" }, label, " ", sel);
  }
  function hongerForm(form) {
    const modes = h("div", { class: "modes" }, h("p", { class: "label" }, L.mode));
    for (const m of ["partnership", "solo", "surrender", "compare"]) {
      modes.append(h("label", { class: "check" },
        h("input", { type: "radio", name: "mode", value: m, checked: draft.mode === m, onchange: () => { draft.mode = m; render(); } }), " ", L.modes[m]));
    }
    form.append(modes);
    if (draft.mode === "partnership") {
      const h2 = h("div", { class: "h2" }, h("p", { class: "label" }, L.h2));
      for (const p of sheet.players) {
        h2.append(h("label", { class: "check" }, h("input", {
          type: "checkbox", checked: draft.h2.includes(p.seat),
          onchange: (e) => { draft.h2 = e.target.checked ? draft.h2.concat([p.seat]).slice(-2) : draft.h2.filter((s) => s !== p.seat); render(); },
        }), " ", p.name));
      }
      form.append(h2);
    } else {
      form.append(seatSelect(L.solo, draft.solo, (v) => { draft.solo = v; }, false));
    }
    if (draft.mode === "partnership" || draft.mode === "solo") form.append(finishPicker(4));
    if (draft.mode === "surrender" || draft.mode === "compare") {
      form.append(seatSelect(L.receiver, draft.receiver, (v) => { draft.receiver = v; }, draft.mode === "compare"));
    }
    if (draft.mode !== "surrender") {
      const fans = h("fieldset", {}, h("legend", {}, L.fans));
      for (const p of sheet.players) {
        fans.append(h("div", { class: "seat-twos " + sideClass(p.side) }, h("span", { class: "who" }, p.name),
          stepper("", draft.fans[p.seat], 40, (v) => { draft.fans[p.seat] = v; render(); }, "fans-" + p.seat)));
      }
      form.append(fans);
    }
    if (draft.mode === "partnership" || draft.mode === "solo") {
      const dealt = h("fieldset", {}, h("legend", {}, L.dealt_fans));
      for (const p of sheet.players) {
        const sel = h("select", { onchange: (e) => { draft.dealt[p.seat] = Number(e.target.value); } });
        for (const v of [0, 3, 4, 5]) sel.append(h("option", { value: v, selected: draft.dealt[p.seat] === v }, v));
        dealt.append(h("label", { class: "field" }, p.name, " ", sel));
      }
      form.append(dealt);
    }
  }
  function shuangkouForm(form) {
    const row = h("div", { class: "seat-buttons" }, h("p", { class: "label" }, L.winner));
    for (const p of sheet.players) {
      row.append(h("button", {
        type: "button", class: "seat-button " + sideClass(p.side) + (draft.winner === p.seat ? " picked" : ""),
        "aria-pressed": draft.winner === p.seat ? "true" : "false",
        onclick: () => { draft.winner = p.seat; render(); },
      }, p.name));
    }
    form.append(row);
    form.append(stepper(L.cards_left, draft.cardsLeft, 27, (v) => { draft.cardsLeft = Math.max(1, v); render(); }, "cards-left"));
    const bombs = h("fieldset", {}, h("legend", {}, L.bombs));
    for (const p of sheet.players) {
      bombs.append(h("label", { class: "field" }, p.name, " ",
        h("input", { type: "text", inputmode: "numeric", value: draft.bombs[p.seat], oninput: (e) => { draft.bombs[p.seat] = e.target.value; } })));
    }
    form.append(bombs);
  }
  function dealBody() {
    if (LEVELS) {
      const deal = { finish: draft.finish.slice() };
      if (FIELDS.has("bao2")) {
        const w = draft.finish.length ? seatSide(draft.finish[0]) : 0;
        const bao2 = [null, null];
        if (draft.bao2.twos) bao2[w] = Object.assign({}, draft.bao2);
        deal.bao2 = bao2;
        deal.immune = draft.immune;
        deal.twos_left = draft.twosLeft.map((t) => (t.twos ? Object.assign({}, t) : null));
        deal.stuck_end = draft.stuck;
      }
      return deal;
    }
    if (!FACTS.fixed_sides) {
      const deal = { mode: draft.mode, fans: draft.fans.slice() };
      if (draft.mode === "partnership") deal.h2 = draft.h2.slice();
      else deal.solo = draft.solo;
      if (draft.mode === "partnership" || draft.mode === "solo") {
        deal.finish = draft.finish.slice();
        deal.dealt_fans = draft.dealt.slice();
      } else deal.receiver = draft.receiver;
      return deal;
    }
    const bombs = draft.bombs.map((s) => s.split(/[^0-9]+/).filter(Boolean).map(Number));
    return { winner: draft.winner, cards_left: draft.cardsLeft, bombs };
  }
  function renderEntry() {
    const box = document.getElementById("entry");
    const playing = sheet.can.score && !(sheet.state && sheet.state.over);
    box.hidden = !sheet.can.score;
    box.replaceChildren();
    if (!sheet.can.score) return;
    if (playing) {
      const form = h("form", { class: "deal-form", onsubmit: (e) => {
        e.preventDefault();
        const n = (sheet.state.deals || 0) + loadQueue().filter((i) => i.path === "entries/" && i.body.deal).length + 1;
        enqueue("entries/", { deal: dealBody() }, L.deal + " " + n);
        draft = freshDraft();
        render();
      } });
      if (LEVELS) levelDealForm(form);
      else if (!FACTS.fixed_sides) hongerForm(form);
      else shuangkouForm(form);
      form.append(h("button", { type: "submit", class: "save" }, L.save_deal));
      box.append(form);
    }
    const tools = h("div", { class: "tools" });
    tools.append(h("button", { type: "button", class: "secondary", "data-action": "undo", onclick: () => {
      if (window.confirm(L.undo_confirm)) enqueue("undo/", {}, L.undo);
    } }, L.undo));
    if (playing) {
      if (LEVELS) {
        for (const side of [0, 1]) {
          for (const [card, label] of [["yellow", L.yellow], ["red", L.red_card]]) {
            tools.append(h("button", { type: "button", class: "secondary card-" + card + " " + sideClass(side), onclick: () => {
              if (window.confirm(L.card_confirm + " " + label + " → " + SIDE_NAMES[side])) {
                enqueue("entries/", { card, team: side }, L.referee);
              }
            } }, label + " · " + SIDE_NAMES[side]));
          }
        }
      }
      tools.append(h("button", { type: "button", class: "secondary", "data-action": "time-up", onclick: () => {
        if (window.confirm(L.time_up_confirm)) enqueue("entries/", { time_up: true }, L.time);
      } }, L.time_up));
    }
    box.append(tools);
  }

  // ------------------------------------------------------------------ result, verdicts
  function scoreText() {
    const r = (sheet.state && sheet.state.result) || {};
    if (!r.score) return null;
    if (FACTS.fixed_sides) return r.score[0] + ":" + r.score[1];
    return r.score.join(" / ");
  }
  function renderResult() {
    const box = document.getElementById("result");
    const st = sheet.state || {};
    box.hidden = !st.over;
    box.replaceChildren();
    if (!st.over) return;
    const r = st.result || {};
    let who;
    if (r.winner === null || r.winner === undefined) who = L.draw;
    else if (FACTS.fixed_sides) who = SIDE_NAMES[r.winner] + " " + L.wins;
    else who = player(r.winner).name + " " + L.wins;
    // The score of a level game is the levels each side climbed; the levels reached are
    // shown by name on their own line, so the two numbers are never read as one.
    const parts = [h("p", { class: "label" }, L.result), h("p", { class: "final", "data-testid": "final-score" }, scoreText())];
    if (LEVELS) parts.push(h("p", { class: "label" }, L.levels_climbed));
    parts.push(h("p", { class: "winner" }, who));
    if (LEVELS && st.ranks) parts.push(h("p", { class: "reached" }, L.reached + " " + st.ranks.map(rankName).join(" : ")));
    box.append(...parts);
  }
  function renderVerdicts() {
    const box = document.getElementById("verdicts");
    const show = sheet.verdicts.length || sheet.can.confirm || sheet.can.dispute || sheet.can.void;
    box.hidden = !show;
    box.replaceChildren();
    if (!show) return;
    const list = h("ul", {});
    for (const v of sheet.verdicts) {
      list.append(h("li", { class: v.current ? "" : "stale" },
        v.user, " ", v.kind === "confirm" ? L.confirmed_by : L.disputed_by,
        v.side === null ? "" : " (" + SIDE_NAMES[v.side] + ")", v.reason ? ": " + v.reason : "", v.current ? "" : " " + L.stale));
    }
    box.append(list);
    const row = h("div", { class: "tools" });
    if (sheet.can.confirm) row.append(h("button", { type: "button", "data-action": "confirm", onclick: () => verdict("confirm/") }, L.confirm));
    if (sheet.can.dispute) {
      const reason = h("textarea", { rows: 2, "aria-label": L.dispute_reason, placeholder: L.dispute_reason,
        oninput: (e) => { disputeReason = e.target.value; } });
      reason.value = disputeReason;
      row.append(reason, h("button", { type: "button", class: "danger", "data-action": "dispute", onclick: () => verdict("dispute/", { reason: reason.value }) }, L.dispute));
    }
    if (sheet.can.void) row.append(h("button", { type: "button", class: "danger", onclick: () => verdict("void/") }, L.void));
    box.append(row);
  }

  // ------------------------------------------------------------------ record
  function finishNames(finish) {
    return (finish || []).map((s) => player(s).name).join(" › ");
  }
  function renderRecord() {
    const box = document.getElementById("record");
    const table = h("table", { class: "record" });
    const head = LEVELS
      ? [L.deal, L.played_at, L.finish, L.bonus, L.after]
      : [L.deal, L.finish, L.points, L.after];
    table.append(h("thead", {}, h("tr", {}, head.map((t) => h("th", {}, t)))));
    const body = h("tbody", {});
    for (const row of sheet.record) {
      const rec = row.record || {};
      const after = rec.after || {};
      const afterText = LEVELS ? (after.ranks || []).map(rankName).join(":") : (after.totals || []).join(" / ");
      let cells;
      if (row.kind === "deal") {
        if (LEVELS) {
          const team = rec.level_team;
          cells = [row.deal_no,
            rankName(rec.level_rank) + (team === null || team === undefined ? "" : " " + SIDE_NAMES[team]),
            finishNames(rec.finish),
            FIELDS.has("bao2") ? "+" + rec.bao2.join("/+") + " · +" + rec.closed.join("/+") : "",
            afterText];
        } else {
          cells = [row.deal_no, rec.finish ? finishNames(rec.finish) : (L.modes && rec.mode ? L.modes[rec.mode] : ""), (rec.points || []).join(" / "), afterText];
        }
      } else {
        const what = row.kind === "card"
          ? L.referee + ": " + ({ yellow: L.yellow, red: L.red_card, forfeit: L.forfeit }[row.entry.card]) +
            (row.entry.team !== undefined ? " " + SIDE_NAMES[row.entry.team] : row.entry.seat !== undefined ? " " + player(row.entry.seat).name : "")
          : L.time;
        cells = LEVELS ? ["", "", what, "", afterText] : ["", what, "", afterText];
      }
      body.append(h("tr", { class: "kind-" + row.kind }, cells.map((c, i) => h("td", { class: i === cells.length - 1 ? "after" : "" }, c))));
    }
    for (const item of loadQueue()) {
      const cells = LEVELS ? [item.label, "", L.pending, "", ""] : [item.label, L.pending, "", ""];
      body.append(h("tr", { class: "pending" }, cells.map((c) => h("td", {}, c))));
    }
    table.append(body);
    box.replaceChildren(table);
  }

  function render() {
    renderBoard();
    renderEntry();
    renderResult();
    renderVerdicts();
    renderRecord();
    const q = loadQueue();
    const off = document.getElementById("offline");
    off.hidden = !(offline || q.length);
    off.textContent = (offline ? L.offline + " " : "") + (q.length ? L.pending + ": " + q.length : "");
    const err = document.getElementById("error");
    err.hidden = !lastError;
    err.textContent = lastError;
    tickClock();
  }

  window.addEventListener("online", () => { offline = false; flush(); });
  window.addEventListener("offline", () => setOffline(true));
  setInterval(() => { if (navigator.onLine) refresh(); }, 8000);
  render();
  flush();
})();
