// cran web's service worker: the site kept in the browser's cache once loaded, so that
// the page opens again without a network (at a game, in a field). `cran web` writes the
// list of files and the build's version in (a new build replaces the old cache).
const FILES = __FILES__;
const CACHE = "cran-__BUILD__";

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys().then((keys) =>
    Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))));
});

self.addEventListener("fetch", (e) => {
  if (e.request.method !== "GET") return;
  e.respondWith(caches.match(e.request, { ignoreSearch: true })
    .then((hit) => hit || fetch(e.request)));
});
