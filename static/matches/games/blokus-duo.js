// Blokus Duo: each team's pieces and the start squares; one move (a 4-character code)
// a turn; fewer squares left to place is better.

import { gettext, interpolate, ngettext, withNodes } from "../i18n.js";
import { drawPiece, pieceSvg } from "../piece.js";

const START = [[4, 4], [9, 9]]; // 55 and AA: the squares the first pieces cover
const CODE_DIGITS = "123456789ABCDE"; // a code's column and row
const PIECE_LETTERS = "abcdefghijklmnopqrstu";
const PIECE_SIZES = "123344444555555555555"; // squares of pieces a … u
const SIDES = [["t", 0, -1], ["r", 1, 0], ["b", 0, 1], ["l", -1, 0]];

// A piece's outline is thick: pieces of one colour never share an edge, so an edge
// between two squares of one colour is inside a piece. (The piece just placed is marked
// on each of its squares as the server says: the turn's `last`.)
function pieceClasses(view, state) {
  const same = (x, y, char) => state.cells[y]?.[x] === char;
  return (char, x, y) => {
    if (char !== "A" && char !== "B") {
      const start = START.findIndex(([sx, sy]) => sx === x && sy === y);
      return start < 0 ? "empty" : `empty start-${"ab"[start]}`;
    }
    const edges = SIDES.filter(([, dx, dy]) => !same(x + dx, y + dy, char)).map(([side]) => `edge-${side}`);
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
  // Translators: Blokus Duo: a move's code that places no piece (the team passes)
  if (move === "----" || move === "0000") return interpolate(gettext("%(move)s · pass"), { move });
  const size = PIECE_SIZES[PIECE_LETTERS.indexOf(move[2]?.toLowerCase())];
  if (move.length !== 4 || !size) return move;
  const count = Number(size);
  // Translators: Blokus Duo: a move's code, its piece (a letter a … u) and the piece's size
  const words = ngettext("%(move)s · piece %(piece)s, %(count)s square",
                         "%(move)s · piece %(piece)s, %(count)s squares", count);
  return interpolate(words, { move, piece: move[2].toLowerCase(), count });
}

// --- playing by hand (the play page) ------------------------------------------------
// The 21 pieces in orientation 0, as (dx, dy) from the reference square (the table of
// docs/rules/blokus-duo.md; dy grows downwards).
const BASE_SHAPES = {
  a: [[0, 0]], b: [[0, 0], [0, 1]], c: [[0, 0], [0, 1], [0, -1]], d: [[0, 0], [1, 0], [0, -1]],
  e: [[0, 0], [0, 1], [0, 2], [0, -1]], f: [[0, 0], [0, -1], [0, 1], [-1, 1]],
  g: [[0, 0], [1, 0], [0, 1], [0, -1]], h: [[0, 0], [1, 0], [0, 1], [1, 1]],
  i: [[-1, 0], [0, 0], [0, 1], [1, 1]], j: [[0, 0], [0, 1], [0, 2], [0, -1], [0, -2]],
  k: [[0, 0], [0, 1], [0, -2], [0, -1], [-1, 1]], l: [[0, -2], [0, -1], [0, 0], [-1, 0], [-1, 1]],
  m: [[0, -1], [-1, 0], [0, 0], [-1, 1], [0, 1]], n: [[0, 0], [0, 1], [-1, 1], [0, -1], [-1, -1]],
  o: [[0, -1], [0, 0], [1, 0], [0, 1], [0, 2]], p: [[0, 0], [0, -1], [0, 1], [-1, 1], [1, 1]],
  q: [[0, 0], [1, 0], [2, 0], [0, -1], [0, -2]], r: [[0, 0], [1, 0], [1, 1], [0, -1], [-1, -1]],
  s: [[0, 0], [1, 0], [1, 1], [-1, 0], [-1, -1]], t: [[-1, -1], [-1, 0], [0, 0], [1, 0], [0, 1]],
  u: [[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1]],
};
const SIZE = 14;
const PASS_CODES = ["----", "0000"];

// A piece's squares in orientation o = 2r + m: its offsets turned r quarter turns
// clockwise ((dx, dy) → (−dy, dx)), then mirrored left to right if m is 1.
export function pieceSquares(piece, orientation) {
  return BASE_SHAPES[piece].map(([dx, dy]) => {
    for (let turn = 0; turn < orientation >> 1; turn += 1) [dx, dy] = [-dy, dx];
    return orientation & 1 ? [-dx, dy] : [dx, dy];
  });
}

// The orientation a piece shows turned a quarter clockwise, or flipped left to right, as
// a player sees it: mirroring after r turns, a further clockwise turn is one fewer.
export function turnedOrientation(orientation) {
  const turns = orientation >> 1;
  const mirrored = orientation & 1;
  return 2 * ((turns + (mirrored ? 3 : 1)) % 4) + mirrored;
}

export function flippedOrientation(orientation) {
  return orientation ^ 1;
}

// The 4-character code of a placement: column, row, piece, orientation.
export function moveCode(x, y, piece, orientation) {
  return `${CODE_DIGITS[x]}${CODE_DIGITS[y]}${piece}${orientation}`;
}

// The pieces a team has placed, from the match's turns as the API lists them.
export function placedPieces(actions, team) {
  const placed = new Set();
  for (const turn of actions || []) {
    for (const outcome of turn.outcomes?.[team] || []) {
      const move = typeof outcome.move === "string" ? outcome.move : "";
      if (outcome.result === "ok" && move.length === 4 && !PASS_CODES.includes(move)) {
        placed.add(move[2].toLowerCase());
      }
    }
  }
  return placed;
}

// What one position says about a team: the squares taken, those sharing an edge with its
// own, those touching its own at a corner only (where a piece may go on), and whether
// it has placed anything (else its piece must cover its start square).
export function playerView(cells, team) {
  const own = "AB"[team];
  const taken = new Uint8Array(SIZE * SIZE);
  const edge = new Uint8Array(SIZE * SIZE);
  let first = true;
  for (let y = 0; y < SIZE; y += 1) {
    for (let x = 0; x < SIZE; x += 1) {
      const char = cells[y][x];
      if (char !== "A" && char !== "B") continue;
      taken[y * SIZE + x] = 1;
      if (char !== own) continue;
      first = false;
      for (const [, dx, dy] of SIDES) {
        const nx = x + dx, ny = y + dy;
        if (nx >= 0 && ny >= 0 && nx < SIZE && ny < SIZE) edge[ny * SIZE + nx] = 1;
      }
    }
  }
  const corners = [];
  if (first) corners.push(START[team][1] * SIZE + START[team][0]);
  else {
    for (let y = 0; y < SIZE; y += 1) {
      for (let x = 0; x < SIZE; x += 1) {
        const at = y * SIZE + x;
        if (taken[at] || edge[at]) continue;
        const touches = [[-1, -1], [1, -1], [-1, 1], [1, 1]].some(([dx, dy]) =>
          cells[y + dy]?.[x + dx] === own);
        if (touches) corners.push(at);
      }
    }
  }
  const corner = new Uint8Array(SIZE * SIZE);
  for (const at of corners) corner[at] = 1;
  return { team, first, taken, edge, corner, corners };
}

// Every piece's squares in every orientation, worked out once.
const ORIENTED = new Map(Object.keys(BASE_SHAPES).map((piece) =>
  [piece, Array.from({ length: 8 }, (_, orientation) => pieceSquares(piece, orientation))]));
const START_NAMES = ["55", "AA"];
// Why a placement is illegal, in the rules' words: worked out once, as the legal
// placements of a position ask thousands of times.
const PROBLEMS = {
  off: gettext("the piece does not lie entirely on the board"),
  overlaps: gettext("the piece overlaps a placed square"),
  // Translators: Blokus Duo: %(square)s is the team's start square, 55 or AA, as the move codes name it
  first: START_NAMES.map((square) => interpolate(gettext("the first piece must cover %(square)s"), { square })),
  sharesEdge: gettext("the piece shares an edge with an own square"),
  noCorner: gettext("the piece touches no own square at a corner"),
};

// Why a placement is illegal, in the rules' words, or "" when it is legal.
export function placementProblem(view, piece, orientation, x, y) {
  const squares = ORIENTED.get(piece)[orientation];
  let onCorner = false;
  let overlaps = false;
  let sharesEdge = false;
  for (const [dx, dy] of squares) {
    const sx = x + dx, sy = y + dy;
    if (sx < 0 || sy < 0 || sx >= SIZE || sy >= SIZE) return PROBLEMS.off;
    const at = sy * SIZE + sx;
    overlaps ||= view.taken[at] === 1;
    sharesEdge ||= view.edge[at] === 1;
    onCorner ||= view.corner[at] === 1;
  }
  if (overlaps) return PROBLEMS.overlaps;
  if (view.first) return onCorner ? "" : PROBLEMS.first[view.team];
  if (sharesEdge) return PROBLEMS.sharesEdge;
  return onCorner ? "" : PROBLEMS.noCorner;
}

// Every legal placement of the given pieces, as [x, y, piece, orientation] (each of a
// symmetric piece's orientations listed): only placements over a corner square are tried.
const tried = new Uint32Array(21 * 8 * 32 * 32); // placement → the call that tried it
let calls = 0;

export function legalPlacements(view, pieces) {
  const found = [];
  calls += 1;
  for (const piece of pieces) {
    const index = PIECE_LETTERS.indexOf(piece);
    for (let orientation = 0; orientation < 8; orientation += 1) {
      const squares = ORIENTED.get(piece)[orientation];
      for (const at of view.corners) {
        const cx = at % SIZE, cy = (at - cx) / SIZE;
        for (const [dx, dy] of squares) {
          const x = cx - dx, y = cy - dy;
          const key = ((index * 8 + orientation) * 32 + y + 8) * 32 + x + 8;
          if (tried[key] === calls) continue;
          tried[key] = calls;
          if (!placementProblem(view, piece, orientation, x, y)) found.push([x, y, piece, orientation]);
        }
      }
    }
  }
  return found;
}

// --- the hand (the play page) ------------------------------------------------------------
// The page (play.js) gives `page`: its `find`, the board's `view`, the API's answer
// `data`, the team it plays (`you`), `myMove()`, `refuse(box, words)`, `send(actions)`
// and `refresh()`. The hand keeps its own state in `page.hand`.

// Once: the hand's buttons, keys and the pointer on the board.
function startHand(page) {
  const { find, view } = page;
  page.hand = { piece: null, orientation: 0, hover: null, left: [], legal: [], movable: new Set() };
  find("rotate").addEventListener("click", () => turnHand(page, turnedOrientation));
  find("flip").addEventListener("click", () => turnHand(page, flippedOrientation));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest?.("input, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
    const wanted = { r: turnedOrientation, f: flippedOrientation }[event.key.toLowerCase()];
    if (wanted) {
      event.preventDefault();
      turnHand(page, wanted);
    }
  });
  view.root.addEventListener("pointermove", (event) => hover(page, event));
  view.root.addEventListener("pointerleave", () => {
    page.hand.hover = null;
    drawHand(page);
  });
  // A mouse places with one click on the piece it shows; a finger has no pointer to
  // show it first, so its first tap on a square shows the piece and a second one places it.
  view.root.addEventListener("pointerdown", (event) => {
    page.hand.shownBefore = page.hand.hover;
    page.hand.touching = event.pointerType === "touch";
  });
  view.root.addEventListener("click", (event) => {
    hover(page, event);
    const before = page.hand.shownBefore, now = page.hand.hover;
    if (page.hand.touching && !(before && now && before[0] === now[0] && before[1] === now[1])) return;
    place(page);
  });
}

// A new position: the pieces left, where they can go, the tray and the hand. Returns
// whether the team has a legal move (else the server passes for it).
function showHand(page) {
  const { data, you, hand } = page;
  const placed = placedPieces(data.actions, you);
  hand.left = PIECE_LETTERS.split("").filter((piece) => !placed.has(piece));
  hand.position = playerView(data.state.cells, you);
  hand.legal = legalPlacements(hand.position, hand.left);
  hand.movable = new Set(hand.legal.map(([, , piece]) => piece));
  if (hand.piece && placed.has(hand.piece)) hand.piece = null;
  // at first, and once the chosen one is placed: the biggest piece that has somewhere to go
  if (!hand.piece) hand.piece = hand.left.findLast((piece) => hand.movable.has(piece)) ?? null;
  page.find("hand").hidden = data.status === "finished";
  drawTray(page);
  drawHand(page);
  return hand.legal.length > 0;
}

function turnHand(page, how) {
  const hand = page.hand;
  if (!hand.piece) return;
  hand.orientation = how(hand.orientation);
  drawHand(page);
  drawTray(page);
}

function hover(page, event) {
  const cell = event.target.closest?.(".cell");
  const at = cell ? [Number(cell.dataset.x), Number(cell.dataset.y)] : null;
  const old = page.hand.hover;
  if (at && old && at[0] === old[0] && at[1] === old[1]) return;
  page.hand.hover = at;
  drawHand(page);
}

// The placement the pointer names: the chosen piece with its reference square under the
// pointer, or, when that is illegal, the legal one of that piece and orientation nearest
// to it that covers the square under the pointer.
function aimed(hand) {
  const { piece, orientation, position } = hand;
  if (!piece || !hand.hover || !position) return null;
  const [x, y] = hand.hover;
  const problem = placementProblem(position, piece, orientation, x, y);
  if (!problem) return { x, y, problem };
  let best = null;
  for (const [dx, dy] of pieceSquares(piece, orientation)) {
    const rx = x - dx, ry = y - dy;
    if (placementProblem(position, piece, orientation, rx, ry)) continue;
    const distance = Math.abs(dx) + Math.abs(dy);
    if (!best || distance < best.distance) best = { x: rx, y: ry, problem: "", distance };
  }
  return best || { x, y, problem };
}

function drawHand(page) {
  const { find, hand, view, data } = page;
  for (const cell of view.root.querySelectorAll("[data-preview]")) delete cell.dataset.preview;
  drawReach(page);
  const chosen = find("chosen");
  drawPiece(chosen, hand.piece ? pieceSquares(hand.piece, hand.orientation) : [], { frame: 5, reference: true });
  chosen.dataset.piece = hand.piece || "";
  chosen.dataset.orientation = hand.orientation;
  find("rotate").disabled = find("flip").disabled = !hand.piece;
  const line = find("code-line");
  const target = aimed(hand);
  const mine = page.myMove();
  if (!hand.piece) {
    line.textContent = hand.left.length ? gettext("Choose a piece") : gettext("All your pieces are placed");
    return;
  }
  if (!target) {
    // Translators: the chosen piece (a letter a … u), then what to do with it
    line.textContent = interpolate(gettext("Piece %(piece)s · point at the board"), { piece: hand.piece });
    return;
  }
  const code = moveCode(target.x, target.y, hand.piece, hand.orientation);
  for (const [dx, dy] of pieceSquares(hand.piece, hand.orientation)) {
    const cell = view.cells[(target.y + dy) * data.board.width + target.x + dx];
    const x = target.x + dx;
    if (cell && x >= 0 && x < data.board.width) cell.dataset.preview = target.problem ? "bad" : "ok";
  }
  hand.aimedCode = target.problem || !mine ? null : code;
  line.dataset.code = code;
  codeLine(line, target.problem ? `%(code)s · ${target.problem}`
    // Translators: a move's code (e.g. 55u0), then what a click on the board does now
    : mine ? gettext("%(code)s · click to place") : gettext("%(code)s · wait for your move"), code);
  line.classList.toggle("bad", Boolean(target.problem));
}

// The code line's words in the page's font, the move's code alone in a fixed-width one
// (a monospaced font may draw Vietnamese marks badly: "đấu" as "đâú").
function codeLine(line, sentence, code) {
  const shown = document.createElement("code");
  shown.textContent = code;
  line.replaceChildren(...withNodes(sentence, { code: shown }));
}

// The squares where the chosen piece, as it is turned, can go (some legal placement
// covers them), tinted on the board; drawn again only when the piece or the turn changes.
function drawReach(page) {
  const { hand, view, data } = page;
  const wanted = page.myMove() && hand.piece ? `${data.turn}:${hand.piece}:${hand.orientation}` : "";
  if (hand.reachShown === wanted) return;
  hand.reachShown = wanted;
  for (const cell of view.root.querySelectorAll("[data-reach]")) delete cell.dataset.reach;
  if (!wanted) return;
  for (const [x, y, piece, orientation] of hand.legal) {
    if (piece !== hand.piece || orientation !== hand.orientation) continue;
    for (const [dx, dy] of pieceSquares(piece, orientation)) {
      view.cells[(y + dy) * data.board.width + x + dx].dataset.reach = "";
    }
  }
}

async function place(page) {
  const { hand } = page;
  const code = hand.aimedCode;
  if (!code || hand.sending) return;
  hand.sending = true;
  const refusal = page.find("refusal");
  refusal.hidden = true;
  codeLine(page.find("code-line"), gettext("%(code)s · sending…"), code);
  const { sent, reason } = await page.send([{ move: code }]);
  hand.sending = false;
  if (!sent && reason !== null) {
    // Translators: a move's code (e.g. 55u0) the server refused, then why
    page.refuse(refusal, interpolate(gettext("%(code)s refused: %(reason)s"), { code, reason }));
  } else if (!sent) {
    page.refuse(refusal, interpolate(gettext("%(code)s was not sent: the server could not be reached."),
                                     { code }));
  }
  await page.refresh();
  drawHand(page);
}

function drawTray(page) {
  const { find, hand } = page;
  const tray = find("tray");
  tray.replaceChildren();
  for (const piece of PIECE_LETTERS) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.piece = piece;
    const gone = !hand.left.includes(piece);
    button.disabled = gone;
    button.className = `piece-button${piece === hand.piece ? " chosen" : ""}${gone ? " placed" : ""}`
      + `${!gone && !hand.movable.has(piece) ? " stuck" : ""}`;
    button.setAttribute("aria-pressed", String(piece === hand.piece));
    // Translators: a piece's tooltip in the tray (its letter, a … u)
    button.title = interpolate(gone ? gettext("piece %(piece)s: placed") : gettext("piece %(piece)s"),
                               { piece });
    const picture = pieceSvg(pieceSquares(piece, piece === hand.piece ? hand.orientation : 0), { frame: 5 });
    const letter = document.createElement("span");
    letter.textContent = piece;
    button.append(picture, letter);
    button.addEventListener("click", () => {
      if (hand.piece !== piece) hand.orientation = 0;
      hand.piece = piece;
      drawTray(page);
      drawHand(page);
    });
    tray.append(button);
  }
}

export default {
  game: "blokus-duo",
  labels: ["A", "B"],
  classes: pieceClasses,
  target: codeTarget,
  coordinate: (i) => CODE_DIGITS[i] ?? String(i), // as the move codes name columns and rows
  describe: (outcome) => moveWords(outcome.move),
  // Translators: turn 0 of a game, before any move
  start: gettext("the empty board"),
  // Translators: Blokus Duo: the team that did not move this turn (the other team's turn)
  idle: gettext("not its move"),
  // the list of turns leaves the team not to move blank: every other line would say so
  quietIdle: true,
  // a game ends when neither side can move, near turn 35 of the 84 it may take
  usualEnd: 40,
  // the parts of its score as people read them (the chart's key, the cards)
  parts: { remaining: gettext("remaining") },
  // Translators: the board's legend: a Blokus Duo piece placed on the board
  legend: [[["piece-a edge-t edge-r edge-b edge-l", "piece-b edge-t edge-r edge-b edge-l"], gettext("piece")],
           [["piece-a edge-t edge-r edge-b edge-l", "piece-b edge-t edge-r edge-b edge-l"],
            // Translators: the board's legend: the piece placed in the last turn
            gettext("just placed"), "trace placed"],
           // Translators: the board's legend: a square the team's first piece must cover
           [["empty start-a", "empty start-b"], gettext("start square")]],
  // Translators: Blokus Duo: what a team's number is (fewer squares left is better)
  details: () => gettext("squares left to place · fewer wins"),
  // the play page: a piece at a time, chosen, turned and flipped, placed by its code, in
  // the page's hand and tray (start, show); what a position allows (view, legal, problem)
  play: { kind: "pieces", start: startHand, show: showHand, squares: pieceSquares,
          view: playerView, problem: placementProblem, legal: legalPlacements },
};
