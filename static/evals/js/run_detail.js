// Live progress of a queued or running eval run. Polls the run's JSON
// endpoint, one request at a time (the next one POLL_MS after the answer,
// so answers never arrive out of order), and shows what it says: the
// status and the scenarios done of the total, in the bar and in its text
// (the bar's accessible name). Once the run has finished, the bar shows the final count
// for one painted frame and the page reloads into the finished view.
(function () {
  "use strict";
  var POLL_MS = 500;
  // A run of the shipped suites is over in well under a second: the first
  // polls come sooner so the finished view is not half a second late.
  var FIRST_POLL_MS = 200;
  var box = document.getElementById("run-progress");
  if (!box) { return; }
  var url = box.getAttribute("data-status-url");
  var bar = box.querySelector("progress");
  var text = box.querySelector(".progress-text");
  var status = document.getElementById("run-status");
  var timer = null;
  var finished = false;
  // Set while the tab is hidden: no request then; one as soon as it shows.
  var paused = false;

  function show(run) {
    var done = run.progress.done;
    var total = run.progress.total;
    bar.setAttribute("max", String(total));
    bar.setAttribute("value", String(done));
    text.textContent = done + " of " + total + " scenarios done";
    status.textContent = run.status;
  }

  function reloadAfterPaint() {
    if (document.hidden) { window.location.reload(); return; }
    window.requestAnimationFrame(function () {
      window.requestAnimationFrame(function () { window.location.reload(); });
    });
  }

  function schedule(ms) {
    window.clearTimeout(timer);
    timer = window.setTimeout(poll, ms);
  }

  function poll() {
    timer = null;
    if (finished) { return; }
    if (document.hidden) { paused = true; return; }
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (run) {
        if (!run) { return; }
        show(run);
        if (run.status !== "queued" && run.status !== "running") {
          finished = true;
          reloadAfterPaint();
        }
      })
      .catch(function () { /* keep the last good view */ })
      .then(function () { if (!finished) { schedule(POLL_MS); } });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && paused) { paused = false; poll(); }
  });
  schedule(FIRST_POLL_MS);
})();
