// The judges' announcements to everyone (the socket's `notices`, and the snapshot's):
// one banner along the foot of the page, however many matches the page shows (the
// wall, the TV), until the judges take them down. The page's screens give up its
// height (--notice), so the banner never covers a board. An embedded tile shows none:
// it lives on someone else's page.

import { gettext } from "../i18n.js";

let shown = "";

export function drawNotices(root, notices) {
  if (root.closest(".embed")) return;
  const key = JSON.stringify((notices || []).map((notice) => notice.id));
  if (key === shown) return;
  shown = key;
  let banner = document.getElementById("notice-banner");
  if (!notices || notices.length === 0) {
    if (banner) banner.remove();
    document.documentElement.style.setProperty("--notice", "0px");
    window.dispatchEvent(new Event("resize"));
    return;
  }
  if (!banner) {
    banner = document.createElement("aside");
    banner.id = "notice-banner";
    banner.className = "notice-banner";
    banner.setAttribute("role", "status");
    document.body.append(banner);
  }
  const label = document.createElement("strong");
  label.className = "notice-label";
  label.textContent = gettext("From the judges");
  const lines = notices.slice(0, 3).map((notice) => {
    const line = document.createElement("p");
    line.textContent = notice.text;
    return line;
  });
  const texts = document.createElement("div");
  texts.className = "notice-texts";
  texts.append(...lines);
  banner.replaceChildren(label, texts);
  document.documentElement.style.setProperty("--notice", `${banner.offsetHeight}px`);
  window.dispatchEvent(new Event("resize"));
}
