// The new-queue and fill forms: show only the fields of the chosen way of
// filling (each field's input names its ways in data-fill-for). Without
// this script every field shows, and each label says which way it is for.
(function () {
  "use strict";
  var form = document.querySelector("form[data-fill-form]");
  if (!form) return;
  var ways = form.querySelectorAll('input[name="fill"]');
  var inputs = form.querySelectorAll("[data-fill-for]");
  function chosen() {
    for (var i = 0; i < ways.length; i++) if (ways[i].checked) return ways[i].value;
    return "";
  }
  function show() {
    var way = chosen();
    for (var i = 0; i < inputs.length; i++) {
      var field = inputs[i].closest(".field");
      if (!field) continue;
      var used = inputs[i].getAttribute("data-fill-for").split(" ");
      var hasError = field.querySelector(".error");
      field.hidden = !hasError && (way === "" || used.indexOf(way) === -1);
    }
  }
  for (var i = 0; i < ways.length; i++) ways[i].addEventListener("change", show);
  show();
})();
