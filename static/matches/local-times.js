// Times a page writes as the server keeps them (UTC), in the reader's own time zone and
// language: each <time data-local datetime="…">, e.g. "28 Nov 2026, 17:00" for a reader
// in London and "2026/11/29 2:00" in Tokyo. Without scripts the UTC text stays.

const format = new Intl.DateTimeFormat(document.documentElement.lang || undefined,
                                       { dateStyle: "medium", timeStyle: "short" });
for (const node of document.querySelectorAll("time[data-local]")) {
  const at = new Date(node.getAttribute("datetime"));
  if (!Number.isNaN(at.getTime())) {
    node.title = node.textContent; // the UTC text, on hover
    node.textContent = format.format(at);
  }
}
