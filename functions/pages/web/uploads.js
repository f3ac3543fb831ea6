// File-upload questions (contract section 16): a chosen file is checked
// against the question's types and size before anything is sent; then the
// page asks the service for a presigned POST (uploads/) and sends the file
// straight to S3, showing its progress. The upload id it gets back is the
// question's answer (data-upload, which app.js sends); the submission
// waits for uploads still on their way.
(function () {
  "use strict";
  var form = document.getElementById("survey");
  if (!form) return;
  var api = "/api/public/surveys/" + encodeURIComponent(form.getAttribute("data-slug")) + "/";
  var pending = {};

  function status(q, msg, bad) {
    var s = q.querySelector(".upload-status"), input = q.querySelector("input[type=file]");
    s.textContent = msg;
    s.className = "upload-status" + (bad ? " err" : "");
    if (bad) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
  }

  function extension(name) {
    var i = name.lastIndexOf(".");
    return i < 0 ? "" : name.slice(i + 1).toLowerCase();
  }

  // refusal is why a file cannot be sent, or "".
  function refusal(q, file) {
    var types = (q.getAttribute("data-types") || "").split(",");
    if (types.indexOf(extension(file.name)) < 0) return q.getAttribute("data-msg-type");
    if (file.size < 1 || file.size > +q.getAttribute("data-max-bytes")) return q.getAttribute("data-msg-size");
    return "";
  }

  // session waits (a few seconds at most) for the response's session.
  function session() {
    return new Promise(function (resolve) {
      var tries = 0;
      (function look() {
        var v = form.elements.session.value;
        if (v || tries++ > 50) resolve(v); else setTimeout(look, 100);
      })();
    });
  }

  // messages are a refusal's messages in the page's language (the
  // form's data-messages); a throttle or an outage by its status.
  var table = JSON.parse(form.getAttribute("data-messages") || "{}");
  function tr(m) { return table[m] || m; }
  function messages(status, body) {
    if (status === 429 && (!body.detail || /^Request was throttled/.test(body.detail))) return tr("Too many requests; wait a moment and try again.");
    if (status >= 500) return tr("The service is busy; try again shortly.");
    var out = [];
    Object.keys(body || {}).forEach(function (k) { out = out.concat(body[k]); });
    return out.map(tr).join(" ");
  }

  // send posts the file to S3 with the presigned POST, reporting progress.
  function send(q, post, file) {
    var bar = q.querySelector(".upload-progress");
    return new Promise(function (resolve, reject) {
      var data = new FormData();
      Object.keys(post.fields).forEach(function (k) { data.append(k, post.fields[k]); });
      data.append("file", file);
      var xhr = new XMLHttpRequest();
      xhr.open("POST", post.url);
      xhr.upload.onprogress = function (ev) { if (ev.lengthComputable) bar.value = Math.round(100 * ev.loaded / ev.total); };
      xhr.onload = function () { if (xhr.status >= 200 && xhr.status < 300) resolve(); else reject(new Error("S3 " + xhr.status)); };
      xhr.onerror = function () { reject(new Error("network")); };
      bar.value = 0; bar.hidden = false;
      xhr.send(data);
    }).then(function () { bar.hidden = true; }, function (e) { bar.hidden = true; throw e; });
  }

  function upload(q, file) {
    var id = q.getAttribute("data-id");
    q.removeAttribute("data-upload");
    var why = refusal(q, file);
    if (why) { status(q, why, true); return Promise.resolve(); }
    status(q, q.getAttribute("data-msg-uploading"), false);
    return session().then(function (s) {
      return fetch(api + "uploads/", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ session: s, element: +id, file_name: file.name, content_type: file.type || "application/octet-stream", size: file.size })
      });
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (b) {
        if (r.status !== 201) throw { msg: messages(r.status, b || {}) };
        return send(q, b, file).then(function () {
          q.setAttribute("data-upload", b.upload);
          status(q, q.getAttribute("data-msg-uploaded") + ": " + file.name, false);
        });
      });
    }).catch(function (e) {
      // Offline, the upload says it needs a connection (contract 20).
      status(q, (e && e.msg) || (navigator.onLine === false ? tr("This step needs a connection.") : q.getAttribute("data-msg-failed")), true);
    });
  }

  // One listener on the form for every file question: nothing is set up
  // at load for questions on later pages.
  form.addEventListener("change", function (ev) {
    var input = ev.target, q = input.type === "file" && input.closest(".q.file");
    if (!q) return;
    var id = q.getAttribute("data-id");
    if (!input.files || !input.files.length) { q.removeAttribute("data-upload"); status(q, "", false); return; }
    // data-uploading: on its way, the question counts as answered (the
    // submission waits for it).
    q.setAttribute("data-uploading", "true");
    var p = upload(q, input.files[0]);
    pending[id] = p;
    p.then(function () { if (pending[id] === p) { delete pending[id]; q.removeAttribute("data-uploading"); } });
  });

  // The submission waits for the uploads on their way.
  var extras = window.surveyExtras;
  if (extras) {
    var before = extras.submission;
    extras.submission = function () {
      var waits = Object.keys(pending).map(function (k) { return pending[k]; });
      return Promise.all(waits).then(before);
    };
  }
})();
