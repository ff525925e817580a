// Kakomimasu (Procon 31): walls and territory; every agent acts at once on a cell.
//
// The shape every game module exports:
//   game: its id; points: the board's point values are shown in every cell;
//   agents: the actions are per agent (and may conflict); labels / names: the mark and
//   name of each team's one player where there are no numbered agents;
//   classes(view, state, options) -> (char, x, y) -> the cell's CSS classes;
//   target(outcome, agents): the cell a failed action aimed at (null: none);
//   describe(outcome): an action in words; start: turn 0 in words; idle: a team that
//   sent nothing; legend: [classes, words, inner classes, inner text] for each mark;
//   optional strength(headline) (more is better; default the number itself) and
//   details(score, team, parts, headline): a team's score beyond its one number.

const WALLS = { ".": "neutral", A: "wall-a", B: "wall-b", a: "land-a", b: "land-b" };

function wallClasses() {
  return (char) => WALLS[char] || "neutral";
}

function absoluteTarget(outcome) {
  return [outcome.x, outcome.y];
}

function describePlaced(outcome) {
  const where = outcome.x == null ? "" : ` (${outcome.x}, ${outcome.y})`;
  return `${outcome.type ?? "?"}${where}`;
}

export default {
  game: "kakomimasu",
  points: true,
  agents: true,
  classes: wallClasses,
  target: absoluteTarget,
  describe: describePlaced,
  start: "the empty board",
  idle: "no action",
  legend: [["wall-a", "wall"], ["land-a", "territory"]],
};
