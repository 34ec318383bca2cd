// Every page's text size (issue 43, point 2): 标准 / 大 / 特大. The server puts the class on
// <html> (clubs.textsize: the user's own size, else this browser's cookie); a control with
// data-text-size="<size>" (or "next": the next size round) changes it at once, keeps it in the
// cookie for this browser and, for a signed-in person or a guest, on their account.
const SIZES = ["standard", "large", "xlarge"];
const root = document.documentElement;

export function currentSize() {
  return SIZES.find((s) => root.classList.contains(`text-${s}`)) || "standard";
}

// The size's own name in the page's language (sent with <html>: data-text-size-names).
export function sizeName(size = currentSize()) {
  const names = (root.dataset.textSizeNames || "").split("|");
  return names[SIZES.indexOf(size)] || size;
}

// A button for a menu (the table's bar): shows the short word, names the size for readers.
export function textSizeToolHtml(extraClass = "tool") {
  const label = `${root.dataset.textSizeLabel || "Aa"}: ${sizeName()}`;
  const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  return `<button type="button" class="${extraClass}" data-text-size="next" aria-label="${esc(label)}" title="${esc(label)}">${esc(root.dataset.textSizeShort || "Aa")}</button>`;
}

function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (m) return decodeURIComponent(m[1]);
  const field = document.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

export function setSize(size) {
  if (!SIZES.includes(size)) return;
  for (const s of SIZES) root.classList.toggle(`text-${s}`, s === size);
  document.cookie = `text_size=${size}; path=/; max-age=${365 * 24 * 3600}; samesite=lax`;
  try { localStorage.setItem("text_size", size); } catch (error) { /* private mode: the cookie keeps it */ }
  const url = root.dataset.textSizeUrl;
  if (url) {
    fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded", "X-CSRFToken": csrfToken() },
      body: new URLSearchParams({ size }),
    }).catch(() => {});
  }
  // layouts measured in script (the table's hand) measure again
  window.dispatchEvent(new Event("resize"));
  window.dispatchEvent(new CustomEvent("textsizechange", { detail: { size } }));
}

document.addEventListener("click", (event) => {
  const el = event.target instanceof Element && event.target.closest("[data-text-size]");
  if (!el) return;
  event.preventDefault();
  const wanted = el.dataset.textSize;
  setSize(wanted === "next" ? SIZES[(SIZES.indexOf(currentSize()) + 1) % SIZES.length] : wanted);
  for (const b of document.querySelectorAll("[data-text-size]")) {
    if (b.dataset.textSize === "next") {
      const label = `${root.dataset.textSizeLabel || "Aa"}: ${sizeName()}`;
      b.setAttribute("aria-label", label); b.title = label;
    } else b.setAttribute("aria-pressed", String(b.dataset.textSize === currentSize()));
  }
});
