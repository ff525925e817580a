// CHaser (U-16): blocks and items, Cool (C) and Hot (H) sending one command a turn.

const CELLS = { ".": "floor", "#": "block", "*": "item" };
const VERBS = { w: "walk", l: "look", s: "search", p: "put" };
const WAYS = { u: "up", d: "down", l: "left", r: "right" };
const NAMES = ["Cool", "Hot"];

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
  start: "Cool and Hot on their first cells",
  idle: "no command",
  legend: [["block", "block"], ["item", "item"], ["floor", "Cool", "agent team-a", "C"],
           ["floor", "Hot", "agent team-b", "H"]],
  details: (score, team) => `${NAMES[team]} (${"CH"[team]}) · items taken`,
};
