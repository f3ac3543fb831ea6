// Partial responses (contract section 20), loaded on a survey with
// partial_responses: the answers so far are sent (PUT .../partial/) when
// the responder moves to another page, at most one PUT a page change and
// one every 5 s (a change within 5 s of the last PUT waits for the rest
// and sends what is then answered), never while a submission waits.
// "Continue later" (not on a kiosk) shows the address that continues the
// response elsewhere, /s/<slug>/?resume=<the last PUT's Resume-Token>
// (&lang=, the page's, on a survey of several languages), after one more
// PUT when the answers changed since.
(function () {
  "use strict";
  var form = document.getElementById("survey"), keep = window.surveyKeep;
  if (!form || !keep) return;
  var slug = form.getAttribute("data-slug"), table = JSON.parse(form.getAttribute("data-messages") || "{}");
  var last = 0, waiting = 0, token = "", dirty = true, putting = null, at = -1;
  function session() { return form.elements.session.value; }
  // qpage is the index of the page shown among the question pages, -1
  // on another page.
  function qpage() { return Array.prototype.indexOf.call(form.querySelectorAll(".page.qp"), form.querySelector(".page:not([hidden])")); }

  function put() {
    clearTimeout(waiting); waiting = 0; last = Date.now(); dirty = false;
    var body = { session: session(), answers: keep.h.answers(), page: Math.max(0, qpage()), variables: keep.h.variables() };
    putting = fetch("/api/public/surveys/" + encodeURIComponent(slug) + "/partial/", { method: "PUT", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { if (r.status === 204 && r.headers.get("Resume-Token")) token = r.headers.get("Resume-Token"); else dirty = true; }, function () { dirty = true; });
    return putting;
  }

  var cont = null, page = keep.page;
  keep.page = function (i) {
    page(i);
    var moved = at !== i && at >= 0;
    at = i;
    if (cont) cont.hidden = !session() || qpage() < 0;
    if (!moved || !session() || keep.waiting() || waiting) return;
    dirty = true;
    waiting = setTimeout(put, Math.max(0, last + 5000 - Date.now()));
  };

  if (form.getAttribute("data-keep") === "false") return;
  cont = document.createElement("div");
  cont.className = "later"; cont.hidden = true;
  cont.innerHTML = '<button type="button" class="prev"></button><p role="status"></p>';
  var button = cont.firstChild, line = cont.lastChild, nav = form.querySelector(".nav");
  button.textContent = table["Continue later"] || "Continue later";
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
      var m = token ? "To continue on another device, open this link:" : navigator.onLine === false ? keep.offline : "The network failed; try again.";
      line.textContent = (table[m] || m) + " ";
      if (!token) return;
      var a = document.createElement("a");
      // In the language the page is read in, on a survey of several
      // (section 24): the other device opens it so, whatever its own.
      var lang = document.querySelector("nav.langs") ? "&lang=" + encodeURIComponent(document.documentElement.lang) : "";
      a.href = a.textContent = location.origin + "/s/" + slug + "/?resume=" + encodeURIComponent(token) + lang;
      a.dir = "ltr"; a.id = "resume-link";
      line.appendChild(a);
    });
  });
})();
