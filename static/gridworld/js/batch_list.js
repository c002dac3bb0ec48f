// Live progress of the queued and running batches on the batches page:
// one round of requests (every active batch's JSON) at a time; the page
// reloads once none is active. Polling: static/js/live_poll.js.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#gw-batches tr[data-active='1']"));
  if (!rows.length || !window.livePoll) { return; }
  function update(row) {
    return window.livePoll.getJSON(row.getAttribute("data-status-url")).then(function (batch) {
      if (!batch) { return true; }
      var bar = row.querySelector("progress");
      bar.setAttribute("max", String(batch.progress.total));
      bar.setAttribute("value", String(batch.progress.done));
      row.querySelector(".gw-progress").textContent = batch.progress.done + " of " + batch.progress.total;
      row.querySelector(".gw-status").textContent = batch.status;
      return window.livePoll.isActive(batch.status);
    });
  }
  window.livePoll(function () {
    return Promise.all(rows.map(update)).then(function (active) {
      if (active.some(function (a) { return a; })) { return false; }
      window.livePoll.reloadAfterPaint();
      return true;
    });
  }, { firstMs: 1000, everyMs: 1000 });
})();
