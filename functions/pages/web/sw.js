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
// old cache (the worker's scope, /s/, is this service's alone).
var CACHE = "survey-pages-%VERSION%", survey = /^\/s\/[^/]+\/$/;

addEventListener("activate", function (ev) {
  ev.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.map(function (n) { return n !== CACHE && caches.delete(n); }));
  }).then(function () { return clients.claim(); }));
});

// keep keeps a survey page's answer (res) under its address without a
// "Continue later" token (the page drops it from the address bar): a 200
// but a kiosk's; any other answer (closed, gone) removes the copy.
function keep(url, res) {
  url.searchParams.delete("resume");
  return caches.open(CACHE).then(function (c) {
    return res.status === 200 && res.headers.get("Survey-Keep") !== "assets" ? c.put(url.href, res) : c.delete(url.href);
  });
}

addEventListener("fetch", function (ev) {
  var req = ev.request, url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== location.origin) return;
  if (!url.pathname.indexOf("/assets/")) {
    ev.respondWith(caches.match(req).then(function (hit) {
      return hit || fetch(req).then(function (res) {
        var copy = res.clone();
        if (res.ok) ev.waitUntil(caches.open(CACHE).then(function (c) { return c.put(req, copy); }));
        return res;
      });
    }));
  } else if (req.mode === "navigate" && survey.test(url.pathname)) {
    ev.respondWith(fetch(req).then(function (res) {
      ev.waitUntil(keep(url, res.clone()));
      return res;
    }, function () {
      url.searchParams.delete("resume");
      return caches.match(url.href).then(function (hit) { return hit || Response.error(); });
    }));
  }
});

// A page shown before this worker controlled it asks to be kept, with the
// assets it loaded (the browser's HTTP cache holds them): the page is
// fetched once more, marked so that the server counts no second view.
addEventListener("message", function (ev) {
  var url = new URL(ev.data.page);
  if (url.origin !== location.origin || !survey.test(url.pathname)) return;
  ev.waitUntil(Promise.all([
    caches.open(CACHE).then(function (c) { return c.addAll(ev.data.assets); }),
    fetch(url.href, { headers: { "Survey-Keep": "page" } }).then(function (res) { return keep(url, res); })
  ]).catch(function () {}));
});
