// The board as a pure function of a state, for every game: each game's own module
// (games/<game>.js, through the registry games/index.js) says how its cells look, where
// a failed action aimed, what the last turn did, and its words; this module draws the
// coordinates, the cells, the point values, the agents, last turn's moves and failed
// actions, and nothing is left to hover.
// Also each game's words for an action and for a team's score, shared by the screens.

import { gameFor } from "./games/index.js";
import { gettext, interpolate, ngettext } from "./i18n.js";

const FAILURE_MARK = { invalid: "✕", conflict: "⚡" };
// An action's result as every screen marks it (the legend says which is which).
export const RESULT_MARK = { ok: "✓", ...FAILURE_MARK };
const SVG = "http://www.w3.org/2000/svg";
const EDGE = 0.55; // the coordinates' margin, in cells (app.css's --edge)

export function gameRules(game) {
  return gameFor(game);
}

export function createBoard(root, board, game) {
  const rules = gameRules(game);
  root.textContent = "";
  root.classList.toggle("secret", Boolean(board.secret));
  if (board.secret) {
    // A field kept secret until its game starts: nothing of it is sent before then.
    root.append(mark("p", "secret-note", gettext("Secret field — shown when the game starts")));
    return { root, board: { width: 0, height: 0 }, game, rules, cells: [] };
  }
  root.style.setProperty("--cols", board.width);
  root.style.setProperty("--rows", board.height);
  root.style.setProperty("--w", board.width + EDGE);
  root.style.setProperty("--h", board.height + EDGE);
  root.setAttribute("role", "img");
  const badges = badgesByCell(rules, board);
  const cells = [];
  const named = rules.coordinate || String;
  root.append(mark("span", "coord corner"));
  for (let x = 0; x < board.width; x += 1) root.append(mark("span", "coord x", named(x)));
  for (let y = 0; y < board.height; y += 1) {
    root.append(mark("span", "coord y", named(y)));
    for (let x = 0; x < board.width; x += 1) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.x = x;
      cell.dataset.y = y;
      if (rules.points) cell.append(pointsMark(board.points[y][x]));
      for (const { kind, text } of badges.get(`${x},${y}`) || []) cell.append(mark("span", kind, text));
      root.append(cell);
      cells.push(cell);
    }
  }
  return { root, board, game, rules, cells };
}

// The badges the game's module puts on cells of its board (`badges`), by cell.
function badgesByCell(rules, board) {
  const found = new Map();
  for (const { at: [x, y], kind, text } of rules.badges ? rules.badges(board) : []) {
    found.set(`${x},${y}`, [...(found.get(`${x},${y}`) || []), { kind, text }]);
  }
  return found;
}

// `options.memory`: what the game's cells remember of earlier turns (see remember);
// `options.last`: what the state's turn did, as the
// server marks it (the rules' `last_turn`: `marks`, each [x, y, kind, team], and `moves`,
// each [[x0, y0], [x1, y1], team]), drawn as given.
export function drawState(view, state, options = {}) {
  const { board, cells } = view;
  const classes = view.rules.classes(view, state, options);
  const stood = whereAgentsStand(view);
  for (let y = 0; y < board.height; y += 1) {
    const row = state.cells[y];
    for (let x = 0; x < board.width; x += 1) {
      const cell = cells[y * board.width + x];
      const wanted = `cell ${classes(row[x], x, y)}`;
      if (cell.className !== wanted) cell.className = wanted;
      for (const old of cell.querySelectorAll(".agent, .failure, .trace")) old.remove();
    }
  }
  drawLastTurn(view, options.last);
  drawAgents(view, state);
  slideAgents(view, stood, state.turn);
  drawFailures(view, state);
  view.root.dataset.shownTurn = state.turn;
}

// Where each agent stands on the screen now ("team,number" → its box), before a turn
// moves it.
function whereAgentsStand(view) {
  const stood = new Map();
  for (const agent of view.root.querySelectorAll(".agent[data-key]")) {
    stood.set(agent.dataset.key, agent.getBoundingClientRect());
  }
  stood.turn = Number(view.root.dataset.shownTurn);
  return stood;
}

// The next turn's agents slide from where they stood to their new cells (a fifth of a
// second; none with reduced motion, nor when the screen jumps rather than steps).
function slideAgents(view, stood, turn) {
  if (!stood.size || turn !== stood.turn + 1 || !Element.prototype.animate
      || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  for (const agent of view.root.querySelectorAll(".agent[data-key]")) {
    const before = stood.get(agent.dataset.key);
    if (!before) continue;
    const now = agent.getBoundingClientRect();
    const [dx, dy] = [before.left - now.left, before.top - now.top];
    if (!dx && !dy) continue;
    agent.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
                  { duration: 220, easing: "ease-out" });
  }
}

function drawAgents(view, state) {
  const { labels, names } = view.rules;
  state.agents.forEach((team, index) => {
    team.forEach((position, number) => {
      if (!position || !onBoard(view.board, position[0], position[1])) return;
      const agent = agentMark(index, labels ? labels[index] : number, Boolean(labels));
      agent.dataset.key = `${index},${number}`;
      // Translators: an agent's tooltip, e.g. "Team A agent 3" (A or B, and its number)
      const numbered = gettext("Team %(team)s agent %(number)s");
      agent.title = names ? names[index] : interpolate(numbered, { team: "AB"[index], number });
      view.cells[position[1] * view.board.width + position[0]].append(agent);
    });
  });
}

// An agent: a ring in its team's colour and a badge with its number (or its player's
// letter, large, where a team has one player).
function agentMark(team, label, solo) {
  const agent = mark("span", `agent team-${"ab"[team]}${solo ? " solo" : ""}`);
  agent.append(mark("span", "agent-no", label));
  return agent;
}

// What the last turn did, as the server says (`last`): cells acted on, read or just
// placed, and moves.
function drawLastTurn(view, last) {
  const { board, cells } = view;
  view.root.querySelector("svg.moves")?.remove();
  const { marks = [], moves = [] } = last || {};
  for (const [x, y, kind, team] of marks) {
    if (onBoard(board, x, y)) cells[y * board.width + x].append(mark("span", `trace ${kind} team-${"ab"[team]}`));
  }
  const shown = moves.filter(([from, to]) => onBoard(board, ...from) && onBoard(board, ...to));
  if (shown.length) view.root.append(movesLayer(board, shown));
}

// Each move as a double chevron (») on the edge between the two cells, pointing the way
// the agent went: in the team's colour on a dark casing that stands out on any cell in
// either theme, and clear of both cells' middles and of the agent's number in its corner.
function movesLayer(board, moves) {
  const layer = document.createElementNS(SVG, "svg");
  layer.setAttribute("class", "moves");
  layer.setAttribute("viewBox", `0 0 ${board.width} ${board.height}`);
  layer.setAttribute("aria-hidden", "true");
  for (const [kind, width] of [["casing", 0.2], [null, 0.1]]) {
    for (const [from, to, team] of moves) layer.append(chevrons(from, to, kind || `team-${"ab"[team]}`, width));
  }
  return layer;
}

const CHEVRON = { depth: 0.13, half: 0.2, gap: 0.13 }; // in cells

function chevrons([x0, y0], [x1, y1], className, width) {
  const [dx, dy] = [x1 - x0, y1 - y0];
  const length = Math.hypot(dx, dy) || 1;
  const [ux, uy] = [dx / length, dy / length]; // the way it went
  const [px, py] = [-uy, ux]; // across it
  // the point where the two cells meet (an edge's middle, or a shared corner)
  const [cx, cy] = [x0 + 0.5 + dx / 2, y0 + 0.5 + dy / 2];
  const group = document.createElementNS(SVG, "g");
  group.setAttribute("class", className);
  for (const shift of [-CHEVRON.gap / 2, CHEVRON.gap / 2]) {
    const [tx, ty] = [cx + ux * (shift + CHEVRON.depth / 2), cy + uy * (shift + CHEVRON.depth / 2)];
    const [bx, by] = [tx - ux * CHEVRON.depth, ty - uy * CHEVRON.depth];
    const points = [[bx + px * CHEVRON.half, by + py * CHEVRON.half], [tx, ty],
                    [bx - px * CHEVRON.half, by - py * CHEVRON.half]];
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", points.map((point) => point.map((n) => n.toFixed(3)).join(",")).join(" "));
    Object.entries({ "stroke-width": width, "stroke-linecap": "round", "stroke-linejoin": "round", fill: "none" })
      .forEach(([name, value]) => line.setAttribute(name, value));
    group.append(line);
  }
  return group;
}

function drawFailures(view, state) {
  const { board, rules } = view;
  if (!rules.target) return;
  for (const failure of failures(state)) {
    const [x, y] = rules.target(failure, state.agents[failure.team] || []) || [];
    if (!onBoard(board, x, y)) continue;
    view.cells[y * board.width + x].append(failureMark(failure.result));
  }
}

// A failed action's mark: a thick frame and a large round ✕ or ⚡.
function failureMark(result) {
  const failure = mark("span", `failure ${result}`);
  failure.append(mark("span", "failure-glyph", FAILURE_MARK[result] || "?"));
  return failure;
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

// How many of a turn's actions collided with each other and how many the rules refused.
export function failureCounts(state) {
  const failed = failures(state);
  const conflicts = failed.filter((failure) => failure.result === "conflict").length;
  return { conflicts, invalid: failed.length - conflicts };
}

// --- what cells remember ----------------------------------------------------------------

// A cell may show what happened on it in an earlier turn (a treasure taken, say), as the
// server says: each turn's message (or a replay's `news` of it) brings what that turn
// adds, a snapshot or an embed what all turns so far did (noted at turn 0). The game's
// module notes it in `memory` (its `remember`); its `classes` reads it.
export function remember(game, memory, news, turn) {
  gameRules(game).remember?.(memory, news, turn);
}

// The turns a chart or a timeline spans: those a match over took; while it runs, all it
// may take, or, for a game that usually ends well before its limit (its module's
// `usualEnd`: Blokus Duo's games end near turn 35 of the 84 they may take), the turns
// played and a margin, up to that limit.
export function turnSpan(game, turns, played, finished) {
  if (finished) return Math.max(played, 1);
  const usual = gameRules(game).usualEnd;
  return usual ? Math.min(turns, Math.max(played + 10, usual)) : Math.max(turns, played, 1);
}

// --- words ------------------------------------------------------------------------------

// An action as the screens word it, e.g. "move (3, 4)", "move ↘", "wr · walk right".
export function describeAction(game, outcome) {
  const rules = gameRules(game);
  return outcome.type === null ? rules.idle : rules.describe(outcome);
}

// A turn's failed actions, counted: "2 conflicts", "1 invalid".
export function conflictWords(count) {
  // Translators: how many actions of a turn collided with each other, e.g. "2 conflicts"
  return interpolate(ngettext("%(count)s conflict", "%(count)s conflicts", count), { count });
}

export function invalidWords(count) {
  // Translators: how many actions of a turn the rules refused, e.g. "7 invalid"
  return interpolate(ngettext("%(count)s invalid", "%(count)s invalid", count), { count });
}

// A part of a game's score as people read it ("wall": 城壁), as the game's module names
// it (a part it does not name, as the server sent it).
export function partName(game, part) {
  const { parts } = gameRules(game);
  return parts && Object.hasOwn(parts, part) ? parts[part] : part;
}

// Who acted: the agent's number, or the letter of the team's one player.
export function actor(game, team, outcome) {
  const { labels } = gameRules(game);
  if (labels) return labels[team];
  return Number.isInteger(outcome.agent) ? String(outcome.agent) : JSON.stringify(outcome.agent ?? null);
}

// Each team's card as the server presents it: its one number (the score part the match's
// `meta.headline` names), the rest of its score in words, and who leads with the bar's
// share: `lead`, the server's word for that moment (the rules' `lead`; the result's at
// the end). No lead given: nobody leads, and the bar stands even.
export function scoreCards(meta, scores, lead) {
  const rules = gameRules(meta.game);
  const parts = Object.keys(scores[0]);
  const headline = meta.headline;
  const details = scores.map((score, team) => {
    if (rules.details) return rules.details(score, team, parts, headline);
    return parts.filter((part) => part !== headline).map((part) => `${partName(meta.game, part)} ${score[part]}`)
      .join(" · ");
  });
  return { headline, numbers: scores.map((score) => score[headline]), details,
           leader: lead ? lead.team : null, share: lead ? lead.share : 0.5 };
}

// --- the legend ---------------------------------------------------------------------------

// The marks of this game's board, each on small cells drawn as the board draws them: a
// legend entry's classes are one cell's, or a list (one cell per team); its inner mark
// is "agent-a" / "agent-b" (an agent with that label), a failure's result, or a trace.
export function drawLegend(box, game) {
  const rules = gameRules(game);
  const entries = [...rules.legend];
  // Translators: the board's legend: an agent's mark, with its number on it
  if (rules.agents) entries.push(["neutral", gettext("agent (its number)"), "agent-a", "3"]);
  // Translators: the board's legend: the mark of a cell an agent acted on in the last turn
  if (rules.agents) entries.push(["neutral", gettext("acted on last turn"), "trace acted"]);
  // Translators: the board's legend: the mark of an action the rules refused
  if (rules.target) entries.push(["neutral", gettext("invalid"), "invalid"]);
  // Translators: the board's legend: the mark of actions that collided with each other
  if (rules.agents) entries.push(["neutral", gettext("conflict"), "conflict"]);
  const keys = entries.map(([classes, words, inner, text]) => {
    const item = mark("span", "legend-item");
    for (const one of Array.isArray(classes) ? classes : [classes]) {
      const cell = mark("span", `key cell ${one}`);
      if (inner) cell.append(innerMark(inner, text, rules));
      item.append(cell);
    }
    item.append(` ${words}`);
    return item;
  });
  if (rules.points) {
    const negative = mark("span", "");
    // Translators: the board's legend: a cell's negative point value
    negative.append(mark("i", "", "−3"), " " + gettext("negative"));
    keys.push(negative);
  }
  box.replaceChildren(...keys);
}

// --- small parts -----------------------------------------------------------------------------

function innerMark(inner, text, rules) {
  if (inner === "agent-a" || inner === "agent-b") return agentMark("ab".indexOf(inner.at(-1)), text, Boolean(rules.labels));
  if (inner in FAILURE_MARK) return failureMark(inner);
  return mark("span", inner, text);
}

function pointsMark(value) {
  return mark("span", value < 0 ? "points negative" : "points", value < 0 ? `−${-value}` : String(value));
}

function mark(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
