// Every page. Logging out forgets what the score sheets kept on this device for a reload
// without signal (the service worker's copies of sheet pages and the last state of each
// sheet); entries still waiting to be sent stay, so nothing typed at a table is lost.
(function () {
  "use strict";
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form[data-logout]")) return;
    event.preventDefault();
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (/^scoresheet:\d+:sheet$/.test(key)) localStorage.removeItem(key);
    }
    const caches = window.caches ? window.caches.keys() : Promise.resolve([]);
    caches
      .then((names) => Promise.all(names.map((name) => window.caches.delete(name))))
      .catch(() => {})
      .finally(() => form.submit()); // submit() fires no second submit event
  });
})();

// Behaviour the templates ask for with data attributes: the Content-Security-Policy allows no
// inline event handlers (onclick=...), so they are attached here, once, for every page.
(function () {
  "use strict";
  document.addEventListener("click", (event) => {
    const target = event.target;
    if (!(target instanceof Element)) return;
    if (target.matches("input.copy")) target.select(); // links and keys to copy
    if (target.closest("[data-print]")) window.print();
    const copy = target.closest("[data-copy]");
    if (copy) copyText(copy);
    const share = target.closest("[data-share]");
    if (share) navigator.share({ title: share.dataset.shareTitle, url: share.dataset.share }).catch(() => {});
    const confirming = target.closest("[data-confirm]");
    if (confirming && !window.confirm(confirming.dataset.confirm)) event.preventDefault();
  });
  // A copy button copies its field's text and says so; where the clipboard is not offered
  // (an insecure origin, an old browser) the text is selected for the user's own copy.
  function copyText(button) {
    const field = document.querySelector(button.dataset.copy);
    if (!field) return;
    field.select();
    const done = () => {
      const label = button.textContent;
      button.textContent = button.dataset.copied;
      setTimeout(() => { button.textContent = label; }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, () => {});
    } else if (document.execCommand && document.execCommand("copy")) {
      done();
    }
  }
  // Share buttons show only where the phone can share (the Web Share API).
  if (navigator.share) {
    for (const button of document.querySelectorAll("[data-share][hidden]")) button.hidden = false;
  }
  document.addEventListener("change", (event) => {
    const target = event.target;
    if (target instanceof Element && target.matches("select[data-submit-on-change]")) {
      target.form.submit();
    }
  });
})();
