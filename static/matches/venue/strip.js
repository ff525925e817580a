// The venue's turn strip: the turn, and beside it one countdown, whose move it is or
// the last step in words, as the match is played.

import { gameRules } from "../board.js";
import { formatCountdown } from "../clock.js";
import { setData, setText } from "../dom.js";
import { gettext, interpolate, reasonSaid, withNodes } from "../i18n.js";
import { alternating } from "./chess-clocks.js";
import { words } from "./words.js";

// "37 / 60" where turns are timed; where the teams take turns on chess clocks the
// game ends by its rules, so only the turn: "12" after the panel's "Turn" label, or
// "turn 12" where there is none (a tile).
export function drawTurn(root, screen, turn) {
  const node = root.querySelector("[data-turn]");
  if (!alternating(screen)) node.textContent = `${turn} / ${screen.meta.turns}`;
  else if (node.parentElement.querySelector(".label")) node.textContent = `${turn}`;
  else node.textContent = interpolate(gettext("turn %(turn)s"), { turn });
}

// One countdown: "next in 2.4 s" while live; "starts in 14:48" before the start
// where no start card shows it; "reconnecting…" while the socket is down (never a
// frozen number).
export function drawCountdown(root, screen, clock, { now, startsIn, startCard }) {
  const countdown = root.querySelector("[data-countdown]");
  let text = "";
  if (now === "reconnecting") text = gettext("reconnecting…");
  else if (now === "upcoming" && !startCard) {
    text = interpolate(gettext("starts in %(time)s"), { time: startsIn });
  } else if (screen.paused && now !== "finished") {
    drawPaused(countdown, screen.paused, clock);
    return;
  } else if (alternating(screen)) {
    drawMover(countdown, screen, now);
    return;
  } else if (screen.step && now !== "upcoming") {
    drawStep(countdown, screen, screen.step);
    return;
  } else if (now === "live" && screen.deadline !== null) {
    drawNextIn(countdown, formatCountdown(screen.deadline - clock.now()));
    return;
  }
  setText(countdown, text);
  setData(countdown, "mover", null);
  setData(countdown, "step", null);
  setData(countdown, "kind", now);
}

// Held by the judges: for how long so far and the time the open step keeps for when it
// goes on, on a line of their own that a long reason never pushes away; then why, in at
// most three lines (the panels under the clock stay on the screen).
function drawPaused(countdown, paused, clock) {
  const said = interpolate(gettext("Paused by the judges: %(reason)s"), { reason: paused.reason }, true);
  const held = interpolate(gettext("for %(time)s"),
                           { time: formatCountdown(Math.max(0, clock.now() - paused.since)) }, true);
  const left = paused.remaining_ms === null || paused.remaining_ms === undefined ? ""
    : ` · ${interpolate(gettext("%(time)s left"), { time: formatCountdown(paused.remaining_ms) }, true)}`;
  const reason = words("paused-said", said);
  reason.title = said;
  countdown.replaceChildren(words("paused-times", `${held}${left}`), reason);
  setData(countdown, "mover", null);
  setData(countdown, "step", null);
  setData(countdown, "kind", "paused");
}

// "next in 2.4 s": the words small and muted, the time in one piece after them or,
// where the line is short, under them (never split: it is the number the hall reads).
// Each tick writes the time alone.
function drawNextIn(countdown, time) {
  let shown = countdown.querySelector(":scope > .time");
  if (!shown) {
    shown = words("time", "");
    // Translators: the time left until the next turn is resolved, e.g. "next in 2.4 s"
    countdown.replaceChildren(...withNodes(gettext("next in %(time)s"), { time: shown },
                                           (text) => words("next-words", text)));
  }
  setText(shown, time);
  setData(countdown, "mover", null);
  setData(countdown, "step", null);
  setData(countdown, "kind", "live");
}

// Where the teams take turns on chess clocks, no countdown of the turn: whose move it
// is, the name in its colour ("Alpha to move"); nothing once the game is over.
function drawMover(countdown, screen, now) {
  const team = now === "live" ? screen.toMove : null;
  const key = team === null || team === undefined ? "" : String(team);
  setData(countdown, "kind", team === null || team === undefined ? now : "to-move");
  if (countdown.dataset.mover === key) return;
  countdown.dataset.mover = key;
  if (!key) {
    countdown.replaceChildren();
    return;
  }
  const { name, short } = screen.meta.teams[team];
  const tile = !countdown.parentElement.querySelector(".label"); // a tile: the short code
  const mover = words(`team-${"ab"[team]}-text mover`, tile && short ? short : name);
  mover.title = name;
  // Translators: whose move it is, e.g. "Alpha to move" (the name is drawn in its team's colour)
  countdown.replaceChildren(...withNodes(gettext("%(name)s to move"), { name: mover },
                                         (text) => words("to-move-words", text)));
}

// The last step, the side's name in its colour: "Hot · sr · search right".
function drawStep(countdown, screen, step) {
  const key = `${step.turn}-${step.team}`;
  setData(countdown, "kind", "step");
  if (countdown.dataset.step === key) return;
  countdown.dataset.step = key;
  const { name, short } = screen.meta.teams[step.team];
  const tile = !countdown.parentElement.querySelector(".label");
  const rules = gameRules(screen.meta.game);
  const said = step.result === "ok" ? rules.describe({ command: step.command })
    // Translators: a step that failed and why, e.g. "fault: no line within 2 s"
    : interpolate(gettext("fault: %(reason)s"),
                  { reason: step.reason ? reasonSaid(step.reason, step.reasons) : gettext("protocol error") });
  const who = words(`team-${"ab"[step.team]}-text mover`, tile && short ? short : name);
  who.title = name;
  countdown.replaceChildren(who, words("step-words", ` · ${said}`));
}
