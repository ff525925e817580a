// Each turn explained on the board: at most two large callouts of what mattered (the
// game's rules decide: territory closed, agents collided, an item taken, a corner taken),
// beside their cell or across the top of the board, edged in the team's colour. They
// come with the turn and fade after a few seconds (with reduced motion: no movement,
// they go all at once); the next turn's replace them.
//
// A callout of a cell stands beside it, never over it, with a tail pointing at it: above
// the cell where it fits inside the board, else under it, else to its right or left; it
// is measured, so a callout of several lines (a long sentence, large type on a small
// board) moves clear of its cell rather than over it. The board's size changes with the
// window (and the judges' banner): the callouts are placed again.

const placedBoards = new WeakSet();

export function drawCallouts(board, callouts, turn) {
  if (!board) return;
  let layer = board.querySelector(":scope > .callouts");
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "callouts";
    layer.setAttribute("role", "status");
    board.append(layer);
  }
  if (layer.dataset.forTurn === String(turn)) return;
  layer.dataset.forTurn = turn;
  layer.replaceChildren(...(callouts || []).slice(0, 2).map(callout));
  placeCallouts(board);
  if (!placedBoards.has(board) && window.ResizeObserver) {
    placedBoards.add(board);
    new ResizeObserver(() => placeCallouts(board)).observe(board);
  }
}

function callout({ text, team, at }, index) {
  const node = document.createElement("p");
  node.className = `callout${team === null || team === undefined ? "" : ` team-${"ab"[team]}`}`;
  node.textContent = text;
  if (at) node.dataset.at = at.join(",");
  else node.classList.add(index ? "second" : "first");
  return node;
}

export function placeCallouts(board) {
  for (const node of board.querySelectorAll(":scope > .callouts > .callout[data-at]")) {
    const [x, y] = node.dataset.at.split(",");
    const cell = board.querySelector(`.cell[data-x="${x}"][data-y="${y}"]`);
    if (cell) place(node, box(cell), { width: board.clientWidth, height: board.clientHeight });
  }
}

// The cell's box in the board's own pixels (the board is the cells' offset parent).
function box(node) {
  return { left: node.offsetLeft, top: node.offsetTop, width: node.offsetWidth, height: node.offsetHeight };
}

function place(node, cell, room) {
  const gap = Math.max(10, Math.round(cell.width * 0.3)); // the tail's length
  const width = node.offsetWidth;
  const height = node.offsetHeight;
  const middle = { x: cell.left + cell.width / 2, y: cell.top + cell.height / 2 };
  const across = clamp(middle.x - width / 2, 0, room.width - width);
  const upright = clamp(middle.y - height / 2, 0, room.height - height);
  const sides = [
    { side: "above", left: across, top: cell.top - gap - height },
    { side: "below", left: across, top: cell.top + cell.height + gap },
    { side: "right", left: cell.left + cell.width + gap, top: upright },
    { side: "left", left: cell.left - gap - width, top: upright },
  ];
  const inside = ({ left, top }) => left >= 0 && top >= 0 && left + width <= room.width
    && top + height <= room.height;
  // where none fits whole, the side with the most room, kept inside the board
  const chosen = sides.find(inside) || roomiest(sides.slice(0, 2), cell, room, height);
  node.dataset.side = chosen.side;
  node.style.left = `${Math.round(chosen.left)}px`;
  node.style.top = `${Math.round(chosen.top)}px`;
  node.style.setProperty("--tail", `${gap}px`);
  // the tail's place along the callout's edge, in its own (padding box) pixels
  const edge = getComputedStyle(node);
  const along = chosen.side === "above" || chosen.side === "below"
    ? middle.x - chosen.left - parseFloat(edge.borderLeftWidth)
    : middle.y - chosen.top - parseFloat(edge.borderTopWidth);
  const length = chosen.side === "above" || chosen.side === "below" ? node.clientWidth : node.clientHeight;
  node.style.setProperty("--tail-at", `${Math.round(clamp(along, gap, length - gap))}px`);
}

function roomiest([above, below], cell, room, height) {
  const overhead = cell.top;
  const underneath = room.height - cell.top - cell.height;
  const chosen = overhead >= underneath ? above : below;
  return { ...chosen, top: clamp(chosen.top, 0, room.height - height) };
}

function clamp(value, low, high) {
  return Math.max(low, Math.min(value, Math.max(low, high)));
}
