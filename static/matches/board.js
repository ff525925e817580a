// The board as a pure function of a state: cells, agents, point values and last
// turn's failed actions. Everything is drawn; nothing is left to hover.

const CELL_CLASS = { ".": "neutral", A: "wall-a", B: "wall-b", a: "land-a", b: "land-b" };
const FAILURE_MARK = { invalid: "✕", conflict: "⚡" };

export function createBoard(root, board) {
  root.textContent = "";
  root.style.setProperty("--w", board.width);
  root.style.setProperty("--h", board.height);
  root.setAttribute("role", "img");
  const cells = [];
  for (let y = 0; y < board.height; y += 1) {
    for (let x = 0; x < board.width; x += 1) {
      const cell = document.createElement("div");
      const value = board.points[y][x];
      cell.className = "cell neutral";
      cell.dataset.x = x;
      cell.dataset.y = y;
      const points = document.createElement("span");
      points.className = value < 0 ? "points negative" : "points";
      points.textContent = value < 0 ? `−${-value}` : String(value);
      cell.append(points);
      root.append(cell);
      cells.push(cell);
    }
  }
  return { root, board, cells };
}

export function drawState(view, state) {
  const { board, cells } = view;
  for (let y = 0; y < board.height; y += 1) {
    const row = state.cells[y];
    for (let x = 0; x < board.width; x += 1) {
      const cell = cells[y * board.width + x];
      const wanted = `cell ${CELL_CLASS[row[x]] || "neutral"}`;
      if (cell.className !== wanted) cell.className = wanted;
      for (const mark of cell.querySelectorAll(".agent, .failure")) mark.remove();
    }
  }
  state.agents.forEach((team, index) => {
    team.forEach((position, number) => {
      if (!position) return;
      const agent = document.createElement("span");
      agent.className = `agent team-${"ab"[index]}`;
      agent.textContent = number;
      agent.title = `Team ${"AB"[index]} agent ${number}`;
      cells[position[1] * board.width + position[0]].append(agent);
    });
  });
  for (const failure of failures(state)) {
    const { x, y } = failure;
    if (x == null || y == null || x < 0 || y < 0 || x >= board.width || y >= board.height) continue;
    const mark = document.createElement("span");
    mark.className = `failure ${failure.result}`;
    mark.textContent = FAILURE_MARK[failure.result];
    cells[y * board.width + x].append(mark);
  }
  view.root.dataset.shownTurn = state.turn;
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
