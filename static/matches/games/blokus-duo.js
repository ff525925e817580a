// Blokus Duo: each team's pieces and the start squares; one move (a 4-character code)
// a turn; fewer squares left to place is better.

const START = [[4, 4], [9, 9]]; // 55 and AA: the squares the first pieces cover
const CODE_DIGITS = "123456789ABCDE"; // a code's column and row
const PIECE_LETTERS = "abcdefghijklmnopqrstu";
const PIECE_SIZES = "123344444555555555555"; // squares of pieces a … u
const ALL_SQUARES = 89; // of one player's 21 pieces
const SIDES = [["t", 0, -1], ["r", 1, 0], ["b", 0, 1], ["l", -1, 0]];

// A piece's outline is thick: pieces of one colour never share an edge, so an edge
// between two squares of one colour is inside a piece. `previous`: the state before,
// to mark the piece just placed.
function pieceClasses(view, state, { previous }) {
  const same = (x, y, char) => state.cells[y]?.[x] === char;
  return (char, x, y) => {
    if (char !== "A" && char !== "B") {
      const start = START.findIndex(([sx, sy]) => sx === x && sy === y);
      return start < 0 ? "empty" : `empty start-${"ab"[start]}`;
    }
    const edges = SIDES.filter(([, dx, dy]) => !same(x + dx, y + dy, char)).map(([side]) => `edge-${side}`);
    if (previous?.cells[y][x] === ".") edges.push("fresh");
    return [`piece-${char.toLowerCase()}`, ...edges].join(" ");
  };
}

// A code's reference square.
function codeTarget(outcome) {
  const code = typeof outcome.move === "string" ? outcome.move.toUpperCase() : "";
  return code.length === 4 ? [CODE_DIGITS.indexOf(code[0]), CODE_DIGITS.indexOf(code[1])] : null;
}

function moveWords(move) {
  if (typeof move !== "string") return JSON.stringify(move ?? null);
  if (move === "----" || move === "0000") return `${move} · pass`;
  const size = PIECE_SIZES[PIECE_LETTERS.indexOf(move[2]?.toLowerCase())];
  if (move.length !== 4 || !size) return move;
  return `${move} · piece ${move[2].toLowerCase()}, ${size} square${size === "1" ? "" : "s"}`;
}

export default {
  game: "blokus-duo",
  labels: ["A", "B"],
  classes: pieceClasses,
  target: codeTarget,
  describe: (outcome) => moveWords(outcome.move),
  start: "the empty board",
  idle: "not its move",
  legend: [["piece-a edge-t edge-r edge-b edge-l", "piece"],
           ["piece-a edge-t edge-r edge-b edge-l fresh", "just placed"],
           ["empty start-a", "start square"]],
  strength: (remaining) => ALL_SQUARES - remaining,
  details: () => "squares left to place · fewer wins",
};
