// Quick phrases (快捷语) at casual tables (matches/services/phrases.py; protocol: "phrase").
// The 💬 button (a drawn speech bubble) in the table's bar opens the fixed list; a tap sends the phrase's key (never
// free text) and every seat and spectator sees the words by the speaker's seat for a few
// seconds, in their own language. The page carries the list only where the table takes
// phrases (templates/matches/_phrases.html); elsewhere this module offers nothing.
const SHOW_MS = 3500;
// 💬 drawn, not a character: a phone without an emoji font would show an empty box
const ICON = `<svg class="phrase-icon" viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false">`
  + `<path d="M4 3h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z" fill="currentColor"/>`
  + `<circle cx="8" cy="10" r="1.5" fill="#2c6e47"/><circle cx="12" cy="10" r="1.5" fill="#2c6e47"/><circle cx="16" cy="10" r="1.5" fill="#2c6e47"/></svg>`;

export function quickPhrases({ send, seatName }) {
  const data = document.getElementById("table-phrases");
  const list = data ? JSON.parse(data.textContent) : [];
  const words = (document.getElementById("table-phrases-words") || {}).dataset || {};
  const text = new Map(list);
  const said = new Map(); // seat -> {phrase, until}
  let open = false;
  let you = null;
  let root = null;
  let menu = null;
  let live = null;

  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

  // the list lives outside the table's element, which is drawn anew with every frame
  function build() {
    if (menu || !list.length) return;
    menu = document.createElement("div");
    menu.id = "phrase-menu";
    menu.className = "phrase-menu";
    menu.hidden = true;
    menu.setAttribute("role", "dialog");
    menu.setAttribute("aria-label", words.open || "");
    menu.innerHTML = `<div class="phrase-head"><strong>${esc(words.open)}</strong><button type="button" class="phrase-close" data-phrase-act="close" aria-label="${esc(words.close)}">✕</button></div>`
      + `<div class="phrase-list">${list.map(([key, w]) => `<button type="button" data-phrase="${esc(key)}">${esc(w)}</button>`).join("")}</div>`;
    live = document.createElement("p");
    live.className = "visually-hidden";
    live.setAttribute("role", "status");
    document.body.append(menu, live);
    document.addEventListener("click", onClick);
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && open) toggle(false); });
  }

  function toggle(on) {
    open = on;
    if (!menu) return;
    menu.hidden = !open;
    const button = root && root.querySelector("[data-phrase-act=open]");
    if (button) button.setAttribute("aria-expanded", String(open));
    if (open) { const first = menu.querySelector("[data-phrase]"); if (first) first.focus(); }
  }

  function onClick(e) {
    const el = e.target.closest("[data-phrase], [data-phrase-act]");
    if (!el) { if (open && !e.target.closest("#phrase-menu")) toggle(false); return; }
    if (el.dataset.phrase) { send({ type: "phrase", phrase: el.dataset.phrase }); toggle(false); }
    else if (el.dataset.phraseAct === "open") toggle(!open);
    else if (el.dataset.phraseAct === "close") toggle(false);
  }

  // where the words of ``seat`` are shown: its strip, or (one's own seat) above one's hand
  function place(seat) {
    if (!root) return null;
    if (seat === you) return root.querySelector(".bottom");
    return root.querySelector(`.strip[data-seat="${seat}"]`);
  }

  function decorate() {
    if (!root) return;
    for (const old of root.querySelectorAll(".phrase-bubble")) old.remove();
    const now = Date.now();
    for (const [seat, s] of said) {
      if (s.until <= now) { said.delete(seat); continue; }
      const host = place(seat);
      if (!host) continue;
      const bubble = document.createElement("span");
      bubble.className = `phrase-bubble${seat === you ? " mine" : ""}`;
      bubble.dataset.seat = String(seat);
      bubble.textContent = text.get(s.phrase) || "";
      host.append(bubble);
    }
  }

  build();
  return {
    enabled: list.length > 0,
    // the 💬 button for the bar: a seated player at a table that takes phrases
    toolHtml(seat) {
      if (!list.length || seat === null || seat === undefined) return "";
      return `<button class="tool phrase-tool" data-phrase-act="open" aria-haspopup="dialog" aria-controls="phrase-menu" aria-expanded="${open}" aria-label="${esc(words.open)}" title="${esc(words.open)}">${ICON}</button>`;
    },
    // a phrase frame from the server: shown by its seat, told to screen readers
    show(m) {
      if (!text.has(m.phrase) || typeof m.seat !== "number") return;
      said.set(m.seat, { phrase: m.phrase, until: Date.now() + SHOW_MS });
      if (live) live.textContent = `${seatName(m.seat)}: ${text.get(m.phrase)}`;
      decorate();
      setTimeout(decorate, SHOW_MS + 50);
    },
    // after every drawing of the table: put the phrases being shown back by their seats
    render(app, seat) {
      root = app;
      you = seat;
      decorate();
    },
  };
}
