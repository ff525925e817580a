// Score over turns, one line per team, drawn into an <svg>. Pure: history in, SVG out.
// `keys` draws several parts per team, each with its own dash pattern (the first solid;
// drawChartLegend keys them); `current` marks a turn; onChartPick turns a click on the
// chart into a turn.

import { gettext, interpolate } from "./i18n.js";
import { signed } from "./venue/words.js";

const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["var(--team-a)", "var(--team-b)"];
// One pattern per part, every one different: solid, dashed, dotted, dash-dot, long dash.
export const DASHES = [null, "8 5", "2 5", "10 4 2 4", "16 6"];
const GEOMETRY = new WeakMap(); // svg -> what a click needs to find its turn
const DRAWN = new WeakMap(); // svg -> its last drawing's arguments, to draw it again
// A chart whose box changes size (a page squeezing it, a window resized) is drawn again
// in its new pixels, so that its words keep their size.
const RESIZED = window.ResizeObserver && new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const box = target.getBoundingClientRect();
    const view = target.viewBox.baseVal;
    const drawn = DRAWN.get(target);
    if (drawn && (Math.abs(box.width - view.width) > 0.5 || Math.abs(box.height - view.height) > 0.5)) {
      drawChart(target, ...drawn);
    }
  }
});

function element(name, attributes, text) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function drawChart(svg, history, turns, { key = "total", keys = null, current = null } = {}) {
  const parts = keys || [key];
  // Drawn in the pixels of its box where it has been laid out (its CSS gives it its
  // proportions and any squeeze), so that its words are the size the page's CSS says,
  // never shrunk with the chart; 400 × 160 before that.
  if (!DRAWN.has(svg)) RESIZED?.observe(svg);
  DRAWN.set(svg, [history, turns, { key, keys, current }]);
  const box = svg.getBoundingClientRect();
  const laid = box.width >= 120 && box.height >= 40;
  const width = laid ? box.width : 400;
  const height = laid ? box.height : 160;
  const pad = { left: 48, right: 10, top: 10, bottom: 24 };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.textContent = "";
  const values = history.flatMap((entry) => entry.scores.flatMap((score) => parts.map((part) => score[part])));
  const low = Math.min(0, ...values);
  const high = Math.max(10, ...values);
  const x = (turn) => pad.left + (turn / Math.max(turns, 1)) * (width - pad.left - pad.right);
  const y = (value) => height - pad.bottom - ((value - low) / (high - low)) * (height - pad.top - pad.bottom);
  svg.append(element("line", { x1: pad.left, x2: width - pad.right, y1: y(0), y2: y(0), class: "axis" }));
  for (const value of [low, high]) {
    svg.append(element("text", { x: pad.left - 6, y: y(value) + 5, class: "tick", "text-anchor": "end" }, signed(value)));
  }
  const last = interpolate(gettext("turn %(turn)s"), { turn: turns });
  svg.append(element("text", { x: width - pad.right, y: height - 4, class: "tick", "text-anchor": "end" }, last));
  if (current !== null) {
    svg.append(element("line", { x1: x(current), x2: x(current), y1: pad.top, y2: height - pad.bottom, class: "cursor" }));
  }
  parts.forEach((part, index) => {
    for (const team of [0, 1]) {
      const points = history.map((entry) => `${x(entry.turn).toFixed(1)},${y(entry.scores[team][part]).toFixed(1)}`);
      const line = { points: points.join(" "), fill: "none", stroke: COLOURS[team],
                     "stroke-width": index ? 2 : 3, class: `line team-${"ab"[team]}` };
      const dash = DASHES[index % DASHES.length];
      if (dash) line["stroke-dasharray"] = dash;
      if (keys) line.class += ` part-${part}`;
      svg.append(element("polyline", line));
    }
  });
  const geometry = { x, y, pad, width, height };
  GEOMETRY.set(svg, { ...geometry, turns });
  return geometry;
}

// The key to drawChart's parts: each part's name (as `named(part)` says it) beside a
// short line in its pattern.
export function drawChartLegend(box, parts, named = String) {
  box.replaceChildren(...parts.map((part, index) => {
    const item = document.createElement("span");
    item.className = "chart-key";
    item.dataset.part = part;
    const sample = element("svg", { viewBox: "0 0 30 6", width: 30, height: 6, "aria-hidden": "true",
                                     class: "line-key" });
    const dash = DASHES[index % DASHES.length];
    const line = { x1: 0, x2: 30, y1: 3, y2: 3, "stroke-width": index ? 2 : 3 };
    if (dash) line["stroke-dasharray"] = dash;
    sample.append(element("line", line));
    item.append(sample, ` ${named(part)}`);
    return item;
  }));
}

// Call `pick(turn)` with the turn under the pointer whenever the chart is clicked.
export function onChartPick(svg, pick) {
  svg.addEventListener("click", (event) => {
    const drawn = GEOMETRY.get(svg);
    const matrix = svg.getScreenCTM();
    if (!drawn || !matrix) return;
    const local = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    const span = drawn.width - drawn.pad.left - drawn.pad.right;
    const turn = Math.round(((local.x - drawn.pad.left) / span) * drawn.turns);
    pick(Math.min(Math.max(turn, 0), drawn.turns));
  });
}
