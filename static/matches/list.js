// The front page: running, upcoming and recent matches, kept current by /ws/matches/.

import { ServerClock, formatCountdown } from "./clock.js";
import { setText } from "./dom.js";
import { gettext, inLanguage, interpolate, ngettext } from "./i18n.js";
import { signed } from "./venue/words.js";

const clock = new ServerClock();
const rows = new Map();
// Each game's name and the unit of its one number, as its rules say (the page's JSON).
const games = JSON.parse(document.querySelector("#games").textContent);


function label(match) {
  if (match.status === "finished") {
    // the server's verdict says why ("Hot wins: Cool is boxed in"), in the page's language
    const verdict = inLanguage(match.verdicts) || match.verdict;
    if (verdict) return verdict;
    // Translators: the status of a match that is over
    if (!match.result) return gettext("finished");
    const { winner } = match.result;
    return winner === null ? gettext("finished — draw")
      : interpolate(gettext("finished — %(name)s wins"), { name: match.teams[winner] });
  }
  // Translators: the status of a match that has not started yet
  if (match.status === "upcoming") return gettext("upcoming");
  // Translators: a match the judges hold, e.g. "paused · turn 12 / 30"
  if (match.paused) return interpolate(gettext("paused · turn %(turn)s / %(turns)s"), { turn: match.turn, turns: match.turns });
  // Translators: the status of a match being played now, e.g. "live · turn 12 / 30"
  return interpolate(gettext("live · turn %(turn)s / %(turns)s"), { turn: match.turn, turns: match.turns });
}

function render(match) {
  let row = rows.get(match.id);
  if (!row) {
    row = document.querySelector("#match-template").content.firstElementChild.cloneNode(true);
    rows.set(match.id, row);
  }
  row.dataset.status = match.status;
  row.dataset.match = match.id;
  // a finished match is replayed; a live or upcoming one is watched on its venue screen
  const link = row.querySelector("a.watch");
  const over = match.status === "finished";
  link.href = over ? `/matches/${match.id}/replay` : `/matches/${match.id}/`;
  link.textContent = over ? gettext("Replay") : gettext("Watch");
  row.querySelector(".title").textContent = match.title;
  const game = games[match.game]?.title ?? match.game;
  // "board 7×7" for a board named after its game, not the game's name twice
  const board = match.board.startsWith(`${game} `) ? match.board.slice(game.length + 1) : match.board;
  row.querySelector(".game-name").textContent = game;
  const turns = interpolate(ngettext("%(count)s turn", "%(count)s turns", match.turns),
                            { count: match.turns });
  row.querySelector(".board-name").textContent = `${board} · ${turns}`;
  row.querySelector(".team-a .name").textContent = match.teams[0];
  row.querySelector(".team-b .name").textContent = match.teams[1];
  // Each team's one number as its game's rules say (a total, squares left, items); none
  // before the start, where "0 – 0" would read as a score.
  const before = match.status === "upcoming";
  row.querySelector(".team-a .score").textContent = before ? "" : signed(match.headline[0]);
  row.querySelector(".team-b .score").textContent = before ? "" : signed(match.headline[1]);
  row.querySelector(".unit").textContent = games[match.game]?.unit ?? "";
  row.querySelector(".state").textContent = label(match);
  row.querySelector(".state").dataset.kind = match.status;
  row.dataset.deadline = match.deadline ?? "";
  row.dataset.paused = match.paused ? "held" : "";
  // A game in alternating turns waits for a move, not a deadline: say whose it is.
  row.dataset.mover = match.to_move === null || match.to_move === undefined
    ? "" : match.teams[match.to_move];
  const target = document.querySelector(`[data-list="${match.status}"]`);
  if (row.parentElement !== target) target.prepend(row);
  showSections();
}

// A judge took the match back: its line leaves the list at once.
function withdraw(matchId) {
  const row = rows.get(matchId);
  if (!row) return;
  row.remove();
  rows.delete(matchId);
  showSections();
}

function showSections() {
  for (const list of document.querySelectorAll("[data-list]")) {
    list.closest("section").hidden = list.children.length === 0;
  }
  document.querySelector("[data-empty]").hidden = rows.size > 0;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/matches/`);
  const badge = document.querySelector("[data-status]");
  socket.onopen = () => {
    // Translators: the badge of a page kept current as matches change
    badge.textContent = gettext("live");
    badge.dataset.kind = "live";
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "matches") {
      clock.update(message.server_time);
      [...message.matches].reverse().forEach(render);
    } else if (message.type === "summary") {
      clock.update(message.match.server_time);
      render(message.match);
    } else if (message.type === "withdrawn") {
      withdraw(message.match);
    }
  };
  socket.onclose = () => {
    badge.textContent = gettext("reconnecting…");
    badge.dataset.kind = "reconnecting";
    setTimeout(connect, 1000);
  };
}

const RESOLVING_MS = 5000;

connect();
setInterval(() => {
  for (const row of rows.values()) {
    const countdown = row.querySelector(".countdown");
    const deadline = Number(row.dataset.deadline);
    const left = deadline - clock.now();
    // past the deadline the turn is being resolved: no frozen "0.0 s" until its summary
    if (row.dataset.paused) { // held by the judges: no time runs
      setText(countdown, "");
      continue;
    }
    if (row.dataset.mover) {
      setText(countdown, row.dataset.status === "running"
        ? interpolate(gettext("%(name)s to move"), { name: row.dataset.mover }) : "");
      continue;
    }
    const upcoming = row.dataset.status === "upcoming";
    setText(countdown, row.dataset.status === "finished" || !deadline ? ""
      // Translators: on the list of matches, how long until a match starts, e.g. "starts in 57:49"
      : upcoming ? (left > 0 ? interpolate(gettext("starts in %(time)s"), { time: formatCountdown(left) }) : "")
        : left > 0 ? interpolate(gettext("next turn in %(time)s"), { time: formatCountdown(left) })
          // a turn takes a moment past its deadline; long past it, the line waits for the
          // match's next summary (a game played step by step, one behind a delay) saying
          // nothing rather than "resolving…" for ever
          : left > -RESOLVING_MS ? gettext("resolving the turn…") : "");
  }
}, 250);
