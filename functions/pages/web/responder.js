// The responder settings of contract section 16 on the hosted page, as
// hooks app.js calls (window.surveyExtras): the CAPTCHA's challenge solved
// in a Web Worker while the responder reads the welcome page, the
// location, and after a submission the kiosk reload.
(function () {
  "use strict";
  var form = document.getElementById("survey");
  if (!form) return;
  var api = "/api/public/surveys/" + encodeURIComponent(form.getAttribute("data-slug")) + "/";
  var solution = null;

  // solve fetches a challenge and solves it in the worker; the answer is
  // the session's "captcha" member.
  function solve() {
    return fetch(api + "challenge/", { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (ch) {
        return new Promise(function (resolve, reject) {
          var worker = new Worker(form.getAttribute("data-captcha-worker"));
          worker.onmessage = function (ev) {
            worker.terminate();
            // The time it took, for a person (or a test) to read.
            document.documentElement.setAttribute("data-captcha-ms", String(ev.data.ms));
            resolve({ challenge: ch.challenge, nonce: ev.data.nonce });
          };
          worker.onerror = reject;
          worker.postMessage({ salt: ch.salt, difficulty: ch.difficulty });
        });
      });
  }
  if (form.getAttribute("data-captcha") === "true") solution = solve();

  function position() {
    if (form.getAttribute("data-location") !== "true" || !navigator.geolocation) return Promise.resolve({});
    return new Promise(function (resolve) {
      navigator.geolocation.getCurrentPosition(function (p) {
        resolve({ location: { latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy_m: p.coords.accuracy } });
      }, function () { resolve({}); }, { timeout: 10000, maximumAge: 60000 });
    });
  }

  // The thanks page's "Edit your response" (edit_response_enabled): the
  // 201's edit token lets the responder change the answers while the
  // survey is open.
  var editWrap = document.getElementById("edit-wrap"), edited = null, editing = false;
  if (editWrap) editWrap.querySelector("button").addEventListener("click", function () {
    if (!edited) return;
    editing = true;
    window.surveyExtras.reopen();
  });

  window.surveyExtras = {
    // session: what a session request adds; a challenge is used once, so
    // a next session (after a refusal) solves a new one then, not ahead:
    // a page that responds once fetches its challenge once.
    session: function () {
      if (form.getAttribute("data-captcha") !== "true") return Promise.resolve({});
      var s = solution || solve();
      solution = null;
      return s.then(function (captcha) { return { captcha: captcha }; });
    },
    // challenge: a fresh solved challenge, for a code check that the
    // survey's code-guess guard, under attack, asks to carry one.
    challenge: solve,
    // submission: the location and, for an edit, the edit token and the
    // session (which new uploads were made for).
    submission: function () {
      return position().then(function (extra) {
        if (editing) { extra.edit_token = edited.token; extra.session = form.elements.session.value; }
        return extra;
      });
    },
    // edit: where an edit goes, or null for a new response.
    edit: function () { return editing ? { path: "responses/" + edited.id + "/" } : null; },
    submitted: function (body) {
      editing = false;
      if (body && body.edit_token && editWrap) {
        edited = { id: body.id, token: body.edit_token };
        editWrap.hidden = false;
      }
      var reload = parseInt(form.getAttribute("data-reload"), 10);
      if (reload > 0) setTimeout(function () { window.location.replace(window.location.pathname + window.location.search); }, reload * 1000);
    }
  };
})();
