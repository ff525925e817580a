// Each turn explained on the board: at most two large callouts of what mattered (the
// game's rules decide: territory closed, agents collided, an item taken, a corner taken),
// beside their cell or across the top of the board, edged in the team's colour. They
// come with the turn and fade after a few seconds (with reduced motion: no movement,
// they go all at once); the next turn's replace them.

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
  const size = { cols: Number(board.style.getPropertyValue("--cols")) || 10 };
  layer.replaceChildren(...(callouts || []).slice(0, 2).map((said, index) => callout(said, index, size)));
}

function callout({ text, team, at }, index, { cols }) {
  const node = document.createElement("p");
  node.className = `callout${team === null || team === undefined ? "" : ` team-${"ab"[team]}`}`;
  node.textContent = text;
  if (!at) {
    node.classList.add(index ? "second" : "first");
    return node;
  }
  const [x, y] = at;
  node.style.setProperty("--x", x);
  node.style.setProperty("--y", y);
  // beside its cell, and inside the board: under the cell near the top, flush to the
  // cell's side near the left or right edge
  node.classList.add("at", y < 2 ? "below" : "above",
                     x < cols / 4 ? "from-left" : x >= cols * 3 / 4 ? "from-right" : "centred");
  return node;
}
