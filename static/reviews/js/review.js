// A reviewer's sitting: keyboard shortcuts over the plain score form.
// 1-9 pick a label or a value step, y/n answer a yes/no score (the active
// score when it has that key, else the first unanswered one); c focuses
// the comment, Enter submits, s skips, l asks for a second look, ? shows
// the help. Without this script the form works as it is.
(function () {
  "use strict";
  var form = document.getElementById("score-form");
  if (!form) return;
  var help = document.getElementById("shortcut-help");
  var fields = Array.prototype.slice.call(form.querySelectorAll("fieldset.score-field"));
  var active = null;

  function answered(fieldset) {
    var number = fieldset.querySelector("input[type=number]");
    if (number) return number.value !== "";
    return fieldset.querySelector("input[type=radio]:checked") !== null;
  }

  function activate(fieldset) {
    fields.forEach(function (f) { f.classList.toggle("active", f === fieldset); });
    active = fieldset;
  }

  function nextUnanswered(after) {
    var start = after ? fields.indexOf(after) + 1 : 0;
    for (var i = start; i < fields.length; i++) {
      if (!answered(fields[i])) return fields[i];
    }
    return after || fields[0] || null;
  }

  function press(id) {
    var button = document.getElementById(id);
    if (button) form.requestSubmit(button);
  }

  function pick(fieldset, key) {
    var number = fieldset.querySelector("input[type=number]");
    if (number) {
      var steps = (fieldset.getAttribute("data-steps") || "").split(" ");
      var value = steps[parseInt(key, 10) - 1];
      if (value === undefined || value === "") return false;
      number.value = value;
      return true;
    }
    var radio = fieldset.querySelector('input[type=radio][data-key="' + key + '"]');
    if (!radio) return false;
    radio.checked = true;
    return true;
  }

  function accepts(fieldset, key) {
    var number = fieldset.querySelector("input[type=number]");
    if (number) {
      var steps = (fieldset.getAttribute("data-steps") || "").split(" ");
      return /^[1-9]$/.test(key) && !!steps[parseInt(key, 10) - 1];
    }
    return fieldset.querySelector('input[type=radio][data-key="' + key + '"]') !== null;
  }

  // The score a key answers: the active one when it takes the key, else the
  // first unanswered one that does, else the first one that does.
  function takerOf(key) {
    if (active && accepts(active, key)) return active;
    var takers = fields.filter(function (f) { return accepts(f, key); });
    return takers.filter(function (f) { return !answered(f); })[0] || takers[0] || null;
  }

  function toggleHelp(show) {
    if (!help) return;
    help.hidden = show === undefined ? !help.hidden : !show;
  }

  fields.forEach(function (fieldset) {
    fieldset.addEventListener("focusin", function () { activate(fieldset); });
  });
  var closer = document.getElementById("close-help");
  if (closer) closer.addEventListener("click", function () { toggleHelp(false); });
  activate(nextUnanswered(null));

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var typing = target && (target.tagName === "TEXTAREA" ||
      (target.tagName === "INPUT" && target.type !== "radio" && target.type !== "checkbox"));
    if (event.key === "Escape") {
      toggleHelp(false);
      if (typing) target.blur();
      return;
    }
    if (typing) return;
    var key = event.key;
    if (key === "?") { toggleHelp(); event.preventDefault(); return; }
    if (/^[1-9]$/.test(key) || key === "y" || key === "n") {
      var field = takerOf(key);
      if (field && pick(field, key)) {
        event.preventDefault();
        activate(nextUnanswered(field));
      }
      return;
    }
    if (key === "c") { event.preventDefault(); document.getElementById("id-comment").focus(); return; }
    if (key === "s") { event.preventDefault(); press("skip"); return; }
    if (key === "l") { event.preventDefault(); press("second-look"); return; }
    if (key === "Enter" && !(target && target.tagName === "BUTTON")) {
      event.preventDefault();
      press("submit-score");
    }
  });
})();
