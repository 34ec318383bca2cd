{% load static %}// The score sheets' service worker (scope /matches/sheets/). A score keeper at a real table
// may lose the signal and reload the page: the last copy of each sheet page and of the files
// it uses is kept here and served when the network fails. Network first: online, every page
// is fresh. Entries made meanwhile wait in the page's own queue (localStorage), not here.
"use strict";
const CACHE = "{{ cache }}";
const STATIC_URL = "{% get_static_prefix %}";
const FILES = [
  "{% static 'css/site.css' %}",
  "{% static 'css/scoresheet.css' %}",
  "{% static 'js/site.js' %}",
  "{% static 'js/scoresheet.js' %}",
];
const SHEET_PAGE = /^\/matches\/sheets\/\d+\/$/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n)))) // an older release's
      .then(() => self.clients.claim())
  );
});

function kept(request) {
  const url = new URL(request.url);
  return (
    request.method === "GET" &&
    url.origin === self.location.origin &&
    (SHEET_PAGE.test(url.pathname) || url.pathname.startsWith(STATIC_URL))
  );
}

self.addEventListener("fetch", (event) => {
  if (!kept(event.request)) return; // everything else (the API above all) goes to the network
  event.respondWith(
    (async () => {
      try {
        const response = await fetch(event.request);
        if (response.ok && response.type === "basic" && !response.redirected) {
          const cache = await caches.open(CACHE);
          await cache.put(event.request, response.clone());
        }
        return response;
      } catch (error) {
        const copy = await caches.match(event.request, { ignoreVary: true, ignoreSearch: true });
        if (copy) return copy;
        throw error;
      }
    })()
  );
});
