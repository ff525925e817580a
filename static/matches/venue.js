// The venue screen: one match, live. Also used, compact, by the wall of screens (where a
// part of the venue's side panel is missing, it is not drawn).
//
// Who leads, the bar between the cards, each card's words, who moves next, the trays of
// pieces and the end in words come from the server, which asks the game's rules
// (`lead`, `panel`, `verdict`: docs/live-protocol.md); this module names no game. A game
// played in alternating turns on chess clocks (its match has `clock_ms`) shows each
// team's clock on its card and whose move it is instead of the turn's countdown.

import { RESULT_MARK, actor, conflictWords, createBoard, describeAction, drawLegend, drawState, failureCounts,
         gameRules, guessArrivals, invalidWords, noteArrivals, scoreCards } from "./board.js";
import { drawChart } from "./chart.js";
import { ServerClock, formatCountdown } from "./clock.js";
import { gettext, inLanguage, interpolate, ngettext, withNodes } from "./i18n.js";
import { MatchStream } from "./live.js";
import { pieceSvg } from "./piece.js";

const NAME_SMALLEST = 0.6; // of the name's own size, before the short code takes its place
const CLOCK_WARNING_MS = 30000; // a chess clock under this turns the warning colour

export function startVenue(root, matchId) {
  const clock = new ServerClock();
  const find = (selector) => root.querySelector(selector);
  const screen = { meta: null, view: null, history: [], deadline: null, status: "connecting",
                   result: null, connection: "connecting", state: null, arrived: new Map(),
                   lead: null, panel: null, verdict: null,
                   // alternating games: each team's time left at `clocksAt`, and the mover
                   clocks: null, clocksAt: null, toMove: null };

  function apply(state) {
    drawState(screen.view, state, { arrived: screen.arrived, previous: screen.state });
    screen.state = state;
    screen.drawn = state;
    const { headline } = drawTeams(state.scores);
    drawTurn(state.turn);
    const chart = find("svg.chart");
    if (chart) drawChart(chart, screen.history, screen.meta.turns, { key: headline, current: state.turn });
    drawStatus(); // first: the phase says which panels show, and the failures fit what is left
    drawFailures(state);
  }

  function drawTeams(scores) {
    // The server's word on who leads and the bar (the result decides at the end), else
    // the scores' as this page reads them.
    const cards = scoreCards(screen.meta.game, scores, screen.lead ? screen.lead.team : undefined);
    const share = screen.lead ? screen.lead.share : cards.share;
    const words = screen.panel?.words;
    scores.forEach((score, team) => {
      const card = find(`[data-team="${team}"]`);
      setNumber(card.querySelector(".total"), cards.numbers[team]);
      const details = card.querySelector(".details");
      if (details) details.textContent = words ? words[team] : cards.details[team];
      card.classList.toggle("leader", cards.leader === team);
    });
    const bar = find(".share-a");
    if (bar) bar.style.width = `${100 * share}%`;
    // A number grown by a digit leaves its name less room: fit the names again.
    const digits = cards.numbers.map((number) => String(number).length).join();
    if (screen.digits !== digits) {
      screen.digits = digits;
      drawNames();
    }
    drawPanel();
    return cards;
  }

  // The game's own parts: who moves next, each team's tray of pieces.
  function drawPanel() {
    const panel = screen.panel || {};
    const over = screen.status === "finished";
    for (const team of [0, 1]) {
      const card = find(`[data-team="${team}"]`);
      const moving = !over && panel.to_move === team;
      card.classList.toggle("to-move", moving);
      const chip = card.querySelector(".to-move-chip");
      if (chip) {
        chip.hidden = !moving;
        // Translators: the chip on the card of the team whose move it is
        chip.textContent = gettext("to move");
      }
      const tray = card.querySelector(".tray");
      if (tray) drawTray(tray, panel.trays ? panel.trays[team] : null);
    }
  }

  // "37 / 60" where turns are timed; where the teams take turns on chess clocks the
  // game ends by its rules, so only the turn: "12" after the panel's "Turn" label, or
  // "turn 12" where there is none (a tile).
  function drawTurn(turn) {
    const node = find("[data-turn]");
    if (!alternating()) node.textContent = `${turn} / ${screen.meta.turns}`;
    else if (node.parentElement.querySelector(".label")) node.textContent = `${turn}`;
    else node.textContent = interpolate(gettext("turn %(turn)s"), { turn });
  }

  function alternating() {
    return Boolean(screen.meta && screen.meta.clock_ms != null);
  }

  // Each team's time left: the mover's runs down from the server's reading (never
  // before the start), the other's stands still; at 0 it waits for the server's `end`.
  function clockLeft(team) {
    const left = screen.clocks[team];
    if (team !== screen.toMove || screen.status === "finished") return left;
    const since = Math.max(screen.clocksAt ?? clock.now(), screen.meta.start_at);
    return Math.max(0, left - Math.max(0, clock.now() - since));
  }

  function drawChessClocks() {
    const shown = alternating() && Array.isArray(screen.clocks);
    const timeUp = screen.status === "finished" && screen.result?.decided_by === "time"
      ? 1 - screen.result.winner : null;
    for (const team of [0, 1]) {
      const node = find(`[data-team="${team}"] [data-chess-clock]`);
      if (!node) continue;
      node.hidden = !shown;
      if (!shown) continue;
      const left = timeUp === team ? 0 : clockLeft(team);
      const text = formatClock(left);
      if (node.textContent !== text) {
        node.textContent = text;
        node.setAttribute("aria-label", interpolate(gettext("%(name)s: %(time)s left"),
                                                    { name: screen.meta.teams[team].name, time: text }));
      }
      const running = team === screen.toMove && screen.status !== "finished";
      const low = left < CLOCK_WARNING_MS && screen.status !== "finished";
      node.dataset.state = timeUp === team ? "out" : low ? "low" : "ok";
      node.classList.toggle("running", running);
      const card = find(`[data-team="${team}"]`);
      card.classList.toggle("has-clock", true);
      card.classList.toggle("out-of-time", timeUp === team);
      const chip = card.querySelector(".to-move-chip");
      if (chip && timeUp === team) {
        chip.hidden = false;
        chip.textContent = gettext("out of time");
      }
    }
  }

  function drawFailures(state) {
    const box = find("[data-failures]");
    if (!box) return;
    box.hidden = state.turn === 0; // nothing to say before the first turn
    const { game } = screen.meta;
    drawHeadline(box.querySelector(".summary"), game, state);
    const listed = listedOutcomes(game, state, screen.panel);
    const list = box.querySelector("ul");
    list.replaceChildren(...listed.map((outcome) => outcomeItem(game, outcome)));
    fitList(box, list, listed.length);
  }

  function phase() {
    if (screen.connection === "reconnecting") return "reconnecting";
    if (screen.status === "finished" && screen.result) return "finished";
    if (!screen.meta) return "connecting";
    return clock.now() < screen.meta.start_at ? "upcoming" : "live";
  }

  function drawStatus() {
    const now = phase();
    const shown = now === "reconnecting" ? screen.phase || "live" : now;
    root.dataset.phase = shown;
    screen.phase = shown;
    const badge = find("[data-status]");
    badge.textContent = {
      reconnecting: gettext("reconnecting…"),
      connecting: gettext("connecting…"),
      // Translators: the status badge of a match that has not started yet
      upcoming: gettext("upcoming"),
      // Translators: the status badge of a match being played now
      live: gettext("live"),
      // Translators: the status badge of a match that is over
      finished: gettext("finished"),
    }[now];
    badge.dataset.kind = now;
    const startsIn = screen.meta ? formatCountdown(screen.meta.start_at - clock.now()) : "";
    const start = find("[data-start]");
    if (start) {
      start.hidden = shown !== "upcoming";
      start.querySelector("[data-starts-in]").textContent = startsIn;
    }
    drawCountdown(now, startsIn, Boolean(start));
    drawChessClocks();
    drawResult();
  }

  // One countdown: "next in 2.4 s" while live; "starts in 14:48" before the start
  // where no start card shows it; "reconnecting…" while the socket is down (never a
  // frozen number).
  function drawCountdown(now, startsIn, startCard) {
    const countdown = find("[data-countdown]");
    let text = "";
    if (now === "reconnecting") text = gettext("reconnecting…");
    else if (now === "upcoming" && !startCard) {
      text = interpolate(gettext("starts in %(time)s"), { time: startsIn });
    } else if (alternating()) {
      drawMover(countdown, now);
      return;
    } else if (screen.step && now !== "upcoming") {
      drawStep(countdown, screen.step);
      return;
    } else if (now === "live" && screen.deadline !== null) {
      const time = formatCountdown(screen.deadline - clock.now());
      // Translators: the time left until the next turn is resolved, e.g. "next in 2.4 s"
      text = interpolate(gettext("next in %(time)s"), { time });
    }
    if (countdown.textContent !== text) countdown.textContent = text;
    delete countdown.dataset.mover;
    delete countdown.dataset.step;
    countdown.dataset.kind = now;
  }

  // Where the teams take turns on chess clocks, no countdown of the turn: whose move it
  // is, the name in its colour ("Alpha to move"); nothing once the game is over.
  function drawMover(countdown, now) {
    const team = now === "live" ? screen.toMove : null;
    const key = team === null || team === undefined ? "" : String(team);
    countdown.dataset.kind = team === null || team === undefined ? now : "to-move";
    if (countdown.dataset.mover === key) return;
    countdown.dataset.mover = key;
    if (!key) {
      countdown.replaceChildren();
      return;
    }
    const { name, short } = screen.meta.teams[team];
    const tile = !countdown.parentElement.querySelector(".label"); // a tile: the short code
    const mover = words(`team-${"ab"[team]}-text mover`, tile && short ? short : name);
    mover.title = name;
    // Translators: whose move it is, e.g. "Alpha to move" (the name is drawn in its team's colour)
    countdown.replaceChildren(...withNodes(gettext("%(name)s to move"), { name: mover },
                                           (text) => words("to-move-words", text)));
  }

  // The last step, the side's name in its colour: "Hot · sr · search right".
  function drawStep(countdown, step) {
    const key = `${step.turn}-${step.team}`;
    countdown.dataset.kind = "step";
    if (countdown.dataset.step === key) return;
    countdown.dataset.step = key;
    const { name, short } = screen.meta.teams[step.team];
    const tile = !countdown.parentElement.querySelector(".label");
    const rules = gameRules(screen.meta.game);
    const said = step.result === "ok" ? rules.describe({ command: step.command })
      // Translators: a step that failed and why (the reason is the protocol's, in English)
      : interpolate(gettext("fault: %(reason)s"), { reason: step.reason || "protocol" });
    const who = words(`team-${"ab"[step.team]}-text mover`, tile && short ? short : name);
    who.title = name;
    countdown.replaceChildren(who, words("step-words", ` · ${said}`));
  }

  function drawResult() {
    const banner = find("[data-result]");
    if (!banner) return;
    const over = screen.status === "finished" && screen.result && screen.meta && screen.state;
    banner.hidden = !over;
    if (!over) return;
    const { winner } = screen.result;
    banner.dataset.winner = winner === null || winner === undefined ? "none" : String(winner);
    banner.querySelector(".verdict").textContent = screen.verdict || "";
    const { numbers } = scoreCards(screen.meta.game, screen.state.scores);
    // Translators: the final score, e.g. "final 12 – 7 · turn 30"
    banner.querySelector(".final").textContent = interpolate(gettext("final %(score)s · turn %(turn)s"),
                                                             { score: numbers.map(signed).join(" – "),
                                                               turn: screen.state.turn });
  }

  function drawNames() {
    for (const team of screen.meta.teams) {
      const card = find(`[data-team="${team.index}"]`);
      fitName(card.querySelector(".name"), team.name, team.short);
    }
  }

  function readClocks(message) {
    screen.clocks = message.clocks ?? null;
    screen.clocksAt = message.server_time ?? null;
    screen.toMove = message.to_move ?? null;
  }

  const stream = new MatchStream(matchId, {
    onSnapshot(message) {
      clock.update(message.server_time);
      readClocks(message);
      // The state before the latest (when the server sends it) lets a late screen draw
      // the last turn's moves at once.
      Object.assign(screen, { meta: message.match, history: message.history,
                              state: message.previous ?? null,
                              deadline: message.deadline, status: message.status, result: message.result,
                              lead: message.lead || null,
                              panel: inLanguage(message.panels) || message.panel || null,
                              verdict: inLanguage(message.verdicts) || message.verdict || null });
      screen.view = createBoard(find(".board"), message.match.board, message.match.game);
      guessArrivals(message.match.game, screen.arrived, message.match.board, message.state, message);
      const legend = find("[data-board-legend]");
      if (legend) drawLegend(legend, message.match.game);
      drawNames();
      const title = find("[data-title]");
      if (title) title.textContent = message.match.title
        + gameOfMatch(message.match.game_of_match, message.match.teams);
      apply(message.state);
    },
    onTurn(message) {
      clock.update(message.server_time);
      readClocks(message);
      screen.deadline = message.deadline;
      screen.status = message.turn >= screen.meta.turns ? "finished" : "running";
      screen.history.push({ turn: message.turn, scores: message.scores });
      screen.lead = message.lead || null; // the new scores say who leads, until a result does
      screen.panel = inLanguage(message.panels) || message.panel || null;
      noteArrivals(screen.meta.game, screen.arrived, screen.state, message);
      apply(message);
    },
    // A step of a game played step by step (CHaser over TCP): the position after it,
    // with that one step's marks (a walk's arrow, the cells a look or search read), and
    // the step in words where the countdown would be.
    onStep(message) {
      const outcomes = [[], []];
      outcomes[message.team] = [{ command: message.command, result: message.result }];
      const state = { ...message.state, outcomes };
      drawState(screen.view, state, { previous: screen.drawn });
      screen.drawn = state;
      screen.step = message;
      drawTeams(message.state.scores);
      drawStatus();
    },
    onEnd(message) {
      // the clocks stop where they stand (the loser's at 0 when the time decided)
      if (screen.clocks && screen.meta) {
        screen.clocks = [0, 1].map((team) => clockLeft(team));
        screen.clocksAt = clock.now();
      }
      Object.assign(screen, { result: message.result, status: "finished", deadline: null, toMove: null,
                              lead: message.lead || { team: message.result?.winner ?? null,
                                                      share: screen.lead?.share ?? 0.5 },
                              verdict: inLanguage(message.verdicts) || message.verdict || null });
      if (screen.state) drawTeams(screen.state.scores);
      drawStatus();
    },
    onViewers(count) {
      const viewers = find("[data-viewers]");
      // Translators: how many people watch the match now
      const watching = ngettext("%(count)s watching", "%(count)s watching", count);
      if (viewers) viewers.textContent = interpolate(watching, { count });
    },
    onStatus(connection) {
      screen.connection = connection;
      root.classList.toggle("offline", connection === "reconnecting");
      drawStatus();
    },
  });
  stream.connect();
  setInterval(drawStatus, 100);
  let resized = null;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(() => {
      if (screen.meta) drawNames();
      if (screen.state) drawFailures(screen.state);
    }, 150);
  });
  // The room left to the failures changes with the cards above them (a name on two
  // lines, a tray): list again what fits.
  const box = find("[data-failures]");
  if (box && window.ResizeObserver) {
    let height = -1;
    new ResizeObserver(() => {
      if (box.clientHeight === height || !screen.state) return;
      height = box.clientHeight;
      drawFailures(screen.state);
    }).observe(box);
  }
  return stream;
}

// --- last turn ------------------------------------------------------------------------

// "⚡ 7 conflicts  ✕ 2 invalid" (the counts that are not zero), or "✓ no failed actions".
function drawHeadline(box, game, state) {
  if (!box) return;
  if (state.turn === 0) {
    box.replaceChildren(words("quiet", gettext("No turn played yet")));
    return;
  }
  const { conflicts, invalid } = failureCounts(state);
  const parts = [];
  if (conflicts) parts.push(words("conflict", `${RESULT_MARK.conflict} ${conflictWords(conflicts)}`));
  if (invalid) parts.push(words("invalid", `${RESULT_MARK.invalid} ${invalidWords(invalid)}`));
  if (!conflicts && !invalid) parts.push(words("ok", RESULT_MARK.ok + " " + gettext("no failed actions")));
  box.replaceChildren(...parts);
  box.title = interpolate(gettext("Turn %(turn)s"), { turn: state.turn });
}

// The last turn's failed actions; in games where a team plays one command or move a
// turn, every one of them. Each with the server's words for it where the game gives them.
function listedOutcomes(game, state, panel) {
  const all = (state.outcomes || []).flatMap((outcomes, team) => outcomes.map((outcome, index) => ({
    ...outcome, team, words: panel?.moves?.[team]?.[index] ?? null })));
  return gameRules(game).agents ? all.filter((outcome) => outcome.result !== "ok") : all;
}

// e.g. "✕ A3 move (4, 7): target is an opponent wall", "✓ A piece u · 5 squares · 45 54 55".
function outcomeItem(game, outcome) {
  const item = document.createElement("li");
  item.className = `${outcome.result} team-${"ab"[outcome.team]}`;
  const who = `${gameRules(game).agents ? "AB"[outcome.team] : ""}${actor(game, outcome.team, outcome)}`;
  const said = outcome.words || describeAction(game, outcome);
  item.append(words("mark", RESULT_MARK[outcome.result] || "?"), words("who", who), ` ${said}`);
  if (outcome.reason) {
    // the rules' reason is data (docs/formats.md), shown as the rules wrote it
    const why = words("why", `: ${outcome.reason}`);
    why.setAttribute("translate", "no");
    item.append(why);
  }
  return item;
}

// Whole lines only: drop the last lines until the list fits its box, and say how many.
function fitList(box, list, total) {
  const items = [...list.children];
  const more = document.createElement("li");
  more.className = "more";
  let shown = items.length;
  const overflows = () => box.scrollHeight > box.clientHeight + 1;
  while (shown > 0 && overflows()) {
    shown -= 1;
    items[shown].remove();
    more.textContent = moreLines(total - shown);
    if (!more.isConnected) list.append(more);
  }
  if (shown === 0 && total) { // no room for a line: the count joins the headline
    more.remove();
    box.querySelector(".summary")?.append(words("more", moreLines(total)));
  }
}

// "+3 more": the lines of the list that do not fit.
function moreLines(count) {
  // Translators: how many more lines of the list there are that do not fit, e.g. "+3 more"
  return interpolate(ngettext("+%(count)s more", "+%(count)s more", count), { count });
}

// --- team cards -------------------------------------------------------------------------

// The full name on up to two lines, its type made smaller until it fits; where it
// cannot fit even so, the organiser's short code (the full name stays its title).
export function fitName(node, name, short) {
  if (!node) return;
  node.style.fontSize = "";
  node.textContent = name;
  node.title = name;
  node.classList.remove("short");
  const base = parseFloat(getComputedStyle(node).fontSize);
  const fits = () => {
    const line = parseFloat(getComputedStyle(node).lineHeight) || parseFloat(getComputedStyle(node).fontSize) * 1.2;
    return node.scrollWidth <= node.clientWidth + 1 && node.scrollHeight <= 2 * line + 2;
  };
  let scale = 1;
  while (!fits() && scale > NAME_SMALLEST) {
    scale -= 0.05;
    node.style.fontSize = `${base * scale}px`;
  }
  if (fits() || !short) {
    while (!fits() && scale > 0.3) { // no short code: smaller still, never cut
      scale -= 0.05;
      node.style.fontSize = `${base * scale}px`;
    }
    return;
  }
  node.style.fontSize = "";
  node.textContent = short;
  node.classList.add("short");
}

// A team's pieces still to place, each drawn as its squares.
function drawTray(tray, pieces) {
  tray.hidden = !pieces;
  if (!pieces) return;
  const key = pieces.map((piece) => piece.name).join("");
  if (tray.dataset.pieces === key) return;
  tray.dataset.pieces = key;
  tray.replaceChildren(...pieces.map(pieceMark));
  tray.setAttribute("aria-label", interpolate(ngettext("%(count)s piece left: %(pieces)s",
                                                       "%(count)s pieces left: %(pieces)s", pieces.length),
                                              { count: pieces.length, pieces: key }));
}

function pieceMark(piece) {
  const svg = pieceSvg(piece.cells);
  svg.setAttribute("class", "piece");
  const title = document.createElementNS(svg.namespaceURI, "title");
  title.textContent = interpolate(ngettext("piece %(name)s, %(count)s square",
                                           "piece %(name)s, %(count)s squares", piece.size),
                                  { name: piece.name, count: piece.size });
  svg.append(title);
  return svg;
}

// --- small parts -------------------------------------------------------------------------

// A chess clock: m:ss, whole seconds rounded up, so it reads 0:00 only when the time is up.
function formatClock(ms) {
  const seconds = Math.ceil(Math.max(ms ?? 0, 0) / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function words(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

function signed(value) {
  return value < 0 ? `−${-value}` : String(value);
}

function setNumber(node, value) {
  if (node.textContent === String(value)) return;
  node.textContent = value;
  node.classList.remove("bump");
  void node.offsetWidth; // restart the highlight
  node.classList.add("bump");
}

// Which game of a several-game match this is, and how the match stands: the games
// won so far in a match of wins (" · game 2 of 3 (Alpha 1 – 0 Beta)"), the
// earlier games' scores in a match of totals (" · game 2 of 2 (game 1: 253 – 74)");
// "" for a one-game match.
function gameOfMatch(games, teams) {
  if (!games) return "";
  // Translators: which game of a several-game match this is, e.g. "game 2 of 3"
  const which = " · " + interpolate(gettext("game %(game)s of %(games)s"),
                                    { game: games.game, games: games.of });
  if (games.by === "wins") {
    const [a, b] = games.wins;
    return a + b ? `${which} (${teams[0].name} ${a} – ${b} ${teams[1].name})` : which;
  }
  if (games.game === 1) return which;
  const earlier = games.headlines.slice(0, games.game - 1)
    .map(([a, b], index) => interpolate(gettext("game %(game)s: %(score)s"),
                                        { game: index + 1, score: `${signed(a)} – ${signed(b)}` }));
  return `${which} (${earlier.join(", ")})`;
}
