// Answers that survive (contract section 20), as hooks app.js calls
// (window.surveyKeep). The answers so far, the page shown and the session
// are kept in localStorage under "survey:<slug>" on every change, so that
// a reload, a crash or a closed tab resumes where the responder was; a
// submission that finds no connection waits there with its
// Idempotency-Key and is sent again, the same bytes, on the "online"
// event, every 15 s and on the next visit: the service records it once.
// Nothing is kept on a kiosk survey (data-keep="false"). In a frame the
// storage is the embedding site's partition (or refused): kept where the
// browser allows it, never the service worker. With partial_responses
// the page also sends the answers so far when the page changes (at most
// one PUT a change and one every 5 s) and offers "Continue later".
(function () {
  "use strict";
  var gone = document.querySelector("[data-forget]");
  // The closed page forgets what was kept for its survey.
  if (gone) { try { localStorage.removeItem("survey:" + gone.getAttribute("data-forget")); } catch (e) { /* storage refused */ } return; }
  var form = document.getElementById("survey");
  if (!form) return;
  var framed = window.parent !== window;
  // The service worker (sw.js): a page it did not serve asks it to keep a
  // copy, and the assets it loaded.
  if (!framed && navigator.serviceWorker) {
    var first = !navigator.serviceWorker.controller;
    navigator.serviceWorker.register(form.getAttribute("data-sw"), { scope: "/s/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      var assets = Array.prototype.map.call(document.querySelectorAll("script[src],link[rel=stylesheet],link[rel=icon]"), function (e) { return e.src || e.href; });
      if (first && reg.active) reg.active.postMessage({ page: location.href, assets: assets });
    }).catch(function () {});
  }
  var slug = form.getAttribute("data-slug"), name = "survey:" + slug;
  var api = "/api/public/surveys/" + encodeURIComponent(slug) + "/";
  var keeping = form.getAttribute("data-keep") !== "false", partial = form.getAttribute("data-partial") === "true";
  var table = JSON.parse(form.getAttribute("data-messages") || "{}");
  function tr(m) { return table[m] || m; }
  var state = null, hooks = null, names = {}, at = -1, resumed = false;

  function read() { try { return JSON.parse(localStorage.getItem(name)); } catch (e) { return null; } }
  function save() {
    if (!keeping || !state) return;
    if (hooks && !state.out) state.answers = hooks.answers();
    state.files = {};
    Array.prototype.forEach.call(form.querySelectorAll(".q.file[data-upload]"), function (q) {
      var id = q.getAttribute("data-id");
      state.files[id] = names[id] || "";
    });
    try { localStorage.setItem(name, JSON.stringify(state)); } catch (e) { /* full or refused: not kept */ }
  }
  function forget() { state = null; try { localStorage.removeItem(name); } catch (e) { /* refused */ } }
  var soon = 0;
  function later() { if (!soon) soon = setTimeout(function () { soon = 0; save(); }, 0); }

  // The notice above the form: a status a screen reader announces.
  var notice = document.createElement("p");
  notice.id = "kept"; notice.className = "kept"; notice.setAttribute("role", "status"); notice.hidden = true;
  form.parentNode.insertBefore(notice, form);
  function say(m) { notice.textContent = m ? tr(m) : ""; notice.hidden = !m; }

  ["input", "change", "click"].forEach(function (t) { form.addEventListener(t, later); });
  if (window.MutationObserver) new MutationObserver(later).observe(form, { subtree: true, attributes: true, attributeFilter: ["data-upload"] });
  form.addEventListener("change", function (ev) {
    var i = ev.target;
    if (i.type === "file" && i.files && i.files.length) names[i.closest(".q").getAttribute("data-id")] = i.files[0].name;
  });

  // fill puts answers (the API's shape) into the page's controls; files
  // are shown by name, never sent again.
  function fill(answers, files) {
    Array.prototype.forEach.call(form.querySelectorAll(".q[data-type]"), function (q) {
      var id = q.getAttribute("data-id"), t = q.getAttribute("data-type"), v = answers[id];
      if (v == null) return;
      var ins = Array.prototype.slice.call(q.querySelectorAll("input"));
      if (t === "2" || t === "10") form.elements["a" + id].value = v;
      else if (t === "3" || t === "4" || t === "6" || t === "7") ins.forEach(function (i) { i.checked = [].concat(v).indexOf(+i.value) >= 0; });
      else if (t === "5") {
        var list = q.querySelector(".ranks");
        v.forEach(function (c, n) {
          var s = q.querySelector('select[data-choice="' + c + '"]');
          if (!s) return;
          s.value = String(n + 1);
          if (list) list.appendChild(s.closest("li"));
        });
      } else if (t === "11" && files && id in files) {
        q.setAttribute("data-upload", v);
        var s = q.querySelector(".upload-status");
        s.textContent = q.getAttribute("data-msg-uploaded") + (files[id] ? ": " + files[id] : "");
        names[id] = files[id];
      } else if (t === "12") Object.keys(v).forEach(function (r) {
        var c = q.querySelector('.mrow[data-row="' + r + '"] input[value="' + v[r] + '"]');
        if (c) c.checked = true;
      });
    });
  }

  // resume is what the page resumes from: the partial of a "Continue
  // later" link (?resume=, its files left out), else what this browser
  // kept while its session may still respond.
  function resume() {
    var token = new URLSearchParams(location.search).get("resume");
    if (!token) {
      var k = keeping && read();
      if (!k || !k.session) return Promise.resolve(null);
      var d = parseInt(form.getAttribute("data-duration"), 10) || 0;
      if (d && Date.now() > Date.parse(k.started_at) + d * 1000 + 30000) { forget(); return Promise.resolve(null); }
      state = k; resumed = true;
      return Promise.resolve(k);
    }
    var u = new URL(location.href);
    u.searchParams.delete("resume");
    history.replaceState(null, "", u.pathname + u.search + u.hash);
    return fetch(api + "resume/", { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify({ token: token }) })
      .then(function (r) {
        if (r.status !== 200) throw r;
        return r.json();
      }).then(function (b) {
        var answers = b.answers || {};
        Array.prototype.forEach.call(form.querySelectorAll('.q[data-type="11"]'), function (q) { delete answers[q.getAttribute("data-id")]; });
        var qs = form.querySelectorAll(".page.questions");
        state = { session: b.session, started_at: b.started_at, orders: b.choice_orders, key: form.elements.idempotency_key.value, answers: answers,
          page: Math.max(0, Array.prototype.indexOf.call(form.querySelectorAll(".page"), qs[b.page] || qs[0])) };
        resumed = true;
        return state; // kept once filled in (the page shown saves it)
      }, function (r) {
        say(r && r.status ? "The link to continue has expired." : "This step needs a connection; try again when you are back online.");
        return null;
      });
  }

  // send posts the waiting submission, the same bytes each time; r is
  // {status: 0} while there is no connection.
  function send() {
    var out = state.out;
    return fetch(api + out.path, { method: out.method, credentials: "same-origin", body: out.body,
      headers: { "Content-Type": "application/json", Accept: "application/json", "Idempotency-Key": out.key } })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (b) { return { status: r.status, body: b || {} }; }); },
        function () { return { status: 0, body: {} }; });
  }

  // deliver sends the waiting submission until it gets an answer: while
  // offline the form waits hidden behind the notice. A refusal that no
  // resend can change (closed, time over, responded, a bad session)
  // forgets the answers; a 400 on the answers or an outage gives the form
  // back with them.
  var delivering = null;
  function deliver() {
    if (delivering) return delivering;
    delivering = new Promise(function (resolve) {
      var timer = 0;
      function attempt() {
        clearTimeout(timer);
        send().then(function (r) {
          if (!r.status) {
            form.hidden = true; say("Saved on this device. It will be sent when you are back online.");
            timer = setTimeout(attempt, 15000);
            return;
          }
          window.removeEventListener("online", attempt);
          say(""); form.hidden = false; delivering = null;
          if (r.status < 300 || r.status === 409 || r.status === 410 || r.body.session) forget();
          else { delete state.out; save(); }
          resolve(r);
        });
      }
      window.addEventListener("online", attempt);
      attempt();
    });
    return delivering;
  }

  // The partial response (section 20): one PUT a page change, one every
  // 5 s at most; its Resume-Token makes the "Continue later" link.
  var last = 0, waiting = 0, token = "", dirty = true, putting = null;
  function put() {
    waiting = 0; last = Date.now(); dirty = false;
    var body = { session: state.session, answers: hooks.answers(), page: Math.max(0, qpage()), variables: hooks.variables() };
    putting = fetch(api + "partial/", { method: "PUT", credentials: "same-origin", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { if (r.status === 204 && r.headers.get("Resume-Token")) token = r.headers.get("Resume-Token"); else dirty = true; }, function () { dirty = true; });
    return putting;
  }
  function schedule() {
    if (!partial || !state || state.out || waiting) return;
    waiting = setTimeout(put, Math.max(0, last + 5000 - Date.now()));
  }
  function qpage() { return Array.prototype.indexOf.call(form.querySelectorAll(".page.questions"), form.querySelectorAll(".page")[at]); }

  // "Continue later" (not on a kiosk's shared screen): the link of the
  // last PUT's token, after one more PUT when the answers changed since.
  var cont = null;
  if (partial && keeping) {
    cont = document.createElement("div");
    cont.className = "later"; cont.hidden = true;
    cont.innerHTML = '<button type="button" class="prev"></button><p role="status"></p>';
    var button = cont.firstChild, line = cont.lastChild, nav = form.querySelector(".nav");
    button.textContent = tr("Continue later");
    nav.parentNode.insertBefore(cont, nav.nextSibling);
    form.addEventListener("input", function () { dirty = true; });
    form.addEventListener("change", function () { dirty = true; });
    button.addEventListener("click", function () {
      clearTimeout(waiting); waiting = 0;
      (putting || Promise.resolve()).then(function () {
        if (token && !dirty) return;
        var wait = last + 5000 - Date.now();
        return wait > 0 ? new Promise(function (r) { setTimeout(r, wait); }).then(put) : put();
      }).then(function () {
        line.textContent = "";
        if (!token) { line.textContent = tr(navigator.onLine === false ? "This step needs a connection; try again when you are back online." : "The network failed; try again."); return; }
        var url = location.origin + "/s/" + slug + "/?resume=" + encodeURIComponent(token), a = document.createElement("a");
        a.href = url; a.textContent = url; a.dir = "ltr"; a.id = "resume-link";
        line.appendChild(document.createTextNode(tr("To continue on another device, open this link:") + " "));
        line.appendChild(a);
      });
    });
  }

  window.surveyKeep = {
    // attach gives the keeper app.js's readers of the answers and the
    // query-string variables.
    attach: function (h) { hooks = h; },
    resume: resume,
    fill: function (k) { fill(k.answers || {}, k.files || {}); },
    // resumed: the page was restored (say so until the next page).
    resumed: function () { if (resumed) say("Your answers so far are filled in."); },
    // started keeps a new session (its 201 body) with the page's key.
    started: function (b) {
      state = { session: b.session, started_at: b.started_at, orders: b.choice_orders, key: form.elements.idempotency_key.value, page: at };
      save();
    },
    // page: page i is shown.
    page: function (i) {
      var moved = at !== i && at >= 0;
      at = i;
      if (!state) return;
      if (moved && resumed) { resumed = false; say(""); }
      if (moved) dirty = true;
      state.page = i;
      save();
      if (cont) cont.hidden = !state.session || qpage() < 0;
      if (moved) schedule();
    },
    // submit sends a submission; without a connection it waits here and
    // the promise resolves with the answer once there is one.
    submit: function (path, body, key) {
      if (!state) state = { session: body.session, key: key, page: at };
      clearTimeout(waiting); waiting = 0;
      state.answers = body.answers;
      state.out = { path: path, method: "POST", key: key, body: JSON.stringify(body) };
      save();
      return deliver();
    },
    // waiting: a submission kept from an earlier visit is on its way.
    waiting: function () { return !!(state && state.out); },
    deliver: deliver,
    // end: the session is over (the time to respond ran out).
    end: forget
  };
})();
