// Kakomimasu (Procon 31): walls and territory; every agent acts at once on a cell.
//
// The shape every game module exports:
//   game: its id; points: the board's point values are shown in every cell;
//   agents: the actions are per agent (and may conflict); labels / names: the mark and
//   name of each team's one player where there are no numbered agents;
//   classes(view, state, options) -> (char, x, y) -> the cell's CSS classes;
//   optional badges(board) -> [{at, kind, text}]: marks on cells from the board's data;
//   optional remember(memory, news, turn): notes what the server says its cells remember
//   of a turn (or of all so far, at turn 0), for `classes` (options.memory);
//   target(outcome, agents): the cell a failed action aimed at (null: none);
//   describe(outcome): an action in words; optional reply(outcome): what the team's
//   program read back, in words (null: nothing); start: turn 0 in words; idle: a team that
//   sent nothing; legend: [classes (or one per team), words, inner mark, its text] for
//   each mark; parts: its score's parts in words, by the server's keys; optional
//   coordinate(i): a column's or a row's name (default: i);
//   optional details(score, team, parts, headline): a team's score beyond its one number
//   (who leads is the server's word, never worked out here).

import { gettext, interpolate } from "../i18n.js";

const WALLS = { ".": "neutral", A: "wall-a", B: "wall-b", a: "land-a", b: "land-b" };

function wallClasses() {
  return (char) => WALLS[char] || "neutral";
}

function absoluteTarget(outcome) {
  return [outcome.x, outcome.y];
}

// An action in words, by the type the API sends (a type the rules do not know, as sent).
const PLACED = {
  // Translators: Kakomimasu: an agent is put on the cell (x, y)
  put: gettext("put (%(x)s, %(y)s)"),
  // Translators: Kakomimasu: an agent moves onto the cell (x, y)
  move: gettext("move (%(x)s, %(y)s)"),
  // Translators: Kakomimasu: an agent removes the wall on the cell (x, y)
  remove: gettext("remove (%(x)s, %(y)s)"),
};

function describePlaced(outcome) {
  const { type, x, y } = outcome;
  if (x != null && Object.hasOwn(PLACED, type)) return interpolate(PLACED[type], { x, y });
  const where = x == null ? "" : ` (${x}, ${y})`;
  // Translators: an agent's action: it stays on its cell
  return `${type === "stay" ? gettext("stay") : type ?? "?"}${where}`;
}

// The play page: what a click on a cell asks of one of the player's agents, judged on
// the board as the turn began. An agent off the board is put there; on the board its own
// cell means stay, a neighbour holding the other team's wall is removed, any other
// neighbour is moved onto, and clicking a neighbour with an own wall again after a move
// there removes that wall instead. {problem} when the cell cannot be its target.
function planAction(state, team, agent, [x, y], planned) {
  const at = state.agents[team]?.[agent];
  const char = state.cells[y]?.[x];
  if (!at) {
    return char === "AB"[1 - team] ? { problem: gettext("an agent cannot be put on the other team's wall") }
      : { action: { agent, type: "put", x, y } };
  }
  if (at[0] === x && at[1] === y) return { action: { agent, type: "stay" } };
  if (Math.max(Math.abs(at[0] - x), Math.abs(at[1] - y)) !== 1) {
    // Translators: the play page: a cell clicked too far from the chosen agent, e.g. "(5, 4) is not next to
    // agent 1 at (3, 2)"
    const problem = gettext("(%(x)s, %(y)s) is not next to agent %(agent)s at (%(ax)s, %(ay)s)");
    return { problem: interpolate(problem, { x, y, agent, ax: at[0], ay: at[1] }) };
  }
  const again = planned?.type === "move" && planned.x === x && planned.y === y;
  const remove = char === "AB"[1 - team] || (again && char === "AB"[team]);
  return { action: { agent, type: remove ? "remove" : "move", x, y } };
}

// The board editor (editor.js): a cell's points, from -16 to 16.
const editor = {
  hints: ["agents", "turns"],
  tools: [{ id: "points", label: gettext("points"), value: { min: -16, max: 16, initial: 8 } }],
  blank: (width, height) => ({ width, height, points: Array.from({ length: height }, () => Array(width).fill(0)) }),
  apply(board, tool, x, y, value) {
    board.points[y][x] = value;
  },
};

export default {
  game: "kakomimasu",
  editor,
  points: true,
  agents: true,
  classes: wallClasses,
  target: absoluteTarget,
  describe: describePlaced,
  // Translators: turn 0 of a game, before any move
  start: gettext("the empty board"),
  // Translators: a team that sent no action in a turn
  idle: gettext("no action"),
  // the parts of its score as people read them (the chart's key, the cards)
  parts: { total: gettext("total"), wall: gettext("wall"), territory: gettext("territory") },
  // Translators: the board's legend: Kakomimasu's cells (a team's wall, its territory, a cell of neither)
  legend: [[["wall-a", "wall-b"], gettext("wall")], [["land-a", "land-b"], gettext("territory")],
           // Translators: the board's legend: a cell of neither team
           ["neutral", gettext("neutral")]],
  // the play page: click an agent, then its target
  play: { kind: "agents", plan: planAction, marks: { put: "+", move: "→", remove: "✕", stay: "·" },
          hint: gettext(
            // Translators: the play page: how to give Kakomimasu's agents their actions
            "Click one of your agents, then its target: a cell to put it on, a neighbour to move onto or remove a wall from (click an own wall again to remove it), its own cell to stay.") },
};
