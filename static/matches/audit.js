// The judges' audit: a body too wide for its column (a long string with no space or
// JSON punctuation to wrap at) scrolls sideways; say so under it, so nothing is missed.

function markOverflow() {
  for (const body of document.querySelectorAll(".log pre.body")) {
    const over = body.scrollWidth > body.clientWidth + 1;
    const cue = body.parentElement.querySelector(".scroll-cue");
    body.toggleAttribute("data-overflow", over);
    if (over && !cue) {
      const note = document.createElement("span");
      note.className = "scroll-cue";
      note.textContent = "⇢ scroll sideways: the body is wider than this column";
      body.after(note);
    } else if (!over && cue) {
      cue.remove();
    }
  }
}

markOverflow();
addEventListener("resize", markOverflow);
