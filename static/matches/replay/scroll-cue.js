// A scrolling box's cue: how many of its rows are out of sight below (or above), so a
// list that must scroll says so.

import { gettext, interpolate, ngettext } from "../i18n.js";

// Keep the cue up to date as the box scrolls, changes size or gets new rows.
export function watchOverflow(box) {
  const cue = box.parentElement.querySelector(":scope > [data-more-cue]");
  const update = () => {
    const { top, bottom } = box.getBoundingClientRect();
    const rows = [...box.children].filter((row) => row.offsetHeight);
    const count = (hidden) => new Set(rows.filter(hidden).map((row, index) => row.dataset.row ?? index)).size;
    const below = count((row) => row.getBoundingClientRect().bottom > bottom + 2);
    const above = count((row) => row.getBoundingClientRect().top < top - 2);
    box.dataset.more = [above ? "above" : "", below ? "below" : ""].join(" ").trim();
    if (cue) cue.hidden = !(above || below);
    const more = !below ? ""
      // Translators: a scrolling list's cue: how many of its rows are out of sight below
      : interpolate(ngettext("▼ %(count)s more below", "▼ %(count)s more below", below), { count: below });
    const gone = !above ? ""
      // Translators: a scrolling list's cue: how many of its rows are out of sight above
      : interpolate(ngettext("▲ %(count)s above", "▲ %(count)s above", above), { count: above });
    // Translators: a cue under a list that scrolls: scroll it to see the rest
    const words = [more, gone, gettext("scroll")].filter(Boolean).join(" · ");
    // (a box without a cue of its own, the replay's match column, shows it at its foot)
    if (cue) cue.textContent = words;
    else box.dataset.moreWords = words;
  };
  box.addEventListener("scroll", update, { passive: true });
  new ResizeObserver(update).observe(box);
  // (a panel shown or hidden inside it, as Share or What if…, changes what is below)
  new MutationObserver(update).observe(box, { childList: true, subtree: true, attributeFilter: ["hidden"] });
}
