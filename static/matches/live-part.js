// A page's live part ([data-live-part]: the tournament page's, the control room's), read
// over HTTP with the page and kept current by the page's socket (data-socket: the
// tournament's /ws/tournaments/<id>/, the room's /ws/control/;
// docs/live-protocol.md, "Pages"), never by asking again on a timer:
// - `changed` says the part's version (epoch ms, the server's clock): a part that shows
//   an older one (data-version, then each read's X-Version) is read once, as `?part=live`,
//   at that moment (the public's version comes a spectator delay after the change);
// - a tournament's `line` brings a match's turn and numbers, written in place; a match
//   whose status the part shows otherwise (it started, it ended) has the part read again.
// A read waits while something on the part is being typed into or a judge's box is
// open: a judge's half-written reason is never wiped; it is made once they are done.

import { ServerClock } from "./clock.js";
import { signed, versus } from "./venue/words.js";

const part = document.querySelector("[data-live-part]");
const clock = new ServerClock();
// A read told of by the socket comes within this much after its moment, at random: a
// crowd told of a change at once spreads its reads instead of asking all in one instant.
const SPREAD_MS = 1000;
const live = { shown: 0, wanted: 0, timer: null, reading: false, retry: 1000 };

function busy() {
  if (part.contains(document.activeElement) && document.activeElement.matches("input, select, textarea")) return true;
  if ([...part.querySelectorAll("textarea")].some((area) => area.value.trim())) return true; // an answer half-written
  return Boolean(part.querySelector("details[open]")); // a judge's box open (a confirmation, a form)
}

// How far each table wider than the screen is scrolled sideways, by its section: a read
// puts each back where its reader left it (on a phone, the standings and the cross table
// scroll; a match starting or ending elsewhere must not throw them back to column one).
function scrolled() {
  return new Map([...part.querySelectorAll(".scroll")].map((box) => [box.closest("[id]")?.id, box.scrollLeft]));
}

function rescroll(kept) {
  for (const box of part.querySelectorAll(".scroll")) {
    const left = kept.get(box.closest("[id]")?.id);
    if (left) box.scrollLeft = left;
  }
}

// Read the part once it is wanted (at the version's moment) and nobody is typing into it.
function schedule() {
  if (live.wanted <= live.shown || live.timer !== null || live.reading || busy()) return;
  live.timer = setTimeout(read, Math.max(0, live.wanted - clock.now()) + Math.random() * SPREAD_MS);
}

function want(version) {
  live.wanted = Math.max(live.wanted, version);
  schedule();
}

async function read() {
  live.timer = null;
  if (busy()) return; // read once they are done (below)
  live.reading = true;
  let failed = false;
  try {
    const query = new URLSearchParams(location.search);
    query.set("part", "live");
    const response = await fetch(`?${query}`, { headers: { Accept: "text/html" }, cache: "no-store" });
    if (response.ok) {
      const version = Number(response.headers.get("X-Version"));
      const html = await response.text();
      if (html !== part.dataset.shown) {
        const kept = scrolled();
        part.innerHTML = html;
        part.dataset.shown = html;
        rescroll(kept);
      }
      if (version) {
        clock.update(version);
        live.shown = Math.max(live.shown, version);
        part.dataset.version = version; // (the times it shows are counted from it)
      }
    } else {
      failed = true;
    }
  } catch {
    failed = true; // the server away for a moment: its socket closes too, and says again
  }
  live.reading = false;
  if (failed) setTimeout(read, 2000 + Math.random() * 2 * SPREAD_MS);
  else schedule();
}

// A match's line (a tournament's page): its turn and numbers in place; a new status (it
// started, it ended: the standings may have moved) reads the part again.
function line(message) {
  const link = part.querySelector(`a[data-match="${message.match}"]`);
  if (!link) return; // not on the part (another round's, a later game of a fixture)
  if (link.dataset.status !== message.status) {
    want(live.shown + 1);
    return;
  }
  const score = part.querySelector(`[data-score="${message.match}"]`);
  if (!score) return;
  const turn = score.dataset.words.replace("{turn}", message.turn).replace("{turns}", message.turns);
  const [a, b] = message.headline ?? [];
  score.textContent = a === undefined ? turn : `${turn} · ${versus(signed(a), signed(b))}`;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${part.dataset.socket}`);
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    live.retry = 1000;
    part.dataset.live = "open";
    if (message.type === "changed") want(message.version);
    else if (message.type === "line") line(message);
  };
  socket.onclose = (event) => {
    part.dataset.live = "closed";
    if (event.code === 4404) return; // not this viewer's to follow (any more)
    setTimeout(connect, live.retry); // its opening `changed` says whether to read again
    live.retry = Math.min(live.retry * 2, 8000);
  };
}

// The part's times, counted on here from the moment it was read (its version): a
// countdown ([data-until], s then; at zero, with data-read-at-zero, the part is read
// again: a match starts), a time since ([data-since]), each written with its words
// (data-words, "{s}" the seconds, data-digits after the point); a team's dot that turns
// amber, then red, when nothing more is heard of it ([data-amber-in], [data-red-in]).
function tick() {
  const passed = (clock.now() - Number(part.dataset.version)) / 1000;
  const written = (node, seconds) => {
    const digits = Number(node.dataset.digits) || 0;
    const text = Math.max(0, seconds).toLocaleString(document.documentElement.lang || undefined, {
      minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    const words = node.dataset.words.replace("{s}", text);
    if (node.textContent !== words) node.textContent = words;
  };
  for (const node of part.querySelectorAll("[data-until]")) {
    const left = Number(node.dataset.until) - passed;
    written(node, left);
    if (left <= 0 && node.dataset.readAtZero !== undefined) {
      delete node.dataset.readAtZero;
      want(live.shown + 1);
    }
  }
  for (const node of part.querySelectorAll("[data-since]")) written(node, Number(node.dataset.since) + passed);
  const rank = { "health-green": 0, "health-amber": 1, "health-red": 2 };
  for (const dot of part.querySelectorAll("[data-amber-in], [data-red-in]")) {
    const level = passed >= Number(dot.dataset.redIn ?? Infinity) ? "health-red"
      : passed >= Number(dot.dataset.amberIn ?? Infinity) ? "health-amber" : null;
    const team = dot.closest("li");
    const now = [...team.classList].find((name) => name in rank);
    if (level && now && rank[level] > rank[now]) team.classList.replace(now, level);
  }
}

if (part?.dataset.socket) {
  live.shown = Number(part.dataset.version) || 0;
  clock.update(live.shown);
  // a read held while a judge typed or had a box open: made once they are done
  for (const kind of ["focusout", "input", "toggle"]) part.addEventListener(kind, () => setTimeout(schedule), true);
  connect();
  setInterval(tick, 250); // (no request: the part's own times)
}
