// Draws a dashboard page's figures (built server-side in evals/charts.py):
// the compare and trends pages. A point or bar carrying a URL in customdata
// opens it on click, so the "cases by change" bars lead to the filtered case
// table and a point on a trend opens its run.
(function () {
  "use strict";
  if (!window.Plotly) { return; }
  var config = { responsive: true, displaylogo: false };
  document.querySelectorAll("[data-figure]").forEach(function (target) {
    var source = document.getElementById(target.getAttribute("data-figure"));
    if (!source) { return; }
    var figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(target, figure.data, figure.layout, config).then(function () {
      target.on("plotly_click", function (event) {
        var url = event.points && event.points[0] && event.points[0].customdata;
        // Only same-site paths: a figure never sends anyone elsewhere.
        if (typeof url === "string" && url.charAt(0) === "/" && url.charAt(1) !== "/") {
          window.location.assign(url);
        }
      });
    });
  });
})();
