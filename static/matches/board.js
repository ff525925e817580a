// The board as a pure function of a state, for each of the four games: Kakomimasu's
// walls and territory; Procon 2020's tiles, areas, obstacles and treasures; CHaser's
// blocks and items with Cool and Hot; Blokus Duo's pieces and start squares. Agents,
// last turn's failed actions and every value are drawn; nothing is left to hover.
// Also each game's words for an action and for a team's score, shared by the screens.

const FAILURE_MARK = { invalid: "✕", conflict: "⚡" };
const WALLS = { ".": "neutral", A: "wall-a", B: "wall-b", a: "land-a", b: "land-b" };
const TILES = { ".": "neutral", A: "tile-a", B: "tile-b", "#": "obstacle" };
const CHASER = { ".": "floor", "#": "block", "*": "item" };
const BLOKUS_START = [[4, 4], [9, 9]]; // 55 and AA: the squares the first pieces cover
const CODE_DIGITS = "123456789ABCDE"; // a Blokus Duo code's column and row
const PIECE_SIZES = "123344444555555555555"; // squares of pieces a … u
const ALL_SQUARES = 89; // of one player's 21 pieces
const SIDES = [["t", 0, -1], ["r", 1, 0], ["b", 0, 1], ["l", -1, 0]];
const ARROWS = { "0,-1": "↑", "1,-1": "↗", "1,0": "→", "1,1": "↘", "0,1": "↓", "-1,1": "↙",
                 "-1,0": "←", "-1,-1": "↖" };
const CHASER_VERBS = { w: "walk", l: "look", s: "search", p: "put" };
const CHASER_WAYS = { u: "up", d: "down", l: "left", r: "right" };

// `agents`: the game's actions are per agent (and may conflict); `labels`: the mark of
// each team's one player where there are no numbered agents; `target`: the cell a
// failed action aimed at (CHaser's commands fail on no cell); `start`: turn 0 in words;
// `idle`: a team that sent nothing.
const GAMES = {
  kakomimasu: { points: true, agents: true, classes: wallClasses, target: absoluteTarget,
                describe: describePlaced, start: "the empty board", idle: "no action" },
  procon2020: { points: true, agents: true, classes: tileClasses, target: directedTarget,
                describe: describeDirected, start: "the agents on their first tiles",
                idle: "no action" },
  chaser: { labels: ["C", "H"], names: ["Cool", "Hot"], classes: chaserClasses, target: null,
            describe: (outcome) => chaserWords(outcome.command),
            start: "Cool and Hot on their first cells", idle: "no command" },
  "blokus-duo": { labels: ["A", "B"], classes: blokusClasses, target: codeTarget,
                  describe: (outcome) => blokusWords(outcome.move), start: "the empty board",
                  idle: "not its move" },
};

export function gameRules(game) {
  return GAMES[game] || GAMES.kakomimasu;
}

export function createBoard(root, board, game = "kakomimasu") {
  const rules = gameRules(game);
  root.textContent = "";
  root.style.setProperty("--w", board.width);
  root.style.setProperty("--h", board.height);
  root.setAttribute("role", "img");
  const treasures = new Map((board.treasures || []).map((t) => [`${t.x},${t.y}`, t.point]));
  const cells = [];
  for (let y = 0; y < board.height; y += 1) {
    for (let x = 0; x < board.width; x += 1) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.x = x;
      cell.dataset.y = y;
      if (rules.points) cell.append(pointsMark(board.points[y][x]));
      if (treasures.has(`${x},${y}`)) cell.append(mark("span", "treasure-badge", treasures.get(`${x},${y}`)));
      root.append(cell);
      cells.push(cell);
    }
  }
  return { root, board, game, rules, treasures, cells };
}

// `options.arrived` (Procon 2020): the turn an agent first stepped onto each cell, which
// is when a treasure there was taken (see noteArrivals); `options.previous` (Blokus Duo):
// the state before, to mark the piece just placed.
export function drawState(view, state, options = {}) {
  const { board, cells } = view;
  const classes = view.rules.classes(view, state, options);
  for (let y = 0; y < board.height; y += 1) {
    const row = state.cells[y];
    for (let x = 0; x < board.width; x += 1) {
      const cell = cells[y * board.width + x];
      const wanted = `cell ${classes(row[x], x, y)}`;
      if (cell.className !== wanted) cell.className = wanted;
      for (const old of cell.querySelectorAll(".agent, .failure")) old.remove();
    }
  }
  drawAgents(view, state);
  drawFailures(view, state);
  view.root.dataset.shownTurn = state.turn;
}

function drawAgents(view, state) {
  const { labels, names } = view.rules;
  state.agents.forEach((team, index) => {
    team.forEach((position, number) => {
      if (!position) return;
      const agent = mark("span", `agent team-${"ab"[index]}`, labels ? labels[index] : number);
      agent.title = names ? names[index] : `Team ${"AB"[index]} agent ${number}`;
      view.cells[position[1] * view.board.width + position[0]].append(agent);
    });
  });
}

function drawFailures(view, state) {
  const { board, rules } = view;
  if (!rules.target) return;
  for (const failure of failures(state)) {
    const [x, y] = rules.target(failure, state.agents[failure.team] || []) || [];
    if (!onBoard(board, x, y)) continue;
    view.cells[y * board.width + x].append(mark("span", `failure ${failure.result}`, FAILURE_MARK[failure.result]));
  }
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

// --- each game's cells --------------------------------------------------------------

function wallClasses() {
  return (char) => WALLS[char] || "neutral";
}

function tileClasses(view, state, { arrived = new Map() }) {
  const areas = ["A", "B"].map((own) => enclosed(state.cells, own));
  return (char, x, y) => {
    const names = [TILES[char] || "neutral"];
    if (char === ".") names.push(...areas.flatMap((inside, team) => (inside(x, y) ? [`area-${"ab"[team]}`] : [])));
    const key = `${x},${y}`;
    if (view.treasures.has(key) && !(arrived.get(key) <= state.turn)) names.push("treasure");
    return names.join(" ");
  };
}

// Procon 2020's area of a team: the cells a flood from the edge cannot reach, stepping
// to the four neighbours through anything but the team's own tiles.
function enclosed(cells, own) {
  const height = cells.length;
  const width = height ? cells[0].length : 0;
  const reached = new Uint8Array(width * height);
  const queue = [];
  const visit = (x, y) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    if (reached[y * width + x] || cells[y][x] === own) return;
    reached[y * width + x] = 1;
    queue.push([x, y]);
  };
  for (let x = 0; x < width; x += 1) {
    visit(x, 0);
    visit(x, height - 1);
  }
  for (let y = 0; y < height; y += 1) {
    visit(0, y);
    visit(width - 1, y);
  }
  while (queue.length) {
    const [x, y] = queue.pop();
    for (const [, dx, dy] of SIDES) visit(x + dx, y + dy);
  }
  return (x, y) => !reached[y * width + x] && cells[y][x] !== own;
}

function chaserClasses() {
  return (char) => CHASER[char] || "floor";
}

// A piece's outline is thick: pieces of one colour never share an edge, so an edge
// between two squares of one colour is inside a piece.
function blokusClasses(view, state, { previous }) {
  const same = (x, y, char) => state.cells[y]?.[x] === char;
  return (char, x, y) => {
    if (char !== "A" && char !== "B") {
      const start = BLOKUS_START.findIndex(([sx, sy]) => sx === x && sy === y);
      return start < 0 ? "empty" : `empty start-${"ab"[start]}`;
    }
    const edges = SIDES.filter(([, dx, dy]) => !same(x + dx, y + dy, char)).map(([side]) => `edge-${side}`);
    if (previous?.cells[y][x] === ".") edges.push("fresh");
    return [`piece-${char.toLowerCase()}`, ...edges].join(" ");
  };
}

// --- where a failed action aimed ------------------------------------------------------

function absoluteTarget(outcome) {
  return [outcome.x, outcome.y];
}

// A failed Procon 2020 action moved nobody: its agent is still where it started.
function directedTarget(outcome, agents) {
  const at = Number.isInteger(outcome.agent) ? agents[outcome.agent] : null;
  return at ? [at[0] + outcome.dx, at[1] + outcome.dy] : null;
}

// A Blokus Duo code's reference square.
function codeTarget(outcome) {
  const code = typeof outcome.move === "string" ? outcome.move.toUpperCase() : "";
  return code.length === 4 ? [CODE_DIGITS.indexOf(code[0]), CODE_DIGITS.indexOf(code[1])] : null;
}

// --- Procon 2020's treasures ------------------------------------------------------------

// The first successful move onto a treasure takes it, and only a successful move brings
// an agent where none stood the turn before: note when that first happens on each cell.
export function noteArrivals(arrived, before, after) {
  const stood = new Set(standing(before));
  for (const key of standing(after)) {
    if (!stood.has(key) && !arrived.has(key)) arrived.set(key, after.turn);
  }
}

// Joining a match late: a cell with an agent or a tile on it has been stepped onto
// (a start cell aside); a tile since removed is missed.
export function guessArrivals(arrived, board, state) {
  if (state.turn === 0 || !board.treasures) return;
  const starts = new Set((board.start || []).flat().map(([x, y]) => `${x},${y}`));
  state.cells.forEach((row, y) => [...row].forEach((char, x) => {
    if ((char === "A" || char === "B") && !starts.has(`${x},${y}`)) arrived.set(`${x},${y}`, state.turn);
  }));
  for (const key of standing(state)) arrived.set(key, state.turn);
}

function standing(state) {
  return state.agents.flat().filter(Boolean).map(([x, y]) => `${x},${y}`);
}

// --- words ------------------------------------------------------------------------------

// An action as the screens word it, e.g. "move (3, 4)", "move ↘", "wr · walk right".
export function describeAction(game, outcome) {
  const rules = gameRules(game);
  return outcome.type === null ? rules.idle : rules.describe(outcome);
}

// Who acted: the agent's number, or the team's one player (C / H, A / B).
export function actor(game, team, outcome) {
  const { labels } = gameRules(game);
  if (labels) return labels[team];
  return Number.isInteger(outcome.agent) ? String(outcome.agent) : JSON.stringify(outcome.agent ?? null);
}

function describePlaced(outcome) {
  const where = outcome.x == null ? "" : ` (${outcome.x}, ${outcome.y})`;
  return `${outcome.type ?? "?"}${where}`;
}

function describeDirected(outcome) {
  if (outcome.type === "stay") return "stay";
  return `${outcome.type ?? "?"} ${ARROWS[`${outcome.dx},${outcome.dy}`] || `(${outcome.dx}, ${outcome.dy})`}`;
}

function chaserWords(command) {
  if (command === undefined) return "no command";
  const verb = CHASER_VERBS[command?.[0]];
  const way = CHASER_WAYS[command?.[1]];
  return verb && way && command.length === 2 ? `${command} · ${verb} ${way}` : JSON.stringify(command);
}

function blokusWords(move) {
  if (typeof move !== "string") return JSON.stringify(move ?? null);
  if (move === "----" || move === "0000") return `${move} · pass`;
  const size = PIECE_SIZES["abcdefghijklmnopqrstu".indexOf(move[2]?.toLowerCase())];
  if (move.length !== 4 || !size) return move;
  return `${move} · piece ${move[2].toLowerCase()}, ${size} square${size === "1" ? "" : "s"}`;
}

// Each team's card: its one number ("total" where there is one), the rest of its score
// in words, and how the two compare (Blokus Duo: fewer squares left is better).
export function scoreCards(game, scores) {
  const parts = Object.keys(scores[0]);
  const headline = parts.includes("total") ? "total" : parts[0];
  const placed = game === "blokus-duo";
  const strength = scores.map((score) => (placed ? ALL_SQUARES - score[headline] : score[headline]));
  const leader = strength[0] === strength[1] ? -1 : strength[0] > strength[1] ? 0 : 1;
  const positive = strength.map((value) => Math.max(value, 0));
  const sum = positive[0] + positive[1];
  const details = scores.map((score, team) => {
    if (game === "chaser") return `${GAMES.chaser.names[team]} (${"CH"[team]}) · items taken`;
    if (placed) return "squares left to place · fewer wins";
    return parts.filter((part) => part !== headline).map((part) => `${part} ${score[part]}`).join(" · ");
  });
  return { headline, numbers: scores.map((score) => score[headline]), details, leader,
           share: sum ? positive[0] / sum : 0.5 };
}

// --- the legend ---------------------------------------------------------------------------

const KEYS = {
  kakomimasu: [["wall-a", "wall"], ["land-a", "territory"]],
  procon2020: [["tile-a", "tile"], ["neutral area-a", "area"], ["obstacle", "obstacle"],
               ["treasure", "treasure and its value", "treasure-badge", "8"]],
  chaser: [["block", "block"], ["item", "item"], ["floor", "Cool", "agent team-a", "C"],
           ["floor", "Hot", "agent team-b", "H"]],
  "blokus-duo": [["piece-a edge-t edge-r edge-b edge-l", "piece"],
                 ["piece-a edge-t edge-r edge-b edge-l fresh", "just placed"],
                 ["empty start-a", "start square"]],
};

// The marks of this game's board, each on a small cell drawn as the board draws it.
export function drawLegend(box, game) {
  const keys = (KEYS[game] || KEYS.kakomimasu).map(([classes, words, inner, text]) => {
    const cell = mark("span", `key cell ${classes}`);
    if (inner) cell.append(mark("span", inner, text));
    const item = mark("span", "", ` ${words}`);
    item.prepend(cell);
    return item;
  });
  const rules = gameRules(game);
  if (rules.target) keys.push(mark("span", "", "✕ invalid"));
  if (rules.agents) keys.push(mark("span", "", "⚡ conflict"));
  if (rules.points) {
    const negative = mark("span", "");
    negative.append(mark("i", "", "−3"), " negative");
    keys.push(negative);
  }
  box.replaceChildren(...keys);
}

// --- small parts -----------------------------------------------------------------------------

function pointsMark(value) {
  return mark("span", value < 0 ? "points negative" : "points", value < 0 ? `−${-value}` : String(value));
}

function mark(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
