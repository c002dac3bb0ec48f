// Live progress of a queued or running eval run: polls the run's JSON
// endpoint every 0.5 s (a small run finishes in about a second) and reloads the page once the run has finished.
(function () {
  "use strict";
  var box = document.getElementById("run-progress");
  if (!box) { return; }
  var url = box.getAttribute("data-status-url");
  var bar = box.querySelector("progress");
  var text = box.querySelector(".progress-text");
  var status = document.getElementById("run-status");
  var timer = null;
  function poll() {
    if (document.hidden) { return; }
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (run) {
        if (!run) { return; }
        bar.max = run.progress.total;
        bar.value = run.progress.done;
        text.textContent = run.progress.done + "/" + run.progress.total + " scenarios";
        status.textContent = run.status;
        if (run.status !== "queued" && run.status !== "running") {
          window.clearInterval(timer);
          window.location.reload();
        }
      })
      .catch(function () { /* keep the last good view */ });
  }
  timer = window.setInterval(poll, 500);
})();
