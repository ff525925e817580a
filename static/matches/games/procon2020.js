// Procon 2020 (Vietnam): tiles, areas, obstacles and treasures; agents move by a
// direction (dx, dy) from where they stand.

import { gettext, interpolate } from "../i18n.js";

const TILES = { ".": "neutral", A: "tile-a", B: "tile-b", "#": "obstacle" };
const ARROWS = { "0,-1": "↑", "1,-1": "↗", "1,0": "→", "1,1": "↘", "0,1": "↓", "-1,1": "↙",
                 "-1,0": "←", "-1,-1": "↖" };

// `memory`: the turn each treasure taken was taken at, as the server says (see remember);
// `last.areas`: each team's area, the neutral cells its tiles enclose, as the server
// works them out with the points (the rules' `last_turn`): shaded as given.
function tileClasses(view, state, { memory = new Map(), last = null }) {
  const areas = (last?.areas || [[], []]).map((cells) => new Set(cells.map(([x, y]) => `${x},${y}`)));
  const treasures = new Set((view.board.treasures || []).map(({ x, y }) => `${x},${y}`));
  return (char, x, y) => {
    const names = [TILES[char] || "neutral"];
    const key = `${x},${y}`;
    if (char === ".") names.push(...areas.flatMap((inside, team) => (inside.has(key) ? [`area-${"ab"[team]}`] : [])));
    if (treasures.has(key) && !(memory.get(key) <= state.turn)) names.push("treasure");
    return names.join(" ");
  };
}

// The treasures the server says were taken (its `treasures_taken`: a snapshot's or an
// embed's so far, a turn's its own), each noted with the first turn it is gone at.
function remember(memory, news, turn) {
  for (const [x, y] of news?.treasures_taken || []) {
    if (!memory.has(`${x},${y}`)) memory.set(`${x},${y}`, turn);
  }
}

// Each treasure's value on a badge in its cell.
function treasureBadges(board) {
  return (board.treasures || []).map(({ x, y, point }) => ({ at: [x, y], kind: "treasure-badge", text: point }));
}

// A failed action moved nobody: its agent is still where it started.
function directedTarget(outcome, agents) {
  const at = Number.isInteger(outcome.agent) ? agents[outcome.agent] : null;
  return at ? [at[0] + outcome.dx, at[1] + outcome.dy] : null;
}

// An action in words, by the type the API sends (a type the rules do not know, as sent).
const DIRECTED = {
  // Translators: Procon 2020: an agent moves one cell in a direction (an arrow such as ↗, or (dx, dy))
  move: gettext("move %(direction)s"),
  // Translators: Procon 2020: an agent removes the tile in a direction (an arrow such as ↗, or (dx, dy))
  remove: gettext("remove %(direction)s"),
};

function describeDirected(outcome) {
  // Translators: an agent's action: it stays on its cell
  if (outcome.type === "stay") return gettext("stay");
  const direction = ARROWS[`${outcome.dx},${outcome.dy}`] || `(${outcome.dx}, ${outcome.dy})`;
  if (Object.hasOwn(DIRECTED, outcome.type)) return interpolate(DIRECTED[outcome.type], { direction });
  return `${outcome.type ?? "?"} ${direction}`;
}

// The play page: what a click on a cell asks of one of the player's agents, judged on
// the field as the turn began: its own cell means stay, a neighbour holding the other
// team's tile is removed, any other neighbour is moved onto; an obstacle or a cell
// further away cannot be a target ({problem}).
function planDirected(state, team, agent, [x, y]) {
  const at = state.agents[team]?.[agent];
  if (!at) return { problem: interpolate(gettext("there is no agent %(agent)s"), { agent }) };
  const dx = x - at[0], dy = y - at[1];
  if (!dx && !dy) return { action: { agent, type: "stay" } };
  if (Math.abs(dx) > 1 || Math.abs(dy) > 1) {
    // Translators: the play page: a cell clicked too far from the chosen agent, e.g. "(5, 4) is not next to
    // agent 1 at (3, 2)"
    const problem = gettext("(%(x)s, %(y)s) is not next to agent %(agent)s at (%(ax)s, %(ay)s)");
    return { problem: interpolate(problem, { x, y, agent, ax: at[0], ay: at[1] }) };
  }
  if (state.cells[y]?.[x] === "#") {
    return { problem: interpolate(gettext("(%(x)s, %(y)s) is an obstacle"), { x, y }) };
  }
  return { action: { agent, type: state.cells[y]?.[x] === "AB"[1 - team] ? "remove" : "move", dx, dy } };
}

// The field editor (editor.js): points, obstacles, treasures and each team's start
// cells; a cell holds one of an obstacle, a treasure or a start cell.
function clearCell(board, x, y) {
  const other = ([cx, cy]) => cx !== x || cy !== y;
  board.obstacles = board.obstacles.filter(other);
  board.treasures = board.treasures.filter((t) => t.x !== x || t.y !== y);
  board.start = board.start.map((cells) => cells.filter(other));
}

const editor = {
  hints: ["turns"],
  tools: [
    { id: "points", label: gettext("points"), value: { min: -16, max: 16, initial: 8 } },
    // Translators: the field editor's tool: a cell no agent can enter
    { id: "obstacle", label: gettext("obstacle") },
    // Translators: the field editor's tool: a treasure and its value
    { id: "treasure", label: gettext("treasure"), value: { min: 8, max: 16, initial: 10 } },
    // Translators: the field editor's tool: a start cell of team A (its mirror is team B's)
    { id: "start-a", label: gettext("start cell of team A"), team: 0 },
    // Translators: the field editor's tool: a start cell of team B (its mirror is team A's)
    { id: "start-b", label: gettext("start cell of team B"), team: 1 },
    // Translators: the field editor's tool: takes the obstacle, treasure or start cell off a cell
    { id: "clear", label: gettext("clear the cell") },
  ],
  blank: (width, height) => ({
    width, height, points: Array.from({ length: height }, () => Array(width).fill(0)),
    obstacles: [], treasures: [], start: [[], []],
  }),
  apply(board, tool, x, y, value, team) {
    if (tool === "points") {
      board.points[y][x] = value;
      return;
    }
    clearCell(board, x, y);
    if (tool === "obstacle") board.obstacles.push([x, y]);
    else if (tool === "treasure") board.treasures.push({ x, y, point: value });
    else if (tool.startsWith("start")) board.start[team].push([x, y]);
  },
};

export default {
  game: "procon2020",
  editor,
  points: true,
  agents: true,
  classes: tileClasses,
  badges: treasureBadges,
  remember,
  target: directedTarget,
  describe: describeDirected,
  // Translators: Procon 2020's turn 0: each agent on the tile it starts on
  start: gettext("the agents on their first tiles"),
  // Translators: a team that sent no action in a turn
  idle: gettext("no action"),
  // the parts of its score as people read them (the chart's key, the cards)
  parts: { total: gettext("total"), tile: gettext("tile"), area: gettext("area"),
           treasure: gettext("treasure") },
  // Translators: the board's legend: Procon 2020's cells (a team's tile, its area, a cell of neither)
  legend: [[["tile-a", "tile-b"], gettext("tile")], [["neutral area-a", "neutral area-b"], gettext("area")],
           // Translators: the board's legend: a cell of neither team
           ["neutral", gettext("neutral")],
           // Translators: the board's legend: a cell no agent can enter
           ["obstacle", gettext("obstacle")],
           // Translators: the board's legend: a treasure, with its points on it
           ["treasure", gettext("treasure and its value"), "treasure-badge", "8"]],
  // the play page: click an agent, then its target
  play: { kind: "agents", plan: planDirected, marks: { move: "→", remove: "✕", stay: "·" },
          hint: gettext(
            // Translators: the play page: how to give Procon 2020's agents their actions
            "Click one of your agents, then its target: a neighbour to move onto, or to remove the other team's tile from; its own cell to stay.") },
};
