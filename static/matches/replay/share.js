// Share (replay.html): the shown turn's link and its QR code (drawn on the server, no
// network), and an animated GIF of a range of turns (matches/clips.py) in this page's
// language and theme, to send or to post.

import { setHidden } from "../dom.js";
import { language } from "../i18n.js";

const CLIP_TURNS = 20; // turns a clip offers by default, ending at the shown one

export function startShare(replay) {
  const panel = replay.find("[data-share]");
  replay.find("[data-share-open]").addEventListener("click", () => {
    setHidden(panel, !panel.hidden);
    if (!panel.hidden) drawShare(replay, true);
  });
  for (const input of panel.querySelectorAll("input[type=number]")) {
    input.addEventListener("change", () => drawShare(replay, false));
  }
}

export function drawShare(replay, fresh) {
  const panel = replay.find("[data-share]");
  if (!panel || panel.hidden) return;
  const url = new URL(location.href);
  url.searchParams.set("turn", replay.turn);
  replay.find("[data-share-link]").value = url.href;
  replay.find("[data-share-code]").src = `${panel.dataset.code}?turn=${replay.turn}`;
  const from = replay.find("[data-share-from]");
  const to = replay.find("[data-share-to]");
  from.max = to.max = replay.latest;
  if (fresh) {
    to.value = replay.turn;
    from.value = Math.max(0, replay.turn - CLIP_TURNS);
  }
  const theme = document.documentElement.dataset.theme === "light" ? "light" : "dark";
  const query = new URLSearchParams({ from: from.value, to: to.value, lang: language, theme });
  replay.find("[data-share-gif]").href = `${panel.dataset.gif}?${query}`;
}
