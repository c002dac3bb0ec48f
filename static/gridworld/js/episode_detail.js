// Episode page: draws the map with the path (the slider steps through the
// episode via the figure's frames) and the distance/budget chart.
(function () {
  "use strict";
  if (!window.Plotly) { return; }
  var config = { responsive: true, displaylogo: false };
  var grid = JSON.parse(document.getElementById("gw-grid-figure").textContent);
  window.Plotly.newPlot("gw-grid", grid.data, grid.layout, config).then(function (div) {
    if (grid.frames && grid.frames.length) { window.Plotly.addFrames(div, grid.frames); }
  });
  var series = JSON.parse(document.getElementById("gw-series-figure").textContent);
  window.Plotly.newPlot("gw-series", series.data, series.layout, config);
})();
