// One poller for the pages that follow work in progress (an eval run, a
// gridworld batch, the list of active batches). A round of requests runs
// at a time: the next round starts everyMs after the last answer, so an
// older answer never overwrites a newer one. No request while the tab is
// hidden; one at once when it shows again. Stops once a round says the
// work is done.
(function () {
  "use strict";

  function getJSON(url) {
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .catch(function () { return null; });
  }

  // round(): a promise of true once the work is done (then polling stops).
  function livePoll(round, options) {
    var timer = null;
    var stopped = false;
    var paused = false;

    function schedule(ms) {
      window.clearTimeout(timer);
      timer = window.setTimeout(tick, ms);
    }

    function tick() {
      timer = null;
      if (stopped) { return; }
      if (document.hidden) { paused = true; return; }
      Promise.resolve()
        .then(round)
        .then(function (done) { stopped = done === true; }, function () { /* keep the last good view */ })
        .then(function () { if (!stopped) { schedule(options.everyMs); } });
    }

    document.addEventListener("visibilitychange", function () {
      if (!document.hidden && paused) { paused = false; tick(); }
    });
    schedule(options.firstMs);
  }

  // Reload once the last view has been painted (two animation frames), so
  // the final count shows before the page turns into the finished view.
  function reloadAfterPaint() {
    if (document.hidden) { window.location.reload(); return; }
    window.requestAnimationFrame(function () {
      window.requestAnimationFrame(function () { window.location.reload(); });
    });
  }

  function isActive(status) { return status === "queued" || status === "running"; }

  window.livePoll = livePoll;
  window.livePoll.getJSON = getJSON;
  window.livePoll.reloadAfterPaint = reloadAfterPaint;
  window.livePoll.isActive = isActive;
})();
