// The copy button next to a new API key: copies the key to the clipboard
// (or, where the clipboard is not offered, selects it to copy by hand).
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById("copy-status");
    if (!source) { return; }
    function say(text) { if (status) { status.textContent = text; } }
    function selectIt() {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    button.addEventListener("click", function () {
      var text = source.textContent.trim();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(
          function () { say("Copied."); },
          function () { selectIt(); say("Selected: press Ctrl+C (or ⌘C) to copy."); }
        );
      } else {
        selectIt();
        var copied = false;
        try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
        say(copied ? "Copied." : "Selected: press Ctrl+C (or ⌘C) to copy.");
      }
    });
  });
})();
