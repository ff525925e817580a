// A team's debug output in the replay (docs/api.md, "Your program's debug output"):
// at each turn, what its program said with its actions and printed, and its marks drawn
// over the board (cells outlined with a label, lines between cells). Shown to the team
// itself (this browser signed in as it on /matches/<id>/team, or the play page's token
// kept in this tab), to judges, and to everyone once the match is published with it;
// the server decides who.

import { setHidden } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";

const SVG = "http://www.w3.org/2000/svg";

export async function startDebug(replay) {
  const panel = replay.find("[data-debug]");
  const key = `play-token:${replay.data.id}`;
  const offer = replay.find("[data-debug-token]");
  async function load() {
    const token = sessionStorage.getItem(key);
    if (!token && !panel.dataset.readable) { // a visitor: a team may open the match as itself
      setHidden(panel, false);
      setHidden(offer, false);
      return;
    }
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const response = await fetch(`/api/matches/${replay.data.id}/debug`, { headers });
    if (response.status === 403) {
      setHidden(panel, false);
      setHidden(offer, false);
      return;
    }
    if (!response.ok) return;
    replay.debug = (await response.json()).turns;
    setHidden(panel, false);
    setHidden(offer, true);
    replay.render();
  }
  let resized = null;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(() => drawDebug(replay), 150);
  });
  await load();
}

export function drawDebug(replay) {
  // a variation's turns were never played: the match's debug of those turns is not theirs
  const played = !replay.original || replay.turn <= replay.original.from;
  const said = replay.debug && played ? replay.debug[String(replay.turn)] || [] : [];
  const box = replay.find("[data-debug-text]");
  if (box && replay.debug) {
    box.replaceChildren(...(said.length ? said.map((entry) => teamText(replay, entry))
      : [Object.assign(document.createElement("p"), { className: "muted", textContent: gettext("Nothing said this turn.") })]));
  }
  drawMarks(replay.find(".board"), said.flatMap((entry) => entry.marks || []));
}

function teamText(replay, entry) {
  const part = document.createElement("div");
  part.className = `debug-team team-${"ab"[entry.team]}-text`;
  const name = replay.data.teams?.[entry.team]?.name || "AB"[entry.team];
  const head = Object.assign(document.createElement("strong"), { textContent: name });
  const text = Object.assign(document.createElement("pre"), { textContent: entry.text || "" });
  if (entry.marks?.length) {
    const count = entry.marks.length;
    head.append(` · ${interpolate(ngettext("%(count)s mark", "%(count)s marks", count), { count })}`);
  }
  part.append(head, text);
  return part;
}

// The marks over the board, in one SVG laid on it (cells found where the board drew them).
function drawMarks(board, marks) {
  board.querySelector("svg.debug-marks")?.remove();
  if (!marks.length) return;
  // in the board's own units (offsets, not the screen's boxes): right however it is zoomed
  const frame = { left: 0, top: 0, width: board.offsetWidth, height: board.offsetHeight };
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "debug-marks");
  svg.setAttribute("width", frame.width);
  svg.setAttribute("height", frame.height);
  const box = ([x, y]) => {
    const cell = board.querySelector(`.cell[data-x="${x}"][data-y="${y}"]`);
    return cell && { left: cell.offsetLeft, top: cell.offsetTop, width: cell.offsetWidth, height: cell.offsetHeight };
  };
  const shape = (name, attributes) => {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    svg.append(node);
    return node;
  };
  for (const mark of marks) {
    if (mark.cell) {
      const at = box(mark.cell);
      if (!at) continue; // off this board
      shape("rect", { x: at.left - frame.left + 2, y: at.top - frame.top + 2, width: at.width - 4,
                      height: at.height - 4, rx: 4, fill: "none", stroke: mark.color, "stroke-width": 3 });
      if (mark.label) {
        const text = shape("text", { x: at.left - frame.left + 4, y: at.top - frame.top + at.height - 5,
                                     fill: mark.color, "font-size": Math.max(9, at.height * 0.28) });
        text.textContent = mark.label;
      }
    } else if (mark.line) {
      const [from, to] = mark.line.map(box);
      if (!from || !to) continue;
      const centre = (rect) => [rect.left - frame.left + rect.width / 2, rect.top - frame.top + rect.height / 2];
      const [[x1, y1], [x2, y2]] = [centre(from), centre(to)];
      shape("line", { x1, y1, x2, y2, stroke: mark.color, "stroke-width": 3, "stroke-linecap": "round" });
      shape("circle", { cx: x2, cy: y2, r: 5, fill: mark.color });
    }
  }
  board.append(svg);
}
