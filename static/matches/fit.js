// A board sized to the box it is shown in (a tile of the wall, the TV, an embed's
// frame): the largest whole-pixel cell with which it fits. Below a cell where a value
// can still be read, the board is "compact": the values go, while walls, territory,
// agents and failure marks stay (screens.css).

export const READABLE_CELL = 30; // px: a value is 0.4 of its cell, 12 px at this size

export function fitBoard(stage, { readable = READABLE_CELL } = {}) {
  const board = stage.querySelector(".board");
  function fit() {
    const width = Number(board.style.getPropertyValue("--w"));
    const height = Number(board.style.getPropertyValue("--h"));
    if (!width || !height || !stage.clientWidth) return;
    const style = getComputedStyle(board);
    const frame = parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
    const cell = Math.max(2, Math.floor(Math.min((stage.clientWidth - frame) / width,
                                                 (stage.clientHeight - frame) / height)));
    board.style.setProperty("--cell", `${cell}px`);
    board.classList.toggle("compact", cell < readable);
  }
  new ResizeObserver(fit).observe(stage);
  new MutationObserver(fit).observe(board, { childList: true }); // a board (re)drawn
  fit();
  return fit;
}
