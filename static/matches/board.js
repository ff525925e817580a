// The board as a pure function of a state, for every game: each game's own module
// (games/<game>.js, through the registry games/index.js) says how its cells look, where
// a failed action aimed, and its words; this module draws the cells, the point values,
// the agents and last turn's failed actions, and nothing is left to hover.
// Also each game's words for an action and for a team's score, shared by the screens.

import { gameFor } from "./games/index.js";

const FAILURE_MARK = { invalid: "✕", conflict: "⚡" };

export function gameRules(game) {
  return gameFor(game);
}

export function createBoard(root, board, game) {
  const rules = gameRules(game);
  root.textContent = "";
  root.style.setProperty("--w", board.width);
  root.style.setProperty("--h", board.height);
  root.setAttribute("role", "img");
  const treasures = new Map((board.treasures || []).map((t) => [`${t.x},${t.y}`, t.point]));
  const cells = [];
  for (let y = 0; y < board.height; y += 1) {
    for (let x = 0; x < board.width; x += 1) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.x = x;
      cell.dataset.y = y;
      if (rules.points) cell.append(pointsMark(board.points[y][x]));
      if (treasures.has(`${x},${y}`)) cell.append(mark("span", "treasure-badge", treasures.get(`${x},${y}`)));
      root.append(cell);
      cells.push(cell);
    }
  }
  return { root, board, game, rules, treasures, cells };
}

// `options.arrived` (games with treasures): the turn an agent first stepped onto each
// cell, which is when a treasure there was taken (see noteArrivals); `options.previous`:
// the state before, to mark what was just placed.
export function drawState(view, state, options = {}) {
  const { board, cells } = view;
  const classes = view.rules.classes(view, state, options);
  for (let y = 0; y < board.height; y += 1) {
    const row = state.cells[y];
    for (let x = 0; x < board.width; x += 1) {
      const cell = cells[y * board.width + x];
      const wanted = `cell ${classes(row[x], x, y)}`;
      if (cell.className !== wanted) cell.className = wanted;
      for (const old of cell.querySelectorAll(".agent, .failure")) old.remove();
    }
  }
  drawAgents(view, state);
  drawFailures(view, state);
  view.root.dataset.shownTurn = state.turn;
}

function drawAgents(view, state) {
  const { labels, names } = view.rules;
  state.agents.forEach((team, index) => {
    team.forEach((position, number) => {
      if (!position) return;
      const agent = mark("span", `agent team-${"ab"[index]}`, labels ? labels[index] : number);
      agent.title = names ? names[index] : `Team ${"AB"[index]} agent ${number}`;
      view.cells[position[1] * view.board.width + position[0]].append(agent);
    });
  });
}

function drawFailures(view, state) {
  const { board, rules } = view;
  if (!rules.target) return;
  for (const failure of failures(state)) {
    const [x, y] = rules.target(failure, state.agents[failure.team] || []) || [];
    if (!onBoard(board, x, y)) continue;
    view.cells[y * board.width + x].append(mark("span", `failure ${failure.result}`, FAILURE_MARK[failure.result]));
  }
}

function onBoard(board, x, y) {
  return Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < board.width && y < board.height;
}

// Every action of the turn that did not succeed, with its team.
export function failures(state) {
  const found = [];
  (state.outcomes || []).forEach((outcomes, team) => {
    for (const outcome of outcomes) {
      if (outcome.result !== "ok") found.push({ ...outcome, team });
    }
  });
  return found;
}

// --- treasures ------------------------------------------------------------

// The first successful move onto a treasure takes it, and only a successful move brings
// an agent where none stood the turn before: note when that first happens on each cell.
export function noteArrivals(arrived, before, after) {
  const stood = new Set(standing(before));
  for (const key of standing(after)) {
    if (!stood.has(key) && !arrived.has(key)) arrived.set(key, after.turn);
  }
}

// Joining a match late: a cell with an agent or a tile on it has been stepped onto
// (a start cell aside); a tile since removed is missed.
export function guessArrivals(arrived, board, state) {
  if (state.turn === 0 || !board.treasures) return;
  const starts = new Set((board.start || []).flat().map(([x, y]) => `${x},${y}`));
  state.cells.forEach((row, y) => [...row].forEach((char, x) => {
    if ((char === "A" || char === "B") && !starts.has(`${x},${y}`)) arrived.set(`${x},${y}`, state.turn);
  }));
  for (const key of standing(state)) arrived.set(key, state.turn);
}

function standing(state) {
  return state.agents.flat().filter(Boolean).map(([x, y]) => `${x},${y}`);
}

// --- words ------------------------------------------------------------------------------

// An action as the screens word it, e.g. "move (3, 4)", "move ↘", "wr · walk right".
export function describeAction(game, outcome) {
  const rules = gameRules(game);
  return outcome.type === null ? rules.idle : rules.describe(outcome);
}

// Who acted: the agent's number, or the team's one player (C / H, A / B).
export function actor(game, team, outcome) {
  const { labels } = gameRules(game);
  if (labels) return labels[team];
  return Number.isInteger(outcome.agent) ? String(outcome.agent) : JSON.stringify(outcome.agent ?? null);
}

// Each team's card: its one number ("total" where there is one), the rest of its score
// in words, and how the two compare (the game's own module may say that fewer is
// better). `decided`: the winner once the match's result is known, who then leads
// whatever the numbers say (null: a draw; undefined: not decided).
export function scoreCards(game, scores, decided) {
  const rules = gameRules(game);
  const parts = Object.keys(scores[0]);
  const headline = parts.includes("total") ? "total" : parts[0];
  const strength = scores.map((score) => (rules.strength ? rules.strength(score[headline]) : score[headline]));
  const ahead = strength[0] === strength[1] ? -1 : strength[0] > strength[1] ? 0 : 1;
  const leader = decided === undefined ? ahead : decided ?? -1;
  const positive = strength.map((value) => Math.max(value, 0));
  const sum = positive[0] + positive[1];
  const details = scores.map((score, team) => {
    if (rules.details) return rules.details(score, team, parts, headline);
    return parts.filter((part) => part !== headline).map((part) => `${part} ${score[part]}`).join(" · ");
  });
  return { headline, numbers: scores.map((score) => score[headline]), details, leader,
           share: sum ? positive[0] / sum : 0.5 };
}

// --- the legend ---------------------------------------------------------------------------

// The marks of this game's board, each on a small cell drawn as the board draws it.
export function drawLegend(box, game) {
  const rules = gameRules(game);
  const keys = rules.legend.map(([classes, words, inner, text]) => {
    const cell = mark("span", `key cell ${classes}`);
    if (inner) cell.append(mark("span", inner, text));
    const item = mark("span", "", ` ${words}`);
    item.prepend(cell);
    return item;
  });
  if (rules.target) keys.push(mark("span", "", "✕ invalid"));
  if (rules.agents) keys.push(mark("span", "", "⚡ conflict"));
  if (rules.points) {
    const negative = mark("span", "");
    negative.append(mark("i", "", "−3"), " negative");
    keys.push(negative);
  }
  box.replaceChildren(...keys);
}

// --- small parts -----------------------------------------------------------------------------

function pointsMark(value) {
  return mark("span", value < 0 ? "points negative" : "points", value < 0 ? `−${-value}` : String(value));
}

function mark(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
