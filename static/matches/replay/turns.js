// The replay's list of turns: a line a turn (its number, each team's move or how its
// score moved, its marks), the shown one current and kept in view.

import { describeAction, gameRules } from "../board.js";
import { interpolate, ngettext } from "../i18n.js";
import { text } from "./text.js";

// One line of the list of turns: its number, each team's move (or, where agents act,
// how its number moved and what failed), and its marks. Click it to go there.
// `before` is the state of the turn before, `event` the turn's (events.js).
export function turnLine(game, state, before, event, headline) {
  const line = document.createElement("li");
  line.dataset.lineTurn = state.turn;
  line.append(text("span", state.turn, "number"));
  if (state.turn === 0) {
    line.append(text("span", gameRules(game).start, "start"));
    return line;
  }
  (state.outcomes || [[], []]).forEach((outcomes, team) => {
    line.append(text("span", moveWords(game, headline, outcomes, team, before, state),
                     `move team-${"ab"[team]}${outcomes.length ? "" : " idle"}`));
  });
  const flags = text("span", "", "flags");
  if (event.bigSwing) flags.append(text("span", "▲", `team-${"ab"[event.swing.team]}-text`), " ");
  flags.append([event.conflicts ? `⚡${event.conflicts}` : "", event.invalid ? `✕${event.invalid}` : ""]
    .filter(Boolean).join(" "));
  line.append(flags);
  return line;
}

export function drawCurrentLine(list, turn) {
  for (const old of list.querySelectorAll("[aria-current]")) old.removeAttribute("aria-current");
  const line = list.children[turn];
  if (!line) return;
  line.setAttribute("aria-current", "true");
  keepInView(list, line);
  list.dispatchEvent(new Event("scroll"));
}

// Keep the shown turn in the list's view without scrolling the page (measured from the
// boxes as drawn, whatever the list's offset parent), and again whenever the list gets
// its size: a replay opened at its last turn lays the list out after its first drawing.
function keepInView(list, line) {
  placeInView(list, line);
  if (list.dataset.watched || !window.ResizeObserver) return;
  list.dataset.watched = "1";
  new ResizeObserver(() => {
    const current = list.querySelector("[aria-current]");
    if (current) placeInView(list, current);
    list.dispatchEvent(new Event("scroll"));
  }).observe(list);
}

function placeInView(list, line) {
  const box = list.getBoundingClientRect();
  const own = line.getBoundingClientRect();
  if (own.top < box.top || own.bottom > box.bottom) {
    list.scrollTop += own.top - box.top - (list.clientHeight - line.offsetHeight) / 2;
  }
}

function moveWords(game, headline, outcomes, team, before, state) {
  const rules = gameRules(game);
  if (!rules.agents) {
    if (!outcomes.length && rules.quietIdle) return ""; // the teams take turns: not its move
    return outcomes.length ? outcomes.map((outcome) => describeAction(game, outcome)).join(", ")
      : describeAction(game, { type: null });
  }
  const change = state.scores[team][headline] - before.scores[team][headline];
  const moved = outcomes.filter((outcome) => outcome.result === "ok").length;
  const acted = outcomes.length
    // Translators: how many of a team's actions in a turn succeeded, e.g. "3 ok"
    ? interpolate(ngettext("%(count)s ok", "%(count)s ok", moved), { count: moved })
    : describeAction(game, { type: null });
  return `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change)} · ${acted}`;
}
