// CHaser (U-16): blocks and items, Cool (C) and Hot (H) sending one command a turn.

import { gettext, interpolate } from "../i18n.js";

const CELLS = { ".": "floor", "#": "block", "*": "item" };
// Each command in words, by the command the protocol sends (a verb, then a way).
// (Up, down, left and right are on the map as drawn.)
const COMMANDS = {
  // Translators: CHaser's command wu: walk one cell up
  wu: gettext("walk up"),
  // Translators: CHaser's command wd: walk one cell down
  wd: gettext("walk down"),
  // Translators: CHaser's command wl: walk one cell left
  wl: gettext("walk left"),
  // Translators: CHaser's command wr: walk one cell right
  wr: gettext("walk right"),
  // Translators: CHaser's command lu: read the 3 × 3 square centred two cells up
  lu: gettext("look up"),
  // Translators: CHaser's command ld: read the 3 × 3 square centred two cells down
  ld: gettext("look down"),
  // Translators: CHaser's command ll: read the 3 × 3 square centred two cells left
  ll: gettext("look left"),
  // Translators: CHaser's command lr: read the 3 × 3 square centred two cells right
  lr: gettext("look right"),
  // Translators: CHaser's command su: read the nine cells in a line upwards
  su: gettext("search up"),
  // Translators: CHaser's command sd: read the nine cells in a line downwards
  sd: gettext("search down"),
  // Translators: CHaser's command sl: read the nine cells in a line to the left
  sl: gettext("search left"),
  // Translators: CHaser's command sr: read the nine cells in a line to the right
  sr: gettext("search right"),
  // Translators: CHaser's command pu: put a block on the cell above
  pu: gettext("put up"),
  // Translators: CHaser's command pd: put a block on the cell below
  pd: gettext("put down"),
  // Translators: CHaser's command pl: put a block on the cell to the left
  pl: gettext("put left"),
  // Translators: CHaser's command pr: put a block on the cell to the right
  pr: gettext("put right"),
};
const NAMES = ["Cool", "Hot"]; // the players' names, kept in every language (as the server keeps them)

function chaserClasses() {
  return (char) => CELLS[char] || "floor";
}

// e.g. "wr · walk right".
function commandWords(command) {
  // Translators: CHaser: a player that sent no command
  if (command === undefined) return gettext("no command");
  const words = typeof command === "string" && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : null;
  return words ? `${command} · ${words}` : JSON.stringify(command);
}

// The digits its program read, as a CHaser client reads them: the game-on digit, then
// the 3×3 around (by rows) or, after a search, the nine cells in a line. Null for an
// outcome with no reply (a step that was not played).
function replyWords(outcome) {
  if (!outcome.reply) return null;
  const search = outcome.command?.[0] === "s";
  // Translators: CHaser: the digits its program read before its command (ready) and after it (reply)
  return interpolate(gettext("ready %(ready)s → reply %(reply)s"),
                     { ready: digitGroups(outcome.ready), reply: digitGroups(outcome.reply, search) });
}

function digitGroups(digits, line = false) {
  if (typeof digits !== "string" || digits.length !== 10) return String(digits);
  const cells = line ? [digits.slice(1)] : [digits.slice(1, 4), digits.slice(4, 7), digits.slice(7)];
  return [digits[0], ...cells].join(" ");
}

// The map editor (editor.js): blocks, items and floor, and each player's one start.
const editor = {
  hints: ["turns"],
  tools: [
    // Translators: the map editor's tool: a block (no player can enter it)
    { id: "block", label: gettext("block") },
    // Translators: the map editor's tool: an item
    { id: "item", label: gettext("item") },
    // Translators: the map editor's tool: an empty cell
    { id: "floor", label: gettext("floor") },
    { id: "start-cool", label: interpolate(gettext("%(player)s starts here"), { player: NAMES[0] }), team: 0 },
    { id: "start-hot", label: interpolate(gettext("%(player)s starts here"), { player: NAMES[1] }), team: 1 },
  ],
  blank: (width, height) => ({
    width, height, cells: Array(height).fill(".".repeat(width)), start: [[0, 0], [width - 1, height - 1]],
  }),
  apply(board, tool, x, y, value, team) {
    const put = (char) => {
      const row = board.cells[y];
      board.cells[y] = row.slice(0, x) + char + row.slice(x + 1);
    };
    if (tool.startsWith("start")) {
      board.start[team] = [x, y];
      put(".");
    } else {
      put({ block: "#", item: "*", floor: "." }[tool]);
    }
  },
};

export default {
  game: "chaser",
  editor,
  labels: ["C", "H"],
  names: NAMES,
  classes: chaserClasses,
  target: null, // a command fails on no cell
  describe: (outcome) => commandWords(outcome.command),
  reply: replyWords,
  // Translators: CHaser's turn 0: the two players (Cool and Hot) on their start cells
  start: interpolate(gettext("%(cool)s and %(hot)s on their first cells"), { cool: NAMES[0], hot: NAMES[1] }),
  // Translators: CHaser: a player that sent no command
  idle: gettext("no command"),
  // the parts of its score as people read them (the chart's key, the cards)
  parts: { items: gettext("items") },
  // Translators: the board's legend: a CHaser cell with a block on it (no player can enter it)
  legend: [["block", gettext("block")],
           // Translators: the board's legend: a CHaser cell with an item on it (a player takes it)
           ["item", gettext("item")], ["floor", NAMES[0], "agent-a", "C"], ["floor", NAMES[1], "agent-b", "H"],
           // Translators: the board's legend: the cells a player's look or search read in the last turn
           [["floor", "floor"], gettext("read by a look or a search"), "trace read team-a"],
           // Translators: the board's legend: the cell a player put a block on in the last turn
           ["floor", gettext("put a block last turn"), "trace acted"]],
  // Translators: CHaser: a team's player (Cool or Hot) and its letter, then what its number counts
  details: (score, team) => interpolate(gettext("%(player)s (%(letter)s) · items taken"),
                                        { player: NAMES[team], letter: "CH"[team] }),
};
