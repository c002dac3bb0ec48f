// Batch page: draws the figures the server built (json_script elements)
// and, while the batch runs, shows its progress from the batch's JSON and
// reloads into the finished view when it is done. Polling:
// static/js/live_poll.js.
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
  if (!box || box.getAttribute("data-active") !== "1" || !window.livePoll) { return; }
  var url = box.getAttribute("data-status-url");
  var bar = box.querySelector("progress");
  var text = box.querySelector(".progress-text");
  var status = document.getElementById("batch-status");
  window.livePoll(function () {
    return window.livePoll.getJSON(url).then(function (batch) {
      if (!batch) { return false; }
      bar.setAttribute("max", String(batch.progress.total));
      bar.setAttribute("value", String(batch.progress.done));
      text.textContent = batch.progress.done + " of " + batch.progress.total + " episodes done";
      status.textContent = batch.status;
      if (window.livePoll.isActive(batch.status)) { return false; }
      window.livePoll.reloadAfterPaint();
      return true;
    });
  }, { firstMs: 500, everyMs: 1000 });
})();
