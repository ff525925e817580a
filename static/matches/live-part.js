// A page's live part ([data-live-part]) fetched again every data-reload seconds as
// `?part=live` (the tournament page, the control room), while nothing on it is being
// typed into: a judge's half-written reason is never wiped.

const part = document.querySelector("[data-live-part]");

async function reload() {
  if (part.contains(document.activeElement) && document.activeElement.matches("input, select, textarea")) return;
  if ([...part.querySelectorAll("textarea")].some((area) => area.value.trim())) return; // an answer half-written
  if (part.querySelector("details[open]")) return; // a judge's box open (a confirmation, a form)
  try {
    const query = new URLSearchParams(location.search);
    query.set("part", "live");
    const response = await fetch(`?${query}`, { headers: { Accept: "text/html" } });
    if (response.ok) {
      const html = await response.text();
      if (html !== part.dataset.shown) {
        part.innerHTML = html;
        part.dataset.shown = html;
      }
    }
  } catch {
    // the next try
  }
}

if (part) setInterval(reload, Number(part.dataset.reload) * 1000);
