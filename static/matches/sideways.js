// A table wider than its column (the standings and cross table on a phone) says that it
// scrolls sideways: a cue under it and a shaded right edge until its end is in view.

import { gettext } from "./i18n.js";

function mark(box) {
  const wider = box.scrollWidth > box.clientWidth + 1;
  const atEnd = box.scrollLeft + box.clientWidth >= box.scrollWidth - 1;
  box.dataset.sideways = !wider ? "" : atEnd ? "end" : "more";
  let cue = box.nextElementSibling?.matches(".sideways-cue") ? box.nextElementSibling : null;
  if (!wider) {
    cue?.remove();
    return;
  }
  if (!cue) {
    cue = document.createElement("p");
    cue.className = "sideways-cue";
    // Translators: under a table wider than the screen: swipe it sideways for the rest
    cue.textContent = gettext("⇢ more columns: scroll sideways");
    box.after(cue);
  }
}

function watch(box) {
  if (box.dataset.sidewaysWatched) return;
  box.dataset.sidewaysWatched = "1";
  box.addEventListener("scroll", () => mark(box), { passive: true });
  new ResizeObserver(() => mark(box)).observe(box);
  mark(box);
}

// Every `.scroll` box of `root`, and those a live part brings later.
export function watchSideways(root = document) {
  const all = () => root.querySelectorAll(".scroll").forEach(watch);
  all();
  new MutationObserver(all).observe(root === document ? document.body : root, { childList: true, subtree: true });
}

watchSideways();
