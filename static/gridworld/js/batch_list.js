// Live progress of the queued and running batches on the batches page: polls
// each active batch's JSON every 2 s and reloads once none is active.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#gw-batches tr[data-active='1']"));
  if (!rows.length) { return; }
  var timer = null;
  function poll() {
    if (document.hidden) { return; }
    var pending = rows.map(function (row) {
      return fetch(row.getAttribute("data-status-url"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (batch) {
          if (!batch) { return true; }
          var bar = row.querySelector("progress");
          bar.max = batch.progress.total;
          bar.value = batch.progress.done;
          row.querySelector(".gw-progress").textContent = batch.progress.done + "/" + batch.progress.total;
          row.querySelector(".gw-status").textContent = batch.status;
          return batch.status === "queued" || batch.status === "running";
        })
        .catch(function () { return true; });
    });
    Promise.all(pending).then(function (active) {
      if (active.every(function (a) { return !a; })) {
        window.clearInterval(timer);
        window.location.reload();
      }
    });
  }
  timer = window.setInterval(poll, 2000);
})();
