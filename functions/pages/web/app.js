// Paging, countdown and submission through the public JSON API
// (contract 11). Without this script the form posts as a plain form.
// In a frame on another site (contract 17) the page tells its parent its
// height whenever it changes and that a response was submitted (no
// answers, no ids): {"type": "survey:resize", "height": N} and
// {"type": "survey:submitted"}.
(function () {
  "use strict";
  var root = document.documentElement;
  var framed = window.parent !== window;
  function tell(msg) { if (framed) window.parent.postMessage(msg, "*"); }
  if (framed) {
    var told = -1;
    var measure = function () {
      var h = Math.ceil(root.getBoundingClientRect().height);
      if (h !== told) { told = h; tell({ type: "survey:resize", height: h }); }
    };
    if (window.ResizeObserver) new ResizeObserver(measure).observe(root);
    window.addEventListener("load", measure);
    measure();
  }
  var form = document.getElementById("survey");
  if (!form) return;
  var slug = form.getAttribute("data-slug");
  var api = "/api/public/surveys/" + encodeURIComponent(slug) + "/";
  var pages = Array.prototype.slice.call(form.querySelectorAll(".page"));
  var qpages = pages.filter(function (p) { return p.classList.contains("qp"); });
  var prev = document.getElementById("prev"), next = document.getElementById("next"), submit = document.getElementById("submit");
  var progress = document.getElementById("progress"), errors = document.getElementById("errors");
  var timer = document.getElementById("timer"), timeup = document.getElementById("timeup"), thanks = document.getElementById("thanks");
  var hideNext = form.getAttribute("data-hide-next") === "true", hidePrev = form.getAttribute("data-hide-prev") === "true";
  var duration = parseInt(form.getAttribute("data-duration"), 10) || 0;
  var nextLabel = next.getAttribute("data-label") || next.textContent;
  var at = 0, busy = false, deadline = 0, ticking = 0;
  function field(n) { return form.elements[n]; }
  // The numbers people read are in the page language's digits (fa, ar).
  var zero = { fa: 1776, ar: 1632 }[root.lang];
  function digits(s) { return zero ? String(s).replace(/\d/g, function (d) { return String.fromCharCode(zero + +d); }) : String(s); }
  // focusOn moves the focus to el; after a pointer (or none yet, on load)
  // no ring is drawn around a heading or a message, after a key it is.
  var keyed = false;
  document.addEventListener("keydown", function () { keyed = true; }, true);
  document.addEventListener("pointerdown", function () { keyed = false; }, true);
  function focusOn(el) {
    if (!keyed && !el.matches("input,select,textarea,button")) {
      el.classList.add("calm");
      el.addEventListener("blur", function () { el.classList.remove("calm"); }, { once: true });
    }
    el.focus();
  }
  var none = function () { return Promise.resolve({}); };
  var extras = window.surveyExtras || { session: none, submission: none, submitted: function () {} };
  // Answers kept in the browser and submissions that wait for a
  // connection (contract section 20, offline.js).
  var keep = window.surveyKeep;
  if (keep) keep.attach({ answers: answers, variables: variables, call: call });
  // Display rules, per-question timers and choice orders (logic_page.js).
  var logic = window.SurveyPageLogic ? window.SurveyPageLogic(form, answers) : null;
  function step(i, dir) { return logic ? logic.step(pages, i, dir) : i + dir; }

  // bar shows page i's place in the progress bar: among the pages shown.
  function bar(i) {
    var q = qpages.indexOf(pages[i]);
    if (progress && logic) { var pr = logic.progress(pages, i); q = pr.at - 1; progress.max = pr.total || 1; }
    if (progress) { progress.hidden = q < 0; progress.value = q + 1; }
  }
  if (logic) logic.onchange = function () { bar(at); var last = step(at, 1) >= pages.length; next.hidden = last || (hideNext && pages[at].hasAttribute("data-auto")); submit.hidden = !last; };

  function show(i) {
    at = i;
    if (errors) errors.innerHTML = "";
    pages.forEach(function (p, j) { p.hidden = j !== i; });
    var last = step(i, 1) >= pages.length;
    prev.hidden = hidePrev || i === 0 || !!(logic && logic.timed);
    next.hidden = last || (hideNext && pages[i].hasAttribute("data-auto"));
    submit.hidden = !last;
    next.textContent = pages[i].getAttribute("data-enter-text") || nextLabel;
    if (signin) signin.shown(pages[i]);
    bar(i);
    if (logic && logic.timed && field("session").value) logic.countdown(pages[i], timer, timer.getAttribute("data-label"), function () {
      if (step(at, 1) < pages.length) show(step(at, 1)); else if (form.requestSubmit) form.requestSubmit(); else submit.click();
    }, digits);
    // The first control shown (a ranking's selects are not), else the heading.
    var f = Array.prototype.find.call(pages[i].querySelectorAll("input:not([type=hidden]),select,textarea,.moves button,h2,h3"), function (e) { return e.getClientRects().length; });
    if (f) { if (!f.matches("input,select,textarea")) f.tabIndex = -1; focusOn(f); }
    if (keep) keep.page(i);
  }

  function fail(msgs) {
    errors.innerHTML = "";
    msgs.forEach(function (m) { var p = document.createElement("p"); p.dir = "auto"; p.textContent = m; errors.appendChild(p); });
    focusOn(errors);
  }
  // netFail: a request found no connection; a step that needs the server
  // says so while the browser is offline.
  function netFail() {
    fail([tr(keep && navigator.onLine === false ? keep.offline : "The network failed; try again.")]);
  }

  // messages are an error body's messages, an answer's prefixed with its
  // question's title, isolated (FSI ... PDI, without its own isolate
  // controls) as messages.go's isolate does: a bidi control the title
  // leaves open ends with it.
  function messages(body) {
    var out = [];
    (function walk(v, prefix) {
      if (typeof v === "string") out.push(prefix + tr(v));
      else if (Array.isArray(v)) v.forEach(function (x) { walk(x, prefix); });
      else if (v && typeof v === "object") Object.keys(v).forEach(function (k) {
        var q = /^\d+$/.test(k) && form.querySelector('.q[data-id="' + k + '"] .qt');
        walk(v[k], q ? "\u2068" + title(q).replace(/[\u2066-\u2069]/g, "") + "\u2069: " : prefix);
      });
    })(body, "");
    return out.length ? out : [tr("Something went wrong.")];
  }

  // title is a question's title as a person reads it, without the
  // required mark (the star and the screen reader's word).
  function title(qt) {
    var c = qt.cloneNode(true);
    Array.prototype.forEach.call(c.querySelectorAll("[aria-hidden],.sr"), function (n) { n.parentNode.removeChild(n); });
    return c.textContent.trim();
  }

  // refusal is an answer's messages for the responder: a throttle or an
  // outage by its status (their details are for developers), else the
  // body's messages.
  function refusal(r) {
    if (r.status === 429 && (!r.body.detail || /^Request was throttled/.test(r.body.detail))) return [tr("Too many requests; wait a moment and try again.")];
    if (r.status === 503) return [tr("The service is busy; try again shortly.")];
    if (r.status >= 500) return [tr("Something went wrong.")];
    return messages(r.body);
  }

  // tr is an API message in the page's language (data-messages); one
  // with numbers is in the table by its pattern, each number as %d.
  var translations = JSON.parse(form.getAttribute("data-messages") || "{}");
  function tr(m) {
    var n = /\d+/.exec(m), counted = n && translations[m.replace(/\d+/g, "%d")];
    return translations[m] || (counted ? counted.replace("%d", digits(n[0])) : m);
  }
  function atLeast(n) { return form.getAttribute("data-msg-min").replace("%d", digits(n)); }

  // check keeps the responder on a page whose required questions are not
  // answered, or whose ranking ties: the message goes beside the question,
  // which gets the focus (and announces it).
  function check(page) {
    var first = null;
    Array.prototype.forEach.call(page.querySelectorAll(".q[data-type]"), function (q) {
      var msg = problem(q), id = "err" + q.getAttribute("data-id"), old = document.getElementById(id);
      if (old) old.parentNode.removeChild(old);
      var controls = Array.prototype.slice.call(q.querySelectorAll("input,select,textarea"));
      controls.forEach(function (c) {
        if (msg) { c.setAttribute("aria-invalid", "true"); c.setAttribute("aria-describedby", id); }
        else { c.removeAttribute("aria-invalid"); c.removeAttribute("aria-describedby"); }
      });
      if (!msg) return;
      var p = document.createElement("p"); p.className = "err"; p.id = id; p.textContent = msg;
      q.appendChild(p);
      if (!first && controls.length) first = controls[0];
    });
    if (first) first.focus();
    return !first;
  }

  function problem(q) {
    if (q.closest("[hidden]")) return ""; // hidden by its rules: not asked
    var t = q.getAttribute("data-type");
    if (t === "5") {
      var seen = {}, tie = false;
      Array.prototype.forEach.call(q.querySelectorAll("select"), function (s) { tie = tie || seen[s.value]; seen[s.value] = true; });
      return tie ? form.getAttribute("data-msg-ties") : "";
    }
    var min = +q.getAttribute("data-min"), picked = q.querySelectorAll("input:checked").length;
    if (min && picked && picked < min) return atLeast(min);
    if (q.getAttribute("data-required") !== "true") return "";
    if (min && picked < min) return atLeast(min);
    var answered = q.querySelector("input:checked") || q.getAttribute("data-upload") || q.getAttribute("data-uploading") ||
      Array.prototype.some.call(q.querySelectorAll("textarea,select"), function (c) { return c.value.trim() !== ""; });
    return answered ? "" : form.getAttribute("data-msg-required");
  }

  function call(path, body, headers, method) {
    headers = headers || {};
    headers["Content-Type"] = "application/json";
    headers.Accept = "application/json";
    return fetch(api + path, { method: method || "POST", headers: headers, body: JSON.stringify(body), credentials: "same-origin" })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (b) { return { status: r.status, body: b || {} }; });
      });
  }

  function startCountdown(startedAt) {
    if (!duration) return;
    deadline = Date.parse(startedAt) + duration * 1000;
    timer.hidden = false;
    function tick() {
      var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      timer.textContent = timer.getAttribute("data-label") + ": " + digits(Math.floor(left / 60) + ":" + ("0" + left % 60).slice(-2));
      if (left === 0) { clearInterval(ticking); form.hidden = true; timeup.hidden = false; focusOn(timeup); if (keep) keep.end(); }
    }
    tick();
    ticking = setInterval(tick, 250);
  }

  var starting = null;
  // session starts the response once: a second call while the first is on
  // its way waits for it.
  function session() {
    if (field("session").value) return Promise.resolve(true);
    if (starting) return starting;
    starting = startSession().then(function (ok) { starting = null; return ok; }, function (e) { starting = null; throw e; });
    return starting;
  }

  function startSession() {
    var body = {};
    if (field("code")) body.code = field("code").value;
    if (field("qs").value) body.qs = field("qs").value;
    // The page's chosen language (contract 24): the response records it.
    body.language = root.lang;
    return extras.session().then(function (extra) {
      Object.keys(extra).forEach(function (k) { body[k] = extra[k]; });
      return call("sessions/", body);
    }).then(function (r) {
      // A code-guess guard under attack asks for a solved challenge
      // (contract 16): solve one in the worker and ask again, once.
      if (r.status === 400 && r.body && r.body.captcha && !body.captcha && extras.challenge) {
        return extras.challenge().then(function (captcha) { body.captcha = captcha; return call("sessions/", body); });
      }
      return r;
    }).then(function (r) {
      if (r.status !== 201) { fail(refusal(r)); return false; }
      field("session").value = r.body.session;
      if (keep) keep.started(r.body);
      if (logic) logic.order(r.body.choice_orders);
      if (window.surveyRanking) window.surveyRanking.renumber();
      startCountdown(r.body.started_at);
      if (logic && logic.timed && pages[at].classList.contains("qp")) show(at);
      return true;
    });
  }

  function answers() {
    var out = {};
    Array.prototype.forEach.call(form.querySelectorAll(".q[data-type]"), function (q) {
      var id = q.getAttribute("data-id"), t = q.getAttribute("data-type"), v;
      if (t === "2") { v = field("a" + id).value.trim(); if (v) out[id] = v; }
      else if (t === "3" || t === "4") {
        v = Array.prototype.filter.call(q.querySelectorAll("input"), function (i) { return i.checked; }).map(function (i) { return +i.value; });
        if (v.length) out[id] = v;
      } else if (t === "5") {
        v = Array.prototype.map.call(q.querySelectorAll("select"), function (s) { return [+s.value, +s.getAttribute("data-choice")]; });
        v.sort(function (a, b) { return a[0] - b[0]; });
        out[id] = v.map(function (x) { return x[1]; });
      } else if (t === "6" || t === "7") {
        var c = q.querySelector("input:checked"); if (c) out[id] = +c.value;
      } else if (t === "10") { v = field("a" + id).value; if (v) out[id] = +v; }
      else if (t === "11") { v = q.getAttribute("data-upload"); if (v) out[id] = v; }
      else if (t === "12") {
        var m = {};
        Array.prototype.forEach.call(q.querySelectorAll(".mrow"), function (r) {
          var c = r.querySelector("input:checked"); if (c) m[r.getAttribute("data-row")] = +c.value;
        });
        if (Object.keys(m).length) out[id] = m;
      }
    });
    return out;
  }

  function variables() {
    var out = {};
    Array.prototype.forEach.call(form.querySelectorAll("input[type=hidden][name^=var_]"), function (i) { out[i.name.slice(4)] = i.value; });
    return out;
  }

  // The sign-in pages (section 18, signin.js) are signin.js's to show and
  // to leave; it goes on to the next page with on().
  var signin = window.surveySignIn && window.surveySignIn({ call: call, fail: fail, refusal: refusal, tr: tr, session: session, on: function () { show(step(at, 1)); } });

  // advance leaves the page shown for the next one. The session starts when
  // the responder leaves the welcome page (or the code page, which gives it
  // its code), so the countdown starts there.
  function advance() {
    if (signin && signin.advance(pages[at])) return;
    if (!check(pages[at])) return;
    if (pages[at].classList.contains("welcome") && form.querySelector(".page.code")) { show(at + 1); return; }
    session().then(function (ok) { if (ok) show(step(at, 1)); }, netFail);
  }
  next.addEventListener("click", advance);
  prev.addEventListener("click", function () { show(step(at, -1)); });
  // With hide_next_button a pick by pointer moves on by itself; Enter
  // (the form's implicit submission) moves on by keyboard on every page
  // but the last.
  function onwards() {
    return hideNext && pages[at].hasAttribute("data-auto") && step(at, 1) < pages.length;
  }
  form.addEventListener("pointerup", function (ev) {
    var t = ev.target.closest(".choice,fieldset.q>label,.row>label,.mrow>label");
    if (!onwards() || !t || t.closest(".matrix") || t.querySelector("input[type=checkbox]")) return;
    setTimeout(advance, 150);
  });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    if (step(at, 1) < pages.length) { advance(); return; }
    if (busy || !check(pages[at])) return;
    busy = true; submit.disabled = true;
    session().then(function (ok) {
      if (!ok) return;
      return extras.submission().then(function (extra) {
        var body = { session: field("session").value, answers: answers(), variables: variables() };
        Object.keys(extra).forEach(function (k) { body[k] = extra[k]; });
        // An edit of the response (section 16, responder.js) is a PUT.
        var edit = extras.edit ? extras.edit() : null;
        if (edit) return call(edit.path, body, {}, "PUT");
        // The session's own key (responding.SessionKey): no item of its own.
        var key = "session:" + body.session.slice(-32);
        return keep ? keep.submit(body, key) : call("responses/", body, { "Idempotency-Key": key });
      }).then(done);
    }).catch(netFail).then(idle);
  });
  function idle() { busy = false; submit.disabled = false; }

  // done shows a submission's answer.
  function done(r) {
    // 200 {"preview": true}: a template's preview, checked and not
    // saved; 200 with edited_at: an edit.
    if (r.status === 201 || r.status === 200 && (r.body.preview || r.body.edited_at)) {
      clearInterval(ticking); if (logic) { logic.stop(); logic.sheet(r.body, thanks); }
      form.hidden = timer.hidden = timeup.hidden = true; thanks.hidden = false; focusOn(thanks);
      tell({ type: "survey:submitted" });
      extras.submitted(r.body);
      return;
    }
    if (r.status === 410 && /time/i.test(r.body.detail || "")) { form.hidden = true; timeup.hidden = false; return; }
    fail(refusal(r));
  }

  // reopen shows the questions again, for an edit from the thanks page
  // (section 16, responder.js).
  extras.reopen = function () {
    var i = pages.findIndex(function (p) { return p.classList.contains("qp"); });
    thanks.hidden = true; form.hidden = false; show(i < 0 ? 0 : i);
  };

  // resume restores a response kept in the browser or continued from
  // another device (offline.js), and sends on a submission that waited.
  function resume(k) {
    field("session").value = k.session;
    if (k.key) field("idempotency_key").value = k.key;
    if (logic) logic.order(k.orders);
    keep.fill(k);
    if (logic) logic.refresh();
    startCountdown(k.started_at);
    show(Math.min(k.page || 0, pages.length - 1));
    if (keep.waiting()) { busy = true; submit.disabled = true; keep.deliver().then(done).then(idle); }
  }

  root.classList.add("js", "ready");
  (keep ? keep.resume() : Promise.resolve(null)).then(function (k) {
    if (k) { resume(k); return; }
    if (pages.length) show(0);
    if (!pages.length || !pages[0].classList.contains("welcome") && !pages[0].classList.contains("code")) session().catch(netFail);
  });
})();
