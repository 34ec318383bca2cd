// Clearer moments at the table (issue 43, points 4 and 5): what auto-play (托管) did while the
// player was away, told once and dismissed; after the match, the replay and 再来一局.
// The server decides both (matches.services.away, matches.services.again); this draws them.
import { cardFace } from "./cards.js";

const esc = (t) => String(t ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const fmt = (text, vars = {}) => String(text ?? "").replace(/%\((\w+)\)s|\{(\w+)\}/g, (_, a, b) => (vars[a || b] ?? ""));

function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (m) return decodeURIComponent(m[1]);
  const field = document.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

export function createMoments(app, W) {
  const tableId = app.dataset.table;
  const seenKey = `table.away.${tableId}`;
  let away = null;
  let asked = false;

  // After a (re)connection: ask once what was done for this seat meanwhile.
  function connected(you) {
    if (asked || you === null || you === undefined) return;
    asked = true;
    fetch(`/matches/tables/${encodeURIComponent(tableId)}/away/`, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => {
        const s = data && data.summary;
        let seen = 0;
        try { seen = Number(localStorage.getItem(seenKey) || 0); } catch (error) { /* none kept */ }
        if (s && s.upto > seen) { away = s; draw(); }
      })
      .catch(() => {});
  }
  // a new connection asks again (the socket dropped: auto-play may have played meanwhile)
  function disconnected() { asked = false; }

  function awayHtml(level, wild) {
    if (!away) return "";
    const lines = [];
    for (const p of away.plays) lines.push(`<li>${esc(W.away_plays)} <span class="mini-cards">${p.cards.map((c) => cardFace(c, level, wild, " mini")).join("")}</span> <em>${esc(W[p.type] || p.type)}</em></li>`);
    if (away.passes) lines.push(`<li>${esc(fmt(W.away_passes, { n: away.passes }))}</li>`);
    for (const c of away.tributes) lines.push(`<li>${esc(W.away_tribute)} ${cardFace(c, level, wild, " mini")}</li>`);
    for (const c of away.returns) lines.push(`<li>${esc(W.away_return)} ${cardFace(c, level, wild, " mini")}</li>`);
    return `<section class="away-summary" role="status" aria-label="${esc(W.away_title)}"><div class="summary-head"><strong>${esc(W.away_title)}</strong><button class="dismiss" data-moment="away-dismiss">${esc(W.close)}</button></div><ul>${lines.join("")}</ul></section>`;
  }
  let view = { level: null, wild: null };
  // Drawn in a box of its own above the table's app (its render rewrites the app).
  function draw(level = view.level, wild = view.wild) {
    view = { level, wild };
    let box = document.getElementById("away-box");
    if (!box) {
      box = document.createElement("div");
      box.id = "away-box";
      document.body.appendChild(box);
    }
    box.innerHTML = awayHtml(level, wild);
    place();
  }
  // under the table's bar, never over its tools (⚙, 托管, ?): placed again when the screen
  // turns or the bar is drawn again (its height changes with the screen's width)
  function place() {
    const panel = document.querySelector("#away-box > .away-summary");
    const bar = document.querySelector(".live .bar");
    if (!bar || !panel) return;
    const top = Math.round(bar.getBoundingClientRect().bottom) + 4;
    panel.style.top = `${top}px`;
    // as tall as its lines need, down to the screen's foot at most (it scrolls beyond)
    panel.style.maxHeight = `calc(100dvh - ${top + 6}px)`;
  }
  window.addEventListener("resize", () => requestAnimationFrame(place));
  new MutationObserver(() => { if (away) place(); }).observe(app, { childList: true });
  function dismiss() {
    if (away) { try { localStorage.setItem(seenKey, String(away.upto)); } catch (error) { /* shown until reload */ } }
    away = null;
    draw();
  }
  document.addEventListener("click", (event) => {
    const el = event.target instanceof Element && event.target.closest("[data-moment=away-dismiss]");
    if (el) dismiss();
  });

  // The finished match's links: its replay, and 再来一局 for its players.
  function afterMatchHtml(you) {
    const replay = app.dataset.replay || `/matches/tables/${encodeURIComponent(tableId)}/replay/`;
    const again = app.dataset.again || `/matches/tables/${encodeURIComponent(tableId)}/again/`;
    const links = [`<a class="button secondary" href="${esc(replay)}" data-moment="replay">${esc(W.replay_link)}</a>`];
    if (you !== null && you !== undefined && app.dataset.competition !== "1") {
      links.push(`<form method="post" action="${esc(again)}" class="inline" data-moment="again"><input type="hidden" name="csrfmiddlewaretoken" value="${esc(csrfToken())}"><button type="submit">${esc(W.play_again)}</button></form>`);
    }
    return `<div class="after-match">${links.join("")}</div>`;
  }
  return { connected, disconnected, draw, afterMatchHtml, dismiss, current: () => away };
}
