// The venue screen: one match, live. Also used, compact, by the wall of screens.

import { createBoard, drawState, failures } from "./board.js";
import { drawChart } from "./chart.js";
import { ServerClock, formatCountdown } from "./clock.js";
import { MatchStream } from "./live.js";

const MAX_LISTED = 8;

export function startVenue(root, matchId) {
  const clock = new ServerClock();
  const find = (selector) => root.querySelector(selector);
  const screen = { meta: null, view: null, history: [], deadline: null, status: "connecting",
                   result: null, connection: "connecting", state: null };

  function apply(state) {
    screen.state = state;
    drawState(screen.view, state);
    drawTeams(state.scores);
    const turn = find("[data-turn]");
    turn.textContent = `${state.turn} / ${screen.meta.turns}`;
    const chart = find("svg.chart");
    if (chart) drawChart(chart, screen.history, screen.meta.turns, { current: state.turn });
    drawFailures(state);
    drawStatus();
  }

  function drawTeams(scores) {
    const totals = scores.map((score) => score.total);
    const leader = totals[0] === totals[1] ? -1 : totals[0] > totals[1] ? 0 : 1;
    scores.forEach((score, team) => {
      const card = find(`[data-team="${team}"]`);
      setNumber(card.querySelector(".total"), score.total);
      const details = card.querySelector(".details");
      if (details) details.textContent = `wall ${score.wall} · territory ${score.territory}`;
      card.classList.toggle("leader", leader === team);
    });
    const share = find(".share-a");
    if (share) {
      const positive = totals.map((total) => Math.max(total, 0));
      const sum = positive[0] + positive[1];
      share.style.width = `${sum ? (100 * positive[0]) / sum : 50}%`;
    }
  }

  function drawFailures(state) {
    const box = find("[data-failures]");
    if (!box) return;
    const failed = failures(state);
    const conflicts = failed.filter((f) => f.result === "conflict").length;
    const invalid = failed.length - conflicts;
    const title = box.querySelector(".summary");
    title.textContent = state.turn === 0 ? "No turn played yet"
      : `Turn ${state.turn}: ${conflicts} conflict${conflicts === 1 ? "" : "s"}, ${invalid} invalid`;
    const list = box.querySelector("ul");
    list.textContent = "";
    for (const failure of failed.slice(0, MAX_LISTED)) {
      const item = document.createElement("li");
      item.className = failure.result;
      const where = failure.x == null ? "" : ` (${failure.x}, ${failure.y})`;
      item.textContent = `${failure.result === "conflict" ? "⚡" : "✕"} ${"AB"[failure.team]}${failure.agent} ${failure.type}${where}: ${failure.reason}`;
      list.append(item);
    }
    if (failed.length > MAX_LISTED) {
      const more = document.createElement("li");
      more.textContent = `and ${failed.length - MAX_LISTED} more`;
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
      Object.assign(screen, { meta: message.match, history: message.history,
                              deadline: message.deadline, status: message.status, result: message.result });
      screen.view = createBoard(find(".board"), message.match.board);
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
      apply(message);
    },
    onEnd(message) {
      Object.assign(screen, { result: message.result, status: "finished", deadline: null });
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

function setNumber(node, value) {
  if (node.textContent === String(value)) return;
  node.textContent = value;
  node.classList.remove("bump");
  void node.offsetWidth; // restart the highlight
  node.classList.add("bump");
}
