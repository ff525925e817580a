// CHaser (U-16): blocks and items, Cool (C) and Hot (H) sending one command a turn.

const CELLS = { ".": "floor", "#": "block", "*": "item" };
const VERBS = { w: "walk", l: "look", s: "search", p: "put" };
const WAYS = { u: "up", d: "down", l: "left", r: "right" };
const NAMES = ["Cool", "Hot"];
const STEPS = { u: [0, -1], d: [0, 1], l: [-1, 0], r: [1, 0] };

// The cells a look (the 3 × 3 square two cells away) or a search (nine cells in a
// line) read, seen from where the player stands.
function cellsRead(verb, [x, y], [dx, dy]) {
  if (verb === "s") return Array.from({ length: 9 }, (_, i) => [x + dx * (i + 1), y + dy * (i + 1)]);
  const [cx, cy] = [x + 2 * dx, y + 2 * dy];
  return [-1, 0, 1].flatMap((oy) => [-1, 0, 1].map((ox) => [cx + ox, cy + oy]));
}

// The step each player took: a walk is an arrow, a put frames the new block, a look or
// a search tints the cells it read, in the player's colour.
function lastTurn(state, previous) {
  const marks = [];
  const moves = [];
  (state.outcomes || []).forEach((outcomes, team) => {
    for (const { command, result } of outcomes) {
      const step = STEPS[command?.[1]];
      const at = state.agents[team]?.[0];
      if (result !== "ok" || !step || !at || command.length !== 2) continue;
      const verb = command[0];
      if (verb === "l" || verb === "s") marks.push(...cellsRead(verb, at, step).map((cell) => ({ at: cell, kind: "read", team })));
      if (verb === "p") marks.push({ at: [at[0] + step[0], at[1] + step[1]], kind: "acted", team });
      const from = previous?.agents[team]?.[0] || [at[0] - step[0], at[1] - step[1]];
      if (verb === "w") moves.push({ from, to: at, team });
    }
  });
  return { marks, moves };
}

function chaserClasses() {
  return (char) => CELLS[char] || "floor";
}

// e.g. "wr · walk right".
function commandWords(command) {
  if (command === undefined) return "no command";
  const verb = VERBS[command?.[0]];
  const way = WAYS[command?.[1]];
  return verb && way && command.length === 2 ? `${command} · ${verb} ${way}` : JSON.stringify(command);
}

export default {
  game: "chaser",
  labels: ["C", "H"],
  names: NAMES,
  classes: chaserClasses,
  target: null, // a command fails on no cell
  describe: (outcome) => commandWords(outcome.command),
  lastTurn,
  start: "Cool and Hot on their first cells",
  idle: "no command",
  legend: [["block", "block"], ["item", "item"], ["floor", "Cool", "agent-a", "C"],
           ["floor", "Hot", "agent-b", "H"], [["floor", "floor"], "read by a look or a search", "trace read team-a"],
           ["floor", "put a block last turn", "trace acted"]],
  details: (score, team) => `${NAMES[team]} (${"CH"[team]}) · items taken`,
};
