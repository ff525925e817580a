// The replay's timeline around its slider: a lane of marks above it (who took the lead,
// big swings, many conflicts), their key, and the turns' ticks below it.

import { gameRules } from "../board.js";
import { gettext, interpolate, ngettext, withNodes } from "../i18n.js";
import { leadChanges } from "./events.js";
import { text } from "./text.js";

// Turns between ticks on the timeline, the smallest that leaves room.
const STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

// Above the slider, one lane each: who took the lead, big swings, many conflicts.
// `pick(turn)` goes to a mark's turn.
export function drawMarks(root, { data, events, leaders, finished, span }, pick) {
  const box = root.querySelector("[data-marks]");
  box.textContent = "";
  const { labels } = gameRules(data.game);
  const leads = leadChanges(leaders, finished);
  for (const event of events) {
    if (event === null) continue;
    const gainer = event.swing?.team;
    const lead = leads.get(event.turn);
    const { turn, conflicts } = event;
    const marks = [
      [lead !== undefined, `lead team-${"ab"[lead]}`, (labels || "AB")[lead],
       // Translators: a mark on the timeline, e.g. "Turn 12: Alpha takes the lead"
       interpolate(gettext("Turn %(turn)s: %(name)s takes the lead"),
                   { turn, name: data.teams[lead]?.name })],
      [event.bigSwing, `swing team-${"ab"[gainer]}`, "▲",
       // Translators: a mark on the timeline, e.g. "Turn 12: big swing, +40 for Alpha"
       interpolate(gettext("Turn %(turn)s: big swing, +%(points)s for %(name)s"),
                   { turn, points: event.swing?.points, name: data.teams[gainer]?.name })],
      [event.manyConflicts, "conflicts", "⚡",
       // Translators: a mark on the timeline, e.g. "Turn 12: 5 conflicts"
       interpolate(ngettext("Turn %(turn)s: %(count)s conflict", "Turn %(turn)s: %(count)s conflicts",
                            conflicts), { turn, count: conflicts })],
    ];
    for (const [shown, kind, glyph, label] of marks) {
      if (shown) box.append(mark(event.turn, (100 * event.turn) / span, kind, glyph, label, pick));
    }
  }
}

export function drawLeadKey(root, game) {
  const { labels } = gameRules(game);
  const key = root.querySelector("[data-lead-key]");
  const marks = document.createDocumentFragment();
  marks.append(text("span", (labels || "AB")[0], "mark-key lead team-a"),
               text("span", (labels || "AB")[1], "mark-key lead team-b"));
  // Translators: the timeline's key: %(marks)s is the two teams' lead marks (A and B) drawn there
  key.replaceChildren(...withNodes(gettext("%(marks)s takes the lead"), { marks }));
}

// Under the slider: a tick for every turn (or every few, on a narrow screen), the
// numbers far enough apart to read.
export function drawTicks(root, span) {
  const box = root.querySelector("[data-ticks]");
  const width = box.clientWidth;
  if (!width) return;
  const minor = STEPS.find((step) => (width * step) / span >= 6) || span;
  const major = STEPS.find((step) => step % minor === 0 && (width * step) / span >= 44) || span;
  const ticks = [];
  for (let turn = 0; turn <= span; turn += minor) {
    const tick = text("span", "", turn % major === 0 ? "tick major" : "tick");
    tick.style.left = `${(100 * turn) / span}%`;
    if (turn % major === 0 && (span - turn) * width >= 40 * span) tick.textContent = turn;
    ticks.push(tick);
  }
  const last = text("span", span, "tick major end");
  last.style.left = "100%";
  box.replaceChildren(...ticks, last);
}

function mark(turn, left, kind, glyph, label, pick) {
  const node = text("button", glyph, `mark ${kind}`);
  Object.assign(node, { type: "button", tabIndex: -1, title: label });
  node.setAttribute("aria-label", label);
  node.dataset.markTurn = turn;
  node.style.left = `${left}%`;
  node.addEventListener("click", () => pick(turn));
  return node;
}
