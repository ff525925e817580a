// The TV (/tv/): a screen that runs all day. It asks /tv/now which public match is
// featured (the live one that started last, else the next to start) when it opens and
// whenever its socket, the list of matches (/ws/matches/, docs/live-protocol.md), says
// a match was made, started, ended or was taken back, or the moment the next match is
// due to start; it never asks again on a timer. It shows the featured match live as a
// tile of the wall, and when it ends shows the result for a short pause (?pause=SECONDS,
// 20 by default) before it moves on by itself. With nothing on it says when the next
// match starts, or that none is on; a server that does not answer for a while changes
// nothing on the screen. ?tournament=ID follows that tournament's current round only
// (and its page's socket too, which says when the tournament is over).

import { ServerClock, formatCountdown } from "./clock.js";
import { setText } from "./dom.js";
import { fitBoard } from "./fit.js";
import { gettext, inLanguage, interpolate } from "./i18n.js";
import { startVenue } from "./venue.js";

const RETRY_MS = 3000; // after a read that failed (the server away for a moment)
// A page that has shown this many matches starts afresh the next time nothing is on
// (what a day of matches leaves behind goes with it; the idle card looks the same).
const FRESH_AFTER = 12;
const PAUSE_ASKED = Number(new URLSearchParams(location.search).get("pause") ?? 20);
const PAUSE_MS = 1000 * (Number.isFinite(PAUSE_ASKED) && PAUSE_ASKED >= 0 ? PAUSE_ASKED : 20);

const TOURNAMENT = new URLSearchParams(location.search).get("tournament");
// Each game's name, unit and rule in a line, in the page's language.
const games = JSON.parse(document.querySelector("#games").textContent);

const clock = new ServerClock();
const root = document.querySelector(".tv");
const stage = root.querySelector(".tv-stage");
const idleBox = root.querySelector("[data-idle]");
const resultBox = root.querySelector("[data-tv-result]");
const tv = { shown: null, stream: null, endedAt: null, next: null, matches: 0 };
// Reading /tv/now: one read at a time (one asked for meanwhile is made after it), the
// one timer of a moment the screen changes by itself (a start, a result's pause done).
const reads = { busy: false, again: false, wake: null, statuses: new Map() };

async function read() {
  if (reads.busy) {
    reads.again = true;
    return;
  }
  reads.busy = true;
  let failed = false;
  try {
    const query = new URLSearchParams();
    if (tv.shown !== null) query.set("current", tv.shown);
    if (TOURNAMENT) query.set("tournament", TOURNAMENT);  // ?tournament=ID: its rounds only
    const answer = await fetch(`/tv/now?${query}`, { cache: "no-store" });
    if (answer.ok) {
      const now = await answer.json();
      clock.update(now.server_time);
      decide(now);
      reads.done = true;
    } else {
      failed = true;
    }
  } catch {
    failed = true; // the server is away for a moment: keep what is on the screen
  }
  reads.busy = false;
  if (reads.again || failed) {
    reads.again = false;
    wakeIn(failed ? RETRY_MS : 0);
  } else {
    wakeAtNextMoment();
  }
}

function wakeIn(ms) {
  clearTimeout(reads.wake);
  reads.wake = setTimeout(read, Math.max(0, ms));
}

// The next moment the screen changes with no news: the featured match's start, or the
// end of the pause a result stands for.
function wakeAtNextMoment() {
  const moments = [];
  if (tv.next?.status === "upcoming") moments.push(tv.next.start_at - clock.now());
  if (tv.endedAt !== null) moments.push(tv.endedAt + PAUSE_MS - Date.now());
  clearTimeout(reads.wake);
  reads.wake = null;
  if (moments.length) wakeIn(Math.min(...moments) + 50);
}

// What the list socket says of a match: a new status (made, started, ended) asks again.
function heard(match) {
  const was = reads.statuses.get(match.id);
  reads.statuses.set(match.id, match.status);
  return was !== match.status;
}

function follow(path, told, closed = () => {}) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let retry = 1000;
  const connect = () => {
    const socket = new WebSocket(`${scheme}://${location.host}${path}`);
    socket.onmessage = (event) => {
      retry = 1000;
      told(JSON.parse(event.data));
    };
    socket.onclose = (event) => {
      closed();
      if (event.code === 4404) return;
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  };
  connect();
}

follow("/ws/matches/", (message) => {
  if (message.type === "matches") { // the socket's opening, after a reconnect too
    message.matches.forEach(heard);
    read();
  } else if (message.type === "summary") {
    if (heard(message.match)) read();
  } else if (message.type === "withdrawn") {
    reads.statuses.delete(message.match);
    read();
  }
}, () => { // no socket yet (the server's sockets full, say): the screen still shows what is on
  if (!reads.statuses.size && !reads.done) read();
});
// A followed tournament's page: its `changed` says when it has moved on (its end).
if (TOURNAMENT && /^[0-9]{1,18}$/.test(TOURNAMENT)) {
  let first = true;
  follow(`/ws/tournaments/${TOURNAMENT}/`, (message) => {
    if (message.type !== "changed") return;
    if (first) { // its opening: the list socket's opening reads already
      first = false;
      return;
    }
    wakeIn(message.version - clock.now());
  });
}

function decide({ current, featured, tournament_end: ended }) {
  tv.next = featured;
  tv.ended = ended;
  if (tv.shown !== null && current) {
    if (current.status !== "finished") return; // still being played
    if (tv.endedAt === null) {
      tv.endedAt = Date.now();
      // Translators: the TV's result card when the server sends no verdict
      const verdict = inLanguage(current.verdicts) || current.verdict || gettext("Finished");
      resultBox.querySelector("[data-verdict]").textContent = verdict;
      showSwing(current);
    }
    if (Date.now() - tv.endedAt < PAUSE_MS) {
      resultBox.hidden = false;
      return;
    }
  }
  // Nothing shown, the shown match over and its pause done, or no longer public.
  if (featured && featured.status === "running") show(featured);
  else idle(featured);
}

function show(match) {
  drop();
  const tile = document.querySelector("#tile").content.firstElementChild.cloneNode(true);
  tile.id = `match-${match.id}`;
  tile.dataset.match = match.id;
  tile.querySelector(".tile-title").title = match.title;
  match.teams.forEach((name, index) => {
    tile.querySelector(`[data-team="${index}"] .name`).textContent = name;
  });
  tile.querySelector("[data-turn]").textContent = `0 / ${match.turns}`;
  explain(tile, match);
  stage.replaceChildren(tile);
  tv.shown = match.id;
  tv.matches += 1;
  tv.stream = startVenue(tile, match.id);
  fitBoard(tile.querySelector(".stage"));
  idleBox.hidden = true;
  root.dataset.showing = match.id;
}

// While the result stands: the turn that moved the score most, its board after that
// turn (the embedded board at ?turn=N) and a QR code of the replay at that turn, for a
// phone in the hall.
function showSwing({ id, swing }) {
  const box = resultBox.querySelector("[data-swing]");
  box.hidden = !swing;
  resultBox.classList.toggle("with-swing", Boolean(swing));
  if (!swing) return;
  // Translators: the TV after a match, e.g. "The biggest swing: turn 12, +40 for Alpha"
  box.querySelector("[data-swing-words]").textContent = interpolate(
    gettext("The biggest swing: turn %(turn)s, +%(points)s for %(name)s"), swing);
  box.querySelector("iframe").src = `/matches/${id}/embed?turn=${swing.turn}`;
  box.querySelector("img").src = `/matches/${id}/replay.svg?turn=${swing.turn}`;
}

// What a newcomer needs beside the board: under each number its unit, the score's parts
// and the last turn's change; the chart; the game's name and rule in a line; the
// tournament and round (the venue's code fills the parts it finds: venue.js).
function explain(tile, match) {
  const about = games[match.game] || { title: match.game, unit: "", rule: "" };
  for (const card of tile.querySelectorAll(".team")) {
    const total = card.querySelector(".total");
    total.after(words("unit", about.unit), words("details", ""), words("change", ""));
  }
  const extras = document.querySelector("#tv-extras").content.cloneNode(true);
  extras.querySelector(".tv-game").textContent = about.title;
  extras.querySelector(".tv-rule").textContent = about.rule;
  const context = extras.querySelector(".tv-context");
  context.textContent = match.title;
  if (match.tournament) {
    // Translators: on the TV, where a match stands in its tournament, e.g. "Spring Cup · round 3"
    context.before(words("tv-tournament", interpolate(gettext("%(name)s · round %(round)s"), match.tournament)));
  }
  tile.querySelector(".tile").append(extras);
  // the title line names the game; the match's title is said under team B's card
  tile.querySelector(".tile-game").textContent = about.title;
}

function words(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

function idle(next) {
  if (tv.matches >= FRESH_AFTER) location.reload(); // the server has just answered
  drop();
  idleBox.hidden = false;
  root.dataset.showing = "";
  const ended = !next && tv.ended;
  const [headline, title] = next
    ? [nextAt(next), next.title]
    : ended
      // Translators: the TV once the tournament it follows is over, e.g. "Spring cup is over"
      ? [interpolate(gettext("%(name)s is over"), { name: ended.name }),
         ended.champion ? interpolate(gettext("Champion: %(name)s"), { name: ended.champion }) : ""]
      : [gettext("No match on"), gettext("The next match shows here when it is scheduled.")];
  idleBox.querySelector("[data-idle-headline]").textContent = headline;
  idleBox.querySelector("[data-idle-title]").textContent = title;
  const teams = idleBox.querySelector("[data-idle-teams]");
  teams.replaceChildren();
  if (ended) teams.append(finalStandings(ended.standings));
  if (next) {
    // Translators: the two teams of the next match, e.g. "Alpha vs Beta" (each name in its colour)
    const sentence = gettext("%(a)s vs %(b)s");
    const names = { a: named(next.teams[0], "team-a-text"), b: named(next.teams[1], "team-b-text") };
    // the names where the language puts them, the words between as they are
    teams.append(...sentence.split(/(%\(\w+\)s)/).filter(Boolean)
      .map((part) => names[/^%\((\w+)\)s$/.exec(part)?.[1]] ?? part));
  }
}

// A finished tournament's first places, as its page ranks them: "1  Alpha  7".
function finalStandings(rows) {
  const list = document.createElement("ol");
  list.className = "tv-standings";
  for (const row of rows) {
    const item = document.createElement("li");
    item.append(words("rank", String(row.rank)), words("name", row.name),
                words("score", String(row.score)));
    list.append(item);
  }
  return list;
}

// "Next match at 14:30", in the screen's time zone.
function nextAt(next) {
  return interpolate(gettext("Next match at %(time)s"), { time: timeOfDay(next.start_at) });
}

function named(name, className) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = name;
  return span;
}

function drop() {
  if (tv.stream) tv.stream.close();
  stage.replaceChildren();
  Object.assign(tv, { shown: null, stream: null, endedAt: null });
  resultBox.hidden = true;
}

function timeOfDay(epochMs) {
  // the server's clock, shown in the screen's own time zone
  const at = new Date(epochMs - clock.offset);
  return at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

setInterval(() => {
  const next = tv.next;
  const countdown = idleBox.querySelector("[data-idle-countdown]");
  const startsIn = next ? formatCountdown(Math.max(0, next.start_at - clock.now())) : "";
  setText(countdown, !idleBox.hidden && next && next.status === "upcoming"
    ? interpolate(gettext("starts in %(time)s"), { time: startsIn }) : "");
  const after = resultBox.querySelector("[data-next]");
  setText(after, !next ? "" : next.status === "running"
    ? interpolate(gettext("Next: %(title)s"), { title: next.title }) : nextAt(next));
}, 250);
