// Live progress of a queued or running eval run: shows what the run's JSON
// says (status, scenarios done of the total, in the bar and in its text,
// the bar's accessible name). Once the run has finished, the bar shows the
// final count for one painted frame and the page reloads into the finished
// view. Polling: static/js/live_poll.js.
(function () {
  "use strict";
  var POLL_MS = 500;
  // A run of the shipped suites is over in well under a second: the first
  // poll comes sooner so the finished view is not half a second late.
  var FIRST_POLL_MS = 200;
  var box = document.getElementById("run-progress");
  if (!box || !window.livePoll) { return; }
  var url = box.getAttribute("data-status-url");
  var bar = box.querySelector("progress");
  var text = box.querySelector(".progress-text");
  var status = document.getElementById("run-status");

  function show(run) {
    var done = run.progress.done;
    var total = run.progress.total;
    bar.setAttribute("max", String(total));
    bar.setAttribute("value", String(done));
    text.textContent = done + " of " + total + " scenarios done";
    status.textContent = run.status;
  }

  window.livePoll(function () {
    return window.livePoll.getJSON(url).then(function (run) {
      if (!run) { return false; }
      show(run);
      if (window.livePoll.isActive(run.status)) { return false; }
      window.livePoll.reloadAfterPaint();
      return true;
    });
  }, { firstMs: FIRST_POLL_MS, everyMs: POLL_MS });
})();
