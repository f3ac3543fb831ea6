// The sign-in step of contract section 18 (window.surveySignIn, which
// app.js calls once with its call, fail, refusal, tr, session and on): on
// each sign-in page the address, sent with a freshly solved challenge
// (solved in responder.js's worker while the responder types), then the
// one-time code, whose confirmation answers the session the response
// carries on with.
(function () {
  "use strict";
  window.surveySignIn = function (o) {
    var form = document.getElementById("survey"), next = document.getElementById("next"), errors = document.getElementById("errors");
    var busy = false, pending = null; // the next send's challenge, being solved
    function presolve() { if (!pending) pending = window.surveyExtras.challenge(); return pending; }
    function clear() { errors.innerHTML = ""; }
    function session(s) { if (s) form.elements.session.value = s; return form.elements.session.value; }
    function parts(page) {
      return { send: page.querySelector(".signin-send"), confirm: page.querySelector(".signin-confirm"),
        address: page.querySelector(".signin-send input"), code: page.querySelector(".signin-confirm input"),
        sent: page.querySelector(".signin-sent") };
    }
    function label(page) { next.textContent = page.getAttribute(page.verification ? "data-confirm-text" : "data-enter-text"); }
    function invalid(input, bad) { if (bad) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid"); }
    function refuse(input, msgs) { invalid(input, true); o.fail(msgs); return false; }
    function required(input) { return Promise.resolve(refuse(input, [o.tr("This field is required.")])); }
    // ask shows the address again, for a new code.
    function ask(page) {
      var p = parts(page);
      page.verification = null; p.confirm.hidden = true; p.send.hidden = false; p.code.value = "";
      label(page); p.address.focus();
    }
    // sent shows the code's field, saying where the code went.
    function sent(page, address) {
      var p = parts(page), words = page.getAttribute("data-sent").split("%s"), b = document.createElement("bdi");
      b.textContent = address;
      p.sent.textContent = "";
      p.sent.append(words[0], b, words[1] || "");
      invalid(p.address, false); p.send.hidden = true; p.confirm.hidden = false;
      label(page); clear(); p.code.focus();
    }
    document.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest(".signin-resend");
      if (b) { clear(); ask(b.closest(".signin")); }
    });
    // pass answers whether the responder may go on: the page is signed in.
    // A send keeps the responder on the page, for the code.
    function pass(page) {
      var p = parts(page);
      if (page.signedIn) return Promise.resolve(true);
      if (!page.verification) {
        var address = p.address.value.trim();
        if (!address) return required(p.address);
        var captcha = presolve();
        pending = null;
        return captcha.then(function (c) {
          return o.call("verifications/", { session: session(), channel: page.getAttribute("data-channel"), address: address, captcha: c });
        }).then(function (r) {
          presolve();
          if (r.status !== 202) return refuse(p.address, o.refusal(r));
          page.verification = r.body.verification;
          sent(page, address);
          return false;
        });
      }
      var code = p.code.value.trim();
      if (!code) return required(p.code);
      return o.call("verifications/confirm/", { session: session(), verification: page.verification, code: code }).then(function (r) {
        if (r.status === 200 && r.body.session) { invalid(p.code, false); page.signedIn = true; session(r.body.session); return true; }
        if (r.status === 410) { ask(page); o.fail(o.refusal(r)); return false; }
        return refuse(p.code, o.refusal(r));
      });
    }
    function signin(page) { return page.classList.contains("signin"); }
    return {
      shown: function (page) { if (signin(page)) { presolve(); label(page); } },
      // advance answers whether the page is a sign-in page, which it
      // leaves (o.on) once signed in, after the response's session started.
      advance: function (page) {
        if (!signin(page)) return false;
        if (!busy) {
          busy = true;
          o.session().then(function (ok) { return ok && pass(page); })
            .catch(function () { o.fail([o.tr("The network failed; try again.")]); return false; })
            .then(function (ok) { busy = false; if (ok) o.on(); });
        }
        return true;
      }
    };
  };
})();
