// A piece drawn as its squares, the same wherever a screen shows one: the trays on the
// venue's team cards, the hand and the tray of the play page.

const SVG = "http://www.w3.org/2000/svg";
// On a narrow screen (a phone, where the page scrolls and a tray wraps onto more lines)
// a square of a piece fitted to itself is drawn at least this large, its gap at least
// a pixel, however small the page's style would scale it; on a wider one, as styled.
// (900 px: where the screens turn to one column, app.css)
const NARROW_SQUARE = "clamp(0px, (900px - 100vw) * 1000, 9px)";

// Draws `squares` ([x, y] each) into `svg`: fitted to the piece with a hairline of room
// (its size in squares as --pw and --ph, which the page's style scales), or, given
// `frame`, centred in a square of that many squares, so that every piece is drawn at one
// scale. `reference`: the square at [0, 0] (the one a move's code names) is marked.
export function drawPiece(svg, squares, { frame = 0, reference = false } = {}) {
  const xs = squares.map(([x]) => x), ys = squares.map(([, y]) => y);
  const left = Math.min(0, ...xs), top = Math.min(0, ...ys);
  const width = Math.max(0, ...xs) - left + 1, height = Math.max(0, ...ys) - top + 1;
  const box = frame ? [left - (frame - width) / 2, top - (frame - height) / 2, frame, frame]
    : [left - 0.1, top - 0.1, width + 0.2, height + 0.2];
  svg.setAttribute("viewBox", box.join(" "));
  svg.style.setProperty("--pw", width);
  svg.style.setProperty("--ph", height);
  if (!frame) {
    svg.style.minWidth = `calc(${box[2]} * ${NARROW_SQUARE})`;
    svg.style.minHeight = `calc(${box[3]} * ${NARROW_SQUARE})`;
  }
  svg.replaceChildren(...squares.map(([x, y]) => {
    const square = document.createElementNS(SVG, "rect");
    Object.entries({ x: x + 0.06, y: y + 0.06, width: 0.88, height: 0.88, rx: 0.12 })
      .forEach(([name, value]) => square.setAttribute(name, value));
    if (reference && x === 0 && y === 0) square.setAttribute("class", "reference");
    return square;
  }));
  return svg;
}

// A new <svg> for a piece (see drawPiece).
export function pieceSvg(squares, options) {
  return drawPiece(document.createElementNS(SVG, "svg"), squares, options);
}
