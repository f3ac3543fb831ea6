// The hosted page's service worker (contract section 20), /s/sw.js with
// scope /s/: it keeps the page's own assets and the survey pages it
// showed, so that a page opened once works without a connection. An
// asset (its name carries its hash) is answered from the cache, else
// fetched and kept; a survey page is fetched from the network first and
// kept only when it answered 200 without "Survey-Keep: assets" (a kiosk
// survey's); any other answer removes the kept copy. Nothing else is
// touched: the API, the owner's routes and other sites go straight to the
// network. The server writes the cache's name, a hash of every asset's
// name: a deployment with other assets is a new worker, which drops the
// old cache.
var CACHE = "survey-pages-%VERSION%";

self.addEventListener("install", function () { self.skipWaiting(); });

self.addEventListener("activate", function (ev) {
  ev.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n !== CACHE && n.indexOf("survey-pages-") === 0; }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (ev) {
  var req = ev.request, url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/assets/") === 0) {
    ev.respondWith(caches.match(req).then(function (hit) {
      return hit || fetch(req).then(function (res) {
        var copy = res.clone();
        if (res.status === 200) ev.waitUntil(caches.open(CACHE).then(function (c) { return c.put(req, copy); }));
        return res;
      });
    }));
    return;
  }
  if (req.mode !== "navigate" || !/^\/s\/[^/]+\/$/.test(url.pathname)) return;
  var key = pageKey(url);
  ev.respondWith(fetch(req).then(function (res) {
    ev.waitUntil(keep(key, res.clone()));
    return res;
  }, function () {
    return caches.match(key).then(function (hit) { return hit || Response.error(); });
  }));
});

// A page shown before this worker controlled it asks to be kept, with
// its assets (which the browser's HTTP cache holds: it loaded them): the
// page is fetched once more, marked so that the server counts no second
// view.
self.addEventListener("message", function (ev) {
  var m = ev.data || {}, url = new URL(String(m.page), self.location.href);
  if (url.origin !== self.location.origin || !/^\/s\/[^/]+\/$/.test(url.pathname)) return;
  var key = pageKey(url), assets = [].concat(m.assets || []).filter(function (a) { return new URL(a, self.location.href).pathname.indexOf("/assets/") === 0; });
  ev.waitUntil(Promise.all([
    caches.open(CACHE).then(function (c) { return c.addAll(assets); }),
    fetch(key, { headers: { "Survey-Keep": "page" }, credentials: "same-origin" }).then(function (res) { return keep(key, res); })
  ]).catch(function () {}));
});

// pageKey is a page's address without a "Continue later" token (the page
// drops it from the address bar).
function pageKey(url) {
  url.searchParams.delete("resume");
  return url.href;
}

// keep keeps a survey page's answer: a 200 but a kiosk's; any other
// answer (closed, gone) removes the kept copy.
function keep(key, res) {
  return caches.open(CACHE).then(function (c) {
    return res.status === 200 && res.headers.get("Survey-Keep") !== "assets" ? c.put(key, res) : c.delete(key);
  });
}
