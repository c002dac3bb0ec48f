// Refresh the live part of an agent's stream page every 3 s.
(function () {
  "use strict";
  var box = document.getElementById("live-stream");
  if (!box) { return; }
  var url = box.getAttribute("data-live-url");
  function refresh() {
    if (document.hidden) { return; }
    fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) { box.innerHTML = html; } })
      .catch(function () { /* keep the last good view */ });
  }
  window.setInterval(refresh, 3000);
})();
