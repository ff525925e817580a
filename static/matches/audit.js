// The judges' audit: a body too wide for its column (a long string with no space or
// JSON punctuation to wrap at) scrolls sideways; say so under it, so nothing is missed.

import { gettext } from "./i18n.js";

function markOverflow() {
  for (const body of document.querySelectorAll(".log pre.body")) {
    const over = body.scrollWidth > body.clientWidth + 1;
    const cue = body.parentElement.querySelector(".scroll-cue");
    body.toggleAttribute("data-overflow", over);
    if (over && !cue) {
      const note = document.createElement("span");
      note.className = "scroll-cue";
      // Translators: the audit: a request's body too wide for its column scrolls sideways
      note.textContent = gettext("⇢ scroll sideways: the body is wider than this column");
      body.after(note);
    } else if (!over && cue) {
      cue.remove();
    }
  }
}

markOverflow();
addEventListener("resize", markOverflow);
