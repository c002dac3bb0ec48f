// Draws the reason histogram of the PR keepalive overview (built
// server-side in prkeepalive/charts.py).
(function () {
  "use strict";
  if (!window.Plotly) { return; }
  var config = { responsive: true, displaylogo: false };
  document.querySelectorAll("[data-figure]").forEach(function (target) {
    var source = document.getElementById(target.getAttribute("data-figure"));
    if (!source) { return; }
    var figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(target, figure.data, figure.layout, config);
  });
})();
