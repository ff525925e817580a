// Blokus Duo: each team's pieces and the start squares; one move (a 4-character code)
// a turn; fewer squares left to place is better.

const START = [[4, 4], [9, 9]]; // 55 and AA: the squares the first pieces cover
const CODE_DIGITS = "123456789ABCDE"; // a code's column and row
const PIECE_LETTERS = "abcdefghijklmnopqrstu";
const PIECE_SIZES = "123344444555555555555"; // squares of pieces a … u
const ALL_SQUARES = 89; // of one player's 21 pieces
const SIDES = [["t", 0, -1], ["r", 1, 0], ["b", 0, 1], ["l", -1, 0]];

// A piece's outline is thick: pieces of one colour never share an edge, so an edge
// between two squares of one colour is inside a piece. The piece just placed is marked:
// this turn's, or after a pass the one the turn before placed (`previous`, if known).
function pieceClasses(view, state, { previous }) {
  const same = (x, y, char) => state.cells[y]?.[x] === char;
  let placed = placedPiece(state);
  if (!placed.size && previous) placed = placedPiece({ ...previous, cells: state.cells });
  return (char, x, y) => {
    if (char !== "A" && char !== "B") {
      const start = START.findIndex(([sx, sy]) => sx === x && sy === y);
      return start < 0 ? "empty" : `empty start-${"ab"[start]}`;
    }
    const edges = SIDES.filter(([, dx, dy]) => !same(x + dx, y + dy, char)).map(([side]) => `edge-${side}`);
    if (placed.has(`${x},${y}`)) edges.push("fresh");
    return [`piece-${char.toLowerCase()}`, ...edges].join(" ");
  };
}

// The piece a turn placed, from its state alone (a screen joining late draws it too):
// a piece covers its code's reference square, and the squares of its colour joined to
// that one by an edge are the piece, since pieces of one colour never share an edge.
function placedPiece(state) {
  const placed = new Set();
  for (const outcome of (state.outcomes || []).flat()) {
    const at = outcome.result === "ok" ? codeTarget(outcome) : null;
    const char = at && state.cells[at[1]]?.[at[0]];
    if (char !== "A" && char !== "B") continue;
    const queue = [at];
    while (queue.length) {
      const [x, y] = queue.pop();
      if (placed.has(`${x},${y}`) || state.cells[y]?.[x] !== char) continue;
      placed.add(`${x},${y}`);
      for (const [, dx, dy] of SIDES) queue.push([x + dx, y + dy]);
    }
  }
  return placed;
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
  coordinate: (i) => CODE_DIGITS[i] ?? String(i), // as the move codes name columns and rows
  describe: (outcome) => moveWords(outcome.move),
  start: "the empty board",
  idle: "not its move",
  legend: [[["piece-a edge-t edge-r edge-b edge-l", "piece-b edge-t edge-r edge-b edge-l"], "piece"],
           [["piece-a edge-t edge-r edge-b edge-l fresh", "piece-b edge-t edge-r edge-b edge-l fresh"], "just placed"],
           [["empty start-a", "empty start-b"], "start square"]],
  strength: (remaining) => ALL_SQUARES - remaining,
  details: () => "squares left to place · fewer wins",
};
