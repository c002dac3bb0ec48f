// Batch and compare pages: draws the performance profile the server built
// (gridworld.charts.profile_figure, emitted with json_script).
(function () {
  "use strict";
  var data = document.getElementById("gw-profile-figure");
  var target = document.getElementById("gw-profile");
  if (!data || !target || !window.Plotly) { return; }
  var figure = JSON.parse(data.textContent);
  // No mode bar: it would cover the metric menu at the top right.
  window.Plotly.newPlot(target, figure.data, figure.layout, { responsive: true, displayModeBar: false });
})();
