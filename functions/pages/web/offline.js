// Answers that survive (contract section 20), as hooks app.js calls
// (window.surveyKeep). The answers so far, the page shown and the session
// are kept in localStorage under "survey:<slug>" on every change, so that
// a reload, a crash or a closed tab resumes where the responder was; a
// submission that finds no connection waits there with its
// Idempotency-Key and is sent again, the same body, on the "online"
// event, every 15 s and on the next visit: the service records it once.
// Nothing is kept on a kiosk survey (data-keep="false"). In a frame the
// storage is the embedding site's partition (or refused): kept where the
// browser allows it, never the service worker. partial.js adds partial
// responses and "Continue later".
(function () {
  "use strict";
  var ls = window.localStorage, gone = document.querySelector("[data-forget]"), form = document.getElementById("survey");
  // try runs f where storage may be refused (a frame, a private window).
  function attempt(f) { try { return f(); } catch (e) { return null; } }
  // The closed page forgets what was kept for its survey.
  if (gone) attempt(function () { ls.removeItem("survey:" + gone.getAttribute("data-forget")); });
  if (!form) return;
  var sw = navigator.serviceWorker;
  // The service worker (sw.js), never in a frame: a page it did not serve
  // asks it to keep a copy, and the assets the page loaded. It registers
  // after the load event, once the main thread is idle: its install and
  // the copies it fetches do not compete with the first screen. Its
  // scope is its folder, /s/.
  if (window.parent === window && sw) addEventListener("load", function () {
    var first = !sw.controller;
    (window.requestIdleCallback || setTimeout)(function () {
      sw.register("/s/sw.js").then(function () { return sw.ready; }).then(function (reg) {
        if (first && reg.active) reg.active.postMessage({ page: location.href, assets: each("script[src],link[rel=stylesheet]", function (e) { return e.src || e.href; }, document) });
      }).catch(function () {});
    });
  });
  var name = "survey:" + form.getAttribute("data-slug");
  var keeping = form.getAttribute("data-keep") !== "false", table = JSON.parse(form.getAttribute("data-messages") || "{}");
  var state = null, hooks = null, names = {}, at = -1, resumed = false, delivering = null, offline = "This step needs a connection.";
  function each(sel, f, root) { return Array.prototype.map.call((root || form).querySelectorAll(sel), f); }

  function save() {
    if (!keeping || !state) return;
    if (hooks && !state.out) state.answers = hooks.answers();
    state.files = {};
    each(".q.file[data-upload]", function (q) { var id = q.getAttribute("data-id"); state.files[id] = names[id] || ""; });
    attempt(function () { ls.setItem(name, JSON.stringify(state)); });
  }
  function forget() { state = null; attempt(function () { ls.removeItem(name); }); }
  ["input", "change", "click"].forEach(function (t) { form.addEventListener(t, save); });
  // An upload's id arrives after its question's change.
  new MutationObserver(save).observe(form, { subtree: true, attributeFilter: ["data-upload"] });
  form.addEventListener("change", function (ev) {
    var i = ev.target;
    if (i.files && i.files.length) names[i.closest(".q").getAttribute("data-id")] = i.files[0].name;
  });

  // The notice above the form: a status a screen reader announces.
  var notice = document.createElement("p");
  notice.id = "kept"; notice.className = "preview"; notice.setAttribute("role", "status"); notice.hidden = true;
  form.parentNode.insertBefore(notice, form);
  function say(m) { notice.textContent = m ? table[m] || m : ""; notice.hidden = !m; }

  // fill puts answers (the API's shape) into the page's controls; a file
  // is shown by its name, and its upload's id sent again.
  function fill(answers, files) {
    each(".q[data-type]", function (q) {
      var id = q.getAttribute("data-id"), t = +q.getAttribute("data-type"), v = answers[id];
      if (v == null) return;
      if (t === 2 || t === 10) form.elements["a" + id].value = v;
      else if (t === 5) v.forEach(function (c, n) {
        var s = q.querySelector('select[data-choice="' + c + '"]');
        if (s) { s.value = n + 1; s.closest("li").parentNode.appendChild(s.closest("li")); }
      });
      else if (t === 11) {
        if (!(id in files)) return;
        q.setAttribute("data-upload", v);
        q.querySelector(".upload-status").textContent = q.getAttribute("data-msg-uploaded") + (files[id] ? ": " + files[id] : "");
        names[id] = files[id];
      } else if (t === 12) Object.keys(v).forEach(function (r) {
        var c = q.querySelector('.mrow[data-row="' + r + '"] input[value="' + v[r] + '"]');
        if (c) c.checked = true;
      });
      else each("input", function (i) { i.checked = [].concat(v).indexOf(+i.value) >= 0; }, q);
    });
  }

  // resume is what the page resumes from: the partial of a "Continue
  // later" link (?resume=, its files left out), else what this browser
  // kept while its session may still respond.
  function resume() {
    var u = new URL(location.href), token = u.searchParams.get("resume"), k = !token && keeping && attempt(function () { return JSON.parse(ls.getItem(name)); });
    var d = +form.getAttribute("data-duration");
    if (!token) {
      if (k && d && Date.now() > Date.parse(k.started_at) + d * 1000 + 30000) forget();
      else if (k && k.session) { state = k; resumed = true; }
      return Promise.resolve(state);
    }
    u.searchParams.delete("resume");
    history.replaceState(null, "", u.href);
    return hooks.call("resume/", { token: token }).then(function (r) {
      var b = r.body, qs = form.querySelectorAll(".page.qp");
      if (r.status !== 200) { say("The link to continue has expired."); return null; }
      each('.q[data-type="11"]', function (q) { delete b.answers[q.getAttribute("data-id")]; });
      resumed = true;
      return state = { session: b.session, started_at: b.started_at, orders: b.choice_orders, key: form.elements.idempotency_key.value, answers: b.answers,
        page: Math.max(0, Array.prototype.indexOf.call(form.querySelectorAll(".page"), qs[b.page] || qs[0])) };
    }, function () { say(offline); return null; });
  }

  // deliver sends the waiting submission, the same body each time (the
  // same JSON: its keys keep their order), until
  // it gets an answer: while offline the form waits hidden behind the
  // notice. A refusal that no resend changes (closed, time over,
  // responded, a bad session) forgets the answers; a 400 on the answers
  // or an outage gives the form back with them. The key is the session's
  // own (app.js), so a 422 says the session's response was recorded with
  // other answers (another tab of this browser): responded too.
  function deliver() {
    return delivering = delivering || new Promise(function (resolve) {
      var timer = 0, out = state.out;
      function send() {
        clearTimeout(timer);
        hooks.call("responses/", out.body, { "Idempotency-Key": out.key }).then(function (r) {
          removeEventListener("online", send);
          say(""); form.hidden = false; delivering = null;
          if (r.status < 300 || r.status === 409 || r.status === 410 || r.status === 422 || r.body.session || !state) forget();
          else { delete state.out; save(); }
          resolve(r);
        }, function () {
          form.hidden = true; say("Saved on this device. It will be sent when you are back online.");
          timer = setTimeout(send, 15000);
        });
      }
      addEventListener("online", send);
      send();
    });
  }

  window.surveyKeep = {
    // attach gives the keeper app.js's readers of the answers and the
    // query-string variables, and its call of the API (partial.js reads
    // them too).
    attach: function (h) { hooks = this.h = h; },
    resume: resume,
    // fill puts the answers resumed into the page, and says so until the
    // next page.
    fill: function (k) { fill(k.answers || {}, k.files || {}); say("Your answers so far are filled in."); },
    // started keeps a new session (its 201 body) with the page's key.
    started: function (b) {
      state = { session: b.session, started_at: b.started_at, orders: b.choice_orders, key: form.elements.idempotency_key.value, page: at };
      save();
    },
    // page: page i is shown.
    page: function (i) {
      if (at !== i && at >= 0 && resumed) { resumed = false; say(""); }
      at = i;
      if (state) { state.page = i; save(); }
    },
    // submit sends a submission: without a connection it waits here, and
    // the promise resolves with the answer once there is one.
    submit: function (body, key) {
      state = state || { session: body.session, page: at };
      state.answers = body.answers;
      state.out = { key: key, body: body };
      save();
      return deliver();
    },
    // waiting: a submission waits for a connection.
    waiting: function () { return !!(state && state.out); },
    deliver: deliver,
    // end: the countdown ran out; a submission that waits is still sent
    // (the server judges its time when it arrives).
    end: function () { if (!(state && state.out)) forget(); },
    offline: offline
  };
})();
