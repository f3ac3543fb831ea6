// The page's side of contract section 15, called by app.js: display rules
// (questions hidden and their answers cleared, pages with nothing shown
// skipped, progress over shown pages), per-question timers
// (responding_duration_type 2), and each session's order of choices
// (randomize). The rules are evaluated by logic.js (SurveyLogic).
(function (root) {
  "use strict";
  root.SurveyPageLogic = function (form, answers) {
    var data = document.getElementById("logic");
    // The data block is written short (pages/logic.go): read it back
    // into the contract's rule objects.
    // Each question is [id, type, group, rules, seconds], trailing zeros
    // left out.
    var qs = (data ? JSON.parse(data.textContent) : []).map(function (q) {
      return { id: q[0], type: q[1], group: q[2] || 0, seconds: q[4] || 0, conditions: (q[3] || []).map(function (r) {
        var second = r[2] == null && r[3] == null && r[4] == null ? null : { id: r[2] == null ? null : r[2], type: r[3], value: r[4] == null ? null : r[4] };
        return { first_operand: r[0], arithmetic_operator: r[1], second_operand: second, logical_operator: r[5] == null ? null : r[5] };
      }) };
    });
    var byID = {};
    qs.forEach(function (q) { byID[q.id] = q; });
    var timed = qs.some(function (q) { return q.seconds > 0; });

    function node(id) { return form.querySelector('.q[data-id="' + id + '"]'); }

    // clear empties a hidden question's inputs, so its answer is not sent.
    function clear(el) {
      var changed = false;
      Array.prototype.forEach.call(el.querySelectorAll("input,textarea,select"), function (i) {
        if (i.type === "radio" || i.type === "checkbox") { if (i.checked) { i.checked = false; changed = true; } }
        else if (i.tagName === "SELECT") { if (i.getAttribute("data-choice") === null && i.value !== "") { i.value = ""; changed = true; } }
        else if (i.value !== "") { i.value = ""; changed = true; }
      });
      return changed;
    }

    // refresh shows the questions whose rules hold for the answers given,
    // hides the others and clears their answers.
    function refresh() {
      update();
      if (api.onchange) api.onchange();
    }
    function update() {
      if (!qs.length) return;
      for (var pass = 0; pass <= qs.length; pass++) {
        var shown = root.SurveyLogic.shown(qs, answers()), changed = false;
        qs.forEach(function (q) {
          var el = node(q.id);
          if (!el) return;
          var hide = !shown[q.id];
          if (hide && clear(el)) changed = true;
          if (el.hidden !== hide) el.hidden = hide;
        });
        if (!changed) return;
      }
    }

    function isQuestions(page) { return page.classList.contains("qp"); }

    // pageShown: a questions page shows something when one of its
    // questions (or its group, or a statement) is shown.
    function pageShown(page) {
      if (!isQuestions(page)) return true;
      var items = page.querySelectorAll(".q[data-id]");
      if (!items.length) return true;
      return Array.prototype.some.call(items, function (el) { return !el.hidden; });
    }

    // step is the index of the next page shown from i in direction dir
    // (+1 or -1), pages.length past the last.
    function step(pages, i, dir) {
      var j = i + dir;
      while (j >= 0 && j < pages.length && !pageShown(pages[j])) j += dir;
      return j < 0 ? i : j;
    }

    // progress counts the shown question pages and the place of page i
    // among them (0 when it is not one).
    function progress(pages, i) {
      var total = 0, at = 0;
      pages.forEach(function (p, j) {
        if (isQuestions(p) && pageShown(p)) { total++; if (j <= i) at = total; }
      });
      return { total: total, at: isQuestions(pages[i]) ? at : 0 };
    }

    // seconds is a page's own time: its shown questions' durations.
    function seconds(page) {
      var s = 0;
      Array.prototype.forEach.call(page.querySelectorAll(".q[data-id]"), function (el) {
        var q = byID[el.getAttribute("data-id")];
        if (q && q.seconds && !el.hidden) s += q.seconds;
      });
      return s;
    }

    // order lays out each question's choices in the session's order.
    function order(orders) {
      if (!orders) return;
      Object.keys(orders).forEach(function (id) {
        var el = node(id);
        if (!el) return;
        orders[id].forEach(function (cid) {
          var input = el.querySelector('input[value="' + cid + '"],select[data-choice="' + cid + '"],option[value="' + cid + '"]');
          var item = input && ((input.closest(".rank-item") || input.closest("label")) || (input.tagName === "OPTION" ? input : null));
          if (item) item.parentNode.appendChild(item);
        });
        var tail = el.querySelector(".lbl:last-child");
        if (tail) tail.parentNode.appendChild(tail);
      });
    }

    var ticking = 0;
    // countdown runs page's own time on el (its numbers written by digits),
    // then calls done; stop ends it.
    function countdown(page, el, label, done, digits) {
      clearInterval(ticking);
      var total = timed ? seconds(page) : 0;
      if (!total) { if (el && timed) el.hidden = true; return; }
      var end = Date.now() + total * 1000;
      el.hidden = false;
      function tick() {
        var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
        el.textContent = label + ": " + (digits || String)(Math.floor(left / 60) + ":" + ("0" + left % 60).slice(-2));
        if (left === 0) { clearInterval(ticking); done(); }
      }
      tick();
      ticking = setInterval(tick, 250);
    }
    function stop() { clearInterval(ticking); }

    // sheet links the thanks to the responder's answer sheet, when the
    // 201 answer carries its token.
    function sheet(body, thanks) {
      if (!body || !body.sheet_token || !thanks) return;
      var a = document.createElement("a");
      a.href = "/s/" + encodeURIComponent(form.getAttribute("data-slug")) + "/sheet/" + encodeURIComponent(body.sheet_token);
      a.id = "sheet-link";
      a.textContent = (data && data.getAttribute("data-sheet")) || "Answer sheet";
      var p = document.createElement("p");
      p.appendChild(a);
      thanks.appendChild(p);
    }

    form.addEventListener("input", refresh);
    form.addEventListener("change", refresh);
    update();
    var api = { onchange: null, refresh: refresh, sheet: sheet, step: step, progress: progress, order: order, timed: timed, countdown: countdown, stop: stop };
    return api;
  };
})(this);
