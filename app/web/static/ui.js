// Comfort only: every page works without this file. No inline handlers (the CSP forbids them).
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    var box = button.closest(".schema-box");
    if (button.hasAttribute("data-copy") && box) {
      var text = box.querySelector("pre").textContent;
      if (navigator.clipboard) {
        navigator.clipboard.writeText(text).then(function () { flash(button, "Copied"); }, function () {});
      }
    } else if (button.hasAttribute("data-wrap") && box) {
      box.querySelector("pre").classList.toggle("wrap");
    } else if (button.hasAttribute("data-toggle")) {
      var target = document.getElementById(button.getAttribute("data-toggle"));
      if (target) target.classList.toggle("secondary");
    }
  });

  function flash(button, label) {
    var old = button.textContent;
    button.textContent = label;
    setTimeout(function () { button.textContent = old; }, 1200);
  }

  // "/" focuses the search box unless the user is typing somewhere.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (document.activeElement && document.activeElement.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    var box = document.querySelector("[data-search]");
    if (box) { event.preventDefault(); box.focus(); }
  });
})();
