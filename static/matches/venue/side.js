// The venue's side column stays whole on the screen whatever it holds (a long pause's
// reason, names on two lines, the judges' banner taking the foot of the screen, a
// legend in longer words): where its parts are taller than the room, the chart gives
// up its height first, down to CHART_LOWEST, then goes; then the last turn's panel goes.
// The legend and the status chip under them always stay, and nothing overlaps.

const CHART_LOWEST = 56; // px: a chart lower than this says nothing from the back of a hall

export function keepSideOnScreen(root) {
  const side = root.querySelector(".side");
  if (!side || !window.ResizeObserver) return;
  // the parts that give way are not watched: their size follows what the others leave
  const watched = new ResizeObserver(() => fitSide(side));
  watched.observe(side);
  for (const part of side.children) {
    if (!part.matches(".chart-panel, [data-failures]")) watched.observe(part);
  }
}

export function fitSide(side) {
  const chart = side.querySelector(".chart-panel");
  const svg = chart?.querySelector("svg");
  const failures = side.querySelector("[data-failures]");
  for (const part of [chart, failures]) part?.classList.remove("no-room");
  if (svg) svg.style.maxHeight = "";
  let over = overflow(side, failures);
  if (over <= 0) return;
  if (svg && shown(chart)) {
    const lower = svg.getBoundingClientRect().height - over;
    if (lower >= CHART_LOWEST) {
      svg.style.maxHeight = `${Math.floor(lower)}px`;
      over = overflow(side, failures);
    } else {
      chart.classList.add("no-room");
      over = overflow(side, failures);
    }
  }
  if (over > 0 && failures && shown(failures)) failures.classList.add("no-room");
}

// How far the side's parts run past its foot, counting the last turn's panel as tall as
// its headline and, where it has any, one line of its list at least (a panel squeezed
// under that shows an empty box, or "+k more" where the chart could have made room for
// a reason).
function overflow(side, failures) {
  const parts = [...side.children].filter(shown);
  if (!parts.length) return 0;
  const past = parts.at(-1).getBoundingClientRect().bottom - side.getBoundingClientRect().bottom;
  return Math.ceil(past + (failures && shown(failures) ? roomShort(failures) : 0));
}

function roomShort(box) {
  const headline = box.querySelector(".summary");
  if (!headline) return 0;
  const style = getComputedStyle(box);
  let needed = headline.offsetHeight + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
    + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
  const list = box.querySelector("ul");
  if (list && Number(box.dataset.lines) > 0) {
    const listed = getComputedStyle(list);
    needed += parseFloat(listed.marginTop) + lineHeight(listed);
  }
  return Math.max(0, needed - box.offsetHeight);
}

function lineHeight(style) {
  const height = parseFloat(style.lineHeight);
  return Number.isFinite(height) ? height : 1.3 * parseFloat(style.fontSize);
}

function shown(node) {
  return node.getClientRects().length > 0;
}
