// Draws the suite's trend chart from the figure the view built (charts.py).
(function () {
  "use strict";
  var source = document.getElementById("suite-trend-figure");
  var target = document.getElementById("suite-trend");
  if (!source || !target || !window.Plotly) { return; }
  var figure = JSON.parse(source.textContent);
  window.Plotly.newPlot(target, figure.data, figure.layout, { responsive: true, displaylogo: false });
})();
