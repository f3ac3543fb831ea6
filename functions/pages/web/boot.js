// Runs before the first paint (a blocking script in <head>): with the
// page's script on, the pages after the first and the buttons keep the
// places app.js gives them, so nothing moves when it runs. Should app.js
// never run, the plain form comes back after a few seconds.
(function (h) {
  h.classList.add("js");
  setTimeout(function () { if (!h.classList.contains("ready")) h.classList.remove("js"); }, 4000);
})(document.documentElement);
