// Ranking questions as a list in rank order (contract 14): each item is
// moved by its two buttons, or by the arrow keys on them, and a live
// region announces its new place ("Tea: 2 of 4"). Each item's hidden
// select holds its place, which the plain form sends and app.js reads.
// Nothing runs at load but two listeners on the document: a list is set
// up (numbered, marked data-ranked) at its first press, so that a
// ranking on a later page costs the first screen nothing.
(function () {
  "use strict";
  function items(list) { return Array.prototype.slice.call(list.children); }
  function renumber(list) { items(list).forEach(function (li, i) { li.querySelector("select").value = String(i + 1); }); }

  // move moves li by one place up (-1) or down (1), keeps the focus on
  // the button pressed and says where the item is now.
  function move(li, by, button) {
    var list = li.parentNode, all = items(list), j = all.indexOf(li) + by;
    if (!list.hasAttribute("data-ranked")) { list.setAttribute("data-ranked", ""); renumber(list); }
    if (j < 0 || j >= all.length) return;
    list.insertBefore(li, by < 0 ? all[j] : all[j].nextSibling);
    renumber(list);
    if (button) button.focus();
    var live = list.parentNode.querySelector(".rank-live");
    // The places in the page's digits, as the select's options write them.
    var opts = li.querySelector("select").options, n = 0;
    var args = [li.querySelector(".rank-name").textContent, opts[j].text, opts[all.length - 1].text];
    live.textContent = live.getAttribute("data-msg").replace(/%[sd]/g, function () { return args[n++]; });
  }

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest(".ranks .moves button");
    if (b) move(b.closest("li"), b.classList.contains("up") ? -1 : 1, b);
  });
  document.addEventListener("keydown", function (ev) {
    var b = ev.target.closest && ev.target.closest(".ranks .moves button");
    if (!b || (ev.key !== "ArrowUp" && ev.key !== "ArrowDown")) return;
    ev.preventDefault();
    move(b.closest("li"), ev.key === "ArrowUp" ? -1 : 1, b);
  });
  // renumber: after the session's choice order (logic_page.js) moved the
  // items, their places follow the list.
  window.surveyRanking = { renumber: function () { Array.prototype.forEach.call(document.querySelectorAll(".ranks"), renumber); } };
})();
