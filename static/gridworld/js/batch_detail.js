// Batch page: draws the figures the server built (json_script elements) and,
// while the batch runs, polls its JSON every 2 s and reloads when it is done.
(function () {
  "use strict";
  var config = { responsive: true, displaylogo: false };
  ["gw-steps", "gw-distance", "gw-rejected"].forEach(function (id) {
    var data = document.getElementById(id + "-figure");
    var target = document.getElementById(id);
    if (data && target && window.Plotly) {
      var figure = JSON.parse(data.textContent);
      window.Plotly.newPlot(target, figure.data, figure.layout, config);
    }
  });
  var box = document.getElementById("batch-progress");
  if (!box || box.getAttribute("data-active") !== "1") { return; }
  var bar = box.querySelector("progress");
  var text = box.querySelector(".progress-text");
  var status = document.getElementById("batch-status");
  var timer = null;
  function poll() {
    if (document.hidden) { return; }
    fetch(box.getAttribute("data-status-url"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (batch) {
        if (!batch) { return; }
        bar.max = batch.progress.total;
        bar.value = batch.progress.done;
        text.textContent = batch.progress.done + "/" + batch.progress.total + " episodes";
        status.textContent = batch.status;
        if (batch.status !== "queued" && batch.status !== "running") {
          window.clearInterval(timer);
          window.location.reload();
        }
      })
      .catch(function () { /* keep the last good view */ });
  }
  timer = window.setInterval(poll, 2000);
})();
