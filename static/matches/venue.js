// The venue screen: one match, live. Also used, compact, by the wall of screens.

import { actor, createBoard, describeAction, drawLegend, drawState, failures, gameRules, guessArrivals,
         noteArrivals, scoreCards } from "./board.js";
import { drawChart } from "./chart.js";
import { ServerClock, formatCountdown } from "./clock.js";
import { MatchStream } from "./live.js";

const MAX_LISTED = 8;
const RESULT_MARK = { ok: "✓", invalid: "✕", conflict: "⚡" };

export function startVenue(root, matchId) {
  const clock = new ServerClock();
  const find = (selector) => root.querySelector(selector);
  const screen = { meta: null, view: null, history: [], deadline: null, status: "connecting",
                   result: null, connection: "connecting", state: null, arrived: new Map() };

  function apply(state) {
    drawState(screen.view, state, { arrived: screen.arrived, previous: screen.state });
    screen.state = state;
    const { headline } = drawTeams(state.scores);
    const turn = find("[data-turn]");
    turn.textContent = `${state.turn} / ${screen.meta.turns}`;
    const chart = find("svg.chart");
    if (chart) drawChart(chart, screen.history, screen.meta.turns, { key: headline, current: state.turn });
    drawFailures(state);
    drawStatus();
  }

  function drawTeams(scores) {
    // The server's word on who leads (the result decides at the end), else the scores'.
    const cards = scoreCards(screen.meta.game, scores, screen.leader?.team);
    scores.forEach((score, team) => {
      const card = find(`[data-team="${team}"]`);
      setNumber(card.querySelector(".total"), cards.numbers[team]);
      const details = card.querySelector(".details");
      if (details) details.textContent = cards.details[team];
      card.classList.toggle("leader", cards.leader === team);
    });
    const share = find(".share-a");
    if (share) share.style.width = `${100 * cards.share}%`;
    return cards;
  }

  function drawFailures(state) {
    const box = find("[data-failures]");
    if (!box) return;
    const { game } = screen.meta;
    box.querySelector(".summary").textContent = turnTitle(game, state);
    const listed = listedOutcomes(game, state);
    const list = box.querySelector("ul");
    list.textContent = "";
    for (const outcome of listed.slice(0, MAX_LISTED)) {
      const item = document.createElement("li");
      item.className = outcome.result;
      item.textContent = outcomeLine(game, outcome);
      list.append(item);
    }
    if (listed.length > MAX_LISTED) {
      const more = document.createElement("li");
      more.textContent = `and ${listed.length - MAX_LISTED} more`;
      list.append(more);
    }
  }

  function statusText() {
    if (screen.connection === "reconnecting") return ["reconnecting", "reconnecting…"];
    if (screen.status === "finished" && screen.result) {
      const { winner, decided_by: decidedBy } = screen.result;
      if (winner === null) return ["finished", "finished — a draw"];
      return ["finished", `finished — ${screen.meta.teams[winner].name} wins on ${decidedBy}`];
    }
    if (screen.meta && clock.now() < screen.meta.start_at) {
      return ["upcoming", `starting in ${formatCountdown(screen.meta.start_at - clock.now())}`];
    }
    return screen.meta ? ["live", "live"] : ["connecting", "connecting…"];
  }

  function drawStatus() {
    const [kind, text] = statusText();
    const badge = find("[data-status]");
    badge.textContent = text;
    badge.dataset.kind = kind;
    const countdown = find("[data-countdown]");
    const running = screen.deadline !== null && screen.status !== "finished";
    countdown.textContent = running ? formatCountdown(screen.deadline - clock.now()) : "";
  }

  const stream = new MatchStream(matchId, {
    onSnapshot(message) {
      clock.update(message.server_time);
      Object.assign(screen, { meta: message.match, history: message.history, state: null,
                              deadline: message.deadline, status: message.status, result: message.result,
                              leader: message.leader });
      screen.view = createBoard(find(".board"), message.match.board, message.match.game);
      guessArrivals(screen.arrived, message.match.board, message.state);
      // The server knows which treasures are gone; a tile alone may not tell.
      for (const [x, y] of message.treasures_taken || []) screen.arrived.set(`${x},${y}`, 0);
      const legend = find("[data-board-legend]");
      if (legend) drawLegend(legend, message.match.game);
      message.match.teams.forEach((team) => {
        find(`[data-team="${team.index}"] .name`).textContent = team.name;
      });
      const title = find("[data-title]");
      if (title) title.textContent = message.match.title;
      apply(message.state);
    },
    onTurn(message) {
      clock.update(message.server_time);
      screen.deadline = message.deadline;
      screen.status = message.turn >= screen.meta.turns ? "finished" : "running";
      screen.history.push({ turn: message.turn, scores: message.scores });
      screen.leader = undefined; // the new scores say who leads, until a result does
      noteArrivals(screen.arrived, screen.state, message);
      apply(message);
    },
    onEnd(message) {
      Object.assign(screen, { result: message.result, status: "finished", deadline: null,
                              leader: { team: message.result?.winner ?? null } });
      if (screen.state) drawTeams(screen.state.scores);
      drawStatus();
    },
    onViewers(count) {
      const viewers = find("[data-viewers]");
      if (viewers) viewers.textContent = `${count} watching`;
    },
    onStatus(connection) {
      screen.connection = connection;
      root.classList.toggle("offline", connection === "reconnecting");
      drawStatus();
    },
  });
  stream.connect();
  setInterval(drawStatus, 100);
  return stream;
}

function turnTitle(game, state) {
  if (state.turn === 0) return "No turn played yet";
  const failed = failures(state);
  const conflicts = failed.filter((failure) => failure.result === "conflict").length;
  const counted = gameRules(game).agents ? `${conflicts} conflict${conflicts === 1 ? "" : "s"}, ` : "";
  return `Turn ${state.turn}: ${counted}${failed.length - conflicts} invalid`;
}

// The last turn's failed actions; in CHaser and Blokus Duo, where a team plays one
// command or move a turn, every one of them.
function listedOutcomes(game, state) {
  if (gameRules(game).agents) return failures(state);
  return (state.outcomes || []).flatMap((outcomes, team) => outcomes.map((outcome) => ({ ...outcome, team })));
}

// e.g. "✕ A3 move (4, 7): target is an opponent wall", "✓ C wr · walk right".
function outcomeLine(game, outcome) {
  const who = `${gameRules(game).agents ? "AB"[outcome.team] : ""}${actor(game, outcome.team, outcome)}`;
  const why = outcome.reason ? `: ${outcome.reason}` : "";
  return `${RESULT_MARK[outcome.result] || "?"} ${who} ${describeAction(game, outcome)}${why}`;
}

function setNumber(node, value) {
  if (node.textContent === String(value)) return;
  node.textContent = value;
  node.classList.remove("bump");
  void node.offsetWidth; // restart the highlight
  node.classList.add("bump");
}
