// The replay's details of the shown turn: its summary and, a row per agent, team A's
// actions beside team B's (or each team's one command or move), every reason in full.

import { RESULT_MARK, actor, conflictWords, describeAction, gameRules, invalidWords } from "../board.js";
import { gettext, interpolate, reasonSaid } from "../i18n.js";
import { actionRows } from "./events.js";
import { text } from "./text.js";

const RESULT_WORDS = {
  // Translators: an action's result, the tooltip of its mark ✓: it was carried out
  ok: gettext("ok"),
  // Translators: an action's result, the tooltip of its mark ✕: the rules refused it
  invalid: gettext("invalid"),
  // Translators: an action's result, the tooltip of its mark ⚡: it collided with another action
  conflict: gettext("conflict"),
};

// `data` is the replay's (game, teams, agents); `event` is the turn's (events.js);
// `reasons` the words of its reasons in every language.
export function drawActions(root, data, state, event, reasons) {
  const box = root.querySelector("[data-actions]");
  box.querySelector(".summary").replaceChildren(...summary(data, state, event));
  const grid = box.querySelector("[data-turn-actions]");
  grid.textContent = "";
  if (state.turn === 0) return;
  const { game, teams, agents } = data;
  grid.append(...teams.map((team, index) => text("h3", team.name, `team-${"ab"[index]}-text`)));
  const outcomes = state.outcomes || [[], []];
  for (const [key, row] of actionRows(game, outcomes, agents)) {
    row.forEach((own, team) => {
      const cell = document.createElement("div");
      cell.className = "action-cell";
      cell.dataset.team = team;
      cell.dataset.row = key;
      cell.append(...own.map((outcome) => actionItem(game, outcome, team, reasons)));
      grid.append(cell);
    });
  }
  grid.scrollTop = 0;
  grid.dispatchEvent(new Event("scroll"));
}

function summary(data, state, event) {
  const rules = gameRules(data.game);
  if (state.turn === 0) {
    // Translators: the replay's turn 0, e.g. "Turn 0: the empty board, before any action"
    const words = interpolate(gettext("Turn 0: %(start)s, before any action"), { start: rules.start });
    return [text("span", words)];
  }
  const { turn } = state;
  const invalid = invalidWords(event.invalid);
  // Translators: a turn's summary, e.g. "Turn 3: 2 conflicts, 1 invalid"
  const words = rules.agents ? interpolate(gettext("Turn %(turn)s: %(conflicts)s, %(invalid)s"),
                                           { turn, conflicts: conflictWords(event.conflicts), invalid })
    // Translators: a turn's summary where no agents act, e.g. "Turn 3: 0 invalid"
    : interpolate(gettext("Turn %(turn)s: %(invalid)s"), { turn, invalid });
  const parts = [text("span", words)];
  if (event.bigSwing) {
    const { team: gainer, points } = event.swing;
    // Translators: a turn that moved the score difference a lot, e.g. "▲ big swing: +40 for Alpha"
    const swing = interpolate(gettext("▲ big swing: +%(points)s for %(name)s"),
                              { points, name: data.teams[gainer].name });
    parts.push(text("span", swing, `event swing team-${"ab"[gainer]}-text`));
  }
  // Translators: a turn with many conflicting actions
  if (event.manyConflicts) parts.push(text("span", gettext("⚡ many conflicts"), "event conflicts"));
  return parts;
}

function actionItem(game, outcome, team, reasons) {
  const result = outcome.type === null ? "none" : outcome.result;
  const item = text("div", "", `action ${result}`);
  item.append(text("span", actor(game, team, outcome), `agent-chip team-${"ab"[team]}`),
              text("span", describeAction(game, outcome), "what"),
              text("span", RESULT_MARK[result] || "", "result"));
  if (RESULT_MARK[result]) item.lastChild.title = RESULT_WORDS[result];
  if (outcome.reason) item.append(text("span", reasonSaid(outcome.reason, reasons), "reason"));
  const read = gameRules(game).reply?.(outcome); // what a program read, where the game says
  if (read) item.append(text("span", read, "reply"));
  return item;
}
